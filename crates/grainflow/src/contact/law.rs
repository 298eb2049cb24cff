//! The contact law of a touching pair, its slots composed in a fixed order: the motion at the
//! contact (002 eq 4), normal force with its damping (002 A5–A7, 003 eq 18, 001 eq 3.7),
//! cohesion (002 eq 10–14), tangential force (the spring of 002 eq 7–9 or PEBBLES friction of
//! 001 eq 3.8, 3.40–3.52), rolling (002 eq 17–18) and twisting resistance (002 eq 19–20).
//!
//! Written once over the number type ([`Real`]): the scalar law
//! ([`super::ContactModel::force`]) evaluates one contact in f64, the lanes
//! ([`super::lanes`]) [`crate::simd::LANES`] contacts at once, with the same operations in the
//! same order, so that both give the same bits.

use super::cohesion::{cohesion_force, Cohesion};
use super::normal::{self, Form};
use super::pebbles::{self, PebblesFriction, Turn};
use super::real::{Real, V3};
use super::rolling::{rolling_torque, Rolling};
use super::tangential::{self, Tangential};
use super::twisting::{contact_radius, twisting_torque, Twisting};
use super::ContactModel;

/// The tangential slot as the law sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Friction {
    None,
    /// The tangential spring (002 eq 7–9).
    Spring,
    /// PEBBLES kinetic and static friction (001 §3.2, §3.5).
    Pebbles(PebblesFriction),
}

/// The contact model as the law evaluates it, slot by slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slots {
    pub form: Form,
    pub friction: Friction,
    /// Constant rolling (002 eq 17–18) and twisting (002 eq 19–20) resistance.
    pub rolling: bool,
    pub twisting: bool,
    pub cohesion: Cohesion,
}

impl Slots {
    /// The slots of `model`.
    pub fn of(model: &ContactModel) -> Slots {
        Slots {
            form: model.normal.form(),
            friction: match model.tangential {
                Tangential::None => Friction::None,
                Tangential::Spring => Friction::Spring,
                Tangential::Pebbles(pebbles) => Friction::Pebbles(pebbles),
            },
            rolling: model.rolling == Rolling::Constant,
            twisting: model.twisting == Twisting::Constant,
            cohesion: model.cohesion,
        }
    }
}

/// What body j of a contact is to the law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Other {
    /// A sphere of radius r_j: the lever arms reach the middle of the overlap.
    Sphere,
    /// A wall, of infinite radius: the grain's lever arm is its radius and the wall's r_j
    /// (0), the effective radius is r_i (002 A1 as r_j → ∞), x_c of the contact area r_i − δ
    /// (002 eq 20 in that limit), and PEBBLES slips turn towards its plane (001 eq 3.49).
    Wall,
}

/// Contacts that touched at the last evaluation, of which at least one body can move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contacts<R> {
    /// Separation d from i's centre to j's (minimum image, m), and |d|² (m²), for
    /// [`Contacts::touches`].
    pub d: V3<R>,
    pub d2: R,
    /// Radii (m); a wall's is 0.
    pub r_i: R,
    pub r_j: R,
    /// Relative velocity v_i − v_j (m/s), the first term of every law's relative velocity at
    /// the contact (002 eq 4), and the angular velocities (rad/s).
    pub dv: V3<R>,
    pub w_i: V3<R>,
    pub w_j: V3<R>,
    /// Tangential displacement δ_t (m), the contact's history.
    pub slip: V3<R>,
    /// The contact's constants ([`super::normal::Stiffness`]).
    pub kn: R,
    pub kt: R,
    pub gn: R,
    pub gt: R,
    /// Sliding friction μ_s of the pair.
    pub mu: R,
    /// Rolling and twisting friction μ_r, μ_t and cohesion value of the pair, and the inverse
    /// moments of inertia (1/(kg m²)), read only when the model has rolling or twisting
    /// resistance or cohesion.
    pub mu_r: R,
    pub mu_t: R,
    pub cohesion: R,
    pub ii_i: R,
    pub ii_j: R,
}

