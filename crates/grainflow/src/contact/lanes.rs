//! The contact law of [`super::ContactModel::force`] for four established contacts at once.
//!
//! Each lane does the scalar law's operations in the scalar law's order (002 §3.1–3.2, A5–A7;
//! 003 eq 18–22), branches replaced by selects between both outcomes, so its results equal the
//! scalar law's bit for bit (a test holds them equal) while the compiler packs the four lanes
//! into SIMD registers. It covers every contact model: each normal slot with the tangential
//! spring, PEBBLES friction (001 eq 3.8, 3.40, 3.48, 3.50–3.52) or none, with or without
//! cohesion (002 eq 10–14), rolling (002 eq 17–18) and twisting resistance (002 eq 19–20)
//! ([`Lanes::covers`]). Contacts forming this step, pairs of two immovable bodies, and PEBBLES
//! contacts under Runge–Kutta and Adams take the scalar law.
//!
//! A grain's contact with a wall is the same law with the wall as body j of infinite radius
//! and mass (002 §3; [`WallLanes`]), for every model but PEBBLES friction, whose slip turns
//! towards a wall by an equation of its own (001 eq 3.49) that only the scalar law has.

use super::pebbles::PebblesFriction;
use super::{Cohesion, ContactModel, Normal, Rolling, Tangential, Twisting};
pub use crate::simd::{Mask, F, LANES};

/// Which resistances to relative rotation are on: constant rolling (002 eq 17–18) and
/// twisting (002 eq 19–20) torques.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Resistance {
    rolling: bool,
    twisting: bool,
}

/// A vector per lane, as three lanes of components.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V3 {
    pub x: F,
    pub y: F,
    pub z: F,
}

