//! Materials and the pair table: per-material constants, mixed once per pair of materials.
//!
//! Effective modulus and shear modulus follow 002 Appendix A (A3, A4); effective radius and
//! mass (A1, A2) depend on the two bodies and are formed per contact. Restitution and the
//! friction and cohesion coefficients of two different materials take the smaller of the two
//! values (the default composition of CHRONO's SMC materials) unless the scene gives the pair
//! explicitly, as 002 Table 2 does for particle–wall contacts. Walls are materials too, so
//! particle–particle and particle–wall contacts read the same table (users.md row 6).

use serde::{Deserialize, Serialize};

use crate::contact::restitution::{damping_factor, hunt_crossley_damping, Correction};

/// One material as written in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Material {
    /// Name used to refer to the material from particles, walls and pairs.
    pub name: String,
    /// Density ρ (kg/m³); needed by materials that particles are made of.
    #[serde(default, deserialize_with = "crate::units::density")]
    pub density: Option<f64>,
    /// Young's modulus E (Pa); needed unless the scene has no contact law, as are the
    /// three below ([`Material::missing_elastic`]).
    #[serde(
        default = "unset",
        skip_serializing_if = "is_unset",
        deserialize_with = "crate::units::pressure"
    )]
    pub youngs_modulus: f64,
    /// Poisson's ratio ν (−), in (−1, 0.5).
    #[serde(default = "unset", skip_serializing_if = "is_unset")]
    pub poisson_ratio: f64,
    /// Normal coefficient of restitution e (−), in [0, 1].
    #[serde(default = "unset", skip_serializing_if = "is_unset")]
    pub restitution: f64,
    /// Sliding (Coulomb) friction coefficient μ_s (−), 002 eq 7.
    #[serde(default = "unset", skip_serializing_if = "is_unset")]
    pub sliding_friction: f64,
    /// Rolling friction coefficient μ_r (−), 002 eq 17.
    #[serde(default)]
    pub rolling_friction: f64,
    /// Spinning (twisting) friction coefficient μ_t (−), 002 eq 19.
    #[serde(default)]
    pub twisting_friction: f64,
    /// Tangential restitution ε_t ∈ [−1, 1] of hard-sphere collisions (000 eq 4): 1 keeps the
    /// tangential contact velocity (smooth spheres), 0 damps it, −1 reverses it.
    #[serde(default = "smooth")]
    pub tangential_restitution: f64,
    /// Cohesion strength; its meaning follows `contact.cohesion`: constant → C₁ (N, 002 eq 10),
    /// dmt → C₂ (N m^-½, eq 11), perko → cleanliness S (−, eq 14).
    #[serde(default)]
    pub cohesion: f64,
    /// An inner core of other density (001 eq 3.5–3.6); `density` is then the shell's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<crate::particles::Core>,
}

fn smooth() -> f64 {
    1.0
}

/// What an elastic constant left out of a scene reads: −1, which none of them may be (E > 0,
/// ν > −1, e ≥ 0, μ ≥ 0), so that a scene with a contact law is refused naming it, and a
/// scene without one writes it back out left out.
const UNSET: f64 = -1.0;

fn unset() -> f64 {
    UNSET
}

fn is_unset(v: &f64) -> bool {
    *v == UNSET
}

impl Material {
    /// The first of the constants a contact law needs that the scene left out.
    pub fn missing_elastic(&self) -> Option<&'static str> {
        [
            ("youngs_modulus", self.youngs_modulus),
            ("poisson_ratio", self.poisson_ratio),
            ("restitution", self.restitution),
            ("sliding_friction", self.sliding_friction),
        ]
        .into_iter()
        .find(|(_, v)| is_unset(v))
        .map(|(name, _)| name)
    }
}

/// Explicit values for one pair of materials, overriding the mixing rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct PairOverride {
    /// The two material names (order does not matter).
    pub materials: [String; 2],
    /// Restitution e of the pair.
    pub restitution: Option<f64>,
    /// Sliding friction μ_s of the pair.
    pub sliding_friction: Option<f64>,
    /// Rolling friction μ_r of the pair.
    pub rolling_friction: Option<f64>,
    /// Twisting friction μ_t of the pair.
    pub twisting_friction: Option<f64>,
    /// Cohesion strength of the pair (meaning as in [`Material::cohesion`]).
    pub cohesion: Option<f64>,
    /// Tangential restitution ε_t of the pair (hard spheres).
    pub tangential_restitution: Option<f64>,
}

