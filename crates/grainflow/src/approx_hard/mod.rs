//! Approximate hard spheres for dense flows (seed 004 §I, after McNamara et al. 2000): the
//! instantaneous collisions of hard spheres, found per fixed time step.
//!
//! One step of `dt`:
//! 1. kick with the body forces, v += a dt (gravity fields, frame forces);
//! 2. **gather** every particle–particle and particle–wall pair that would come into contact
//!    during [t, t + dt] at the current velocities (straight lines, 000 eq 1–3 for pairs; for a
//!    wall, the gap along its normal closed by the approach speed), and resolve them, earliest
//!    first, as instantaneous collisions *at time t* (004: "we treat any pending overlaps that
//!    would occur between t and t + dt as collisions taking place at time t") with the
//!    hard-sphere rules of `hard/resolve.rs`: normal restitution and either tangential
//!    restitution (000 eq 4) or Coulomb friction (Walton 1993). A pair is resolved only if,
//!    with the velocities it has by then, it still approaches and still meets within the step.
//!    Gathering repeats up to `passes` times, or until a pass finds nothing;
//! 3. drift, x += v dt;
//! 4. **correct** the overlaps left (004 eq 1–2): every overlapping pair is pushed apart along its
//!    normal to touching, keeping its centre of mass; a grain overlapping a wall is pushed out.
//!    Sweeps repeat until no overlap above `overlap_tolerance` of the smaller radius remains
//!    (`overlap.rs`).
//!
//! Every collision adds its impulse to the tallies of the proxy stress (004 eq 3–4,
//! `tally.rs`). Gathering reads the state only and runs in parallel; resolution and correction
//! run sequentially in a fixed order (earliest predicted time, then particle indices), so a run
//! is bit-identical for any number of threads.

pub(crate) mod overlap;
pub(crate) mod tally;

use glam::DVec3;
use rayon::prelude::*;

use crate::boundary::Periodic;
use crate::hard::predict::pair_collision_time;
use crate::hard::resolve::{apply_impulse, collision_impulse, wall_grain, Coupling, Grain, Motion};
use crate::material::PairParams;
use crate::particles::Particles;
use crate::physics::{BodyForce, Physics};
use crate::scene::{ApproxHardOptions, Friction};
use crate::stats::StageTimes;
use crate::world::World;
use crate::{Error, Result};
pub use overlap::max_overlap;
pub use tally::ImpulseTally;

impl ApproxHardOptions {
    /// The coupling of a pair of materials under this rule.
    fn coupling(&self, params: &PairParams) -> Coupling {
        match self.friction {
            Friction::Restitution => Coupling {
                eps_n: params.restitution,
                eps_t: params.tangential_restitution,
                mu: f64::INFINITY,
            },
            Friction::Coulomb => Coupling {
                eps_n: params.restitution,
                eps_t: 0.0,
                mu: params.mu_s,
            },
        }
    }
}

/// What a gathered collision involves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// Particle j (> i).
    Particle(usize),
    /// Member m of wall w.
    Wall(usize, usize),
}

/// A pending collision of particle i, predicted at time t (s) into the step.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pending {
    t: f64,
    i: usize,
    target: Target,
}

impl Pending {
    /// Sort key: time, then particle, then partner (walls after particles), all distinct.
    fn key(&self) -> (f64, usize, usize, usize) {
        match self.target {
            Target::Particle(j) => (self.t, self.i, 0, j),
            Target::Wall(w, m) => (self.t, self.i, 1 + w, m),
        }
    }
}

/// The method: its options and its scratch, kept from step to step; its impulse tallies are
/// part of the world ([`World::tally`]).
#[derive(Clone, Debug, Default)]
pub struct ApproxStepper {
    /// Passes, friction rule and overlap correction (`simulation.method.approx_hard`).
    pub options: ApproxHardOptions,
    /// Collisions gathered in the current pass.
    pending: Vec<Pending>,
    /// Body-force accelerations at the start of the step.
    pub body: BodyForce,
    /// Wall-clock time per stage.
    pub timers: StageTimes,
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Collisions resolved.
    pub collisions: u64,
    /// Gathering passes that found collisions.
    pub passes: usize,
    /// Correction sweeps (the last of which found nothing above the tolerance).
    pub sweeps: usize,
    /// Largest overlap the correction found before its last sweep, over the smaller radius.
    pub corrected: f64,
    /// Largest overlap left after the step, over the smaller radius (≤ the tolerance).
    pub max_overlap_ratio: f64,
}

