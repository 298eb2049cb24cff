//! A run stopped after any step and resumed from its folder's checkpoint writes every file as
//! the run that was never stopped: the series (its interval peak of the overlap included), the
//! frames, the dump and the PEBBLES tallies (energy and velocity rows, probability table, wear
//! and force tallies), byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use grainflow::io::checkpoint::Checkpoint;
use grainflow::io::Outputs;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;

/// 300 glass grains poured into a 45 mm box for 60 ms, every tally on.
const SCENE: &str = r#"
[simulation]
duration = 0.06
dt = "auto"
seed = 3
domain = [[-0.1, -0.1, -0.01], [0.1, 0.1, 0.3]]

[contact]
normal = "hertz"
tangential = "spring"

[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3

[gravity]
uniform = [0.0, 0.0, -9.81]

[[walls]]
type = "plane"
material = "glass"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[walls]]
type = "cylinder"
material = "glass"
axis = [0.0, 0.0, 1.0]
origin = [0.0, 0.0, 0.0]
radius = 0.02

[[particles]]
type = "random"
material = "glass"
count = 300
radius = 1.5e-3
spread = 0.1
min = [-0.012, -0.012, 0.002]
max = [0.012, 0.012, 0.03]
velocity = [0.0, 0.0, -0.5]

[output]
snapshot_interval = 0.01
series_interval = 0.0025
checkpoint_interval = 0.004

[output.tallies]
energy_interval = 0.005
velocity = { start = 0.01, interval = 0.005 }
probability = { start = 0.0, interval = 0.01, cell = 0.005 }
wear = { exponent = 0.6666666666666666, velocity_bins = [0.05, 0.2] }
force = {}
"#;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grainflow-resume-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn scene() -> Scene {
    Scene::from_toml(SCENE, "pour-tallies").expect("parses")
}

/// Every file of a run folder and its frames, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for (d, prefix) in [(dir.to_path_buf(), ""), (dir.join("frames"), "frames/")] {
        for e in std::fs::read_dir(&d).expect("lists").flatten() {
            if e.path().is_dir() {
                continue;
            }
            let name = format!("{prefix}{}", e.file_name().to_string_lossy());
            all.insert(name, std::fs::read(e.path()).expect("reads"));
        }
    }
    all
}

/// Runs from `sim` to the end into `dir`, or until `stop_after` steps, when the outputs are
/// dropped unfinished as a kill would leave them (what was buffered reaches the files).
fn run(mut sim: Simulation, dir: &Path, stop_after: Option<u64>) {
    let end = sim.scene.simulation.duration;
    let mut out = Outputs::new(dir, &sim).expect("opens");
    while sim.world.time + 0.5 * sim.physics.dt < end {
        sim.step().expect("steps");
        out.observe(&sim).expect("writes");
        if Some(sim.world.step) == stop_after {
            return;
        }
    }
    out.finish(&sim).expect("finishes");
}

fn resumed(dir: &Path) -> Simulation {
    let ckpt = Checkpoint::read(&dir.join("checkpoint.gfck")).expect("reads");
    Simulation::resume(scene(), Path::new("."), ckpt).expect("resumes")
}

#[test]
fn runs_stopped_and_resumed_write_the_files_of_a_straight_run() {
    let straight = temp("straight");
    run(
        Simulation::new(scene(), Path::new(".")).expect("builds"),
        &straight,
        None,
    );
    let want = files(&straight);
    for name in [
        "series.csv",
        "energy.csv",
        "velocity_tally.csv",
        "probability_table.csv",
        "wear.csv",
        "force_tally.csv",
    ] {
        assert!(want.contains_key(name), "{name} missing: {:?}", want.keys());
    }
    let wear = String::from_utf8_lossy(&want["wear.csv"]).to_string();
    assert!(
        wear.lines().nth(1).is_some_and(|l| !l.ends_with(",0e0")),
        "{wear}"
    );

    // Stopped after steps that fall between checkpoints and between rows, resumed each time
    // from the last checkpoint.
    let stopped = temp("stopped");
    let steps = straight_steps(&want);
    let mut sim = Simulation::new(scene(), Path::new(".")).expect("builds");
    for k in 1..6 {
        run(sim, &stopped, Some(k * steps / 6 + 17));
        sim = resumed(&stopped);
    }
    run(sim, &stopped, None);
    let got = files(&stopped);
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &want {
        if *bytes != got[name] {
            let (a, b) = (
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&got[name]),
            );
            let first = a.lines().zip(b.lines()).find(|(x, y)| x != y);
            panic!("{name} differs from the straight run's: first at {first:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&straight);
    let _ = std::fs::remove_dir_all(&stopped);
}

/// The steps of the straight run, from the last row of its series.
fn straight_steps(files: &BTreeMap<String, Vec<u8>>) -> u64 {
    let series = String::from_utf8_lossy(&files["series.csv"]).to_string();
    let last = series.lines().last().expect("a row");
    last.split(',')
        .nth(1)
        .expect("step")
        .parse()
        .expect("a number")
}
