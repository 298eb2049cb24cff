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
//! The forces the copies get are partial: after each evaluation every copy is given its
//! owner's force and torque, and the second half kick they give, so that it kicks and drifts
//! as its owner does, to the bit.
//!
//! At the start rank 0 makes the scene's grains as one process does and sends each rank
//! those of its brick and the copies before any list is built; a rank's list and first forces
//! are its share's (`start.rs`).
//!
//! The list is rebuilt by all ranks together when a grain of any rank left half the skin (the
//! skin sized from the fastest grain of all); then each grain whose brick changed moves to its
//! new rank with its wall contacts and the histories of its touching pairs, and each rank is
//! sent the copies it lacks, at a cost that follows what moves (`migrate.rs`).
//!
//! What the method refuses on several ranks, with the field and the reason, is
//! [`refusal`]'s: hard spheres, integrators other than Verlet, sorting, grains that come or
//! go, walls that hold or absorb grains, and the outputs read from the contacts
//! (stress, tallies, wall forces, the contact network). The other outputs are gathered on
//! rank 0 (`view.rs`): snapshots, series and checkpoints, which resume on any number of ranks.

use glam::DVec3;

use crate::neighbor::NeighborList;
use crate::particles::Particles;
use crate::physics::{BodyForce, Physics};
use crate::scene::{BalanceBy, Integrator, Method, Scene};
use crate::sim::Simulation;
use crate::soft::Exchange;
use crate::stepper::Stepper;
use crate::walls::history::WallMember;
use crate::world::{PairHistory, World};
use crate::{Error, Result};
use migrate::migrate;

pub mod bricks;
mod migrate;
#[cfg(feature = "mpi")]
pub mod mpi;
mod records;
mod start;
pub mod transport;
mod view;

pub use bricks::{Bricks, Layout};
use records::{put_grain, put_load, put_state, take_grain, take_load, take_state, LOAD};
pub use start::Part;
use transport::{all_gather, Clocked, Reader, Writer};
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
    transport: Clocked,
    /// The bricks, one per rank.
    pub bricks: Bricks,
    /// Each grain's index in one process, ascending.
    global: Vec<u64>,
    /// Whether each grain is this rank's own (else a copy).
    own: Vec<bool>,
    /// The rank that owns each grain.
    owner: Vec<u32>,
    /// Per rank: this rank's grains it holds copies of (indices here, ascending).
    send: Vec<Vec<u32>>,
    /// Per rank: the copies of its grains here (indices here, ascending).
    recv: Vec<Vec<u32>>,
    /// The largest radius of all grains (m).
    r_max: f64,
    /// Every grain as one process holds it, for self-gravity (empty without).
    everyone: Everyone,
    /// The arrays of the grains before the last rebuild, kept for the next one to fill.
    spare: Particles,
    /// The velocity and spin of each copy (in the order of `recv`) before the second half
    /// kick, which its owner's force and torque give it.
    half: Vec<(DVec3, DVec3)>,
    /// Bytes this rank sent to the others so far.
    pub bytes_sent: u64,
    /// Grains this rank took in from other ranks at rebuilds so far.
    pub migrated: u64,
    /// Rebuilds between balancings of the bricks (`simulation.balance_every`).
    balance_every: Option<u64>,
    /// What they are balanced by (`simulation.balance_by`).
    balance_by: BalanceBy,
    /// The wall time and the transport's waits at the last balancing (or the start).
    balanced_at: (std::time::Instant, f64),
    /// The weight on this rank's work when balancing by time, in 1/1024ths.
    weight: u64,
}

impl Shared {
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
        self.domain.transport.max(&[x])[0]
    }

    /// What every rank sent, by rank; every rank calls it together.
    pub fn all_gather(&mut self, message: Vec<u8>) -> Vec<Vec<u8>> {
        all_gather(&mut self.domain.transport, message)
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
    /// A domain over `transport` for `scene`, holding no grain yet, cut into one brick.
    fn new(transport: Box<dyn Transport>, scene: &Scene) -> Domain {
        let s = &scene.simulation;
        Domain {
            transport: Clocked::new(transport),
            bricks: Bricks::new(1, &crate::boundary::Periodic::default(), &[]),
            global: Vec::new(),
            own: Vec::new(),
            owner: Vec::new(),
            send: Vec::new(),
            recv: Vec::new(),
            r_max: 0.0,
            everyone: Everyone::default(),
            spare: Particles::default(),
            half: Vec::new(),
            bytes_sent: 0,
            migrated: 0,
            balance_every: s.balance_every,
            balance_by: s.balance_by,
            balanced_at: (std::time::Instant::now(), 0.0),
            weight: 1024,
        }
    }
}

