//! The restitution the soft-sphere step delivers at a given time step.
//!
//! The damping constants (Hooke's A5 and Tsuji's A6 of 002 from e through
//! ξ = −ln e / √(ln² e + π²), Flores's from e exactly, [`super::restitution::hunt_crossley_damping`])
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
//! the decay per step ([`Correction`] absorbs that, and the mean of what follows); but the contact also
//! begins and ends between steps, and the last step of force, taken at an overlap anywhere in
//! [0, dt u), adds or withholds an impulse of order g_n dt u: the delivered e then depends on
//! where in its step the contact began, by ±c/2 of the separation speed. [`delivered`] runs
//! the map over the phases of first touch and gives the mean and the range; no damping constant
//! brings the whole range within a few per cent of e when c is not small (at dt = t_c/15, Hooke's
//! constants of A5: c = 0.31 for e = 0.1, delivered 0.057–0.084, mean 0.073; c = 0.09 for
//! e = 0.5, delivered 0.472–0.525). [`Correction`] sets the mean on e (0.092–0.130 about 0.100
//! for e = 0.1).
//! Flores's damping c_n δ^{3/2} δ̇ vanishes at both ends of the contact, so its e hardly depends
//! on the phase (within 0.1 % of e at t_c/15 for e = 0.1 … 0.9).

use super::normal::{force, stiffness, Form, Normal};
use super::restitution::{damping_factor, Correction, NODES};
use super::ContactModel;
use crate::material::{effective_mass, effective_radius, PairTable};
use crate::particles::Particles;
use crate::timestep::MAX_FRACTION;
use rayon::prelude::*;

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
/// (a, b, the e asked for, what is delivered), for `grainflow check`; with the constants the
/// run takes (the damping corrected for the step where the table does, [`Correction`]), and for
/// the linear dashpot the e its damping implies for that pair.
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
            // The linear dashpot stands for the e of its ξ at this mass (003 eq 11–12).
            let e = match model.normal {
                Normal::Linear { kn, damping, .. } => continuous(damping / (2.0 * (m * kn).sqrt())),
                _ => pair.restitution,
            };
            out.push((
                a,
                b,
                e,
                delivered(model.normal.form(), s.kn, s.gn, m, v, dt),
            ));
        }
    }
    out
}

/// Impact speeds, in multiples of the characteristic velocity, Hertz's tables reach: the
/// step's ratio to a Hertz contact grows as v₀^{1/5}; faster impacts take the last node's ratio.
pub const HERTZ_SPEEDS: f64 = 5.0;

impl Correction {
    /// The table of the normal `model` for a pair with restitution `e` at the integrator's
    /// step `dt` (s); [`Correction::NONE`] for the models it does not apply to (Flores, whose
    /// damping vanishes at both ends of the contact; PEBBLES; none).
    pub fn of(model: &Normal, e: f64, dt: f64) -> Correction {
        let hooke_s = |xi: f64| std::f64::consts::PI * MAX_FRACTION / (1.0 - xi * xi).sqrt();
        match *model {
            Normal::Hooke if e > 0.0 && e < 1.0 => {
                let xi = damping_factor(e);
                Correction::table(Form::Linear, xi, dt, hooke_s(xi), |_| xi)
            }
            Normal::Hertz if e > 0.0 && e < 1.0 => {
                let beta = damping_factor(e);
                let s_max = hooke_s(beta) * 1.25f64.powf(0.4) * HERTZ_SPEEDS.powf(0.2);
                Correction::table(Form::Hertz, beta, dt, s_max, |_| beta)
            }
            Normal::Linear { kn, damping, .. } if damping > 0.0 && kn > 0.0 && dt > 0.0 => {
                // ξ = β s; the accepted steps reach s √(1 − ξ²) = π/10 (or ξ = 1, e = 0).
                let beta = damping / (2.0 * kn * dt);
                let x = std::f64::consts::PI * MAX_FRACTION;
                let d = 1.0 - 4.0 * beta * beta * x * x;
                let s_max = if d > 0.0 {
                    ((1.0 - d.sqrt()) / (2.0 * beta * beta)).sqrt()
                } else {
                    1.0 / beta
                };
                Correction::table(Form::Linear, -beta, dt, s_max, |s| beta * s)
            }
            _ => Correction::NONE,
        }
    }

