//! Hard-sphere step (pkdgrav, seed 000 §2): leapfrog kick–drift–kick; during the drift,
//! collisions are predicted from straight-line motion and processed in time order.
//!
//! Every particle keeps its earliest predicted event (a partner or a wall) in a priority queue
//! ordered by (time, particle, partner); an event is stale when either body has collided since
//! it was predicted (per-particle collision counters). After a collision only the two bodies
//! are re-predicted; a particle whose event went stale is re-predicted when it is popped. So no
//! collision is missed and none is processed twice. Candidates come from the Verlet list, valid
//! while every grain stays within half the skin of where it was at the build; a collision that
//! would carry a grain past that rebuilds the list within the drift. Particles are advanced
//! lazily: each keeps the drift time up to which its position is current. The whole drift is
//! sequential, hence bit-identical for any thread count.
//!
//! In a periodic box the list holds every periodic image within reach as a ghost
//! (`ghosts.rs`), so a partner is a grain and an image of it: two grains may meet at more
//! than one image within a step (a drift of half a box), and each meeting is predicted. The
//! impulses go to the grains themselves.
//!
//! **Walls** (000 §2.2) are predicted against every primitive of every wall. A moving wall
//! travels in a straight line during the drift, from where its motion puts it at the start of
//! the step to where it puts it at the end (the secant of the motion, so a wall is exactly in
//! place at every step boundary; pkdgrav holds the start-of-step velocity instead, 000
//! §2.2.1); a rotating wall must turn about its own symmetry axis, which leaves its shape in
//! place. The wall's surface velocity at the contact point, V + Ω × (x_c − c), is subtracted
//! in eq 8 before eq 6–7 apply. A grain that hits a **sticky** wall is held there (infinite
//! mass); held grains move with their wall along the secant of its motion during a drift and
//! collide as infinite masses (000 §2.2). A grain that hits an **absorbing** wall leaves the
//! drift at once and is removed at its end.

mod calendar;
mod collide;
mod flight;
pub(crate) mod log;
pub(crate) mod predict;
pub(crate) mod quartic;
pub(crate) mod resolve;
mod rest;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::DVec3;

use crate::boundary::Periodic;
use crate::ghosts::Image;
use crate::physics::{BodyForce, Physics};
use crate::scene::HardOptions;
use crate::walls::interact::{prepare, remove_particles};
use crate::walls::Pose;
use crate::world::World;
use crate::{Error, Result};
use calendar::Entry;
use collide::collide;
use flight::{anchor_reference, fly, Flight};
pub use log::{CollisionRecord, Partner};
pub use predict::{pair_collision_time, plane_collision_time};

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
    /// A grain, at its image (whole periods, from where the list's ghosts were made).
    Particle(usize, Image),
    /// Wall index and member of a union (0 otherwise).
    Wall(usize, usize),
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
                    Target::Particle(j, s) => (j, s),
                    Target::Wall(w, m) => (
                        usize::MAX - (w * crate::walls::MAX_UNION_MEMBERS + m),
                        [0; 3],
                    ),
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

/// How a wall moves during one drift: a straight line from its start-of-step place.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct WallDrift {
    /// Displacement from the scene placement at the start of the step (m).
    offset: DVec3,
    /// Velocity during the drift (m/s), the secant of the motion over the step.
    vel: DVec3,
    /// Angular velocity vector (rad/s), at mid-step.
    omega: DVec3,
    /// Point of the rotation axis in the scene placement (m).
    center: DVec3,
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
    /// Motion of each wall during the drift.
    walls: Vec<WallDrift>,
    /// Poses of the walls at the end of the step.
    end_pose: Vec<Pose>,
    /// Grains absorbed during the drift, removed at its end, and whether there was one.
    gone: Vec<bool>,
    absorbed: bool,
    /// Each particle's last collision partner in this drift, and the particles named so.
    last: Vec<Option<Target>>,
    named: Vec<usize>,
    /// Each particle's earliest event while [`first_events`] gathers them, and the particles
    /// offered one in a free flight.
    first: Vec<Option<(f64, Target)>>,
    offered: Vec<usize>,
    /// The collisions of the last step, when the scene asks for a log.
    pub log: Vec<CollisionRecord>,
    /// The pairs' calendar of a free flight (no body force, no wall), else `None`, and the
    /// pairs a prediction met after a collision, to be filed in it.
    flight: Option<Box<Flight>>,
    met: Vec<Met>,
}

