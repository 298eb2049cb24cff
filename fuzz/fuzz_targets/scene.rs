//! A scene file (TOML): parsed and checked, every refusal an error, never a panic.
//! The body is `grainflow::io::fuzz::scene`, which the short run on stable calls too.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| grainflow::io::fuzz::scene(data));
