//! Integrators of the soft-sphere method besides velocity Verlet (001 §3.3).
//!
//! PEBBLES writes the whole state — positions, velocities, angular velocities and the slips of
//! the contacts — as one vector y with y′ = f(t, y) (eq 3.15–3.16) and solves it with Euler's
//! method (eq 3.17), Runge–Kutta or Adams methods. Here f is one force evaluation
//! ([`SoftStepper::compute_forces`] with dt = 0, which leaves slips to the integrator): ẋ = v,
//! v̇ = F/m, ω̇ = T/I, and for contacts in rate form (PEBBLES friction) ṡ = the rate the
//! contact law stored.
//!
//! * `euler`: y_{n+1} = y_n + dt f(t_n, y_n) (eq 3.17); one evaluation per step. The slip's
//!   Euler step is taken by the contact law itself right after its force (as for Verlet).
//! * `runge_kutta`: the classical fourth-order method; four evaluations per step (the last
//!   one, at y_{n+1}, is also the first stage of the next step).
//! * `adams_bashforth`: four-step Adams–Bashforth, its history filled by three Runge–Kutta
//!   steps (so that the fourth order is kept); one evaluation per step after that.
//! * `adams_moulton`: predictor–corrector (PECE): Adams–Bashforth predicts, the Adams–Moulton
//!   formula of the same number of steps (fourth order at most) corrects; two evaluations.
//!
//! **Limits.** Runge–Kutta and Adams need every slot with history in rate form (tangential
//! `pebbles` or `none`, no rolling or twisting resistance: those integrate inside the force
//! with dt). A contact that forms during a step starts with zero slip and no past rates; the
//! Adams formulas use, per contact, only as many past rates as it has lived steps (so a young
//! contact's slip is integrated at lower order). The particles' Adams history restarts (three
//! Runge–Kutta steps) when particles are added or removed, and after a resume from a
//! checkpoint: Euler and Runge–Kutta resume bit for bit, Adams runs do not.
//! Forces are bit-identical for any thread count, as for Verlet.

use glam::DVec3;
use rayon::prelude::*;

use crate::contact::ContactState;
use crate::particles::MIN_LEN;
use crate::physics::Physics;
use crate::scene::{Integrator, SoftOptions};
use crate::soft::{self, ContactStats, SoftStepper};
use crate::world::World;
use crate::Result;

/// The particles' share of the integrator state: the state at the start of the step and the
/// derivatives of past steps or stages, reused from step to step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntegratorWork {
    /// (x, v, ω) at the start of the step.
    base: Vec<[DVec3; 3]>,
    /// Runge–Kutta: Σ b_i k_i of (ẋ, v̇, ω̇).
    sum: Vec<[DVec3; 3]>,
    /// Adams: (ẋ, v̇, ω̇) of the steps n−1, n−2, n−3 (most recent first).
    past: Vec<[[DVec3; 3]; 3]>,
    /// Adams: steps of history the particles have (0 to 3).
    history: usize,
    /// The increment of the state for the next stage or step.
    dy: Vec<[DVec3; 3]>,
}

impl IntegratorWork {
    /// Puts the per-particle entries in `order` (as [`crate::particles::Particles::permute`]).
    pub(crate) fn permute(&mut self, order: &[usize]) {
        use crate::particles::permute;
        permute(&mut self.base, order);
        permute(&mut self.sum, order);
        permute(&mut self.past, order);
        permute(&mut self.dy, order);
    }
}

/// Adams–Bashforth coefficients of the k-step formula (k = 1…4), most recent rate first.
const AB: [&[f64]; 4] = [
    &[1.0],
    &[1.5, -0.5],
    &[23.0 / 12.0, -16.0 / 12.0, 5.0 / 12.0],
    &[55.0 / 24.0, -59.0 / 24.0, 37.0 / 24.0, -9.0 / 24.0],
];

/// Adams–Moulton coefficients (f_{n+1} first, then f_n, f_{n−1}, …) paired with AB_k: the
/// trapezoid for k = 1, the two-step formula for k = 2, the three-step (fourth-order) one
/// for k ≥ 3.
const AM: [&[f64]; 4] = [
    &[0.5, 0.5],
    &[5.0 / 12.0, 8.0 / 12.0, -1.0 / 12.0],
    &[9.0 / 24.0, 19.0 / 24.0, -5.0 / 24.0, 1.0 / 24.0],
    &[9.0 / 24.0, 19.0 / 24.0, -5.0 / 24.0, 1.0 / 24.0],
];

