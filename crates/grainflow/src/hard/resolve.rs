//! Collision resolution of hard spheres (000 §2.1, Richardson et al. 2009 Appendix B).
//!
//! With n̂ from sphere 1 to sphere 2, s_i = (−1)^{i−1} s_i n̂, contact velocity u = v₂ − v₁ +
//! ω₂ × s₂ − ω₁ × s₁, u_n = (u·n̂)n̂, u_t = u − u_n, reduced mass μ and M = m₁ + m₂:
//! v₁' = v₁ + m₂/M [(1 + ε_n) u_n + 2/7 (1 − ε_t) u_t], v₂' = v₂ − m₁/M [ … ],
//! ω₁' = ω₁ + 2/7 μ (1 − ε_t)/I₁ (s₁ × u), ω₂' = ω₂ − 2/7 μ (1 − ε_t)/I₂ (s₂ × u),
//! so that u' = −ε_n u_n + ε_t u_t (eq 4) for solid spheres.
//! Against a wall (infinite mass), eq 6–8: v' = v − (1 + ε_n) u_n − 2/7 (1 − ε_t) u_t,
//! ω' = ω − 5/7 s⁻² (1 − ε_t) s × u with s = −s n̂ and u = v + ω × s − (wall velocity).

use glam::DVec3;

/// Velocities and spins of one sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// Velocity (m/s).
    pub vel: DVec3,
    /// Angular velocity (rad/s).
    pub omega: DVec3,
}

/// Resolves the collision of spheres 1 and 2 (masses m (kg), radii s (m), n̂ from 1 to 2)
/// with normal and tangential restitution; a mass of ∞ (a grain stuck to a wall) is allowed
/// for one of them. Returns the new motions.
#[allow(clippy::too_many_arguments)]
pub fn resolve_pair(
    n: DVec3,
    a: Motion,
    b: Motion,
    m1: f64,
    m2: f64,
    s1: f64,
    s2: f64,
    eps_n: f64,
    eps_t: f64,
) -> (Motion, Motion) {
    let (sv1, sv2) = (s1 * n, -s2 * n);
    let u = b.vel - a.vel + b.omega.cross(sv2) - a.omega.cross(sv1);
    let u_n = u.dot(n) * n;
    let u_t = u - u_n;
    let (f1, f2, mu) = if m1.is_infinite() {
        (0.0, 1.0, m2)
    } else if m2.is_infinite() {
        (1.0, 0.0, m1)
    } else {
        (m2 / (m1 + m2), m1 / (m1 + m2), m1 * m2 / (m1 + m2))
    };
    let dv = (1.0 + eps_n) * u_n + 2.0 / 7.0 * (1.0 - eps_t) * u_t;
    let k = 2.0 / 7.0 * mu * (1.0 - eps_t);
    let spin = |s: f64, m: f64, sv: DVec3| {
        if m.is_infinite() {
            DVec3::ZERO
        } else {
            k / (0.4 * m * s * s) * sv.cross(u)
        }
    };
    (
        Motion {
            vel: a.vel + f1 * dv,
            omega: a.omega + spin(s1, m1, sv1),
        },
        Motion {
            vel: b.vel - f2 * dv,
            omega: b.omega - spin(s2, m2, sv2),
        },
    )
}

/// Resolves a sphere of radius s (m) hitting a wall whose surface moves at `wall_vel`, with n̂
/// the unit vector from the contact point to the sphere's centre (000 eq 6–8).
pub fn resolve_wall(
    n: DVec3,
    m: Motion,
    s: f64,
    wall_vel: DVec3,
    eps_n: f64,
    eps_t: f64,
) -> Motion {
    let sv = -s * n;
    let u = m.vel + m.omega.cross(sv) - wall_vel;
    let u_n = u.dot(n) * n;
    let u_t = u - u_n;
    Motion {
        vel: m.vel - (1.0 + eps_n) * u_n - 2.0 / 7.0 * (1.0 - eps_t) * u_t,
        omega: m.omega - 5.0 / 7.0 / (s * s) * (1.0 - eps_t) * sv.cross(u),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn motion(vel: DVec3, omega: DVec3) -> Motion {
        Motion { vel, omega }
    }

    #[test]
    fn pair_conserves_momentum_and_obeys_eq_4() {
        let n = DVec3::new(0.6, 0.8, 0.0);
        let (m1, m2, s1, s2, en, et) = (2.0, 3.0, 0.5, 0.7, 0.64, 0.8);
        let a = motion(DVec3::new(1.0, 2.0, -0.5), DVec3::new(0.3, -1.0, 2.0));
        let b = motion(DVec3::new(-0.5, -1.0, 0.2), DVec3::new(-2.0, 0.5, 0.1));
        let (a2, b2) = resolve_pair(n, a, b, m1, m2, s1, s2, en, et);
        let p = m1 * a.vel + m2 * b.vel;
        assert!((m1 * a2.vel + m2 * b2.vel - p).length() < 1e-13);
        // Angular momentum about the contact point c = s1 n̂ (origin at sphere 1's centre).
        let c = s1 * n;
        let x2 = (s1 + s2) * n;
        let l = |a: Motion, b: Motion| {
            0.4 * m1 * s1 * s1 * a.omega
                + (-c).cross(m1 * a.vel)
                + 0.4 * m2 * s2 * s2 * b.omega
                + (x2 - c).cross(m2 * b.vel)
        };
        assert!((l(a2, b2) - l(a, b)).length() < 1e-12);
        // eq 4: u' = −ε_n u_n + ε_t u_t.
        let u =
            |a: Motion, b: Motion| b.vel - a.vel + b.omega.cross(-s2 * n) - a.omega.cross(s1 * n);
        let (u0, u1) = (u(a, b), u(a2, b2));
        let (un, ut) = (u0.dot(n) * n, u0 - u0.dot(n) * n);
        assert!((u1 - (-en * un + et * ut)).length() < 1e-12);
    }

    #[test]
    fn elastic_smooth_pair_conserves_energy_and_wall_reflects() {
        let n = DVec3::X;
        let a = motion(DVec3::new(1.0, 0.3, 0.0), DVec3::Z);
        let b = motion(DVec3::new(-2.0, 0.0, 0.1), DVec3::Y);
        let (a2, b2) = resolve_pair(n, a, b, 1.0, 2.0, 0.5, 0.5, 1.0, 1.0);
        let e = |a: Motion, b: Motion| 0.5 * a.vel.length_squared() + b.vel.length_squared();
        assert!((e(a2, b2) - e(a, b)).abs() < 1e-14);
        // Wall below (n̂ up, from contact to centre): v_n reverses times ε_n, ε_t = 1 keeps v_t.
        let m = resolve_wall(
            DVec3::Z,
            motion(DVec3::new(1.0, 0.0, -2.0), DVec3::ZERO),
            0.5,
            DVec3::ZERO,
            0.5,
            1.0,
        );
        assert!((m.vel - DVec3::new(1.0, 0.0, 1.0)).length() < 1e-15);
        // ε_t = −1 (full reversal of the contact velocity's tangential part) on a spinning sphere.
        let m = resolve_wall(
            DVec3::Z,
            motion(DVec3::new(1.0, 0.0, -1.0), DVec3::ZERO),
            0.5,
            DVec3::ZERO,
            1.0,
            -1.0,
        );
        let u_after = m.vel + m.omega.cross(-0.5 * DVec3::Z);
        assert!((u_after - DVec3::new(-1.0, 0.0, 1.0)).length() < 1e-14);
    }
}
