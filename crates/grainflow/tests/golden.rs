//! Golden regression files: a small fixed scene per method and field (`tests/golden/*.toml`)
//! is stepped a fixed number of times, and every grain's position, velocity, spin, force and
//! torque must equal, bit for bit, what `tests/golden/*.golden` holds. They guard the
//! physics while the code around it changes: a refactoring keeps every bit.
//!
//! When the physics changes on purpose, rewrite them and say why in the commit:
//!
//! ```sh
//! GRAINFLOW_BLESS=1 cargo test --release -p grainflow --test golden
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use grainflow::scene::Scene;
use grainflow::sim::Simulation;

/// Each scene with its number of steps: enough for contacts to form, slide and part.
const CASES: [(&str, u64); 7] = [
    ("soft_hertz_walls", 300),
    ("pebbles_euler", 300),
    ("hard", 200),
    ("hard_periodic", 200),
    ("approx_hard", 200),
    ("tree_gravity", 100),
    ("periodic", 300),
];

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// The state after `steps` steps, one line per grain in ascending id, every number as the
/// hexadecimal bits of its f64 (equal text = equal bits).
fn state_after(name: &str, steps: u64) -> String {
    let path = folder().join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&path).expect("reads the scene");
    let scene = Scene::from_toml(&text, &path.display().to_string()).expect("parses");
    let mut sim = Simulation::new(scene, &folder()).expect("builds");
    for _ in 0..steps {
        sim.step().expect("steps");
    }
    let p = &sim.world.particles;
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by_key(|&k| p.id[k]);
    let mut out = format!(
        "# {name} after {steps} steps: id, then pos, vel, omega, force, torque (x y z each) as f64 bits\n\
         time {:016x}\n",
        sim.world.time.to_bits()
    );
    for k in order {
        write!(out, "{}", p.id[k]).expect("writes");
        for v in [p.pos[k], p.vel[k], p.omega[k], p.force[k], p.torque[k]] {
            for x in v.to_array() {
                write!(out, " {:016x}", x.to_bits()).expect("writes");
            }
        }
        out.push('\n');
    }
    out
}

#[test]
fn every_method_keeps_its_golden_bits() {
    let bless = std::env::var_os("GRAINFLOW_BLESS").is_some();
    let mut differ = Vec::new();
    for (name, steps) in CASES {
        let now = state_after(name, steps);
        let file = folder().join(format!("{name}.golden"));
        if bless {
            std::fs::write(&file, &now).expect("writes the golden file");
            continue;
        }
        let before = std::fs::read_to_string(&file).expect("reads the golden file");
        // The first line that differs, as grain id and field, says where to look.
        if let Some((a, b)) = before.lines().zip(now.lines()).find(|(a, b)| a != b) {
            differ.push(format!("{name}: expected\n  {a}\ngot\n  {b}"));
        } else if before.lines().count() != now.lines().count() {
            differ.push(format!("{name}: the number of grains changed"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
