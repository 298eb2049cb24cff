//! How walls act on grains during a soft-sphere step: poses at the current time, the contact
//! law on every touching (wall, member), sticky and absorbing surfaces, grains held by walls.
//!
//! **Moving walls.** A grain's contact with a wall is found in the wall's scene placement
//! ([`Pose::to_local`]); the normal is turned back to the world. The law then sees the wall
//! as a body moving with the wall's velocity field at the grain's centre,
//! V + ω × (x − c − D), and the grain's spin relative to the wall, ω_i − ω. This gives the
//! exact slip velocity at the contact point, v_i + ω_i × r n̂ − (V + ω × (x_c − c − D)),
//! and makes rolling and twisting resistance act on the spin relative to the wall, so a grain
//! carried round a drum without slipping feels none (000 §2.2: the wall's velocity is
//! subtracted from u of eq 8). The tangential spring of a wall contact lives in the contact
//! history keyed by (wall, member) and is turned into the current tangent plane every step,
//! keeping its length (001 eq 3.49 takes it there gradually; we take it at once, as for pairs).
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

use super::{Pose, Shape, Surface, Wall};
use crate::boundary::Periodic;
use crate::contact::lanes::{Contacts, Lanes, Touches, WallLanes, F, LANES, V3};
use crate::contact::{Body, ContactModel, ContactState, Touch};
use crate::material::{PairParams, PairTable};
use crate::particles::{Mobility, Particles};
use crate::simd::prefetch;
use crate::stats::ContactStats;
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
    /// Per particle: the members of walls that stay in place or move without turning within
    /// its reach, found at each neighbour rebuild ([`near_walls`]).
    pub near: NearWalls,
}

impl WallRuntime {
    /// A grain at `pos` in the placement of wall `w`, and whether it needed no transform: a
    /// wall that stays in place, or sits at its scene pose, has world normals. The one rule for
    /// the wall forces and the sticky and absorbing surfaces, so that both see the same grain.
    #[inline(always)]
    fn placed(&self, w: usize, pos: DVec3) -> (DVec3, bool) {
        let pose = &self.pose[w];
        let direct = self.still.get(w).copied().unwrap_or(false) || pose.is_identity();
        (if direct { pos } else { pose.to_local(pos) }, direct)
    }
}

/// Per particle, the history keys of the members of walls that stay in place or move without
/// turning ([`listable`]) closer than its radius plus the skin at the build (compressed rows).
/// Until the next neighbour rebuild no particle moves more than half the skin, nor does any
/// such wall ([`NearWalls::outrun`]), so a member not listed cannot touch it: the step skips it.
///
/// When every wall is listable ([`NearWalls::take_up`]), the contact
/// history of each listed (particle, member) lives here, beside its key, instead of in the
/// particle's own list (`World::wall_state`): the wall pass then reads the histories of the
/// grains it visits in the order it visits them, one run, not one list per grain elsewhere.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NearWalls {
    start: Vec<u32>,
    keys: Vec<u32>,
    /// The particles with a member listed, ascending.
    listed: Vec<u32>,
    /// The contact history of each listed member, beside its key, when the lists hold them
    /// (else empty); a member the grain does not touch has the default (not touching).
    history: Vec<ContactState>,
    /// Whether the lists hold the histories of the listed members ([`NearWalls::take_up`]).
    holds: bool,
    /// Per wall, its offset at the build when it is listed and moves
    /// ([`super::Motion::translates`]).
    offset: Vec<Option<DVec3>>,
    /// Half the skin the lists were built with (m).
    half_skin: f64,
}

impl NearWalls {
    /// The particles with a member listed, ascending, when the list was built for `n` particles.
    #[inline]
    pub fn listed(&self, n: usize) -> Option<&[u32]> {
        (self.start.len() == n + 1).then_some(self.listed.as_slice())
    }

    /// Whether a wall listed as it moves has gone half the skin or more since the build, at
    /// the walls' `poses`: with a grain gone up to half the skin, a member not listed could
    /// then touch it, so the lists must be built again.
    pub fn outrun(&self, poses: &[Pose]) -> bool {
        self.offset.iter().zip(poses).any(|(at_build, pose)| {
            at_build.is_some_and(|o| (pose.offset - o).length() >= self.half_skin)
        })
    }

    /// Whether the lists hold the contact histories of the listed members.
    #[inline]
    pub fn holds_history(&self) -> bool {
        self.holds
    }

    /// The first history slot of particle `k`'s listed members.
    #[inline]
    pub fn first_slot(&self, k: usize) -> usize {
        self.start[k] as usize
    }

    /// Lends the histories the lists hold to the wall pass, which gives them back
    /// ([`NearWalls::give_back`]) before anything else reads them.
    pub fn lend(&mut self) -> Vec<ContactState> {
        std::mem::take(&mut self.history)
    }

    /// Takes back the histories [`NearWalls::lend`] lent.
    pub fn give_back(&mut self, history: Vec<ContactState>) {
        self.history = history;
    }

    /// The listed members of particle `k` touching it, with their contact history, when the
    /// lists hold them (else none): the rest of its wall contacts are in its own list.
    pub fn touching(&self, k: usize) -> impl Iterator<Item = (u32, &ContactState)> {
        let (a, b) = match self.holds_history() {
            true => (self.start[k] as usize, self.start[k + 1] as usize),
            false => (0, 0),
        };
        self.keys[a..b]
            .iter()
            .zip(&self.history[a..b])
            .filter(|(_, s)| s.touching)
            .map(|(&key, s)| (key, s))
    }

