//! Normal force models of 002 §3.1 and Appendix A, and the linear spring–dashpot of 003 §2.
//!
//! Each model gives the normal force magnitude (positive = repulsive) and the tangential
//! stiffness and damping that go with it (A5–A7 tie them together):
//! * Hooke (002 eq 3 with p = 1, q = 0; A5): k_n from the characteristic velocity v_c;
//! * Hertz (002 eq 3 with p = 3/2, q = 1/4; A6): k_n = 4/3 Ē √R;
//! * Flores (002 eq 5–6; A7): hysteresis damping c_n = k_n α/v₀, α from e exactly
//!   ([`super::restitution::hunt_crossley_damping`]; eq 6's 8/5 (1−e)/e approximates it);
//! * Linear (003 eq 11–12, 18–22): k_n and γ given, k_t = 2/7 k_n by default; tangential
//!   damping only when given (003 has none; LAMMPS's gran/hooke/history has one);
//! * Pebbles (001 eq 3.7): Hooke h (pebble–pebble or pebble–wall) and dashpot C⊥ given; its
//!   tangential partner is [`super::Tangential::Pebbles`].

use serde::{Deserialize, Serialize};

use super::real::Real;
use super::restitution::damping_factor;
use crate::material::PairParams;

/// The normal-force slot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Normal {
    /// No contact law, for scenes whose grains never touch (orbits, gravity alone): materials
    /// need no elastic constants, walls are refused, no contact time bounds the step, and a
    /// run whose grains touch stops with the pair named.
    None,
    /// Linear visco-elastic, stiffness from E, ν and v_c (002 A5).
    Hooke,
    /// Hertzian visco-elastic (002 A6).
    Hertz,
    /// Hertz with Flores et al. (2011) hysteresis damping (002 eq 5–6, A7), its constant
    /// from e exactly ([`super::restitution::hunt_crossley_damping`]).
    Flores,
    /// Linear spring–dashpot with constants given directly (003 §2).
    Linear {
        /// Normal stiffness k_n (N/m).
        #[serde(deserialize_with = "crate::units::stiffness")]
        kn: f64,
        /// Normal damping γ (N s/m), on the relative normal velocity.
        #[serde(deserialize_with = "crate::units::damping")]
        damping: f64,
        /// Tangential stiffness k_t (N/m); 2/7 k_n when absent (Silbert et al. 2001, 003 §2.2).
        #[serde(default, deserialize_with = "crate::units::stiffness")]
        kt: Option<f64>,
        /// Tangential damping (N s/m); none when absent, as in 003 eq 19–22.
        #[serde(default, deserialize_with = "crate::units::damping")]
        tangential_damping: Option<f64>,
    },
    /// PEBBLES's Hooke force with a normal dashpot, F⊥ = h l n̂ − C⊥ v⊥ (001 eq 3.7), with
    /// separate stiffnesses for pebble–pebble and pebble–wall contacts.
    Pebbles {
        /// h between two pebbles (N/m), `pebble_pebble_hooke`.
        #[serde(deserialize_with = "crate::units::stiffness")]
        hooke: f64,
        /// h between a pebble and a wall (N/m), `pebble_vessel_hooke`.
        #[serde(deserialize_with = "crate::units::stiffness")]
        vessel_hooke: f64,
        /// C⊥ (N s/m) on the relative normal velocity, first value of `dash_pot2`.
        #[serde(deserialize_with = "crate::units::damping")]
        dash_pot: f64,
    },
}

/// The normal slot's form, which is all the law needs of it once a contact's constants are
/// resolved ([`Stiffness`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    /// F_n = k_n δ + g_n δ̇ (Hooke, linear, PEBBLES: 002 A5, 003 eq 18, 001 eq 3.7).
    Linear,
    /// F_n = k_n δ^{3/2} + g_n δ^{1/4} δ̇ (002 A6).
    Hertz,
    /// F_n = k_n δ^{3/2} + c_n δ^{3/2} δ̇ (002 eq 5, A7).
    Flores,
}

impl Normal {
    /// The model's form.
    pub fn form(&self) -> Form {
        match self {
            Normal::None | Normal::Hooke | Normal::Linear { .. } | Normal::Pebbles { .. } => {
                Form::Linear
            }
            Normal::Hertz => Form::Hertz,
            Normal::Flores => Form::Flores,
        }
    }
}

