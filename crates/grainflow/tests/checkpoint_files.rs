//! Damaged checkpoints are refused with a reason, never trusted and never a panic: every single
//! bit flipped, every truncation, random bytes; and a file of the format before (no checksum)
//! with a bad value is refused naming the value.

use std::path::{Path, PathBuf};

use grainflow::io::checkpoint::Checkpoint;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SCENE: &str = r#"
[simulation]
duration = 0.01
dt = "auto"

[contact]
normal = "hertz"

[[materials]]
name = "glass"
density = 2500
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.97
sliding_friction = 0.16

[[walls]]
type = "plane"
material = "glass"
point = [0, 0, 0]
normal = [0, 0, 1]

[[particles]]
type = "list"
material = "glass"
spheres = [{ pos = [0, 0, 4.9e-4], radius = 5e-4 }, { pos = [0, 0, 1.5e-3], radius = 5e-4 }]
"#;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grainflow-ckpt-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn written() -> (Vec<u8>, PathBuf) {
    let scene = Scene::from_toml(SCENE, "test").expect("parses");
    let mut sim = Simulation::new(scene, Path::new(".")).expect("builds");
    for _ in 0..20 {
        sim.step().expect("steps");
    }
    let path = temp("good").join("c.gfck");
    sim.checkpoint().write(&path).expect("writes");
    (std::fs::read(&path).expect("reads"), path)
}

fn read_bytes(bytes: &[u8], name: &str) -> Result<Checkpoint, String> {
    Checkpoint::from_bytes(bytes, Path::new(name)).map_err(|e| e.to_string())
}

#[test]
fn every_flipped_bit_and_every_cut_is_refused() {
    let (good, path) = written();
    assert!(Checkpoint::read(&path).is_ok());
    assert!(read_bytes(&good, "same.gfck").is_ok());
    for bit in 0..8 * good.len() {
        let mut bad = good.clone();
        bad[bit / 8] ^= 1 << (bit % 8);
        assert!(
            read_bytes(&bad, "flip.gfck").is_err(),
            "bit {bit} flipped was read"
        );
    }
    for len in 0..good.len() {
        let err = read_bytes(&good[..len], "cut.gfck").expect_err("a cut file was read");
        assert!(err.starts_with("cut.gfck: "), "{err}");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    for _ in 0..200 {
        let n = rng.random_range(0..2 * good.len());
        let mut bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
        if rng.random_bool(0.5) && bytes.len() > 18 {
            bytes[..18].copy_from_slice(&good[..18]); // magic and version kept
        }
        assert!(read_bytes(&bytes, "random.gfck").is_err());
    }
}

#[test]
fn an_older_format_with_a_bad_value_is_refused_naming_it() {
    let (good, _) = written();
    // Format 6: the same body without the free bodies' count (format 8, none here), the
    // resting contacts' count (format 9, none here) and the checksum.
    let mut old = good[..good.len() - 20].to_vec();
    old[14..18].copy_from_slice(&6u32.to_le_bytes());
    assert!(read_bytes(&old, "v6.gfck").is_ok());
    let scene_len = u64::from_le_bytes(old[18..26].try_into().expect("8 bytes")) as usize;
    let time = 26 + scene_len;
    let first = time + 8 + 8 + 8 + 8; // time, step, dt, count
    let mass = first + 8 + 3 * 24 + 8;
    let cases = [
        (time, f64::NEG_INFINITY, "time: must be finite, got -inf"),
        (time, f64::NAN, "time: must be finite, got NaN"),
        (
            mass,
            f64::NAN,
            "particle 0 (id 0): mass: must be finite and > 0, got NaN",
        ),
        (
            mass - 8,
            0.0,
            "particle 0 (id 0): radius: must be finite and > 0, got 0",
        ),
    ];
    for (at, v, want) in cases {
        let mut bad = old.clone();
        bad[at..at + 8].copy_from_slice(&v.to_le_bytes());
        let err = read_bytes(&bad, "v6bad.gfck").expect_err("refused");
        assert!(err.ends_with(want), "{err} (wanted {want})");
    }
}
