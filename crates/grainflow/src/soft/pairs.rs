//! The pair loop: every listed particle pair, row by row, with the contact law (002 §3).
//!
//! Rows are taken one task per fixed block ([`crate::neighbor::BLOCK`]). A block's touching pairs are found
//! first (the overlap test), then evaluated [`LANES`] at a time by the contact law's lanes
//! ([`crate::contact::lanes`]) and summed in slot order into both particles when both lie in
//! the block; a pair reaching into a later block leaves its reaction in a buffer of crossing
//! pairs that the gather adds after the block's sum. The order of every sum is fixed by the
//! list alone, so results are bit-identical for any thread count.
//!
//! The lanes' inputs come from the grains and the contact history as runs of four numbers,
//! transposed into lanes ([`F::from_quads`]); the results go back the same way. Moving numbers
//! changes no operation of the law or of any sum, nor their order.

use glam::DVec3;

use super::{body, ContactStats};
use crate::boundary::MinimumImage;
use crate::contact::lanes::{Contacts, Lanes, Touches, V3};
use crate::contact::normal::{shared_stiffness, stiffness, Normal, Stiffness};
use crate::contact::{ContactState, Extra, Formed, Slip, Touch};
use crate::material::{effective_mass, effective_radius};
use crate::neighbor::NOT_CROSSING;
use crate::particles::Particles;
use crate::physics::Physics;
use crate::simd::{prefetch, Quad, F, LANES};
use batch::{Batch, Block, Found, History, Sums, Work, BATCH, BATCH_OF_THREAD, GROUPS, ROOM};
pub(super) use packing::{pack, pack_chunk, shift_chunk, Facts, Shifts};
pub use packing::{Packed, Run};
use runs::{add, quads, run, subtract, vec, Fold, Runs, FORCE, SLIP, TORQUE_I, TORQUE_J};

mod batch;
mod packing;
mod runs;

#[cfg(all(
    target_arch = "x86_64",
    any(
        target_feature = "avx2",
        all(target_feature = "avx512f", target_feature = "avx512vl")
    )
))]
mod registers;

/// What the pair loop reads (`particles` but their forces and torques, `packed`) and writes
/// of the world, borrowed apart from what the wall pass uses, so that the two run side by side.
pub(super) struct PairParts<'a> {
    pub particles: &'a Particles,
    /// The particles' forces (N), where the blocks' sums go.
    pub force: &'a mut [DVec3],
    /// The particles' torques (N·m), likewise.
    pub torque: &'a mut [DVec3],
    pub packed: &'a Packed,
    pub neighbors: &'a mut crate::neighbor::NeighborList,
    /// Each slot's reaction, when stress analysis keeps them; else empty.
    pub reaction: &'a mut [(DVec3, DVec3)],
    /// The reactions of pairs crossing into a later block, for the gather.
    pub cross: &'a mut [(DVec3, DVec3)],
}

/// Grains from which the pair loop asks for the partners' state ahead of its use: about a
/// kilobyte of state each, they then fill many times a last-level cache of tens of MiB, and a
/// partner the list names ahead of the rows is read from memory.
pub(super) const FAR: usize = 1 << 17;

/// The owners, partners and partners' grains of a run of slots.
type Slots<'a> = (&'a [u32], &'a [u32], &'a [u32]);

/// The constants of the material pairs the lanes read: the same for every pair when one
/// material serves every grain, else looked up pair by pair.
#[derive(Clone, Copy)]
enum PairConstants {
    /// μ_s, μ_r, μ_t and the cohesion value of the one material with itself.
    Uniform([f64; 4]),
    ByMaterial,
}

