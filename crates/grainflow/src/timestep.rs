//! Contact time and time step (002 §5.2, eq 27–29).
//!
//! t_c = π √(M / (k_n (1 − ξ²))) with ξ = g_n / √(4 M k_n) and M the reduced mass, for the
//! Hookean contact with simple damping, which 002 §5.2 finds the more conservative estimate
//! for Hertzian contacts too. `dt = "auto"` is t_c/15 for the stiffest, lightest pair; a given
//! dt above t_c/10 is refused.

use crate::contact::normal::linear_equivalent;
use crate::contact::Normal;
use crate::material::{effective_mass, effective_radius, PairParams};

/// The fraction of the contact time `dt = "auto"` takes (002 §5.2).
pub const AUTO_FRACTION: f64 = 1.0 / 15.0;
/// The largest fraction of the contact time a given dt may be.
pub const MAX_FRACTION: f64 = 1.0 / 10.0;

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

/// The contact time of one kind of contact under `model` with the pair constants `p`.
pub fn contact_time_of(model: &Normal, p: &PairParams, kind: &ContactKind, v_c: f64) -> f64 {
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

    #[test]
    fn undamped_contact_time_is_half_period() {
        // t_c = π √(M/k): M = 0.5 kg, k = 2 N/m → π/2 s.
        assert!((contact_time(0.5, 2.0, 0.0) - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    }

    #[test]
    fn damping_lengthens_contact() {
        // ξ = 0.6: t_c = π √(M/k) / 0.8.
        let (m, k) = (0.5_f64, 2.0_f64);
        let gn = 0.6 * (4.0 * m * k).sqrt();
        assert!((contact_time(m, k, gn) - std::f64::consts::FRAC_PI_2 / 0.8).abs() < 1e-14);
    }
}
