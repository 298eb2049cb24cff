//! The soft-sphere wall pass: the contact law on every touching (wall, member) of each grain,
//! the grains listed near walls taken in the contact law's lanes.
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

use glam::DVec3;
use rayon::prelude::*;

use super::free_walls::each_contact;
use super::{body, CHUNK};
use crate::contact::lanes::{Contacts, Lanes, Touches, WallLanes, F, LANES, V3};
use crate::contact::{Body, ContactModel, ContactState, Touch};
use crate::material::{PairParams, PairTable};
use crate::particles::Particles;
use crate::physics::Physics;
use crate::simd::prefetch;
use crate::stats::ContactStats;
use crate::walls::history::{Lent, WallHistory, WallMember};
use crate::walls::interact::{holds_grains, WallRuntime};
use crate::walls::near::{listable, NearWalls};
use crate::walls::{InnerHint, Pose, Shape, Surface, Wall};

/// Every wall's force and torque on the particles `p` walls can reach, into `wall_force`
/// as (particle, force, torque) in ascending particle, updating the wall contact history: one
/// entry per particle listed near a wall ([`WallForces::reach`]) when only those can feel one,
/// else one per particle (zeros where no wall acts); empty when there are no walls. Visiting
/// the listed particles only spares the step a pass over every grain's wall history (S1's
/// floor: a tenth of the grains).
#[inline(never)]
pub(super) fn wall_forces(
    p: &Particles,
    walls: &[Wall],
    wall_runtime: &WallRuntime,
    wall_history: &mut WallHistory,
    wall_force: &mut Vec<(u32, DVec3, DVec3)>,
    physics: &Physics,
    dt: f64,
) -> ContactStats {
    if walls.is_empty() {
        wall_force.clear();
        return ContactStats::default();
    }
    let Lent { near, held, own } = wall_history.lend();
    let walls = WallForces::new(
        walls,
        wall_runtime,
        near,
        &physics.model,
        &physics.table,
        dt,
    );
    let zero = (0, DVec3::ZERO, DVec3::ZERO);
    let visit = |k: usize, state: &mut Vec<_>, stats: &mut ContactStats| {
        if walls.idle(k, state) {
            return (k as u32, DVec3::ZERO, DVec3::ZERO);
        }
        let body = body(&p.vel, &p.omega, &p.radius, &p.inv_mass, &p.inv_inertia, k);
        let (fw, tw, wall_stats) = walls.on(
            k,
            &body,
            p.pos[k],
            p.radius[k],
            p.material[k] as usize,
            state,
        );
        *stats = ContactStats::merge(*stats, wall_stats);
        (k as u32, fw, tw)
    };
    let n = p.len();
    debug_assert_eq!(own.len(), n, "a wall history per particle");
    match walls.reach(n, held.is_some()) {
        Some(reach) => {
            wall_force.resize(reach.len(), zero);
            let held = held.unwrap_or_default();
            listed_walls(reach, wall_force, held, 0, &walls, p)
        }
        None => {
            wall_force.resize(n, zero);
            wall_force
                .par_chunks_mut(CHUNK)
                .zip(own.par_chunks_mut(CHUNK))
                .enumerate()
                .map(|(c, (out, states))| {
                    let mut stats = ContactStats::default();
                    for (o, (w, state)) in out.iter_mut().zip(states).enumerate() {
                        *w = visit(c * CHUNK + o, state, &mut stats);
                    }
                    stats
                })
                .reduce(ContactStats::default, ContactStats::merge)
        }
    }
}

/// Listed particles a wall pass visits per task.
const LISTED_TASK: usize = 256;