/// What every block of the pair loop reads. A partner's shift is read at its index (a grain or
/// a ghost), everything else at its grain's; a slot's shifts only where its bit in `shifted`
/// is set ([`Packed::shifted_slots`]), and none where the separations are folded (`fold`).
struct Rows<'a> {
    start: &'a [usize],
    owner: &'a [u32],
    partner: &'a [u32],
    partner_grain: &'a [u32],
    cross_slot: &'a [u32],
    /// Centres and radii of the grains, and shifts of the grains and ghosts ([`Packed`]).
    pos: &'a [Run],
    shift: &'a [Run],
    /// A bit per slot: whether its pair may have a shift.
    shifted: &'a [u8],
    /// The minimum image, when every listed pair is nearer than half a period
    /// ([`Packed::nearest`]): the vector tests then fold the plain differences, the same
    /// bits as the shifts, and read neither the partners nor the shifts.
    fold: Option<Fold>,
    /// The grains' state, as many as there are grains.
    vel: &'a [DVec3],
    omega: &'a [DVec3],
    radius: &'a [f64],
    material: &'a [u16],
    inv_mass: &'a [f64],
    inv_inertia: &'a [f64],
    physics: &'a Physics,
    lanes: Option<Lanes>,
    /// Whether the lanes read μ_r, μ_t and the cohesion value ([`Lanes::per_pair`]).
    per_pair: bool,
    constants: PairConstants,
    /// Whether some grain is immovable: a pair of two takes the scalar law.
    fixed: bool,
    /// Whether the grains are too many for the caches ([`FAR`]): the overlap test then asks
    /// for the partners' state ahead of its use.
    far: bool,
    /// k_n, k_t, g_n and g_t of every contact, when the model gives them for any pair
    /// ([`shared_stiffness`]): the lanes then read them from no history.
    stiffness: Option<[f64; 4]>,
    dt: f64,
}

/// Every listed particle pair with the contact law: forces and torques into the particles'
/// (their owner's and, within a block, their partner's), the reaction on a partner in a later
/// block into `cross`, and per slot into `reaction` when it is kept (for stress analysis);
/// history updated in place; pairs that separated lose their history and reaction.
#[inline(never)]
pub(super) fn pair_forces(parts: PairParts<'_>, physics: &Physics, dt: f64) -> ContactStats {
    let PairParts {
        particles,
        force,
        torque,
        packed,
        neighbors,
        reaction,
        cross,
    } = parts;
    let Particles {
        vel,
        omega,
        radius,
        material,
        inv_mass,
        inv_inertia,
        ..
    } = particles;
    let (n, n_total) = (particles.len(), packed.shift.len());
    let crate::neighbor::NeighborList {
        start,
        owner,
        partner,
        partner_grain,
        slip,
        formed,
        extra,
        links,
        ..
    } = neighbors;
    let (cross_slot, block_cross) = (&links.cross_slot, &links.block_cross);
    let block_first = &links.block_first;
    assert!(
        packed.shifted_slots.len() >= partner.len().div_ceil(8) + 2,
        "a bit for every slot"
    );
    // All the rows, to be split at block boundaries into one task per block (Rows::blocks).
    let all = Block {
        first: 0,
        first_slot: 0,
        first_cross: 0,
        reaction,
        cross,
        slip: &mut slip[..],
        formed: &mut formed[..],
        extra: &mut extra[..],
        force: &mut force[..n],
        torque: &mut torque[..n],
    };
    let constants = match packed.material {
        Some(m) => {
            let p = physics.table.get(m as usize, m as usize);
            PairConstants::Uniform([p.mu_s, p.mu_r, p.mu_t, p.cohesion])
        }
        None => PairConstants::ByMaterial,
    };
    // Slices of one length n, so that an index checked against n needs no further checks.
    let rows = Rows {
        start,
        owner,
        partner,
        partner_grain,
        cross_slot,
        pos: &packed.pos[..n],
        shift: &packed.shift[..n_total],
        shifted: &packed.shifted_slots,
        fold: (packed.nearest).then(|| Fold::new(&MinimumImage::new(physics.periodic.lengths()))),
        vel: &vel[..n],
        omega: &omega[..n],
        radius: &radius[..n],
        material: &material[..n],
        inv_mass: &inv_mass[..n],
        inv_inertia: &inv_inertia[..n],
        physics,
        lanes: Lanes::covers(&physics.model, dt),
        per_pair: Lanes::covers(&physics.model, dt).is_some_and(Lanes::per_pair),
        constants,
        fixed: packed.fixed,
        far: n >= FAR,
        stiffness: shared_stiffness(&physics.model.normal, physics.table.step_corrected())
            .or_else(|| alike_stiffness(physics, packed, particles))
            .map(|s| [s.kn, s.kt, s.gn, s.gt]),
        dt,
    };
    let blocks = 0..block_first.len().saturating_sub(1);
    rows.blocks(all, blocks, (block_first, block_cross))
}

