//! Free flight against the evaluation of every listed pair: the same collisions and bits.

use crate::scene::Scene;
use crate::sim::Simulation;
use crate::stepper::Stepper;

/// An inelastic gas of `{count}` grains in a box periodic along x (of `{box_x}`), y and z,
/// with `{walls}`.
const SCENE: &str = r#"[simulation]
method = "hard"
duration = 1.0
dt = 2e-3
seed = 5
[boundary]
periodic = { x = [0.0, {box_x}], y = [0.0, 1.0], z = [0.0, 1.0] }
[contact]
normal = "hertz"
[[materials]]
name = "m"
density = 1000
youngs_modulus = 1e7
poisson_ratio = 0.3
restitution = 0.8
sliding_friction = 0.3
{walls}
[[particles]]
type = "random"
material = "m"
count = {count}
radius = 0.03
min = [0, 0, 0]
max = [{box_x}, 1, 1]
velocity_dispersion = 2.0
"#;

/// An inelastic gas in a periodic box: without walls it flies free (the calendar), with a
/// plane far below that no grain meets every listed pair is
/// evaluated at every step. Both must give the same collisions and the same bits, also when
/// velocities are set from outside between steps, and when the flight ends.
fn same_bits(box_x: f64, count: usize, steps: usize, ends: bool) {
    let scene = |walls: &str| {
        SCENE
            .replace("{box_x}", &box_x.to_string())
            .replace("{count}", &count.to_string())
            .replace("{walls}", walls)
    };
    let far =
        "[[walls]]\nmaterial = \"m\"\ntype = \"plane\"\npoint = [0, 0, -100]\nnormal = [0, 0, 1]\n";
    let run = |text: String| {
        let scene = Scene::from_toml(&text, "gas").expect("parses");
        let mut sim = Simulation::new(scene, std::path::Path::new(".")).expect("builds");
        let mut flown = 0;
        for k in 0..steps {
            sim.step().expect("steps");
            let Stepper::Hard(h) = &sim.stepper else {
                panic!("hard spheres")
            };
            flown += usize::from(h.drift.flight.is_some());
            // A move and a kick from outside: the flight must notice. After the move the
            // list of all grains is rebuilt at once (grain 3 left its half skin); after the
            // kick it is resized.
            let p = &mut sim.world.particles;
            if k == steps / 2 {
                p.pos[3].y = (p.pos[3].y + 0.1) % 1.0;
            }
            if k == steps / 2 + 20 {
                p.vel[7] = glam::DVec3::new(30.0, 0.0, 0.0);
                p.vel[11] = -p.vel[11];
            }
        }
        let p = &sim.world.particles;
        (sim.world.collisions, p.pos.clone(), p.vel.clone(), flown)
    };
    let (free, listed) = (run(scene("")), run(scene(far)));
    assert_eq!(listed.3, 0, "a scene with a wall never flies free");
    if ends {
        assert!(
            0 < free.3 && free.3 < steps,
            "{} steps flown free of {steps}",
            free.3
        );
    } else {
        assert_eq!(free.3, steps, "steps flown free");
    }
    assert!(
        free.0 > 2 * count as u64,
        "{} collisions: a real test",
        free.0
    );
    assert_eq!(free.0, listed.0, "collisions");
    assert!(free.1 == listed.1, "positions differ");
    assert!(free.2 == listed.2, "velocities differ");
}

/// A grain moved from outside half the skin away is looked at in the very step, even after
/// the grains due in it were: the list of all grains would be rebuilt then.
#[test]
fn a_grain_moved_from_outside_is_looked_at_at_once() {
    let text = SCENE
        .replace("{box_x}", "1.0")
        .replace("{count}", "400")
        .replace("{walls}", "");
    let scene = Scene::from_toml(&text, "gas").expect("parses");
    let mut sim = Simulation::new(scene, std::path::Path::new(".")).expect("builds");
    let dt = sim.physics.dt;
    for _ in 0..20 {
        sim.step().expect("steps");
    }
    let Stepper::Hard(h) = &mut sim.stepper else {
        panic!("hard spheres")
    };
    let (w, physics) = (&mut sim.world, &sim.physics);
    let leaves = |w: &mut crate::world::World, ds: &mut crate::hard::DriftState| {
        super::fly(w, physics, ds, dt).expect("flies free");
        let f = ds.flight.as_deref_mut().expect("a flight");
        f.leaves(&w.particles, dt, w.neighbors.skin, w.step)
    };
    leaves(w, &mut h.drift); // the grains due in this step looked at
    w.particles.pos[3].y = (w.particles.pos[3].y + 0.1) % 1.0;
    let left = leaves(w, &mut h.drift);
    assert!(left, "grain 3 left half the skin, in the same step");
}

#[test]
fn free_flight_gives_the_bits_of_every_listed_pair() {
    same_bits(1.0, 400, 300, false);
}

/// A box three cells long along x: every cell about every other, images counted. The kick
/// from outside leaves no room for three cells for a while: the flight hands the list back,
/// and takes it over again.
#[test]
fn a_box_of_three_cells_along_an_axis() {
    same_bits(0.3, 100, 200, true);
}
