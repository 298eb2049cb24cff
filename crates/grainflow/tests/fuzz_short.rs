//! The short fuzz run, on stable Rust in `cargo test --release` (docs/fuzzing.md): every fuzz
//! target's body (`grainflow::io::fuzz`) over its seeds, the inputs kept in
//! `fuzz/regressions/<target>/` (each made a target fail once), and deterministic mutations
//! of them (ChaCha8, seeded per target). No input may panic, and none may take longer than
//! [`TIME_OUT`]; a refusal is the right answer to bad bytes.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use grainflow::io::fuzz::TARGETS;
use grainflow::io::ss::{encode_ss, ss_from_particles, SsFormat, SsUnits};
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Mutated inputs per target.
const MUTATIONS: usize = 1000;

/// Longest time one input may take (the long runs use 10 s on a loaded machine).
const TIME_OUT: Duration = Duration::from_secs(10);

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The files of `dir` (none when it does not exist), in name order.
fn files(dir: &Path, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    paths.retain(|p| ext.is_empty() || p.extension().is_some_and(|e| e == ext));
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read(p).expect("reads a seed"))
        .collect()
}

/// A small run: three grains that touch, a few steps in (contact history in its checkpoint).
fn small_run() -> Simulation {
    let scene = Scene::from_toml(
        r#"
[simulation]
duration = 1e-3
dt = 1e-6
[contact]
normal = "hertz"
tangential = "spring"
[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 1e7
poisson_ratio = 0.3
restitution = 0.5
sliding_friction = 0.5
[[particles]]
type = "list"
material = "glass"
spheres = [{ pos = [0, 0, 0], radius = 1e-3, vel = [0, 0, 0.1] }, { pos = [0, 0, 1.999e-3], radius = 1e-3 }, { pos = [5e-3, 0, 0], radius = 5e-4, omega = [1, 2, 3] }]
"#,
        "fuzz-seed.toml",
    )
    .expect("the seed scene parses");
    let mut sim = Simulation::new(scene, Path::new(".")).expect("builds");
    for _ in 0..5 {
        sim.step().expect("steps");
    }
    sim
}

/// The seeds of a target: the repository's own files of its kind, inputs made here, and the
/// kept regressions.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let root = root();
    let mut seeds = match target {
        "scene" => files(&root.join("scenes"), "toml"),
        // Cut to a few pebbles, so that the translation packs them.
        "deck" => files(&root.join("scenes/pebbles"), "inp")
            .into_iter()
            .map(|d| {
                let text = String::from_utf8_lossy(&d).into_owned();
                let lines: Vec<String> = text
                    .lines()
                    .map(|l| match l.strip_prefix("number_of_pebbles") {
                        Some(_) => "number_of_pebbles 12".to_string(),
                        None => l.to_string(),
                    })
                    .collect();
                lines.join("\n").into_bytes()
            })
            .collect(),
        "checkpoint" => {
            let dir = std::env::temp_dir().join(format!("grainflow-fuzz-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            let path = dir.join("seed.gfck");
            small_run().checkpoint().write(&path).expect("writes");
            let bytes = std::fs::read(&path).expect("reads");
            let _ = std::fs::remove_dir_all(&dir);
            vec![bytes]
        }
        "lammps" => vec![
            b"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS ff ff ff\n0 1\n0 1\n0 1\n\
              ITEM: ATOMS id type x y z vx vy vz radius mass\n1 1 0.1 0.2 0.3 0 0 0 0.01 1e-3\n\
              2 1 0.5 0.5 0.5 1 0 0 0.02 8e-3\n"
                .to_vec(),
            b"LAMMPS data file\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\n\
              Atoms # sphere\n\n1 1 0.02 2500 0.1 0.2 0.3\n2 1 0.04 2500 0.5 0.5 0.5\n\n\
              Velocities\n\n1 0 0 0 0 0 0\n2 1 0 0 0 0 1\n"
                .to_vec(),
        ],
        "ss" => {
            let sim = small_run();
            let file = ss_from_particles(&sim.world.particles, 0.5, SsUnits::Scene).expect("ss");
            vec![
                encode_ss(&file, SsFormat::Standard),
                encode_ss(&file, SsFormat::Reduced),
            ]
        }
        _ => Vec::new(),
    };
    seeds.extend(files(&root.join("fuzz/regressions").join(target), ""));
    assert!(!seeds.is_empty(), "no seeds for {target}");
    seeds
}

/// Numbers a careless user or a flipped bit may leave in a text.
const NUMBERS: [&str; 10] = [
    "0",
    "-1",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "1e-320",
    "4294967296",
    "1e9",
    "0.5",
];

/// One mutation of `seed`: bits flipped, bytes replaced, cut, repeated or spliced from
/// `other`, or a number put in.
fn mutate(seed: &[u8], other: &[u8], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..rng.random_range(1..4) {
        let n = v.len();
        let at = if n == 0 { 0 } else { rng.random_range(0..n) };
        match rng.random_range(0..7) {
            0 if n > 0 => v[at] ^= 1 << rng.random_range(0..8),
            1 if n > 0 => v[at] = rng.random_range(0..=255u8),
            2 if n > 0 => {
                let end = (at + rng.random_range(1..64)).min(n);
                v.drain(at..end);
            }
            3 if n > 0 => {
                let end = (at + rng.random_range(1..64)).min(n);
                let piece = v[at..end].to_vec();
                v.splice(at..at, piece);
            }
            4 if !other.is_empty() => {
                let from = rng.random_range(0..other.len());
                let end = (from + rng.random_range(1..256)).min(other.len());
                v.splice(at..at, other[from..end].iter().copied());
            }
            5 => {
                let number = NUMBERS[rng.random_range(0..NUMBERS.len())];
                v.splice(at..at, number.bytes());
            }
            _ => v.truncate(at),
        }
    }
    v
}

/// Runs `body` on `input` on a thread of its own: the panic's message, or a time-out.
fn run_one(body: fn(&[u8]), input: Vec<u8>) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| body(&input));
        let _ = tx.send(outcome.map_err(|e| {
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        }));
    });
    match rx.recv_timeout(TIME_OUT) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(message)) => Err(format!("panicked: {message}")),
        Err(_) => Err(format!("took longer than {TIME_OUT:?}")),
    }
}

#[test]
fn every_fuzz_target_survives_its_seeds_regressions_and_mutations() {
    let start = Instant::now();
    let mut failures = Vec::new();
    for (k, (name, body)) in TARGETS.iter().enumerate() {
        let seeds = seeds(name);
        let mut rng = ChaCha8Rng::seed_from_u64(k as u64);
        let mut inputs = seeds.clone();
        for _ in 0..MUTATIONS {
            let seed = &seeds[rng.random_range(0..seeds.len())];
            let other = &seeds[rng.random_range(0..seeds.len())];
            inputs.push(mutate(seed, other, &mut rng));
        }
        for (n, input) in inputs.into_iter().enumerate() {
            if let Err(why) = run_one(*body, input.clone()) {
                // Kept where docs/fuzzing.md says: copy it into fuzz/regressions/<target>/.
                let path = std::env::temp_dir().join(format!("grainflow-fuzz-{name}-{n}"));
                let _ = std::fs::write(&path, &input);
                failures.push(format!(
                    "{name}: input {n} {why} (saved as {})",
                    path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{} targets, {MUTATIONS} mutations each, in {:.1} s",
        TARGETS.len(),
        start.elapsed().as_secs_f64()
    );
}