impl DriftState {
    /// Ready for a drift of `n` grains: none advanced, none collided, no event, no log.
    /// (The last drift left its scratch so, but for the last partners it named and the grains
    /// it absorbed; collision counts only ever grow, and are compared for equality.)
    fn start(&mut self, n: usize) {
        if self.t_last.len() != n {
            self.t_last = vec![0.0; n];
            self.count = vec![0; n];
            self.gone = vec![false; n];
            self.last = vec![None; n];
            self.named.clear();
        }
        for k in self.named.drain(..) {
            self.last[k] = None;
        }
        if self.absorbed {
            self.gone.fill(false);
            self.absorbed = false;
        }
        self.heap.clear();
        self.log.clear();
    }

    /// Names the last partner of grain k in this drift.
    fn met(&mut self, k: usize, target: Target) {
        self.last[k] = Some(target);
        self.named.push(k);
    }
}

/// The hard-sphere method: its options and its scratch, kept from step to step.
#[derive(Clone, Debug, Default)]
pub struct HardStepper {
    /// The slide limit and whether collisions are logged (`simulation.method.hard`).
    pub options: HardOptions,
    /// Scratch of the drift, with the collision log of the last step.
    pub drift: DriftState,
    /// Body-force accelerations after the last drift.
    pub body: BodyForce,
    /// The resting contacts of the last step (option `resting`).
    pub(crate) rest: rest::RestState,
}

impl HardStepper {
    /// A stepper with `options` and empty scratch.
    pub fn new(options: HardOptions) -> Self {
        HardStepper {
            options,
            ..Default::default()
        }
    }

    /// Advances the world by one step of `physics.dt` with hard-sphere collisions, counting
    /// them in [`World::collisions`].
    pub fn step(&mut self, world: &mut World, physics: &Physics) -> Result<CollisionStats> {
        let stats = step(world, physics, self)?;
        world.collisions += stats.collisions;
        Ok(stats)
    }
}

/// Advances the world by one step of `physics.dt` with hard-sphere collisions.
fn step(world: &mut World, physics: &Physics, s: &mut HardStepper) -> Result<CollisionStats> {
    let dt = physics.dt;
    // Walls where they are now; grains touching sticky walls held, absorbing ones removed.
    prepare(world, &physics.periodic);
    plan_walls(world, &mut s.drift, dt);
    kick(world, physics, &mut s.body, 0.5 * dt);
    rest::settle(world, physics, s, dt);
    let flying = fly(world, physics, &mut s.drift, dt);
    let fastest = flying.unwrap_or_else(|| crate::particles::fastest(&world.particles.vel));
    let v_max = fastest.max(rest::reach(&s.options));
    // The skin is a fixed number of the longest drifts of a step; within it the list holds every
    // pair that can meet while the grains move straight. A collision that speeds a grain past
    // that rebuilds the list in the drift ([`drift`]).
    let reach = v_max * dt;
    let skin = world.neighbors.skin;
    let resize = reach * SKIN_REACHES < 0.5 * skin || reach * SKIN_REACHES > 2.0 * skin;
    if resize {
        world.neighbors.skin = SKIN_REACHES * reach;
    }
    match s.drift.flight.as_deref_mut().filter(|_| flying.is_some()) {
        // Free flight keeps only the list's anchors, where the list would be rebuilt.
        Some(f) => {
            if resize || f.leaves(&world.particles, dt, world.neighbors.skin, world.step) {
                anchor_reference(world, f, (0.0, dt));
            }
        }
        None => {
            let p = &world.particles;
            let (pos, vel, l) = (&p.pos, &p.vel, physics.periodic.lengths());
            if resize || world.neighbors.needs_rebuild_for(pos, vel, dt, l) {
                world.rebuild_neighbors(&physics.periodic);
            }
        }
    }
    let stats = drift(world, physics, s, dt)?;
    world.time += dt;
    world.step += 1;
    s.body.update(physics, &world.particles, world.time);
    kick(world, physics, &mut s.body, 0.5 * dt);
    if let Some(f) = s.drift.flight.as_deref_mut() {
        f.saw(&world.particles);
    }
    Ok(stats)
}

