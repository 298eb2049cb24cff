//! Hard-sphere step (pkdgrav, seed 000 §2): leapfrog kick–drift–kick; during the drift,
//! collisions are predicted from straight-line motion and processed in time order.
//!
//! Every particle keeps its earliest predicted event (a partner or a wall) in a priority queue
//! ordered by (time, particle, partner); an event is stale when either body has collided since
//! it was predicted (per-particle collision counters). After a collision only the two bodies
//! are re-predicted; a particle whose event went stale is re-predicted when it is popped. So no
//! collision is missed and none is processed twice. Candidates come from the Verlet list, valid
//! while the largest displacement since its build plus the largest relative travel in one step
//! stays under half the skin. Particles are advanced lazily: each keeps the drift time up to
//! which its position is current. The whole drift is sequential, hence bit-identical for any
//! thread count.

pub mod predict;
pub mod resolve;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::DVec3;

use crate::boundary::Periodic;
use crate::sim::{Physics, World};
use crate::walls::Shape;
use crate::{Error, Result};
use predict::{pair_collision_time, plane_collision_time};
use resolve::{resolve_pair, resolve_wall, Motion};

/// Collision statistics of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CollisionStats {
    /// Collisions processed in the step.
    pub collisions: u64,
    /// Largest overlap found at a collision, as a fraction of the smaller radius.
    pub max_overlap_ratio: f64,
}

/// What a particle will hit next.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    Particle(usize),
    Wall(usize),
}

/// A predicted collision of particle `i` at drift time `t` (s).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Event {
    t: f64,
    i: usize,
    target: Target,
    /// Collision counters of i and of the partner when predicted.
    count_i: u32,
    count_j: u32,
}

impl Eq for Event {}

impl Ord for Event {
    /// Earliest first in a max-heap; ties by particle, then partner, so the order is fixed.
    fn cmp(&self, other: &Self) -> Ordering {
        let key = |e: &Event| {
            (
                e.i,
                match e.target {
                    Target::Particle(j) => j,
                    Target::Wall(w) => usize::MAX - w,
                },
            )
        };
        other
            .t
            .total_cmp(&self.t)
            .then_with(|| key(other).cmp(&key(self)))
    }
}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Scratch of one drift, reused between steps.
#[derive(Clone, Debug, Default)]
pub struct DriftState {
    /// Drift time up to which each particle's position is current (s).
    t_last: Vec<f64>,
    /// Collisions of each particle in this drift.
    count: Vec<u32>,
    /// Predicted events, earliest first.
    heap: BinaryHeap<Event>,
}

/// Advances the world by one step of `physics.dt` with hard-sphere collisions.
pub fn step(world: &mut World, physics: &Physics) -> Result<CollisionStats> {
    let dt = physics.dt;
    kick(world, physics, 0.5 * dt);
    let v_max = world
        .particles
        .vel
        .iter()
        .map(|v| v.length())
        .fold(0.0, f64::max);
    // Two bodies at v_max close at 2 v_max; collisions can speed a body up, hence the margin.
    let travel = 4.0 * v_max * dt;
    let period = physics.periodic.lengths();
    if travel > 0.5 * world.neighbors.skin || travel < 0.2 * world.neighbors.skin {
        // The list must hold every pair that can meet within the step: widen the skin.
        world.neighbors.skin = 3.0 * travel;
        world.rebuild_neighbors(&physics.periodic);
    } else if world
        .neighbors
        .needs_rebuild_within(&world.particles.pos, period, travel)
    {
        world.rebuild_neighbors(&physics.periodic);
    }
    let stats = drift(world, physics, dt)?;
    world.time += dt;
    world.step += 1;
    crate::sim::body_accelerations(world, physics);
    kick(world, physics, 0.5 * dt);
    Ok(stats)
}

/// v += h g for every mobile particle (the only forces between collisions are body forces:
/// gravity fields, self-gravity included, and frame forces, evaluated after each drift).
fn kick(world: &mut World, physics: &Physics, h: f64) {
    if world.body_acc.len() != world.particles.len() {
        crate::sim::body_accelerations(world, physics);
    }
    let p = &mut world.particles;
    for k in 0..p.len() {
        if p.inv_mass[k] > 0.0 {
            p.vel[k] += h * world.body_acc[k];
        }
    }
}

/// Mass that resists a collision (kg): infinite for fixed grains.
fn inertial_mass(p: &crate::particles::Particles, k: usize) -> f64 {
    if p.inv_mass[k] > 0.0 {
        p.mass[k]
    } else {
        f64::INFINITY
    }
}

/// Moves particle k's position to drift time t.
fn advance(world: &mut World, ds: &mut DriftState, periodic: &Periodic, k: usize, t: f64) {
    let p = &mut world.particles;
    if p.inv_mass[k] > 0.0 {
        p.pos[k] = periodic.wrap(p.pos[k] + p.vel[k] * (t - ds.t_last[k]));
    }
    ds.t_last[k] = t;
}

