//! Spinning (twisting) friction (002 eq 19–20, after Schwartz et al. 2012).
//!
//! Torque on i: μ_t r_c F_n [(ω_j − ω_i)·n̂ / |ω_j − ω_i|] n̂, on j the opposite, with r_c the
//! radius of the contact area (eq 20). The sign is the one that opposes the relative spin (eq 16
//! subtracts M_t, and read literally with eq 19 it would speed the spin up). For pure spin about
//! the normal the magnitude is the constant μ_t r_c F_n; with rolling mixed in it scales with
//! the share (Δω·n̂)/|Δω|. As for rolling, it is scaled down to what stops the relative spin in
//! one step when that is less, so it never reverses the spin.

use glam::DVec3;
use serde::{Deserialize, Serialize};

/// The twisting slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Twisting {
    /// No spinning resistance.
    None,
    /// Constant torque μ_t r_c F_n opposing relative spin (002 eq 19).
    #[default]
    Constant,
}

/// Radius of the contact area r_c = √(r_i² − x_c²) (002 eq 20), m.
///
/// x_c = ½ (r_i² − r_j²)/d + ½ d with d = r_i + r_j − δ the centre distance; for a wall
/// (r_j = ∞) the limit is x_c = r_i − δ.
pub fn contact_radius(r_i: f64, r_j: Option<f64>, overlap: f64) -> f64 {
    let x_c = match r_j {
        Some(r_j) => {
            let d = r_i + r_j - overlap;
            0.5 * (r_i * r_i - r_j * r_j) / d + 0.5 * d
        }
        None => r_i - overlap,
    };
    (r_i * r_i - x_c * x_c).max(0.0).sqrt()
}

/// Twisting torques (N m) on i and on j; arguments as in [`super::rolling::rolling_torque`],
/// with `r_c` from [`contact_radius`] and `mu_t` the spinning friction coefficient.
#[allow(clippy::too_many_arguments)]
pub fn twisting_torque(
    n: DVec3,
    w_i: DVec3,
    w_j: DVec3,
    inv_i_i: f64,
    inv_i_j: f64,
    mu_t: f64,
    r_c: f64,
    f_n: f64,
    dt: f64,
) -> (DVec3, DVec3) {
    let rel = w_j - w_i;
    let norm = rel.length();
    let m = mu_t * r_c * f_n.abs();
    let rate = m * (inv_i_i + inv_i_j);
    if norm == 0.0 || rate == 0.0 {
        return (DVec3::ZERO, DVec3::ZERO);
    }
    let spin = rel.dot(n);
    // 002 eq 19: the torque along n̂ scales with the share of the relative rotation about n̂.
    let full = m * spin / norm;
    let scale = (spin.abs() / (rate * dt)).min(1.0);
    let t = scale * full * n;
    (t, -t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contact_radius_of_equal_spheres_and_wall() {
        // Equal spheres r = 1, δ = 0.02: x_c = d/2 = 0.99, r_c = √(1 − 0.99²).
        assert!(
            (contact_radius(1.0, Some(1.0), 0.02) - (1.0f64 - 0.99 * 0.99).sqrt()).abs() < 1e-14
        );
        // Wall: r_c = √(2 r δ − δ²).
        assert!((contact_radius(0.5, None, 1e-3) - (1e-3f64 - 1e-6).sqrt()).abs() < 1e-14);
        // The wall is the limit of a very large sphere.
        assert!(
            (contact_radius(0.5, Some(1e7), 1e-3) - contact_radius(0.5, None, 1e-3)).abs() < 1e-7
        );
    }

    #[test]
    fn pure_spin_gets_full_constant_torque() {
        // Sphere spinning at +1 rad/s about the normal on a wall: torque −μ_t r_c F_n n̂.
        let n = DVec3::NEG_Z;
        let (ti, _) = twisting_torque(
            n,
            -DVec3::Z * -1.0,
            DVec3::ZERO,
            10.0,
            0.0,
            0.2,
            0.03,
            9.81,
            1e-5,
        );
        // ω_i = +ẑ; rel = −ẑ; spin = rel·n = 1; torque on i = m·n = −0.05886 ẑ.
        assert!((ti - DVec3::new(0.0, 0.0, -0.2 * 0.03 * 9.81)).length() < 1e-15);
    }
}
