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

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::tangential::rotate_into_tangent_plane;

/// Kinetic and static friction of PEBBLES (`contact.tangential = { pebbles = { … } }`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PebblesFriction {
    /// Kinetic friction coefficient μ_k (−), eq 3.8 (`kinetic_friction`).
    pub kinetic_friction: f64,
    /// Tangential dashpot C∥ (N s/m), eq 3.8 (second value of `dash_pot2`).
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
    pub hooke: f64,
    /// μ_s between a pebble and a wall (−); `friction` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_friction: Option<f64>,
    /// h_s between a pebble and a wall (N/m); `hooke` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_hooke: Option<f64>,
    /// v_max² (m²/s²): static friction acts while |v∥|² is below it.
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

    /// Applies the long-slip limits to `slip` for a contact with normal force |F⊥| = `f_perp`.
    pub fn limit_slip(&self, slip: &mut DVec3, f_perp: f64, wall: bool) {
        let (mu, h_s) = self.constants(wall);
        let limit = mu * f_perp;
        let spring = h_s * slip.length();
        if let Some(m) = self.zero_long_slips {
            if spring > m * limit {
                *slip = DVec3::ZERO;
                return;
            }
        }
        if let Some([above, to]) = self.decrease_long_slips {
            if spring > above * limit {
                *slip *= to * limit / spring;
            }
        }
    }
}

/// Where the slip of a contact turns (eq 3.47–3.49).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Turn {
    /// Two pebbles: centre velocity v_i − v_j (m/s) and centre distance d (m), eq 3.48.
    Pair {
        /// v_i − v_j (m/s).
        dv: DVec3,
        /// |p_j − p_i| (m).
        dist: f64,
    },
    /// A wall: the slip turns towards the tangent plane, eq 3.49.
    Wall,
}

/// What the friction law gives: the tangential force on body i and the slip's rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrictionOut {
    /// F∥ on body i (N), eq 3.52.
    pub force: DVec3,
    /// ds/dt (m/s), eq 3.40 with 3.48 or 3.49.
    pub rate: DVec3,
}

/// Rate of the slip s (m/s): ds/dt = v∥ (eq 3.40) plus its rotation, for a pair eq 3.48,
/// −(p_i − p_j)(s·(v_i − v_j))/|p_i − p_j|² = n̂ (s·(v_i − v_j))/d with n̂ from i to j, and for a
/// wall eq 3.49, (s·n̂)[(n̂×s)×s]/(|n̂×s||s|) (rate constant 1/s, as written).
pub fn slip_rate(slip: DVec3, n: DVec3, v_t: DVec3, turn: Turn) -> DVec3 {
    match turn {
        Turn::Pair { dv, dist } => v_t + n * (slip.dot(dv) / dist),
        Turn::Wall => {
            let axis = n.cross(slip);
            let norm = axis.length() * slip.length();
            if norm > 0.0 {
                v_t + slip.dot(n) * axis.cross(slip) / norm
            } else {
                v_t
            }
        }
    }
}