impl V3 {
    /// glam's order: (x x' + y y') + z z'.
    #[inline(always)]
    pub fn dot(self, o: V3) -> F {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// glam's order: (y z' − y' z, z x' − z' x, x y' − x' y).
    #[inline(always)]
    fn cross(self, o: V3) -> V3 {
        V3 {
            x: self.y * o.z - o.y * self.z,
            y: self.z * o.x - o.z * self.x,
            z: self.x * o.y - o.x * self.y,
        }
    }
    #[inline(always)]
    fn scale(self, s: F) -> V3 {
        V3 {
            x: s * self.x,
            y: s * self.y,
            z: s * self.z,
        }
    }
    /// Each component divided by `s`, as glam's `DVec3 / f64`.
    #[inline(always)]
    fn div(self, s: F) -> V3 {
        V3 {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }
    /// `a` where the mask is set, `b` elsewhere.
    #[inline(always)]
    fn select(m: Mask, a: V3, b: V3) -> V3 {
        V3 {
            x: F::select(m, a.x, b.x),
            y: F::select(m, a.y, b.y),
            z: F::select(m, a.z, b.z),
        }
    }
}

impl std::ops::Add for V3 {
    type Output = V3;
    #[inline(always)]
    fn add(self, o: V3) -> V3 {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl std::ops::Neg for V3 {
    type Output = V3;
    #[inline(always)]
    fn neg(self) -> V3 {
        V3 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

impl std::ops::Sub for V3 {
    type Output = V3;
    #[inline(always)]
    fn sub(self, o: V3) -> V3 {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

/// The normal slot's form, which is all the lanes need of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Law {
    /// F_n = k_n δ + g_n δ̇ (Hooke, linear, PEBBLES: 002 A5, 003 eq 18, 001 eq 3.7).
    Linear,
    /// F_n = k_n δ^{3/2} + g_n δ^{1/4} δ̇ (002 A6).
    Hertz,
    /// F_n = k_n δ^{3/2} + c_n δ^{3/2} δ̇ (002 eq 5, A7).
    Flores,
}

/// The tangential slot as the lanes see it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Friction {
    None,
    /// The tangential spring (002 eq 7–9).
    Spring,
    /// PEBBLES kinetic and static friction between two pebbles (001 §3.2, §3.5).
    Pebbles(PebblesFriction),
}

/// The model as the lanes see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes {
    law: Law,
    friction: Friction,
    resistance: Resistance,
    cohesion: Cohesion,
}

impl Lanes {
    /// The lane form of `model` for an evaluation that advances slips by `dt`, when the lanes
    /// cover it. PEBBLES friction needs dt > 0: at dt = 0 the integrator (Runge–Kutta, Adams)
    /// reads each contact's slip rate from its history, which only the scalar law boxes.
    pub fn covers(model: &ContactModel, dt: f64) -> Option<Lanes> {
        let resistance = Resistance {
            rolling: model.rolling == Rolling::Constant,
            twisting: model.twisting == Twisting::Constant,
        };
        let law = match model.normal {
            Normal::Hooke | Normal::Linear { .. } | Normal::Pebbles { .. } => Law::Linear,
            Normal::Hertz => Law::Hertz,
            Normal::Flores => Law::Flores,
        };
        let friction = match model.tangential {
            Tangential::None => Friction::None,
            Tangential::Spring => Friction::Spring,
            Tangential::Pebbles(pebbles) if dt > 0.0 => Friction::Pebbles(pebbles),
            Tangential::Pebbles(_) => return None,
        };
        Some(Lanes {
            law,
            friction,
            resistance,
            cohesion: model.cohesion,
        })
    }

    /// The lanes of `model` for contacts of grains with walls ([`WallLanes`]) when they cover
    /// it: as [`Lanes::covers`], but for PEBBLES friction.
    pub fn walls(model: &ContactModel, dt: f64) -> Option<WallLanes> {
        Lanes::covers(model, dt)
            .filter(|l| !matches!(l.friction, Friction::Pebbles(_)))
            .map(WallLanes)
    }

    /// Whether the lanes read μ_r, μ_t, the cohesion and the inverse moments of inertia
    /// ([`Contacts`]).
    pub fn per_pair(self) -> bool {
        self.resistance.rolling || self.resistance.twisting || self.cohesion != Cohesion::None
    }
}

/// What body j of the contacts is to the law.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Other {
    /// A sphere of radius r_j: the lever arms reach the middle of the overlap.
    Sphere,
    /// A wall, of infinite radius: the grain's lever arm is its radius and the wall's r_j (the
    /// scalar law's 0), the effective radius is r_i (002 A1 as r_j → ∞), and x_c of the
    /// contact area r_i − δ (002 eq 20 in that limit).
    Wall,
}

/// The lanes for contacts of grains (body i) with walls (body j): [`ContactModel::force`] with
/// j a wall surface (a [`crate::contact::Body`] of no radius, mass or inertia), for every model
/// but PEBBLES friction ([`Lanes::walls`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallLanes(Lanes);

impl WallLanes {
    /// [`ContactModel::force`] for [`LANES`] established contacts of grains with walls,
    /// touching at `t`, advancing the slip by `dt`. `c` holds the two bodies as the scalar law
    /// sees them: the grain's velocity less the wall surface's as dv, the grain's angular
    /// velocity relative to the wall's as w_i, its radius as r_i and inverse inertia as ii_i,
    /// and the wall's zeros as r_j (lever arm), w_j and ii_j.
    #[inline(always)]
    pub fn force(&self, c: &Contacts, t: &Touches, dt: f64) -> Reaction {
        self.0.react(c, t, dt, Other::Wall)
    }
}

/// Four contacts that touched at the last evaluation, between two spheres of which at least
/// one can move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contacts {
    /// Separation d from i's centre to j's (minimum image, m), and |d|² (m²).
    pub d: V3,
    pub d2: F,
    /// Radii (m).
    pub r_i: F,
    pub r_j: F,
    /// Relative velocity v_i − v_j (m/s), the first term of every law's relative velocity at
    /// the contact (002 eq 4), and the angular velocities (rad/s).
    pub dv: V3,
    pub w_i: V3,
    pub w_j: V3,
    /// Tangential displacement δ_t (m), the contact's history.
    pub slip: V3,
    /// The contact's constants ([`super::normal::Stiffness`]).
    pub kn: F,
    pub kt: F,
    pub gn: F,
    pub gt: F,
    /// Sliding friction μ_s of the pair.
    pub mu: F,
    /// Rolling and twisting friction μ_r, μ_t and cohesion value of the pair, and the inverse
    /// moments of inertia (1/(kg m²)), read only when the model has rolling or twisting
    /// resistance or cohesion ([`Lanes::per_pair`]).
    pub mu_r: F,
    pub mu_t: F,
    pub cohesion: F,
    pub ii_i: F,
    pub ii_j: F,
}

/// Where four pairs touch (002 §2, Fig. 1): the unit normal n̂ = d / |d| from i towards j and
/// the overlap δ_n = r_i + r_j − |d| (m), in the pair loop's operations and order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Touches {
    pub normal: V3,
    pub overlap: F,
}

impl Contacts {
    /// The normals and overlaps of the four pairs.
    #[inline(always)]
    pub fn touches(&self) -> Touches {
        let dist = self.d2.sqrt();
        Touches {
            normal: self.d.scale(F::splat(1.0) / dist),
            overlap: (self.r_i + self.r_j) - dist,
        }
    }
}

/// What four contacts do: force on i, torques on i and j, and the new slip.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reaction {
    pub force_i: V3,
    pub torque_i: V3,
    pub torque_j: V3,
    pub slip: V3,
}

impl Lanes {
    /// [`ContactModel::force`] for four established contacts touching at `t`, advancing the
    /// slip by `dt`. The branch on rolling and twisting resistance is taken once per call, so
    /// that models without them compile their lanes as if they did not exist.
    #[inline(always)]
    pub fn force(&self, c: &Contacts, t: &Touches, dt: f64) -> Reaction {
        self.react(c, t, dt, Other::Sphere)
    }