/// What the normal slot hands to the rest of the contact law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormalOut<R = f64> {
    /// Normal force magnitude, elastic + damping, positive when repulsive (N).
    pub force: R,
    /// Tangential stiffness at this overlap, k_t δ^s (N/m), 002 eq 8.
    pub kt: R,
    /// Tangential damping at this overlap, g_t δ^q (N s/m), 002 eq 8.
    pub gt: R,
}

/// Hooke normal stiffness k_n = 16/15 Ē √R (15 M v_c² / (16 Ē √R))^{1/5} (002 eq A5), N/m.
pub fn hooke_stiffness(e_star: f64, r_eff: f64, m_eff: f64, v_c: f64) -> f64 {
    let a = e_star * r_eff.sqrt();
    16.0 / 15.0 * a * (15.0 * m_eff * v_c * v_c / (16.0 * a)).powf(0.2)
}

/// Hooke normal damping g_n = √(4 M k_n / (1 + (π/ln e)²)) (002 eq A5), N s/m.
/// Written as 2 ξ √(M k_n) with ξ = [`damping_factor`], which is the same for e > 0 and
/// gives critical damping at e = 0.
pub fn hooke_damping(m_eff: f64, kn: f64, e: f64) -> f64 {
    2.0 * damping_factor(e) * (m_eff * kn).sqrt()
}

/// Hertz normal stiffness k_n = 4/3 Ē √R (002 eq A6), N/m^{3/2}.
pub fn hertz_stiffness(e_star: f64, r_eff: f64) -> f64 {
    4.0 / 3.0 * e_star * r_eff.sqrt()
}

/// Hertz/Mindlin tangential stiffness k_t = 8 Ḡ √R (002 eq A6), N/m^{3/2}.
pub fn mindlin_stiffness(g_star: f64, r_eff: f64) -> f64 {
    8.0 * g_star * r_eff.sqrt()
}

/// Flores's hysteresis damping c_n = k_n α / v₀ (002 eq 5–6 with α = χ v₀ of
/// [`super::restitution::hunt_crossley_damping`] in place of eq 6's 8/5 (1 − e)/e, so that the contact rebounds
/// with the e asked for), N s/m^{5/2}; `alpha` = [`super::restitution::hunt_crossley_damping`] of the pair's e.
pub fn flores_damping(kn: f64, alpha: f64, v0: f64) -> f64 {
    kn * alpha / v0
}

/// Stiffness and damping constants of one contact, resolved once when it forms: they depend
/// only on the pair (materials, effective radius and mass) and, for Flores, on v₀.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Stiffness {
    /// Normal stiffness k_n (N/m for Hooke and linear, N/m^{3/2} for Hertz and Flores).
    pub kn: f64,
    /// Tangential stiffness k_t (same units as k_n).
    pub kt: f64,
    /// Normal damping: g_n (Hooke, Hertz, linear) or Flores's c_n.
    pub gn: f64,
    /// Tangential damping g_t.
    pub gt: f64,
}

/// The constants of a contact of `model` between bodies with pair constants `p`, effective
/// radius R (m) and mass M (kg); `v_c` is Hooke's characteristic velocity and `v0` the relative
/// normal speed at first touch (Flores, and Hertz's step correction), both m/s; `wall` when
/// body j is a wall. The normal damping of Hooke, Hertz and linear is corrected for the step
/// by the pair's table (`p.step`, [`super::restitution::Correction`]) when it has one.
pub fn stiffness(
    model: &Normal,
    p: &PairParams,
    r_eff: f64,
    m_eff: f64,
    v_c: f64,
    v0: f64,
    wall: bool,
) -> Stiffness {
    match *model {
        Normal::None => Stiffness::default(),
        Normal::Pebbles {
            hooke,
            vessel_hooke,
            dash_pot,
        } => pebbles_stiffness(if wall { vessel_hooke } else { hooke }, dash_pot),
        Normal::Hooke => {
            // A5: k_t = k_n, g_t = g_n.
            let kn = hooke_stiffness(p.e_star, r_eff, m_eff, v_c);
            let gn = p
                .step
                .linear(kn, 2.0 * p.damping * (m_eff * kn).sqrt(), m_eff);
            Stiffness {
                kn,
                kt: kn,
                gn,
                gt: gn,
            }
        }
        Normal::Hertz | Normal::Flores => {
            let sqrt_r = r_eff.sqrt();
            let kn = 4.0 / 3.0 * p.e_star * sqrt_r;
            // A6: g_n = 2β √(5/6) √(3/2 M k_n) = tsuji_gn √(M √R), g_t likewise with k_t.
            let m_root = (m_eff * sqrt_r).sqrt();
            let gn = match model {
                Normal::Flores => flores_damping(kn, p.hunt_crossley, v0),
                _ => p.step.hertz(kn, p.tsuji_gn * m_root, m_eff, v0),
            };
            Stiffness {
                kn,
                kt: 8.0 * p.g_star * sqrt_r,
                gn,
                gt: p.tsuji_gt * m_root,
            }
        }
        Normal::Linear {
            kn,
            damping,
            kt,
            tangential_damping,
        } => linear_stiffness(
            kn,
            p.step.linear(kn, damping, m_eff),
            kt,
            tangential_damping,
        ),
    }
}

