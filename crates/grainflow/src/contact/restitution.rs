//! From a restitution to the damping that gives it: Tsuji's damping ratio (002 A5, A6), the
//! Hunt–Crossley damping of Flores's law (002 eq 5–6, solved exactly), and the step's
//! correction of the normal damping ([`Correction`], whose tables `super::discrete` computes).
//! Pure functions of e and a table: the pair constants of [`crate::material`] are formed from
//! them without reaching the contact laws.

/// Damping ratio factor −ln e / √(ln² e + π²) of a restitution e ∈ [0, 1] (Tsuji et al. 1992).
/// e = 0 gives its limit 1 (critical damping of the linear oscillator).
pub fn damping_factor(e: f64) -> f64 {
    if e <= 0.0 {
        1.0
    } else {
        let l = e.ln();
        -l / (l * l + std::f64::consts::PI.powi(2)).sqrt()
    }
}

/// The damping χ v₀ (dimensionless) that makes the Hunt–Crossley force
/// F = k_n δ^p (1 + χ δ̇) rebound a head-on impact at v₀ with restitution e ∈ (0, 1): the root
/// α ∈ (0, 1/e) of ln((1 + α)/(1 − e α)) = (1 + e) α.
///
/// Our derivation: with u = δ̇, M u du/dδ = −k_n δ^p (1 + χ u) separates into
/// M u du / (1 + χ u) = −k_n δ^p dδ. Over the whole contact δ goes from 0 back to 0, so the
/// right side integrates to zero and ∫ from v₀ to −e v₀ of u/(1 + χ u) du = 0, which with
/// ∫ u/(1 + χ u) du = u/χ − ln(1 + χ u)/χ² is the equation above (for any p). For e → 1,
/// α → 3/2 (1 − e), Hunt and Crossley's value; Flores et al.'s 8/5 (1 − e)/e (002 eq 6) is
/// another approximation, which rebounds with 0.069 for e = 0.1 and 0.470 for e = 0.5.
/// e ≥ 1 gives 0 and e ≤ 0 infinity (Flores needs e > 0).
pub fn hunt_crossley_damping(e: f64) -> f64 {
    if e >= 1.0 {
        return 0.0;
    }
    if e <= 0.0 {
        return f64::INFINITY;
    }
    // f(α) = ln(1 + α) − ln(1 − e α) − (1 + e) α is < 0 on (0, α*) and > 0 on (α*, 1/e)
    // (f(0) = f'(0) = 0, f''(0) = e² − 1 < 0, f → ∞ at 1/e): bisection to the last bit.
    let f = |a: f64| a.ln_1p() - (-e * a).ln_1p() - (1.0 + e) * a;
    let (mut lo, mut hi) = (0.0, 1.0 / e);
    loop {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            return hi;
        }
        if f(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
}

/// Intervals of a [`Correction`] table.
pub const NODES: usize = 128;

/// The step's correction of a contact's normal damping: the factor ξ′/ξ on g_n that makes the
/// phase-mean restitution of [`super::discrete::delivered`] equal the e of the continuous contact.
///
/// Our derivation. In units of the contact (k_n = M = v₀ = 1) the head-on map of [`delivered`]
/// has two parameters: the damping and the step s in the contact's own time,
/// * Hooke (002 A5), linear (003 eq 11–12): s = dt √(k_n / M) = ω dt, damping ξ = g_n / (2 √(M k_n));
/// * Hertz with Tsuji's damping (002 A6): s = dt / t*, t* = (M / k_n)^{2/5} v₀^{−1/5}, the
///   time to cross the overlap scale δ* = (M v₀² / k_n)^{2/5} at v₀; there
///   M δ̈ = −k_n δ^{3/2} − g_n δ^{1/4} δ̇ becomes ÿ = −y^{3/2} − √5 β y^{1/4} ẏ with
///   g_n = 2β √(5/6) √(3/2 M k_n) (A6): β alone, whatever M, R and v₀.
///
/// For Hooke ξ is the pair's (from e), for Hertz β, and for the linear dashpot, whose g_n is
/// given, ξ = β s with β = g_n / (2 k_n dt). The table holds, at s = 0, s₁, … s_max, the factor
/// r with which the map's mean over the phases of first touch ([`super::discrete::delivered`]) is the e of the
/// continuous contact, e = exp(−π ξ / √(1 − ξ²)) (the e asked for, for Hooke; the e the given
/// dashpot implies, for linear; for Hertz the e asked for, which Tsuji's constant gives the
/// continuous contact as closely as Hooke's constant does: the map at s = 0.002 gives
/// 0.0999 for e = 0.1 with either), found by root finding (`discrete::node`, [`Correction::of`]):
/// the mean falls as the damping grows. r(0) = 1: a fine step needs no correction. A contact
/// takes r at its own s, interpolated linearly between the nodes. s_max is the step's largest
/// ratio to a contact the scene accepts, dt = t_c/10 (002 §5.2, t_c = π / (ω √(1 − ξ²)), eq 27),
/// for Hertz at impacts up to [`HERTZ_SPEEDS`] v_c (dt / t* = (5/4)^{2/5} dt ω_Hooke at v_c,
/// ω_Hooke² = k_n/M of A5, whose t_c bounds the step); beyond it the last node's r is taken.
/// Not a tuned factor: computed from the map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Correction {
    /// The integrator's step (s) the table is for; 0 for no correction.
    pub dt: f64,
    /// The spacing of the nodes in s.
    pub(super) spacing: f64,
    /// r = ξ′/ξ (β′/β for Hertz) at s = k × spacing.
    pub(super) ratio: [f64; NODES + 1],
}

impl Correction {
    /// No correction: r = 1 everywhere.
    pub const NONE: Correction = Correction {
        dt: 0.0,
        spacing: 1.0,
        ratio: [1.0; NODES + 1],
    };

    /// The factor r at the step's ratio s to the contact (see [`Correction`]).
    #[inline]
    pub fn at(&self, s: f64) -> f64 {
        let u = (s / self.spacing).clamp(0.0, NODES as f64);
        let k = (u as usize).min(NODES - 1);
        let f = u - k as f64;
        self.ratio[k] + f * (self.ratio[k + 1] - self.ratio[k])
    }

    /// The corrected g_n of a linear-form contact (Hooke, linear) with stiffness `kn` (N/m),
    /// damping `gn` (N s/m) and reduced mass `m` (kg).
    #[inline]
    pub fn linear(&self, kn: f64, gn: f64, m: f64) -> f64 {
        if self.dt == 0.0 {
            return gn;
        }
        gn * self.at(self.dt * (kn / m).sqrt())
    }

    /// The corrected g_n of a Hertz contact with stiffness `kn` (N/m^{3/2}), damping `gn`,
    /// reduced mass `m` (kg), meeting at `v0` (m/s).
    #[inline]
    pub fn hertz(&self, kn: f64, gn: f64, m: f64, v0: f64) -> f64 {
        if self.dt == 0.0 {
            return gn;
        }
        gn * self.at(self.dt * (kn / m).powf(0.4) * v0.powf(0.2))
    }
}