    /// [`Lanes::force`] with body j the `other`.
    #[inline(always)]
    fn react(&self, c: &Contacts, t: &Touches, dt: f64, other: Other) -> Reaction {
        if self.resistance.rolling || self.resistance.twisting {
            self.force_resisted(c, t, dt, other)
        } else {
            self.sliding(c, t, dt, other).0
        }
    }

    /// The normal, cohesion and tangential slots: the reaction without rolling or twisting
    /// resistance, and the normal force F_n.
    #[inline(always)]
    fn sliding(&self, c: &Contacts, t: &Touches, dt: f64, other: Other) -> (Reaction, F) {
        let zero = F::splat(0.0);
        let n = t.normal;
        let overlap = t.overlap;
        let (arm_i, arm_j) = match other {
            Other::Sphere => {
                let half = F::splat(0.5) * overlap;
                (c.r_i - half, c.r_j - half)
            }
            Other::Wall => (c.r_i, c.r_j),
        };
        let rel = c.dv + (c.w_i.scale(arm_i) + c.w_j.scale(arm_j)).cross(n);
        let approach = rel.dot(n);
        let v_t = rel - n.scale(approach);
        // Normal slot (002 A5–A7; super::normal::normal_force).
        let (force, kt, gt) = match self.law {
            Law::Linear => (c.kn * overlap + c.gn * approach, c.kt, c.gt),
            Law::Hertz | Law::Flores => {
                let sqrt_d = overlap.sqrt();
                let q = sqrt_d.sqrt();
                let d32 = overlap * sqrt_d;
                let damping = if self.law == Law::Flores {
                    c.gn * d32
                } else {
                    c.gn * q
                };
                (c.kn * d32 + damping * approach, c.kt * sqrt_d, c.gt * q)
            }
        };
        // Cohesion f_c (002 eq 10–14; super::cohesion::cohesion_force) with R = r_i r_j/(r_i + r_j),
        // r_i against a wall (002 A1).
        let r_eff = || match other {
            Other::Sphere => c.r_i * c.r_j / (c.r_i + c.r_j),
            Other::Wall => c.r_i,
        };
        let f_c = match self.cohesion {
            Cohesion::None => zero,
            Cohesion::Constant => c.cohesion,
            Cohesion::Dmt => c.cohesion * r_eff().sqrt(),
            Cohesion::Perko {
                hamaker,
                separation,
            } => {
                let vdw = F::splat(hamaker) * c.cohesion * c.cohesion;
                vdw / F::splat(48.0 * separation * separation) * r_eff()
            }
        };
        // The normal force on i: repulsion pushes i away from j (−n̂), cohesion pulls it back.
        let force_i = n.scale(f_c - force);
        // |F_n − f_c|: the Coulomb limit's normal force, PEBBLES's |F⊥|.
        let f_perp = (force - f_c).abs();
        let (f_t, slip) = match &self.friction {
            Friction::None => {
                let none = V3::default();
                let r = Reaction {
                    force_i,
                    torque_i: none,
                    torque_j: none,
                    slip: c.slip,
                };
                return (r, force);
            }
            Friction::Spring => spring(c, n, v_t, c.mu * f_perp, kt, gt, dt),
            Friction::Pebbles(law) => pebbles(law, c, n, v_t, f_perp, overlap, dt),
        };
        let nonzero = f_t.x.differs(zero) | f_t.y.differs(zero) | f_t.z.differs(zero);
        let arm = n.cross(f_t);
        let none = V3::default();
        let r = Reaction {
            force_i: V3::select(nonzero, force_i + f_t, force_i),
            torque_i: V3::select(nonzero, none + arm.scale(arm_i), none),
            torque_j: V3::select(nonzero, none + arm.scale(arm_j), none),
            slip,
        };
        (r, force)
    }