    /// The table of `form` with damping ξ(s) (β(s) for Hertz) over s ∈ [0, s_max], `key`
    /// (the damping's constant) naming it among those made before: in contact units it does
    /// not depend on dt, and a run, a test suite or `check` make the same few many times.
    fn table(
        form: Form,
        key: f64,
        dt: f64,
        s_max: f64,
        xi: impl Fn(f64) -> f64 + Sync,
    ) -> Correction {
        if dt <= 0.0 || s_max <= 0.0 {
            return Correction::NONE;
        }
        type Made = Vec<((u8, u64), Correction)>;
        static MADE: std::sync::Mutex<Made> = std::sync::Mutex::new(Vec::new());
        let name = (form as u8, key.to_bits());
        let made = |m: &Made| m.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
        if let Some(c) = MADE.lock().ok().and_then(|m| made(&m)) {
            return Correction { dt, ..c };
        }
        let spacing = s_max / NODES as f64;
        let mut ratio = [1.0; NODES + 1];
        // Each node on its own (a pure function of s): the same bits on any thread count.
        ratio.par_iter_mut().enumerate().skip(1).for_each(|(k, r)| {
            let s = k as f64 * spacing;
            *r = node(form, xi(s), s, table_phases(k));
        });
        let c = Correction { dt, spacing, ratio };
        if let Ok(mut m) = MADE.lock() {
            if m.len() >= 64 {
                m.remove(0);
            }
            m.push((name, c));
        }
        c
    }
}

/// The continuous contact's restitution for damping ξ of the linear oscillator (Hertz: the e
/// Tsuji's β stands for), exp(−π ξ / √(1 − ξ²)); 0 when overdamped.
fn continuous(xi: f64) -> f64 {
    if xi >= 1.0 {
        0.0
    } else {
        (-std::f64::consts::PI * xi / (1.0 - xi * xi).sqrt()).exp()
    }
}

/// The damping the map's form in contact units (k_n = M = v₀ = 1) takes for ξ (β for Hertz).
fn units(form: Form, xi: f64) -> f64 {
    match form {
        Form::Hertz => 5f64.sqrt() * xi,
        Form::Linear | Form::Flores => 2.0 * xi,
    }
}

/// Phases of first touch the node k of a table takes the mean over: the phase-mean falls
/// with the damping in steps of the jump a phase makes as its last step of contact changes
/// (up to c/2 of e, [`delivered`], c ∝ s), so 16 + k phases keep those steps below 1/[`NODES`]
/// of the largest jump (the last node's) at every node, at a cost per node that does not grow as s shrinks.
fn table_phases(k: usize) -> usize {
    16 + k
}

/// The map's mean over `n` phases of first touch at step s (contact units) with damping ξ
/// (β for Hertz).
fn phase_mean(form: Form, xi: f64, s: f64, n: usize) -> f64 {
    let g = units(form, xi);
    let w = n as f64;
    (0..n)
        .map(|j| delivered_at(form, 1.0, g, 1.0, 1.0, s, (j as f64 + 0.5) / w))
        .sum::<f64>()
        / w
}

