//! The rebuild of all ranks together, at a cost that follows what moves: a grain that changes
//! rank travels with its wall contacts and the histories of its touching pairs that its new
//! owner lacks, a rank is sent only the copies it lacks, and every other grain, history and
//! contact stays where it is.
//!
//! A rank holding a grain (its own or a copy) has the bits its owner has of it, so every rank
//! decides alone, and all alike, where each grain it holds goes ([`Bricks::rank_of`] of its
//! position) and which copies it keeps (those within the reach of its brick). A grain's old
//! owner knows which ranks hold a copy of it (its `send` lists) and sends it, in one
//! exchange, to its new owner whole and as a copy to the ranks within reach that lack it.
//! The arrays here stay in the order of one process: the grains kept, in their order, merged
//! with the few taken in (by their index in one process), each property copied in runs. The
//! list is rebuilt carrying in place the histories of the pairs whose grains both stay here
//! (as one process carries them at its rebuilds); a pair that a rank did not list before
//! (one of its grains came from elsewhere, and the other was not this rank's) has its history
//! from the grain's old owner, by their indices in one process.
//!
//! [`Bricks::rank_of`]: super::Bricks::rank_of

use glam::DVec3;

use super::bricks::Reach;
use super::records::{put_end, put_grain, take_grain};
use super::transport::{Reader, Transport, Writer};
use super::{put_pair, take_pair, Domain};
use crate::contact::ContactState;
use crate::neighbor::{Kept, NeighborList, Share, BLOCK};
use crate::particles::Particles;
use crate::physics::Physics;
use crate::walls::history::WallMember;
use crate::world::{PairHistory, World};

/// The new index of a grain that is not held here after the rebuild.
const GONE: u32 = u32::MAX;

/// What a rank takes in at a rebuild: the grains that come to it or of which it lacks a copy,
/// with their wall contacts, and pair histories keyed by indices in one process.
#[derive(Default)]
pub(super) struct Incoming {
    /// The grains, every property.
    grains: Particles,
    /// The index in one process of each.
    global: Vec<u64>,
    /// The touching wall contacts of each (none for a copy).
    walls: Vec<Vec<(WallMember, ContactState)>>,
    /// Pair histories: (index in one process of i, of k, image of k beside i, state).
    pairs: Vec<PairHistory>,
    /// The grains by ascending index in one process.
    order: Vec<usize>,
}

impl Incoming {
    /// Nothing taken in but the pair histories `pairs` (a resumed run's).
    pub(super) fn with_pairs(pairs: Vec<PairHistory>) -> Incoming {
        Incoming {
            pairs,
            ..Incoming::default()
        }
    }

    /// What the ranks sent here, by rank (this rank's own message is empty).
    fn read(got: &[Vec<u8>]) -> Incoming {
        let mut inc = Incoming::default();
        for m in got.iter().filter(|m| !m.is_empty()) {
            let mut r = Reader(m);
            while let (g, Some(contacts)) = take_grain(&mut r, &mut inc.grains) {
                inc.global.push(g);
                inc.walls.push(contacts);
            }
            while !r.is_empty() {
                inc.pairs.push(take_pair(&mut r));
            }
        }
        inc.order = (0..inc.global.len()).collect();
        inc.order.sort_unstable_by_key(|&j| inc.global[j]);
        inc
    }
}

/// Where the grains of the new arrays come from, in order: runs of grains here, and grains
/// taken in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    /// The grains `a..b` here.
    Here(usize, usize),
    /// Grain `j` taken in.
    In(usize),
}

/// The histories of the touching pairs of `nl` as its next build carries them, at positions
/// `pos` and periods `period`: a run shared among ranks carries no other, as its messages
/// and checkpoints do not (a pair that stops touching has the default history).
pub(super) fn touching(nl: &NeighborList, pos: &[DVec3], period: DVec3) -> Kept {
    let mut kept = nl.keyed_history(pos, period);
    kept.retain(|&(o, _, _)| nl.slip[o as usize].touching());
    kept
}