impl Domain {
    /// The reach of the copies for skin `skin` (m): every pair that can touch before the next
    /// rebuild, 2 r_max + skin.
    fn reach(&self, skin: f64) -> f64 {
        2.0 * self.r_max + skin
    }

    /// Cuts the bricks again by the work of every rank's own grains, when the rebuild
    /// `world` is at is one of those `simulation.balance_every` asks for; every rank calls it
    /// together.
    fn balance(&mut self, world: &World, physics: &Physics) {
        let builds = world.neighbors.builds;
        if self.balance_every.is_some_and(|k| builds.is_multiple_of(k)) {
            self.cut(world, physics, self.balance_by == BalanceBy::Time);
        }
    }

    /// Cuts the bricks again by the work of every rank's own grains, weighed by each rank's
    /// measured time when `by_time`; every rank calls it together.
    fn cut(&mut self, world: &World, physics: &Physics, by_time: bool) {
        let (p, nl) = (&world.particles, &world.neighbors);
        let mut mine: Vec<(DVec3, u64)> = (0..p.len())
            .filter(|&k| self.own[k])
            .map(|k| (p.pos[k], work(nl, k)))
            .collect();
        if by_time {
            let weight = self.weight_by_time(mine.iter().map(|g| g.1).sum());
            mine.iter_mut().for_each(|g| g.1 *= weight);
        }
        let (t, sent) = (&mut self.transport, &mut self.bytes_sent);
        let mut w = Writer::default();
        let (lo, hi) = (mine.iter()).fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), g| {
            (lo.min(g.0), hi.max(g.0))
        });
        w.vec3(lo);
        w.vec3(hi);
        *sent += (w.0.len() * (t.size() - 1)) as u64;
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for m in all_gather(t, w.0) {
            let mut r = Reader(&m);
            (lo, hi) = (lo.min(r.vec3()), hi.max(r.vec3()));
        }
        let extent = if lo.x <= hi.x {
            [lo, hi]
        } else {
            [DVec3::ZERO; 2]
        };
        let mut sum = |histogram: Vec<u64>| {
            let mut w = Writer::default();
            histogram.iter().for_each(|&h| w.u64(h));
            *sent += (w.0.len() * (t.size() - 1)) as u64;
            let mut total = vec![0u64; histogram.len()];
            for m in all_gather(t, w.0) {
                let mut r = Reader(&m);
                total.iter_mut().for_each(|h| *h += r.u64());
            }
            total
        };
        let ranks = self.bricks.len();
        self.bricks = Bricks::balanced(ranks, &physics.periodic, extent, mine, &mut sum);
    }

    /// This rank's weight on its grains' work (`work`, in all) when the bricks are balanced
    /// by time, in 1/1024ths: the geometric mean of the last weight and this rank's wall time
    /// per unit of work since the last balancing (its waits for the others left out) over that
    /// of all ranks together, so that a lasting difference between cores is followed within a
    /// few balancings and one interval's noise moves the cuts by half as much. Integers from 1
    /// to 2¹⁶, so that the histograms add up exactly. It takes a rank's time to follow its
    /// work, which holds while a rank's grains outweigh its fixed costs per step. Every rank
    /// calls it together.
    fn weight_by_time(&mut self, work: u64) -> u64 {
        let (since, waited) = self.balanced_at;
        let busy = since.elapsed().as_secs_f64() - (self.transport.waited - waited);
        let mut w = Writer::default();
        w.f64(busy.max(0.0));
        w.u64(work);
        self.bytes_sent += (w.0.len() * (self.transport.size() - 1)) as u64;
        let (mut all_busy, mut all_work) = (0.0, 0u64);
        for m in all_gather(&mut self.transport, w.0) {
            let mut r = Reader(&m);
            all_busy += r.f64();
            all_work += r.u64();
        }
        self.balanced_at = (std::time::Instant::now(), self.transport.waited);
        if all_busy > 0.0 && work > 0 {
            let ratio = (busy / work as f64) / (all_busy / all_work as f64);
            let target = 1024.0 * ratio;
            self.weight = (self.weight as f64 * target)
                .sqrt()
                .round()
                .clamp(1.0, 65536.0) as u64;
        }
        self.weight
    }
}

