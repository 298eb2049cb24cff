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

/// A body in an impulse collision: its motion, inverse mass (1/kg) and inverse moment of
/// inertia (1/(kg m²)), zero for a fixed body or locked rotation, and radius (m). Spheres
/// (I = 2/5 m r²) and 2-D discs (I = 1/2 m r²) differ only in `inv_inertia`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grain {
    /// Velocity and spin.
    pub motion: Motion,
    /// 1/m (1/kg).
    pub inv_mass: f64,
    /// 1/I (1/(kg m²)).
    pub inv_inertia: f64,
    /// Radius (m).
    pub radius: f64,
}

/// Surface coupling of an impulse collision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coupling {
    /// Normal restitution ε_n ∈ [0, 1].
    pub eps_n: f64,
    /// Tangential restitution ε_t ∈ [−1, 1] of the contact velocity when the grains stick.
    pub eps_t: f64,
    /// Coulomb limit μ: the tangential impulse is at most μ times the normal one
    /// (`f64::INFINITY`: no limit, pure tangential restitution).
    pub mu: f64,
}

/// The impulse J (N s) that body 2 receives from body 1 when they collide at a contact with
/// unit normal n̂ (from 1 to 2), body 1's contact point at s₁ = r₁ n̂ and body 2's at
/// s₂ = −r₂ n̂ from their centres; both carry `inv_mass`/`inv_inertia`, so any inertia
/// (sphere, disc, infinite) is handled.
///
/// The contact velocity u = v₂ + ω₂ × s₂ − v₁ − ω₁ × s₁ splits into u_n and u_t (000 eq 4).
/// The normal impulse is J_n = −(1 + ε_n) m_n u_n with 1/m_n = 1/m₁ + 1/m₂. The sticking
/// tangential impulse J_t = −(1 − ε_t) m_t u_t with 1/m_t = 1/m₁ + 1/m₂ + r₁²/I₁ + r₂²/I₂
/// makes u_t′ = ε_t u_t (for equal solid spheres m_t = 2/7 m_n, the 2/7 of 000 eq 4); when it
/// exceeds μ |J_n| it is cut to μ |J_n| along −û_t: sliding under Coulomb friction (Walton
/// 1993; the rule of the grains of 004 §II, μ and ε_n). Zero when the bodies do not approach.
pub fn collision_impulse(n: DVec3, a: &Grain, b: &Grain, c: &Coupling) -> DVec3 {
    let u = b.motion.vel - a.motion.vel + b.motion.omega.cross(-b.radius * n)
        - a.motion.omega.cross(a.radius * n);
    let un = u.dot(n);
    let inv_m = a.inv_mass + b.inv_mass;
    if un >= 0.0 || inv_m == 0.0 {
        return DVec3::ZERO;
    }
    let j_n = -(1.0 + c.eps_n) * un / inv_m;
    let u_t = u - un * n;
    let inv_mt = inv_m + a.radius * a.radius * a.inv_inertia + b.radius * b.radius * b.inv_inertia;
    let mut j_t = -(1.0 - c.eps_t) / inv_mt * u_t;
    let limit = c.mu * j_n;
    let jt2 = j_t.length_squared();
    if jt2 > limit * limit {
        j_t *= limit / jt2.sqrt();
    }
    j_n * n + j_t
}

/// Applies impulse J (received by body 2, −J by body 1, contact normal n̂ from 1 to 2) to both:
/// v₁ −= J/m₁, v₂ += J/m₂, ω₁ −= r₁ (n̂ × J)/I₁, ω₂ −= r₂ (n̂ × J)/I₂. Returns the new motions.
pub fn apply_impulse(n: DVec3, a: &Grain, b: &Grain, j: DVec3) -> (Motion, Motion) {
    let nj = n.cross(j);
    (
        Motion {
            vel: a.motion.vel - a.inv_mass * j,
            omega: a.motion.omega - (a.radius * a.inv_inertia) * nj,
        },
        Motion {
            vel: b.motion.vel + b.inv_mass * j,
            omega: b.motion.omega - (b.radius * b.inv_inertia) * nj,
        },
    )
}

