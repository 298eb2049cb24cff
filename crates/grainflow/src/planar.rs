//! 2-D mode (`simulation.dimensions = 2`): discs moving in the plane z = const (seed 004 §II,
//! 2-D granular Couette flow).
//!
//! * A disc of radius r has mass m = ρ π r², with the material's `density` read as a mass per
//!   area (kg/m²), as LAMMPS does for 2-D finite-size particles, and moment of inertia
//!   I = ½ m r² about the z axis.
//! * Motion stays in the plane: velocities and forces have no z component, spins and torques
//!   only one. Every method removes the out-of-plane parts after each kick (soft) or collision
//!   pass (approx_hard, hard), so walls and contact laws need nothing special.
//! * A scene must give every particle the same z, uniform gravity in the plane, and walls whose
//!   surfaces are perpendicular to it (cylinders along z, planes with normals in it).

use crate::particles::Particles;
use crate::Error;

/// Mass of a disc of radius `r` (m) and areal density `rho` (kg/m²): m = ρ π r² (kg).
pub fn disc_mass(r: f64, rho: f64) -> f64 {
    std::f64::consts::PI * r * r * rho
}

/// Moment of inertia of a uniform disc about its axis, I = ½ m r² (kg m²).
pub fn disc_inertia(mass: f64, r: f64) -> f64 {
    0.5 * mass * r * r
}

/// Turns every particle of the store into a disc: inertia ½ m r² (kept locked or fixed where it
/// was), in-plane velocity, spin about z only.
pub fn make_discs(p: &mut Particles) {
    for k in 0..p.len() {
        let i = disc_inertia(p.mass[k], p.radius[k]);
        p.inertia[k] = i;
        if p.inv_inertia[k] > 0.0 {
            p.inv_inertia[k] = 1.0 / i;
        }
    }
    project_motion(p);
}

/// Removes the out-of-plane parts of velocities and spins.
pub fn project_motion(p: &mut Particles) {
    for v in p.vel.iter_mut() {
        v.z = 0.0;
    }
    for w in p.omega.iter_mut() {
        (w.x, w.y) = (0.0, 0.0);
    }
}

/// Removes the out-of-plane parts of forces and torques.
pub fn project_forces(p: &mut Particles) {
    for f in p.force.iter_mut() {
        f.z = 0.0;
    }
    for t in p.torque.iter_mut() {
        (t.x, t.y) = (0.0, 0.0);
    }
}

/// Refuses particles off the plane of the first one.
pub fn check_plane(p: &Particles) -> crate::Result<()> {
    let Some(z0) = p.pos.first().map(|x| x.z) else {
        return Ok(());
    };
    if let Some(k) = (0..p.len()).find(|&k| p.pos[k].z != z0) {
        return Err(Error::scene(
            "particles",
            format!(
                "with dimensions = 2 every disc must have the same z; particle {} is at z = {} but the first at z = {z0}",
                p.id[k], p.pos[k].z
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use glam::DVec3;

    use super::*;
    use crate::particles::{Mobility, ParticleSpec};

    #[test]
    fn discs_have_half_m_r_squared_and_move_in_plane() {
        let mut p = Particles::default();
        let spec = ParticleSpec {
            pos: DVec3::ZERO,
            vel: DVec3::new(1.0, 2.0, 3.0),
            omega: DVec3::new(1.0, 1.0, 1.0),
            radius: 0.5,
            material: 0,
            mobility: Mobility::Free,
        };
        // ρ = 4/π kg/m², r = 0.5 m: m = 1 kg, I = ½ · 1 · 0.25 = 0.125 kg m².
        p.push(0, &spec, disc_mass(0.5, 4.0 / std::f64::consts::PI));
        make_discs(&mut p);
        assert!((p.mass[0] - 1.0).abs() < 1e-15);
        assert!((p.inertia[0] - 0.125).abs() < 1e-15 && (p.inv_inertia[0] - 8.0).abs() < 1e-14);
        assert_eq!(p.vel[0], DVec3::new(1.0, 2.0, 0.0));
        assert_eq!(p.omega[0], DVec3::new(0.0, 0.0, 1.0));
    }
}
