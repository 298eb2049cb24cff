//! The rule of the drift's list of all grains, kept without the list: where it would be
//! rebuilt, the drift brings every grain to that instant as it did when the list was made, so
//! positions keep their bits.
//!
//! The list is rebuilt before a drift when some grain would get half the skin or more from its
//! anchor, |Δx| + |v| dt ≥ skin/2 (`NeighborList::needs_rebuild_for`). Rather than measure every
//! grain at every step, each grain is looked at from the step it can first reach that: it has
//! moved at most |Δx₀| + |v| t since it was last measured (|Δx₀|) while it flies straight, so it
//! is filed for the step before |Δx₀| + |v| (t + dt) can reach the half skin less a margin of
//! 1e-6, and filed anew whenever it collides. A grain looked at is measured with the list's own
//! formula, so the decision is the list's, bit for bit.

use glam::DVec3;

use super::super::calendar::steps_to_start;
use super::Flight;
use crate::ghosts::{periods, Image};
use crate::particles::Particles;
use crate::world::World;

/// Relative margin under the half skin at which a grain is looked at (1e-6): far above the
/// round-off of positions advanced step by step.
const MARGIN: f64 = 1e-6;

impl Flight {
    /// Grain k's move from its anchor (m), at `x` with its wraps now: as the list measures it
    /// (the ghosts' counted wraps, `NeighborList::keeps`).
    fn moved(&self, k: usize, x: DVec3) -> f64 {
        let w: Image = std::array::from_fn(|a| self.wraps[k][a] - self.anchor_wraps[k][a]);
        ((x - self.anchor[k]) + periods(w, self.grid.l)).length()
    }

    /// True when grain k, at `x` and moving at `vel` for `time` (s) more, stays within half the
    /// `skin` of its anchor (`NeighborList::keeps`, with the same bits).
    pub fn keeps(&self, k: usize, x: DVec3, vel: DVec3, time: f64, skin: f64) -> bool {
        self.moved(k, x) + vel.length() * time < 0.5 * skin
    }

    /// True when the list would be rebuilt before a drift of `dt` at step `step`: made for
    /// another count, or one of the grains due to be looked at would leave half the skin. The
    /// others are filed again.
    pub fn leaves(&mut self, p: &Particles, dt: f64, skin: f64, step: u64) -> bool {
        if self.anchor.len() != p.len() {
            return true;
        }
        let mut due = std::mem::take(&mut self.looked);
        self.watch.take(step, &mut due);
        let mut leaves = false;
        for &(k, changes) in &due {
            let k = k as usize;
            if changes != self.changes[k] || leaves {
                continue;
            }
            if self.keeps(k, p.pos[k], p.vel[k], dt, skin) {
                self.look_again(k, self.moved(k, p.pos[k]), (0.0, dt), skin, step);
            } else {
                leaves = true; // the rebuild files every grain anew
            }
        }
        self.looked = due;
        leaves
    }

    /// Files grain k, `moved` (m) from its anchor at drift time `now` of a step of `dt` at
    /// step `step`, for the step it can first reach half the skin at.
    pub fn look_again(
        &mut self,
        k: usize,
        moved: f64,
        (now, dt): (f64, f64),
        skin: f64,
        step: u64,
    ) {
        let time = (0.5 * skin * (1.0 - MARGIN) - moved) / self.speed[k] - dt;
        if let Some(ahead) = steps_to_start(time.max(0.0), now, dt) {
            self.watch.file(step + ahead, (k as u32, self.changes[k]));
        }
    }

    /// Grain k collided at drift time `now`, now at `x`: filed anew from there.
    pub fn look_after(&mut self, k: usize, x: DVec3, (now, dt): (f64, f64), skin: f64, step: u64) {
        self.look_again(k, self.moved(k, x), (now, dt), skin, step);
    }

    /// The list made anew where the grains are, at drift time `now` of step `step`: every
    /// grain anchored there and filed.
    pub fn anchor_here(&mut self, p: &Particles, (now, dt): (f64, f64), skin: f64, step: u64) {
        self.anchor.clone_from(&p.pos);
        self.anchor_wraps.clone_from(&self.wraps);
        self.watch.clear(step);
        for k in 0..p.len() {
            self.look_again(k, 0.0, (now, dt), skin, step);
        }
    }
}

impl Flight {
    /// Hands the world's list back when the flight ends: made at the anchors, as it was when it
    /// was last rebuilt, its ghosts counting the wraps since; made anew where the grains were
    /// counted anew since.
    pub fn hand_back(&self, world: &mut crate::world::World, periodic: &crate::boundary::Periodic) {
        if self.anchor.len() != world.particles.len() || self.wraps.len() != self.anchor.len() {
            world.rebuild_neighbors(periodic);
            return;
        }
        let nl = &mut world.neighbors;
        nl.build(&self.anchor, &world.particles.radius, periodic);
        if let Some(g) = nl.ghosts.as_mut() {
            for (k, w) in g.wraps.iter_mut().enumerate() {
                *w = std::array::from_fn(|a| self.wraps[k][a] - self.anchor_wraps[k][a]);
            }
        }
        world.relist_walls(periodic);
    }
}

/// What rebuilding the world's list at drift time `now` does to its anchors, in a free
/// flight: the skin sized anew where it is automatic, the anchors where the grains are.
pub(in crate::hard) fn anchor_reference(world: &mut World, f: &mut Flight, (now, dt): (f64, f64)) {
    let p = &world.particles;
    if world.neighbors.auto.is_some() {
        if let Some(skin) = world.auto_skin(crate::particles::fastest(&p.vel)) {
            world.neighbors.skin = skin;
        }
    }
    f.anchor_here(p, (now, dt), world.neighbors.skin, world.step);
}
