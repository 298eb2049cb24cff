//! Rolling friction (002 eq 16–18, after Schwartz, Richardson & Michel 2012).
//!
//! The torque on body i is −μ_r r_i |F_n| û, with û the direction of the relative rolling
//! velocity v_rot = r_i(ω_i × n̂) − r_j(ω_j × n̂) turned back into an axis (n̂ × v_rot =
//! r_i ω_i⊥ − r_j ω_j⊥); body j gets +μ_r r_j |F_n| û. The magnitude is constant while the
//! bodies roll. So that a constant torque cannot reverse the rolling within one step (which
//! makes resting grains chatter), it is scaled down to what stops the relative rolling in
//! exactly one step when that is less: an exact stop, not a change of the law while rolling.

use serde::{Deserialize, Serialize};

use super::real::{Real, V3};

/// The rolling slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Rolling {
    /// No rolling resistance.
    None,
    /// Constant torque μ_r r |F_n| opposing relative rolling (002 eq 17).
    #[default]
    Constant,
}

/// Rolling-friction torques (N m) on i and on j: zero where the pair does not roll relative
/// to each other.
///
/// `n` unit normal from i to j; `r_i`, `r_j` the lever arms (m, 0 for a wall);
/// `w_i`, `w_j` angular velocities (rad/s); `ii_i`, `ii_j` inverse inertias (0 = no
/// rotation); `mu_r`; `f_n` normal force magnitude (N); `dt` (s).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn rolling_torque<R: Real>(
    n: V3<R>,
    r_i: R,
    r_j: R,
    w_i: V3<R>,
    w_j: V3<R>,
    ii_i: R,
    ii_j: R,
    mu_r: R,
    f_n: R,
    dt: f64,
) -> (V3<R>, V3<R>) {
    let perp = |w: V3<R>| w - n.scale(w.dot(n));
    // n̂ × v_rot of 002 eq 18: the relative rolling expressed as an axis (m/s).
    let u = perp(w_i).scale(r_i) - perp(w_j).scale(r_j);
    let speed = u.dot(u).sqrt();
    let m = mu_r * f_n.abs();
    let rate = m * (r_i * r_i * ii_i + r_j * r_j * ii_j);
    let zero = R::default();
    let still = speed.equals(zero) | rate.equals(zero);
    let scale = (speed / (rate * R::splat(dt))).min(R::splat(1.0));
    let dir = u / speed;
    let t_i = dir.scale(-scale * m * r_i);
    let t_j = dir.scale(scale * m * r_j);
    (
        V3::select(still, V3::default(), t_i),
        V3::select(still, V3::default(), t_j),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn constant_torque_opposes_rolling() {
        // Sphere r = 0.5 rolling on a wall (j immovable) with ω = −2 ŷ about the contact z-normal:
        // torque magnitude μ_r r F_n = 0.2 · 0.5 · 9.81, direction +ŷ (opposing ω).
        let (ti, tj) = rolling_torque(
            DVec3::NEG_Z.into(),
            0.5,
            0.0,
            (-2.0 * DVec3::Y).into(),
            V3::default(),
            10.0,
            0.0,
            0.2,
            9.81,
            1e-5,
        );
        assert!((DVec3::from(ti) - DVec3::new(0.0, 0.981, 0.0)).length() < 1e-12);
        assert_eq!(tj, V3::default());
    }

    #[test]
    fn torque_stops_rolling_exactly_instead_of_reversing() {
        // ω so small that the full torque would reverse it within dt: the torque brings it to zero.
        let (w, inv_i, dt) = (1e-6 * DVec3::X, 10.0, 1e-5);
        let (ti, _) = rolling_torque(
            DVec3::Z.into(),
            0.5,
            0.0,
            w.into(),
            V3::default(),
            inv_i,
            0.0,
            0.2,
            9.81,
            dt,
        );
        let w_after = w + DVec3::from(ti) * inv_i * dt;
        assert!(w_after.length() < 1e-18);
    }
}