/// The rebuild of all ranks together: the skin from the fastest grain of all, the bricks
/// balanced when due, then [`shift`].
pub(super) fn migrate(d: &mut Domain, world: &mut World, physics: &Physics) {
    let p = &world.particles;
    let own = (0..p.len()).filter(|&k| d.own[k]);
    let fastest = own.map(|k| p.vel[k].length()).fold(0.0, f64::max);
    let fastest = d.transport.max(&[fastest])[0];
    let skin = world.auto_skin(fastest).unwrap_or(world.neighbors.skin);
    d.balance(world, physics);
    shift(d, world, physics, skin);
}

/// Each own grain whose brick changed sent to its new rank, the copies each rank lacks for
/// the skin `skin` sent to it, the grains here renewed ([`Domain::renew`]); every rank calls
/// it together.
pub(super) fn shift(d: &mut Domain, world: &mut World, physics: &Physics, skin: f64) {
    let p = &world.particles;
    let reach = d.bricks.reach(d.reach(skin));
    let dest: Vec<u32> = (p.pos.iter())
        .map(|&x| d.bricks.rank_of(x) as u32)
        .collect();
    let kept = touching(&world.neighbors, &p.pos, physics.periodic.lengths());
    let out = d.outgoing(world, &dest, &kept, &reach);
    d.bytes_sent += out.iter().map(|m| m.len() as u64).sum::<u64>();
    let got = d.transport.exchange(out);
    let incoming = Incoming::read(&got);
    d.migrated += d.renew(world, physics, (dest, kept, incoming), skin);
}

impl Domain {
    /// What this rank sends every other at a rebuild, for the ranks `dest` each grain here
    /// goes to, the touching pairs `kept` and the copies' reach `reach`: each own grain that
    /// leaves, whole with its touching wall contacts, to its new rank; each own grain as a
    /// copy to every other rank within reach that neither holds it (it is in `send`) nor
    /// will own it; the end mark; then the history of every touching pair of a grain that
    /// leaves, unless its new rank owned the other grain (and so listed the pair).
    fn outgoing(&self, world: &World, dest: &[u32], kept: &Kept, reach: &Reach) -> Vec<Vec<u8>> {
        let (me, size) = (self.transport.rank(), self.transport.size());
        let (p, nl) = (&world.particles, &world.neighbors);
        let mut out: Vec<Writer> = (0..size).map(|_| Writer::default()).collect();
        // For each rank, the first of its copies from here not below the grain at hand.
        let mut held = vec![0; size];
        for k in (0..p.len()).filter(|&k| self.own[k]) {
            let to = dest[k] as usize;
            if to != me {
                let contacts: Vec<_> = (world.wall_history.contacts(k))
                    .filter(|c| c.1.touching)
                    .collect();
                put_grain(&mut out[to], p, k, self.global[k], &contacts);
            }
            for q in (0..size).filter(|&q| q != me && q != to) {
                let copies = &self.send[q];
                while copies.get(held[q]).is_some_and(|&c| (c as usize) < k) {
                    held[q] += 1;
                }
                let holds = copies.get(held[q]) == Some(&(k as u32));
                if !holds && reach.near(q, p.pos[k]) {
                    put_grain(&mut out[q], p, k, self.global[k], &[]);
                }
            }
        }
        for (_, w) in out.iter_mut().enumerate().filter(|(q, _)| *q != me) {
            put_end(w);
        }
        let leaves = |x: usize, y: usize| {
            let to = dest[x];
            (self.own[x] && to as usize != me && self.owner[y] != to).then_some(to as usize)
        };
        for &(o, i, (k, image)) in kept {
            let (i, k) = (i as usize, k as usize);
            let (a, b) = (leaves(i, k), leaves(k, i));
            for r in [a, b.filter(|&b| Some(b) != a)].into_iter().flatten() {
                let (gi, gk) = (self.global[i], self.global[k]);
                put_pair(&mut out[r], &(gi, gk, Some(image), nl.history(o as usize)));
            }
        }
        out.into_iter().map(|w| w.0).collect()
    }