/// The earliest collision of particle i after drift time `now` (and before `end`), against its
/// listed neighbours and the walls.
fn predict(
    world: &World,
    physics: &Physics,
    ds: &DriftState,
    i: usize,
    now: f64,
    end: f64,
) -> Option<Event> {
    let p = &world.particles;
    let nl = &world.neighbors;
    let period = physics.periodic.lengths();
    let xi = p.pos[i] + p.vel[i] * (now - ds.t_last[i]);
    let mut best: Option<(f64, Target)> = None;
    let mut consider = |t: f64, target: Target| {
        // t ≤ 0 relative to now is an overlap to repair at once (000 §2.3).
        let at = now + t.max(0.0);
        if at <= end && best.is_none_or(|(b, _)| at < b) {
            best = Some((at, target));
        }
    };
    let forward = nl.partner[nl.start[i]..nl.start[i + 1]]
        .iter()
        .map(|&j| j as usize);
    let backward = nl.rev_owner[nl.rev_start[i]..nl.rev_start[i + 1]]
        .iter()
        .map(|&j| j as usize);
    for j in forward.chain(backward) {
        if p.inv_mass[i] == 0.0 && p.inv_mass[j] == 0.0 {
            continue;
        }
        let xj = p.pos[j] + p.vel[j] * (now - ds.t_last[j]);
        let rho = Periodic::minimum_image(xj - xi, period);
        if let Some(t) = pair_collision_time(rho, p.vel[j] - p.vel[i], p.radius[i] + p.radius[j]) {
            consider(t, Target::Particle(j));
        }
    }
    if p.inv_mass[i] > 0.0 {
        for (w, wall) in world.walls.iter().enumerate() {
            if let Shape::Plane(plane) = &wall.shape {
                let rho_n = (xi - plane.point).dot(plane.normal);
                if let Some(t) =
                    plane_collision_time(rho_n, p.vel[i].dot(plane.normal), p.radius[i])
                {
                    consider(t, Target::Wall(w));
                }
            }
        }
    }
    best.map(|(t, target)| Event {
        t,
        i,
        target,
        count_i: ds.count[i],
        count_j: match target {
            Target::Particle(j) => ds.count[j],
            Target::Wall(_) => 0,
        },
    })
}

/// The drift of one step: collisions in time order, then every particle advanced to `dt`.
fn drift(world: &mut World, physics: &Physics, dt: f64) -> Result<CollisionStats> {
    let n = world.particles.len();
    let mut ds = std::mem::take(&mut world.drift);
    ds.t_last.clear();
    ds.t_last.resize(n, 0.0);
    ds.count.clear();
    ds.count.resize(n, 0);
    ds.heap.clear();
    for i in 0..n {
        if let Some(e) = predict(world, physics, &ds, i, 0.0, dt) {
            ds.heap.push(e);
        }
    }
    let mut stats = CollisionStats::default();
    let periodic = physics.periodic;
    while let Some(e) = ds.heap.pop() {
        let j_count = match e.target {
            Target::Particle(j) => ds.count[j],
            Target::Wall(_) => 0,
        };
        if e.count_i != ds.count[e.i] {
            continue; // i collided since: it was re-predicted then.
        }
        if e.count_j != j_count {
            // The partner moved on: i needs a new prediction from now.
            if let Some(next) = predict(world, physics, &ds, e.i, e.t, dt) {
                ds.heap.push(next);
            }
            continue;
        }
        let i = e.i;
        advance(world, &mut ds, &periodic, i, e.t);
        let p = &world.particles;
        let mi = Motion {
            vel: p.vel[i],
            omega: p.omega[i],
        };
        match e.target {
            Target::Particle(j) => {
                advance(world, &mut ds, &periodic, j, e.t);
                let p = &world.particles;
                let d = Periodic::minimum_image(p.pos[j] - p.pos[i], periodic.lengths());
                let dist = d.length();
                let reach = p.radius[i] + p.radius[j];
                stats.max_overlap_ratio = stats
                    .max_overlap_ratio
                    .max((reach - dist) / p.radius[i].min(p.radius[j]));
                let params = physics
                    .table
                    .get(p.material[i] as usize, p.material[j] as usize);
                let mj = Motion {
                    vel: p.vel[j],
                    omega: p.omega[j],
                };
                let (a, b) = resolve_pair(
                    d / dist,
                    mi,
                    mj,
                    inertial_mass(p, i),
                    inertial_mass(p, j),
                    p.radius[i],
                    p.radius[j],
                    params.restitution,
                    params.tangential_restitution,
                );
                let p = &mut world.particles;
                (p.vel[i], p.omega[i], p.vel[j], p.omega[j]) = (a.vel, a.omega, b.vel, b.omega);
                ds.count[j] += 1;
            }
            Target::Wall(w) => {
                let wall = &world.walls[w];
                let Shape::Plane(plane) = &wall.shape else {
                    continue;
                };
                let params = physics.table.get(p.material[i] as usize, wall.material);
                let rho_n = (p.pos[i] - plane.point).dot(plane.normal);
                stats.max_overlap_ratio = stats
                    .max_overlap_ratio
                    .max((p.radius[i] - rho_n.abs()) / p.radius[i]);
                let n = plane.normal * rho_n.signum();
                let m = resolve_wall(
                    n,
                    mi,
                    p.radius[i],
                    DVec3::ZERO,
                    params.restitution,
                    params.tangential_restitution,
                );
                let p = &mut world.particles;
                (p.vel[i], p.omega[i]) = (m.vel, m.omega);
            }
        }
        ds.count[i] += 1;
        stats.collisions += 1;
        if stats.collisions > 1000 * n as u64 + 1_000_000 {
            return Err(Error::Unstable {
                time: world.time + e.t,
                step: world.step,
                id: world.particles.id[i],
                reason: format!(
                    "more than {} collisions in one step (inelastic collapse: grains in lasting contact); likely cause: dt too large for a dense, dissipative pack — try method = \"soft\" or a smaller dt",
                    1000 * n + 1_000_000
                ),
            });
        }
        for k in [
            Some(i),
            if let Target::Particle(j) = e.target {
                Some(j)
            } else {
                None
            },
        ]
        .into_iter()
        .flatten()
        {
            if let Some(next) = predict(world, physics, &ds, k, e.t, dt) {
                ds.heap.push(next);
            }
        }
    }
    for k in 0..n {
        advance(world, &mut ds, &periodic, k, dt);
    }
    world.drift = ds;
    Ok(stats)
}
