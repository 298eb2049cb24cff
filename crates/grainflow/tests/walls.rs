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
