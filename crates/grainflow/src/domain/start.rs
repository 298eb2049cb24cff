//! The start of a run shared among ranks. Rank 0 makes the scene's grains as one process
//! makes them (a fill places each grain among all the others) and sends every other rank the
//! grains of its brick and the copies within reach of it, with what the whole run's grains
//! decide (the contact time and the orbital step that give dt, the radii that give the skin,
//! the extent the bricks divide): no other rank ever holds the whole run. A resumed run's
//! checkpoint is read by rank 0, which sends every other rank a checkpoint of its share.
//! Each rank then builds its list (and a fresh run's first forces) from its share alone.

use std::path::Path;

use glam::DVec3;

use super::bricks::extent;
use super::migrate::{shift, Incoming};
use super::records::{put_end, put_grain, take_grain};
use super::transport::{all_gather, Reader, Writer};
use super::{copy_grain, Bricks, Domain, Everyone, Shared, Transport};
use crate::io::checkpoint::Checkpoint;
use crate::particles::Particles;
use crate::physics::Physics;
use crate::scene::Scene;
use crate::sim::{Simulation, Whole};
use crate::soft::Exchange;
use crate::stepper::Stepper;
use crate::world::{PairHistory, World};
use crate::{Error, Result};

/// The first word of rank 0's message to the others: its run was made, or not (its error
/// follows).
const MADE: u64 = 0;
const FAILED: u64 = 1;
/// The bytes of that word.
const WORD: usize = 8;

/// What a rank holds of a run at its start, before its first evaluation
/// ([`Shared::unstarted`], [`Shared::resumed`]): its grains and copies, and what it keeps of
/// the whole run.
pub struct Part {
    /// The simulation, its world holding this rank's grains and copies.
    sim: Simulation,
    /// The equal bricks of the start.
    bricks: Bricks,
    /// Each grain's index in one process, ascending.
    global: Vec<u64>,
    /// The skin of the first list, from the fastest grain of all (m).
    skin: f64,
    /// The largest radius of all grains (m).
    r_max: f64,
    /// The touching pairs' histories of a resumed run, keyed by indices in one process.
    pairs: Vec<PairHistory>,
}

/// Where the whole run's grains go at the start: the equal bricks of `extent`, the first
/// list's skin, the largest radius and, per rank, the grains it holds (its own and its
/// copies), by index.
struct Deal {
    extent: [DVec3; 2],
    bricks: Bricks,
    skin: f64,
    r_max: f64,
    held: Vec<Vec<u64>>,
}

impl Deal {
    /// Rank `rank`'s part of the run `sim`, which holds that rank's grains.
    fn part(mut self, rank: usize, sim: Simulation) -> Part {
        Part {
            sim,
            bricks: self.bricks,
            global: std::mem::take(&mut self.held[rank]),
            skin: self.skin,
            r_max: self.r_max,
            pairs: Vec::new(),
        }
    }
}

impl Shared {
    /// This rank's share of the run of `scene` (relative paths from `base`) over `transport`,
    /// started: [`Shared::unstarted`], [`Shared::share`], [`Shared::start`]. Refused on more
    /// than one rank for what the method does not share ([`super::refusal`]).
    pub fn new(scene: Scene, base: &Path, mut transport: Box<dyn Transport>) -> Result<Shared> {
        if transport.size() > 1 {
            if let Some(e) = super::refusal(&scene) {
                return Err(e);
            }
        }
        let part = Shared::unstarted(scene, base, transport.as_mut())?;
        let mut shared = Shared::share(part, transport);
        shared.start()?;
        Ok(shared)
    }

    /// What this rank holds of the run of `scene` (relative paths from `base`) at its start:
    /// rank 0 makes the whole run's grains and keeps its share, the others are sent theirs.
    /// Every rank calls it together; an error of rank 0 (the scene's) reaches every rank, rank
    /// 0's as it is.
    pub fn unstarted(scene: Scene, base: &Path, transport: &mut dyn Transport) -> Result<Part> {
        let ranks = transport.size();
        if transport.rank() != 0 {
            let got = heard(transport)?;
            let part = receive(scene, base, Reader(&got[WORD..]), ranks);
            return together(transport, part);
        }
        let mut dealt = None;
        let made = Simulation::unstarted(scene, base, |world, physics| {
            dealt = Some(deal_out(world, physics, ranks));
        });
        let sim = match made {
            Ok(sim) => sim,
            Err(e) => return Err(refuse(transport, e)),
        };
        let (deal, out) = dealt.expect("dealt at the build");
        transport.exchange(out);
        together(transport, Ok(deal.part(0, sim)))
    }

