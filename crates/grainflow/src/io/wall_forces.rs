//! Force and torque on every wall as a CSV time series (`walls.csv`), read from the forces the
//! soft-sphere wall pass computed at the last evaluation: nothing is evaluated again.
//!
//! The wall pass keeps, per grain, the sum of every wall's force f and torque τ (about the
//! grain's centre) on it. A grain whose touching wall members all belong to one wall gives
//! that wall −f, and the torque −(x × f + τ) about the origin: the grain's torque about the
//! origin, reversed (Newton's third law for forces and couples). A grain touching several walls
//! at once (a corner) gives a sum the pass does not split; it goes to the `shared_*` columns,
//! with the number of such grains, so no force is lost or guessed. A free wall's load is its
//! body's, summed over its grains by its own pass (`soft/free_walls.rs`).

use std::io::Write;

use glam::DVec3;

use crate::sim::Simulation;
use crate::stepper::Stepper;

/// The header of `walls.csv` for `walls` walls.
pub fn header(walls: usize) -> String {
    let mut h = String::from("time,step");
    for k in 0..walls {
        for c in ["fx", "fy", "fz", "tx", "ty", "tz"] {
            h.push_str(&format!(",wall{k}_{c}"));
        }
    }
    h.push_str(",shared_fx,shared_fy,shared_fz,shared_grains");
    h
}

/// What the walls bear at the last evaluation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WallLoads {
    /// Per wall: force (N) and torque about the origin (N m) on it.
    pub walls: Vec<(DVec3, DVec3)>,
    /// Force on walls from grains touching more than one wall at once (N).
    pub shared: DVec3,
    /// How many grains those are.
    pub shared_grains: usize,
}

/// The loads on the walls of `sim`; `None` for methods other than soft spheres, whose wall
/// pass is the one that keeps forces.
pub fn wall_loads(sim: &Simulation) -> Option<WallLoads> {
    let Stepper::Soft(s) = &sim.stepper else {
        return None;
    };
    let (w, p) = (&sim.world, &sim.world.particles);
    let mut loads = WallLoads {
        walls: vec![(DVec3::ZERO, DVec3::ZERO); w.walls.len()],
        ..WallLoads::default()
    };
    for &(k, f, tau) in &s.wall_force {
        if f == DVec3::ZERO && tau == DVec3::ZERO {
            continue;
        }
        let k = k as usize;
        // A free wall's share is not in the grain's sum: its body keeps its own.
        let rt = &w.wall_runtime;
        let mut touching = w
            .wall_history
            .contacts(k)
            .filter(|(m, state)| state.touching && !rt.is_free(m.wall()))
            .map(|(m, _)| m.wall());
        let first = touching.next();
        let one = first.filter(|&a| touching.all(|b| b == a));
        match one.and_then(|a| loads.walls.get_mut(a)) {
            Some(load) => {
                load.0 -= f;
                load.1 -= p.pos[k].cross(f) + tau;
            }
            None => {
                loads.shared -= f;
                loads.shared_grains += 1;
            }
        }
    }
    // Free walls: the grains' load their pass summed, the torque taken about the origin.
    for b in &w.wall_runtime.bodies {
        let (f, t) = b.contact;
        loads.walls[b.wall] = (f, t + b.body.state.pos.cross(f));
    }
    Some(loads)
}

/// Writes the row of `sim`'s current state (nothing for methods other than soft spheres).
pub fn write_row(w: &mut impl Write, sim: &Simulation) -> std::io::Result<()> {
    let Some(loads) = wall_loads(sim) else {
        return Ok(());
    };
    write!(w, "{:e},{}", sim.world.time, sim.world.step)?;
    for (f, t) in &loads.walls {
        for x in f.to_array().into_iter().chain(t.to_array()) {
            write!(w, ",{x:e}")?;
        }
    }
    let s = loads.shared;
    writeln!(w, ",{:e},{:e},{:e},{}", s.x, s.y, s.z, loads.shared_grains)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    /// Grains of radius 1 mm, E = 1e7 Pa, ν = 0.25, at rest and δ = 10 µm into the floor z = 0;
    /// B also 10 µm into the side wall x = 0.
    const SCENE: &str = r#"
[simulation]
duration = 1e-3
dt = 1e-6
[contact]
normal = "hertz"
[[materials]]
name = "m"
density = 2500
youngs_modulus = 1e7
poisson_ratio = 0.25
restitution = 0.9
sliding_friction = 0.3
[[walls]]
type = "plane"
material = "m"
point = [0, 0, 0]
normal = [0, 0, 1]
[[walls]]
type = "plane"
material = "m"
point = [0, 0, 0]
normal = [1, 0, 0]
[[particles]]
type = "list"
material = "m"
spheres = [
  { pos = [0.05, 0.01, 0.99e-3], radius = 1e-3 },
  { pos = [0.99e-3, 0.03, 0.99e-3], radius = 1e-3 },
]
[output]
series_interval = 1e-4
wall_forces = true
"#;

    #[test]
    fn a_resting_grain_loads_its_wall_with_the_hertz_force_and_its_moment() {
        let scene = Scene::from_toml(SCENE, "scene.toml").unwrap();
        let sim = Simulation::new(scene, std::path::Path::new(".")).unwrap();
        let loads = wall_loads(&sim).unwrap();
        // At rest the Hertz force is 4/3 Ē √R δ^{3/2} (002 eq A6), Ē = E / (2 (1 − ν²)) for a
        // grain and a wall of one material, R the grain's radius.
        let e_bar = 1e7 / (2.0 * (1.0 - 0.25f64 * 0.25));
        let f = 4.0 / 3.0 * e_bar * 1e-3f64.sqrt() * 1e-5f64.powf(1.5);
        let (floor, side) = (loads.walls[0], loads.walls[1]);
        let close = |a: DVec3, b: DVec3| (a - b).length() <= 1e-9 * f.max(b.length());
        assert!(close(floor.0, DVec3::new(0.0, 0.0, -f)), "{floor:?} vs {f}");
        // The moment about the origin of −f ẑ at the contact point (0.05, 0.01, 0).
        let moment = DVec3::new(0.05, 0.01, 0.0).cross(DVec3::new(0.0, 0.0, -f));
        assert!(close(floor.1, moment), "{:?} vs {moment:?}", floor.1);
        // Grain B presses on both walls: its sum is not split, but counted as shared.
        assert_eq!(side, (DVec3::ZERO, DVec3::ZERO));
        assert_eq!(loads.shared_grains, 1);
        assert!(
            close(loads.shared, DVec3::new(-f, 0.0, -f)),
            "{:?}",
            loads.shared
        );
        let mut row = Vec::new();
        write_row(&mut row, &sim).unwrap();
        let row = String::from_utf8(row).unwrap();
        assert_eq!(row.split(',').count(), header(2).split(',').count());
        assert!(row.trim_end().ends_with(",1"), "{row}");
    }

    #[test]
    fn wall_forces_need_soft_spheres_and_a_series() {
        let hard = SCENE.replace("dt = 1e-6", "dt = 1e-6\nmethod = \"hard\"");
        let e = Scene::from_toml(&hard, "s").unwrap().problems();
        assert!(
            e.iter()
                .any(|e| e.to_string().starts_with("output.wall_forces: ")),
            "{e:?}"
        );
        let quiet = SCENE.replace("series_interval = 1e-4\n", "");
        let e = Scene::from_toml(&quiet, "s").unwrap().problems();
        assert!(e
            .iter()
            .any(|e| e.to_string().starts_with("output.wall_forces: ")));
    }
}