    /// Puts in place of the grains here those that stay — the grains that go to this rank
    /// (`dest`: the rank each goes to) and the copies within reach of its brick for the skin
    /// `skin` — merged with those taken in, in the order of one process; rebuilds the list
    /// carrying the histories `kept` of the pairs whose grains both stay and puts in those
    /// taken in; keeps the touching wall contacts of the own grains that stay and takes those
    /// of the grains that arrive; makes the copies' lists anew. Returns the number of grains
    /// that came to this rank.
    pub(super) fn renew(
        &mut self,
        world: &mut World,
        physics: &Physics,
        (dest, mut kept, mut incoming): (Vec<u32>, Kept, Incoming),
        skin: f64,
    ) -> u64 {
        let me = self.transport.rank();
        let reach = self.bricks.reach(self.reach(skin));
        let p = &world.particles;
        let stays = |k: usize| dest[k] as usize == me || reach.near(me, p.pos[k]);
        let (from, to, global) = merge(&self.global, stays, &incoming);
        let taken_dest: Vec<u32> = (incoming.grains.pos.iter())
            .map(|&x| self.bricks.rank_of(x) as u32)
            .collect();
        let mut owner = Vec::with_capacity(global.len());
        field(&mut owner, &dest, &taken_dest, &from);
        let own: Vec<bool> = owner.iter().map(|&r| r as usize == me).collect();
        // The wall contacts: an own grain's that stays, or an arrival's.
        let mut walls = Vec::new();
        let mut at = 0;
        for f in &from {
            match *f {
                Source::Here(a, b) => {
                    for k in (a..b).filter(|&k| self.own[k] && dest[k] as usize == me) {
                        let contacts = world.wall_history.contacts(k).filter(|c| c.1.touching);
                        walls.extend(contacts.map(|(m, s)| (at + k - a, m, s.clone())));
                    }
                    at += b - a;
                }
                Source::In(j) => {
                    let contacts = std::mem::take(&mut incoming.walls[j]);
                    walls.extend(contacts.into_iter().map(|(m, s)| (at, m, s)));
                    at += 1;
                }
            }
        }
        let arrived = (from.iter())
            .filter(|f| matches!(f, Source::In(j) if taken_dest[*j] as usize == me))
            .count();
        fill(&mut self.spare, &world.particles, &incoming.grains, &from);
        std::mem::swap(&mut world.particles, &mut self.spare);
        let n = global.len();
        world.wall_history.restore(n, walls, &world.walls);
        world.wall_runtime.attached.clear();
        world.wall_runtime.attached.resize(n, None);
        // The list, carrying the histories of the pairs whose grains both stay here.
        kept.retain_mut(|(_, i, (k, _))| {
            (*i, *k) = (to[*i as usize], to[*k as usize]);
            *i != GONE && *k != GONE
        });
        let nl = &mut world.neighbors;
        nl.share = Some(Share {
            block: global.iter().map(|&g| (g / BLOCK as u64) as u32).collect(),
            own: own.clone(),
        });
        nl.skin = skin;
        let p = &world.particles;
        nl.build_carrying(kept, &p.pos, &p.radius, &physics.periodic);
        world.relist_walls(&physics.periodic);
        world.set_pair_history_by(&incoming.pairs, |g| global.binary_search(&g).ok());
        self.list_copies(&world.particles.pos, &owner, &own, &reach);
        self.keep_half(&world.particles);
        (self.global, self.own, self.owner) = (global, own, owner);
        arrived as u64
    }

    /// The copies' lists anew, for the grains at `pos` owned by the ranks `owner` (this
    /// rank's where `own`) and the copies' reach `reach`: which own grains each rank holds
    /// copies of, and where each rank's copies are here, both in the order of one process,
    /// so that the messages of every step need no ids.
    fn list_copies(&mut self, pos: &[DVec3], owner: &[u32], own: &[bool], reach: &Reach) {
        let (me, size) = (self.transport.rank(), self.transport.size());
        for lists in [&mut self.send, &mut self.recv] {
            lists.resize_with(size, Vec::new);
            lists.iter_mut().for_each(Vec::clear);
        }
        for k in 0..pos.len() {
            if own[k] {
                for q in (0..size).filter(|&q| q != me && reach.near(q, pos[k])) {
                    self.send[q].push(k as u32);
                }
            } else {
                self.recv[owner[k] as usize].push(k as u32);
            }
        }
    }
}