    /// The reaction with the rolling (002 eq 17–18) and then twisting (002 eq 19–20)
    /// resistance's torques added, each where its coefficient is positive.
    #[inline(always)]
    fn force_resisted(&self, c: &Contacts, t: &Touches, dt: f64, other: Other) -> Reaction {
        let (mut r, f_n) = self.sliding(c, t, dt, other);
        let zero = F::splat(0.0);
        let mut add = |on: Mask, (t_i, t_j): (V3, V3)| {
            r.torque_i = V3::select(on, r.torque_i + t_i, r.torque_i);
            r.torque_j = V3::select(on, r.torque_j + t_j, r.torque_j);
        };
        if self.resistance.rolling {
            add(c.mu_r.gt(zero), rolling(c, t.normal, f_n, dt));
        }
        if self.resistance.twisting {
            let twist = twisting(c, t.normal, t.overlap, f_n, dt, other);
            add(c.mu_t.gt(zero), twist);
        }
        r
    }
}

/// Twisting-resistance torques on i and j (002 eq 19–20; super::twisting::twisting_torque
/// with super::twisting::contact_radius) for the normal force `f_n`: zero where the pair does
/// not spin relative to each other.
#[inline(always)]
fn twisting(c: &Contacts, n: V3, overlap: F, f_n: F, dt: f64, other: Other) -> (V3, V3) {
    // r_c = √(r_i² − x_c²), x_c = ½ (r_i² − r_j²)/d + ½ d (eq 20), r_i − δ against a wall.
    let x_c = match other {
        Other::Sphere => {
            let half = F::splat(0.5);
            let d = (c.r_i + c.r_j) - overlap;
            half * (c.r_i * c.r_i - c.r_j * c.r_j) / d + half * d
        }
        Other::Wall => c.r_i - overlap,
    };
    let r_c = (c.r_i * c.r_i - x_c * x_c).max(F::splat(0.0)).sqrt();
    let rel = c.w_j - c.w_i;
    let norm = rel.dot(rel).sqrt();
    let m = c.mu_t * r_c * f_n.abs();
    let rate = m * (c.ii_i + c.ii_j);
    let still = norm.equals(F::splat(0.0)) | rate.equals(F::splat(0.0));
    let spin = rel.dot(n);
    let full = m * spin / norm;
    let scale = (spin.abs() / (rate * F::splat(dt))).min(F::splat(1.0));
    let t = n.scale(scale * full);
    let none = V3::default();
    (V3::select(still, none, t), V3::select(still, none, -t))
}

/// Rolling-resistance torques on i and j (002 eq 17–18; super::rolling::rolling_torque) for
/// the normal force `f_n`: zero where the pair does not roll relative to each other.
#[inline(always)]
fn rolling(c: &Contacts, n: V3, f_n: F, dt: f64) -> (V3, V3) {
    let perp = |w: V3| w - n.scale(w.dot(n));
    // n̂ × v_rot of 002 eq 18: the relative rolling expressed as an axis (m/s).
    let u = perp(c.w_i).scale(c.r_i) - perp(c.w_j).scale(c.r_j);
    let speed = u.dot(u).sqrt();
    let m = c.mu_r * f_n.abs();
    let rate = m * (c.r_i * c.r_i * c.ii_i + c.r_j * c.r_j * c.ii_j);
    let still = speed.equals(F::splat(0.0)) | rate.equals(F::splat(0.0));
    let scale = (speed / (rate * F::splat(dt))).min(F::splat(1.0));
    let dir = u.div(speed);
    let t_i = dir.scale(-scale * m * c.r_i);
    let t_j = dir.scale(scale * m * c.r_j);
    (
        V3::select(still, V3::default(), t_i),
        V3::select(still, V3::default(), t_j),
    )
}

/// The tangential spring's force and new slip (002 eq 7–9, 003 eq 22;
/// super::tangential::tangential_spring) for the Coulomb limit `f_max`.
#[inline(always)]
fn spring(c: &Contacts, n: V3, v_t: V3, f_max: F, kt: F, gt: F, dt: f64) -> (V3, V3) {
    let zero = F::splat(0.0);
    let len2 = c.slip.dot(c.slip);
    let projected = c.slip - n.scale(c.slip.dot(n));
    let p2 = projected.dot(projected);
    let rotated = V3::select(
        len2.equals(zero),
        c.slip,
        V3::select(
            p2.equals(zero),
            V3::default(),
            projected.scale((len2 / p2).sqrt()),
        ),
    );
    let slip = rotated + v_t.scale(F::splat(dt));
    let trial = slip.scale(-kt) - v_t.scale(gt);
    let t2 = trial.dot(trial);
    let sticks = t2.le(f_max * f_max);
    // Sliding: |F_t| = μ F_n along the trial force, δ_t rescaled to the limit (003 eq 22).
    if sticks.all() {
        (trial, slip)
    } else {
        let s = slip.dot(slip).sqrt();
        let rescale = !sticks & kt.gt(zero) & s.gt(zero);
        let factor = (f_max / (kt * s)).min(F::splat(1.0));
        let slid = V3::select(rescale, slip.scale(factor), slip);
        let capped = trial.scale(f_max / t2.sqrt());
        (V3::select(sticks, trial, capped), slid)
    }
}

/// PEBBLES friction between two pebbles (super::pebbles::friction with `Turn::Pair`): the
/// tangential force and the slip after Euler's step by `dt` (001 eq 3.17), for contacts `c`
/// overlapping by `overlap` with tangential velocity `v_t` and |F⊥| = `f_perp`.
#[inline(always)]
fn pebbles(
    law: &PebblesFriction,
    c: &Contacts,
    n: V3,
    v_t: V3,
    f_perp: F,
    overlap: F,
    dt: f64,
) -> (V3, V3) {
    let zero = F::splat(0.0);
    // Turn::Pair of the scalar law: v_i − v_j and the centres' distance (eq 3.48).
    let (slip, dv, dist) = (c.slip, c.dv, (c.r_i + c.r_j) - overlap);
    let speed2 = v_t.dot(v_t);
    let speed = speed2.sqrt();
    // eq 3.8: F_d = −min(μ_k |F⊥|, C∥ |v∥|) v̂∥.
    let kinetic = -(F::splat(law.kinetic_friction) * f_perp).min(F::splat(law.dash_pot) * speed);
    let f_d = V3::select(speed.gt(zero), v_t.scale(kinetic / speed), V3::default());
    let dt = F::splat(dt);
    let Some(st) = &law.static_friction else {
        // Kinetic friction only: the scalar law adds dt times a zero rate (a −0 slip
        // component becomes +0), so the lanes do too.
        return (f_d, slip + V3::default().scale(dt));
    };
    // The long-slip limits (super::pebbles::StaticFriction::limit_slip), pebble–pebble constants.
    let (mu_s, h_s) = st.constants(false);
    let limit = F::splat(mu_s) * f_perp;
    let stretch = F::splat(h_s) * slip.dot(slip).sqrt();
    let zeroed: Mask = match st.zero_long_slips {
        Some(m) => stretch.gt(F::splat(m) * limit),
        None => Mask::splat(false),
    };
    let slip = match st.decrease_long_slips {
        Some([above, to]) => V3::select(
            stretch.gt(F::splat(above) * limit),
            slip.scale(F::splat(to) * limit / stretch),
            slip,
        ),
        None => slip,
    };
    let slip = V3::select(zeroed, V3::default(), slip);
    // eq 3.50: the slip's tangential part as a spring, while |v∥|² < v_max².
    let sticking = speed2.lt(F::splat(st.velocity_max_sqr));
    let cut = if st.linear_cutoff {
        F::splat(1.0) - speed / F::splat(st.velocity_max_sqr.sqrt())
    } else {
        F::splat(1.0)
    };
    let tangent = slip - n.scale(slip.dot(n));
    let f_s = V3::select(sticking, tangent.scale(F::splat(-h_s) * cut), V3::default());
    // eq 3.51–3.52: F∥ = min(μ|F⊥|, |F_s + F_d|) along F_s + F_d; μ = μ_s while sticking.
    let mu = F::select(sticking, F::splat(mu_s), F::splat(law.kinetic_friction));
    let total = f_s + f_d;
    let cap = mu * f_perp;
    let len = total.dot(total).sqrt();
    let force = V3::select(len.gt(cap), total.scale(cap / len), total);
    // eq 3.40 with eq 3.48: ds/dt = v∥ + n̂ (s·(v_i − v_j))/d, then s += dt ds/dt.
    let rate = v_t + n.scale(slip.dot(dv) / dist);
    (force, slip + rate.scale(dt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::pebbles::StaticFriction;
    use crate::contact::{Body, ContactState, Touch};
    use crate::material::PairParams;
    use glam::DVec3;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn vec(rng: &mut ChaCha8Rng, scale: f64) -> DVec3 {
        DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        ) * scale
    }

    #[test]
    fn lanes_give_the_scalar_law_bit_for_bit() {
        // Random established contacts of every covered model, sticking and sliding, some with
        // no slip yet or a slip along the normal, with rolling and twisting resistance off, on,
        // or on with μ_r = μ_t = 0, turning freely, slowly or not at all, with and without each
        // cohesion model (some pairs pulled together harder than pushed apart): each lane must
        // equal ContactModel::force, and so must the lanes compiled for AVX2 where the
        // processor has it.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let normals = [
            Normal::Hooke,
            Normal::Hertz,
            Normal::Flores,
            Normal::Linear {
                kn: 1e5,
                damping: 3.0,
                kt: None,
                tangential_damping: Some(1.0),
            },
            Normal::Pebbles {
                hooke: 1e5,
                vessel_hooke: 2e5,
                dash_pot: 3.0,
            },
        ];
        // PEBBLES friction: kinetic only, and static with each long-slip limit and cutoff.
        let statics = [
            None,
            Some(StaticFriction {
                friction: 0.6,
                hooke: 1e5,
                surface_friction: Some(0.3),
                surface_hooke: Some(3e5),
                velocity_max_sqr: 0.02,
                linear_cutoff: true,
                zero_long_slips: Some(3.0),
                decrease_long_slips: Some([1.1, 1.0]),
            }),
            Some(StaticFriction {
                friction: 0.6,
                hooke: 1e5,
                surface_friction: None,
                surface_hooke: None,
                velocity_max_sqr: 0.02,
                linear_cutoff: false,
                zero_long_slips: None,
                decrease_long_slips: Some([1.5, 0.9]),
            }),
        ];
        let tangentials = [Tangential::Spring, Tangential::None]
            .into_iter()
            .chain(statics.map(|static_friction| {
                Tangential::Pebbles(PebblesFriction {
                    kinetic_friction: 0.4,
                    dash_pot: 2.0,
                    static_friction,
                })
            }));
        // Contacts at the spring's Coulomb limit; PEBBLES forces at or above μ_k |F⊥|, and
        // PEBBLES slips the long-slip rules shortened.
        let (mut sliding, mut kinetic, mut limited) = (0, 0, 0);
        let cohesions = [
            Cohesion::None,
            Cohesion::Constant,
            Cohesion::Dmt,
            Cohesion::Perko {
                hamaker: 4.3e-20,
                separation: 1.5e-10,
            },
        ];
        let models = normals.into_iter().flat_map(|normal| {
            tangentials.clone().flat_map(move |tangential| {
                cohesions.into_iter().flat_map(move |cohesion| {
                    [
                        (Rolling::None, Twisting::None),
                        (Rolling::Constant, Twisting::None),
                        (Rolling::None, Twisting::Constant),
                        (Rolling::Constant, Twisting::Constant),
                    ]
                    .map(|(rolling, twisting)| ContactModel {
                        normal,
                        tangential,
                        rolling,
                        twisting,
                        cohesion,
                        ..ContactModel::hertz()
                    })
                })
            })
        });
        for model in models {
            let (normal, tangential) = (model.normal, model.tangential);
            let lanes = Lanes::covers(&model, 1e-6).expect("covered");
            for _ in 0..200 {
                let mut c = Contacts::default();
                let mut scalar = Vec::new();
                for k in 0..LANES {
                    let n = vec(&mut rng, 1.0).normalize();
                    let overlap = rng.random_range(1e-7..1e-4);
                    // With rolling or twisting resistance: lane 1 turns slowly (the
                    // torques below their caps), lane 2 not at all (no torque).
                    let resists =
                        model.rolling == Rolling::Constant || model.twisting == Twisting::Constant;
                    let spin = match (resists, k) {
                        (true, 1) => 1e-4,
                        (true, 2) => 0.0,
                        _ => 10.0,
                    };
                    let body = |rng: &mut ChaCha8Rng| Body {
                        vel: vec(rng, 0.1),
                        omega: vec(rng, spin),
                        radius: Some(rng.random_range(1e-3..2e-3)),
                        inv_mass: 1e3,
                        inv_inertia: rng.random_range(1e8..1e10),
                    };
                    let (bi, bj) = (body(&mut rng), body(&mut rng));
                    let slip = match k {
                        0 => DVec3::ZERO,
                        1 => n * 1e-6,
                        _ => vec(&mut rng, 1e-5),
                    };
                    // Lane 3 has no rolling or twisting friction (μ_r = μ_t = 0: no torque).
                    let (mu_r, mu_t) = if k == 3 {
                        (0.0, 0.0)
                    } else {
                        (rng.random_range(0.01..0.2), rng.random_range(0.01..0.2))
                    };
                    let p = PairParams::new(
                        1e7,
                        4e6,
                        0.9,
                        [rng.random_range(0.1..0.8), mu_r, mu_t],
                        rng.random_range(0.0..2.0),
                    );
                    let state = ContactState {
                        slip,
                        stiffness: crate::contact::normal::stiffness(
                            &normal, &p, 7e-4, 1e-3, 1.0, 0.2, false,
                        ),
                        touching: true,
                        ..ContactState::default()
                    };
                    let put = |l: &mut F, x: f64| {
                        let mut a = l.to_array();
                        a[k] = x;
                        *l = F::new(a);
                    };
                    let put3 = |l: &mut V3, x: DVec3| {
                        put(&mut l.x, x.x);
                        put(&mut l.y, x.y);
                        put(&mut l.z, x.z);
                    };
                    // Centres apart by r_i + r_j − δ along n̂; the scalar law gets the
                    // normal and overlap the pair loop works out from that separation.
                    let reach = bi.radius.unwrap() + bj.radius.unwrap();
                    let d = n * (reach - overlap);
                    let d2 = d.length_squared();
                    let dist = d2.sqrt();
                    let touch = Touch {
                        normal: d * (1.0 / dist),
                        overlap: reach - dist,
                    };
                    put3(&mut c.d, d);
                    put(&mut c.d2, d2);
                    put(&mut c.r_i, bi.radius.unwrap());
                    put(&mut c.r_j, bj.radius.unwrap());
                    put3(&mut c.dv, bi.vel - bj.vel);
                    put3(&mut c.w_i, bi.omega);
                    put3(&mut c.w_j, bj.omega);
                    put3(&mut c.slip, slip);
                    put(&mut c.kn, state.stiffness.kn);
                    put(&mut c.kt, state.stiffness.kt);
                    put(&mut c.gn, state.stiffness.gn);
                    put(&mut c.gt, state.stiffness.gt);
                    put(&mut c.mu, p.mu_s);
                    put(&mut c.mu_r, p.mu_r);
                    put(&mut c.mu_t, p.mu_t);
                    put(&mut c.cohesion, p.cohesion);
                    put(&mut c.ii_i, bi.inv_inertia);
                    put(&mut c.ii_j, bj.inv_inertia);
                    scalar.push((p, touch, bi, bj, state));
                }
                let out = lanes.force(&c, &c.touches(), 1e-6);
                let t = c.touches();
                for (k, (p, touch, bi, bj, mut state)) in scalar.into_iter().enumerate() {
                    let slip = state.slip;
                    let f = model.force(&p, touch, &bi, &bj, &mut state, 1e-6);
                    let lane = |v: &V3| DVec3::new(v.x.lane(k), v.y.lane(k), v.z.lane(k));
                    let same = |a: DVec3, b: DVec3| {
                        a.to_array().map(f64::to_bits) == b.to_array().map(f64::to_bits)
                    };
                    assert!(same(lane(&t.normal), touch.normal), "normal");
                    assert_eq!(
                        t.overlap.lane(k).to_bits(),
                        touch.overlap.to_bits(),
                        "overlap"
                    );
                    assert!(same(lane(&out.force_i), f.force_i), "{normal:?} force");
                    assert!(same(lane(&out.torque_i), f.torque_i), "{normal:?} torque i");
                    assert!(same(lane(&out.torque_j), f.torque_j), "{normal:?} torque j");
                    assert!(same(lane(&out.slip), state.slip), "{normal:?} slip");
                    let f_t = f.force_i - f.force_i.dot(touch.normal) * touch.normal;
                    match tangential {
                        Tangential::Pebbles(law) => {
                            let f_perp = f.normal_force.abs();
                            kinetic +=
                                usize::from(f_t.length() >= 0.999 * law.kinetic_friction * f_perp);
                            if let Some(st) = law.static_friction {
                                let mut s = slip;
                                st.limit_slip(&mut s, f_perp, false);
                                limited += usize::from(s != slip);
                            }
                        }
                        _ => {
                            let limit = 0.999 * p.mu_s * f.normal_force;
                            sliding += usize::from(f_t.length() > limit);
                        }
                    }
                }
            }
        }
        assert!(sliding > 1000, "{sliding} sliding contacts");
        assert!(
            kinetic > 1000,
            "{kinetic} PEBBLES contacts at μ_k |F⊥| or above"
        );
        assert!(limited > 1000, "{limited} PEBBLES slips shortened");
    }

    #[test]
    fn wall_lanes_give_the_scalar_law_bit_for_bit() {
        // Random established contacts of grains with a wall surface moving along itself, of
        // every model the wall lanes cover (each normal slot with the spring or no friction,
        // each cohesion, rolling and twisting off, on, or on with μ = 0), sticking and sliding,
        // with no slip yet or a slip along the normal: each lane must equal
        // ContactModel::force with body j the wall (no radius, mass, inertia or spin), and
        // PEBBLES friction must be left to the scalar law.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let normals = [
            Normal::Hooke,
            Normal::Hertz,
            Normal::Flores,
            Normal::Linear {
                kn: 1e5,
                damping: 3.0,
                kt: None,
                tangential_damping: Some(1.0),
            },
            Normal::Pebbles {
                hooke: 1e5,
                vessel_hooke: 2e5,
                dash_pot: 3.0,
            },
        ];
        let cohesions = [
            Cohesion::None,
            Cohesion::Constant,
            Cohesion::Dmt,
            Cohesion::Perko {
                hamaker: 4.3e-20,
                separation: 1.5e-10,
            },
        ];
        let pebbles = Tangential::Pebbles(PebblesFriction {
            kinetic_friction: 0.4,
            dash_pot: 2.0,
            static_friction: None,
        });
        let hertz = ContactModel::hertz();
        assert!(Lanes::walls(
            &ContactModel {
                tangential: pebbles,
                ..hertz
            },
            1e-6
        )
        .is_none());
        let mut sliding = 0;
        for normal in normals {
            for tangential in [Tangential::Spring, Tangential::None] {
                for cohesion in cohesions {
                    for (rolling, twisting) in [
                        (Rolling::None, Twisting::None),
                        (Rolling::Constant, Twisting::None),
                        (Rolling::None, Twisting::Constant),
                        (Rolling::Constant, Twisting::Constant),
                    ] {
                        let model = ContactModel {
                            normal,
                            tangential,
                            rolling,
                            twisting,
                            cohesion,
                            ..hertz
                        };
                        let lanes = Lanes::walls(&model, 1e-6).expect("covered");
                        for _ in 0..50 {
                            sliding += wall_lanes_match(&mut rng, &model, &lanes);
                        }
                    }
                }
            }
        }
        assert!(sliding > 1000, "{sliding} sliding contacts");
    }