    /// What this rank holds of the run of `scene` (relative paths from `base`) resumed from
    /// the checkpoint `read` gives, as [`Simulation::resume`] resumes it in one process: rank
    /// 0 reads the checkpoint, keeps its share and sends every other rank its own, a
    /// checkpoint of its grains with their wall contacts and the pairs among them (so that no
    /// other rank holds the whole run), before any list is built. The forces are the
    /// checkpoint's, so [`Shared::share`] is all it needs before stepping. Every rank calls it
    /// together; an error of rank 0 (the checkpoint's) reaches every rank.
    pub fn resumed(
        scene: Scene,
        base: &Path,
        read: impl FnOnce() -> Result<Checkpoint>,
        transport: &mut dyn Transport,
    ) -> Result<Part> {
        let ranks = transport.size();
        if transport.rank() != 0 {
            let got = heard(transport)?;
            let part = receive_resumed(scene, base, got, ranks);
            return together(transport, part);
        }
        match read().and_then(|ckpt| resume_out(scene, base, ckpt, ranks)) {
            Ok((part, out)) => {
                transport.exchange(out);
                together(transport, Ok(part))
            }
            Err(e) => Err(refuse(transport, e)),
        }
    }

    /// This rank's share of the run `part` over `transport`, before its first evaluation: the
    /// list of its grains and copies built, and, with `simulation.balance_every`, the bricks
    /// balanced by the work of its rows. Every rank calls it together.
    pub fn share(part: Part, transport: Box<dyn Transport>) -> Shared {
        let Part {
            mut sim,
            bricks,
            global,
            skin,
            r_max,
            pairs,
        } = part;
        let me = transport.rank() as u32;
        let p = &sim.world.particles;
        let owner: Vec<u32> = (p.pos.iter()).map(|&x| bricks.rank_of(x) as u32).collect();
        let mut domain = Domain {
            bricks,
            own: owner.iter().map(|&r| r == me).collect(),
            owner: owner.clone(),
            global,
            r_max,
            ..Domain::new(transport, &sim.scene)
        };
        let w = &mut sim.world;
        let pairs = Incoming::with_pairs(pairs);
        domain.renew(w, &sim.physics, (owner, Vec::new(), pairs), skin);
        domain.everyone = Everyone::gathered(&mut domain, &sim.physics, &w.particles);
        if domain.balance_every.is_some() {
            domain.cut(w, &sim.physics, false);
            shift(&mut domain, w, &sim.physics, skin);
        }
        Shared { sim, domain }
    }

    /// The first force evaluation of this rank's share, as one process makes it at its start
    /// (no history advanced), each copy given its owner's force; then what one process
    /// refuses at its start ([`Simulation::new`]), from whichever rank meets it (the lowest).
    /// Every rank calls it together.
    pub fn start(&mut self) -> Result<()> {
        let sim = &mut self.sim;
        let Stepper::Soft(s) = &mut sim.stepper else {
            return Err(Error::scene(
                "simulation.method",
                "only soft spheres are shared among ranks",
            ));
        };
        sim.stats = s.start_shared(&mut sim.world, &sim.physics, &mut self.domain);
        let check = sim.refusals();
        self.domain.after_forces(&mut sim.world, None, check)
    }
}

/// The bricks, skin and grains of every rank for the whole run's `world` at its start under
/// `physics`: equal bricks, the skin one process's first build takes
/// ([`World::rebuild_neighbors`]), each rank holding the grains of its brick and those within
/// reach of it (2 r_max + skin, through periodic faces too), in their order.
fn deal(world: &World, physics: &Physics, ranks: usize) -> Deal {
    let p = &world.particles;
    let fastest = crate::particles::fastest(&p.vel);
    let skin = world.auto_skin(fastest).unwrap_or(world.neighbors.skin);
    let extent = extent(&p.pos);
    let bricks = Bricks::within(ranks, &physics.periodic, extent);
    let r_max = p.max_radius();
    let reach = bricks.reach(2.0 * r_max + skin);
    let mut held = vec![Vec::new(); ranks];
    for (k, &x) in p.pos.iter().enumerate() {
        let owner = bricks.rank_of(x);
        for (q, h) in held.iter_mut().enumerate() {
            if q == owner || reach.near(q, x) {
                h.push(k as u64);
            }
        }
    }
    Deal {
        extent,
        bricks,
        skin,
        r_max,
        held,
    }
}

