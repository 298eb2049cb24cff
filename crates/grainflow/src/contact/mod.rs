//! The soft-sphere contact law, composed of slots evaluated in a fixed order:
//! normal (with its damping) → cohesion → tangential → rolling → twisting.
//!
//! Each slot is an enum whose variants are small pure functions citing their seed equation
//! (002 §3, Appendix A; 003 §2), each written once over its number type (`real.rs`) and
//! composed in `law.rs`, which the scalar law ([`ContactModel::force`]) and the lanes
//! (`lanes.rs`) both evaluate. The same law serves particle–particle and particle–wall
//! contacts: a wall is a body of infinite radius and mass whose surface velocity is given.

pub mod cohesion;
pub mod discrete;
pub(crate) mod lanes;
pub(crate) mod law;
pub mod normal;
pub mod pebbles;
pub(crate) mod real;
pub mod restitution;
pub mod rolling;
pub mod tangential;
pub mod twisting;

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::material::{effective_mass, effective_radius, PairParams};
pub use cohesion::Cohesion;
use law::{Contacts, Other, Slots, Touches};
pub use normal::Normal;
pub use rolling::Rolling;
pub use tangential::Tangential;
pub use twisting::Twisting;

/// The contact model of a scene: one variant per slot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactModel {
    /// Normal force and damping (002 §3.1, A5–A7; 003 §2).
    pub normal: Normal,
    /// Tangential spring with history (002 §3.2).
    #[serde(default)]
    pub tangential: Tangential,
    /// Rolling resistance (002 §3.4.1).
    #[serde(default)]
    pub rolling: Rolling,
    /// Spinning resistance (002 §3.4.2).
    #[serde(default)]
    pub twisting: Twisting,
    /// Cohesion (002 §3.3).
    #[serde(default)]
    pub cohesion: Cohesion,
    /// Characteristic collision velocity v_c (m/s): sets Hooke's stiffness (002 A5), the
    /// contact time behind `dt = "auto"`, and the least v₀ of the Flores damping.
    #[serde(
        default = "default_characteristic_velocity",
        deserialize_with = "crate::units::velocity"
    )]
    pub characteristic_velocity: f64,
    /// Whether the normal damping of Hooke, Hertz and linear is corrected for the time step,
    /// so that a head-on collision rebounds, in the mean over where in its step it begins,
    /// with the continuous contact's e (`restitution::Correction`); `false` keeps the constants
    /// of 002 A5–A6 and 003 eq 11–12 as they are (as LAMMPS and LIGGGHTS use them).
    #[serde(default = "yes")]
    pub step_correction: bool,
}

fn default_characteristic_velocity() -> f64 {
    1.0
}

fn yes() -> bool {
    true
}

impl ContactModel {
    /// No contact law (`normal = "none"`, every other slot none): what a scene without a
    /// `[contact]` table gets.
    pub fn none() -> Self {
        ContactModel {
            normal: Normal::None,
            tangential: Tangential::None,
            rolling: Rolling::None,
            twisting: Twisting::None,
            cohesion: Cohesion::None,
            characteristic_velocity: default_characteristic_velocity(),
            step_correction: true,
        }
    }

    /// Hertz normal force (002 A6) with the tangential spring (002 §3.2) and nothing else, at
    /// v_c = 1 m/s: the base the validation scenes change one slot of (hard-sphere scenes
    /// need a model but do not use it).
    pub fn hertz() -> Self {
        ContactModel {
            normal: Normal::Hertz,
            tangential: Tangential::Spring,
            rolling: Rolling::None,
            twisting: Twisting::None,
            cohesion: Cohesion::None,
            characteristic_velocity: default_characteristic_velocity(),
            step_correction: true,
        }
    }
}

