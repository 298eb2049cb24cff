//! Contact time and time step (002 §5.2, eq 27–29).
//!
//! t_c = π √(M / (k_n (1 − ξ²))) with ξ = g_n / √(4 M k_n) and M the reduced mass, for the
//! Hookean contact with simple damping, which 002 §5.2 finds the more conservative estimate
//! for Hertzian contacts too. `dt = "auto"` is t_c/15 for the stiffest, lightest pair; a given
//! dt above t_c/10 is refused.

use crate::contact::normal::linear_equivalent;
use crate::contact::Normal;
use crate::gravity::Gravity;
use crate::material::{effective_mass, effective_radius, PairParams};
use crate::particles::Particles;

/// The fraction of the contact time `dt = "auto"` takes (002 §5.2).
pub const AUTO_FRACTION: f64 = 1.0 / 15.0;
/// The largest fraction of the contact time a given dt may be.
pub const MAX_FRACTION: f64 = 1.0 / 10.0;

/// The fraction η of the orbital time √(r³ / G M) at the closest approach that `dt = "auto"`
/// takes under gravity. Velocity Verlet (003 §2.1) turns a circular orbit of angular frequency
/// ω = √(G M / r³) at ω_num = (2/dt) asin(ω dt / 2) ≈ ω (1 + (ω dt)²/24): with ω dt = η the
/// period is off by η²/24 ≈ 1.0e-4 at the closest approach, and by less on wider orbits.
pub const ORBIT_FRACTION: f64 = 0.05;

/// The step `dt = "auto"` takes under the gravity fields: η √(r³ / G M) ([`ORBIT_FRACTION`])
/// at the closest approach the scene allows, +∞ without central body and self-gravity.
/// * Central body of mass M: per grain, the periapsis of its Kepler orbit about the body from
///   its initial position and velocity, r_p = h² / (G M (1 + e)) with h = |d × v| and
///   e = √(1 + 2 ε h² / (G M)²), ε = v²/2 − G M / |d|, never below the grain's radius; with
///   a contact law (`contacts`), never below its initial distance |d|, since walls and other
///   grains then hold it up (a bed on an asteroid is not on an orbit).
/// * Self-gravity: two grains come no closer than touching, r = r_i + r_j, and
///   (r_i + r_j)³ / (m_i + m_j) ≥ 3 / (4π ρ_max) for grains of density ρ ≤ ρ_max: the time
///   √(3 / (4π G ρ_max)) of an orbit skimming the densest grain, which also bounds the
///   free-fall time of any cloud of them (its mean density is lower).
pub fn orbital_step(gravity: &Gravity, p: &Particles, contacts: bool) -> f64 {
    let g = gravity.constant;
    let free = (0..p.len()).filter(|&k| p.inv_mass[k] > 0.0);
    let mut t = f64::INFINITY;
    if let Some(c) = gravity.central {
        let mu = g * c.mass;
        for k in free.clone() {
            let d = p.pos[k] - c.position;
            let v = p.vel[k];
            let h2 = d.cross(v).length_squared();
            let energy = 0.5 * v.length_squared() - mu / d.length();
            let e = (1.0 + 2.0 * energy * h2 / (mu * mu)).max(0.0).sqrt();
            // A grain that meets others or walls is held up by them (a regolith bed on an
            // asteroid), so it comes no closer than where it starts; a free one follows Kepler.
            let floor = if contacts { d.length() } else { p.radius[k] };
            let r = (h2 / (mu * (1.0 + e))).max(floor);
            t = t.min((r.powi(3) / mu).sqrt());
        }
    }
    if gravity.self_gravity.is_some() {
        let volume = |r: f64| 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        let rho = free
            .map(|k| p.mass[k] / volume(p.radius[k]))
            .fold(0.0, f64::max);
        if rho > 0.0 {
            t = t.min((3.0 / (4.0 * std::f64::consts::PI * g * rho)).sqrt());
        }
    }
    ORBIT_FRACTION * t
}

/// How far a given dt may go (`simulation.dt_limit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DtLimit {
    /// dt ≤ t_c/10: the accuracy rule of 002 §5.2.
    #[default]
    Accuracy,
    /// dt ≤ t_c: what PEBBLES decks use (001 §8: alpha = 1e-4 s ≈ t_c/6 with h = 1e6 N/m);
    /// stability is then the integrator's, and a run that diverges stops with a message.
    ContactTime,
}