    /// Forgets the history of particle `k`'s listed members, when the lists hold it.
    pub fn forget(&mut self, k: usize) {
        if self.holds_history() {
            let (a, b) = (self.start[k] as usize, self.start[k + 1] as usize);
            self.history[a..b].fill(ContactState::default());
        }
    }

    /// Every listed contact history the lists hold, for an integrator that advances them.
    pub fn history_mut(&mut self) -> &mut [ContactState] {
        &mut self.history
    }

    /// Moves the contact histories the lists hold into the particles' own lists `rows` (each
    /// touching member at the end of its particle's list), before the lists are rebuilt or
    /// the particles renumbered.
    pub fn settle(&mut self, rows: &mut [Vec<(u32, ContactState)>]) {
        if !self.holds_history() {
            return;
        }
        for &k in &self.listed {
            let (a, b) = (
                self.start[k as usize] as usize,
                self.start[k as usize + 1] as usize,
            );
            for (key, state) in self.keys[a..b].iter().zip(&mut self.history[a..b]) {
                if state.touching {
                    rows[k as usize].push((*key, std::mem::take(state)));
                }
            }
        }
        self.history.clear();
        self.holds = false;
    }

    /// Takes the histories of the listed members out of the particles' own lists `rows` into
    /// the lists, when every one of `walls` is [`listable`] (only then does the wall pass
    /// visit the listed grains alone, [`WallForces::reach`]) and the lists
    /// were built for these particles; else makes room in each listed particle's list for all
    /// its listed members, so that contacts forming before the next build need no allocation
    /// in the step.
    pub fn take_up(&mut self, rows: &mut [Vec<(u32, ContactState)>], walls: &[Wall]) {
        if !walls.iter().all(listable) || self.listed(rows.len()).is_none() {
            self.reserve_history(rows);
            return;
        }
        self.history.clear();
        self.history
            .resize(self.keys.len(), ContactState::default());
        self.holds = true;
        for &k in &self.listed {
            let (a, b) = (
                self.start[k as usize] as usize,
                self.start[k as usize + 1] as usize,
            );
            let row = &mut rows[k as usize];
            for (key, state) in self.keys[a..b].iter().zip(&mut self.history[a..b]) {
                if let Some(s) = row.iter().position(|(h, _)| h == key) {
                    *state = row.swap_remove(s).1;
                }
            }
        }
    }

    /// Makes room in each listed particle's wall contact history for all its listed members.
    fn reserve_history(&self, history: &mut [Vec<(u32, ContactState)>]) {
        for &k in &self.listed {
            if let (Some(h), Some(near)) = (history.get_mut(k as usize), self.of(k as usize)) {
                h.reserve(near.len().saturating_sub(h.len()));
            }
        }
    }

    /// The listed members near particle `k`, or `None` when the list was not built for it.
    #[inline]
    pub(crate) fn of(&self, k: usize) -> Option<&[u32]> {
        let (a, b) = (*self.start.get(k)?, *self.start.get(k + 1)?);
        Some(&self.keys[a as usize..b as usize])
    }
}

/// Whether the near lists take the members of `wall`: it stays in place, or moves without
/// turning (its distance to a grain then changes by no more than its offset).
pub fn listable(wall: &Wall) -> bool {
    wall.motion.keeps_in_place(&wall.shape) || wall.motion.translates()
}

/// The members of [`listable`] walls, placed where they are at `time` (s), within
/// `radius + skin` of each particle, or of its image across a periodic face it lies within a
/// skin of: such a grain may be wrapped to the other side before the next build, a move the
/// rebuild check (by minimum image) does not count, and walls are not periodic.
pub fn near_walls(
    walls: &[Wall],
    pos: &[DVec3],
    radius: &[f64],
    skin: f64,
    periodic: &Periodic,
    time: f64,
) -> NearWalls {
    let axes = periodic.axes();
    // Each listed wall's pose at the build and whether it moves (then it is met in that
    // placement, and its offset is what `outrun` measures from).
    let placed: Vec<Option<(Pose, bool)>> = walls
        .iter()
        .map(|w| {
            let moves = !w.motion.keeps_in_place(&w.shape);
            listable(w).then(|| (w.motion.pose(time), moves))
        })
        .collect();
    let offset = placed
        .iter()
        .map(|p| p.filter(|&(_, moves)| moves).map(|(pose, _)| pose.offset))
        .collect();
    let rows: Vec<Vec<u32>> = pos
        .par_iter()
        .zip(radius.par_iter())
        .with_min_len(crate::particles::MIN_LEN)
        .map(|(&x, &r)| {
            // x and its images across the faces it is near: up to 8 at a corner.
            let mut images = [x; 8];
            let mut count = 1;
            for (k, axis) in axes.iter().enumerate() {
                let Some([lo, hi]) = *axis else { continue };
                let shift = if x[k] - lo < skin {
                    hi - lo
                } else if hi - x[k] < skin {
                    lo - hi
                } else {
                    continue;
                };
                for i in 0..count {
                    images[count + i] = images[i];
                    images[count + i][k] += shift;
                }
                count *= 2;
            }
            let mut row = Vec::new();
            for (w, (wall, placed)) in walls.iter().zip(&placed).enumerate() {
                let Some((pose, moves)) = *placed else {
                    continue;
                };
                let local = |p: DVec3| if moves { pose.to_local(p) } else { p };
                for (m, shape) in wall.shape.members().iter().enumerate() {
                    if images[..count]
                        .iter()
                        .any(|&p| shape.may_touch(local(p), r + skin))
                    {
                        row.push(key(w, m));
                    }
                }
            }
            row
        })
        .collect();
    let mut near = NearWalls {
        start: Vec::with_capacity(pos.len() + 1),
        keys: Vec::new(),
        listed: Vec::new(),
        history: Vec::new(),
        holds: false,
        offset,
        half_skin: 0.5 * skin,
    };
    near.start.push(0);
    for (k, row) in rows.into_iter().enumerate() {
        if !row.is_empty() {
            near.listed.push(k as u32);
        }
        near.keys.extend(row);
        near.start.push(near.keys.len() as u32);
    }
    near
}