/// History of one contact, kept while the bodies touch and dropped when they separate. It
/// holds only what every contact uses; the rest is boxed in [`Extra`] for the slots and
/// integrators that need it. The neighbour list keeps a pair's history in three parts
/// ([`ContactState::split`]): what the pair loop reads and writes at every step ([`Slip`]),
/// the constants ([`Formed`]) and the boxed extras.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactState {
    /// Tangential displacement δ_t (m), 002 eq 8.
    pub slip: DVec3,
    /// Stiffness and damping resolved when the contact formed (with v₀ for Flores, 002 eq 6).
    pub stiffness: normal::Stiffness,
    /// Storage only some contacts use, made when first needed.
    pub extra: Option<Box<Extra>>,
    /// Whether the bodies touched at the last evaluation.
    pub touching: bool,
}

/// What only contacts of slots in rate form, or of Runge–Kutta and Adams runs, keep.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra {
    /// Rate of the slip ds/dt (m/s) of slots in rate form (PEBBLES, 001 eq 3.40, 3.48–3.49)
    /// at the last evaluation that left the slip to the integrator (Runge–Kutta, Adams);
    /// Verlet and Euler advance the slip in the law and never box it.
    pub rate: DVec3,
    /// Integrator storage for the slip (Runge–Kutta stage sums, Adams rate history), kept with
    /// the contact so that it survives neighbour-list rebuilds (`integrator.rs`).
    pub scratch: [DVec3; 5],
    /// Steps this contact has lived through (Adams integrators use as many past rates).
    pub age: u32,
}

impl ContactState {
    /// The same contact seen from the other body, when the two exchange the roles of i and
    /// j: the slip, i's tangential displacement relative to j (002 eq 8), its rate and the
    /// integrator's sums of them change sign; the constants are symmetric.
    pub fn swapped(&self) -> ContactState {
        let mut s = self.clone();
        s.slip = -s.slip;
        if let Some(e) = s.extra.as_deref_mut() {
            e.rate = -e.rate;
            e.scratch = e.scratch.map(|x| -x);
        }
        s
    }

    /// The contact's [`Extra`] storage, made (zeroed) when first needed.
    pub fn extra(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Default::default)
    }

    /// The history in the neighbour list's three parts.
    pub fn split(self) -> (Slip, Formed, Option<Box<Extra>>) {
        let s = self.slip;
        let slip = Slip([s.x, s.y, s.z, if self.touching { 1.0 } else { 0.0 }]);
        (slip, Formed(self.stiffness), self.extra)
    }

    /// The history from the neighbour list's three parts ([`ContactState::split`]).
    pub fn joined(slip: &Slip, formed: &Formed, extra: Option<Box<Extra>>) -> ContactState {
        ContactState {
            slip: slip.displacement(),
            stiffness: formed.0,
            extra,
            touching: slip.touching(),
        }
    }
}

/// What the pair loop reads and writes of a pair's history at every step, one aligned run of
/// four numbers: the slip δ_t (m, 002 eq 8) and 1 while the bodies touch, 0 when they do not.
/// Kept apart from the rest ([`Formed`], the extras), so that the step streams 32 bytes per
/// listed pair, not the whole history.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub struct Slip(pub [f64; 4]);

impl Slip {
    /// The tangential displacement δ_t (m, 002 eq 8).
    #[inline]
    pub fn displacement(&self) -> DVec3 {
        let [x, y, z, _] = self.0;
        DVec3::new(x, y, z)
    }

    /// Whether the bodies touched at the last evaluation.
    #[inline]
    pub fn touching(&self) -> bool {
        self.0[3] != 0.0
    }
}

/// The constants of a pair's history resolved when the contact formed
/// ([`ContactState::stiffness`]), aligned for one load of four numbers: the pair loop streams
/// them, 32 bytes a listed pair, when they differ pair by pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub struct Formed(pub normal::Stiffness);

/// Where two bodies touch: the unit normal from body i to body j and the overlap (m, > 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    /// Unit normal from i towards j.
    pub normal: DVec3,
    /// Overlap δ (m).
    pub overlap: f64,
}

