//! A checkpoint file's bytes: read and checked, every refusal an error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = grainflow::io::checkpoint::Checkpoint::from_bytes(
        data,
        std::path::Path::new("fuzz.gfck"),
    );
});
