//! A checkpoint file's bytes: read and checked, every refusal an error.
//! The body is `grainflow::io::fuzz::checkpoint`, which the short run on stable calls too.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| grainflow::io::fuzz::checkpoint(data));