/// Rank 0's deal of the whole run's `world` at its start ([`deal`]) under `physics`: its own
/// grains kept in `world`, and a message to each other rank with its grains and what the
/// whole run decides.
fn deal_out(world: &mut World, physics: &Physics, ranks: usize) -> (Deal, Vec<Vec<u8>>) {
    let deal = deal(world, physics, ranks);
    let whole = Whole::of(world, physics);
    let p = &world.particles;
    let mut out = vec![Vec::new(); ranks];
    for (q, m) in out.iter_mut().enumerate().skip(1) {
        let mut w = head(&whole, &deal);
        for &k in &deal.held[q] {
            put_grain(&mut w, p, k as usize, k, &[]);
        }
        put_end(&mut w);
        *m = w.0;
    }
    keep(world, &deal.held[0]);
    (deal, out)
}

/// The start of rank 0's message to another rank: what the whole run decides, and the deal's
/// extent, skin and largest radius.
fn head(whole: &Whole, deal: &Deal) -> Writer {
    let mut w = Writer::default();
    w.u64(MADE);
    w.f64(whole.times.0);
    w.f64(whole.times.1);
    w.f64(whole.radii[0]);
    w.f64(whole.radii[1]);
    w.u64(whole.next_id);
    deal.extent.iter().for_each(|&x| w.vec3(x));
    w.f64(deal.skin);
    w.f64(deal.r_max);
    w
}

/// What [`head`] wrote after its first word: what the whole run decides, and a deal (of
/// equal bricks among `ranks` in the box of `scene`) that holds no grain yet.
fn take_head(r: &mut Reader, scene: &Scene, ranks: usize) -> (Whole, Deal) {
    let times = (r.f64(), r.f64());
    let whole = Whole {
        times,
        radii: [r.f64(), r.f64()],
        next_id: r.u64(),
    };
    let extent = [r.vec3(), r.vec3()];
    let (skin, r_max) = (r.f64(), r.f64());
    let deal = Deal {
        bricks: Bricks::within(ranks, &scene.boundary.periodic, extent),
        extent,
        skin,
        r_max,
        held: vec![Vec::new()],
    };
    (whole, deal)
}

/// A rank's part from the rest `r` of rank 0's message at the start of the run of `scene`
/// (relative paths from `base`) among `ranks`.
fn receive(scene: Scene, base: &Path, mut r: Reader, ranks: usize) -> Result<Part> {
    let (whole, mut deal) = take_head(&mut r, &scene, ranks);
    let (mut grains, mut global) = (Particles::default(), Vec::new());
    while let (g, Some(_)) = take_grain(&mut r, &mut grains) {
        global.push(g);
    }
    let sim = Simulation::given(scene, base, &whole, |world, _| {
        let n = grains.len();
        world.particles = grains;
        world.wall_history.restore(n, Vec::new(), &world.walls);
    })?;
    deal.held = vec![global];
    Ok(deal.part(0, sim))
}

/// Rank 0's part of the run of `scene` (relative paths from `base`) resumed from `ckpt`
/// among `ranks`, and its message to each other rank: its grains' indices in one process
/// and their checkpoint ([`part_of`]).
fn resume_out(
    scene: Scene,
    base: &Path,
    ckpt: Checkpoint,
    ranks: usize,
) -> Result<(Part, Vec<Vec<u8>>)> {
    // The scene's own grains give the physics, then make way for the checkpoint's.
    let mut whole = None;
    let build = |scene, base: &Path| {
        Simulation::unstarted(scene, base, |w, physics| {
            whole = Some(Whole::of(w, physics));
            w.particles = Particles::default();
        })
    };
    let (mut sim, pairs) = Simulation::resumed(scene, base, ckpt, build)?;
    let whole = whole.expect("made at the build");
    let deal = deal(&sim.world, &sim.physics, ranks);
    let mut out = vec![Vec::new(); ranks];
    for (q, m) in out.iter_mut().enumerate().skip(1) {
        let mut w = head(&whole, &deal);
        w.u64(deal.held[q].len() as u64);
        deal.held[q].iter().for_each(|&k| w.u64(k));
        w.0.extend(part_of(&sim, &deal.held[q], &pairs).to_bytes());
        *m = w.0;
    }
    let pairs = by_index(&sim.world.particles, pairs, |k| k as u64);
    keep(&mut sim.world, &deal.held[0]);
    Ok((
        Part {
            pairs,
            ..deal.part(0, sim)
        },
        out,
    ))
}