impl DtLimit {
    /// The largest dt as a fraction of the shortest contact time.
    pub fn fraction(self) -> f64 {
        match self {
            DtLimit::Accuracy => MAX_FRACTION,
            DtLimit::ContactTime => 1.0,
        }
    }

    /// The limit as written in messages.
    pub fn label(self) -> &'static str {
        match self {
            DtLimit::Accuracy => "t_c/10",
            DtLimit::ContactTime => "t_c",
        }
    }

    /// The scene's spelling.
    pub fn name(self) -> &'static str {
        match self {
            DtLimit::Accuracy => "accuracy",
            DtLimit::ContactTime => "contact_time",
        }
    }
}

/// Contact time t_c (s) of a linear spring k_n (N/m) and dashpot g_n (N s/m) on a reduced
/// mass M (kg), 002 eq 27–28. Overdamped contacts (ξ ≥ 1) are given the undamped half period.
pub fn contact_time(m_eff: f64, kn: f64, gn: f64) -> f64 {
    let xi = gn / (4.0 * m_eff * kn).sqrt();
    let xi2 = if xi < 1.0 { xi * xi } else { 0.0 };
    std::f64::consts::PI * (m_eff / (kn * (1.0 - xi2))).sqrt()
}

/// One kind of contact a scene can make: two particle sizes of given materials, or a particle
/// and a wall (`r_j = None`, `m_j = None`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactKind {
    /// Radius of body i (m).
    pub r_i: f64,
    /// Mass of body i (kg).
    pub m_i: f64,
    /// Radius of body j (m), `None` for a wall.
    pub r_j: Option<f64>,
    /// Mass of body j (kg), `None` for a wall.
    pub m_j: Option<f64>,
}

/// The contact time of one kind of contact under `model` with the pair constants `p`; none
/// (+∞) without a contact law.
pub fn contact_time_of(model: &Normal, p: &PairParams, kind: &ContactKind, v_c: f64) -> f64 {
    if *model == Normal::None {
        return f64::INFINITY;
    }
    let r_eff = effective_radius(kind.r_i, kind.r_j);
    let m_eff = effective_mass(1.0 / kind.m_i, kind.m_j.map_or(0.0, |m| 1.0 / m));
    let (kn, gn) = linear_equivalent(
        model,
        p.e_star,
        p.restitution,
        r_eff,
        m_eff,
        v_c,
        kind.r_j.is_none(),
    );
    contact_time(m_eff, kn, gn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn undamped_contact_time_is_half_period() {
        // t_c = π √(M/k): M = 0.5 kg, k = 2 N/m → π/2 s.
        assert!((contact_time(0.5, 2.0, 0.0) - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    }

    #[test]
    fn orbital_step_is_at_the_periapsis_of_a_kepler_orbit() {
        use crate::particles::{Mobility, ParticleSpec};
        // A grain at 2 m from a body with G M = 1, moving at √(G M / r) · √(2 r_p/(r + r_p))
        // sideways: an ellipse with apoapsis 2 m and periapsis 0.5 m.
        let (mu, ra, rp) = (1.0f64, 2.0f64, 0.5f64);
        let v = (mu * 2.0 * rp / (ra * (ra + rp))).sqrt();
        let mut p = Particles::default();
        let spec = ParticleSpec {
            pos: DVec3::new(ra, 0.0, 0.0),
            vel: DVec3::new(0.0, v, 0.0),
            omega: DVec3::ZERO,
            radius: 1e-3,
            material: 0,
            mobility: Mobility::Free,
        };
        p.push(0, &spec, 1.0);
        let gravity = Gravity {
            constant: 1.0,
            central: Some(crate::gravity::CentralBody {
                mass: mu,
                position: DVec3::ZERO,
            }),
            ..Gravity::default()
        };
        let dt = orbital_step(&gravity, &p, false);
        // With contacts, no closer than it starts: 2 m.
        let held = orbital_step(&gravity, &p, true);
        assert!(
            (held - ORBIT_FRACTION * ra.powf(1.5)).abs() < 1e-14,
            "{held}"
        );
        assert!((dt - ORBIT_FRACTION * rp.powf(1.5)).abs() < 1e-14, "{dt}");
    }

    #[test]
    fn damping_lengthens_contact() {
        // ξ = 0.6: t_c = π √(M/k) / 0.8.
        let (m, k) = (0.5_f64, 2.0_f64);
        let gn = 0.6 * (4.0 * m * k).sqrt();
        assert!((contact_time(m, k, gn) - std::f64::consts::FRAC_PI_2 / 0.8).abs() < 1e-14);
    }
}