    /// One set of random grain–wall contacts of `model` through `lanes` and the scalar law,
    /// held equal bit for bit; returns how many slid at the spring's Coulomb limit.
    fn wall_lanes_match(rng: &mut ChaCha8Rng, model: &ContactModel, lanes: &WallLanes) -> usize {
        let dt = 1e-6;
        let mut c = Contacts::default();
        let mut t = Touches::default();
        let mut scalar = Vec::new();
        for k in 0..LANES {
            let n = vec(rng, 1.0).normalize();
            let overlap = rng.random_range(1e-7..1e-4);
            let grain = Body {
                vel: vec(rng, 0.1),
                omega: vec(rng, if k == 1 { 1e-4 } else { 10.0 }),
                radius: Some(rng.random_range(1e-3..2e-3)),
                inv_mass: 1e3,
                inv_inertia: rng.random_range(1e8..1e10),
            };
            // The surface of a wall turning about its axis moves along itself.
            let along = vec(rng, 0.1);
            let wall = Body {
                vel: along - along.dot(n) * n,
                omega: DVec3::ZERO,
                radius: None,
                inv_mass: 0.0,
                inv_inertia: 0.0,
            };
            let slip = match k {
                0 => DVec3::ZERO,
                2 => n * 1e-6,
                _ => vec(rng, 1e-5),
            };
            let (mu_r, mu_t) = if k == 3 {
                (0.0, 0.0)
            } else {
                (rng.random_range(0.01..0.2), rng.random_range(0.01..0.2))
            };
            let p = PairParams::new(
                1e7,
                4e6,
                0.9,
                [rng.random_range(0.1..0.8), mu_r, mu_t],
                rng.random_range(0.0..2.0),
            );
            let r = grain.radius.unwrap();
            let state = ContactState {
                slip,
                stiffness: crate::contact::normal::stiffness(
                    &model.normal,
                    &p,
                    r,
                    1e-3,
                    1.0,
                    0.2,
                    true,
                ),
                touching: true,
                ..ContactState::default()
            };
            let put = |l: &mut F, x: f64| {
                let mut a = l.to_array();
                a[k] = x;
                *l = F::new(a);
            };
            let put3 = |l: &mut V3, x: DVec3| {
                put(&mut l.x, x.x);
                put(&mut l.y, x.y);
                put(&mut l.z, x.z);
            };
            put3(&mut t.normal, n);
            put(&mut t.overlap, overlap);
            put3(&mut c.dv, grain.vel - wall.vel);
            put3(&mut c.w_i, grain.omega);
            put3(&mut c.w_j, wall.omega);
            put(&mut c.r_i, r);
            put(&mut c.r_j, 0.0);
            put(&mut c.ii_i, grain.inv_inertia);
            put(&mut c.ii_j, wall.inv_inertia);
            put3(&mut c.slip, slip);
            put(&mut c.kn, state.stiffness.kn);
            put(&mut c.kt, state.stiffness.kt);
            put(&mut c.gn, state.stiffness.gn);
            put(&mut c.gt, state.stiffness.gt);
            put(&mut c.mu, p.mu_s);
            put(&mut c.mu_r, p.mu_r);
            put(&mut c.mu_t, p.mu_t);
            put(&mut c.cohesion, p.cohesion);
            let touch = Touch { normal: n, overlap };
            scalar.push((p, touch, grain, wall, state));
        }
        let out = lanes.force(&c, &t, dt);
        let mut sliding = 0;
        for (k, (p, touch, grain, wall, mut state)) in scalar.into_iter().enumerate() {
            let f = model.force(&p, touch, &grain, &wall, &mut state, dt);
            let lane = |v: &V3| DVec3::new(v.x.lane(k), v.y.lane(k), v.z.lane(k));
            let same = |a: DVec3, b: DVec3| {
                a.to_array().map(f64::to_bits) == b.to_array().map(f64::to_bits)
            };
            assert!(same(lane(&out.force_i), f.force_i), "{model:?} force");
            assert!(same(lane(&out.torque_i), f.torque_i), "{model:?} torque");
            assert!(same(lane(&out.slip), state.slip), "{model:?} slip");
            let f_t = f.force_i - f.force_i.dot(touch.normal) * touch.normal;
            sliding += usize::from(f_t.length() > 0.999 * p.mu_s * f.normal_force);
        }
        sliding
    }
}