/// [`wall_forces`] over the listed particles `reach` of `p`, with their entries `out` and the
/// contact histories the near lists hold from slot `first` on (`history`, [`WallForces::listed`]):
/// halved until [`LISTED_TASK`] are left, the halves in parallel ([`rayon::join`]: no allocation).
fn listed_walls(
    reach: &[u32],
    out: &mut [(u32, DVec3, DVec3)],
    history: &mut [ContactState],
    first: usize,
    walls: &WallForces,
    p: &Particles,
) -> ContactStats {
    if reach.len() <= LISTED_TASK {
        // Only mesh members have inner hints: without one (plane walls, as S1's floor) the
        // pass is compiled with every hint absent, reading none, as before meshes had them;
        // with some, each slot's entry is read beside the members, one slice per grain.
        let near = walls.near;
        return match near.some_inner() {
            true => walls.listed(p, reach, out, history, first, |slots| {
                near.inner(slots).iter().map(|&i| near.hint(i))
            }),
            false => walls.listed(p, reach, out, history, first, |_| std::iter::repeat(None)),
        };
    }
    let mid = reach.len() / 2;
    let split = walls.first_slot(reach[mid] as usize);
    let (reach, reach_rest) = reach.split_at(mid);
    let (out, out_rest) = out.split_at_mut(mid);
    let (history, history_rest) = history.split_at_mut(split - first);
    let (a, b) = rayon::join(
        || listed_walls(reach, out, history, first, walls, p),
        || listed_walls(reach_rest, out_rest, history_rest, split, walls, p),
    );
    ContactStats::merge(a, b)
}

