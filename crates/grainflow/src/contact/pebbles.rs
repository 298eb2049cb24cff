//! The PEBBLES friction law (001 §3.2, §3.5): kinetic friction from a tangential dashpot capped
//! by Coulomb (eq 3.8), static friction from a slip vector s (eq 3.50) that grows with the
//! tangential contact velocity (eq 3.40), turns with the pair (eq 3.47–3.48) or towards a wall's
//! tangent plane (eq 3.49), and a total tangential force capped at μ|F⊥| (eq 3.51–3.52).
//!
//! The slip is a state variable of the ODE (eq 3.4, 3.15): [`friction`] returns the force from
//! the current slip *and* the slip's rate ds/dt, and the integrator advances s (velocity Verlet
//! and Euler by dt · ds/dt after the force is taken, exactly eq 3.17; Runge–Kutta and Adams with
//! the rest of the state). The long-slip limits (`zero_long_slips_mult`, `decrease_long_slips`,
//! interpretations in docs/pebbles-contact.md) act on the slip before it is used.
//!
//! The Hooke normal force with its normal dashpot (eq 3.7) is [`super::Normal::Pebbles`].

use serde::{Deserialize, Serialize};

use super::real::{Flags, Real, V3};
use super::tangential::rotate_into_tangent_plane;

/// Kinetic and static friction of PEBBLES (`contact.tangential = { pebbles = { … } }`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PebblesFriction {
    /// Kinetic friction coefficient μ_k (−), eq 3.8 (`kinetic_friction`).
    pub kinetic_friction: f64,
    /// Tangential dashpot C∥ (N s/m), eq 3.8 (second value of `dash_pot2`).
    #[serde(deserialize_with = "crate::units::damping")]
    pub dash_pot: f64,
    /// Static friction from the slip (eq 3.50–3.52); absent = kinetic friction only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_friction: Option<StaticFriction>,
}

/// Static friction constants (`static_friction_new`, `_new2`, `_new3`, and the long-slip limits).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticFriction {
    /// Static friction coefficient μ_s between pebbles (−).
    pub friction: f64,
    /// Slip stiffness h_s between pebbles (N/m).
    #[serde(deserialize_with = "crate::units::stiffness")]
    pub hooke: f64,
    /// μ_s between a pebble and a wall (−); `friction` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_friction: Option<f64>,
    /// h_s between a pebble and a wall (N/m); `hooke` when absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::stiffness"
    )]
    pub surface_hooke: Option<f64>,
    /// v_max² (m²/s²): static friction acts while |v∥|² is below it.
    #[serde(deserialize_with = "crate::units::speed_squared")]
    pub velocity_max_sqr: f64,
    /// Scale F_s by 1 − |v∥|/v_max (`linear_static_friction_cutoff`); 1 otherwise.
    #[serde(default)]
    pub linear_cutoff: bool,
    /// `zero_long_slips_mult m`: s ← 0 when h_s|s| > m μ_s|F⊥| (−).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_long_slips: Option<f64>,
    /// `decrease_long_slips A B`: when h_s|s| > A μ_s|F⊥|, s is shortened along itself to
    /// h_s|s| = B μ_s|F⊥| (−, −).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decrease_long_slips: Option<[f64; 2]>,
}

impl StaticFriction {
    /// (μ_s, h_s) of a pebble–pebble (`wall = false`) or pebble–wall contact.
    pub fn constants(&self, wall: bool) -> (f64, f64) {
        if wall {
            (
                self.surface_friction.unwrap_or(self.friction),
                self.surface_hooke.unwrap_or(self.hooke),
            )
        } else {
            (self.friction, self.hooke)
        }
    }

    /// `slip` after the long-slip limits, for a contact with normal force |F⊥| = `f_perp`.
    #[inline(always)]
    pub fn limit_slip<R: Real>(&self, slip: V3<R>, f_perp: R, wall: bool) -> V3<R> {
        let (mu, h_s) = self.constants(wall);
        let limit = R::splat(mu) * f_perp;
        let stretch = R::splat(h_s) * slip.dot(slip).sqrt();
        let zeroed = match self.zero_long_slips {
            Some(m) => stretch.gt(R::splat(m) * limit),
            None => R::Mask::splat(false),
        };
        let slip = match self.decrease_long_slips {
            Some([above, to]) => V3::select(
                stretch.gt(R::splat(above) * limit),
                slip.scale(R::splat(to) * limit / stretch),
                slip,
            ),
            None => slip,
        };
        V3::select(zeroed, V3::default(), slip)
    }
}

