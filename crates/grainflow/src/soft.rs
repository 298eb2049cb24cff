//! Soft-sphere step: velocity Verlet (003 §2.1, eq 3–10) with overlap-based contact forces.
//!
//! 1. half kick v, ω with the last forces; drift positions;
//! 2. rebuild the neighbour list when some particle moved more than half the skin;
//! 3. pair forces into a per-pair buffer (parallel), gathered per particle in a fixed order
//!    (the particle's own row by ascending partner, then the rows naming it by ascending owner),
//!    so results are bit-identical for any thread count; wall contacts; body forces;
//! 4. second half kick.
//!
//! Velocity-dependent forces (damping, friction) see the half-step velocity v(t + ½dt), as in
//! LAMMPS's granular integrator.

use glam::DVec3;
use rayon::prelude::*;

use crate::boundary::Periodic;
use crate::contact::{Body, ContactState, Touch};
use crate::sim::{Physics, World};
use crate::{Error, Result};

/// Fewest items a parallel loop hands to one task: small systems run on one thread
/// without waking the others.
pub(crate) const MIN_LEN: usize = 512;

/// Contact statistics of one force evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactStats {
    /// Touching particle–particle and particle–wall pairs.
    pub contacts: usize,
    /// Largest overlap divided by the smaller radius of its pair (−).
    pub max_overlap_ratio: f64,
    /// Index of the particle with that overlap.
    pub worst: usize,
}

impl ContactStats {
    fn merge(a: Self, b: Self) -> Self {
        // Ties go to the lower index, so the reported particle does not depend on the threads.
        let b_wins = b.max_overlap_ratio > a.max_overlap_ratio
            || (b.max_overlap_ratio == a.max_overlap_ratio && b.worst < a.worst);
        let worst = if b_wins { b } else { a };
        ContactStats {
            contacts: a.contacts + b.contacts,
            ..worst
        }
    }
}

/// Wall-clock time spent in each stage of the step, for `grainflow bench` and the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// Kicks, drift and stability checks (s).
    pub integrate: f64,
    /// Neighbour-list checks and rebuilds (s).
    pub neighbor: f64,
    /// Particle–particle contact forces (s).
    pub pairs: f64,
    /// Gather per particle, wall contacts and body forces (s).
    pub gather_walls: f64,
}

/// Seconds since `t`, and `t` reset to now.
fn lap(t: &mut std::time::Instant) -> f64 {
    let now = std::time::Instant::now();
    let s = (now - *t).as_secs_f64();
    *t = now;
    s
}

/// Advances the world by one step of `physics.dt`.
pub fn step(world: &mut World, physics: &Physics) -> Result<ContactStats> {
    let dt = physics.dt;
    let mut t = std::time::Instant::now();
    half_kick(world, dt);
    let p = &mut world.particles;
    let periodic = &physics.periodic;
    p.pos
        .par_iter_mut()
        .zip(p.vel.par_iter())
        .with_min_len(MIN_LEN)
        .for_each(|(x, v)| *x = periodic.wrap(*x + *v * dt));
    world.time += dt;
    world.step += 1;
    world.timers.integrate += lap(&mut t);
    let stats = compute_forces(world, physics, dt);
    t = std::time::Instant::now();
    half_kick(world, dt);
    check_stability(world, physics, &stats)?;
    world.timers.integrate += lap(&mut t);
    Ok(stats)
}

/// v += ½dt F/m, ω += ½dt T/I for every particle (fixed ones have zero inverses).
fn half_kick(world: &mut World, dt: f64) {
    let p = &mut world.particles;
    let h = 0.5 * dt;
    p.vel
        .par_iter_mut()
        .zip(p.force.par_iter())
        .zip(p.inv_mass.par_iter())
        .with_min_len(MIN_LEN)
        .for_each(|((v, f), im)| *v += *f * (h * im));
    p.omega
        .par_iter_mut()
        .zip(p.torque.par_iter())
        .zip(p.inv_inertia.par_iter())
        .with_min_len(MIN_LEN)
        .for_each(|((w, t), ii)| *w += *t * (h * ii));
}