/// Everything the wall forces of one particle need, shared by all particles of a step.
pub struct WallForces<'a> {
    walls: &'a [Wall],
    rt: &'a WallRuntime,
    near: &'a NearWalls,
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
    /// Gathers the walls, their runtime (after [`crate::walls::interact::place`]) and near
    /// lists, and the contact law.
    pub fn new(
        walls: &'a [Wall],
        rt: &'a WallRuntime,
        near: &'a NearWalls,
        model: &'a ContactModel,
        table: &'a PairTable,
        dt: f64,
    ) -> Self {
        WallForces {
            walls,
            rt,
            near,
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
    pub fn idle(&self, k: usize, history: &[(WallMember, ContactState)]) -> bool {
        !self.held(k) && self.quiet(k, history)
    }

    /// The only particles a wall can act on among `n`, ascending, when every wall is
    /// [`listable`]: those with a near member listed (for the others [`Self::on`] skips every
    /// member), when their histories are `held` beside the near lists. `None` when any
    /// particle may feel a wall, or the listed members' histories are not held there: every
    /// grain then takes [`Self::on`] with its own list.
    pub fn reach(&self, n: usize, held: bool) -> Option<&'a [u32]> {
        if self.all_listed {
            self.near
                .listed(n)
                .filter(|listed| listed.is_empty() || held)
        } else {
            None
        }
    }

    /// The first slot of particle `k`'s listed members in the near lists' histories.
    #[inline]
    pub fn first_slot(&self, k: usize) -> usize {
        self.near.first_slot(k)
    }

    /// Whether a sticky wall holds particle `k`.
    #[inline]
    fn held(&self, k: usize) -> bool {
        self.sticky && self.rt.attached.get(k).is_some_and(Option::is_some)
    }

    /// Whether particle `k` (with wall contact `history`) has no wall contact and no wall
    /// near it, every wall being [`listable`].
    #[inline]
    fn quiet(&self, k: usize, history: &[(WallMember, ContactState)]) -> bool {
        self.all_listed
            && history.is_empty()
            && self.near.of(k).is_some_and(<[WallMember]>::is_empty)
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
        history: &mut Vec<(WallMember, ContactState)>,
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
        let near = self.near.of(k);
        for (w, wall) in self.walls.iter().enumerate() {
            if self.rt.is_free(w) {
                // Met by the free walls' own pass (`free_walls.rs`).
                continue;
            }
            let still = self.rt.still.get(w).copied().unwrap_or(false);
            let pose = &self.rt.pose[w];
            // The near lists hold the members of walls that stay in place or move without
            // turning ([`listable`]) that may touch the grain.
            let listed = still || wall.motion.translates();
            let mut act = |m: usize, contact: Option<Touch>| {
                let Some((c, s)) = meet(contact, WallMember::new(w, m), history) else {
                    return;
                };
                let (grain, surface) = bodies(body, pose, pos);
                let params = self.table.get(material, wall.material);
                let out = self
                    .model
                    .force(params, c, &grain, &surface, &mut history[s].1, self.dt);
                f += out.force_i;
                t += out.torque_i;
                stats = ContactStats::merge(stats, touching(k, c, r));
            };
            if listed {
                for m in 0..wall.shape.members().len() {
                    if near.is_some_and(|near| !near.contains(&WallMember::new(w, m))) {
                        continue;
                    }
                    act(m, self.contact(w, m, pos, r, None));
                }
            } else {
                // In no near list: every member is tried, a mesh's from one search of its grid
                // for all of them (`each_contact`), not one search each (a drum's 68 faces).
                let (local, direct) = self.rt.placed(w, pos);
                each_contact(&wall.shape, local, r, |m, contact| {
                    let contact = contact.filter(|_| wall.surface == Surface::Normal);
                    act(
                        m,
                        contact.map(|mut c| {
                            if !direct {
                                c.normal = pose.rotation * c.normal;
                            }
                            c
                        }),
                    );
                });
            }
        }
        (f, t, stats)
    }

    /// [`Self::on`] for each particle of `reach` (ascending, all listed near a member: every
    /// wall is [`listable`], [`Self::reach`]) into `out` as (particle,
    /// force, torque), with the contact histories the near lists hold (`history`, the run of
    /// them from slot `first` on, [`WallHistory`]). When the lanes cover the model and
    /// every contact of a grain is established, they are evaluated [`LANES`] at a time with
    /// those of the grains around it ([`WallLanes`]: the scalar law's operations in its order)
    /// and summed in the members' order; else the grain takes `Self::on_listed`. Every bit
    /// is that of [`Self::on`]. The inner hints ([`NearWalls::hint`]) of the members of the
    /// near lists' slots are as `flags` gives them.
    pub fn listed<I: Iterator<Item = Option<&'a InnerHint>> + Clone>(
        &self,
        p: &Particles,
        reach: &[u32],
        out: &mut [(u32, DVec3, DVec3)],
        history: &mut [ContactState],
        first: usize,
        flags: impl Fn(std::ops::Range<usize>) -> I,
    ) -> ContactStats {
        let mut stats = ContactStats::default();
        let mut batch = Batch::default();
        for (e, &k) in reach.iter().enumerate() {
            self.ask_ahead(p, reach, e, history, first);
            let k = k as usize;
            if self.held(k) {
                // As Self::on: no wall acts on a grain a wall holds (its wall contacts were
                // forgotten when it was taken).
                out[e] = (k as u32, DVec3::ZERO, DVec3::ZERO);
                continue;
            }
            let (slots, keys) = self.near.row(k);
            let inner = flags(slots.clone());
            let slots = slots.start - first..slots.end - first;
            if self.lanes.is_some() && keys.len() <= LANES {
                if batch.contacts + keys.len() > LANES || batch.grains == LANES {
                    self.flush(&mut batch, out, history, &mut stats);
                }
                let row = (keys, inner.clone());
                if let Some(here) = self.queue(&mut batch, p, k, row, history, slots.clone()) {
                    batch.grain[batch.grains] = (e, k, batch.contacts, here);
                    batch.grains += 1;
                    continue;
                }
            }
            // A model the lanes leave to the scalar law, more members near the grain than a
            // batch holds, a grain that cannot move or a contact forming: the grain takes
            // the scalar law, after the grains before it.
            self.flush(&mut batch, out, history, &mut stats);
            let (f, t, s) = self.on_listed(p, k, (keys, inner), &mut history[slots]);
            out[e] = (k as u32, f, t);
            stats = ContactStats::merge(stats, s);
        }
        self.flush(&mut batch, out, history, &mut stats);
        stats
    }

    /// Where member `m` of wall `w` touches a grain at `pos` of radius `r`: in the wall's
    /// placement ([`WallRuntime::placed`]), the normal turned back to the world unless the
    /// placement needed no transform. `inner` is the hint the near lists keep when the grain
    /// stays among the inner cells of a mesh member ([`NearWalls::hint`]): the same contact,
    /// found without a search.
    #[inline(always)]
    fn contact(
        &self,
        w: usize,
        m: usize,
        pos: DVec3,
        r: f64,
        inner: Option<&InnerHint>,
    ) -> Option<Touch> {
        let wall = &self.walls[w];
        let (local, direct) = self.rt.placed(w, pos);
        let mut c = touch(wall, &wall.shape.members()[m], local, r, inner)?;
        if !direct {
            c.normal = self.rt.pose[w].rotation * c.normal;
        }
        Some(c)
    }

    /// [`Self::on`] for listed particle `k` of `p`, near the members `keys` (each with its
    /// [`NearWalls::inner`] flag) with contact histories `history` (one each,
    /// [`WallHistory`]): every wall is [`listable`], so the listed members, in order, are
    /// the only ones it may touch.
    #[inline(always)]
    fn on_listed(
        &self,
        p: &Particles,
        k: usize,
        (keys, inner): (&[WallMember], impl Iterator<Item = Option<&'a InnerHint>>),
        history: &mut [ContactState],
    ) -> (DVec3, DVec3, ContactStats) {
        let body = grain(p, k);
        let (pos, r, material) = (p.pos[k], p.radius[k], p.material[k] as usize);
        let (mut f, mut t, mut stats) = (DVec3::ZERO, DVec3::ZERO, ContactStats::default());
        for ((&id, inner), state) in keys.iter().zip(inner).zip(history) {
            let (w, m) = (id.wall(), id.member());
            let wall = &self.walls[w];
            let Some(c) = self.contact(w, m, pos, r, inner) else {
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
        if let Some(a) = self.near.ask_ahead(k) {
            prefetch(history.as_ptr().wrapping_add(a.wrapping_sub(first)));
        }
    }

    /// Puts the contacts of particle `k` of `p` with its near members `keys` (each with its
    /// [`NearWalls::inner`] flag; histories `history[slots]`) into `batch`, doing to the
    /// histories what [`Self::on_listed`] does before the law: the grain's statistics when it
    /// can move and every contact is established, so that the lanes take them all. Else its
    /// contacts are taken out of the batch again and `None` returned: its histories are then
    /// as [`Self::on_listed`] would find them, or leave them before the law, so that the
    /// grain may take it.
    #[inline(always)]
    fn queue(
        &self,
        batch: &mut Batch,
        p: &Particles,
        k: usize,
        (keys, inner): (&[WallMember], impl Iterator<Item = Option<&'a InnerHint>>),
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
        for ((&id, inner), s) in keys.iter().zip(inner).zip(slots) {
            let (w, m) = (id.wall(), id.member());
            let wall = &self.walls[w];
            let Some(c) = self.contact(w, m, pos, r, inner) else {
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
pub(super) fn grain(p: &Particles, k: usize) -> Body {
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
/// commonest wall, is inline; a mesh part the grain stays `inner` to ([`NearWalls::hint`])
/// takes [`Shape::contact_inner`].
#[inline(always)]
fn touch(
    wall: &Wall,
    shape: &Shape,
    local: DVec3,
    r: f64,
    inner: Option<&InnerHint>,
) -> Option<Touch> {
    let contact = match (shape, inner) {
        (Shape::Plane(plane), _) => plane.contact(local, r),
        (other, Some(hint)) => other.contact_inner(local, r, hint),
        (other, None) => other.contact(local, r),
    };
    contact.filter(|_| wall.surface == Surface::Normal)
}

/// Member `id`'s `contact` with a grain of wall contact `history`
/// ([`WallForces::contact`]): where they touch, and the slot of their history, made when the
/// contact forms; `None` when they do not touch or the wall is not normal, with any history
/// of the member dropped.
#[inline(always)]
pub(super) fn meet(
    contact: Option<Touch>,
    id: WallMember,
    history: &mut Vec<(WallMember, ContactState)>,
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
pub(super) fn bodies(body: &Body, pose: &Pose, pos: DVec3) -> (Body, Body) {
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
pub(super) fn touching(k: usize, c: Touch, r: f64) -> ContactStats {
    ContactStats {
        contacts: 1,
        wall_contacts: 1,
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