/// One node: the r with which the map at step s (contact units) delivers, in the mean over the
/// phases, the continuous e of ξ. The mean falls as r grows; bracketed and found
/// by regula falsi (Illinois), to 1e-7 of r (1e-7 of e). An e out of the map's reach takes the nearer end.
fn node(form: Form, xi: f64, s: f64, phases: usize) -> f64 {
    if xi <= 0.0 || xi >= 1.0 {
        return 1.0;
    }
    let target = continuous(xi);
    let f = |r: f64| phase_mean(form, r * xi, s, phases) - target;
    // The bracket starts at [0.85, 1.05], which holds every node of t_c/10 (0.89 … 1.004),
    // and widens by 0.1 to [0.5, 1.5]; its damping stays below 0.95 of critical, where e is
    // under 1e-4 (a damping near critical separates ever later, never when overdamped). The
    // linear map of (δ, u½) per step, [[1 − s², s(1 − c)], [−s, 1 − c]], c = 2ξ s, has complex
    // roots while its trace² < 4 det, i.e. while ξ < 1 − s/2: its own critical damping.
    let critical = match form {
        Form::Linear => 1.0 - 0.5 * s,
        Form::Hertz | Form::Flores => 1.0,
    };
    let top = 0.95 * critical / xi;
    let (mut lo, mut hi) = (0.85f64.min(top - 0.1), 1.05f64.min(top));
    let (mut f_lo, mut f_hi) = (f(lo), f(hi));
    while f_lo <= 0.0 && lo > 0.5 {
        (hi, f_hi) = (lo, f_lo);
        lo -= 0.1;
        f_lo = f(lo);
    }
    while f_hi >= 0.0 && hi < 1.5 && hi + 0.1 < top {
        (lo, f_lo) = (hi, f_hi);
        hi += 0.1;
        f_hi = f(hi);
    }
    if f_lo <= 0.0 {
        return lo;
    }
    if f_hi >= 0.0 {
        return hi;
    }
    // Illinois steps, and a halving whenever one did not shrink the bracket to half: the mean
    // is a staircase of `table_phases` small steps, where regula falsi alone can crawl.
    let mut side = 0;
    for _ in 0..60 {
        let width = hi - lo;
        if width < 1e-7 {
            break;
        }
        let mut r = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
        if !(r > lo && r < hi) {
            r = 0.5 * (lo + hi);
        }
        let fr = f(r);
        if fr > 0.0 {
            (lo, f_lo) = (r, fr);
            if side == 1 {
                f_hi *= 0.5;
            }
            side = 1;
        } else {
            (hi, f_hi) = (r, fr);
            if side == -1 {
                f_lo *= 0.5;
            }
            side = -1;
        }
        if hi - lo > 0.5 * width {
            let mid = 0.5 * (lo + hi);
            let fm = f(mid);
            if fm > 0.0 {
                (lo, f_lo) = (mid, fm);
            } else {
                (hi, f_hi) = (mid, fm);
            }
            side = 0;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::restitution::damping_factor;

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

    /// The tables give no correction as the step vanishes (r = 1 at s = 0, within 0.5 % at the
    /// first node, s_max/128), and, between their nodes, the e of the continuous contact in
    /// the mean over the phases: within 0.9 % for e = 0.1, 0.3 % for e = 0.5 (the phase-mean
    /// turns at each s where a contact gains a step, which linear interpolation cuts short),
    /// for Hooke and Hertz; the linear dashpot's table is Hooke's at its own ξ = β s.
    #[test]
    fn the_tables_deliver_the_continuous_e_between_their_nodes() {
        for (e, within) in [(0.1, 9e-3), (0.5, 3e-3)] {
            let xi = damping_factor(e);
            for (model, form) in [(Normal::Hooke, Form::Linear), (Normal::Hertz, Form::Hertz)] {
                let c = Correction::of(&model, e, 1.0);
                assert_eq!(c.at(0.0), 1.0);
                assert!((c.at(c.spacing) - 1.0).abs() < 5e-3, "{model:?} e = {e}");
                for k in 0..NODES {
                    let s = (k as f64 + 0.5) * c.spacing;
                    let m = phase_mean(form, xi * c.at(s), s, 256);
                    assert!(
                        (m / e - 1.0).abs() < within,
                        "{model:?} e = {e}, s = {s}: {m}"
                    );
                }
            }
        }
        // A linear dashpot whose ξ is Hooke's e = 0.5 at s = 0.2 (k_n = M = 1, dt = 0.2).
        let xi = damping_factor(0.5);
        let linear = Normal::Linear {
            kn: 1.0,
            damping: 2.0 * xi,
            kt: None,
            tangential_damping: None,
        };
        let c = Correction::of(&linear, 0.0, 0.2);
        let m = phase_mean(Form::Linear, c.linear(1.0, 2.0 * xi, 1.0) / 2.0, 0.2, 256);
        assert!((m / 0.5 - 1.0).abs() < 2e-3, "{m}");
        // Flores and PEBBLES are not corrected.
        assert_eq!(Correction::of(&Normal::Flores, 0.5, 1.0), Correction::NONE);
    }
}
