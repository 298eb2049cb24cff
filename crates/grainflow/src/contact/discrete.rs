//! The restitution the soft-sphere step delivers at a given time step.
//!
//! The damping constants (Hooke's A5 and Tsuji's A6 of 002 from e through
//! ξ = −ln e / √(ln² e + π²), Flores's from e exactly, [`super::normal::hunt_crossley_damping`])
//! give the restitution e of the continuous-time contact. The step (velocity Verlet, 003 §2.1,
//! with the damping force on the half-step velocity) is a discrete map of the damped
//! oscillator. For a head-on contact of reduced mass M meeting at speed v₀, with δ the overlap
//! and u its rate,
//!
//!   u_{n+½} = u_n + ½dt a_n,   δ_{n+1} = δ_n + dt u_{n+½},
//!   a_{n+1} = −F(δ_{n+1}, u_{n+½}) / M while δ_{n+1} > 0 (else 0),   u_{n+1} = u_{n+½} + ½dt a_{n+1},
//!
//! with F the model's normal force ([`super::normal::force`]); the delivered e is the speed of
//! separation over v₀. Inside the contact the linear map has the roots
//! λ = √(1 − c) e^{±iθ}, c = g_n dt / M, cos θ = (2 − c − ω² dt²) / (2 √(1 − c)), which shift
//! the decay per step (a correction of the damping could absorb that); but the contact also
//! begins and ends between steps, and the last step of force, taken at an overlap anywhere in
//! [0, dt u), adds or withholds an impulse of order g_n dt u: the delivered e then depends on
//! where in its step the contact began, by ±c/2 of the separation speed. [`delivered`] runs
//! the map over the phases of first touch and gives the mean and the range; no damping constant
//! brings the whole range within a few per cent of e when c is not small (at dt = t_c/15, Hooke:
//! c = 0.31 for e = 0.1, delivered 0.057–0.084; c = 0.09 for e = 0.5, delivered 0.472–0.525).
//! Flores's damping c_n δ^{3/2} δ̇ vanishes at both ends of the contact, so its e hardly depends
//! on the phase (within 0.1 % of e at t_c/15 for e = 0.1 … 0.9).

use super::normal::{force, stiffness, Form};
use super::ContactModel;
use crate::material::{effective_mass, effective_radius, PairTable};
use crate::particles::Particles;

/// Phases of first touch within a step the delivered restitution is taken over.
pub const PHASES: usize = 64;

/// The restitution a step delivers, over the phases of first touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Delivered {
    /// Mean over the phases.
    pub mean: f64,
    /// Smallest.
    pub low: f64,
    /// Largest.
    pub high: f64,
}

/// The restitution delivered by the step `dt` (s) to a head-on contact of the normal `form`
/// with stiffness `kn` and damping `gn` (the model's units), reduced mass `m` (kg), meeting at
/// `v0` (m/s): the separation speed over v₀ for [`PHASES`] phases of first touch spread
/// evenly over a step.
pub fn delivered(form: Form, kn: f64, gn: f64, m: f64, v0: f64, dt: f64) -> Delivered {
    let mut out = Delivered {
        mean: 0.0,
        low: f64::INFINITY,
        high: 0.0,
    };
    for j in 0..PHASES {
        let e = delivered_at(form, kn, gn, m, v0, dt, (j as f64 + 0.5) / PHASES as f64);
        out.mean += e / PHASES as f64;
        out.low = out.low.min(e);
        out.high = out.high.max(e);
    }
    out
}

/// [`delivered`] for one phase: the gap closes at v₀ and is gone after the fraction `phi` of
/// the first step (the overlap after it is (1 − φ) v₀ dt).
pub fn delivered_at(form: Form, kn: f64, gn: f64, m: f64, v0: f64, dt: f64, phi: f64) -> f64 {
    let h = 0.5 * dt;
    let (mut delta, mut u, mut a) = (-phi * v0 * dt, v0, 0.0);
    let mut touched = false;
    for _ in 0..1_000_000 {
        let half = u + h * a;
        delta += dt * half;
        a = if delta > 0.0 {
            touched = true;
            -force(form, [kn, 0.0, gn, 0.0], delta, half).force / m
        } else {
            0.0
        };
        u = half + h * a;
        if touched && delta <= 0.0 {
            break;
        }
    }
    (-u / v0).max(0.0)
}

/// The restitution a step `dt` (s) delivers to the head-on contact of the smallest grains of
/// each pair of materials `(a, b)` present, meeting at the characteristic velocity: per pair
/// (a, b, the e asked for, what is delivered), for `grainflow check`.
pub fn for_pairs(
    model: &ContactModel,
    table: &PairTable,
    p: &Particles,
    dt: f64,
) -> Vec<(usize, usize, f64, Delivered)> {
    let mut smallest: Vec<Option<(f64, f64)>> = Vec::new();
    for k in 0..p.len() {
        let m = p.material[k] as usize;
        if smallest.len() <= m {
            smallest.resize(m + 1, None);
        }
        if smallest[m].is_none_or(|(r, _)| p.radius[k] < r) {
            smallest[m] = Some((p.radius[k], p.mass[k]));
        }
    }
    let v = model.characteristic_velocity;
    let mut out = Vec::new();
    for (a, sa) in smallest.iter().enumerate() {
        for (b, sb) in smallest.iter().enumerate().skip(a) {
            let (Some((ra, ma)), Some((rb, mb))) = (*sa, *sb) else {
                continue;
            };
            let (r, m) = (
                effective_radius(ra, Some(rb)),
                effective_mass(1.0 / ma, 1.0 / mb),
            );
            let pair = table.get(a, b);
            let s = stiffness(&model.normal, pair, r, m, v, v, false);
            out.push((
                a,
                b,
                pair.restitution,
                delivered(model.normal.form(), s.kn, s.gn, m, v, dt),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::normal::damping_factor;

    /// Hooke at dt = t_c/15 (k = M = 1, t_c = π / √(1 − ξ²)): the phases of first touch
    /// reproduce the head-on pair the soft step gives (0.0836 at the start of a step, 0.0575
    /// late in it for e = 0.1, as two spheres 2 cm apart closing at 1 m/s meet, measured
    /// through `Simulation`); at t_c/2000 the map is the continuous contact's e to 0.5 %.
    #[test]
    fn the_map_spreads_at_t_c_over_15_and_converges_as_dt_shrinks() {
        let hooke = |e: f64, per: f64| {
            let xi = damping_factor(e);
            let tc = std::f64::consts::PI / (1.0 - xi * xi).sqrt();
            delivered(Form::Linear, 1.0, 2.0 * xi, 1.0, 1.0, tc / per)
        };
        let d = hooke(0.1, 15.0);
        assert!(
            (d.low - 0.0569).abs() < 5e-4 && (d.high - 0.0836).abs() < 5e-4,
            "{d:?}"
        );
        for e in [0.1, 0.5, 0.9] {
            let fine = hooke(e, 2000.0);
            assert!((fine.mean - e).abs() < 5e-3 * e, "e = {e}: {fine:?}");
            assert!(fine.high - fine.low < 5e-3 * e, "e = {e}: {fine:?}");
        }
    }
}
