//! A soft-sphere run shared among processes (ranks): domain decomposition into bricks, copies
//! of the neighbours' grains, migration at rebuilds; results bit-identical to one process.
//!
//! Each rank owns the grains in its brick ([`Bricks`]) and holds copies of the other ranks'
//! grains within the interaction reach (2 r_max + skin) of its brick, periodic faces included.
//! Its arrays hold its own grains and the copies together **in the order of one process**
//! (the index each grain has there, `global`), the list's blocks start where one process's
//! start (`neighbor::Share`), and no pair of two copies is listed. A pair whose grains lie on
//! two ranks is then evaluated by both, in the same orientation (i below k in one process's
//! order) from the same inputs and history, and every grain's force is summed over the same
//! partners in the same order as in one process: the sums of its block in slot order, the
//! crossing reactions in ascending owner, its wall contact, its body force. So each own
//! grain's force, velocity and position keep the bits of one process, for any number of ranks.
//! The forces the copies get are thrown away: their owners' are the right ones.
//!
//! Every step the copies receive their owners' positions, velocities and spins after the
//! drift. The list is rebuilt by all ranks together when a grain of any rank left half the
//! skin (the skin sized from the fastest grain of all); then each grain whose brick changed
//! moves to its new rank with its wall contacts and the history of its touching pairs, keyed
//! by ids, and the copies are made anew with every property.
//!
//! What the method refuses on several ranks, with the field and the reason, is
//! [`refusal`]'s: hard spheres, integrators other than Verlet, sorting, grains that come or
//! go, walls that hold or absorb grains, and the outputs read from the contacts
//! (stress, tallies, wall forces, the contact network). The other outputs are gathered on
//! rank 0 (`view.rs`): snapshots, series and checkpoints, which resume on any number of ranks.

use std::collections::HashMap;

use glam::DVec3;

use crate::neighbor::{Share, BLOCK};
use crate::particles::Particles;
use crate::physics::{BodyForce, Physics};
use crate::scene::{Integrator, Method, Scene};
use crate::sim::Simulation;
use crate::soft::Exchange;
use crate::stepper::Stepper;
use crate::walls::history::WallMember;
use crate::world::{PairHistory, World};
use crate::{Error, Result};

pub mod bricks;
#[cfg(feature = "mpi")]
pub mod mpi;
mod records;
pub mod transport;
mod view;

pub use bricks::Bricks;
use records::{put_end, put_grain, put_state, take_grain, take_state};
use transport::{all_gather, any, max, Reader, Writer};
pub use transport::{threads, Threads, Transport};

/// A wall contact of a grain keyed by its id: (id, wall member, state).
type WallContact = (u64, WallMember, crate::contact::ContactState);

/// One rank's share of a run: its simulation holds its own grains and the copies.
pub struct Shared {
    /// The rank's simulation: the world holds its grains and the copies, in the order of one
    /// process.
    pub sim: Simulation,
    /// The decomposition and the exchange with the other ranks.
    pub domain: Domain,
}

/// What a rank knows of the decomposition, and its link to the others.
pub struct Domain {
    transport: Box<dyn Transport>,
    /// The bricks, one per rank.
    pub bricks: Bricks,
    /// Each grain's index in one process, ascending.
    global: Vec<u64>,
    /// Whether each grain is this rank's own (else a copy).
    own: Vec<bool>,
    /// Per rank: this rank's grains it holds copies of (indices here, ascending).
    send: Vec<Vec<u32>>,
    /// Per rank: the copies of its grains here (indices here, ascending).
    recv: Vec<Vec<u32>>,
    /// The largest radius of all grains (m).
    r_max: f64,
    /// Every grain as one process holds it, for self-gravity (empty without).
    everyone: Everyone,
    /// Bytes this rank sent to the others so far.
    pub bytes_sent: u64,
    /// Grains this rank took in from other ranks at rebuilds so far.
    pub migrated: u64,
}

impl Shared {
    /// This rank's share of the run of `scene` (relative paths from `base`) over `transport`:
    /// every rank builds the whole run and keeps its grains and the copies it needs. Refused
    /// on more than one rank for what the method does not share ([`refusal`]).
    pub fn new(
        scene: Scene,
        base: &std::path::Path,
        transport: Box<dyn Transport>,
    ) -> Result<Shared> {
        if transport.size() > 1 {
            if let Some(e) = refusal(&scene) {
                return Err(e);
            }
        }
        Shared::from(Simulation::new(scene, base)?, transport)
    }