/// Constants of one pair of materials, resolved once before the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairParams {
    /// Effective Young's modulus Ē (Pa), 002 eq A3.
    pub e_star: f64,
    /// Effective shear modulus Ḡ (Pa), 002 eq A4.
    pub g_star: f64,
    /// Restitution e (−).
    pub restitution: f64,
    /// Sliding friction μ_s (−).
    pub mu_s: f64,
    /// Rolling friction μ_r (−).
    pub mu_r: f64,
    /// Twisting friction μ_t (−).
    pub mu_t: f64,
    /// Cohesion strength (see [`Material::cohesion`]).
    pub cohesion: f64,
    /// Damping ratio factor β = −ln e / √(ln² e + π²) of the restitution (Tsuji et al. 1992).
    pub damping: f64,
    /// Hertz normal damping constant 2β √(5/6) √(2Ē): g_n = tsuji_gn √(M √R) (002 eq A6).
    pub tsuji_gn: f64,
    /// Hertz tangential damping constant 2β √(5/6) √(8Ḡ): g_t = tsuji_gt √(M √R) (002 eq A6).
    pub tsuji_gt: f64,
    /// Flores's damping χ v₀ that rebounds with e ([`hunt_crossley_damping`]).
    pub hunt_crossley: f64,
    /// Tangential restitution ε_t of hard-sphere collisions (000 eq 4).
    pub tangential_restitution: f64,
    /// The step's correction of the normal damping ([`Correction`]): none until
    /// [`PairTable::correct_for_step`].
    pub step: Correction,
}

impl PairParams {
    /// Pair constants from Ē, Ḡ (Pa), restitution and the friction and cohesion coefficients;
    /// the damping constants that depend only on these are formed here, once.
    pub fn new(e_star: f64, g_star: f64, restitution: f64, mu: [f64; 3], cohesion: f64) -> Self {
        let damping = damping_factor(restitution);
        let b = 2.0 * damping * (5.0f64 / 6.0).sqrt();
        PairParams {
            e_star,
            g_star,
            restitution,
            mu_s: mu[0],
            mu_r: mu[1],
            mu_t: mu[2],
            cohesion,
            damping,
            tsuji_gn: b * (2.0 * e_star).sqrt(),
            tsuji_gt: b * (8.0 * g_star).sqrt(),
            hunt_crossley: hunt_crossley_damping(restitution),
            tangential_restitution: 1.0,
            step: Correction::NONE,
        }
    }
}

/// Effective Young's modulus of two bodies, Ē = ((1−ν_i²)/E_i + (1−ν_j²)/E_j)⁻¹ (002 eq A3), Pa.
pub fn effective_modulus(a: &Material, b: &Material) -> f64 {
    1.0 / ((1.0 - a.poisson_ratio.powi(2)) / a.youngs_modulus
        + (1.0 - b.poisson_ratio.powi(2)) / b.youngs_modulus)
}

/// Effective shear modulus Ḡ = (2(2−ν_i)(1+ν_i)/E_i + 2(2−ν_j)(1+ν_j)/E_j)⁻¹ (Pa).
///
/// 002 eq A4 prints (2+ν)(1−ν); with G = E/(2(1+ν)) Mindlin's (2−ν)/G is 2(2−ν)(1+ν)/E,
/// the form Tsuji et al. (1992), which A6 cites, and LIGGGHTS use. We take that one.
pub fn effective_shear_modulus(a: &Material, b: &Material) -> f64 {
    let term =
        |m: &Material| 2.0 * (2.0 - m.poisson_ratio) * (1.0 + m.poisson_ratio) / m.youngs_modulus;
    1.0 / (term(a) + term(b))
}

/// Effective radius R = (1/r_i + 1/r_j)⁻¹ (002 eq A1), m; a wall has r_j = ∞, so R = r_i.
pub fn effective_radius(r_i: f64, r_j: Option<f64>) -> f64 {
    match r_j {
        Some(r_j) => r_i * r_j / (r_i + r_j),
        None => r_i,
    }
}

/// Effective mass M = (1/m_i + 1/m_j)⁻¹ (002 eq A2) from inverse masses (0 = immovable), kg.
/// Two immovable bodies have no effective mass; `f64::INFINITY` is returned.
pub fn effective_mass(inv_m_i: f64, inv_m_j: f64) -> f64 {
    1.0 / (inv_m_i + inv_m_j)
}

/// The resolved constants of every pair of materials, indexed by the two material indices.
#[derive(Clone, Debug, PartialEq)]
pub struct PairTable {
    n: usize,
    params: Vec<PairParams>,
    /// μ_s of every pair, in the same order: the one constant the pair loop reads per contact.
    sliding: Vec<f64>,
}

