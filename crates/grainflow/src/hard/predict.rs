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

/// Time at which a point at ρ (m), moving at v (m/s), reaches |ρ + v t| = d from inside,
/// i.e. the larger root of the same quadratic: the inner face of a cylinder (000 eq 10–12 with
/// R − s) in the plane across its axis.
///
/// Round-off-safe as [`pair_collision_time`]: with b = ρ·v, c = ρ² − d² and D = b² − c v², the
/// root is (−b + √D)/v² when b ≤ 0 and c/(−b − √D) when b > 0. A point already beyond d and
/// still moving out gets t ≤ 0 (000 §2.3); one beyond d moving in gets the far exit.
pub fn exit_time(rho: DVec3, v: DVec3, d: f64) -> Option<f64> {
    let v2 = v.length_squared();
    if v2 == 0.0 {
        return None;
    }
    let b = rho.dot(v);
    let c = rho.length_squared() - d * d;
    let disc = b * b - c * v2;
    if disc < 0.0 {
        return None;
    }
    Some(if b <= 0.0 {
        (-b + disc.sqrt()) / v2
    } else {
        c / (-b - disc.sqrt())
    })
}

/// The earlier of two optional times.
pub fn earliest(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Time at which a sphere of radius s at ρ (m) from the centre of a ring of radius R with
/// unit normal N̂, moving at v (m/s), touches the ring: the first entry of the ray ρ + v t
/// into the torus of tube radius s (000 §2.2.5, eq 13–24; Wagner 2004).
///
/// The quartic a₄t⁴ + a₃t³ + a₂t² + a₁t + a₀ (eq 13–21) needs only ρ·ρ, ρ·v, v·v and the
/// components ρ_N = ρ·N̂, v_N = v·N̂, which are what the rotation M of eq 22–24 brings to the
/// z axis; so no rotation is formed. Before solving, the ray is advanced to the sphere of
/// radius R + s that bounds the torus (no entry: no collision) and lengths and times are
/// scaled to R + s and (R + s)/|v|, so the coefficients are of order one. The real roots of
/// Laguerre's method (eq 13) are polished by Newton's method on the distance to the circle,
/// g = (ρ_T − R)² + ρ_N² − s², and a root counts when the sphere enters there (g' < 0) and the
/// distance is s: squaring also admits points at distance s from the far side of the circle,
/// which exist when s ≥ R. R = 0 is a point (eq 3 with s₁ = 0); a path along the axis meets
/// every point of the circle at once (eq 3 with any one of them). A sphere already overlapping
/// the ring and approaching gets t = 0 (000 §2.3).
pub fn ring_collision_time(rho: DVec3, v: DVec3, normal: DVec3, r: f64, s: f64) -> Option<f64> {
    if r == 0.0 {
        return pair_collision_time(rho, v, s);
    }
    let speed = v.length();
    if speed == 0.0 {
        return None;
    }
    let axial = |x: DVec3| x - x.dot(normal) * normal;
    if axial(rho).length_squared() == 0.0 && axial(v).length_squared() == 0.0 {
        // On the axis, moving along it: every point of the circle is as near.
        let any = crate::walls::plate::any_perpendicular(normal) * r;
        return pair_collision_time(rho - any, v, s);
    }
    let big = r + s;
    let t0 = if rho.length_squared() > big * big {
        pair_collision_time(rho, v, big)?
    } else {
        0.0
    };
    // Scaled: lengths in R + s, time in (R + s)/|v|.
    let p = (rho + v * t0) / big;
    let u = v / speed;
    let (rr, ss) = (r / big, s / big);
    let (p_n, u_n) = (p.dot(normal), u.dot(normal));
    // g(τ) and g'(τ) with the true distance to the circle.
    let g = |tau: f64| {
        let x = p + u * tau;
        let z = x.dot(normal);
        let q = x - z * normal;
        let rho_t = q.length();
        let val = (rho_t - rr) * (rho_t - rr) + z * z - ss * ss;
        let slope = if rho_t > 0.0 {
            2.0 * (rho_t - rr) * q.dot(u) / rho_t + 2.0 * z * u_n
        } else {
            2.0 * z * u_n
        };
        (val, slope)
    };
    let (g0, slope0) = g(0.0);
    if t0 == 0.0 && g0 < 0.0 && slope0 < 0.0 {
        return Some(0.0);
    }
    let beta = 2.0 * p.dot(u);
    let gamma = p.length_squared() - ss * ss - rr * rr;
    let four_r2 = 4.0 * rr * rr;
    let a = [
        gamma * gamma + four_r2 * (p_n * p_n - ss * ss),
        2.0 * beta * gamma + 2.0 * four_r2 * p_n * u_n,
        beta * beta + 2.0 * gamma + four_r2 * u_n * u_n,
        2.0 * beta,
        1.0,
    ];
    let mut best: Option<f64> = None;
    for z in super::quartic::quartic_roots(&a) {
        if z.im.abs() > 1e-6 * (1.0 + z.re.abs()) {
            continue;
        }
        let mut tau = z.re;
        for _ in 0..8 {
            let (val, slope) = g(tau);
            if slope == 0.0 {
                break;
            }
            let step = val / slope;
            tau -= step;
            if step.abs() <= 1e-15 * (1.0 + tau.abs()) {
                break;
            }
        }
        let (val, slope) = g(tau);
        // A root a hair before now is a sphere touching now (round-off of the polish); a
        // graze that Newton's method cannot bring to the surface is a miss.
        if val.abs() > 1e-13 || slope >= 0.0 || tau < -1e-12 {
            continue;
        }
        let tau = tau.max(0.0);
        if best.is_none_or(|b| tau < b) {
            best = Some(tau);
        }
    }
    best.map(|tau| t0 + tau * big / speed)
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

    /// Random rays against a tilted ring: the predicted time is the first time the distance to
    /// the circle falls to s, found independently by sampling and bisection (1e-9 of the span).
    #[test]
    fn ring_time_is_the_first_touch_for_random_rays() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let normal = DVec3::new(0.2, -0.5, 1.0).normalize();
        let mut u = || 2.0 * rng.random::<f64>() - 1.0;
        let (mut hits, mut checked) = (0, 0);
        for k in 0..3000 {
            let (r, s) = if k % 3 == 0 { (0.3, 0.5) } else { (1.0, 0.25) };
            let rho = DVec3::new(u(), u(), u()) * 2.5;
            // Aimed roughly at the ring's centre, so that most rays come near it.
            let v = -0.4 * rho + DVec3::new(u(), u(), u());
            let dist = |t: f64| {
                let x = rho + v * t;
                let z = x.dot(normal);
                let q = x - z * normal;
                (q.length() - r).hypot(z) - s
            };
            if dist(0.0) <= 0.0 {
                continue;
            }
            let span = 10.0;
            let n = 4000;
            let mut first = None;
            for i in 0..n {
                let (a, b) = (span * i as f64 / n as f64, span * (i + 1) as f64 / n as f64);
                if dist(b) <= 0.0 {
                    let (mut lo, mut hi) = (a, b);
                    for _ in 0..100 {
                        let m = 0.5 * (lo + hi);
                        if dist(m) > 0.0 {
                            lo = m;
                        } else {
                            hi = m;
                        }
                    }
                    first = Some(hi);
                    break;
                }
            }
            let got = ring_collision_time(rho, v, normal, r, s).filter(|&t| t <= span);
            checked += 1;
            match (got, first) {
                (Some(t), Some(f)) => {
                    hits += 1;
                    assert!((t - f).abs() < 1e-9 * span, "ray {k}: {t} vs {f}");
                    assert!(dist(t).abs() < 1e-12, "ray {k}: gap {}", dist(t));
                }
                (None, None) => {}
                // A graze shallower than the sampling may be seen by one side only.
                (Some(t), None) => assert!(dist(t).abs() < 1e-12, "ray {k}"),
                (None, Some(f)) => panic!("ray {k}: missed the touch at {f}"),
            }
        }
        assert!(hits > 300 && checked > 2000, "{hits} hits of {checked}");
    }

    #[test]
    fn ring_on_its_axis_is_met_everywhere_at_once() {
        // s > R, moving along the axis: R² + z² = s² at z = 0.6 for R = 0.8, s = 1.
        let t = ring_collision_time(DVec3::new(0.0, 0.0, 2.6), DVec3::NEG_Z, DVec3::Z, 0.8, 1.0)
            .expect("hits");
        assert!((t - 2.0).abs() < 1e-14);
        // A point (R = 0) is eq 3 with s₁ = 0.
        let t = ring_collision_time(DVec3::new(3.0, 0.0, 0.0), DVec3::NEG_X, DVec3::Z, 0.0, 1.0)
            .expect("hits");
        assert!((t - 2.0).abs() < 1e-15);
    }

    #[test]
    fn exit_time_is_the_far_root() {
        // Inside a circle of radius 2 at x = 1 moving out along +x: reaches 2 at t = 1; moving
        // in along −x: crosses the axis and reaches −2 at t = 3.
        let rho = DVec3::new(1.0, 0.0, 0.0);
        assert!((exit_time(rho, DVec3::X, 2.0).expect("out") - 1.0).abs() < 1e-15);
        assert!((exit_time(rho, DVec3::NEG_X, 2.0).expect("out") - 3.0).abs() < 1e-15);
        // Beyond the circle and still moving out: t ≤ 0 (an overlap to repair, 000 §2.3).
        assert!(exit_time(DVec3::new(2.1, 0.0, 0.0), DVec3::X, 2.0).expect("now") <= 0.0);
        assert!(exit_time(rho, DVec3::ZERO, 2.0).is_none());
    }

    #[test]
    fn plane_time_for_both_faces() {
        assert_eq!(plane_collision_time(3.0, -2.0, 1.0), Some(1.0));
        assert_eq!(plane_collision_time(-3.0, 2.0, 1.0), Some(1.0));
        assert_eq!(plane_collision_time(3.0, 2.0, 1.0), None);
        assert!(plane_collision_time(0.9, -1.0, 1.0).expect("touching") <= 0.0);
    }
}