/// The merge of the grains here that `stays` (by their indices in one process `global`,
/// ascending) with those taken in `incoming`: where each grain of the new arrays comes from,
/// the new index of each grain here ([`GONE`] for one that does not stay) and the new
/// indices in one process. A grain taken in that is here already (a copy that came to this
/// rank) takes the place of the one here, whose new index is its.
fn merge(
    global: &[u64],
    stays: impl Fn(usize) -> bool,
    incoming: &Incoming,
) -> (Vec<Source>, Vec<u32>, Vec<u64>) {
    let mut to = vec![GONE; global.len()];
    let mut from = Vec::new();
    let mut merged = Vec::with_capacity(global.len() + incoming.order.len());
    let (mut k, mut t) = (0, 0);
    // The first grain of the run here being made.
    let mut run: Option<usize> = None;
    loop {
        let taken = incoming.order.get(t).map(|&j| (j, incoming.global[j]));
        let here_first = match (global.get(k), taken) {
            (Some(&g), Some((_, g_in))) => g < g_in,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if here_first && stays(k) {
            run.get_or_insert(k);
            to[k] = merged.len() as u32;
            merged.push(global[k]);
            k += 1;
            continue;
        }
        if let Some(a) = run.take() {
            from.push(Source::Here(a, k));
        }
        match taken {
            Some((j, g_in)) if !here_first => {
                if global.get(k) == Some(&g_in) {
                    to[k] = merged.len() as u32;
                    k += 1;
                }
                from.push(Source::In(j));
                merged.push(g_in);
                t += 1;
            }
            _ => k += 1,
        }
    }
    if let Some(a) = run {
        from.push(Source::Here(a, global.len()));
    }
    (from, to, merged)
}

/// `out` made of the runs of `here` and the entries of `taken` that `from` names.
fn field<T: Copy>(out: &mut Vec<T>, here: &[T], taken: &[T], from: &[Source]) {
    out.clear();
    for f in from {
        match *f {
            Source::Here(a, b) => out.extend_from_slice(&here[a..b]),
            Source::In(j) => out.push(taken[j]),
        }
    }
}

/// `out` made of the grains of `here` and `taken` that `from` names, every property; `out`
/// keeps its allocations.
fn fill(out: &mut Particles, here: &Particles, taken: &Particles, from: &[Source]) {
    field(&mut out.id, &here.id, &taken.id, from);
    field(&mut out.pos, &here.pos, &taken.pos, from);
    field(&mut out.vel, &here.vel, &taken.vel, from);
    field(&mut out.omega, &here.omega, &taken.omega, from);
    field(&mut out.radius, &here.radius, &taken.radius, from);
    field(&mut out.mass, &here.mass, &taken.mass, from);
    field(&mut out.inv_mass, &here.inv_mass, &taken.inv_mass, from);
    field(&mut out.inertia, &here.inertia, &taken.inertia, from);
    field(
        &mut out.inv_inertia,
        &here.inv_inertia,
        &taken.inv_inertia,
        from,
    );
    field(&mut out.material, &here.material, &taken.material, from);
    field(&mut out.mobility, &here.mobility, &taken.mobility, from);
    field(&mut out.force, &here.force, &taken.force, from);
    field(&mut out.torque, &here.torque, &taken.torque, from);
    field(&mut out.passes, &here.passes, &taken.passes, from);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grains_kept_and_taken_in_merge_in_the_order_of_one_process() {
        // Here 10, 20, 30, 40, 50; 20 and 50 leave; 35 and 60 come, and 30 (a copy here that
        // became this rank's) comes whole: runs of the grains kept, the grains taken in
        // between, 30's new index that of the one taken in.
        let global = [10, 20, 30, 40, 50];
        let incoming = Incoming {
            global: vec![60, 30, 35],
            order: vec![1, 2, 0],
            ..Incoming::default()
        };
        let (from, to, merged) = merge(&global, |k| k != 1 && k != 4, &incoming);
        assert_eq!(merged, [10, 30, 35, 40, 60]);
        use Source::*;
        assert_eq!(from, [Here(0, 1), In(1), In(2), Here(3, 4), In(0)]);
        assert_eq!(to, [0, GONE, 1, 3, GONE]);
        let mut out = Vec::new();
        field(&mut out, &[1, 2, 3, 4, 5], &[6, 7, 8], &from);
        assert_eq!(out, [1, 7, 8, 4, 6]);
    }
}