/// A grain as the impulse rules see it.
fn grain(p: &Particles, k: usize) -> Grain {
    Grain {
        motion: Motion {
            vel: p.vel[k],
            omega: p.omega[k],
        },
        inv_mass: p.inv_mass[k],
        inv_inertia: p.inv_inertia[k],
        radius: p.radius[k],
    }
}

impl ApproxStepper {
    /// A stepper with `options` and empty scratch.
    pub fn new(options: ApproxHardOptions) -> Self {
        ApproxStepper {
            options,
            ..Default::default()
        }
    }

    /// Corrects the overlaps of the initial state before the first step (004 §I).
    pub fn start(&mut self, world: &mut World, physics: &Physics) {
        world.rebuild_neighbors(&physics.periodic);
        crate::walls::interact::prepare(world, &physics.periodic);
        let spec = &self.options;
        overlap::remove_overlaps(
            &mut world.particles.pos,
            &world.particles.radius,
            &world.particles.inv_mass,
            &mut world.neighbors,
            &physics.periodic,
            &world.walls,
            &world.wall_runtime.pose,
            spec.overlap_tolerance,
            spec.max_sweeps,
            1.0,
        );
    }

    /// Advances the world by one step of `physics.dt` (see the module documentation),
    /// counting the collisions in [`World::collisions`].
    pub fn step(&mut self, world: &mut World, physics: &Physics) -> Result<StepStats> {
        let stats = step(world, physics, self)?;
        world.collisions += stats.collisions;
        Ok(stats)
    }
}

/// Advances the world by one step of `physics.dt` (see the module documentation).
fn step(world: &mut World, physics: &Physics, s: &mut ApproxStepper) -> Result<StepStats> {
    let dt = physics.dt;
    let spec = s.options;
    let mut clock = std::time::Instant::now();
    crate::walls::interact::prepare(world, &physics.periodic);
    s.body.update(physics, &world.particles, world.time);
    {
        let p = &mut world.particles;
        for k in 0..p.len() {
            if p.inv_mass[k] > 0.0 {
                p.vel[k] += dt * s.body.acc[k];
            }
        }
    }
    if physics.planar {
        crate::planar::project_motion(&mut world.particles);
    }
    s.timers.integrate += lap(&mut clock);
    ensure_list(world, physics, dt);
    s.timers.neighbor += lap(&mut clock);
    let n = world.particles.len();
    world.tally.resize(n, world.walls.len(), world.time);
    let mut stats = StepStats::default();
    let mut pending = std::mem::take(&mut s.pending);
    for _ in 0..spec.passes {
        gather(world, physics, dt, &mut pending);
        if pending.is_empty() {
            break;
        }
        stats.passes += 1;
        pending.sort_unstable_by(|a, b| {
            let (x, y) = (a.key(), b.key());
            x.0.total_cmp(&y.0)
                .then((x.1, x.2, x.3).cmp(&(y.1, y.2, y.3)))
        });
        for e in &pending {
            if resolve(world, physics, &spec, dt, e) {
                stats.collisions += 1;
            }
        }
    }
    s.pending = pending;
    s.timers.pairs += lap(&mut clock);
    let periodic = physics.periodic;
    drift(world, &periodic, dt);
    world.time += dt;
    world.step += 1;
    let t = world.time;
    let rt = &mut world.wall_runtime;
    rt.pose.clear();
    rt.pose.extend(world.walls.iter().map(|w| w.motion.pose(t)));
    s.timers.integrate += lap(&mut clock);
    if world
        .neighbors
        .needs_rebuild(&world.particles.pos, periodic.lengths())
    {
        world.rebuild_neighbors(&periodic);
    }
    let c = overlap::remove_overlaps(
        &mut world.particles.pos,
        &world.particles.radius,
        &world.particles.inv_mass,
        &mut world.neighbors,
        &periodic,
        &world.walls,
        &world.wall_runtime.pose,
        spec.overlap_tolerance,
        spec.max_sweeps,
        spec.over_relaxation,
    );
    stats.sweeps = c.sweeps;
    stats.corrected = c.largest;
    stats.max_overlap_ratio = c.remaining;
    s.timers.gather += lap(&mut clock);
    if c.remaining > spec.overlap_tolerance {
        let k = c.worst;
        return Err(Error::Unstable {
            time: world.time,
            step: world.step,
            id: world.particles.id[k],
            reason: format!(
                "overlaps could not be removed: {:.3e} of a radius left after {} correction sweeps (limit simulation.method.approx_hard.max_sweeps); likely cause: more grains than the space holds (packing fraction above random close packing) or dt = {:.3e} s too large for the speeds",
                c.remaining, c.sweeps, dt
            ),
        });
    }
    check_finite(world, physics)?;
    Ok(stats)
}