/// Forces and torques on every particle at the current state. `dt` advances the tangential
/// history; 0 evaluates without advancing it (the first evaluation of a run).
pub fn compute_forces(world: &mut World, physics: &Physics, dt: f64) -> ContactStats {
    let mut t = std::time::Instant::now();
    let period = physics.periodic.lengths();
    if world.neighbors.needs_rebuild(&world.particles.pos, period) {
        world.rebuild_neighbors(&physics.periodic);
    }
    world.timers.neighbor += lap(&mut t);
    let crate::particles::Particles {
        pos,
        vel,
        omega,
        radius,
        mass,
        inv_mass,
        inv_inertia,
        material,
        force,
        torque,
        ..
    } = &mut world.particles;
    let (pos, vel, omega, radius, mass) = (&*pos, &*vel, &*omega, &*radius, &*mass);
    let (inv_mass, inv_inertia, material) = (&*inv_mass, &*inv_inertia, &*material);
    let body = |k: usize| Body {
        vel: vel[k],
        omega: omega[k],
        radius: Some(radius[k]),
        inv_mass: inv_mass[k],
        inv_inertia: inv_inertia[k],
    };
    let nl = &mut world.neighbors;
    let pair_stats = world
        .pair_force
        .par_iter_mut()
        .zip(nl.state.par_iter_mut())
        .zip(world.owner.par_iter().zip(nl.partner.par_iter()))
        .with_min_len(MIN_LEN)
        .map(|((out, state), (&i, &j))| {
            let (i, j) = (i as usize, j as usize);
            let d = Periodic::minimum_image(pos[j] - pos[i], period);
            let reach = radius[i] + radius[j];
            let d2 = d.length_squared();
            if d2 >= reach * reach || d2 == 0.0 {
                if state.touching {
                    *state = ContactState::default();
                }
                return ContactStats::default();
            }
            let dist = d2.sqrt();
            let overlap = reach - dist;
            let params = physics
                .table
                .get(material[i] as usize, material[j] as usize);
            let touch = Touch {
                normal: d / dist,
                overlap,
            };
            *out = physics
                .model
                .force(params, touch, &body(i), &body(j), state, dt);
            ContactStats {
                contacts: 1,
                max_overlap_ratio: overlap / radius[i].min(radius[j]),
                worst: i,
            }
        })
        .reduce(ContactStats::default, ContactStats::merge);
    world.timers.pairs += lap(&mut t);

    let walls = &world.walls;
    let pair_force = &world.pair_force;
    let state = &nl.state;
    let (start, rev_start, rev_slot) = (&nl.start, &nl.rev_start, &nl.rev_slot);
    let wall_body = Body {
        vel: DVec3::ZERO,
        omega: DVec3::ZERO,
        radius: None,
        inv_mass: 0.0,
        inv_inertia: 0.0,
    };
    let wall_stats = force
        .par_iter_mut()
        .zip(torque.par_iter_mut())
        .zip(world.wall_state.par_iter_mut())
        .enumerate()
        .with_min_len(MIN_LEN)
        .map(|(k, ((f, t), wall_state))| {
            let mut fk = DVec3::ZERO;
            let mut tk = DVec3::ZERO;
            for s in start[k]..start[k + 1] {
                if state[s].touching {
                    fk += pair_force[s].force_i;
                    tk += pair_force[s].torque_i;
                }
            }
            for &s in &rev_slot[rev_start[k]..rev_start[k + 1]] {
                let s = s as usize;
                if state[s].touching {
                    fk -= pair_force[s].force_i;
                    tk += pair_force[s].torque_j;
                }
            }
            let mut stats = ContactStats::default();
            for (w, wall) in walls.iter().enumerate() {
                let slot = wall_state.iter().position(|(id, _)| *id as usize == w);
                let Some(c) = wall.contact(pos[k], radius[k]) else {
                    if let Some(s) = slot {
                        wall_state.swap_remove(s);
                    }
                    continue;
                };
                let s = slot.unwrap_or_else(|| {
                    wall_state.push((w as u32, ContactState::default()));
                    wall_state.len() - 1
                });
                let params = physics.table.get(material[k] as usize, wall.material);
                let out =
                    physics
                        .model
                        .force(params, c, &body(k), &wall_body, &mut wall_state[s].1, dt);
                fk += out.force_i;
                tk += out.torque_i;
                let here = ContactStats {
                    contacts: 1,
                    max_overlap_ratio: c.overlap / radius[k],
                    worst: k,
                };
                stats = ContactStats::merge(stats, here);
            }
            if inv_mass[k] > 0.0 {
                fk += mass[k] * physics.gravity.acceleration(pos[k]);
            }
            *f = fk;
            *t = tk;
            stats
        })
        .reduce(ContactStats::default, ContactStats::merge);
    world.timers.gather_walls += lap(&mut t);
    ContactStats::merge(pair_stats, wall_stats)
}

/// Stops a run that went bad, naming the particle, the time and the likely cause.
fn check_stability(world: &World, physics: &Physics, stats: &ContactStats) -> Result<()> {
    let p = &world.particles;
    let bad = (0..p.len())
        .into_par_iter()
        .find_first(|&k| !(p.pos[k].is_finite() && p.vel[k].is_finite() && p.omega[k].is_finite()));
    let fail = |k: usize, reason: String| Error::Unstable {
        time: world.time,
        step: world.step,
        id: p.id[k],
        reason,
    };
    if let Some(k) = bad {
        return Err(fail(
            k,
            format!(
                "position or velocity is not finite (pos {:?}, vel {:?}); likely cause: dt = {:.3e} s too large for the contact time, or a stiffness or cohesion that diverges",
                p.pos[k], p.vel[k], physics.dt
            ),
        ));
    }
    if stats.max_overlap_ratio > physics.max_overlap {
        let k = stats.worst;
        return Err(fail(
            k,
            format!(
                "overlap is {:.3} of its radius (limit simulation.max_overlap = {}); likely cause: impact speed far above contact.characteristic_velocity, a stiffness too low for the load, or dt = {:.3e} s too large",
                stats.max_overlap_ratio, physics.max_overlap, physics.dt
            ),
        ));
    }
    if let Some((lo, hi)) = physics.domain {
        if let Some(k) = (0..p.len())
            .into_par_iter()
            .with_min_len(MIN_LEN)
            .find_first(|&k| {
                let open = physics.periodic.lengths().cmpeq(DVec3::ZERO);
                (open & (p.pos[k].cmplt(lo) | p.pos[k].cmpgt(hi))).any()
            })
        {
            return Err(fail(
                k,
                format!(
                    "left the domain at {:?} (simulation.domain {:?} to {:?}); likely cause: a missing wall or a grain launched by an overlap",
                    p.pos[k], lo, hi
                ),
            ));
        }
    }
    Ok(())
}
