//! How walls act on grains in every method: poses at the current time, placement of a grain
//! in a wall's frame, sticky and absorbing surfaces, grains held by walls. The soft-sphere
//! contact forces of walls are `soft/walls.rs`; the near lists are `near.rs`.
//!
//! **Sticky and absorbing walls** (000 §2.2) act at the start of each force evaluation, in
//! ascending particle order so that runs are deterministic: a free grain touching a sticky
//! wall becomes rigidly attached (infinite mass and inertia), remembering where it sits in
//! the wall's placement; every evaluation puts it back there and gives it the wall's velocity
//! and spin, so other grains meet a moving rough surface. A grain touching an absorbing wall is
//! removed and counted for that wall; contact histories of the remaining pairs are kept. Held
//! grains are put back before the neighbour rebuild check, and the surfaces act after it, on
//! the grains listed near them ([`Candidates::Near`]).

use glam::DVec3;
use rayon::prelude::*;

use super::near::listable;
use super::{Pose, Shape, Surface, Wall};
use crate::boundary::Periodic;
use crate::particles::{Mobility, Particles};
use crate::rigid::FreeWall;
use crate::world::World;

/// Where a grain held by a wall sits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attachment {
    /// Index of the wall.
    pub wall: u32,
    /// Centre in the wall's scene placement (m).
    pub local: DVec3,
}

/// The walls' share of the world state that is not geometry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WallRuntime {
    /// Pose of each wall at the current time.
    pub pose: Vec<Pose>,
    /// Per particle: the wall holding it, if any.
    pub attached: Vec<Option<Attachment>>,
    /// Per wall: grains it has absorbed.
    pub absorbed: Vec<u64>,
    /// Per wall: whether it stays in place ([`super::Motion::keeps_in_place`]).
    pub still: Vec<bool>,
    /// The walls that are free bodies, in ascending wall order ([`crate::rigid`]).
    pub bodies: Vec<FreeWall>,
}

impl WallRuntime {
    /// A grain at `pos` in the placement of wall `w`, and whether it needed no transform: a
    /// wall that stays in place, or sits at its scene pose, has world normals. The one rule for
    /// the wall forces and the sticky and absorbing surfaces, so that both see the same grain.
    #[inline(always)]
    pub(crate) fn placed(&self, w: usize, pos: DVec3) -> (DVec3, bool) {
        let pose = &self.pose[w];
        let direct = self.still.get(w).copied().unwrap_or(false) || pose.is_identity();
        (if direct { pos } else { pose.to_local(pos) }, direct)
    }

    /// Whether wall `w` is a free body: moved by its contacts, met by a pass of its own.
    #[inline]
    pub fn is_free(&self, w: usize) -> bool {
        !self.bodies.is_empty() && self.bodies.iter().any(|b| b.wall == w)
    }
}

/// [`place`], then sticky and absorbing surfaces for every free grain ([`apply_surfaces`]).
/// Called at the start of every step of the hard-sphere methods; returns whether grains may
/// have moved, been held or been removed.
pub fn prepare(world: &mut World, periodic: &Periodic) -> bool {
    let moved = place(world);
    apply_surfaces(world, periodic, Candidates::Every) || moved
}

/// Poses at the current time, and the grains held by walls put where their walls are.
/// Called at the start of every force evaluation; returns whether a held grain moved.
pub fn place(world: &mut World) -> bool {
    let rt = &mut world.wall_runtime;
    rt.pose.clear();
    rt.pose
        .extend(world.walls.iter().map(|w| w.motion.pose(world.time)));
    rt.still.clear();
    rt.still.extend(
        world
            .walls
            .iter()
            .map(|w| w.motion.keeps_in_place(&w.shape)),
    );
    // A free wall is where its body is, and moves.
    for b in &rt.bodies {
        rt.pose[b.wall] = b.body.pose();
        rt.still[b.wall] = false;
    }
    rt.absorbed.resize(world.walls.len(), 0);
    rt.attached.resize(world.particles.len(), None);
    if !holds_grains(&world.walls) {
        // Only sticky walls hold grains: nothing to carry (and no pass over every grain).
        return false;
    }
    let rt = &world.wall_runtime;
    let p = &mut world.particles;
    let mut moved = false;
    for (k, a) in rt.attached.iter().enumerate() {
        if let Some(a) = a {
            moved |= hold(p, k, &rt.pose[a.wall as usize], a.local);
        }
    }
    moved
}

/// Puts grain `k` of `p` at `local` in a wall at `pose`, moving with it, as a sticky wall
/// holds it (000 §2.2); returns whether its place changed.
fn hold(p: &mut Particles, k: usize, pose: &Pose, local: DVec3) -> bool {
    let at = pose.to_world(local);
    let moved = at != p.pos[k];
    p.pos[k] = at;
    p.vel[k] = pose.velocity_at(at);
    p.omega[k] = pose.omega;
    moved
}