/// Where the slip of a contact turns (eq 3.47–3.49).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Turn<R = f64> {
    /// Two pebbles: centre velocity v_i − v_j (m/s) and centre distance d (m), eq 3.48.
    Pair {
        /// v_i − v_j (m/s).
        dv: V3<R>,
        /// |p_j − p_i| (m).
        dist: R,
    },
    /// A wall: the slip turns towards the tangent plane, eq 3.49.
    Wall,
}

/// What the friction law gives: the tangential force on body i, the slip after the long-slip
/// limits and the slip's rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrictionOut<R = f64> {
    /// F∥ on body i (N), eq 3.52.
    pub force: V3<R>,
    /// s (m) after the long-slip limits.
    pub slip: V3<R>,
    /// ds/dt (m/s), eq 3.40 with 3.48 or 3.49.
    pub rate: V3<R>,
}

/// Rate of the slip s (m/s): ds/dt = v∥ (eq 3.40) plus its rotation, for a pair eq 3.48,
/// −(p_i − p_j)(s·(v_i − v_j))/|p_i − p_j|² = n̂ (s·(v_i − v_j))/d with n̂ from i to j, and for a
/// wall eq 3.49, (s·n̂)[(n̂×s)×s]/(|n̂×s||s|) (rate constant 1/s, as written).
#[inline(always)]
pub fn slip_rate<R: Real>(slip: V3<R>, n: V3<R>, v_t: V3<R>, turn: Turn<R>) -> V3<R> {
    match turn {
        Turn::Pair { dv, dist } => v_t + n.scale(slip.dot(dv) / dist),
        Turn::Wall => {
            let axis = n.cross(slip);
            let norm = axis.dot(axis).sqrt() * slip.dot(slip).sqrt();
            let turned = v_t + axis.cross(slip).scale(slip.dot(n)) / norm;
            V3::select(norm.gt(R::default()), turned, v_t)
        }
    }
}