/// The constants the scene gives every contact of the linear spring–dashpot (003 eq 11–12,
/// 18–22): k_t = 2/7 k_n and no tangential damping unless given.
fn linear_stiffness(kn: f64, damping: f64, kt: Option<f64>, gt: Option<f64>) -> Stiffness {
    Stiffness {
        kn,
        kt: kt.unwrap_or(2.0 / 7.0 * kn),
        gn: damping,
        gt: gt.unwrap_or(0.0),
    }
}

/// The constants the scene gives every contact between two grains when they do not depend on
/// the pair: the linear spring–dashpot's (`linear_stiffness`) unless its damping is corrected
/// for the step (`corrected`: the correction depends on the pair's mass) and PEBBLES's (h of
/// two pebbles, C⊥; 001 eq 3.7). Hooke, Hertz and Flores resolve them from the pair's radii and
/// masses (Flores also from v₀): `None`. The pair loop then reads them from no history.
pub fn shared_stiffness(model: &Normal, corrected: bool) -> Option<Stiffness> {
    match *model {
        Normal::Linear {
            kn,
            damping,
            kt,
            tangential_damping,
        } if !corrected => Some(linear_stiffness(kn, damping, kt, tangential_damping)),
        Normal::Pebbles {
            hooke, dash_pot, ..
        } => Some(pebbles_stiffness(hooke, dash_pot)),
        Normal::None => Some(Stiffness::default()),
        Normal::Linear { .. } | Normal::Hooke | Normal::Hertz | Normal::Flores => None,
    }
}

/// PEBBLES's constants (001 eq 3.7): Hooke h and dashpot C⊥, no tangential spring (its
/// friction is [`super::Tangential::Pebbles`]).
fn pebbles_stiffness(hooke: f64, dash_pot: f64) -> Stiffness {
    Stiffness {
        kn: hooke,
        kt: 0.0,
        gn: dash_pot,
        gt: 0.0,
    }
}

/// Normal force of `model` with the contact's constants `s`, for overlap δ (m) growing at
/// δ̇ (m/s, > 0 when approaching), and the tangential stiffness and damping at this overlap.
#[inline]
pub fn normal_force(model: &Normal, s: &Stiffness, overlap: f64, overlap_rate: f64) -> NormalOut {
    let k = [s.kn, s.kt, s.gn, s.gt];
    force(model.form(), k, overlap, overlap_rate)
}

/// Normal force of the `form` with the contact's constants [k_n, k_t, g_n, g_t]
/// ([`Stiffness`]), for overlap δ (m) growing at δ̇ (m/s, > 0 when approaching), and the
/// tangential stiffness and damping at this overlap.
#[inline(always)]
pub fn force<R: Real>(form: Form, [kn, kt, gn, gt]: [R; 4], overlap: R, rate: R) -> NormalOut<R> {
    match form {
        // A5, 003 eq 18 and 001 eq 3.7: F_n = k_n δ + g_n δ̇.
        Form::Linear => NormalOut {
            force: kn * overlap + gn * rate,
            kt,
            gt,
        },
        Form::Hertz | Form::Flores => {
            let sqrt_d = overlap.sqrt();
            let q = sqrt_d.sqrt();
            let d32 = overlap * sqrt_d;
            // A6: F_n = k_n δ^{3/2} + g_n δ^{1/4} δ̇; A7 (eq 5): F_n = k_n δ^{3/2} + c_n δ^{3/2} δ̇.
            let damping = if form == Form::Flores {
                gn * d32
            } else {
                gn * q
            };
            NormalOut {
                force: kn * d32 + damping * rate,
                kt: kt * sqrt_d,
                gt: gt * q,
            }
        }
    }
}

