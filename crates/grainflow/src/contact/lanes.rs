//! The contact law ([`super::law`]) for [`LANES`] established contacts at once.
//!
//! The law is the scalar law's ([`super::ContactModel::force`]) instantiated with lane sets
//! ([`F`]) for numbers: each lane does the scalar law's operations in its order, branches
//! replaced by selects between both outcomes, so its results equal the scalar law's bit for
//! bit (a test holds them equal for every back-end's lanes) while the compiler packs the
//! lanes into SIMD registers. It covers every contact model: each normal slot with the
//! tangential spring, PEBBLES friction (001 eq 3.8, 3.40, 3.48, 3.50–3.52) or none, with or
//! without cohesion (002 eq 10–14), rolling (002 eq 17–18) and twisting resistance (002
//! eq 19–20) ([`Lanes::covers`]). Contacts forming this step, pairs of two immovable bodies,
//! and PEBBLES contacts under Runge–Kutta and Adams take the scalar law.
//!
//! A grain's contact with a wall is the same law with the wall as body j of infinite radius
//! and mass (002 §3; [`WallLanes`]), for every model but PEBBLES friction, whose wall
//! contacts the scalar law takes.

use super::law::{self, Friction, Other, Slots};
use super::{real, ContactModel, Tangential};
pub use crate::simd::{F, LANES};

/// A vector per lane, as three lane sets of components.
pub type V3 = real::V3<F>;
/// [`LANES`] contacts that touched at the last evaluation (`law.rs`).
pub type Contacts = law::Contacts<F>;
/// Where [`LANES`] pairs touch ([`law::Touches`]).
pub type Touches = law::Touches<F>;
/// What [`LANES`] contacts do ([`law::Reaction`]).
pub type Reaction = law::Reaction<F>;

/// The model as the lanes see it, when they cover it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes(Slots);

impl Lanes {
    /// The lane form of `model` for an evaluation that advances slips by `dt`, when the lanes
    /// cover it. PEBBLES friction needs dt > 0: at dt = 0 the integrator (Runge–Kutta, Adams)
    /// reads each contact's slip rate from its history, which only the scalar law boxes.
    pub fn covers(model: &ContactModel, dt: f64) -> Option<Lanes> {
        let covered = !matches!(model.tangential, Tangential::Pebbles(_)) || dt > 0.0;
        covered.then(|| Lanes(Slots::of(model)))
    }

    /// The lanes of `model` for contacts of grains with walls ([`WallLanes`]) when they cover
    /// it: as [`Lanes::covers`], but for PEBBLES friction.
    pub fn walls(model: &ContactModel, dt: f64) -> Option<WallLanes> {
        Lanes::covers(model, dt)
            .filter(|l| !matches!(l.0.friction, Friction::Pebbles(_)))
            .map(|l| WallLanes(l.0))
    }

    /// Whether the lanes read μ_r, μ_t, the cohesion and the inverse moments of inertia
    /// ([`Contacts`]).
    pub fn per_pair(self) -> bool {
        let Slots {
            rolling,
            twisting,
            cohesion,
            ..
        } = self.0;
        rolling || twisting || cohesion != super::Cohesion::None
    }

    /// [`ContactModel::force`] for [`LANES`] established contacts between two spheres, of
    /// which at least one can move, touching at `t`, advancing the slip by `dt`.
    #[inline(always)]
    pub fn force(&self, c: &Contacts, t: &Touches, dt: f64) -> Reaction {
        self.0.react(c, &c.motion(*t, Other::Sphere), dt).reaction
    }
}

/// The lanes for contacts of grains (body i) with walls (body j): [`ContactModel::force`] with
/// j a wall surface (a [`crate::contact::Body`] of no radius, mass or inertia), for every model
/// but PEBBLES friction ([`Lanes::walls`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallLanes(Slots);

impl WallLanes {
    /// [`ContactModel::force`] for [`LANES`] established contacts of grains with walls,
    /// touching at `t`, advancing the slip by `dt`. `c` holds the two bodies as the scalar law
    /// sees them: the grain's velocity less the wall surface's as dv, the grain's angular
    /// velocity relative to the wall's as w_i, its radius as r_i and inverse inertia as ii_i,
    /// and the wall's zeros as r_j (lever arm), w_j and ii_j.
    #[inline(always)]
    pub fn force(&self, c: &Contacts, t: &Touches, dt: f64) -> Reaction {
        self.0.react(c, &c.motion(*t, Other::Wall), dt).reaction
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::pebbles::{PebblesFriction, StaticFriction};
    use crate::contact::{Body, Cohesion, ContactState, Normal, Rolling, Touch, Twisting};
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
        // equal ContactModel::force.
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
                                let s = st.limit_slip(slip.into(), f_perp, false);
                                limited += usize::from(DVec3::from(s) != slip);
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