impl Rows<'_> {
    /// The pair loop over the blocks `blocks` of `span`, halved until one block is left, the
    /// halves in parallel ([`rayon::join`]: no allocation). Each block's sums are its own, so
    /// the split changes no bit; `block_first` and `block_cross` give each block's first row
    /// and first crossing pair.
    fn blocks(
        &self,
        span: Block,
        blocks: std::ops::Range<usize>,
        (block_first, block_cross): (&[usize], &[usize]),
    ) -> ContactStats {
        if blocks.len() <= 1 {
            return BATCH_OF_THREAD.with_borrow_mut(|batch| {
                let batch = batch.get_or_insert_with(|| Box::new(Batch::empty()));
                self.block(span, batch)
            });
        }
        let mid = blocks.start + blocks.len().div_ceil(2);
        let row = block_first[mid];
        let (front, rest) = span.split_at(row, self.start[row], block_cross[mid]);
        let firsts = (block_first, block_cross);
        let (a, b) = rayon::join(
            || self.blocks(front, blocks.start..mid, firsts),
            || self.blocks(rest, mid..blocks.end, firsts),
        );
        ContactStats::merge(a, b)
    }

    /// The pair loop over one block's rows: the overlap test of a run of its slots, then the
    /// touching pairs evaluated and the separated ones stripped of their history and
    /// reaction, until every slot is done; the grains' sums are then the block's forces and
    /// torques.
    #[inline(always)]
    fn block(&self, mut block: Block, batch: &mut Batch) -> ContactStats {
        let mut stats = ContactStats::default();
        let rows = block.force.len();
        if !std::mem::replace(&mut batch.zeroed, false) {
            batch.sums.fill(Sums::default());
        }
        let slots = self.start[block.first + rows] - block.first_slot;
        let mut k = 0;
        while k < slots {
            k = self.overlaps(&block, k..slots, &mut batch.found);
            for &a in &batch.found.apart[..batch.found.separated] {
                let s = block.first_slot + a as usize;
                let a = a as usize;
                (block.slip[a], block.formed[a], block.extra[a]) = Default::default();
                self.put_reaction(&mut block, s, (DVec3::ZERO, DVec3::ZERO));
            }
            self.sum(batch, &mut block, &mut stats);
        }
        // Each sum is zeroed as it is written out, while its line is in cache: the next block
        // finds its rows zero, with no pass of its own over them.
        let sums = &mut batch.sums[..rows];
        for ((f, t), s) in block
            .force
            .iter_mut()
            .zip(block.torque.iter_mut())
            .zip(sums)
        {
            *f = DVec3::new(s.force.0[0], s.force.0[1], s.force.0[2]);
            *t = DVec3::new(s.torque.0[0], s.torque.0[1], s.torque.0[2]);
            *s = Sums::default();
        }
        batch.zeroed = true;
        stats
    }

    /// The overlap test of the block's slots `run` (numbered from the block's first), up to
    /// [`BATCH`] of them: the touching pairs and the pairs that separated since the last
    /// evaluation into the batch; returns the first slot not tested. Only a run of slots with
    /// a bit in [`Rows::shifted`] reads the partners and the shifts: for the others the
    /// separation is the plain difference of the centres, the bits of (x_k − x_i) − (0 − 0).
    /// Every pair is written
    /// to the batch, which counts only the touching ones: no branch on the test, which the
    /// processor could not predict. Out of line, so that no call in its loop costs it the
    /// registers holding the fold's constants.
    #[inline(never)]
    fn overlaps(&self, block: &Block, run: std::ops::Range<usize>, found: &mut Found) -> usize {
        // At most BATCH slots, so that neither list can overflow.
        let run = run.start..run.end.min(run.start + BATCH);
        let base = block.first_slot;
        let slots = base + run.start..base + run.end;
        let slots_start = slots.start;
        let (owner, partner) = (&self.owner[slots.clone()], &self.partner[slots.clone()]);
        let grain = &self.partner_grain[slots];
        let history = History {
            slip: &block.slip[run.clone()],
            formed: &block.formed[run.clone()],
            extra: &block.extra[run.clone()],
            constants: self.stiffness.is_none(),
        };
        // Listed pairs always name grains of the store; checked here once, so that the loop
        // needs no checks. A partner (a grain or a ghost) is read, and checked, only where
        // the shifts are, and the shifts' bits of every slot are there (pair_forces).
        let largest = owner.iter().chain(grain).fold(0, |m, &k| m.max(k));
        assert!(
            (largest as usize) < self.pos.len(),
            "a listed pair names a grain of the store"
        );
        let slots = (owner, partner, grain);
        let shifted = Shifts {
            bits: self.shifted,
            at: slots_start,
        };
        let (len, separated) = if self.lanes.is_none() {
            self.test::<true>(slots, history, (run.start, shifted), found)
        } else {
            // In vector registers where the build has them (registers.rs).
            #[cfg(all(
                target_arch = "x86_64",
                any(
                    target_feature = "avx2",
                    all(target_feature = "avx512f", target_feature = "avx512vl")
                )
            ))]
            {
                let first = (run.start, shifted);
                match (self.fold.is_some(), self.far) {
                    (true, false) => {
                        self.test_established::<true, false>(slots, history, first, found)
                    }
                    (false, false) => {
                        self.test_established::<false, false>(slots, history, first, found)
                    }
                    (true, true) => {
                        self.test_established::<true, true>(slots, history, first, found)
                    }
                    (false, true) => {
                        self.test_established::<false, true>(slots, history, first, found)
                    }
                }
            }
            #[cfg(not(all(
                target_arch = "x86_64",
                any(
                    target_feature = "avx2",
                    all(target_feature = "avx512f", target_feature = "avx512vl")
                )
            )))]
            {
                if self.fixed {
                    self.test::<true>(slots, history, (run.start, shifted), found)
                } else {
                    self.test::<false>(slots, history, (run.start, shifted), found)
                }
            }
        };
        found.len = len;
        found.separated = separated;
        run.end
    }

    /// The loop of [`Rows::overlaps`] over the slots `first..` of the block with owners,
    /// partners, partners' grains and histories `slots`, `history`: the touching and separated
    /// pairs' counts, each touching pair with its partner's grain; the shifts read where
    /// `shifted` has a bit, as in [`Rows::overlaps`]. `GENERAL` when a pair may
    /// take the scalar law for another reason than forming (a model the lanes do not cover,
    /// or two immovable grains).
    #[inline(always)]
    fn test<const GENERAL: bool>(
        &self,
        (owner, partner, grain): Slots,
        history: History,
        (first, shifted): (usize, Shifts),
        found: &mut Found,
    ) -> (usize, usize) {
        let (mut len, mut separated) = (0, 0);
        let slip = history.slip;
        let n = slip
            .len()
            .min(owner.len())
            .min(partner.len())
            .min(grain.len());
        for k in 0..n {
            let before = slip[k].touching();
            history.ask_ahead(k);
            let (i, j) = (owner[k] as usize, grain[k] as usize);
            prefetch(self.vel.as_ptr().wrapping_add(j));
            prefetch(self.omega.as_ptr().wrapping_add(j));
            // SAFETY: `overlaps` checked every owner and grain against the store.
            let at = |v: &[Run], k: usize| unsafe { Quad::new(v.get_unchecked(k).0) };
            let (p_i, p_j) = (at(self.pos, i), at(self.pos, j));
            let d = match shifted.one(k) {
                false => p_j - p_i,
                true => {
                    let shift = |k: usize| Quad::new(self.shift[k].0);
                    (p_j - p_i) - (shift(i) - shift(partner[k] as usize))
                }
            };
            let (p_i, p_j) = (p_i.to_array(), p_j.to_array());
            let (d2, reach) = (d.length_squared3(), p_i[3] + p_j[3]);
            let touching = !(d2 >= reach * reach || d2 == 0.0);
            let scalar = !before
                || GENERAL
                    && (self.lanes.is_none()
                        || self.fixed && self.inv_mass[i] == 0.0 && self.inv_mass[j] == 0.0);
            let a = (first + k) as u32;
            // SAFETY: len ≤ k and separated ≤ k, below BATCH, the lists' length.
            unsafe {
                *found.slot.get_unchecked_mut(len) = a;
                *found.i.get_unchecked_mut(len) = i as u32;
                *found.j.get_unchecked_mut(len) = j as u32;
                let [x, y, z, _] = d.to_array();
                *found.dx.get_unchecked_mut(len) = x;
                *found.dy.get_unchecked_mut(len) = y;
                *found.dz.get_unchecked_mut(len) = z;
                *found.d2.get_unchecked_mut(len) = d2;
                *found.r_i.get_unchecked_mut(len) = p_i[3];
                *found.r_j.get_unchecked_mut(len) = p_j[3];
                *found.scalar.get_unchecked_mut(len) = u8::from(scalar);
                *found.apart.get_unchecked_mut(separated) = a;
            }
            history.ask_forming(k, u32::from(touching & !before));
            len += usize::from(touching);
            separated += usize::from(!touching & before);
        }
        (len, separated)
    }

    /// Evaluates the batch and sums each pair, in order, into its two particles and the
    /// contact statistics. Kept out of the overlap test's loop, whose registers it would
    /// otherwise crowd.
    #[inline(never)]
    fn sum(&self, batch: &mut Batch, block: &mut Block, stats: &mut ContactStats) {
        let (a, base) = (block.first, block.first_slot);
        let keep = !block.reaction.is_empty();
        let Batch {
            found, work, sums, ..
        } = batch;
        stats.contacts += found.len;
        found.pad();
        let groups = found.len.div_ceil(LANES);
        // In three passes over the groups, so that the processor overlaps one group's law
        // with the next one's: the inputs, the law, the sums.
        let scalar = self.gather_inputs(found, groups, block, work);
        self.evaluate(groups, work);
        let Work {
            inputs,
            touches,
            reactions,
        } = work;
        let mut out = Runs::default();
        for g in 0..groups {
            let count = LANES.min(found.len - g * LANES);
            let (c, touches) = (&inputs[g], &touches[g]);
            out.put(&reactions[g]);
            let scalar = scalar[g];
            note_overlaps(stats, c, touches, &found.i[g * LANES..][..count]);
            // Each pair into its owner's sums and, in the block, its partner's, in slot order:
            // every grain gets its terms in the order of the slots naming it. Compiled twice,
            // so that a group with no lane for the scalar law (most) runs without its branch.
            let mut put = |mixed: bool| {
                // Over 0..LANES with a break, not 0..count: the lane stays in sight below
                // LANES, so reading the lanes' rows needs no check.
                for l in 0..LANES {
                    if l == count {
                        break;
                    }
                    let k = g * LANES + l;
                    // SAFETY: k < found.len ≤ BATCH, the lists' length.
                    let (a_s, i, j) = unsafe {
                        (
                            *found.slot.get_unchecked(k) as usize,
                            *found.i.get_unchecked(k) as usize - a,
                            *found.j.get_unchecked(k) as usize,
                        )
                    };
                    // SAFETY: the overlap test put only the block's slots and rows into the
                    // batch: a_s < its slots, i < its rows ≤ BLOCK.
                    let (slip, sum_i) =
                        unsafe { (block.slip.get_unchecked_mut(a_s), sums.get_unchecked_mut(i)) };
                    let (f, t_i, t_j) = if mixed && scalar >> l & 1 == 1 {
                        let n = &touches.normal;
                        let touch = Touch {
                            normal: DVec3::new(n.x.lane(l), n.y.lane(l), n.z.lane(l)),
                            overlap: touches.overlap.lane(l),
                        };
                        // SAFETY: as the slip above: a_s < the block's slots.
                        let rest = unsafe {
                            (
                                block.formed.get_unchecked_mut(a_s),
                                block.extra.get_unchecked_mut(a_s),
                            )
                        };
                        let (f, t_i, t_j) = self.scalar_pair(touch, i + a, j, slip, rest);
                        (run(f), run(t_i), run(t_j))
                    } else {
                        // SAFETY: a Slip is four aligned numbers: the new slip and 1, touching.
                        unsafe { out.lane(SLIP, l).store((slip as *mut Slip).cast::<f64>()) };
                        (
                            out.lane(FORCE, l),
                            out.lane(TORQUE_I, l),
                            out.lane(TORQUE_J, l),
                        )
                    };
                    add(&mut sum_i.force, f);
                    add(&mut sum_i.torque, t_i);
                    let inside = j - a < block.force.len();
                    if inside {
                        // SAFETY: j − a < the block's rows ≤ BLOCK.
                        let sum_j = unsafe { sums.get_unchecked_mut(j - a) };
                        subtract(&mut sum_j.force, f);
                        add(&mut sum_j.torque, t_j);
                    }
                    if !inside || keep {
                        self.put_reaction(block, base + a_s, (-vec(f), vec(t_j)));
                    }
                }
            };
            if scalar == 0 {
                put(false);
            } else {
                put(true);
            }
        }
        found.len = 0;
    }

    /// The contact law's inputs of the batch's `groups` groups; returns, per group, the lanes
    /// that take the scalar law ([`Rows::group`]).
    #[inline(never)]
    fn gather_inputs(
        &self,
        found: &Found,
        groups: usize,
        block: &Block,
        work: &mut Work,
    ) -> [u32; GROUPS] {
        let mut scalar = [0u32; GROUPS];
        for (g, c) in work.inputs[..groups].iter_mut().enumerate() {
            scalar[g] = self.group(found, g, block, c);
        }
        scalar
    }

    /// Where the batch's `groups` groups touch, and what the contact law makes of them.
    #[inline(never)]
    fn evaluate(&self, groups: usize, work: &mut Work) {
        let Work {
            inputs,
            touches,
            reactions,
        } = work;
        for (c, t) in inputs[..groups].iter().zip(touches.iter_mut()) {
            *t = c.touches();
        }
        if let Some(lanes) = &self.lanes {
            let evaluated = inputs[..groups]
                .iter()
                .zip(&*touches)
                .zip(reactions.iter_mut());
            for ((c, t), r) in evaluated {
                *r = lanes.force(c, t, self.dt);
            }
        }
    }

    /// Fills `c` with the contact law's inputs for the pairs of the batch's group `g` (padded:
    /// [`Batch::pad`]), the grains' state and the contacts' history transposed from their runs
    /// of four numbers. Returns the lanes that take the scalar law as bits: contacts forming
    /// this step, pairs of two immovable bodies, every lane of a model the lanes do not cover.
    #[inline(always)]
    fn group(&self, batch: &Found, g: usize, block: &Block, c: &mut Contacts) -> u32 {
        let lanes = g * LANES..(g + 1) * LANES;
        // The lanes' particles and slots, each index read where it is used.
        let at = |v: &[u32; ROOM], l: usize| v[g * LANES + l] as usize;
        let (i, j, slot) = (
            |l| at(&batch.i, l),
            |l| at(&batch.j, l),
            |l| at(&batch.slot, l),
        );
        // SAFETY: the overlap test put only particles of the store (i, j < n; every slice here
        // has n) and slots of the block into the batch, and padding repeats them.
        let vec = |a: &[DVec3], k: usize| Quad::vector(unsafe { a.get_unchecked(k) });
        let slip = |l: usize| unsafe { block.slip.get_unchecked(slot(l)) };
        let formed = |l: usize| unsafe { block.formed.get_unchecked(slot(l)) };
        let lane_set =
            |v: &[f64; ROOM]| F::new(v[lanes.clone()].try_into().expect("a group's lanes"));
        c.d = V3 {
            x: lane_set(&batch.dx),
            y: lane_set(&batch.dy),
            z: lane_set(&batch.dz),
        };
        c.d2 = lane_set(&batch.d2);
        (c.r_i, c.r_j) = (lane_set(&batch.r_i), lane_set(&batch.r_j));
        let [x, y, z, _] = quads(|l| vec(self.vel, i(l)) - vec(self.vel, j(l)));
        c.dv = V3 { x, y, z };
        let [x, y, z, _] = quads(|l| vec(self.omega, i(l)));
        c.w_i = V3 { x, y, z };
        let [x, y, z, _] = quads(|l| vec(self.omega, j(l)));
        c.w_j = V3 { x, y, z };
        // SAFETY: a Slip is four aligned numbers, the slip and the touching flag.
        let [x, y, z, _] = quads(|l| unsafe { Quad::load((slip(l) as *const Slip).cast()) });
        c.slip = V3 { x, y, z };
        // SAFETY: Formed is an aligned repr(C) Stiffness: k_n, k_t, g_n, g_t.
        let constants = |f: &Formed| unsafe { Quad::load((f as *const Formed).cast()) };
        [c.kn, c.kt, c.gn, c.gt] = match self.stiffness {
            Some(shared) => shared.map(F::splat),
            None => quads(|l| constants(formed(l))),
        };
        let pair = match self.constants {
            PairConstants::Uniform(p) => p.map(F::splat),
            PairConstants::ByMaterial => quads(|l| {
                let m = |k: usize| self.material[k] as usize;
                let p = self.physics.table.get(m(i(l)), m(j(l)));
                Quad::new([p.mu_s, p.mu_r, p.mu_t, p.cohesion])
            }),
        };
        c.mu = pair[0];
        if self.per_pair {
            [c.mu_r, c.mu_t, c.cohesion] = [pair[1], pair[2], pair[3]];
            let ii = |k: usize| self.inv_inertia[k];
            let (ii_i, ii_j) = (|l| ii(i(l)), |l| ii(j(l)));
            (c.ii_i, c.ii_j) = (
                F::new(std::array::from_fn(ii_i)),
                F::new(std::array::from_fn(ii_j)),
            );
        }
        let flags: &[u8; LANES] = batch.scalar[lanes].try_into().expect("a group's lanes");
        flags
            .iter()
            .enumerate()
            .fold(0, |bits, (l, &f)| bits | u32::from(f) << l)
    }

    /// Force on i and torques on i and j of the pair (i, j) with history `slip` and `rest`
    /// (constants and extras)
    /// touching at `touch`, by the scalar
    /// law: for contacts forming this step, between two immovable bodies, or of a model the
    /// lanes do not cover. Kept out of line: most steps never call it, and inlined it would
    /// crowd the registers of the sum.
    #[inline(never)]
    fn scalar_pair(
        &self,
        touch: Touch,
        i: usize,
        j: usize,
        slip: &mut Slip,
        rest: (&mut Formed, &mut Option<Box<Extra>>),
    ) -> (DVec3, DVec3, DVec3) {
        let m = self.material;
        let params = self.physics.table.get(m[i] as usize, m[j] as usize);
        let body = |k: usize| {
            body(
                self.vel,
                self.omega,
                self.radius,
                self.inv_mass,
                self.inv_inertia,
                k,
            )
        };
        let (formed, extra) = rest;
        let mut state = ContactState::joined(slip, formed, extra.take());
        let c = self
            .physics
            .model
            .force(params, touch, &body(i), &body(j), &mut state, self.dt);
        (*slip, *formed, *extra) = state.split();
        (c.force_i, c.torque_i, c.torque_j)
    }

    /// Stores the reaction on the partner of slot `s` among the crossing pairs when the partner
    /// lies in a later block, and per slot when the reactions are kept.
    #[inline(always)]
    fn put_reaction(&self, block: &mut Block, s: usize, r: (DVec3, DVec3)) {
        if let Some(kept) = block.reaction.get_mut(s - block.first_slot) {
            *kept = r;
        }
        let c = self.cross_slot[s];
        if c != NOT_CROSSING {
            block.cross[c as usize - block.first_cross] = r;
        }
    }
}

