//! The run as one process would see it, gathered on rank 0 for the outputs: every rank's own
//! grains in the order of one process, the clock, the contact counts and, for checkpoints,
//! the wall contacts and pair histories.

use super::records::{put_end, put_grain, take_grain, GRAIN_BYTES, PAIR_BYTES};
use super::transport::{Reader, Transport, Writer};
use super::{put_pair, take_pair, Shared, WallContact};
use crate::particles::Particles;
use crate::sim::Simulation;

impl Shared {
    /// Rank 0's `flags` on every rank (each rank passes its own; only rank 0's count).
    pub fn agree(&mut self, flags: u8) -> u8 {
        self.agree_max(flags, 0.0).0
    }

    /// Rank 0's `flags` and the largest of every rank's `x`, on every rank.
    pub fn agree_max(&mut self, flags: u8, x: f64) -> (u8, f64) {
        // Only rank 0's flags count: the others give less than any.
        let mine = match self.domain.transport.rank() {
            0 => f64::from(flags),
            _ => -1.0,
        };
        let most = self.domain.transport.max(&[mine, x]);
        (most[0] as u8, most[1])
    }

    /// This rank's own grains, in the order of one process (its piece of a snapshot).
    pub fn own_grains(&self) -> Particles {
        let p = &self.sim.world.particles;
        let mut mine = Particles::default();
        for k in (0..p.len()).filter(|&k| self.domain.own[k]) {
            super::copy_grain(&mut mine, p, k);
        }
        mine
    }

    /// Gathers the run into `view` on rank 0 (the whole run as one process holds it; None
    /// on the other ranks): the grains, the clock and the contact counts of the last step
    /// and, when `histories`, the wall contacts and the pair histories, with the list built
    /// for them (as a resume does), so that a checkpoint of `view` is the run's. Every rank
    /// calls it together.
    pub fn gather_into(&mut self, view: Option<&mut Simulation>, histories: bool) {
        let d = &self.domain;
        let w = &self.sim.world;
        let (p, nl) = (&w.particles, &w.neighbors);
        let own = |k: usize| d.own[k];
        let mut m = Writer::default();
        // Each touching pair counted by the rank owning its row's grain, as one process counts it.
        let pairs = (0..nl.len()).filter(|&s| nl.slip[s].touching() && own(nl.owner(s)));
        let touching = |k: usize| w.wall_history.contacts(k).filter(|c| c.1.touching).count();
        let walls: usize = (0..p.len()).filter(|&k| own(k)).map(touching).sum();
        let pairs = pairs.count();
        // Room for the whole message at once (wall contacts aside).
        let room = GRAIN_BYTES * d.own.iter().filter(|&&o| o).count();
        m.0.reserve(room + if histories { PAIR_BYTES * pairs } else { 0 });
        m.u64(pairs as u64);
        m.u64(walls as u64);
        m.f64(self.sim.stats.max_overlap_ratio);
        for k in (0..p.len()).filter(|&k| own(k)) {
            let contacts: Vec<_> = match histories {
                true => w
                    .wall_history
                    .contacts(k)
                    .filter(|c| c.1.touching)
                    .collect(),
                false => Vec::new(),
            };
            put_grain(&mut m, p, k, d.global[k], &contacts);
        }
        put_end(&mut m);
        if histories {
            for entry in w.pair_histories(&self.sim.physics.periodic, own) {
                put_pair(&mut m, &entry);
            }
        }
        let mut out = vec![Vec::new(); self.domain.transport.size()];
        out[0] = m.0;
        let got = self.domain.transport.exchange(out);
        if let Some(view) = view {
            fill(view, &self.sim, &got, histories);
        }
    }
}

/// Rank 0's view from every rank's message `got`, at the clock of `sim`.
fn fill(view: &mut Simulation, sim: &Simulation, got: &[Vec<u8>], histories: bool) {
    let (mut all, mut global) = (Particles::default(), Vec::new());
    let (mut walls, mut pairs): (Vec<WallContact>, _) = (Vec::new(), Vec::new());
    let (mut pair_contacts, mut wall_contacts, mut overlap) = (0, 0, 0.0f64);
    for m in got {
        let mut r = Reader(m);
        pair_contacts += r.u64() as usize;
        wall_contacts += r.u64() as usize;
        overlap = overlap.max(r.f64());
        while let (g, Some(contacts)) = take_grain(&mut r, &mut all) {
            global.push(g);
            let id = *all.id.last().expect("just taken");
            walls.extend(contacts.into_iter().map(|(m, s)| (id, m, s)));
        }
        while !r.is_empty() {
            pairs.push(take_pair(&mut r));
        }
    }
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&k| global[k]);
    all.permute(&order);
    let w = &mut view.world;
    (w.time, w.step) = (sim.world.time, sim.world.step);
    w.particles = all;
    view.stats = sim.stats;
    view.stats.contacts = pair_contacts + wall_contacts;
    view.stats.wall_contacts = wall_contacts;
    view.stats.max_overlap_ratio = overlap;
    if histories {
        let n = w.particles.len();
        let index = w.particles.index_map();
        let walls = walls.into_iter().map(|(id, m, s)| (index[&id], m, s));
        w.wall_history.restore(n, walls, &w.walls);
        w.wall_runtime.attached = vec![None; n];
        // One process's list: rank 0's view starts as its share, whose list is shared.
        w.neighbors = w.neighbors.emptied();
        w.neighbors.share = None;
        w.rebuild_neighbors(&view.physics.periodic);
        w.set_pair_history_by_id(&pairs);
    }
}