/// The derivative of particle k's state at the last evaluation: (v, F/m, T/I).
#[inline]
fn derivative(world: &World, k: usize) -> [DVec3; 3] {
    let p = &world.particles;
    [
        p.vel[k],
        p.force[k] * p.inv_mass[k],
        p.torque[k] * p.inv_inertia[k],
    ]
}

/// Every contact history of the world (pairs, then walls), mutably, in parallel.
fn for_each_contact(world: &mut World, f: impl Fn(&mut ContactState) + Sync + Send) {
    let nl = &mut world.neighbors;
    nl.slip
        .par_iter_mut()
        .zip(nl.formed.par_iter_mut())
        .zip(nl.extra.par_iter_mut())
        .with_min_len(MIN_LEN)
        .for_each(|((slip, formed), extra)| {
            let mut state = ContactState::joined(slip, formed, extra.take());
            f(&mut state);
            (*slip, *formed, *extra) = state.split();
        });
    world.wall_history.for_each_mut(&f);
}

/// Sets every particle's state to base + Σ weights · rates (one (ẋ, v̇, ω̇) triple per rate).
fn set_state(world: &mut World, physics: &Physics, base: &[[DVec3; 3]], dy: &[[DVec3; 3]]) {
    let periodic = &physics.periodic;
    let p = &mut world.particles;
    p.pos
        .par_iter_mut()
        .zip(p.vel.par_iter_mut())
        .zip(p.omega.par_iter_mut())
        .zip(base.par_iter().zip(dy.par_iter()))
        .with_min_len(MIN_LEN)
        .for_each(|(((x, v), w), (b, d))| {
            *x = periodic.wrap(b[0] + d[0]);
            *v = b[1] + d[1];
            *w = b[2] + d[2];
        });
}

/// Advances the world by one step of `physics.dt` with the stepper's integrator, taken as
/// `substeps` steps of dt / substeps; stops at the first sub-step that goes unstable.
pub fn step(world: &mut World, physics: &Physics, s: &mut SoftStepper) -> Result<ContactStats> {
    let SoftOptions {
        integrator,
        substeps,
    } = s.options;
    let h = physics.dt / f64::from(substeps);
    let mut stats = ContactStats::default();
    for _ in 0..substeps {
        stats = match integrator {
            Integrator::VelocityVerlet => soft::step(world, physics, s, h),
            Integrator::Euler => euler(world, physics, s, h),
            Integrator::RungeKutta | Integrator::AdamsBashforth | Integrator::AdamsMoulton => {
                let mut work = std::mem::take(&mut s.integrator);
                let stats = match integrator {
                    Integrator::RungeKutta => runge_kutta(world, physics, s, &mut work, h),
                    m => adams(
                        world,
                        physics,
                        s,
                        &mut work,
                        m == Integrator::AdamsMoulton,
                        h,
                    ),
                };
                s.integrator = work;
                stats
            }
        };
        soft::check_stability(world, physics, &stats)?;
    }
    world.step += 1;
    Ok(stats)
}

/// Fewest Euler steps (eq 3.17) per `dt` that keep a linear contact mode
/// ẍ + γẋ + ω²x = 0 from growing: Euler's amplification λ² − (2 − γh)λ + (1 − γh + ω²h²) has
/// both roots inside the unit circle (Jury's conditions) when ω²h² < γh, γh − ω²h² < 2 and
/// 4 − 2γh + ω²h² > 0, at h = dt / n. With ω > 0 and γ = 0 no step is stable (Euler's growth
/// factor is √(1 + ω²h²)); then 1 is returned and the caller must not rely on it.
pub fn euler_substeps(dt: f64, gamma: f64, omega2: f64) -> u32 {
    let stable = |h: f64| {
        let (g, w) = (gamma * h, omega2 * h * h);
        (w < g || omega2 == 0.0) && g - w < 2.0 && 4.0 - 2.0 * g + w > 0.0
    };
    if gamma <= 0.0 {
        return 1;
    }
    (1..=1_000_000)
        .find(|&n| stable(dt / f64::from(n)))
        .unwrap_or(1)
}

