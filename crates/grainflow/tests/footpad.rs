//! `scenes/footpad.toml`: a 1.5 kg footpad (a free closed mesh held to move along z) arrives at
//! 1.5 m/s on a settling regolith bed in lunar gravity. Before it touches a grain it falls freely,
//! z0 + v0 t − ½ g t², to 1e-9 m (velocity Verlet integrates a constant force exactly, so
//! only round-off is left); then it sinks into the bed, stops short of the floor, and the
//! grains carry its weight.

use std::path::Path;

use grainflow::rigid::penetration::penetration;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;

/// The pad's wall in the scene.
const PAD: usize = 1;
/// Lunar gravity (m/s²), as the scene gives it.
const G: f64 = 1.62;

#[test]
fn the_footpad_falls_freely_sinks_into_the_bed_stops_and_rests_on_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let scene = Scene::load(&dir.join("footpad.toml")).expect("loads");
    let duration = scene.simulation.duration;
    let radius = 0.004;
    let mut sim = Simulation::new(scene, &dir).expect("builds");
    let pad = |s: &Simulation| {
        let b = &s.world.wall_runtime.bodies[0];
        assert_eq!(b.wall, PAD);
        (
            b.body.state.pos.z,
            b.body.state.vel.z,
            b.contact.0.z,
            b.body.constants.mass,
        )
    };
    let (z0, v0, _, mass) = pad(&sim);
    assert_eq!((v0, mass), (-0.85, 1.5));
    // Free fall until the first contact.
    let mut worst = 0.0f64;
    let mut csv = String::from("time,step,wall1_z,wall1_vz,wall1_fz\n");
    loop {
        sim.step().expect("steps");
        let (z, v, f, _) = pad(&sim);
        let t = sim.world.time;
        csv.push_str(&format!("{t:e},{},{z:e},{v:e},{f:e}\n", sim.world.step));
        if f != 0.0 {
            break;
        }
        worst = worst.max((z - (z0 + v0 * t - 0.5 * G * t * t)).abs());
        worst = worst.max((v - (v0 - G * t)).abs());
    }
    let touch = sim.world.time;
    assert!(worst <= 1e-9, "free fall off the parabola by {worst:e}");
    assert!(
        touch > 0.005,
        "touched at {touch} s: the pad starts above the bed"
    );
    while sim.world.time < duration {
        sim.step().expect("steps");
        let (z, v, f, _) = pad(&sim);
        csv.push_str(&format!(
            "{:e},{},{z:e},{v:e},{f:e}\n",
            sim.world.time, sim.world.step
        ));
    }
    let rows = penetration(&csv, PAD).expect("touched");
    let last = rows[rows.len() - 1];
    let deepest = rows.iter().map(|d| d.depth).fold(0.0, f64::max);
    let (z_end, ..) = pad(&sim);
    eprintln!(
        "touched at {touch:.4} s; deepest {deepest:.4e} m; at {:.3} s {:.4e} m, vz {:.3e} m/s; sole {:.4e} m above the floor",
        last.time, last.depth, last.vz, z_end - 0.005
    );
    // It sank (more than a grain's radius) and stopped short of the floor by more than a
    // grain's diameter; it never rose a grain's radius above its deepest so far (it does not
    // bounce out of its crater).
    assert!(last.depth > radius, "{last:?}");
    assert!(
        z_end - 0.005 > 2.0 * radius,
        "the pad reached the floor: {z_end}"
    );
    let mut deepest_yet = 0.0f64;
    for d in &rows {
        deepest_yet = deepest_yet.max(d.depth);
        assert!(
            deepest_yet - d.depth < radius,
            "bounced: {d:?} after {deepest_yet}"
        );
    }
    // Stopped: at the end it moves at under 1 % of its impact speed, and over the last 0.1 s
    // the grains' mean force on it is its weight to 1 % (m Δv = ∫ (f − m g) dt).
    assert!(last.vz.abs() < 0.015, "{last:?}");
    let tail: Vec<_> = rows.iter().filter(|d| d.time >= duration - 0.1).collect();
    let mean_f = tail.iter().map(|d| d.fz).sum::<f64>() / tail.len() as f64;
    assert!(
        (mean_f / (mass * G) - 1.0).abs() < 0.01,
        "grains carry {mean_f} N of its {} N weight",
        mass * G
    );
}