    /// This rank's share of the whole run `sim` (built, or resumed from a checkpoint, alike on
    /// every rank) over `transport`. Refused on more than one rank for what the method does
    /// not share ([`refusal`]).
    pub fn from(mut sim: Simulation, transport: Box<dyn Transport>) -> Result<Shared> {
        if transport.size() > 1 {
            if let Some(e) = refusal(&sim.scene) {
                return Err(e);
            }
        }
        let w = &sim.world;
        let periodic = &sim.physics.periodic;
        let bricks = Bricks::new(transport.size(), periodic, &w.particles.pos);
        let mut domain = Domain {
            bricks,
            global: Vec::new(),
            own: Vec::new(),
            send: Vec::new(),
            recv: Vec::new(),
            r_max: w.particles.max_radius(),
            everyone: Everyone::new(&sim.physics, &w.particles),
            bytes_sent: 0,
            migrated: 0,
            transport,
        };
        let me = domain.transport.rank();
        let reach = domain.reach(w.neighbors.skin);
        let p = &w.particles;
        let (mut grains, mut global, mut own) = (Particles::default(), Vec::new(), Vec::new());
        for k in 0..p.len() {
            let mine = domain.bricks.rank_of(p.pos[k]) == me;
            if mine || domain.bricks.near(me, p.pos[k], reach) {
                copy_grain(&mut grains, p, k);
                global.push(k as u64);
                own.push(mine);
            }
        }
        let pairs = w.pair_history_by_id(periodic);
        let walls: Vec<WallContact> = (w.wall_history.iter())
            .map(|(k, m, s)| (p.id[k], m, s.clone()))
            .collect();
        let skin = w.neighbors.skin;
        let grains = (grains, global, own);
        domain.install(&mut sim.world, &sim.physics, grains, &pairs, walls, skin);
        Ok(Shared { sim, domain })
    }

    /// Advances this rank's share by one step, with the other ranks.
    pub fn step(&mut self) -> Result<()> {
        let sim = &mut self.sim;
        match &mut sim.stepper {
            Stepper::Soft(s) => {
                sim.stats = s.step_shared(&mut sim.world, &sim.physics, &mut self.domain)?;
                Ok(())
            }
            _ => Err(Error::scene(
                "simulation.method",
                "only soft spheres are shared among ranks",
            )),
        }
    }

    /// Every rank's own grains, in the order of one process, on rank 0 (None on the others);
    /// every rank calls it together.
    pub fn gather(&mut self) -> Option<Particles> {
        let d = &mut self.domain;
        let p = &self.sim.world.particles;
        let mut w = Writer::default();
        for k in (0..p.len()).filter(|&k| d.own[k]) {
            put_grain(&mut w, p, k, d.global[k], &[]);
        }
        let mut out = vec![Vec::new(); d.transport.size()];
        out[0] = w.0;
        let got = d.transport.exchange(out);
        if d.transport.rank() != 0 {
            return None;
        }
        let (mut all, mut global) = (Particles::default(), Vec::new());
        for m in &got {
            let mut r = Reader(m);
            while !r.is_empty() {
                global.push(take_grain(&mut r, &mut all).0);
            }
        }
        let mut order: Vec<usize> = (0..all.len()).collect();
        order.sort_by_key(|&k| global[k]);
        all.permute(&order);
        Some(all)
    }

    /// This rank, its own grains, the copies it holds and the bytes it sent so far.
    pub fn counts(&self) -> (usize, usize, usize, u64) {
        let d = &self.domain;
        let own = d.own.iter().filter(|&&o| o).count();
        (d.transport.rank(), own, d.own.len() - own, d.bytes_sent)
    }

    /// The largest of every rank's `x`; every rank calls it together.
    pub fn max(&mut self, x: f64) -> f64 {
        max(&mut *self.domain.transport, x)
    }

    /// What every rank sent, by rank; every rank calls it together.
    pub fn all_gather(&mut self, message: Vec<u8>) -> Vec<Vec<u8>> {
        all_gather(&mut *self.domain.transport, message)
    }
}