impl PairTable {
    /// Mixes every pair of `materials`, then applies `overrides` (already checked by the scene).
    pub fn new(materials: &[Material], overrides: &[(usize, usize, PairOverride)]) -> Self {
        let n = materials.len();
        let mut params = Vec::with_capacity(n * n);
        for (i, a) in materials.iter().enumerate() {
            for (j, b) in materials.iter().enumerate() {
                let o = overrides
                    .iter()
                    .rev()
                    .find(|(x, y, _)| (*x, *y) == (i, j) || (*x, *y) == (j, i))
                    .map(|(_, _, o)| o.clone())
                    .unwrap_or_default();
                let eps_t = o
                    .tangential_restitution
                    .unwrap_or(a.tangential_restitution.min(b.tangential_restitution));
                params.push(PairParams::new(
                    effective_modulus(a, b),
                    effective_shear_modulus(a, b),
                    o.restitution.unwrap_or(a.restitution.min(b.restitution)),
                    [
                        o.sliding_friction
                            .unwrap_or(a.sliding_friction.min(b.sliding_friction)),
                        o.rolling_friction
                            .unwrap_or(a.rolling_friction.min(b.rolling_friction)),
                        o.twisting_friction
                            .unwrap_or(a.twisting_friction.min(b.twisting_friction)),
                    ],
                    o.cohesion.unwrap_or(a.cohesion.min(b.cohesion)),
                ));
                if let Some(p) = params.last_mut() {
                    p.tangential_restitution = eps_t;
                }
            }
        }
        let sliding = params.iter().map(|p| p.mu_s).collect();
        PairTable { n, params, sliding }
    }

    /// Constants of materials `a` and `b`.
    #[inline]
    pub fn get(&self, a: usize, b: usize) -> &PairParams {
        &self.params[a * self.n + b]
    }

    /// Corrects every pair's normal damping for the integrator's step, once dt is fixed:
    /// `correction` gives the table for a pair's restitution ([`Correction::of`]).
    pub fn correct_for_step(&mut self, correction: impl Fn(f64) -> Correction) {
        for p in &mut self.params {
            p.step = correction(p.restitution);
        }
    }

    /// Whether the damping is corrected for the step ([`PairTable::correct_for_step`]).
    pub fn step_corrected(&self) -> bool {
        self.params.iter().any(|p| p.step.dt > 0.0)
    }

    /// Sliding friction μ_s of material `a` against each material, by index.
    #[inline]
    pub fn sliding(&self, a: usize) -> &[f64] {
        &self.sliding[a * self.n..(a + 1) * self.n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn material(name: &str, e: f64, nu: f64, rest: f64, mu: f64) -> Material {
        Material {
            name: name.into(),
            density: Some(2500.0),
            youngs_modulus: e,
            poisson_ratio: nu,
            restitution: rest,
            sliding_friction: mu,
            rolling_friction: 0.0,
            twisting_friction: 0.0,
            tangential_restitution: 1.0,
            cohesion: 0.0,
            core: None,
        }
    }

    #[test]
    fn effective_moduli_of_identical_materials() {
        // 002 Table 1: E = 0.5 MPa, ν = 0.3 → Ē = E / (2 (1 − ν²)) = 274 725.27 Pa,
        // Ḡ = E / (4 (2 − ν)(1 + ν)) = 56 561.09 Pa.
        let m = material("a", 0.5e6, 0.3, 0.5, 0.3);
        assert!((effective_modulus(&m, &m) - 0.5e6 / 1.82).abs() < 1e-9);
        assert!((effective_shear_modulus(&m, &m) - 0.5e6 / 8.84).abs() < 1e-9);
    }

    #[test]
    fn mixing_takes_the_smaller_value_and_overrides_win() {
        // 002 Table 2: glass–glass e = 0.97, μ = 0.16; glass–wall e = 0.82, μ = 0.45.
        let glass = material("glass", 70e6, 0.24, 0.97, 0.16);
        let wall = material("wall", 70e6, 0.24, 0.97, 0.16);
        let o = PairOverride {
            materials: ["glass".into(), "wall".into()],
            restitution: Some(0.82),
            sliding_friction: Some(0.45),
            ..Default::default()
        };
        let t = PairTable::new(&[glass.clone(), wall], &[(0, 1, o)]);
        assert_eq!(t.get(0, 0).restitution, 0.97);
        assert_eq!(t.get(0, 1).restitution, 0.82);
        assert_eq!(t.get(1, 0).mu_s, 0.45);
        let other = material("other", 1e6, 0.3, 0.5, 0.6);
        let t = PairTable::new(&[glass, other], &[]);
        assert_eq!(t.get(0, 1).restitution, 0.5);
        assert_eq!(t.get(1, 0).mu_s, 0.16);
    }

    #[test]
    fn effective_radius_and_mass() {
        assert_eq!(effective_radius(0.5, Some(0.5)), 0.25);
        assert_eq!(effective_radius(0.5, None), 0.5);
        assert_eq!(effective_mass(1.0, 1.0), 0.5);
        assert_eq!(effective_mass(1.0, 0.0), 1.0);
    }
}