/// x += v dt, wrapped into the periodic box; the list's ghosts count the wraps.
fn drift(world: &mut World, periodic: &Periodic, dt: f64) {
    let p = &mut world.particles;
    let moves = p.pos.par_iter_mut().zip(p.vel.par_iter());
    match world.neighbors.ghosts.as_mut() {
        Some(g) => {
            let l = periodic.lengths();
            moves
                .zip(g.wraps.par_iter_mut())
                .with_min_len(crate::particles::MIN_LEN)
                .for_each(|((x, v), w)| {
                    let raw = *x + *v * dt;
                    *x = periodic.wrap(raw);
                    crate::ghosts::count_wrap(w, raw, *x, l);
                });
        }
        None => moves
            .with_min_len(crate::particles::MIN_LEN)
            .for_each(|(x, v)| *x = periodic.wrap(*x + *v * dt)),
    }
}

/// Seconds since `t`, and `t` reset to now.
fn lap(t: &mut std::time::Instant) -> f64 {
    let now = std::time::Instant::now();
    let s = (now - *t).as_secs_f64();
    *t = now;
    s
}

/// Keeps the neighbour list holding every pair that can meet within the step: its skin must
/// exceed the relative travel of a step (4 v_max dt, with a margin for collisions speeding
/// grains up, as in [`crate::hard::HardStepper::step`]).
fn ensure_list(world: &mut World, physics: &Physics, dt: f64) {
    let v_max = crate::particles::fastest(&world.particles.vel);
    let travel = 4.0 * v_max * dt;
    let period = physics.periodic.lengths();
    if travel > 0.5 * world.neighbors.skin {
        world.neighbors.skin = 3.0 * travel;
        world.rebuild_neighbors(&physics.periodic);
    } else if world
        .neighbors
        .needs_rebuild_within(&world.particles.pos, period, travel)
    {
        world.rebuild_neighbors(&physics.periodic);
    }
}

/// When a particle–wall pair meets within the step (004 §II: a grain meets a boundary as it
/// would an infinitely massive grain): the gap g (m) between the grain's surface
/// and the wall, the unit normal from the grain's centre towards the wall, the wall's surface
/// velocity at the contact point, and the closing speed v_n > 0 with g ≤ v_n dt. Found with
/// the wall's closest point for a sphere inflated by the largest distance it can close.
fn wall_meeting(
    world: &World,
    k: usize,
    w: usize,
    m: usize,
    dt: f64,
) -> Option<(f64, DVec3, DVec3, f64)> {
    let p = &world.particles;
    let pose = &world.wall_runtime.pose[w];
    let shape = &world.walls[w].shape.members()[m];
    let (x, r, v) = (p.pos[k], p.radius[k], p.vel[k]);
    let reach = (v.length() + pose.velocity_at(x).length()) * dt * 1.5 + 1e-12 * r;
    let touch = shape.contact(pose.to_local(x), r + reach)?;
    let normal = pose.rotation * touch.normal;
    let dist = r + reach - touch.overlap;
    let wall_vel = pose.velocity_at(x + dist * normal);
    let v_n = (v - wall_vel).dot(normal);
    let gap = dist - r;
    (v_n > 0.0 && gap <= v_n * dt).then_some((gap, normal, wall_vel, v_n))
}

/// Every pair that meets within the step at the current velocities, into `out` (unsorted).
fn gather(world: &World, physics: &Physics, dt: f64, out: &mut Vec<Pending>) {
    let p = &world.particles;
    let nl = &world.neighbors;
    let period = physics.periodic.lengths();
    let walls = &world.walls;
    let attached = &world.wall_runtime.attached;
    // The buffer is reused from pass to pass; rayon keeps the particles' order.
    out.clear();
    out.par_extend(
        (0..p.len())
            .into_par_iter()
            .with_min_len(crate::particles::MIN_LEN)
            .flat_map_iter(|i| {
                let pairs = nl.partner[nl.start[i]..nl.start[i + 1]]
                    .iter()
                    .filter_map(move |&j| {
                        let (k, rho) = nl.separation(i, j as usize, &p.pos, period);
                        if p.inv_mass[i] == 0.0 && p.inv_mass[k] == 0.0 {
                            return None;
                        }
                        let s = p.radius[i] + p.radius[k];
                        pair_collision_time(rho, p.vel[k] - p.vel[i], s)
                            .filter(|&t| t <= dt)
                            .map(|t| Pending {
                                t,
                                i,
                                target: Target::Particle(j as usize),
                            })
                    });
                let free = p.inv_mass[i] > 0.0 && !attached.get(i).is_some_and(Option::is_some);
                let hits = walls
                    .iter()
                    .enumerate()
                    .filter(move |(_, wall)| free && wall.surface == crate::walls::Surface::Normal)
                    .flat_map(move |(w, wall)| {
                        (0..wall.shape.members().len()).filter_map(move |m| {
                            wall_meeting(world, i, w, m, dt).map(|(gap, _, _, v_n)| Pending {
                                t: gap / v_n,
                                i,
                                target: Target::Wall(w, m),
                            })
                        })
                    });
                pairs.chain(hits)
            }),
    );
}