/// Why `scene` cannot be shared among ranks, naming the field; None when it can.
pub fn refusal(scene: &Scene) -> Option<Error> {
    let s = &scene.simulation;
    let no = |field: &str, what: &str| {
        Some(Error::scene(
            field,
            format!("{what} runs on one process only; run it without mpirun (or with -np 1)"),
        ))
    };
    match s.method {
        Method::Soft(o) if o.integrator != Integrator::VelocityVerlet => {
            return no(
                "simulation.method.soft.integrator",
                "an integrator other than velocity_verlet",
            )
        }
        Method::Soft(_) => {}
        _ => {
            return no(
                "simulation.method",
                "hard and approx_hard spheres (collisions are not shared among ranks)",
            )
        }
    }
    if s.sort_every.is_some() {
        return no("simulation.sort_every", "sorting the grains");
    }
    if !scene.inserts.is_empty() {
        return no("inserts", "inserting grains");
    }
    if scene.recirculation.is_some() {
        return no("recirculation", "recirculation");
    }
    let o = &scene.output;
    let outputs = [
        (o.stress.is_some(), "output.stress", "stress output"),
        (o.tallies.is_some(), "output.tallies", "tallies"),
        (o.wall_forces, "output.wall_forces", "the wall force series"),
        (o.contacts, "output.contacts", "the contact network output"),
    ];
    if let Some((_, field, what)) = outputs.iter().find(|o| o.0) {
        return no(field, what);
    }
    let holds = (scene.walls.iter()).position(|w| w.surface != crate::walls::Surface::Normal);
    if let Some(k) = holds {
        return no(&format!("walls[{k}].surface"), "a sticky or absorbing wall");
    }
    None
}

impl Domain {
    /// The reach of the copies for skin `skin` (m): every pair that can touch before the next
    /// rebuild, 2 r_max + skin.
    fn reach(&self, skin: f64) -> f64 {
        2.0 * self.r_max + skin
    }

    /// Puts `grains` (with their indices in one process and whether each is this rank's) into
    /// `w` in the order of one process, with the wall contacts `walls` and the pair histories
    /// `pairs` of the own grains, and the list built with skin `skin`.
    fn install(
        &mut self,
        w: &mut World,
        physics: &Physics,
        (mut grains, mut global, mut own): (Particles, Vec<u64>, Vec<bool>),
        pairs: &[PairHistory],
        walls: Vec<WallContact>,
        skin: f64,
    ) {
        let mut order: Vec<usize> = (0..grains.len()).collect();
        order.sort_by_key(|&k| global[k]);
        grains.permute(&order);
        global = order.iter().map(|&k| global[k]).collect();
        own = order.iter().map(|&k| own[k]).collect();
        let n = grains.len();
        let index = grains.index_map();
        w.particles = grains;
        let walls = walls
            .into_iter()
            .filter_map(|(id, m, s)| Some((*index.get(&id)?, m, s)));
        w.wall_history.restore(n, walls, &w.walls);
        w.wall_runtime.attached = vec![None; n];
        let mut nl = w.neighbors.emptied();
        nl.share = Some(Share {
            block: global.iter().map(|&g| (g / BLOCK as u64) as u32).collect(),
            own: own.clone(),
        });
        (nl.skin, nl.auto) = (skin, None);
        let auto = w.neighbors.auto;
        w.neighbors = nl;
        w.rebuild_neighbors(&physics.periodic);
        w.neighbors.auto = auto;
        w.set_pair_history_by_id(pairs);
        // Which own grains each rank holds copies of, and where each rank's copies are here:
        // both in the order of one process, so the messages need no ids.
        let (me, size) = (self.transport.rank(), self.transport.size());
        let reach = self.reach(skin);
        let p = &w.particles;
        self.send = (0..size)
            .map(|r| {
                (0..n)
                    .filter(|&k| own[k] && r != me && self.bricks.near(r, p.pos[k], reach))
                    .map(|k| k as u32)
                    .collect()
            })
            .collect();
        self.recv = (0..size)
            .map(|r| {
                (0..n)
                    .filter(|&k| !own[k] && self.bricks.rank_of(p.pos[k]) == r)
                    .map(|k| k as u32)
                    .collect()
            })
            .collect();
        (self.global, self.own) = (global, own);
    }
}

/// Every grain of the run as one process holds it, for the self-gravity of a rank's grains:
/// the positions all-gathered at each evaluation, the masses (which never change) kept from
/// the start. Empty when the scene has no self-gravity.
#[derive(Default)]
struct Everyone {
    /// Every grain's position (m), in the order of one process.
    pos: Vec<DVec3>,
    /// Every grain's mass (kg).
    mass: Vec<f64>,
    /// Whether each grain is this rank's own.
    wanted: Vec<bool>,
}