/// The work of grain `k` for the balancing of the bricks: one for the grain and one for each
/// pair listed in its row of `nl` (none before the list is built).
fn work(nl: &NeighborList, k: usize) -> u64 {
    let row = nl.start.get(k + 1).zip(nl.start.get(k));
    1 + row.map_or(0, |(end, start)| (end - start) as u64)
}

/// Every grain of the run as one process holds it, for the self-gravity of a rank's grains:
/// the positions all-gathered at each evaluation, the masses (which never change) gathered
/// at the start. Empty when the scene has no self-gravity.
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
    /// Every grain's mass, all-gathered from the own grains of each rank of `d` (whose
    /// particles are `p`) when `physics` has self-gravity; the positions follow at each
    /// evaluation. Every rank calls it together.
    fn gathered(d: &mut Domain, physics: &Physics, p: &Particles) -> Everyone {
        if physics.gravity.self_gravity.is_none() {
            return Everyone::default();
        }
        let mut w = Writer::default();
        for k in (0..p.len()).filter(|&k| d.own[k]) {
            w.u64(d.global[k]);
            w.f64(p.mass[k]);
        }
        d.bytes_sent += (w.0.len() * (d.transport.size() - 1)) as u64;
        let got = all_gather(&mut d.transport, w.0);
        let n = got.iter().map(|m| m.len() / 16).sum();
        let mut e = Everyone {
            pos: vec![DVec3::ZERO; n],
            mass: vec![0.0; n],
            wanted: vec![false; n],
        };
        for m in &got {
            let mut r = Reader(m);
            while !r.is_empty() {
                let g = r.u64() as usize;
                e.mass[g] = r.f64();
            }
        }
        e
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
    fn after_drift(&mut self, world: &World, left: bool) -> bool {
        self.keep_half(&world.particles);
        self.bytes_sent += self.transport.size() as u64 - 1;
        self.transport.any(left)
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
        for m in all_gather(&mut self.transport, w.0) {
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

    fn after_forces(
        &mut self,
        world: &mut World,
        kick: Option<f64>,
        check: Result<()>,
    ) -> Result<()> {
        let t = &mut self.transport;
        self.bytes_sent += t.size() as u64 - 1;
        if t.any(check.is_err()) {
            // Each rank's error, if it has one: the lowest rank's stops them all.
            let mut w = Writer::default();
            if let Err(e) = check {
                w.str(&e.to_string());
            }
            let said = all_gather(t, w.0);
            let rank = said.iter().position(|m| !m.is_empty()).unwrap_or_default();
            let message = Reader(&said[rank]).str();
            return Err(Error::Rank { rank, message });
        }
        // Loads go only to the ranks holding copies of this rank's grains.
        let p = &mut world.particles;
        let out = (self.send.iter())
            .map(|ks| {
                let mut w = Writer(Vec::with_capacity(LOAD * ks.len()));
                ks.iter().for_each(|&k| put_load(&mut w, p, k as usize));
                w.0
            })
            .collect::<Vec<_>>();
        self.bytes_sent += out.iter().map(|m| m.len() as u64).sum::<u64>();
        let expect: Vec<usize> = self.recv.iter().map(|ks| LOAD * ks.len()).collect();
        let got = t.swap(out, &expect);
        // Each copy's force and torque, and the kick they give (as the gather gives every
        // grain's: v + F (h/m), from its velocity before the kick).
        let mut half = self.half.iter();
        for (ks, loads) in self.recv.iter().zip(&got) {
            for (&k, b) in ks.iter().zip(loads.chunks_exact(LOAD)) {
                let k = k as usize;
                let ((f, t), (v, w)) = (take_load(b), half.next().expect("one a copy"));
                (p.force[k], p.torque[k]) = (f, t);
                if let Some(kick) = kick {
                    p.vel[k] = *v + f * (kick * p.inv_mass[k]);
                    p.omega[k] = *w + t * (kick * p.inv_inertia[k]);
                }
            }
        }
        Ok(())
    }
}

impl Domain {
    /// Keeps the copies' velocities and spins before the second half kick.
    fn keep_half(&mut self, p: &Particles) {
        self.half.clear();
        let copies = self.recv.iter().flatten().map(|&k| k as usize);
        self.half.extend(copies.map(|k| (p.vel[k], p.omega[k])));
    }
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