/// Whether the pair loop reads the alike grains' constants ([`alike_stiffness`]): when the
/// model gives no constants shared by every pair ([`shared_stiffness`]). Only then does the
/// drift look whether the grains are alike.
pub(super) fn reads_alike(physics: &Physics) -> bool {
    shared_stiffness(&physics.model.normal, physics.table.step_corrected()).is_none()
}

/// The constants every contact between two grains was formed with, when the grains are all
/// alike (one material, radius and inverse mass, not 0: [`Packed::alike`]) and the model's
/// constants depend on nothing else of the pair (Hooke, Hertz without the step's correction,
/// the linear spring–dashpot; not Flores or a corrected Hertz, which read the speed of
/// approach): the scalar law's constants at formation ([`crate::contact::ContactModel::force`],
/// with the effective radius and mass of 002 eq A2), the same bits. The lanes then read them
/// from no history, which saves a stream of four numbers per listed pair.
fn alike_stiffness(physics: &Physics, packed: &Packed, grains: &Particles) -> Option<Stiffness> {
    let m = packed.material.filter(|_| packed.alike)? as usize;
    let (r, w) = (*grains.radius.first()?, *grains.inv_mass.first()?);
    let model = &physics.model;
    let p = physics.table.get(m, m);
    let approach = match model.normal {
        Normal::Flores => true,
        Normal::Hertz => p.step.dt > 0.0,
        _ => false,
    };
    if approach || w == 0.0 {
        return None;
    }
    let (r_eff, m_eff) = (effective_radius(r, Some(r)), effective_mass(w, w));
    let v_c = model.characteristic_velocity;
    Some(stiffness(&model.normal, p, r_eff, m_eff, v_c, v_c, false))
}