/// The neighbour skin in units of the longest drift of a step, v_max dt: the fastest in
/// `bench hard-gas` (measured: a longer skin lists more pairs, a shorter one rebuilds oftener).
const SKIN_REACHES: f64 = 4.0;

/// The walls' straight paths over the step, and the velocities of held grains: the secant
/// from where they are to where their wall puts them at the end of the step. Grains fixed by
/// the scene (not held by a wall) stay where they are, at zero velocity.
fn plan_walls(world: &mut World, ds: &mut DriftState, dt: f64) {
    let t0 = world.time;
    let rt = &world.wall_runtime;
    ds.end_pose.clear();
    ds.end_pose
        .extend(world.walls.iter().map(|w| w.motion.pose(t0 + dt)));
    ds.walls.clear();
    ds.walls
        .extend(
            world
                .walls
                .iter()
                .zip(&rt.pose)
                .zip(&ds.end_pose)
                .map(|((wall, start), end)| WallDrift {
                    offset: start.offset,
                    vel: (end.offset - start.offset) / dt,
                    omega: wall.motion.pose(t0 + 0.5 * dt).omega,
                    center: start.center,
                }),
        );
    let p = &mut world.particles;
    for k in 0..p.len() {
        if p.inv_mass[k] > 0.0 {
            continue;
        }
        p.vel[k] = match rt.attached[k] {
            Some(a) => (ds.end_pose[a.wall as usize].to_world(a.local) - p.pos[k]) / dt,
            None => DVec3::ZERO,
        };
    }
}

