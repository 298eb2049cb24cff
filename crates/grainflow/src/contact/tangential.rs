//! Tangential force: a spring on the accumulated tangential displacement, with damping,
//! capped by Coulomb's law (002 eq 7–9; 003 eq 19–22).
//!
//! The displacement δ_t lives in the contact history. Each step it is first rotated into the
//! current tangent plane with its length kept (the pair may have turned), then advanced by the
//! relative tangential velocity times dt. When the trial force exceeds μ|F_n + F_c|, the force
//! is set to the Coulomb limit along the trial force and δ_t is rescaled along itself so that
//! k_t |δ_t| equals the limit (003 eq 22).

use serde::{Deserialize, Serialize};

use super::real::{Flags, Real, V3};

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
#[inline(always)]
pub fn rotate_into_tangent_plane<R: Real>(slip: V3<R>, n: V3<R>) -> V3<R> {
    let zero = R::default();
    let len2 = slip.dot(slip);
    let projected = slip - n.scale(slip.dot(n));
    let p2 = projected.dot(projected);
    V3::select(
        len2.equals(zero),
        slip,
        V3::select(
            p2.equals(zero),
            V3::default(),
            projected.scale((len2 / p2).sqrt()),
        ),
    )
}

/// Tangential force on body i (N) from the spring–dashpot of 002 eq 8 capped by eq 7 and 9,
/// and the new slip.
///
/// `slip` is δ_t (m); `n` the unit normal; `v_t` the tangential velocity of i relative to j
/// at the contact (m/s); `f_max` = μ_s |F_n + F_c| (N); `kt`, `gt` the stiffness k_t δ^s
/// (N/m) and damping g_t δ^q (N s/m) at this overlap; `dt` the step (s).
#[inline(always)]
pub fn spring<R: Real>(
    slip: V3<R>,
    n: V3<R>,
    v_t: V3<R>,
    f_max: R,
    kt: R,
    gt: R,
    dt: f64,
) -> (V3<R>, V3<R>) {
    let zero = R::default();
    let slip = rotate_into_tangent_plane(slip, n) + v_t.scale(R::splat(dt));
    let trial = slip.scale(-kt) - v_t.scale(gt);
    let t2 = trial.dot(trial);
    let sticks = t2.le(f_max * f_max);
    if sticks.all() {
        return (trial, slip);
    }
    // Sliding: |F_t| = μ|F_n + F_c| along the trial force; δ_t rescaled to the limit
    // (003 eq 22).
    let s = slip.dot(slip).sqrt();
    let rescale = !sticks & kt.gt(zero) & s.gt(zero);
    let factor = (f_max / (kt * s)).min(R::splat(1.0));
    let slid = V3::select(rescale, slip.scale(factor), slip);
    let capped = trial.scale(f_max / t2.sqrt());
    (V3::select(sticks, trial, capped), slid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn v(x: f64, y: f64, z: f64) -> V3<f64> {
        DVec3::new(x, y, z).into()
    }

    #[test]
    fn rotation_keeps_length_and_removes_normal_part() {
        let n = v(0.0, 0.6, 0.8);
        let s = rotate_into_tangent_plane(v(3.0, 4.0, 0.0), n);
        assert!(s.dot(n).abs() < 1e-15);
        assert!((s.dot(s).sqrt() - 5.0).abs() < 1e-14);
    }

    #[test]
    fn sticking_is_a_spring_sliding_is_coulomb() {
        let n = v(0.0, 0.0, 1.0);
        let x = v(1.0, 0.0, 0.0);
        // Sticking: after one step δ_t = v dt, F = −k δ_t − g v.
        let (f, _) = spring(V3::default(), n, x, 1e3, 100.0, 1.0, 1e-3);
        assert!((f.x - (-100.0 * 1e-3 - 1.0)).abs() < 1e-15);
        // Sliding: force capped at f_max, and k |δ_t| = f_max afterwards.
        let (f, slip) = spring(x, n, x, 5.0, 100.0, 0.0, 1e-3);
        assert!((f.dot(f).sqrt() - 5.0).abs() < 1e-12);
        assert!(f.x < 0.0);
        assert!((100.0 * slip.dot(slip).sqrt() - 5.0).abs() < 1e-12);
    }
}