/// Where pairs touch (002 §2, Fig. 1): the unit normal n̂ = d / |d| from i towards j and
/// the overlap δ_n = r_i + r_j − |d| (m).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Touches<R> {
    pub normal: V3<R>,
    pub overlap: R,
}

/// Where contacts touch and how they move there: body j, the touch, the lever arms from each
/// centre and the velocity of i's surface relative to j's, split into the approach speed δ̇
/// and the tangential part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion<R> {
    pub other: Other,
    pub touch: Touches<R>,
    pub arm_i: R,
    pub arm_j: R,
    /// δ̇ (m/s, > 0 when approaching).
    pub approach: R,
    pub v_t: V3<R>,
}

/// What contacts do: force on i, torques on i and j, and the new slip.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reaction<R> {
    pub force_i: V3<R>,
    pub torque_i: V3<R>,
    pub torque_j: V3<R>,
    pub slip: V3<R>,
}

/// The law's results: the [`Reaction`], the normal force F_n (elastic + damping, positive
/// when repulsive, N) and PEBBLES's slip rate ds/dt (m/s; 0 for other slots), which the
/// Runge–Kutta and Adams integrators advance the slip by.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome<R> {
    pub reaction: Reaction<R>,
    pub normal_force: R,
    pub rate: V3<R>,
}

impl<R: Real> Contacts<R> {
    /// The normals and overlaps of the pairs, in the pair loop's operations and order.
    #[inline(always)]
    pub fn touches(&self) -> Touches<R> {
        let dist = self.d2.sqrt();
        Touches {
            normal: self.d.scale(R::splat(1.0) / dist),
            overlap: (self.r_i + self.r_j) - dist,
        }
    }

    /// The motion at the contacts touching at `t` with body j the `other`.
    #[inline(always)]
    pub fn motion(&self, t: Touches<R>, other: Other) -> Motion<R> {
        let n = t.normal;
        // Lever arms from each centre to the contact point. Between two spheres it is the
        // middle of the overlap, r − δ/2 from each centre: the arms then add up to the
        // distance between the centres, so friction torques conserve angular momentum
        // exactly (arms of r_i and r_j would create δ n̂ × F_t per contact). Against a wall,
        // r_i.
        let (arm_i, arm_j) = match other {
            Other::Sphere => {
                let half = R::splat(0.5) * t.overlap;
                (self.r_i - half, self.r_j - half)
            }
            Other::Wall => (self.r_i, self.r_j),
        };
        // Velocity of i's surface relative to j's at the contact point (002 eq 4, with the
        // signs of the rigid-body velocities ω × r of each surface point):
        // v_i + ω_i × a_i n̂ − (v_j + ω_j × (−a_j n̂)) = v_i − v_j + (a_i ω_i + a_j ω_j) × n̂.
        let rel = self.dv + (self.w_i.scale(arm_i) + self.w_j.scale(arm_j)).cross(n);
        let approach = rel.dot(n);
        Motion {
            other,
            touch: t,
            arm_i,
            arm_j,
            approach,
            v_t: rel - n.scale(approach),
        }
    }
}

impl Slots {
    /// The law for contacts `c` touching and moving as `m`, advancing the slip by `dt`. The branch on rolling and twisting resistance is taken once per call, so that
    /// models without them compile as if they did not exist.
    #[inline(always)]
    pub fn react<R: Real>(&self, c: &Contacts<R>, m: &Motion<R>, dt: f64) -> Outcome<R> {
        if self.rolling || self.twisting {
            self.resisted(c, m, dt)
        } else {
            self.sliding(c, m, dt)
        }
    }

