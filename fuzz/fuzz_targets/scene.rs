//! A scene file (TOML): parsed and checked, every refusal an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(scene) = grainflow::Scene::from_toml(text, "fuzz.toml") {
            let _ = scene.problems();
        }
    }
});
