//! Tangential force: a spring on the accumulated tangential displacement, with damping,
//! capped by Coulomb's law (002 eq 7–9; 003 eq 19–22).
//!
//! The displacement δ_t lives in the contact history. Each step it is first rotated into the
//! current tangent plane with its length kept (the pair may have turned), then advanced by the
//! relative tangential velocity times dt. When the trial force exceeds μ|F_n + F_c|, the force
//! is set to the Coulomb limit along the trial force and δ_t is rescaled along itself so that
//! k_t |δ_t| equals the limit (003 eq 22).

use glam::DVec3;
use serde::{Deserialize, Serialize};

/// The tangential slot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Tangential {
    /// Frictionless contacts.
    None,
    /// Spring with history and damping, Coulomb-capped (002 eq 7–9).
    #[default]
    Spring,
    /// PEBBLES kinetic and static friction with a slip vector (001 eq 3.8, 3.40–3.52).
    Pebbles(super::pebbles::PebblesFriction),
}

/// Rotates `slip` into the plane normal to `n`, keeping its length.
#[inline]
pub fn rotate_into_tangent_plane(slip: DVec3, n: DVec3) -> DVec3 {
    let len2 = slip.length_squared();
    if len2 == 0.0 {
        return slip;
    }
    let projected = slip - slip.dot(n) * n;
    let p2 = projected.length_squared();
    if p2 == 0.0 {
        DVec3::ZERO
    } else {
        projected * (len2 / p2).sqrt()
    }
}

/// Tangential force on body i (N) from the spring–dashpot of 002 eq 8 capped by eq 7 and 9.
///
/// `slip` is δ_t (m), updated in place; `n` the unit normal; `v_t` the tangential velocity of
/// i relative to j at the contact (m/s); `kt`, `gt` the stiffness k_t δ^s (N/m) and damping
/// g_t δ^q (N s/m) at this overlap; `f_max` = μ_s |F_n + F_c| (N); `dt` the step (s).
#[inline(always)]
pub fn tangential_spring(
    slip: &mut DVec3,
    n: DVec3,
    v_t: DVec3,
    kt: f64,
    gt: f64,
    f_max: f64,
    dt: f64,
) -> DVec3 {
    *slip = rotate_into_tangent_plane(*slip, n) + v_t * dt;
    let trial = -kt * *slip - gt * v_t;
    let t2 = trial.length_squared();
    if t2 <= f_max * f_max {
        return trial;
    }
    // Sliding: |F_t| = μ|F_n + F_c| along the trial force; δ_t rescaled to the limit.
    let s = slip.length();
    if kt > 0.0 && s > 0.0 {
        *slip *= (f_max / (kt * s)).min(1.0);
    }
    trial * (f_max / t2.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_keeps_length_and_removes_normal_part() {
        let n = DVec3::new(0.0, 0.6, 0.8);
        let s = rotate_into_tangent_plane(DVec3::new(3.0, 4.0, 0.0), n);
        assert!(s.dot(n).abs() < 1e-15);
        assert!((s.length() - 5.0).abs() < 1e-14);
    }

    #[test]
    fn sticking_is_a_spring_sliding_is_coulomb() {
        let n = DVec3::Z;
        // Sticking: after one step δ_t = v dt, F = −k δ_t − g v.
        let mut slip = DVec3::ZERO;
        let f = tangential_spring(&mut slip, n, DVec3::X, 100.0, 1.0, 1e3, 1e-3);
        assert!((f.x - (-100.0 * 1e-3 - 1.0)).abs() < 1e-15);
        // Sliding: force capped at f_max, and k |δ_t| = f_max afterwards.
        let mut slip = DVec3::new(1.0, 0.0, 0.0);
        let f = tangential_spring(&mut slip, n, DVec3::X, 100.0, 0.0, 5.0, 1e-3);
        assert!((f.length() - 5.0).abs() < 1e-12);
        assert!(f.x < 0.0);
        assert!((100.0 * slip.length() - 5.0).abs() < 1e-12);
    }
}