/// A fixed, infinitely heavy body: the wall side of a grain–wall collision, whose surface moves
/// at `vel` (m/s) at the contact point.
pub fn wall_grain(vel: DVec3) -> Grain {
    Grain {
        motion: Motion {
            vel,
            omega: DVec3::ZERO,
        },
        inv_mass: 0.0,
        inv_inertia: 0.0,
        radius: 0.0,
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

    #[test]
    fn impulse_rule_matches_eq_4_for_spheres_and_holds_coulomb_limit() {
        let n = DVec3::new(0.6, 0.8, 0.0);
        let (m1, m2, s1, s2, en, et) = (2.0, 3.0, 0.5, 0.7, 0.64, 0.8);
        let a = motion(DVec3::new(1.0, 2.0, -0.5), DVec3::new(0.3, -1.0, 2.0));
        let b = motion(DVec3::new(-0.5, -1.0, 0.2), DVec3::new(-2.0, 0.5, 0.1));
        let grain = |m: Motion, mass: f64, r: f64, q: f64| Grain {
            motion: m,
            inv_mass: 1.0 / mass,
            inv_inertia: 1.0 / (q * mass * r * r),
            radius: r,
        };
        let (ga, gb) = (grain(a, m1, s1, 0.4), grain(b, m2, s2, 0.4));
        let free = Coupling {
            eps_n: en,
            eps_t: et,
            mu: f64::INFINITY,
        };
        let (a2, b2) = apply_impulse(n, &ga, &gb, collision_impulse(n, &ga, &gb, &free));
        let (a3, b3) = resolve_pair(n, a, b, m1, m2, s1, s2, en, et);
        for (x, y) in [
            (a2.vel, a3.vel),
            (a2.omega, a3.omega),
            (b2.vel, b3.vel),
            (b2.omega, b3.omega),
        ] {
            assert!((x - y).length() < 1e-12, "{x:?} vs {y:?}");
        }
        // Discs (I = ½ m r²): u_t' = ε_t u_t still holds, with m_t = m_n/3 for equal q = ½.
        let (da, db) = (grain(a, m1, s1, 0.5), grain(b, m2, s2, 0.5));
        let (a4, b4) = apply_impulse(n, &da, &db, collision_impulse(n, &da, &db, &free));
        let u =
            |a: Motion, b: Motion| b.vel - a.vel + b.omega.cross(-s2 * n) - a.omega.cross(s1 * n);
        let (u0, u1) = (u(a, b), u(a4, b4));
        let (un, ut) = (u0.dot(n) * n, u0 - u0.dot(n) * n);
        assert!((u1 - (-en * un + et * ut)).length() < 1e-12);
        // Coulomb: a grazing hit slides; |J_t| = μ |J_n| exactly.
        let mu = 0.1;
        let j = collision_impulse(
            n,
            &da,
            &db,
            &Coupling {
                eps_n: en,
                eps_t: 0.0,
                mu,
            },
        );
        let jn = j.dot(n);
        assert!(jn > 0.0 && ((j - jn * n).length() - mu * jn).abs() < 1e-12 * jn);
        // A wall (infinite mass) reflects the normal contact velocity times ε_n.
        let w = wall_grain(DVec3::new(0.0, 0.3, 0.0));
        let g = grain(
            motion(DVec3::new(1.0, 0.0, -2.0), DVec3::ZERO),
            1.0,
            0.5,
            0.5,
        );
        let nz = DVec3::Z; // from the wall's contact point towards the grain's centre
        let j = collision_impulse(nz, &w, &g, &free);
        let (_, g2) = apply_impulse(nz, &w, &g, j);
        assert!((g2.vel.z - 2.0 * en).abs() < 1e-14);
    }
}