    /// The normal, cohesion and tangential slots: the law without rolling or twisting
    /// resistance.
    #[inline(always)]
    fn sliding<R: Real>(&self, c: &Contacts<R>, m: &Motion<R>, dt: f64) -> Outcome<R> {
        let (n, overlap, other) = (m.touch.normal, m.touch.overlap, m.other);
        let k = [c.kn, c.kt, c.gn, c.gt];
        let nf = normal::force(self.form, k, overlap, m.approach);
        // Cohesion with R = r_i r_j/(r_i + r_j), r_i against a wall (002 A1).
        let f_c = match self.cohesion {
            Cohesion::None => R::default(),
            model => {
                let r_eff = match other {
                    Other::Sphere => c.r_i * c.r_j / (c.r_i + c.r_j),
                    Other::Wall => c.r_i,
                };
                cohesion_force(&model, c.cohesion, r_eff)
            }
        };
        // The normal force on i: repulsion pushes i away from j (−n̂), cohesion pulls it back.
        let force_i = n.scale(f_c - nf.force);
        // |F_n − f_c|: the Coulomb limit's normal force (002 eq 7), PEBBLES's |F⊥| (001
        // eq 3.7).
        let f_perp = (nf.force - f_c).abs();
        let none = V3::default();
        let (f_t, slip, rate) = match &self.friction {
            Friction::None => {
                let reaction = Reaction {
                    force_i,
                    torque_i: none,
                    torque_j: none,
                    slip: c.slip,
                };
                return Outcome {
                    reaction,
                    normal_force: nf.force,
                    rate: none,
                };
            }
            Friction::Spring => {
                let f_max = c.mu * f_perp;
                let (f_t, slip) = tangential::spring(c.slip, n, m.v_t, f_max, nf.kt, nf.gt, dt);
                (f_t, slip, none)
            }
            Friction::Pebbles(law) => {
                let turn = match other {
                    Other::Sphere => Turn::Pair {
                        dv: c.dv,
                        dist: (c.r_i + c.r_j) - overlap,
                    },
                    Other::Wall => Turn::Wall,
                };
                let out = pebbles::friction(law, c.slip, n, m.v_t, f_perp, turn);
                // The slip is a state variable: Euler's step (001 eq 3.17) after the force;
                // dt = 0 leaves it to the integrator, which reads the rate.
                (out.force, out.slip + out.rate.scale(R::splat(dt)), out.rate)
            }
        };
        // Lever arms a_i n̂ and a_j n̂: both torques are multiples of n̂ × F_t. (001 eq 3.3
        // prints F∥ × r n̂; the torque of F at lever r n̂ is r n̂ × F, used here.)
        let nonzero = f_t.nonzero();
        let arm = n.cross(f_t);
        let reaction = Reaction {
            force_i: V3::select(nonzero, force_i + f_t, force_i),
            torque_i: V3::select(nonzero, none + arm.scale(m.arm_i), none),
            torque_j: V3::select(nonzero, none + arm.scale(m.arm_j), none),
            slip,
        };
        Outcome {
            reaction,
            normal_force: nf.force,
            rate,
        }
    }

    /// The law with the rolling (002 eq 17–18) and then twisting (002 eq 19–20)
    /// resistance's torques added, each where its coefficient is positive.
    #[inline(always)]
    fn resisted<R: Real>(&self, c: &Contacts<R>, m: &Motion<R>, dt: f64) -> Outcome<R> {
        let mut out = self.sliding(c, m, dt);
        let (n, f_n) = (m.touch.normal, out.normal_force);
        let zero = R::default();
        let r = &mut out.reaction;
        let mut add = |on: R::Mask, (t_i, t_j): (V3<R>, V3<R>)| {
            r.torque_i = V3::select(on, r.torque_i + t_i, r.torque_i);
            r.torque_j = V3::select(on, r.torque_j + t_j, r.torque_j);
        };
        if self.rolling {
            let (w_i, w_j) = (c.w_i, c.w_j);
            let torques =
                rolling_torque(n, c.r_i, c.r_j, w_i, w_j, c.ii_i, c.ii_j, c.mu_r, f_n, dt);
            add(c.mu_r.gt(zero), torques);
        }
        if self.twisting {
            let r_j = match m.other {
                Other::Sphere => Some(c.r_j),
                Other::Wall => None,
            };
            let r_c = contact_radius(c.r_i, r_j, m.touch.overlap);
            let torques = twisting_torque(n, c.w_i, c.w_j, c.ii_i, c.ii_j, c.mu_t, r_c, f_n, dt);
            add(c.mu_t.gt(zero), torques);
        }
        out
    }
}