/// One body of a contact: its surface moves with `vel + omega × (lever · direction)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Velocity of the centre, or of the wall surface at the contact point (m/s).
    pub vel: DVec3,
    /// Angular velocity (rad/s).
    pub omega: DVec3,
    /// Radius (m); `None` for a wall (infinite radius).
    pub radius: Option<f64>,
    /// Inverse mass (1/kg), 0 for immovable bodies.
    pub inv_mass: f64,
    /// Inverse moment of inertia (1/(kg m²)), 0 when it cannot rotate.
    pub inv_inertia: f64,
}

/// What a contact does to its two bodies.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactForce {
    /// Force on body i (N); body j receives the opposite.
    pub force_i: DVec3,
    /// Torque on body i (N m).
    pub torque_i: DVec3,
    /// Torque on body j (N m).
    pub torque_j: DVec3,
    /// Normal force magnitude, elastic + damping, positive when repulsive (N).
    pub normal_force: f64,
}

impl ContactModel {
    /// Evaluates the contact of particle i with body j where they `touch`, updating `state`:
    /// the law (`law.rs`) for one contact, its constants resolved when it forms.
    #[inline(always)]
    pub fn force(
        &self,
        p: &PairParams,
        touch: Touch,
        i: &Body,
        j: &Body,
        state: &mut ContactState,
        dt: f64,
    ) -> ContactForce {
        if i.inv_mass + j.inv_mass == 0.0 {
            // Two immovable bodies (fixed grains, walls): nothing to integrate.
            return ContactForce::default();
        }
        let other = match j.radius {
            Some(_) => Other::Sphere,
            None => Other::Wall,
        };
        let mut c = Contacts {
            r_i: i.radius.unwrap_or(0.0),
            r_j: j.radius.unwrap_or(0.0),
            dv: (i.vel - j.vel).into(),
            w_i: i.omega.into(),
            w_j: j.omega.into(),
            mu: p.mu_s,
            mu_r: p.mu_r,
            mu_t: p.mu_t,
            cohesion: p.cohesion,
            ii_i: i.inv_inertia,
            ii_j: j.inv_inertia,
            ..Contacts::default()
        };
        let t = Touches {
            normal: touch.normal.into(),
            overlap: touch.overlap,
        };
        let m = c.motion(t, other);
        if !state.touching {
            let v_c = self.characteristic_velocity;
            let (r_eff, m_eff) = (
                effective_radius(c.r_i, j.radius),
                effective_mass(i.inv_mass, j.inv_mass),
            );
            let wall = other == Other::Wall;
            let v0 = m.approach.max(v_c);
            *state = ContactState {
                stiffness: normal::stiffness(&self.normal, p, r_eff, m_eff, v_c, v0, wall),
                touching: true,
                ..ContactState::default()
            };
        }
        let k = state.stiffness;
        (c.kn, c.kt, c.gn, c.gt) = (k.kn, k.kt, k.gn, k.gt);
        c.slip = state.slip.into();
        let out = Slots::of(self).react(&c, &m, dt);
        state.slip = out.reaction.slip.into();
        if dt == 0.0 && matches!(self.tangential, Tangential::Pebbles(_)) {
            // Runge–Kutta and Adams advance the slip by its rate, from the history.
            state.extra().rate = out.rate.into();
        }
        ContactForce {
            force_i: out.reaction.force_i.into(),
            torque_i: out.reaction.torque_i.into(),
            torque_j: out.reaction.torque_j.into(),
            normal_force: out.normal_force,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> PairParams {
        PairParams::new(0.5e6 / 1.82, 0.5e6 / 8.84, 0.5, [0.3, 0.0, 0.0], 0.0)
    }

    fn body(vel: DVec3, omega: DVec3) -> Body {
        Body {
            vel,
            omega,
            radius: Some(0.5),
            inv_mass: 1.0,
            inv_inertia: 10.0,
        }
    }

    #[test]
    fn tangential_force_is_coulomb_bounded_and_torques_conserve_angular_momentum() {
        // Oblique contact of two spinning equal spheres (r = 0.5 m, δ = 1e-3 m): the lever arms
        // reach the middle of the overlap, r − δ/2, so the friction torques on both bodies are
        // equal, (r − δ/2) n × F_t, and with the force couple −(2r − δ) n × F_t they sum to zero
        // (angular momentum conserved); |F_t| ≤ μ_s F_n.
        let m = ContactModel::hertz();
        let n = DVec3::new(1.0, 0.2, -0.1).normalize();
        let mut s = ContactState::default();
        let i = body(DVec3::new(0.3, 0.1, 0.0), DVec3::new(0.0, 2.0, 1.0));
        let j = body(DVec3::new(-0.1, 0.0, 0.2), DVec3::new(1.0, 0.0, -1.0));
        let mut f = ContactForce::default();
        for _ in 0..200 {
            f = m.force(
                &params(),
                Touch {
                    normal: n,
                    overlap: 1e-3,
                },
                &i,
                &j,
                &mut s,
                1e-5,
            );
        }
        let f_t = f.force_i - f.force_i.dot(n) * n;
        assert!(f_t.length() > 0.0 && f_t.length() <= 0.3 * f.normal_force * (1.0 + 1e-12));
        assert!((f.torque_i - 0.4995 * n.cross(f_t)).length() < 1e-12 * f_t.length());
        let couple = -(1.0 - 1e-3) * n.cross(f.force_i);
        assert!((couple + f.torque_i + f.torque_j).length() < 1e-12 * f_t.length());
        assert_eq!(f.torque_i, f.torque_j);
        assert!(s.touching && s.slip.dot(n).abs() < 1e-15);
    }

    #[test]
    fn contact_history_fits_the_pair_loops_stream() {
        // The pair loop streams the slip and touching flag of every listed pair and the
        // constants of the touching ones when they differ pair by pair: 32 bytes each, one
        // aligned load; a field added costs every step of every run.
        for (size, align) in [
            (std::mem::size_of::<Slip>(), std::mem::align_of::<Slip>()),
            (
                std::mem::size_of::<Formed>(),
                std::mem::align_of::<Formed>(),
            ),
        ] {
            assert_eq!((size, align), (32, 32));
        }
    }

    #[test]
    fn a_history_split_for_the_neighbour_list_joins_back_whole() {
        let state = ContactState {
            slip: DVec3::new(1e-7, -2e-7, 3e-8),
            stiffness: normal::Stiffness {
                kn: 1e5,
                kt: 3e4,
                gn: 0.2,
                gt: 0.1,
            },
            extra: Some(Box::new(Extra {
                age: 3,
                ..Extra::default()
            })),
            touching: true,
        };
        let (slip, formed, extra) = state.clone().split();
        assert_eq!(slip.0, [1e-7, -2e-7, 3e-8, 1.0]);
        assert_eq!(ContactState::joined(&slip, &formed, extra), state);
        let (slip, formed, extra) = ContactState::default().split();
        assert!(!slip.touching());
        let blank = ContactState::joined(&slip, &formed, extra);
        assert_eq!(blank, ContactState::default());
    }

    #[test]
    fn cohesion_pulls_bodies_together() {
        let m = ContactModel {
            normal: Normal::Hooke,
            tangential: Tangential::None,
            rolling: Rolling::None,
            twisting: Twisting::None,
            cohesion: Cohesion::Constant,
            characteristic_velocity: 1.0,
            step_correction: true,
        };
        let p = PairParams::new(0.5e6 / 1.82, 0.5e6 / 8.84, 0.5, [0.3, 0.0, 0.0], 10.0);
        let mut s = ContactState::default();
        let still = body(DVec3::ZERO, DVec3::ZERO);
        // Tiny overlap: the 10 N of cohesion dominates, pulling i along +n towards j.
        let f = m.force(
            &p,
            Touch {
                normal: DVec3::Z,
                overlap: 1e-9,
            },
            &still,
            &still,
            &mut s,
            1e-5,
        );
        assert!((f.force_i.z - (10.0 - f.normal_force)).abs() < 1e-12);
        assert!(f.force_i.z > 9.9);
    }
}
