//! A pkdgrav ss file's bytes, and its records converted to SI.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((file, _, _)) = grainflow::io::ss::parse_ss(data) {
        for r in &file.records {
            let _ = r.to_scene(grainflow::io::ss::SsUnits::Pkdgrav);
        }
    }
});