/// The grains [`apply_surfaces`] looks at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Candidates {
    /// Every free grain.
    Every,
    /// The free grains listed near a member of a sticky or absorbing wall, each against its
    /// listed members only, when the near lists cover every such wall: right after the
    /// rebuild check, a grain cannot touch a member it is not listed near
    /// (`NearWalls`).
    /// Else every free grain.
    Near,
}

/// Whether some wall is sticky: only those hold grains.
pub(crate) fn holds_grains(walls: &[Wall]) -> bool {
    walls.iter().any(|w| w.surface == Surface::Sticky)
}

/// The first sticky or absorbing wall (in index order) each free grain of the `candidates`
/// touches: such a grain is held where it is (and moves with the wall from then on), or
/// removed. Returns whether a grain was held or removed.
pub fn apply_surfaces(world: &mut World, periodic: &Periodic, candidates: Candidates) -> bool {
    let walls = &world.walls;
    if walls.iter().all(|w| w.surface == Surface::Normal) {
        return false;
    }
    let rt = &world.wall_runtime;
    let near = world.wall_history.near();
    let p = &world.particles;
    let listed = match candidates {
        Candidates::Near => walls
            .iter()
            .all(|w| w.surface == Surface::Normal || listable(w))
            .then(|| near.listed(p.len()))
            .flatten(),
        Candidates::Every => None,
    };
    // Grain k in the placement of wall w.
    let local = |k: usize, w: usize| rt.placed(w, p.pos[k]).0;
    // Whether member `s` of a wall touches grain k at `at` in the wall's placement.
    let touches = |k: usize, s: &Shape, at: DVec3| s.contact(at, p.radius[k]).is_some();
    let surface = |w: usize| walls[w].surface != Surface::Normal;
    let first = |k: usize| -> Option<(usize, usize)> {
        if rt.attached[k].is_some() {
            return None;
        }
        let wall = match listed {
            // The listed members in the walls' order.
            Some(_) => near.of(k)?.iter().find_map(|&id| {
                let (w, m) = (id.wall(), id.member());
                (surface(w) && touches(k, &walls[w].shape.members()[m], local(k, w))).then_some(w)
            }),
            // Every member of each wall, the grain placed once per wall.
            None => (0..walls.len()).find(|&w| {
                surface(w) && {
                    let at = local(k, w);
                    walls[w].shape.members().iter().any(|s| touches(k, s, at))
                }
            }),
        };
        wall.map(|w| (k, w))
    };
    // (particle, wall) in ascending particle order; usually empty, so nothing is allocated.
    let hits: Vec<(usize, usize)> = match listed {
        Some(listed) => listed
            .par_iter()
            .with_min_len(crate::particles::MIN_LEN)
            .filter_map(|&k| first(k as usize))
            .collect(),
        None => (0..p.len())
            .into_par_iter()
            .with_min_len(crate::particles::MIN_LEN)
            .filter_map(first)
            .collect(),
    };
    if hits.is_empty() {
        return false;
    }
    let mut keep = vec![true; p.len()];
    let mut removed = false;
    for (k, w) in hits {
        match world.walls[w].surface {
            Surface::Sticky => {
                let rt = &mut world.wall_runtime;
                let p = &mut world.particles;
                let local = rt.pose[w].to_local(p.pos[k]);
                rt.attached[k] = Some(Attachment {
                    wall: w as u32,
                    local,
                });
                hold(p, k, &rt.pose[w], local);
                p.inv_mass[k] = 0.0;
                p.inv_inertia[k] = 0.0;
                p.mobility[k] = Mobility::Fixed;
                world.wall_history.forget(k);
            }
            Surface::Absorbing => {
                keep[k] = false;
                removed = true;
                world.wall_runtime.absorbed[w] += 1;
            }
            Surface::Normal => {}
        }
    }
    if removed {
        remove_particles(world, &keep, periodic);
    }
    true
}

/// Removes the particles with `keep[k] == false`, keeping the order of the others and the
/// contact history of every remaining touching pair.
pub fn remove_particles(world: &mut World, keep: &[bool], periodic: &Periodic) {
    let pairs = world.pair_history_by_id(periodic);
    world.particles.retain(keep);
    world.wall_history.retain(keep);
    let mut k = 0;
    world.wall_runtime.attached.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    world.neighbors = world.neighbors.emptied();
    world.rebuild_neighbors(periodic);
    world.set_pair_history_by_id(&pairs);
}