/// Resolves one gathered collision if, with the velocities the bodies have now, they still
/// approach and meet within the step; returns whether it did.
fn resolve(
    world: &mut World,
    physics: &Physics,
    spec: &ApproxHardOptions,
    dt: f64,
    e: &Pending,
) -> bool {
    let i = e.i;
    let p = &world.particles;
    match e.target {
        Target::Particle(j) => {
            let period = physics.periodic.lengths();
            let (j, rho) = world.neighbors.separation(i, j, &p.pos, period);
            let s = p.radius[i] + p.radius[j];
            if !pair_collision_time(rho, p.vel[j] - p.vel[i], s).is_some_and(|t| t <= dt) {
                return false;
            }
            let n = rho.normalize();
            let params = physics
                .table
                .get(p.material[i] as usize, p.material[j] as usize);
            let (a, b) = (grain(p, i), grain(p, j));
            let impulse = collision_impulse(n, &a, &b, &spec.coupling(params));
            let (ma, mb) = apply_impulse(n, &a, &b, impulse);
            let (ri, rj) = (p.radius[i], p.radius[j]);
            let p = &mut world.particles;
            (p.vel[i], p.omega[i], p.vel[j], p.omega[j]) = (ma.vel, ma.omega, mb.vel, mb.omega);
            let tally = &mut world.tally;
            tally.add_grain(i, -impulse, ri * n, n);
            tally.add_grain(j, impulse, -rj * n, n);
            tally.collisions += 1;
            true
        }
        Target::Wall(w, m) => {
            let Some((_, normal, wall_vel, _)) = wall_meeting(world, i, w, m, dt) else {
                return false;
            };
            let params = physics
                .table
                .get(p.material[i] as usize, world.walls[w].material);
            // Body 1 is the wall, body 2 the grain; n̂ from the wall to the grain.
            let n = -normal;
            let (wall, g) = (wall_grain(wall_vel), grain(p, i));
            let impulse = collision_impulse(n, &wall, &g, &spec.coupling(params));
            let (_, mg) = apply_impulse(n, &wall, &g, impulse);
            let r = p.radius[i];
            let p = &mut world.particles;
            (p.vel[i], p.omega[i]) = (mg.vel, mg.omega);
            let tally = &mut world.tally;
            tally.add_grain(i, impulse, -r * n, n);
            tally.add_wall(w, -impulse, n);
            tally.collisions += 1;
            true
        }
    }
}

/// Stops a run whose state is no longer finite or that left its domain.
fn check_finite(world: &World, physics: &Physics) -> Result<()> {
    let p = &world.particles;
    let fail = |k: usize, reason: String| Error::Unstable {
        time: world.time,
        step: world.step,
        id: p.id[k],
        reason,
    };
    if let Some(k) = (0..p.len())
        .find(|&k| !(p.pos[k].is_finite() && p.vel[k].is_finite() && p.omega[k].is_finite()))
    {
        return Err(fail(
            k,
            format!(
                "position or velocity is not finite (pos {:?}, vel {:?})",
                p.pos[k], p.vel[k]
            ),
        ));
    }
    if let Some((lo, hi)) = physics.domain {
        let open = physics.periodic.lengths().cmpeq(DVec3::ZERO);
        if let Some(k) =
            (0..p.len()).find(|&k| (open & (p.pos[k].cmplt(lo) | p.pos[k].cmpgt(hi))).any())
        {
            return Err(fail(
                k,
                format!(
                    "left the domain at {:?} (simulation.domain {:?} to {:?}); likely cause: a missing wall",
                    p.pos[k], lo, hi
                ),
            ));
        }
    }
    Ok(())
}