/// The PEBBLES tangential force, limited slip and slip rate of one contact.
///
/// `slip` is s (m), limited by the long-slip rules; `n` the unit normal from i to j; `v_t`
/// the tangential velocity of i's surface relative to j's at the contact (m/s, eq 3.11);
/// `f_perp` = |F⊥| (N); `turn` how s rotates.
#[inline(always)]
pub fn friction<R: Real>(
    f: &PebblesFriction,
    slip: V3<R>,
    n: V3<R>,
    v_t: V3<R>,
    f_perp: R,
    turn: Turn<R>,
) -> FrictionOut<R> {
    let zero = R::default();
    let speed2 = v_t.dot(v_t);
    let speed = speed2.sqrt();
    // eq 3.8: F_d = −min(μ_k |F⊥|, C∥ |v∥|) v̂∥.
    let kinetic = -(R::splat(f.kinetic_friction) * f_perp).min(R::splat(f.dash_pot) * speed);
    let f_d = V3::select(speed.gt(zero), v_t.scale(kinetic / speed), V3::default());
    let Some(st) = &f.static_friction else {
        // Kinetic friction only: capped by μ_k |F⊥| (already, by the min of eq 3.8).
        return FrictionOut {
            force: f_d,
            slip,
            rate: V3::default(),
        };
    };
    let wall = matches!(turn, Turn::Wall);
    let slip = st.limit_slip(slip, f_perp, wall);
    let (mu_s, h_s) = st.constants(wall);
    // eq 3.50: the slip's tangential part as a spring, while |v∥|² < v_max², with the
    // optional linear cutoff; a wall's slip is used turned into the tangent plane with its
    // length kept (§3.5.2, "a temporary version properly aligned").
    let sticking = speed2.lt(R::splat(st.velocity_max_sqr));
    let cut = if st.linear_cutoff {
        R::splat(1.0) - speed / R::splat(st.velocity_max_sqr.sqrt())
    } else {
        R::splat(1.0)
    };
    let tangent = match turn {
        Turn::Wall => rotate_into_tangent_plane(slip, n),
        Turn::Pair { .. } => slip - n.scale(slip.dot(n)),
    };
    let f_s = V3::select(sticking, tangent.scale(R::splat(-h_s) * cut), V3::default());
    // eq 3.51–3.52: F∥ = min(μ|F⊥|, |F_s + F_d|) along F_s + F_d; μ = μ_s while sticking.
    let mu = R::select(sticking, R::splat(mu_s), R::splat(f.kinetic_friction));
    let total = f_s + f_d;
    let cap = mu * f_perp;
    let len = total.dot(total).sqrt();
    FrictionOut {
        force: V3::select(len.gt(cap), total.scale(cap / len), total),
        slip,
        rate: slip_rate(slip, n, v_t, turn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    /// The force and the slip's rate of [`friction`].
    struct Out {
        force: DVec3,
        rate: DVec3,
    }

    /// [`friction`] of vectors, the slip limited in place.
    fn friction_of(
        f: &PebblesFriction,
        slip: &mut DVec3,
        n: DVec3,
        v_t: DVec3,
        f_perp: f64,
        turn: Turn,
    ) -> Out {
        let out = friction(f, (*slip).into(), n.into(), v_t.into(), f_perp, turn);
        *slip = out.slip.into();
        Out {
            force: out.force.into(),
            rate: out.rate.into(),
        }
    }

    /// The long-slip limits of `st` on `slip`, in place.
    fn limit(st: &StaticFriction, slip: &mut DVec3, f_perp: f64, wall: bool) {
        *slip = st.limit_slip((*slip).into(), f_perp, wall).into();
    }

    fn rate_of(s: DVec3, n: DVec3, turn: Turn) -> DVec3 {
        slip_rate(s.into(), n.into(), V3::default(), turn).into()
    }

    fn pair(dv: DVec3, dist: f64) -> Turn {
        Turn::Pair {
            dv: dv.into(),
            dist,
        }
    }

    fn law(static_friction: Option<StaticFriction>) -> PebblesFriction {
        PebblesFriction {
            kinetic_friction: 0.4,
            dash_pot: 200.0,
            static_friction,
        }
    }

    fn stat() -> StaticFriction {
        StaticFriction {
            friction: 0.6,
            hooke: 1e6,
            surface_friction: Some(0.3),
            surface_hooke: Some(2e6),
            velocity_max_sqr: 0.01,
            linear_cutoff: false,
            zero_long_slips: None,
            decrease_long_slips: None,
        }
    }

    #[test]
    fn kinetic_friction_is_the_smaller_of_coulomb_and_dashpot() {
        // eq 3.8 with μ_k = 0.4, C∥ = 200, |F⊥| = 10 N: at 1 mm/s the dashpot gives 0.2 N,
        // at 1 m/s Coulomb gives 4 N; both oppose v∥.
        let mut s = DVec3::ZERO;
        let turn = pair(DVec3::ZERO, 0.04);
        let slow = friction_of(&law(None), &mut s, DVec3::Z, 1e-3 * DVec3::X, 10.0, turn);
        assert!((slow.force - DVec3::new(-0.2, 0.0, 0.0)).length() < 1e-15);
        let fast = friction_of(&law(None), &mut s, DVec3::Z, DVec3::X, 10.0, turn);
        assert!((fast.force - DVec3::new(-4.0, 0.0, 0.0)).length() < 1e-15);
        assert_eq!(fast.rate, DVec3::ZERO);
    }

    #[test]
    fn static_friction_is_a_slip_spring_capped_by_mu_s_and_off_above_v_max() {
        // eq 3.50–3.52: s = 1e-7 m along x at rest gives F_s = −h_s s = −0.1 N (under μ_s|F⊥| =
        // 6 N); s = 1e-5 m gives 10 N, capped at 6 N. Above v_max (|v∥|² = 0.04 > 0.01) only
        // kinetic friction acts, capped by μ_k.
        let turn = pair(DVec3::ZERO, 0.04);
        let mut s = DVec3::new(1e-7, 0.0, 0.0);
        let out = friction_of(
            &law(Some(stat())),
            &mut s,
            DVec3::Z,
            DVec3::ZERO,
            10.0,
            turn,
        );
        assert!((out.force.x + 0.1).abs() < 1e-12 && out.force.y == 0.0);
        let mut s = DVec3::new(1e-5, 0.0, 0.0);
        let out = friction_of(
            &law(Some(stat())),
            &mut s,
            DVec3::Z,
            DVec3::ZERO,
            10.0,
            turn,
        );
        assert!((out.force.x + 6.0).abs() < 1e-12);
        let mut s = DVec3::new(1e-5, 0.0, 0.0);
        let v = DVec3::new(0.0, 0.2, 0.0);
        let out = friction_of(&law(Some(stat())), &mut s, DVec3::Z, v, 10.0, turn);
        assert!((out.force - DVec3::new(0.0, -4.0, 0.0)).length() < 1e-12);
        // The slip still follows v∥ (eq 3.40).
        assert_eq!(out.rate, v);
    }

    #[test]
    fn linear_cutoff_and_surface_constants() {
        // |v∥| = 0.05 m/s, v_max = 0.1 m/s: factor 1/2. A wall uses h_s = 2e6 N/m and μ_s = 0.3.
        let mut st = stat();
        st.linear_cutoff = true;
        let v = DVec3::new(0.05, 0.0, 0.0);
        let mut s = DVec3::new(-1e-7, 0.0, 0.0);
        let f = law(Some(st));
        let pair = pair(DVec3::ZERO, 0.04);
        let out = friction_of(&f, &mut s, DVec3::Z, v, 1e3, pair);
        // F_s = +0.05 N, F_d = −min(400, 10) = −10 N along x.
        assert!((out.force.x - (0.05 - 10.0)).abs() < 1e-12);
        let mut s = DVec3::new(-1e-7, 0.0, 0.0);
        let out = friction_of(&f, &mut s, DVec3::Z, v, 1e3, Turn::Wall);
        assert!((out.force.x - (0.1 - 10.0)).abs() < 1e-12);
        let mut s = DVec3::new(1e-5, 0.0, 0.0);
        let out = friction_of(&f, &mut s, DVec3::Z, DVec3::ZERO, 10.0, Turn::Wall);
        assert!((out.force.x + 3.0).abs() < 1e-12);
    }

    #[test]
    fn long_slips_are_zeroed_or_decreased() {
        // μ_s|F⊥| = 6 N; h_s|s| = 10 N. decrease [1.1, 1.0] → h_s|s| = 6 N; zero 1.5 → s = 0;
        // h_s|s| = 6.5 N < 1.1 × 6 N is kept.
        let mut st = stat();
        st.decrease_long_slips = Some([1.1, 1.0]);
        let mut s = DVec3::new(0.0, 1e-5, 0.0);
        limit(&st, &mut s, 10.0, false);
        assert!((1e6 * s.length() - 6.0).abs() < 1e-9 && s.x == 0.0);
        let mut s = DVec3::new(0.0, 6.5e-6, 0.0);
        limit(&st, &mut s, 10.0, false);
        assert_eq!(s.y, 6.5e-6);
        st.zero_long_slips = Some(1.5);
        let mut s = DVec3::new(0.0, 1e-5, 0.0);
        limit(&st, &mut s, 10.0, false);
        assert_eq!(s, DVec3::ZERO);
    }

    #[test]
    fn pair_rotation_keeps_the_slip_tangent() {
        // eq 3.47 and 3.48 agree when s ⊥ (p_i − p_j), and d(s·n̂)/dt = 0 to first order.
        let n = DVec3::new(0.3, -0.2, 0.9).normalize();
        let dist = 0.039;
        let s = n.cross(DVec3::X).normalize() * 1e-6;
        let dv = DVec3::new(0.2, 0.5, -0.1);
        let rate = rate_of(s, n, pair(dv, dist));
        let pij = -dist * n;
        let literal = -(dv.cross(pij)).cross(s) / pij.length_squared();
        assert!((rate - literal).length() < 1e-15 * dv.length());
        // n̂ = (p_j − p_i)/d turns at (−dv + n̂(n̂·dv))/d; s·n̂ stays 0: ṡ·n̂ + s·ṅ = 0.
        let n_dot = (-dv + n * n.dot(dv)) / dist;
        assert!((rate.dot(n) + s.dot(n_dot)).abs() < 1e-18);
    }

    #[test]
    fn wall_rotation_turns_the_slip_into_the_tangent_plane() {
        // eq 3.49: the normal part of s decays at |s| cos a sin a, the rate has length |s| |cos a|.
        let n = DVec3::Z;
        let a: f64 = 1.0; // angle between n̂ and s
        let s = 2e-6 * DVec3::new(a.sin(), 0.0, a.cos());
        let rate = rate_of(s, n, Turn::Wall);
        assert!((rate.length() - 2e-6 * a.cos()).abs() < 1e-18);
        assert!((rate.z + 2e-6 * a.cos() * a.sin()).abs() < 1e-18);
        assert!(rate.dot(s).abs() < 1e-24);
    }
}