/// v += h g for every mobile particle (the only forces between collisions are body forces:
/// gravity fields, self-gravity included, and frame forces, evaluated after each drift).
/// Where no body force acts there is nothing to add (but a −0 component's sign: +0 after the
/// sum, kept −0 without it; a position moved by −0 is the same number).
fn kick(world: &mut World, physics: &Physics, body: &mut BodyForce, h: f64) {
    if physics.uniform_acceleration() == Some(DVec3::ZERO) {
        return;
    }
    if body.acc.len() != world.particles.len() {
        body.update(physics, &world.particles, world.time);
    }
    let p = &mut world.particles;
    for k in 0..p.len() {
        if p.inv_mass[k] > 0.0 {
            p.vel[k] += h * body.acc[k];
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

/// Moves particle k's position to drift time t (grains fixed by the scene have zero velocity),
/// wrapped into the periodic box; the list's ghosts count the wrap.
fn advance(world: &mut World, ds: &mut DriftState, periodic: &Periodic, k: usize, t: f64) {
    let p = &mut world.particles;
    let raw = p.pos[k] + p.vel[k] * (t - ds.t_last[k]);
    p.pos[k] = periodic.wrap(raw);
    if let Some(f) = ds.flight.as_deref_mut() {
        f.count_wrap(k, raw, p.pos[k]);
    } else if let Some(ghosts) = world.neighbors.ghosts.as_mut() {
        ghosts.count_wrap(k, raw, p.pos[k], periodic.lengths());
    }
    ds.t_last[k] = t;
}

/// The separation from grain i at `xi` to grain j's image `s` when j is at `xj` (m): the
/// plain difference, shifted by whole periods when the image is not the grain itself (images
/// as a free flight names them, else as the world's list does).
fn separation(
    world: &World,
    ds: &DriftState,
    l: DVec3,
    (i, xi): (usize, DVec3),
    (j, s): (usize, Image),
    xj: DVec3,
) -> DVec3 {
    let d = xj - xi;
    match (ds.flight.as_deref(), world.neighbors.ghosts.as_ref()) {
        (Some(f), _) => f.separation(i, (j, s), d),
        (None, Some(g)) => g.separation(i, (j, s), d, l),
        (None, None) => d,
    }
}

/// Grain i's listed partners with their images: its own row (ghosts resolved to their
/// grains), then the rows naming it, and those naming its ghosts (the image seen from i is the
/// opposite of the ghost's).
fn partners(world: &World, i: usize) -> impl Iterator<Item = (usize, Image)> + '_ {
    let nl = &world.neighbors;
    let ghosts = nl.ghosts.as_ref();
    let resolve = move |j: u32| ghosts.map_or((j as usize, [0; 3]), |g| g.resolve(j as usize));
    let rows = move |k: usize| {
        let owners = &nl.links.rev_owner[nl.links.rev_start[k]..nl.links.rev_start[k + 1]];
        owners.iter().map(|&o| o as usize)
    };
    let forward = nl.partner[nl.start[i]..nl.start[i + 1]]
        .iter()
        .map(move |&j| resolve(j));
    let backward = rows(i).map(|k| (k, [0; 3]));
    let of_ghosts = ghosts.into_iter().flat_map(move |g| {
        g.of(i).flat_map(move |gi| {
            let s = g.image[gi - g.n_owned];
            rows(gi).map(move |k| (k, s.map(|n| -n)))
        })
    });
    forward.chain(backward).chain(of_ghosts)
}

/// Order among partners met at the same time, the first wins: those after grain i before
/// those before it, each in ascending order of grain, then image.
fn tie(i: usize, (j, s): (usize, Image)) -> (bool, usize, Image) {
    (j < i, j, s)
}

/// A pair met by a prediction in free flight, filed for a step.
type Met = (u64, Entry);

/// The earliest event of particle `i` from drift time `now` to `end`: its listed partners
/// (forward rows, then reverse rows; the first of equal times wins) and every wall member. In
/// free flight its partners are those it can reach before `end` and those in the cells about
/// it; each is put in `met` when given (after i collided: its pairs are filed anew).
fn predict(
    world: &World,
    physics: &Physics,
    ds: &DriftState,
    i: usize,
    (now, end): (f64, f64),
    mut met: Option<&mut Vec<Met>>,
) -> Option<Event> {
    let p = &world.particles;
    let period = physics.periodic.lengths();
    let xi = p.pos[i] + p.vel[i] * (now - ds.t_last[i]);
    let mut best: Option<(f64, Target)> = None;
    let mut best_tie = (false, 0, [0; 3]);
    // ρ, v and the contact distance of i and j's image s now, unless both are fixed.
    let pair = |j: usize, s: Image| {
        let xj = p.pos[j] + p.vel[j] * (now - ds.t_last[j]);
        let rho = separation(world, ds, period, (i, xi), (j, s), xj);
        let fixed = p.inv_mass[i] == 0.0 && p.inv_mass[j] == 0.0;
        (!fixed).then(|| (rho, p.vel[j] - p.vel[i], p.radius[i] + p.radius[j]))
    };
    let mut consider = |j: usize, s: Image, hit: Option<f64>| {
        if ds.gone[j] || just_met(ds, i, (j, s)) {
            return;
        }
        if let Some(t) = hit {
            // t ≤ 0 relative to now is an overlap to repair at once (000 §2.3).
            let at = now + t.max(0.0);
            let key = tie(i, (j, s));
            if at <= end && best.is_none_or(|(b, _)| at < b || (at == b && key < best_tie)) {
                (best, best_tie) = (Some((at, Target::Particle(j, s))), key);
            }
        }
    };
    match ds.flight.as_deref() {
        // Every grain that can be met before the end, from where the grains started the step,
        // and after a collision those in the cells about i, whose pairs are filed anew.
        Some(f) => {
            let reach = f.reach(p, i, p.vel[i].length(), now, end);
            f.near(i, xi, (reach, met.is_some()), |j, s| {
                let Some((rho, v, reach)) = pair(j, s) else {
                    return;
                };
                let (hit, due) = calendar::meet(rho, v, reach, now, end);
                if let (Some(met), Some(ahead)) = (met.as_deref_mut(), due) {
                    met.push((world.step + ahead, f.entry(i, j, s)));
                }
                consider(j, s, hit);
            })
        }
        None => partners(world, i).for_each(|(j, s)| {
            if let Some((rho, v, reach)) = pair(j, s) {
                consider(j, s, pair_collision_time(rho, v, reach));
            }
        }),
    }
    wall_events(world, ds, i, xi, now, end, &mut best);
    best.map(|(t, target)| event(ds, i, t, target))
}

/// True when particles i and j last collided with each other: moving straight, they cannot
/// meet again until one of them collides with something else. A grazing collision whose
/// normal speed is lost in round-off would otherwise leave them "approaching" at contact and
/// be met again at the same instant without end (pkdgrav skips the previous partner likewise).
/// A wall can be met again (a concave one, after a crossing), so there only an immediate
/// repeat (t ≤ 0) is skipped.
fn just_met(ds: &DriftState, i: usize, (j, s): (usize, Image)) -> bool {
    ds.last[i] == Some(Target::Particle(j, s))
        && ds.last[j] == Some(Target::Particle(i, s.map(|n| -n)))
}

/// Lowers `best` to particle `i`'s earliest wall contact at or before `end`, if earlier (a tie
/// keeps `best`): the grain at `xi` at drift time `now`, each wall along its drift path.
fn wall_events(
    world: &World,
    ds: &DriftState,
    i: usize,
    xi: DVec3,
    now: f64,
    end: f64,
    best: &mut Option<(f64, Target)>,
) {
    let p = &world.particles;
    if p.inv_mass[i] == 0.0 {
        return;
    }
    for ((w, wall), wd) in world.walls.iter().enumerate().zip(&ds.walls) {
        // In the wall's scene placement, relative to its motion.
        let local = xi - (wd.offset + wd.vel * now);
        let rel = p.vel[i] - wd.vel;
        for (m, shape) in wall.shape.members().iter().enumerate() {
            if let Some(t) = shape.hard_collision_time(local, rel, p.radius[i], end - now) {
                if t <= 0.0 && ds.last[i] == Some(Target::Wall(w, m)) {
                    continue; // round-off of the bounce just resolved (see `just_met`)
                }
                let at = now + t.max(0.0);
                if at <= end && best.is_none_or(|(b, _)| at < b) {
                    *best = Some((at, Target::Wall(w, m)));
                }
            }
        }
    }
}

/// The event of particle `i` with `target` at drift time `t`, stamped with the bodies'
/// collision counts.
fn event(ds: &DriftState, i: usize, t: f64, target: Target) -> Event {
    Event {
        t,
        i,
        target,
        count_i: ds.count[i],
        count_j: match target {
            Target::Particle(j, _) => ds.count[j],
            Target::Wall(..) => 0,
        },
    }
}

/// Every particle's first event of the drift: what [`predict`] gives each from drift time 0,
/// with each listed pair's contact time computed once for both bodies (the time is the same
/// from either side: ρ and v change sign together). Ties go to the partner [`predict`] meets
/// first: forward rows before reverse rows, lower index first; walls after partners.
fn first_events(world: &World, physics: &Physics, ds: &mut DriftState, dt: f64) {
    let p = &world.particles;
    let nl = &world.neighbors;
    let period = physics.periodic.lengths();
    // None for every grain between drifts.
    let mut best = std::mem::take(&mut ds.first);
    if best.len() != p.len() {
        best.clear();
        best.resize(p.len(), None);
    }
    // Ties: partner j comes before partner o in particle k's rows when (j < k, j) < (o < k, o)
    // — forward rows (partners above k) first, each row in ascending order.
    let offer = |best: &mut Option<(f64, Target)>, k: usize, at: f64, j: (usize, Image)| {
        let earlier = match *best {
            Some((b, Target::Particle(o, s))) => at < b || (at == b && tie(k, j) < tie(k, (o, s))),
            Some((b, Target::Wall(..))) => at < b,
            None => true,
        };
        if earlier {
            *best = Some((at, Target::Particle(j.0, j.1)));
        }
    };
    if let Some(f) = ds.flight.as_deref_mut() {
        // Free flight (no walls): only the pairs due, evaluated as below; the grains offered
        // a meeting are the only ones with an event.
        let mut offered = std::mem::take(&mut ds.offered);
        f.sweep(p, dt, world.step, |k, j, at| {
            if best[k].is_none() {
                offered.push(k);
            }
            offer(&mut best[k], k, at, j);
        });
        for &i in &offered {
            if let Some((t, target)) = best[i].take() {
                ds.heap.push(event(ds, i, t, target));
            }
        }
        offered.clear();
        ds.offered = offered;
        ds.first = best;
        return;
    }
    let ghosts = nl.ghosts.as_ref();
    for i in 0..p.len() {
        for &j in &nl.partner[nl.start[i]..nl.start[i + 1]] {
            let (j, s) = ghosts.map_or((j as usize, [0; 3]), |g| g.resolve(j as usize));
            if p.inv_mass[i] == 0.0 && p.inv_mass[j] == 0.0 {
                continue;
            }
            let rho = separation(world, ds, period, (i, p.pos[i]), (j, s), p.pos[j]);
            let (v, reach) = (p.vel[j] - p.vel[i], p.radius[i] + p.radius[j]);
            if let Some(t) = pair_collision_time(rho, v, reach) {
                let at = t.max(0.0);
                if at <= dt {
                    offer(&mut best[i], i, at, (j, s));
                    offer(&mut best[j], j, at, (i, s.map(|n| -n)));
                }
            }
        }
    }
    for (i, b) in best.iter_mut().enumerate() {
        wall_events(world, ds, i, p.pos[i], 0.0, dt, b);
        if let Some((t, target)) = b.take() {
            ds.heap.push(event(ds, i, t, target));
        }
    }
    ds.first = best;
}

/// The drift of one step: collisions in time order, then every particle advanced to `dt`.
fn drift(
    world: &mut World,
    physics: &Physics,
    s: &mut HardStepper,
    dt: f64,
) -> Result<CollisionStats> {
    let n = world.particles.len();
    let body_acc = &s.body.acc;
    let mut ds = std::mem::take(&mut s.drift);
    ds.start(n);
    first_events(world, physics, &mut ds, dt);
    let mut stats = CollisionStats::default();
    let periodic = physics.periodic;
    let period = periodic.lengths();
    let limit = COLLAPSE_PER_GRAIN * n as u64 + COLLAPSE_FLOOR;
    let mut met = std::mem::take(&mut ds.met);
    while let Some(e) = ds.heap.pop() {
        let j_count = match e.target {
            Target::Particle(j, _) => ds.count[j],
            Target::Wall(..) => 0,
        };
        if e.count_i != ds.count[e.i] {
            continue; // i collided since: it was re-predicted then.
        }
        if e.count_j != j_count {
            // The partner moved on: i needs a new prediction from now.
            if let Some(next) = predict(world, physics, &ds, e.i, (e.t, dt), None) {
                ds.heap.push(next);
            }
            continue;
        }
        let i = e.i;
        advance(world, &mut ds, &periodic, i, e.t);
        if let Target::Particle(j, _) = e.target {
            advance(world, &mut ds, &periodic, j, e.t);
        }
        let overlap = collide(world, physics, &s.options, &mut ds, body_acc, &e)?;
        stats.max_overlap_ratio = stats.max_overlap_ratio.max(overlap);
        if overlap > physics.max_overlap {
            return Err(unstable(world, &e, format!(
                "overlap of {overlap:.3} of a radius at a collision (simulation.max_overlap = {}); likely cause: grains placed overlapping each other or a wall",
                physics.max_overlap
            )));
        }
        ds.count[i] += 1;
        stats.collisions += 1;
        if stats.collisions > limit {
            return Err(unstable(world, &e, format!(
                "more than {limit} collisions in one step (inelastic collapse: grains in lasting contact); likely cause: dt too large for a dense, dissipative pack — try method = \"soft\" or a smaller dt"
            )));
        }
        ds.met(i, e.target);
        let partner = match e.target {
            Target::Particle(j, s) => {
                ds.count[j] += 1;
                ds.met(j, Target::Particle(i, s.map(|n| -n)));
                Some(j)
            }
            Target::Wall(..) => None,
        };
        let here = |k: usize| (!ds.gone[k]).then_some(k);
        let bodies = here(i).into_iter().chain(partner.and_then(here));
        let p = &world.particles;
        if let Some(f) = ds.flight.as_deref_mut() {
            for k in bodies.clone() {
                f.collided(k, p, (e.t, dt), world.neighbors.skin, world.step);
            }
        }
        let nl = &world.neighbors;
        if bodies.clone().all(|k| match ds.flight.as_deref() {
            Some(f) => f.keeps(k, p.pos[k], p.vel[k], dt - e.t, nl.skin),
            None => nl.keeps(k, p.pos[k], p.vel[k], dt - e.t, period),
        }) {
            for k in bodies {
                if let Some(next) = predict(world, physics, &ds, k, (e.t, dt), Some(&mut met)) {
                    ds.heap.push(next);
                }
                if let Some(f) = ds.flight.as_deref_mut() {
                    met.drain(..).for_each(|(due, pair)| f.file(due, pair));
                }
            }
        } else {
            if let Some(f) = ds.flight.as_deref_mut() {
                bodies.for_each(|k| f.renew(k));
            }
            // The collision sped a grain up past what the list covers: list anew from here.
            rebuild_in_drift(world, physics, &mut ds, e.t, dt);
        }
    }
    finish(world, &mut ds, &periodic, dt);
    ds.met = met;
    s.drift = ds;
    Ok(stats)
}

/// The end of a drift: every grain advanced to `dt`, held grains exactly where their walls put
/// them at the end of the step, absorbed grains removed.
fn finish(world: &mut World, ds: &mut DriftState, periodic: &Periodic, dt: f64) {
    let [lo, hi] = periodic.bounds();
    for k in 0..world.particles.len() {
        let p = &mut world.particles;
        let raw = p.pos[k] + p.vel[k] * (dt - ds.t_last[k]);
        if raw.cmpge(lo).all() && raw.cmplt(hi).all() {
            // Inside the box: what `advance` gives, with nothing to wrap.
            p.pos[k] = raw;
        } else {
            advance(world, ds, periodic, k, dt);
        }
        // The next drift starts here.
        ds.t_last[k] = 0.0;
    }
    // Only walls hold grains: without one, no pass over every grain.
    if !world.walls.is_empty() {
        for (k, a) in world.wall_runtime.attached.iter().enumerate() {
            if let Some(a) = a {
                world.particles.pos[k] = ds.end_pose[a.wall as usize].to_world(a.local);
            }
        }
    }
    if ds.absorbed {
        let keep: Vec<bool> = ds.gone.iter().map(|g| !g).collect();
        remove_particles(world, &keep, periodic);
    }
}

/// The run stopped at event `e`, for `reason`.
fn unstable(world: &World, e: &Event, reason: String) -> Error {
    Error::Unstable {
        time: world.time + e.t,
        step: world.step,
        id: world.particles.id[e.i],
        reason,
    }
}

/// Rebuilds the neighbour list at drift time `now` (every grain advanced to it, the skin
/// widened to the new fastest grain) and predicts every grain's next event afresh.
fn rebuild_in_drift(world: &mut World, physics: &Physics, ds: &mut DriftState, now: f64, dt: f64) {
    let periodic = physics.periodic;
    for k in 0..world.particles.len() {
        advance(world, ds, &periodic, k, now);
    }
    // The last partners' images as the new ghosts will number them (from where grains are now);
    // a free flight keeps its own.
    if let (None, Some(g)) = (&ds.flight, &world.neighbors.ghosts) {
        for (i, last) in ds.last.iter_mut().enumerate() {
            if let Some(Target::Particle(j, s)) = *last {
                *last = Some(Target::Particle(j, g.image_now(i, j, s)));
            }
        }
    }
    let nl = &mut world.neighbors;
    nl.skin = nl
        .skin
        .max(SKIN_REACHES * crate::particles::fastest(&world.particles.vel) * dt);
    match ds.flight.as_deref_mut() {
        Some(f) => anchor_reference(world, f, (now, dt)),
        None => world.rebuild_neighbors(&periodic),
    }
    ds.heap.clear();
    for k in 0..world.particles.len() {
        if !ds.gone[k] {
            if let Some(next) = predict(world, physics, ds, k, (now, dt), None) {
                ds.heap.push(next);
            }
        }
    }
}

/// Collisions in one step past which a run is stopped as inelastic collapse: far above the few
/// per grain a step of any sensible dt sees, so only a pack in lasting contact reaches it.
const COLLAPSE_PER_GRAIN: u64 = 1000;
const COLLAPSE_FLOOR: u64 = 1_000_000;
