//! Cohesion between touching bodies, along the contact normal (002 §3.3).
//!
//! * constant (eq 10): F_c = C₁;
//! * DMT (eq 11–12): F_c = C₂ √R with R the effective radius;
//! * Perko, Nelson & Sadeh 2001 van der Waals (eq 13–14): F_c = A S² / (48 Ω²) R, with the
//!   Hamaker constant A (J), the separation Ω (m) and the cleanliness S; eq 15 is its lunar
//!   special case A = 4.3e-20 J, Ω = 1.5e-10 m.
//!
//! The magnitude returned is attractive; it acts only while the bodies overlap.

use serde::{Deserialize, Serialize};

use super::real::Real;

/// The cohesion slot. The per-pair strength comes from the materials' `cohesion` value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Cohesion {
    /// No cohesion.
    #[default]
    None,
    /// Constant force C₁ (N) = the pair's cohesion value (002 eq 10).
    Constant,
    /// DMT, C₂ √R with C₂ (N m^-½) = the pair's cohesion value (002 eq 11–12).
    Dmt,
    /// Perko van der Waals with S = the pair's cohesion value (002 eq 13–14).
    Perko {
        /// Hamaker constant A (J); 4.3e-20 for lunar regolith (002 §3.3).
        #[serde(deserialize_with = "crate::units::energy")]
        hamaker: f64,
        /// Inter-particle separation Ω (m); 1.5e-10 for lunar regolith.
        #[serde(deserialize_with = "crate::units::length")]
        separation: f64,
    },
}

/// Attractive cohesive force magnitude (N) for the pair strength `c` and effective radius R (m).
#[inline(always)]
pub fn cohesion_force<R: Real>(model: &Cohesion, c: R, r_eff: R) -> R {
    match *model {
        Cohesion::None => R::default(),
        Cohesion::Constant => c,
        Cohesion::Dmt => c * r_eff.sqrt(),
        Cohesion::Perko {
            hamaker,
            separation,
        } => R::splat(hamaker) * c * c / R::splat(48.0 * separation * separation) * r_eff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perko_with_lunar_constants_is_close_to_eq_15() {
        // eq 15 gives 3.6e-2 N/m where A/(48 Ω²) = 4.3e-20 / (48 · 2.25e-20) = 0.0398 N/m,
        // about 10 % apart: the seed's simplification, not a rounding.
        let m = Cohesion::Perko {
            hamaker: 4.3e-20,
            separation: 1.5e-10,
        };
        let f = cohesion_force(&m, 0.8, 1e-3);
        assert!((f - 4.3e-20 / (48.0 * 2.25e-20) * 0.64 * 1e-3).abs() < 1e-18);
        assert!((f / (3.6e-2 * 0.64 * 1e-3) - 1.0).abs() < 0.11);
    }

    #[test]
    fn constant_and_dmt() {
        assert_eq!(cohesion_force(&Cohesion::Constant, 10.0, 0.25), 10.0);
        assert_eq!(cohesion_force(&Cohesion::Dmt, 2.0, 0.25), 1.0);
        assert_eq!(cohesion_force(&Cohesion::None, 2.0, 0.25), 0.0);
    }
}
