//! A PEBBLES deck: parsed and, when it asks for few pebbles, translated into a scene (its
//! packing included).
//! The body is `grainflow::io::fuzz::deck`, which the short run on stable calls too.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| grainflow::io::fuzz::deck(data));
