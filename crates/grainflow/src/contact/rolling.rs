//! Rolling friction (002 eq 16–18, after Schwartz, Richardson & Michel 2012).
//!
//! The torque on body i is −μ_r r_i |F_n| û, with û the direction of the relative rolling
//! velocity v_rot = r_i(ω_i × n̂) − r_j(ω_j × n̂) turned back into an axis (n̂ × v_rot =
//! r_i ω_i⊥ − r_j ω_j⊥); body j gets +μ_r r_j |F_n| û. The magnitude is constant while the
//! bodies roll. So that a constant torque cannot reverse the rolling within one step (which
//! makes resting grains chatter), it is scaled down to what stops the relative rolling in
//! exactly one step when that is less: an exact stop, not a change of the law while rolling.

use glam::DVec3;
use serde::{Deserialize, Serialize};

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

/// Rolling-friction torques (N m) on i and on j.
///
/// `n` unit normal from i to j; `r_i`, `r_j` the lever arms (m, 0 for a wall);
/// `w_i`, `w_j` angular velocities (rad/s); `inv_i_i`, `inv_i_j` inverse inertias (0 = no
/// rotation); `mu_r`; `f_n` normal force magnitude (N); `dt` (s).
#[allow(clippy::too_many_arguments)]
pub fn rolling_torque(
    n: DVec3,
    r_i: f64,
    r_j: f64,
    w_i: DVec3,
    w_j: DVec3,
    inv_i_i: f64,
    inv_i_j: f64,
    mu_r: f64,
    f_n: f64,
    dt: f64,
) -> (DVec3, DVec3) {
    let perp = |w: DVec3| w - w.dot(n) * n;
    // n̂ × v_rot of 002 eq 18: the relative rolling expressed as an axis (m/s).
    let u = r_i * perp(w_i) - r_j * perp(w_j);
    let speed = u.length();
    let m = mu_r * f_n.abs();
    let rate = m * (r_i * r_i * inv_i_i + r_j * r_j * inv_i_j);
    if speed == 0.0 || rate == 0.0 {
        return (DVec3::ZERO, DVec3::ZERO);
    }
    let scale = (speed / (rate * dt)).min(1.0);
    let dir = u / speed;
    (-scale * m * r_i * dir, scale * m * r_j * dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_torque_opposes_rolling() {
        // Sphere r = 0.5 rolling on a wall (j immovable) with ω = −2 ŷ about the contact z-normal:
        // torque magnitude μ_r r F_n = 0.2 · 0.5 · 9.81, direction +ŷ (opposing ω).
        let (ti, tj) = rolling_torque(
            DVec3::NEG_Z,
            0.5,
            0.0,
            -2.0 * DVec3::Y,
            DVec3::ZERO,
            10.0,
            0.0,
            0.2,
            9.81,
            1e-5,
        );
        assert!((ti - DVec3::new(0.0, 0.981, 0.0)).length() < 1e-12);
        assert_eq!(tj, DVec3::ZERO);
    }

    #[test]
    fn torque_stops_rolling_exactly_instead_of_reversing() {
        // ω so small that the full torque would reverse it within dt: the torque brings it to zero.
        let (w, inv_i, dt) = (1e-6 * DVec3::X, 10.0, 1e-5);
        let (ti, _) = rolling_torque(
            DVec3::Z,
            0.5,
            0.0,
            w,
            DVec3::ZERO,
            inv_i,
            0.0,
            0.2,
            9.81,
            dt,
        );
        let w_after = w + ti * inv_i * dt;
        assert!(w_after.length() < 1e-18);
    }
}
