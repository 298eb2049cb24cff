//! A pkdgrav ss file's bytes, and its records converted to SI.
//! The body is `grainflow::io::fuzz::ss`, which the short run on stable calls too.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| grainflow::io::fuzz::ss(data));