/// The PEBBLES tangential force and slip rate of one contact.
///
/// `slip` is s (m), limited in place by the long-slip rules; `n` the unit normal from i to j;
/// `v_t` the tangential velocity of i's surface relative to j's at the contact (m/s, eq 3.11);
/// `f_perp` = |F⊥| (N); `turn` how s rotates.
pub fn friction(
    f: &PebblesFriction,
    slip: &mut DVec3,
    n: DVec3,
    v_t: DVec3,
    f_perp: f64,
    turn: Turn,
) -> FrictionOut {
    let speed2 = v_t.length_squared();
    let speed = speed2.sqrt();
    // eq 3.8: F_d = −min(μ_k |F⊥|, C∥ |v∥|) v̂∥.
    let f_d = if speed > 0.0 {
        -(f.kinetic_friction * f_perp).min(f.dash_pot * speed) / speed * v_t
    } else {
        DVec3::ZERO
    };
    let Some(st) = &f.static_friction else {
        // Kinetic friction only: capped by μ_k |F⊥| (already, by the min of eq 3.8).
        return FrictionOut {
            force: f_d,
            rate: DVec3::ZERO,
        };
    };
    let wall = turn == Turn::Wall;
    st.limit_slip(slip, f_perp, wall);
    let (mu_s, h_s) = st.constants(wall);
    let sticking = speed2 < st.velocity_max_sqr;
    // eq 3.50 with the optional linear cutoff; a wall's slip is used turned into the tangent
    // plane with its length kept (§3.5.2, "a temporary version properly aligned").
    let f_s = if sticking {
        let s = match turn {
            Turn::Wall => rotate_into_tangent_plane(*slip, n),
            Turn::Pair { .. } => *slip - slip.dot(n) * n,
        };
        let cut = if st.linear_cutoff {
            1.0 - speed / st.velocity_max_sqr.sqrt()
        } else {
            1.0
        };
        -h_s * cut * s
    } else {
        DVec3::ZERO
    };
    // eq 3.51–3.52: F∥ = min(μ|F⊥|, |F_s + F_d|) along F_s + F_d; μ = μ_s while sticking.
    let mu = if sticking { mu_s } else { f.kinetic_friction };
    let total = f_s + f_d;
    let cap = mu * f_perp;
    let len = total.length();
    let force = if len > cap {
        total * (cap / len)
    } else {
        total
    };
    FrictionOut {
        force,
        rate: slip_rate(*slip, n, v_t, turn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let turn = Turn::Pair {
            dv: DVec3::ZERO,
            dist: 0.04,
        };
        let slow = friction(&law(None), &mut s, DVec3::Z, 1e-3 * DVec3::X, 10.0, turn);
        assert!((slow.force - DVec3::new(-0.2, 0.0, 0.0)).length() < 1e-15);
        let fast = friction(&law(None), &mut s, DVec3::Z, DVec3::X, 10.0, turn);
        assert!((fast.force - DVec3::new(-4.0, 0.0, 0.0)).length() < 1e-15);
        assert_eq!(fast.rate, DVec3::ZERO);
    }

    #[test]
    fn static_friction_is_a_slip_spring_capped_by_mu_s_and_off_above_v_max() {
        // eq 3.50–3.52: s = 1e-7 m along x at rest gives F_s = −h_s s = −0.1 N (under μ_s|F⊥| =
        // 6 N); s = 1e-5 m gives 10 N, capped at 6 N. Above v_max (|v∥|² = 0.04 > 0.01) only
        // kinetic friction acts, capped by μ_k.
        let turn = Turn::Pair {
            dv: DVec3::ZERO,
            dist: 0.04,
        };
        let mut s = DVec3::new(1e-7, 0.0, 0.0);
        let out = friction(
            &law(Some(stat())),
            &mut s,
            DVec3::Z,
            DVec3::ZERO,
            10.0,
            turn,
        );
        assert!((out.force.x + 0.1).abs() < 1e-12 && out.force.y == 0.0);
        let mut s = DVec3::new(1e-5, 0.0, 0.0);
        let out = friction(
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
        let out = friction(&law(Some(stat())), &mut s, DVec3::Z, v, 10.0, turn);
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
        let pair = Turn::Pair {
            dv: DVec3::ZERO,
            dist: 0.04,
        };
        let out = friction(&f, &mut s, DVec3::Z, v, 1e3, pair);
        // F_s = +0.05 N, F_d = −min(400, 10) = −10 N along x.
        assert!((out.force.x - (0.05 - 10.0)).abs() < 1e-12);
        let mut s = DVec3::new(-1e-7, 0.0, 0.0);
        let out = friction(&f, &mut s, DVec3::Z, v, 1e3, Turn::Wall);
        assert!((out.force.x - (0.1 - 10.0)).abs() < 1e-12);
        let mut s = DVec3::new(1e-5, 0.0, 0.0);
        let out = friction(&f, &mut s, DVec3::Z, DVec3::ZERO, 10.0, Turn::Wall);
        assert!((out.force.x + 3.0).abs() < 1e-12);
    }

    #[test]
    fn long_slips_are_zeroed_or_decreased() {
        // μ_s|F⊥| = 6 N; h_s|s| = 10 N. decrease [1.1, 1.0] → h_s|s| = 6 N; zero 1.5 → s = 0;
        // h_s|s| = 6.5 N < 1.1 × 6 N is kept.
        let mut st = stat();
        st.decrease_long_slips = Some([1.1, 1.0]);
        let mut s = DVec3::new(0.0, 1e-5, 0.0);
        st.limit_slip(&mut s, 10.0, false);
        assert!((1e6 * s.length() - 6.0).abs() < 1e-9 && s.x == 0.0);
        let mut s = DVec3::new(0.0, 6.5e-6, 0.0);
        st.limit_slip(&mut s, 10.0, false);
        assert_eq!(s.y, 6.5e-6);
        st.zero_long_slips = Some(1.5);
        let mut s = DVec3::new(0.0, 1e-5, 0.0);
        st.limit_slip(&mut s, 10.0, false);
        assert_eq!(s, DVec3::ZERO);
    }

    #[test]
    fn pair_rotation_keeps_the_slip_tangent() {
        // eq 3.47 and 3.48 agree when s ⊥ (p_i − p_j), and d(s·n̂)/dt = 0 to first order.
        let n = DVec3::new(0.3, -0.2, 0.9).normalize();
        let dist = 0.039;
        let s = n.cross(DVec3::X).normalize() * 1e-6;
        let dv = DVec3::new(0.2, 0.5, -0.1);
        let rate = slip_rate(s, n, DVec3::ZERO, Turn::Pair { dv, dist });
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
        let rate = slip_rate(s, n, DVec3::ZERO, Turn::Wall);
        assert!((rate.length() - 2e-6 * a.cos()).abs() < 1e-18);
        assert!((rate.z + 2e-6 * a.cos() * a.sin()).abs() < 1e-18);
        assert!(rate.dot(s).abs() < 1e-24);
    }
}
