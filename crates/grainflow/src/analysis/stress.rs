//! Stress from contact forces: on planes (003 §3.2.1, eq 36) and averaged over a volume.
//!
//! Both follow 003's sign convention: compression is negative (a bed pressing on its floor has
//! σ_yy < 0), the opposite of the usual continuum convention.
//!
//! * Plane stress (003 eq 36, restored in `seeds/README.md`): on the plane x_k = c of area A,
//!   σ_kl = (1/A) Σ f_l over the particle–particle contacts whose two centres lie on opposite
//!   sides, f being the force the particle on the upper side (larger x_k) exerts on the one
//!   below — "the particles on top exert over the particles beneath them" (003 §3.2.1).
//! * Volume average (Radjai et al. 1996, 004 eq 3): σ_kl = −(1/V) Σ f_k l_l over the contacts
//!   whose contact point lies in the box, with f the force on particle j from particle i and
//!   l = x_j − x_i the branch vector.
//!
//! Contacts are read from the last force evaluation (the pair buffer); across periodic faces the
//! branch vector is the minimum image. Wall contacts are not included.

use glam::{DMat3, DVec3};

use crate::scene::StressOutput;
use crate::sim::Simulation;

/// One CSV row of `spec` (`[output.stress]`, [`StressOutput::header`]) for the current state
/// of `sim` (Pa).
pub fn stress_row(spec: &StressOutput, sim: &Simulation) -> String {
    let area = spec.plane_area(&sim.physics.periodic).unwrap_or(f64::NAN);
    let mut r = format!("{:e}", sim.world.time);
    for &c in &spec.planes {
        let s = plane_stress(sim, spec.axis, c, area);
        r.push_str(&format!(",{:e},{:e},{:e}", s.x, s.y, s.z));
    }
    for [lo, hi] in &spec.regions {
        let m = volume_stress(sim, *lo, *hi);
        for a in 0..3 {
            for b in 0..3 {
                // + 0.0 writes −0 as 0.
                r.push_str(&format!(",{:e}", m.col(b)[a] + 0.0));
            }
        }
    }
    r
}

/// Touching pairs of the last evaluation: (i, branch vector x_j − x_i (m), force on i (N)),
/// the branch vector to the partner's image when the partner is a ghost.
///
/// Panics unless the simulation keeps the per-pair forces ([`Simulation::keep_reactions`]),
/// a mistake of the calling program, not of a scene.
fn contacts(sim: &Simulation) -> impl Iterator<Item = (usize, DVec3, DVec3)> + '_ {
    let reaction = sim.reactions().expect(
        "stress analysis needs the per-pair forces: call Simulation::keep_reactions and step once",
    );
    let nl = &sim.world.neighbors;
    let pos = &sim.world.particles.pos;
    let n = pos.len();
    let period = sim.physics.periodic.lengths();
    (0..n).flat_map(move |i| {
        (nl.start[i]..nl.start[i + 1])
            .filter(move |&s| nl.slip[s].touching())
            .map(move |s| {
                let (_, l) = nl.separation(i, nl.partner[s] as usize, pos, period);
                // The reaction buffer holds the force on j; i receives the opposite.
                (i, l, -reaction[s].0)
            })
    })
}

/// Row k of the stress tensor on the plane x_k = `at` (m) of area `area` (m²): the force per
/// area (Pa) that the grains above exert on those below, 003 eq 36.
pub fn plane_stress(sim: &Simulation, axis: usize, at: f64, area: f64) -> DVec3 {
    let pos = &sim.world.particles.pos;
    let period = sim.physics.periodic.lengths()[axis];
    let mut total = DVec3::ZERO;
    for (i, l, force_i) in contacts(sim) {
        let xi = pos[i][axis];
        // Along a periodic axis, the image of the plane nearest to particle i.
        let c = if period > 0.0 {
            at + period * ((xi - at) / period).round()
        } else {
            at
        };
        let xj = xi + l[axis];
        if xi < c && c <= xj {
            total += force_i; // i below: the force on i comes from j above
        } else if xj < c && c <= xi {
            total -= force_i; // j below: the force on j is −force_i
        }
    }
    total / area
}

/// The stress tensor (Pa) averaged over the box [lo, hi] (m), compression negative.
pub fn volume_stress(sim: &Simulation, lo: DVec3, hi: DVec3) -> DMat3 {
    let pos = &sim.world.particles.pos;
    let boundary = sim.physics.periodic;
    let volume = (hi - lo).element_product();
    let mut sum = DMat3::ZERO;
    for (i, l, force_i) in contacts(sim) {
        let point = boundary.wrap(pos[i] + 0.5 * l);
        if point.cmpge(lo).all() && point.cmplt(hi).all() {
            let f_j = -force_i;
            sum += DMat3::from_cols(f_j * l.x, f_j * l.y, f_j * l.z);
        }
    }
    -sum / volume
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    /// Two spheres of 1 mm stacked along y with an overlap δ = 1e-7 m, linear spring k = 9000 N/m
    /// (F = k δ = 9e-4 N), no gravity: σ_yy = −F/A on a plane between the centres and 0 on a
    /// plane above both; the volume average over a box holding the contact is −F d/V with
    /// d the distance between the centres.
    #[test]
    fn stacked_pair_gives_weight_per_area_on_the_plane_between() {
        let text = r#"
[simulation]
duration = 1e-3
dt = 1e-6
[contact]
normal = { linear = { kn = 9000.0, damping = 0.0 } }
tangential = "none"
[output]
stress = { interval = 1e-3 }
[[materials]]
name = "g"
density = 3200
youngs_modulus = 1e7
poisson_ratio = 0.25
restitution = 1.0
sliding_friction = 0.5
[[particles]]
type = "list"
material = "g"
spheres = [{ pos = [0, 0, 0], radius = 1e-3 }, { pos = [0, 1.9999e-3, 0], radius = 1e-3 }]
"#;
        let scene = Scene::from_toml(text, "test").expect("parses");
        let sim = Simulation::new(scene, std::path::Path::new(".")).expect("builds");
        let f = 9000.0 * 1e-7; // k δ with δ = 2e-3 − 1.9999e-3 = 1e-7 m
        let area = 1e-4;
        let s = plane_stress(&sim, 1, 1e-3, area);
        assert!((s.y + f / area).abs() < 1e-9 * f / area, "{s:?}");
        assert!(s.x.abs() < 1e-15 && s.z.abs() < 1e-15);
        assert_eq!(plane_stress(&sim, 1, 3e-3, area), DVec3::ZERO);
        let lo = DVec3::new(-1e-3, 0.0, -1e-3);
        let hi = DVec3::new(1e-3, 2e-3, 1e-3);
        let v = volume_stress(&sim, lo, hi);
        let expected = -f * 1.9999e-3 / (hi - lo).element_product();
        assert!(
            (v.y_axis.y - expected).abs() < 1e-9 * expected.abs(),
            "{v:?}"
        );
    }
}