/// History key of member `m` of wall `w`.
#[inline]
fn key(w: usize, m: usize) -> u32 {
    ((w as u32) << 8) | m as u32
}

/// The wall and member of a wall contact's history key (the wall's index times 256 plus the
/// member's).
#[inline]
pub fn member(key: u32) -> (usize, usize) {
    ((key >> 8) as usize, (key & 0xff) as usize)
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
    /// rebuild check, a grain cannot touch a member it is not listed near ([`NearWalls`]).
    /// Else every free grain.
    Near,
}

/// Whether some wall is sticky: only those hold grains.
fn holds_grains(walls: &[Wall]) -> bool {
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
    let p = &world.particles;
    let listed = match candidates {
        Candidates::Near => walls
            .iter()
            .all(|w| w.surface == Surface::Normal || listable(w))
            .then(|| rt.near.listed(p.len()))
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
            Some(_) => rt.near.of(k)?.iter().find_map(|&id| {
                let (w, m) = member(id);
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
                world.forget_wall_contacts(k);
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
    let pairs = world.pair_history_by_id();
    world.wall_runtime.near.settle(&mut world.wall_state);
    world.particles.retain(keep);
    let mut k = 0;
    world.wall_state.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    k = 0;
    world.wall_runtime.attached.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    world.neighbors = world.neighbors.emptied();
    world.rebuild_neighbors(periodic);
    world.set_pair_history_by_id(&pairs);
}

/// Everything the wall forces of one particle need, shared by all particles of a step.
pub struct WallForces<'a> {
    walls: &'a [Wall],
    rt: &'a WallRuntime,
    model: &'a ContactModel,
    table: &'a PairTable,
    dt: f64,
    /// Whether every wall is [`listable`], so that the near lists alone say which may touch.
    all_listed: bool,
    /// Whether some wall is sticky (only those hold grains).
    sticky: bool,
    /// The contact law's lanes for walls, when they cover the model.
    lanes: Option<WallLanes>,
}

impl<'a> WallForces<'a> {
    /// Gathers the walls of `world` (after [`prepare`]) and the contact law.
    pub fn new(
        walls: &'a [Wall],
        rt: &'a WallRuntime,
        model: &'a ContactModel,
        table: &'a PairTable,
        dt: f64,
    ) -> Self {
        WallForces {
            walls,
            rt,
            model,
            table,
            dt,
            all_listed: walls.iter().all(listable),
            sticky: holds_grains(walls),
            lanes: Lanes::walls(model, dt),
        }
    }

    /// True when no wall acts on particle `k` (with wall contact `history`) and [`Self::on`]
    /// would change nothing: it is not held, has no wall contact, and no wall that stays in
    /// place is near it. Checked first, it spares reading the particle's state.
    #[inline]
    pub fn idle(&self, k: usize, history: &[(u32, ContactState)]) -> bool {
        !self.held(k) && self.quiet(k, history)
    }

    /// The only particles a wall can act on among `n`, ascending, when every wall is
    /// [`listable`]: those with a near member listed (for the others [`Self::on`] skips every
    /// member), whose histories the near lists then hold. `None` when any particle may feel a
    /// wall, or the lists do not hold the listed members' histories: every grain then takes
    /// [`Self::on`] with its own list.
    pub fn reach(&self, n: usize) -> Option<&'a [u32]> {
        if self.all_listed {
            let near = &self.rt.near;
            near.listed(n)
                .filter(|listed| listed.is_empty() || near.holds_history())
        } else {
            None
        }
    }

    /// The first slot of particle `k`'s listed members in the near lists' histories.
    #[inline]
    pub fn first_slot(&self, k: usize) -> usize {
        self.rt.near.first_slot(k)
    }

    /// Whether a sticky wall holds particle `k`.
    #[inline]
    fn held(&self, k: usize) -> bool {
        self.sticky && self.rt.attached.get(k).is_some_and(Option::is_some)
    }

    /// Whether particle `k` (with wall contact `history`) has no wall contact and no wall
    /// near it, every wall being [`listable`].
    #[inline]
    fn quiet(&self, k: usize, history: &[(u32, ContactState)]) -> bool {
        self.all_listed && history.is_empty() && self.rt.near.of(k).is_some_and(<[u32]>::is_empty)
    }

    /// Force and torque (N, N m) of every normal wall on particle `k` (the `body` at `pos`
    /// with radius `r`, of `material`), updating its wall contact `history`. Inlined where it
    /// is called, as before the lanes: out of line, its rolling torque compiled to an
    /// instruction (`vmovq` between registers, 66 0F D6) that Valgrind 3.19 cannot run.
    #[inline(always)]
    pub fn on(
        &self,
        k: usize,
        body: &Body,
        pos: DVec3,
        r: f64,
        material: usize,
        history: &mut Vec<(u32, ContactState)>,
    ) -> (DVec3, DVec3, ContactStats) {
        let mut f = DVec3::ZERO;
        let mut t = DVec3::ZERO;
        let mut stats = ContactStats::default();
        if self.held(k) {
            history.clear();
            return (f, t, stats);
        }
        if self.quiet(k, history) {
            return (f, t, stats);
        }
        let near = self.rt.near.of(k);
        for (w, wall) in self.walls.iter().enumerate() {
            let still = self.rt.still.get(w).copied().unwrap_or(false);
            let pose = &self.rt.pose[w];
            // The near lists hold the members of walls that stay in place or move without
            // turning ([`listable`]) that may touch the grain.
            let listed = still || wall.motion.translates();
            for m in 0..wall.shape.members().len() {
                let id = key(w, m);
                if listed && near.is_some_and(|near| !near.contains(&id)) {
                    continue;
                }
                let Some((c, s)) = meet(self.contact(w, m, pos, r), id, history) else {
                    continue;
                };
                let (grain, surface) = bodies(body, pose, pos);
                let params = self.table.get(material, wall.material);
                let out = self
                    .model
                    .force(params, c, &grain, &surface, &mut history[s].1, self.dt);
                f += out.force_i;
                t += out.torque_i;
                stats = ContactStats::merge(stats, touching(k, c, r));
            }
        }
        (f, t, stats)
    }

    /// [`Self::on`] for each particle of `reach` (ascending, all listed near a member: every
    /// wall is [`listable`], [`Self::reach`]) into `out` as (particle,
    /// force, torque), with the contact histories the near lists hold (`history`, the run of
    /// them from slot `first` on, [`NearWalls::take_up`]). When the lanes cover the model and
    /// every contact of a grain is established, they are evaluated [`LANES`] at a time with
    /// those of the grains around it ([`WallLanes`]: the scalar law's operations in its order)
    /// and summed in the members' order; else the grain takes `Self::on_listed`. Every bit
    /// is that of [`Self::on`].
    pub fn listed(
        &self,
        p: &Particles,
        reach: &[u32],
        out: &mut [(u32, DVec3, DVec3)],
        history: &mut [ContactState],
        first: usize,
    ) -> ContactStats {
        let mut stats = ContactStats::default();
        let mut batch = Batch::default();
        let near = &self.rt.near;
        for (e, &k) in reach.iter().enumerate() {
            self.ask_ahead(p, reach, e, history, first);
            let k = k as usize;
            if self.held(k) {
                // As Self::on: no wall acts on a grain a wall holds (its wall contacts were
                // forgotten when it was taken).
                out[e] = (k as u32, DVec3::ZERO, DVec3::ZERO);
                continue;
            }
            let (a, b) = (near.start[k] as usize, near.start[k + 1] as usize);
            let (keys, slots) = (&near.keys[a..b], a - first..b - first);
            if self.lanes.is_some() && keys.len() <= LANES {
                if batch.contacts + keys.len() > LANES || batch.grains == LANES {
                    self.flush(&mut batch, out, history, &mut stats);
                }
                if let Some(here) = self.queue(&mut batch, p, k, keys, history, slots.clone()) {
                    batch.grain[batch.grains] = (e, k, batch.contacts, here);
                    batch.grains += 1;
                    continue;
                }
            }
            // A model the lanes leave to the scalar law, more members near the grain than a
            // batch holds, a grain that cannot move or a contact forming: the grain takes
            // the scalar law, after the grains before it.
            self.flush(&mut batch, out, history, &mut stats);
            let (f, t, s) = self.on_listed(p, k, keys, &mut history[slots]);
            out[e] = (k as u32, f, t);
            stats = ContactStats::merge(stats, s);
        }
        self.flush(&mut batch, out, history, &mut stats);
        stats
    }

    /// Where member `m` of wall `w` touches a grain at `pos` of radius `r`: in the wall's
    /// placement ([`WallRuntime::placed`]), the normal turned back to the world unless the
    /// placement needed no transform.
    #[inline(always)]
    fn contact(&self, w: usize, m: usize, pos: DVec3, r: f64) -> Option<Touch> {
        let wall = &self.walls[w];
        let (local, direct) = self.rt.placed(w, pos);
        let mut c = touch(wall, &wall.shape.members()[m], local, r)?;
        if !direct {
            c.normal = self.rt.pose[w].rotation * c.normal;
        }
        Some(c)
    }

    /// [`Self::on`] for listed particle `k` of `p`, near the members `keys` with contact
    /// histories `history` (one each, [`NearWalls::take_up`]): every wall is [`listable`],
    /// so the listed members, in order, are the only ones it may touch.
    #[inline(always)]
    fn on_listed(
        &self,
        p: &Particles,
        k: usize,
        keys: &[u32],
        history: &mut [ContactState],
    ) -> (DVec3, DVec3, ContactStats) {
        let body = grain(p, k);
        let (pos, r, material) = (p.pos[k], p.radius[k], p.material[k] as usize);
        let (mut f, mut t, mut stats) = (DVec3::ZERO, DVec3::ZERO, ContactStats::default());
        for (&id, state) in keys.iter().zip(history) {
            let (w, m) = member(id);
            let wall = &self.walls[w];
            let Some(c) = self.contact(w, m, pos, r) else {
                forget(state);
                continue;
            };
            let (grain, surface) = bodies(&body, &self.rt.pose[w], pos);
            let params = self.table.get(material, wall.material);
            let out = self
                .model
                .force(params, c, &grain, &surface, state, self.dt);
            f += out.force_i;
            t += out.torque_i;
            stats = ContactStats::merge(stats, touching(k, c, r));
        }
        (f, t, stats)
    }

    /// Asks for what the grains [`AHEAD`] places after grain `e` of `reach` will read (of `p`,
    /// and the near lists' `history` from slot `first` on): their state, near members and
    /// contact histories. The grains near a wall are a tenth of S1's, spread through the
    /// store: without the hints each waits for most of what it reads.
    #[inline(always)]
    fn ask_ahead(
        &self,
        p: &Particles,
        reach: &[u32],
        e: usize,
        history: &[ContactState],
        first: usize,
    ) {
        let Some(&k) = reach.get(e + AHEAD) else {
            return;
        };
        let k = k as usize;
        prefetch(p.pos.as_ptr().wrapping_add(k));
        prefetch(p.vel.as_ptr().wrapping_add(k));
        prefetch(p.omega.as_ptr().wrapping_add(k));
        prefetch(p.radius.as_ptr().wrapping_add(k));
        prefetch(p.inv_mass.as_ptr().wrapping_add(k));
        prefetch(p.inv_inertia.as_ptr().wrapping_add(k));
        prefetch(p.material.as_ptr().wrapping_add(k));
        let near = &self.rt.near;
        prefetch(near.start.as_ptr().wrapping_add(k));
        if let Some(&a) = near.start.get(k) {
            prefetch(near.keys.as_ptr().wrapping_add(a as usize));
            prefetch(
                history
                    .as_ptr()
                    .wrapping_add((a as usize).wrapping_sub(first)),
            );
        }
    }

    /// Puts the contacts of particle `k` of `p` with its near members `keys` (histories
    /// `history[slots]`) into `batch`, doing to the histories what [`Self::on_listed`] does
    /// before the law: the grain's statistics when it can move and every contact is
    /// established, so that the lanes take them all. Else its contacts are taken out of the
    /// batch again and `None` returned: its histories are then as [`Self::on_listed`] would
    /// find them, or leave them before the law, so that the grain may take it.
    #[inline(always)]
    fn queue(
        &self,
        batch: &mut Batch,
        p: &Particles,
        k: usize,
        keys: &[u32],
        history: &mut [ContactState],
        slots: std::ops::Range<usize>,
    ) -> Option<ContactStats> {
        let body = grain(p, k);
        // The scalar law's first test (the wall's inverse mass is 0): two immovable bodies
        // have no contact force.
        if body.inv_mass == 0.0 {
            return None;
        }
        let (pos, r, material) = (p.pos[k], p.radius[k], p.material[k] as usize);
        let from = batch.contacts;
        let mut here = ContactStats::default();
        for (&id, s) in keys.iter().zip(slots) {
            let (w, m) = member(id);
            let wall = &self.walls[w];
            let Some(c) = self.contact(w, m, pos, r) else {
                forget(&mut history[s]);
                continue;
            };
            let state = &history[s];
            if !state.touching {
                batch.contacts = from;
                return None;
            }
            let (grain, surface) = bodies(&body, &self.rt.pose[w], pos);
            let params = self.table.get(material, wall.material);
            batch.put(c, &grain, &surface, state, params, s);
            here = ContactStats::merge(here, touching(k, c, r));
        }
        Some(here)
    }

    /// Evaluates the lanes of `batch`, puts their slips back in the near lists' `history`,
    /// and writes each grain's sum into `out` and merges its statistics into `stats`, in the
    /// grains' order; empties the batch.
    fn flush(
        &self,
        batch: &mut Batch,
        out: &mut [(u32, DVec3, DVec3)],
        history: &mut [ContactState],
        stats: &mut ContactStats,
    ) {
        let zero = [[0.0; LANES]; 3];
        let (mut f, mut t) = (zero, zero);
        if let Some(law) = self.lanes.as_ref().filter(|_| batch.contacts > 0) {
            let (c, touch) = batch.inputs();
            let r = law.force(&c, &touch, self.dt);
            (f, t) = (lanes3(r.force_i), lanes3(r.torque_i));
            let slip = lanes3(r.slip);
            for (l, &s) in batch.at[..batch.contacts].iter().enumerate() {
                history[s].slip = at(&slip, l);
            }
        }
        let mut from = 0;
        for &(e, k, to, here) in &batch.grain[..batch.grains] {
            let (mut sum_f, mut sum_t) = (DVec3::ZERO, DVec3::ZERO);
            for l in from..to {
                sum_f += at(&f, l);
                sum_t += at(&t, l);
            }
            out[e] = (k as u32, sum_f, sum_t);
            *stats = ContactStats::merge(*stats, here);
            from = to;
        }
        (batch.contacts, batch.grains) = (0, 0);
    }
}

/// Grain `k` of `p` as the contact law sees it.
#[inline(always)]
fn grain(p: &Particles, k: usize) -> Body {
    Body {
        vel: p.vel[k],
        omega: p.omega[k],
        radius: Some(p.radius[k]),
        inv_mass: p.inv_mass[k],
        inv_inertia: p.inv_inertia[k],
    }
}

/// Drops the history of a contact that ended: a slot the grain does not touch keeps the
/// default, which is written only when the contact was there (most slots stay untouched).
#[inline(always)]
fn forget(state: &mut ContactState) {
    if state.touching {
        *state = ContactState::default();
    }
}

/// Where member `shape` of `wall` touches a sphere at `local` (in the wall's placement) of
/// radius `r`: `None` when they do not touch or the wall is not normal. The plane, the
/// commonest wall, is inline.
#[inline(always)]
fn touch(wall: &Wall, shape: &Shape, local: DVec3, r: f64) -> Option<Touch> {
    let contact = match shape {
        Shape::Plane(plane) => plane.contact(local, r),
        other => other.contact(local, r),
    };
    contact.filter(|_| wall.surface == Surface::Normal)
}

/// Member `id`'s `contact` with a grain of wall contact `history`
/// ([`WallForces::contact`]): where they touch, and the slot of their history, made when the
/// contact forms; `None` when they do not touch or the wall is not normal, with any history
/// of the member dropped.
#[inline(always)]
fn meet(
    contact: Option<Touch>,
    id: u32,
    history: &mut Vec<(u32, ContactState)>,
) -> Option<(Touch, usize)> {
    let Some(touch) = contact else {
        if let Some(s) = history.iter().position(|(h, _)| *h == id) {
            history.swap_remove(s);
        }
        return None;
    };
    let slot = history.iter().position(|(h, _)| *h == id);
    let s = slot.unwrap_or_else(|| {
        history.push((id, ContactState::default()));
        history.len() - 1
    });
    Some((touch, s))
}

/// The grain `body` at `pos` and the surface of a wall at `pose` as the contact law sees them
/// (see the module's doc): the grain spinning relative to the wall, the surface a body of no
/// radius, mass or spin moving with the wall's velocity field at the grain's centre.
#[inline(always)]
fn bodies(body: &Body, pose: &Pose, pos: DVec3) -> (Body, Body) {
    let grain = Body {
        omega: body.omega - pose.omega,
        ..*body
    };
    let surface = Body {
        vel: pose.velocity_at(pos),
        omega: DVec3::ZERO,
        radius: None,
        inv_mass: 0.0,
        inv_inertia: 0.0,
    };
    (grain, surface)
}

/// Listed grains ahead of the wall pass whose state is asked for early ([`prefetch`]).
const AHEAD: usize = 8;

/// The lanes of `v`, component by component.
#[inline(always)]
fn lanes3(v: V3) -> [[f64; LANES]; 3] {
    [v.x, v.y, v.z].map(F::to_array)
}

/// Lane `l` of the components `v`.
#[inline(always)]
fn at(v: &[[f64; LANES]; 3], l: usize) -> DVec3 {
    DVec3::new(v[0][l], v[1][l], v[2][l])
}

/// The statistics of grain `k` of radius `r` touching a wall at `c`.
#[inline(always)]
fn touching(k: usize, c: Touch, r: f64) -> ContactStats {
    ContactStats {
        contacts: 1,
        max_overlap_ratio: c.overlap / r,
        worst: k,
        non_finite: None,
    }
}

/// Wall contacts of consecutive listed grains waiting for the lanes ([`WallForces::listed`]):
/// up to [`LANES`] established contacts, contact l in lane l, in the grains' order and each
/// grain's members'.
#[derive(Default)]
struct Batch {
    /// Contacts so far.
    contacts: usize,
    /// The slot of each lane's contact history in the run of them the batch writes.
    at: [usize; LANES],
    /// The lanes' inputs ([`Contacts`]), lane by lane.
    dv: [[f64; LANES]; 3],
    w: [[f64; LANES]; 3],
    r: [f64; LANES],
    ii: [f64; LANES],
    slip: [[f64; LANES]; 3],
    stiffness: [[f64; LANES]; 4],
    pair: [[f64; LANES]; 4],
    normal: [[f64; LANES]; 3],
    overlap: [f64; LANES],
    /// Grains so far.
    grains: usize,
    /// Each grain's entry in the output, index, end of its contacts, and statistics.
    grain: [(usize, usize, usize, ContactStats); LANES],
}

impl Batch {
    /// Adds an established contact touching at `c` of the `grain` with a wall `surface`
    /// ([`bodies`]), with history `state` at `at`, and pair constants `p`, to the lanes.
    #[inline(always)]
    fn put(
        &mut self,
        c: Touch,
        grain: &Body,
        surface: &Body,
        state: &ContactState,
        p: &PairParams,
        at: usize,
    ) {
        let l = self.contacts;
        let set = |v: &mut [[f64; LANES]; 3], x: DVec3| {
            (v[0][l], v[1][l], v[2][l]) = (x.x, x.y, x.z);
        };
        set(&mut self.dv, grain.vel - surface.vel);
        set(&mut self.w, grain.omega);
        set(&mut self.slip, state.slip);
        set(&mut self.normal, c.normal);
        (self.r[l], self.ii[l], self.overlap[l]) =
            (grain.radius.unwrap_or(0.0), grain.inv_inertia, c.overlap);
        let k = &state.stiffness;
        for (v, x) in self.stiffness.iter_mut().zip([k.kn, k.kt, k.gn, k.gt]) {
            v[l] = x;
        }
        for (v, x) in self
            .pair
            .iter_mut()
            .zip([p.mu_s, p.mu_r, p.mu_t, p.cohesion])
        {
            v[l] = x;
        }
        self.at[l] = at;
        self.contacts += 1;
    }

    /// The lanes' inputs: the wall's lever arm, spin and inverse inertia are the zeros of
    /// the surface ([`bodies`]).
    #[inline(always)]
    fn inputs(&self) -> (Contacts, Touches) {
        let v3 = |v: &[[f64; LANES]; 3]| V3 {
            x: F::new(v[0]),
            y: F::new(v[1]),
            z: F::new(v[2]),
        };
        let [kn, kt, gn, gt] = self.stiffness.map(F::new);
        let [mu, mu_r, mu_t, cohesion] = self.pair.map(F::new);
        let zero = F::splat(0.0);
        let c = Contacts {
            r_i: F::new(self.r),
            r_j: zero,
            dv: v3(&self.dv),
            w_i: v3(&self.w),
            w_j: V3::default(),
            slip: v3(&self.slip),
            kn,
            kt,
            gn,
            gt,
            mu,
            mu_r,
            mu_t,
            cohesion,
            ii_i: F::new(self.ii),
            ii_j: zero,
            ..Contacts::default()
        };
        let t = Touches {
            normal: v3(&self.normal),
            overlap: F::new(self.overlap),
        };
        (c, t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walls::{Motion, Plane, Shape};

    fn floor(z: f64, motion: Motion) -> Wall {
        Wall {
            shape: Shape::Plane(Plane {
                point: DVec3::new(0.0, 0.0, z),
                normal: DVec3::Z,
                both: false,
            }),
            material: 0,
            surface: Surface::Normal,
            motion,
        }
    }

    #[test]
    fn near_lists_see_across_the_periodic_faces_a_grain_may_wrap_through() {
        // A floor at z = 0.05 in a box periodic along z from 0 to 1; spheres of radius 0.1,
        // skin 0.05. The grain at z = 0.97 lies within a skin of the upper face: wrapped, it
        // would be at −0.03, touching the floor, before the rebuild check (by minimum image)
        // sees it move; it must be listed. The grain at z = 0.5 must not.
        let walls = [floor(0.05, Motion::Fixed)];
        let periodic = Periodic {
            z: Some([0.0, 1.0]),
            ..Periodic::default()
        };
        let pos = [0.97, 0.5].map(|z| DVec3::new(0.3, 0.3, z));
        let near = near_walls(&walls, &pos, &[0.1; 2], 0.05, &periodic, 0.0);
        assert_eq!(near.of(0), Some(&[key(0, 0)][..]));
        assert_eq!(near.of(1), Some(&[][..]));
        let open = near_walls(&walls, &pos, &[0.1; 2], 0.05, &Periodic::default(), 0.0);
        assert_eq!(open.of(0), Some(&[][..]));
    }

    #[test]
    fn near_lists_take_up_and_give_back_the_histories_of_their_members() {
        // A floor at z = 0 and a ceiling at z = 1 (fixed); grain 0 near the floor, grain 1
        // near neither. Grain 0's list holds a contact with the floor and one with the
        // ceiling (not listed: it stays in the grain's list), grain 1's one with the floor.
        let mut ceiling = floor(1.0, Motion::Fixed);
        if let Shape::Plane(p) = &mut ceiling.shape {
            p.normal = -DVec3::Z;
        }
        let walls = [floor(0.0, Motion::Fixed), ceiling];
        let pos = [0.12, 0.5].map(|z| DVec3::new(0.0, 0.0, z));
        let mut near = near_walls(&walls, &pos, &[0.1; 2], 0.05, &Periodic::default(), 0.0);
        let state = |x: f64| ContactState {
            slip: DVec3::new(x, 0.0, 0.0),
            touching: true,
            ..ContactState::default()
        };
        let mut rows = vec![
            vec![(key(1, 0), state(2.0)), (key(0, 0), state(1.0))],
            vec![(key(0, 0), state(3.0))],
        ];
        near.take_up(&mut rows, &walls);
        assert!(near.holds_history());
        assert_eq!(rows[0], vec![(key(1, 0), state(2.0))]);
        assert_eq!(rows[1], vec![(key(0, 0), state(3.0))]);
        let held: Vec<_> = near.touching(0).map(|(h, s)| (h, s.clone())).collect();
        assert_eq!(held, vec![(key(0, 0), state(1.0))]);
        assert_eq!(near.touching(1).count(), 0);
        near.settle(&mut rows);
        assert!(!near.holds_history());
        assert_eq!(
            rows[0],
            vec![(key(1, 0), state(2.0)), (key(0, 0), state(1.0))]
        );
        // Forgotten, a grain's held contacts are gone from the lists.
        near.take_up(&mut rows, &walls);
        near.forget(0);
        assert_eq!(near.touching(0).count(), 0);
        // A wall that turns leaves every history in the grains' lists.
        let moving = [floor(0.0, turning())];
        let mut near = near_walls(&moving, &pos, &[0.1; 2], 0.05, &Periodic::default(), 0.0);
        let mut rows = vec![vec![(key(0, 0), state(1.0))], Vec::new()];
        near.take_up(&mut rows, &moving);
        assert!(!near.holds_history());
        assert_eq!(rows[0], vec![(key(0, 0), state(1.0))]);
    }

    #[test]
    fn every_member_a_grain_touches_is_listed_near_it_as_the_floor_vibrates() {
        // The vibrated bed with its floor oscillating by 1.5 mm at 140 rad/s (3 g, as the
        // scene's 0.3 mm at 314 rad/s), nearly four times its skin of 0.4 mm both ways: after
        // every step, every member of every wall touching a grain where it is now must be
        // listed near it, or the step would have missed the contact.
        let toml = include_str!("../../../../scenes/vibrated-bed.toml").replace(
            "amplitude = 3e-4, frequency = 314.16",
            "amplitude = 1.5e-3, frequency = 140.0",
        );
        let scene = crate::scene::Scene::from_toml(&toml, "vibrated-bed").expect("parses");
        let mut sim =
            crate::sim::Simulation::new(scene, std::path::Path::new(".")).expect("builds");
        let (mut checked, mut floor) = (0, 0);
        for _ in 0..3000 {
            sim.step().expect("steps");
            let w = &sim.world;
            let p = &w.particles;
            for k in 0..p.len() {
                let near = w.wall_runtime.near.of(k).expect("built for these grains");
                for (i, wall) in w.walls.iter().enumerate() {
                    let pose = &w.wall_runtime.pose[i];
                    for (m, shape) in wall.shape.members().iter().enumerate() {
                        if shape
                            .contact(pose.to_local(p.pos[k]), p.radius[k])
                            .is_some()
                        {
                            assert!(
                                near.contains(&key(i, m)),
                                "grain {k}, wall {i} at t = {}",
                                w.time
                            );
                            checked += 1;
                            floor += usize::from(i == 1);
                        }
                    }
                }
            }
        }
        assert!(
            checked > 50_000 && floor > 40_000,
            "{checked} contacts, {floor} with the floor"
        );
    }

    /// A turn about the x axis through the origin: a floor through it does not keep in place.
    fn turning() -> Motion {
        Motion::Rotate {
            center: DVec3::ZERO,
            axis: DVec3::X,
            omega: 1.0,
            start: 0.0,
            ramp: 0.0,
        }
    }

    #[test]
    fn near_lists_hold_the_still_members_within_radius_plus_skin() {
        // Floors at z = 0 (fixed), z = 0.5 (fixed) and z = 0 (turning: always checked, never
        // listed); spheres of radius 0.1 with a skin of 0.05 at heights 0.12, 0.16 and 0.3.
        let walls = [
            floor(0.0, Motion::Fixed),
            floor(0.5, Motion::Fixed),
            floor(0.0, turning()),
        ];
        let pos = [0.12, 0.16, 0.3].map(|z| DVec3::new(0.0, 0.0, z));
        let near = near_walls(&walls, &pos, &[0.1; 3], 0.05, &Periodic::default(), 0.0);
        // Every height is below the plane at z = 0.5, whose grains sit on top of it: all touch.
        assert_eq!(near.of(0), Some(&[key(0, 0), key(1, 0)][..]));
        assert_eq!(near.of(1), Some(&[key(1, 0)][..]));
        assert_eq!(near.of(2), Some(&[key(1, 0)][..]));
        assert_eq!(near.of(3), None);
        assert!(!near.outrun(&[Pose::default(); 3]));
    }

    #[test]
    fn near_lists_follow_a_wall_that_moves_without_turning_until_it_has_gone_half_the_skin() {
        // A floor sliding along z at 1 m/s from t = 0.5 s (at 0.5 by t = 1 s) and one
        // oscillating along z with amplitude 0.2 (at 0.2 by t = π/2 s); spheres of radius 0.1,
        // skin 0.05. Built at t = 1 the sliding floor is at z = 0.5: the grain at 0.64 is
        // near it, the one at 0.7 is not; built at t = 0 it is at 0 and neither is.
        let walls = [
            floor(
                0.0,
                Motion::Translate {
                    velocity: DVec3::Z,
                    start: 0.5,
                },
            ),
            floor(
                -2.0,
                Motion::Oscillate {
                    amplitude: 0.2,
                    frequency: 1.0,
                    direction: DVec3::Z,
                },
            ),
        ];
        let pos = [0.64, 0.7].map(|z| DVec3::new(0.0, 0.0, z));
        let at = |t: f64| near_walls(&walls, &pos, &[0.1; 2], 0.05, &Periodic::default(), t);
        assert_eq!(at(1.0).of(0), Some(&[key(0, 0)][..]));
        assert_eq!(at(1.0).of(1), Some(&[][..]));
        assert_eq!(at(0.0).of(0), Some(&[][..]));
        // Built at t = 1, the lists hold while each wall has gone less than half the skin.
        let near = at(1.0);
        let poses = |t: f64| [&walls[0], &walls[1]].map(|w| w.motion.pose(t));
        assert!(!near.outrun(&poses(1.0)));
        assert!(!near.outrun(&poses(1.024)));
        assert!(near.outrun(&poses(1.026)));
        // The oscillating floor alone: at t = 1 it is at 0.2 sin 1 = 0.16829; it has gone
        // 0.2 sin 1.3 − 0.16829 = 0.02442 by t = 1.3 and 0.02533 by t = 1.32.
        let near = near_walls(
            &walls[1..],
            &pos,
            &[0.1; 2],
            0.05,
            &Periodic::default(),
            1.0,
        );
        let pose = |t: f64| [walls[1].motion.pose(t)];
        assert!(!near.outrun(&pose(1.3)));
        assert!(near.outrun(&pose(1.32)));
    }
}