/// Euler's method (001 eq 3.17): every variable advanced with its derivative at t_n.
fn euler(world: &mut World, physics: &Physics, s: &mut SoftStepper, dt: f64) -> ContactStats {
    let periodic = &physics.periodic;
    let p = &mut world.particles;
    // x first, with the old v: the same arithmetic as y_n + dt f(y_n) of the other methods.
    p.pos
        .par_iter_mut()
        .zip(p.vel.par_iter_mut())
        .zip(p.force.par_iter().zip(p.inv_mass.par_iter()))
        .with_min_len(MIN_LEN)
        .for_each(|((x, v), (f, im))| {
            *x = periodic.wrap(*x + *v * dt);
            *v += *f * *im * dt;
        });
    p.omega
        .par_iter_mut()
        .zip(p.torque.par_iter().zip(p.inv_inertia.par_iter()))
        .with_min_len(MIN_LEN)
        .for_each(|(w, (t, ii))| *w += *t * *ii * dt);
    world.time += dt;
    // The contact law advances each slip by dt · ṡ after its force (eq 3.17 for s).
    s.compute_forces(world, physics, dt)
}

/// Classical Runge–Kutta: stages at c = 0, ½, ½, 1 with weights 1/6, 1/3, 1/3, 1/6. The
/// forces at the start of the step are those of the last evaluation (at y_n). Contact slips
/// use `scratch[0]` (s_n) and `scratch[4]` (Σ b_i k_i).
fn runge_kutta(
    world: &mut World,
    physics: &Physics,
    stepper: &mut SoftStepper,
    work: &mut IntegratorWork,
    h: f64,
) -> ContactStats {
    const C: [f64; 4] = [0.0, 0.5, 0.5, 1.0];
    const B: [f64; 4] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];
    let t0 = world.time;
    let n = world.particles.len();
    let p = &world.particles;
    work.base.clear();
    work.base
        .extend((0..n).map(|k| [p.pos[k], p.vel[k], p.omega[k]]));
    work.sum.clear();
    work.sum.resize(n, [DVec3::ZERO; 3]);
    for_each_contact(world, |s| {
        let slip = s.slip;
        let x = &mut s.extra().scratch;
        x[0] = slip;
        x[4] = DVec3::ZERO;
    });
    let mut dy = std::mem::take(&mut work.dy);
    dy.clear();
    dy.resize(n, [DVec3::ZERO; 3]);
    for stage in 0..4 {
        if stage > 0 {
            world.time = t0 + C[stage] * h;
            stepper.compute_forces(world, physics, 0.0);
        }
        // k_i: accumulate b_i k_i, and form the next stage's increment c_{i+1} h k_i.
        let next = if stage < 3 { C[stage + 1] * h } else { 0.0 };
        let b = B[stage];
        for (k, (dy, sum)) in dy.iter_mut().zip(work.sum.iter_mut()).enumerate() {
            let d = derivative(world, k);
            for a in 0..3 {
                sum[a] += b * d[a];
                dy[a] = next * d[a];
            }
        }
        if stage < 3 {
            set_state(world, physics, &work.base, &dy);
            for_each_contact(world, |s| {
                let e = s.extra();
                e.scratch[4] += b * e.rate;
                s.slip = e.scratch[0] + next * e.rate;
            });
        } else {
            for_each_contact(world, |s| {
                let e = s.extra();
                e.scratch[4] += b * e.rate;
            });
        }
    }
    for (d, s) in dy.iter_mut().zip(&work.sum) {
        *d = s.map(|v| v * h);
    }
    set_state(world, physics, &work.base, &dy);
    work.dy = dy;
    for_each_contact(world, |s| {
        let x = &s.extra().scratch;
        s.slip = x[0] + h * x[4];
    });
    world.time = t0 + h;
    stepper.compute_forces(world, physics, 0.0)
}