impl Everyone {
    /// For the whole run `p` (in the order of one process) under `physics`.
    fn new(physics: &Physics, p: &Particles) -> Everyone {
        match physics.gravity.self_gravity {
            Some(_) => Everyone {
                pos: p.pos.clone(),
                mass: p.mass.clone(),
                wanted: vec![false; p.len()],
            },
            None => Everyone::default(),
        }
    }
}

/// Appends grain `k` of `p` to `to`, every property.
fn copy_grain(to: &mut Particles, p: &Particles, k: usize) {
    to.id.push(p.id[k]);
    to.pos.push(p.pos[k]);
    to.vel.push(p.vel[k]);
    to.omega.push(p.omega[k]);
    to.radius.push(p.radius[k]);
    to.mass.push(p.mass[k]);
    to.inv_mass.push(p.inv_mass[k]);
    to.inertia.push(p.inertia[k]);
    to.inv_inertia.push(p.inv_inertia[k]);
    to.material.push(p.material[k]);
    to.mobility.push(p.mobility[k]);
    to.force.push(p.force[k]);
    to.torque.push(p.torque[k]);
    to.passes.push(p.passes[k]);
}

impl Exchange for Domain {
    fn after_drift(&mut self, world: &mut World, physics: &Physics, left: bool) -> bool {
        let p = &mut world.particles;
        let out = self
            .send
            .iter()
            .map(|ks| {
                let mut w = Writer(Vec::with_capacity(72 * ks.len()));
                for &k in ks {
                    let k = k as usize;
                    for v in [p.pos[k], p.vel[k], p.omega[k]] {
                        w.vec3(v);
                    }
                }
                w.0
            })
            .collect::<Vec<_>>();
        self.bytes_sent += out.iter().map(|m| m.len() as u64).sum::<u64>();
        let got = self.transport.exchange(out);
        for (ks, m) in self.recv.iter().zip(&got) {
            let mut r = Reader(m);
            for &k in ks {
                let k = k as usize;
                (p.pos[k], p.vel[k], p.omega[k]) = (r.vec3(), r.vec3(), r.vec3());
            }
        }
        // The drift asked every grain here, copies too, which drifted with partial forces:
        // only the own grains' moves count, each rank asking its own.
        let period = physics.periodic.lengths();
        let nl = &world.neighbors;
        let mine = left
            && (0..p.len())
                .any(|k| self.own[k] && !nl.keeps(k, p.pos[k], DVec3::ZERO, 0.0, period));
        any(&mut *self.transport, mine)
    }

    fn rebuild(&mut self, world: &mut World, physics: &Physics) {
        migrate(self, world, physics);
    }

    fn body_force(&mut self, world: &World, physics: &Physics, body: &mut BodyForce) {
        let p = &world.particles;
        if physics.gravity.self_gravity.is_none() {
            return body.update(physics, p, world.time);
        }
        let mine = || (0..p.len()).filter(|&k| self.own[k]);
        let mut w = Writer(Vec::with_capacity(32 * p.len()));
        for k in mine() {
            w.u64(self.global[k]);
            w.vec3(p.pos[k]);
        }
        self.bytes_sent += (w.0.len() * (self.transport.size() - 1)) as u64;
        let e = &mut self.everyone;
        e.wanted.fill(false);
        for k in mine() {
            e.wanted[self.global[k] as usize] = true;
        }
        for m in all_gather(&mut *self.transport, w.0) {
            let mut r = Reader(&m);
            while !r.is_empty() {
                let g = r.u64() as usize;
                e.pos[g] = r.vec3();
            }
        }
        let everyone = crate::gravity::Everyone {
            pos: &e.pos,
            mass: &e.mass,
            wanted: &e.wanted,
            index: &self.global,
        };
        body.update_among(physics, p, world.time, &everyone);
    }

    fn checked(&mut self, check: Result<()>) -> Result<bool> {
        let me = self.transport.rank();
        let mut w = Writer::default();
        if let Err(e) = &check {
            w.str(&e.to_string());
        }
        let got = all_gather(&mut *self.transport, w.0);
        match got.iter().position(|m| !m.is_empty()) {
            Some(rank) => Err(Error::Rank {
                rank,
                message: if rank == me {
                    check.err().map(|e| e.to_string()).unwrap_or_default()
                } else {
                    Reader(&got[rank]).str()
                },
            }),
            None => Ok(false),
        }
    }
}

