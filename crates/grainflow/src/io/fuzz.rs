//! The bodies of the fuzz targets, one per reader of a file a user hands to grainflow: the
//! libFuzzer targets of `fuzz/` call them, and so does the short run on stable Rust
//! (`tests/fuzz_short.rs`, docs/fuzzing.md). Each feeds the bytes to the reader; a refusal (an
//! `Err`) is the right answer to bad bytes, a panic is a bug.

use std::path::Path;

/// Pebbles a deck may ask for and still be translated (packing included): larger packings
/// are slow by right, not hangs, so the fuzzers keep to small ones.
pub const DECK_PEBBLES: f64 = 200.0;

/// A scene file (TOML): parsed, then every check (`Scene::problems`) and the estimate of its
/// cost (which reads no file here: the paths lead nowhere).
pub fn scene(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(scene) = crate::Scene::from_toml(text, "fuzz.toml") {
            let _ = scene.problems();
            let _ = scene.estimate(Path::new("/nonexistent-fuzz"));
        }
    }
}

/// A PEBBLES deck: parsed and, when it asks for at most [`DECK_PEBBLES`], translated into a
/// scene (its packing included).
pub fn deck(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(deck) = super::pebbles::Deck::parse(text, "fuzz.inp") else {
        return;
    };
    if deck.has("number_of_pebbles") && deck.num("number_of_pebbles") <= DECK_PEBBLES {
        let _ = deck.translate(Path::new("/nonexistent-fuzz"), &[]);
    }
}

/// A checkpoint's bytes: read and checked (checksum, format, every value).
pub fn checkpoint(data: &[u8]) {
    let _ = super::checkpoint::Checkpoint::from_bytes(data, Path::new("fuzz.gfck"));
}

/// LAMMPS text: a dump (every frame and its atoms) and a data file.
pub fn lammps(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(frames) = super::dump_read::parse_dump(text) {
        for f in &frames {
            let _ = f.atoms();
        }
    }
    let _ = super::lammps_data::parse_lammps_data(text);
}

/// A pkdgrav `ss` file's bytes, and its records converted to SI.
pub fn ss(data: &[u8]) {
    if let Ok((file, _, _)) = super::ss::parse_ss(data) {
        for r in &file.records {
            let _ = r.to_scene(super::ss::SsUnits::Pkdgrav);
        }
    }
}

/// A target's body: the bytes in, nothing out but a panic on a bug.
pub type Body = fn(&[u8]);

/// Every target by name, as `fuzz/` names its binaries.
pub const TARGETS: [(&str, Body); 5] = [
    ("scene", scene),
    ("deck", deck),
    ("checkpoint", checkpoint),
    ("lammps", lammps),
    ("ss", ss),
];