/// The checkpoint of the grains `held` (indices, ascending) of the resumed whole run `sim`:
/// those grains with their touching wall contacts, the pairs of `pairs` (by id) between two
/// of them, and the rest of the state whole.
fn part_of(sim: &Simulation, held: &[u64], pairs: &[PairHistory]) -> Checkpoint {
    let p = &sim.world.particles;
    let mut particles = Particles::default();
    held.iter()
        .for_each(|&k| copy_grain(&mut particles, p, k as usize));
    let ids: std::collections::HashSet<u64> = particles.id.iter().copied().collect();
    let h = &sim.world.wall_history;
    let walls = held.iter().flat_map(|&k| {
        let touching = h.contacts(k as usize).filter(|c| c.1.touching);
        touching.map(move |(m, s)| (p.id[k as usize], m.to_bits(), s.clone()))
    });
    Checkpoint {
        walls: walls.collect(),
        pairs: (pairs.iter())
            .filter(|(a, b, ..)| ids.contains(a) && ids.contains(b))
            .cloned()
            .collect(),
        particles,
        ..sim.checkpoint_without_grains()
    }
}

/// A rank's part from rank 0's message `got` at the start of the run of `scene` (relative
/// paths from `base`) resumed among `ranks`; the message is let go once read.
fn receive_resumed(scene: Scene, base: &Path, got: Vec<u8>, ranks: usize) -> Result<Part> {
    let mut r = Reader(&got[WORD..]);
    let (whole, mut deal) = take_head(&mut r, &scene, ranks);
    let global: Vec<u64> = (0..r.u64()).map(|_| r.u64()).collect();
    let ckpt = Checkpoint::from_bytes(r.0, Path::new("rank 0's share of the checkpoint"))?;
    drop(got);
    let build = |scene, base: &Path| Simulation::given(scene, base, &whole, |_, _| ());
    let (sim, pairs) = Simulation::resumed(scene, base, ckpt, build)?;
    let pairs = by_index(&sim.world.particles, pairs, |k| global[k]);
    deal.held = vec![global];
    Ok(Part {
        pairs,
        ..deal.part(0, sim)
    })
}

/// The pairs `pairs`, keyed by the ids of grains in `p`, keyed instead by `global` of their
/// indices there.
fn by_index(
    p: &Particles,
    pairs: Vec<PairHistory>,
    global: impl Fn(usize) -> u64,
) -> Vec<PairHistory> {
    let index = p.index_map();
    let at = |id: u64| index.get(&id).map(|&k| global(k));
    (pairs.into_iter())
        .filter_map(|(a, b, image, s)| Some((at(a)?, at(b)?, image, s)))
        .collect()
}

/// The message rank 0 sent this rank at the start, when it made its run (its error when
/// not: it meets no rank again). Its first word is [`MADE`].
fn heard(transport: &mut dyn Transport) -> Result<Vec<u8>> {
    let mut got = transport.exchange(vec![Vec::new(); transport.size()]);
    let mut r = Reader(&got[0]);
    if r.u64() != MADE {
        return Err(Error::Rank {
            rank: 0,
            message: r.str(),
        });
    }
    Ok(std::mem::take(&mut got[0]))
}

/// Rank 0's error `e` at the start, sent to every other rank ([`heard`]).
fn refuse(transport: &mut dyn Transport, e: Error) -> Error {
    let mut w = Writer::default();
    w.u64(FAILED);
    w.str(&e.to_string());
    let mut out = vec![w.0; transport.size()];
    out[0].clear();
    transport.exchange(out);
    e
}

/// Keeps in `world` only the grains `global` (indices, ascending) with their touching wall
/// contacts.
fn keep(world: &mut World, global: &[u64]) {
    let p = &world.particles;
    let mut mine = Particles::default();
    global
        .iter()
        .for_each(|&k| copy_grain(&mut mine, p, k as usize));
    let h = &world.wall_history;
    let mut walls = Vec::new();
    for (at, &k) in global.iter().enumerate() {
        let contacts = h.contacts(k as usize).filter(|c| c.1.touching);
        walls.extend(contacts.map(|(m, s)| (at, m, s.clone())));
    }
    let n = mine.len();
    world.particles = mine;
    world.wall_history.restore(n, walls, &world.walls);
}

/// `result` on every rank when it is Ok on every rank; else the error of the lowest rank that
/// failed, on every rank (its own error on that rank). Every rank calls it together.
fn together<T>(t: &mut dyn Transport, result: Result<T>) -> Result<T> {
    if !t.any(result.is_err()) {
        return result;
    }
    let message = result.as_ref().err().map(ToString::to_string);
    let said = all_gather(t, message.unwrap_or_default().into_bytes());
    let rank = said.iter().position(|m| !m.is_empty()).unwrap_or_default();
    match result {
        Err(e) if rank == t.rank() => Err(e),
        _ => Err(Error::Rank {
            rank,
            message: String::from_utf8_lossy(&said[rank]).into_owned(),
        }),
    }
}