/// The rebuild of all ranks together: the skin from the fastest grain of all, each own grain
/// whose brick changed sent to its new rank with its wall contacts and the histories of its
/// touching pairs, the copies made anew, the list built.
fn migrate(d: &mut Domain, world: &mut World, physics: &Physics) {
    let (me, size) = (d.transport.rank(), d.transport.size());
    let p = &world.particles;
    let mine = (0..p.len()).filter(|&k| d.own[k]);
    let fastest = mine.clone().map(|k| p.vel[k].length()).fold(0.0, f64::max);
    let fastest = max(&mut *d.transport, fastest);
    let skin = world.auto_skin(fastest).unwrap_or(world.neighbors.skin);
    let reach = d.reach(skin);
    let pairs = world.pair_history_by_id(&physics.periodic);
    let dest: HashMap<u64, usize> = mine
        .clone()
        .map(|k| (p.id[k], d.bricks.rank_of(p.pos[k])))
        .collect();
    // The grains that go, with their wall contacts; then the pair histories each rank needs.
    let mut out: Vec<Writer> = (0..size).map(|_| Writer::default()).collect();
    let (mut grains, mut global, mut walls) = (Particles::default(), Vec::new(), Vec::new());
    for k in mine {
        let contacts: Vec<_> = world.wall_history.contacts(k).collect();
        let contacts: Vec<_> = contacts.into_iter().filter(|(_, s)| s.touching).collect();
        match dest[&p.id[k]] {
            r if r == me => {
                copy_grain(&mut grains, p, k);
                global.push(d.global[k]);
                walls.extend(contacts.iter().map(|(m, s)| (p.id[k], *m, (*s).clone())));
            }
            r => put_grain(&mut out[r], p, k, d.global[k], &contacts),
        }
    }
    let mut kept = Vec::new();
    for w in &mut out {
        put_end(w);
    }
    for entry in &pairs {
        let to = [dest.get(&entry.0), dest.get(&entry.1)];
        if to.contains(&Some(&me)) {
            kept.push(entry.clone());
        }
        for r in to.into_iter().flatten().filter(|&&r| r != me) {
            put_pair(&mut out[*r], entry);
        }
    }
    let got = d.transport.exchange(out.into_iter().map(|w| w.0).collect());
    for m in &got {
        let mut r = Reader(m);
        while let (g, Some(contacts)) = take_grain(&mut r, &mut grains) {
            global.push(g);
            d.migrated += 1;
            let id = *grains.id.last().expect("just taken");
            walls.extend(contacts.into_iter().map(|(m, s)| (id, m, s)));
        }
        while !r.is_empty() {
            kept.push(take_pair(&mut r));
        }
    }
    // The copies, made anew from the own grains in the order of one process.
    let mut order: Vec<usize> = (0..grains.len()).collect();
    order.sort_by_key(|&k| global[k]);
    let mut copies: Vec<Writer> = (0..size).map(|_| Writer::default()).collect();
    for &k in &order {
        for (r, w) in copies.iter_mut().enumerate() {
            if r != me && d.bricks.near(r, grains.pos[k], reach) {
                put_grain(w, &grains, k, global[k], &[]);
            }
        }
    }
    let got = d
        .transport
        .exchange(copies.into_iter().map(|w| w.0).collect());
    d.bytes_sent += got.iter().map(|m| m.len() as u64).sum::<u64>();
    let mut own = vec![true; grains.len()];
    for m in &got {
        let mut r = Reader(m);
        while !r.is_empty() {
            global.push(take_grain(&mut r, &mut grains).0);
            own.push(false);
        }
    }
    d.install(world, physics, (grains, global, own), &kept, walls, skin);
}

/// A pair history (ids, image, state) into a message.
fn put_pair(w: &mut Writer, (a, b, image, s): &PairHistory) {
    w.u64(*a);
    w.u64(*b);
    for n in image.unwrap_or([0; 3]) {
        w.u32(n as u32);
    }
    put_state(w, s);
}

/// A pair history from a message.
fn take_pair(r: &mut Reader) -> PairHistory {
    let (a, b) = (r.u64(), r.u64());
    let image = [r.u32() as i32, r.u32() as i32, r.u32() as i32];
    (a, b, Some(image), take_state(r))
}

#[cfg(test)]
mod tests;
