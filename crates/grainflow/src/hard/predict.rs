//! Collision prediction for hard spheres moving in straight lines (000 §2.1–2.3).
//!
//! Times are measured from the positions given; a negative or zero time means the bodies
//! already touch or overlap and approach (000 §2.3: t ≤ 0 repairs round-off overlaps).

use glam::DVec3;

/// Time at which two spheres at relative position ρ = r₂ − r₁ (m) with relative velocity
/// v = v₂ − v₁ (m/s) reach |ρ + v t| = s₁ + s₂ (000 eq 1–3), if they approach (ρ·v < 0).
///
/// The smaller root of v² t² + 2 (ρ·v) t + ρ² − s² = 0 is taken in the round-off-safe form
/// t = (ρ² − s²) / (−ρ·v + √((ρ·v)² − (ρ² − s²) v²)) (000 footnote 1, Press et al. 2007),
/// which stays accurate when the spheres nearly touch and is ≤ 0 when they overlap.
pub fn pair_collision_time(rho: DVec3, v: DVec3, s: f64) -> Option<f64> {
    let b = rho.dot(v);
    if b >= 0.0 {
        return None;
    }
    let v2 = v.length_squared();
    let c = rho.length_squared() - s * s;
    let disc = b * b - c * v2;
    if disc < 0.0 {
        return None;
    }
    Some(c / (-b + disc.sqrt()))
}

/// Time at which a sphere of radius s at signed height ρ_N above a plane (m), moving at v_N
/// along the plane's normal (m/s), touches it (000 eq 9, the face its centre is on).
/// A sphere already touching or overlapping and still approaching gets t ≤ 0 (000 §2.3).
pub fn plane_collision_time(rho_n: f64, v_n: f64, s: f64) -> Option<f64> {
    if v_n == 0.0 || rho_n * v_n >= 0.0 {
        return None;
    }
    Some(if rho_n > 0.0 {
        (s - rho_n) / v_n
    } else {
        -(s + rho_n) / v_n
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_time_puts_surfaces_in_touch() {
        // Head-on: gap 1 at closing speed 2 → t = 0.5.
        let t = pair_collision_time(DVec3::new(3.0, 0.0, 0.0), DVec3::new(-2.0, 0.0, 0.0), 2.0)
            .expect("hits");
        assert!((t - 0.5).abs() < 1e-15);
        // Oblique: at the predicted time the distance equals s to 1e-12 relative.
        let (rho, v, s) = (DVec3::new(5.0, 1.3, -0.4), DVec3::new(-3.0, -0.2, 0.5), 1.7);
        let t = pair_collision_time(rho, v, s).expect("hits");
        assert!(((rho + v * t).length() - s).abs() < 1e-12 * s);
        // Receding or missing: none.
        assert!(pair_collision_time(rho, -v, s).is_none());
        assert!(
            pair_collision_time(DVec3::new(5.0, 3.0, 0.0), DVec3::new(-1.0, 0.0, 0.0), 1.0)
                .is_none()
        );
        // Overlapping and approaching: t ≤ 0.
        assert!(
            pair_collision_time(DVec3::new(1.9, 0.0, 0.0), DVec3::new(-1.0, 0.0, 0.0), 2.0)
                .expect("hits")
                <= 0.0
        );
    }

    #[test]
    fn plane_time_for_both_faces() {
        assert_eq!(plane_collision_time(3.0, -2.0, 1.0), Some(1.0));
        assert_eq!(plane_collision_time(-3.0, 2.0, 1.0), Some(1.0));
        assert_eq!(plane_collision_time(3.0, 2.0, 1.0), None);
        assert!(plane_collision_time(0.9, -1.0, 1.0).expect("touching") <= 0.0);
    }
}