/// Adams–Bashforth (`moulton` false) or Adams–Bashforth–Moulton PECE (`moulton` true). The
/// first three steps are Runge–Kutta steps that fill the history, so that the four-step
/// formulas keep their order. Contacts keep [s_n, f_{n−1}, f_{n−2}, f_{n−3}] in `scratch`.
fn adams(
    world: &mut World,
    physics: &Physics,
    stepper: &mut SoftStepper,
    work: &mut IntegratorWork,
    moulton: bool,
    h: f64,
) -> ContactStats {
    let n = world.particles.len();
    if work.past.len() != n {
        work.past = vec![[[DVec3::ZERO; 3]; 3]; n];
        work.history = 0;
    }
    // The history shifted: particles' past = [f_n, f_{n−1}, f_{n−2}], contacts' likewise.
    let steps = work.history + 1;
    let ab = AB[steps - 1];
    let mut dy = std::mem::take(&mut work.dy);
    dy.clear();
    dy.resize(n, [DVec3::ZERO; 3]);
    for (k, (dy, past)) in dy.iter_mut().zip(work.past.iter_mut()).enumerate() {
        let f_n = derivative(world, k);
        for a in 0..3 {
            let mut d = ab[0] * f_n[a];
            for (j, beta) in ab.iter().enumerate().skip(1) {
                d += beta * past[j - 1][a];
            }
            dy[a] = h * d;
        }
        *past = [f_n, past[0], past[1]];
    }
    let predict = work.history >= 3;
    for_each_contact(world, |s| {
        let slip = s.slip;
        let e = s.extra();
        let k = (e.age as usize + 1).min(steps);
        let ab = AB[k - 1];
        let mut d = ab[0] * e.rate;
        let x = &mut e.scratch;
        for (j, beta) in ab.iter().enumerate().skip(1) {
            d += beta * x[j];
        }
        x[3] = x[2];
        x[2] = x[1];
        x[1] = e.rate;
        x[0] = slip;
        if predict {
            s.slip += h * d;
        }
    });
    let stats = if !predict {
        runge_kutta(world, physics, stepper, work, h)
    } else {
        let p = &world.particles;
        work.base.clear();
        work.base
            .extend((0..n).map(|k| [p.pos[k], p.vel[k], p.omega[k]]));
        set_state(world, physics, &work.base, &dy);
        world.time += h;
        if moulton {
            // Evaluate at the prediction, then correct: y_n + h (β* f* + Σ β_j f_{n−j}).
            stepper.compute_forces(world, physics, 0.0);
            let am = AM[steps - 1];
            for (k, (dy, past)) in dy.iter_mut().zip(&work.past).enumerate() {
                let f_star = derivative(world, k);
                for a in 0..3 {
                    let mut d = am[0] * f_star[a];
                    for (j, beta) in am.iter().enumerate().skip(1) {
                        d += beta * past[j - 1][a];
                    }
                    dy[a] = h * d;
                }
            }
            set_state(world, physics, &work.base, &dy);
            for_each_contact(world, |s| {
                let e = s.extra();
                let k = (e.age as usize + 1).min(steps);
                let am = AM[k - 1];
                let mut d = am[0] * e.rate;
                for (j, beta) in am.iter().enumerate().skip(1) {
                    d += beta * e.scratch[j];
                }
                s.slip = e.scratch[0] + h * d;
            });
        }
        stepper.compute_forces(world, physics, 0.0)
    };
    work.dy = dy;
    for_each_contact(world, |s| {
        let e = s.extra();
        e.age = e.age.saturating_add(1);
    });
    work.history = (work.history + 1).min(3);
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adams_coefficients_sum_to_one() {
        // Consistency: every Adams formula integrates ẏ = 1 exactly.
        for c in AB.iter().chain(AM.iter()) {
            assert!((c.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        }
    }

    /// |x| + |v|/ω (or |v|/γ) after `steps` Euler steps of ẍ + γẋ + ω²x = 0 from x = 1.
    fn euler_amplitude(gamma: f64, omega2: f64, h: f64, steps: usize) -> f64 {
        let (mut x, mut v) = (1.0f64, 0.0f64);
        for _ in 0..steps {
            (x, v) = (x + h * v, v - h * (gamma * v + omega2 * x));
        }
        x.abs() + v.abs() / omega2.sqrt().max(gamma)
    }

    #[test]
    fn euler_substeps_is_the_fewest_that_decay() {
        // Jury's conditions against the iteration itself: at dt/n a mode decays, at dt/(n−1)
        // it grows, for damping-dominated, spring-dominated and mixed modes (the pebble
        // samples' tangential pair mode is γ = 39 500 /s, ω² = 1.98e8 /s² at dt = 1e-4 s; a
        // pebble caged by twelve has about four times its pair's normal γ and ω²).
        for (gamma, omega2) in [
            (39_500.0, 1.98e8),
            (42_400.0, 2.12e8),
            (3.0e5, 1.0e6),
            (2.5e4, 1.0e6),
        ] {
            let dt = 1e-4;
            let n = euler_substeps(dt, gamma, omega2);
            assert!(n > 1, "{gamma} {omega2}");
            let h = dt / f64::from(n);
            assert!(euler_amplitude(gamma, omega2, h, 20_000) < 1.0, "n = {n}");
            let h = dt / f64::from(n - 1);
            assert!(
                euler_amplitude(gamma, omega2, h, 300) > 1e3,
                "n − 1 = {}",
                n - 1
            );
        }
        // A step already small enough needs no sub-steps.
        assert_eq!(euler_substeps(1e-6, 39_500.0, 1.98e8), 1);
    }
}
