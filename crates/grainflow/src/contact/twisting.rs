//! Spinning (twisting) friction (002 eq 19–20, after Schwartz et al. 2012).
//!
//! Torque on i: μ_t r_c F_n [(ω_j − ω_i)·n̂ / |ω_j − ω_i|] n̂, on j the opposite, with r_c the
//! radius of the contact area (eq 20). The sign is the one that opposes the relative spin (eq 16
//! subtracts M_t, and read literally with eq 19 it would speed the spin up). For pure spin about
//! the normal the magnitude is the constant μ_t r_c F_n; with rolling mixed in it scales with
//! the share (Δω·n̂)/|Δω|. As for rolling, it is scaled down to what stops the relative spin in
//! one step when that is less, so it never reverses the spin.

use serde::{Deserialize, Serialize};

use super::real::{Real, V3};

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
/// (r_j = ∞, `None`) the limit is x_c = r_i − δ.
#[inline(always)]
pub fn contact_radius<R: Real>(r_i: R, r_j: Option<R>, overlap: R) -> R {
    let x_c = match r_j {
        Some(r_j) => {
            let half = R::splat(0.5);
            let d = (r_i + r_j) - overlap;
            half * (r_i * r_i - r_j * r_j) / d + half * d
        }
        None => r_i - overlap,
    };
    (r_i * r_i - x_c * x_c).max(R::default()).sqrt()
}

/// Twisting torques (N m) on i and on j, zero where the pair does not spin relative to each
/// other; arguments as in [`super::rolling::rolling_torque`], with `r_c` from
/// [`contact_radius`] and `mu_t` the spinning friction coefficient.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn twisting_torque<R: Real>(
    n: V3<R>,
    w_i: V3<R>,
    w_j: V3<R>,
    ii_i: R,
    ii_j: R,
    mu_t: R,
    r_c: R,
    f_n: R,
    dt: f64,
) -> (V3<R>, V3<R>) {
    let rel = w_j - w_i;
    let norm = rel.dot(rel).sqrt();
    let m = mu_t * r_c * f_n.abs();
    let rate = m * (ii_i + ii_j);
    let zero = R::default();
    let still = norm.equals(zero) | rate.equals(zero);
    let spin = rel.dot(n);
    // 002 eq 19: the torque along n̂ scales with the share of the relative rotation about n̂.
    let full = m * spin / norm;
    let scale = (spin.abs() / (rate * R::splat(dt))).min(R::splat(1.0));
    let t = n.scale(scale * full);
    (
        V3::select(still, V3::default(), t),
        V3::select(still, V3::default(), -t),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

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
            n.into(),
            (-DVec3::Z * -1.0).into(),
            V3::default(),
            10.0,
            0.0,
            0.2,
            0.03,
            9.81,
            1e-5,
        );
        // ω_i = +ẑ; rel = −ẑ; spin = rel·n = 1; torque on i = m·n = −0.05886 ẑ.
        assert!((DVec3::from(ti) - DVec3::new(0.0, 0.0, -0.2 * 0.03 * 9.81)).length() < 1e-15);
    }
}