/// The largest overlap for its radius in `stats`, of a group's pairs of radii in `c` touching
/// at `touches`, whose owners are `owners`: lane by lane in order where some lane exceeds the
/// largest so far.
#[inline(always)]
fn note_overlaps(stats: &mut ContactStats, c: &Contacts, touches: &Touches, owners: &[u32]) {
    let r_min = c.r_i.min(c.r_j);
    if touches
        .overlap
        .gt(F::splat(stats.max_overlap_ratio) * r_min)
        .any()
    {
        for (l, &owner) in owners.iter().enumerate() {
            let (overlap, r_min) = (touches.overlap.lane(l), r_min.lane(l));
            if overlap > stats.max_overlap_ratio * r_min {
                stats.max_overlap_ratio = overlap / r_min;
                stats.worst = owner as usize;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alike_grains_give_every_contact_the_constants_it_was_formed_with() {
        // S1's bed (one material, radius 0.5 mm and mass, Hertz without the step's
        // correction): after some steps every touching pair's constants, formed by the scalar
        // law pair by pair, must be the alike grains' to the bit; and one grain of another
        // radius must leave the grains unlike.
        let toml = include_str!("../../../../scenes/bench/s1.toml");
        let mut sim = crate::soft::tests::bench_scene(toml, "s1");
        for _ in 0..20 {
            sim.step().expect("stable");
        }
        let (w, physics, s) = crate::soft::tests::parts(&mut sim);
        let alike = alike_stiffness(physics, &s.packed, &w.particles).expect("S1's are alike");
        assert_eq!(w.particles.radius[0], 5e-4);
        let nl = &w.neighbors;
        let touching: Vec<usize> = (0..nl.len()).filter(|&k| nl.slip[k].touching()).collect();
        assert!(touching.len() > 40_000, "{} touching", touching.len());
        let bits = |s: Stiffness| [s.kn, s.kt, s.gn, s.gt].map(f64::to_bits);
        for k in touching {
            assert_eq!(bits(nl.formed[k].0), bits(alike), "slot {k}");
        }
        w.particles.radius[7] *= 1.01;
        s.packed.fresh = false;
        let period = physics.periodic.lengths();
        pack(&mut s.packed, &w.particles, &w.neighbors, period);
        assert!(!s.packed.alike);
        assert_eq!(alike_stiffness(physics, &s.packed, &w.particles), None);
    }
}