/// Linear stiffness and damping that set the contact time of a pair (002 eq 27–29 use the
/// Hookean contact as the conservative estimate for every model, as 002 §5.2 does).
/// `wall` when body j is a wall.
pub fn linear_equivalent(
    model: &Normal,
    e_star: f64,
    e: f64,
    r_eff: f64,
    m_eff: f64,
    v_c: f64,
    wall: bool,
) -> (f64, f64) {
    match *model {
        Normal::None => (0.0, 0.0),
        Normal::Linear { kn, damping, .. } => (kn, damping),
        Normal::Pebbles {
            hooke,
            vessel_hooke,
            dash_pot,
        } => (if wall { vessel_hooke } else { hooke }, dash_pot),
        _ => {
            let kn = hooke_stiffness(e_star, r_eff, m_eff, v_c);
            (kn, hooke_damping(m_eff, kn, e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::restitution::hunt_crossley_damping;

    /// Constants and force in one go, as a contact forming at speed v0 sees them.
    #[allow(clippy::too_many_arguments)]
    fn force_of(
        m: &Normal,
        p: &PairParams,
        r: f64,
        mass: f64,
        d: f64,
        rate: f64,
        v_c: f64,
        v0: f64,
    ) -> NormalOut {
        normal_force(m, &stiffness(m, p, r, mass, v_c, v0, false), d, rate)
    }

    #[test]
    fn hooke_damping_matches_a5_form() {
        // A5 written literally: g_n = √(4 M k_n / (1 + (π / ln e)²)).
        for e in [0.05f64, 0.3, 0.64, 0.97] {
            let (m, k): (f64, f64) = (0.5, 1.2e4);
            let literal = (4.0 * m * k / (1.0 + (std::f64::consts::PI / e.ln()).powi(2))).sqrt();
            assert!((hooke_damping(m, k, e) - literal).abs() < 1e-9 * literal);
        }
        // e = 0 is critical damping 2 √(M k).
        assert!((hooke_damping(0.5, 1.2e4, 0.0) - 2.0 * 6.0e3f64.sqrt()).abs() < 1e-9);
        // e = 1 is no damping.
        assert_eq!(hooke_damping(0.5, 1.2e4, 1.0), 0.0);
    }

    #[test]
    fn hertz_static_force_is_kn_delta_three_halves() {
        // At rest (δ̇ = 0) the Hertz force is (4/3) Ē √R δ^{3/2}.
        let p = PairParams::new(2.0e5, 5.0e4, 0.5, [0.0; 3], 0.0);
        let out = force_of(&Normal::Hertz, &p, 0.25, 0.5, 1e-3, 0.0, 1.0, 1.0);
        let expected = 4.0 / 3.0 * 2.0e5 * 0.5 * 1e-3f64.powf(1.5);
        assert!((out.force - expected).abs() < 1e-12 * expected);
        assert!((out.kt - 8.0 * 5.0e4 * 0.5 * 1e-3f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn hertz_damping_matches_a6() {
        // A6: g_n = 2β √(5/6) √(3/2 M k_n), g_t = 2β √(5/6) √(M k_t), times δ^{1/4}.
        let (e, r, m, d, rate) = (0.7_f64, 0.25, 0.5, 1e-3_f64, 0.3);
        let p = PairParams::new(2.0e5, 5.0e4, e, [0.0; 3], 0.0);
        let out = force_of(&Normal::Hertz, &p, r, m, d, rate, 1.0, 1.0);
        let b = 2.0 * damping_factor(e) * (5.0f64 / 6.0).sqrt();
        let (kn, kt) = (hertz_stiffness(2.0e5, r), mindlin_stiffness(5.0e4, r));
        let gn = b * (1.5 * m * kn).sqrt() * d.powf(0.25);
        let expected = kn * d.powf(1.5) + gn * rate;
        assert!((out.force - expected).abs() < 1e-12 * expected);
        assert!((out.gt - b * (m * kt).sqrt() * d.powf(0.25)).abs() < 1e-12 * out.gt);
    }

    #[test]
    fn flores_damping_is_proportional_to_elastic_force() {
        // 002 eq 5: F = k δ^{3/2} (1 + c_n/k δ̇); with δ̇ = v₀ the factor is 1 + α.
        let e = 0.8;
        let p = PairParams::new(2.0e5, 5.0e4, e, [0.0; 3], 0.0);
        let out = force_of(&Normal::Flores, &p, 0.25, 0.5, 1e-3, 2.0, 1.0, 2.0);
        let elastic = hertz_stiffness(2.0e5, 0.25) * 1e-3f64.powf(1.5);
        let factor = 1.0 + hunt_crossley_damping(e);
        assert!((out.force - elastic * factor).abs() < 1e-12 * out.force);
    }

    #[test]
    fn hunt_crossley_damping_rebounds_with_e() {
        // The root of ln((1 + α)/(1 − e α)) = (1 + e) α (to 1e-9: 1 − e α is 2e-8 at e = 0.05);
        // near e = 1 it is Hunt and Crossley's 3/2 (1 − e). A head-on Flores impact
        // (M = 0.5 kg, k_n = 1e5 N/m^{3/2}, v₀ = 1 m/s) integrated with 2·10⁵ steps of
        // velocity Verlet rebounds with e to 1e-5.
        for e in [0.05f64, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99] {
            let a = hunt_crossley_damping(e);
            let residual = (a.ln_1p() - (-e * a).ln_1p()) / ((1.0 + e) * a) - 1.0;
            assert!(residual.abs() < 1e-9 && a < 1.0 / e, "e = {e}: α = {a}");
            let (m, kn, v0) = (0.5, 1e5, 1.0);
            let cn = flores_damping(kn, a, v0);
            let dt = 2.0 * (m * v0 * v0 / kn).powf(0.4) / v0 / 2e5;
            let (mut d, mut u, mut acc) = (0.0, v0, 0.0);
            loop {
                let half = u + 0.5 * dt * acc;
                d += dt * half;
                if d <= 0.0 {
                    u = half;
                    break;
                }
                acc = -force(Form::Flores, [kn, 0.0, cn, 0.0], d, half).force / m;
                u = half + 0.5 * dt * acc;
            }
            assert!((-u / v0 - e).abs() < 1e-5, "e = {e}: e' = {}", -u / v0);
        }
        assert!((hunt_crossley_damping(0.999) / (1.5 * 0.001) - 1.0).abs() < 2e-3);
        assert_eq!(hunt_crossley_damping(1.0), 0.0);
        assert_eq!(hunt_crossley_damping(0.0), f64::INFINITY);
    }

    #[test]
    fn linear_defaults_to_silbert_kt() {
        let m = Normal::Linear {
            kn: 9000.0,
            damping: 0.01,
            kt: None,
            tangential_damping: None,
        };
        let p = PairParams::new(1.0, 1.0, 0.5, [0.0; 3], 0.0);
        let out = force_of(&m, &p, 1e-3, 1e-5, 1e-6, 0.1, 1.0, 1.0);
        assert!((out.kt - 9000.0 * 2.0 / 7.0).abs() < 1e-12);
        assert!((out.force - (9000.0 * 1e-6 + 0.01 * 0.1)).abs() < 1e-15);
    }

    #[test]
    fn shared_constants_are_every_pairs() {
        // The linear spring–dashpot (003 eq 11–12, 18–22) and PEBBLES (001 eq 3.7) give every
        // grain pair the scene's constants, whatever its radii, masses and approach speed.
        let linear = Normal::Linear {
            kn: 2500.0,
            damping: 2.7e-3,
            kt: None,
            tangential_damping: Some(1.4e-3),
        };
        let pebbles = Normal::Pebbles {
            hooke: 3.0e5,
            vessel_hooke: 6.0e5,
            dash_pot: 0.2,
        };
        let p = PairParams::new(7e7, 2.8e7, 0.9, [0.5, 0.0, 0.0], 0.0);
        let expected = [
            (linear, [2500.0, 2.0 / 7.0 * 2500.0, 2.7e-3, 1.4e-3]),
            (pebbles, [3.0e5, 0.0, 0.2, 0.0]),
        ];
        for (model, [kn, kt, gn, gt]) in expected {
            let shared = shared_stiffness(&model, false).expect("given by the scene");
            assert_eq!(shared, Stiffness { kn, kt, gn, gt });
            for (r, m, v0) in [(1e-3, 1e-5, 0.1), (2.5e-4, 3e-8, 2.0), (1.0, 4.0, 1e-6)] {
                assert_eq!(stiffness(&model, &p, r, m, 1.0, v0, false), shared);
            }
        }
        // Hooke, Hertz and Flores resolve them from the pair: none shared.
        for model in [Normal::Hooke, Normal::Hertz, Normal::Flores] {
            assert_eq!(shared_stiffness(&model, false), None);
        }
    }
}
