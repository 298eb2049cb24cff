//! Walls (issue 3): the quick `wall-contacts` validation — every primitive against an
//! independent closest point to 1e-12, Hertz static overlap on every face to 1e-6, a moving
//! floor dragging a sphere to 2/7 of its speed to 1e-3 — and sticky and absorbing walls.

use std::path::Path;

use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::validation;

#[test]
fn wall_contacts_quick_form_passes() {
    let case = validation::find("wall-contacts").expect("case exists");
    let metrics = (case.run)(false).expect("runs");
    assert!(metrics.len() > 50);
    let failed: Vec<_> = metrics.iter().filter(|m| !m.pass).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

const SCENE: &str = r#"
[simulation]
duration = 0.3
dt = 1e-5

[contact]
normal = "hertz"

[[materials]]
name = "glass"
density = 2500
youngs_modulus = 1e6
poisson_ratio = 0.3
restitution = 0.5
sliding_friction = 0.3

[gravity]
uniform = [0, 0, -9.81]

[[walls]]
type = "plane"
material = "glass"
point = [0, 0, 0]
normal = [0, 0, 1]
surface = "SURFACE"
motion = { type = "translate", velocity = [0.2, 0, 0] }

[[particles]]
type = "list"
material = "glass"
spheres = [
  { pos = [0, 0, 0.0099], radius = 0.01 },
  { pos = [0.05, 0, 0.05], radius = 0.01 },
  { pos = [0.1, 0, 0.1], radius = 0.01 },
]
"#;

fn run(surface: &str) -> Simulation {
    let scene = Scene::from_toml(&SCENE.replace("SURFACE", surface), "test").expect("parses");
    let mut sim = Simulation::new(scene, Path::new(".")).expect("builds");
    let until = sim.scene.simulation.duration;
    sim.run_until(until, |_| Ok(())).expect("runs");
    sim
}

#[test]
fn sticky_floor_carries_grains_with_it() {
    // Every grain lands on the sticky floor and is then carried rigidly at 0.2 m/s: its
    // velocity is the floor's exactly and its height stays where it touched.
    let sim = run("sticky");
    let p = &sim.world.particles;
    assert_eq!(p.len(), 3);
    for k in 0..3 {
        assert_eq!(p.vel[k].x, 0.2, "grain {k}");
        assert!(
            p.pos[k].z < 0.01 && p.pos[k].z > 0.009,
            "grain {k} at {:?}",
            p.pos[k]
        );
        assert_eq!(p.inv_mass[k], 0.0);
    }
    // The first grain touched at t = 0 at x = 0, so it is at 0.2 m/s × 0.3 s.
    assert!((p.pos[0].x - 0.06).abs() < 1e-12, "{:?}", p.pos[0]);
}

#[test]
fn absorbing_floor_removes_and_counts_grains() {
    // Grains fall from rest through 0.05 m and 0.1 m (about 0.1 s and 0.14 s): all three are
    // gone by 0.3 s and counted once each; the same run twice gives the same state.
    let sim = run("absorbing");
    assert_eq!(sim.world.particles.len(), 0);
    assert_eq!(sim.world.wall_runtime.absorbed, vec![3]);
}

/// The quick drum turning from the start (glued grains on a sticky rotating cylinder).
fn drum() -> Scene {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenes/drum-quick.toml"
    ))
    .expect("scene")
    .replace("start = 0.3, ramp = 0.2", "start = 0.0, ramp = 0.01");
    Scene::from_toml(&text, "drum").expect("parses")
}

fn bits(v: &[grainflow::DVec3]) -> Vec<u64> {
    v.iter()
        .flat_map(|x| x.to_array().map(f64::to_bits))
        .collect()
}

#[test]
fn moving_sticky_drum_resumes_bit_for_bit_and_ignores_thread_count() {
    let n = 300;
    let run = |threads: usize, split: bool| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut sim = Simulation::new(drum(), Path::new(".")).expect("builds");
            for _ in 0..n {
                sim.step().expect("stable");
            }
            if split {
                let dir =
                    std::env::temp_dir().join(format!("grainflow-walls-{}", std::process::id()));
                std::fs::create_dir_all(&dir).expect("dir");
                let path = dir.join("drum.gfck");
                sim.checkpoint().write(&path).expect("writes");
                let ckpt = grainflow::io::checkpoint::Checkpoint::read(&path).expect("reads");
                sim = Simulation::resume(drum(), Path::new("."), ckpt).expect("resumes");
            }
            for _ in 0..n {
                sim.step().expect("stable");
            }
            sim
        })
    };
    let straight = run(1, false);
    let held = straight
        .world
        .wall_runtime
        .attached
        .iter()
        .flatten()
        .count();
    assert!(held > 50, "the glued layer is held: {held}");
    for other in [run(2, false), run(2, true)] {
        let (p, q) = (&straight.world.particles, &other.world.particles);
        assert!(bits(&p.pos) == bits(&q.pos), "positions differ");
        assert!(bits(&p.vel) == bits(&q.vel), "velocities differ");
        assert!(bits(&p.omega) == bits(&q.omega), "spins differ");
    }
}
