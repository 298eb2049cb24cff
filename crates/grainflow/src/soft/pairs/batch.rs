//! A thread's working memory for the pair loop: the pairs the overlap test found, their
//! inputs to the contact law and its reactions, the block's sums, and the block's share of
//! the buffers.

use glam::DVec3;

use super::Run;
use crate::contact::lanes::{Contacts, Reaction, Touches};
use crate::contact::{Extra, Formed, Slip};
use crate::neighbor::BLOCK;
use crate::simd::{prefetch, LANES};

/// Slots ahead of the loop whose contact history is asked for early ([`prefetch`]). The
/// contact history is streamed slot by slot ([`History`]); a hint this far ahead hides part of
/// the wait for it (about 6 % of the S1 step in interleaved runs).
pub(super) const AHEAD: usize = 12;

/// The histories of a run of slots as the overlap test reads them: the slips, with the
/// touching flags, and the rest, which it asks for ahead too when the lanes read the
/// constants (`constants`: none [`crate::contact::normal::shared_stiffness`]).
#[derive(Clone, Copy)]
pub(super) struct History<'a> {
    pub(super) slip: &'a [Slip],
    pub(super) formed: &'a [Formed],
    pub(super) extra: &'a [Option<Box<Extra>>],
    pub(super) constants: bool,
}

impl History<'_> {
    /// Asks for the histories of the slot [`AHEAD`] after slot `k`.
    #[inline(always)]
    pub(super) fn ask_ahead(&self, k: usize) {
        prefetch(self.slip.as_ptr().wrapping_add(k + AHEAD));
        if self.constants {
            prefetch(self.formed.as_ptr().wrapping_add(k + AHEAD));
        }
    }

    /// Asks for the rest of the histories (constants and extras) of the slots `k + a` for the
    /// bits a of `forming`, contacts forming this step, which the scalar law will write.
    #[inline(always)]
    pub(super) fn ask_forming(&self, k: usize, mut forming: u32) {
        while forming != 0 {
            let a = forming.trailing_zeros() as usize;
            prefetch(self.formed.as_ptr().wrapping_add(k + a));
            prefetch(self.extra.as_ptr().wrapping_add(k + a));
            forming &= forming - 1;
        }
    }
}

/// Pairs the overlap test gathers before they are evaluated, [`LANES`] at a time.
pub(super) const BATCH: usize = 32 * LANES;

/// The pairs of one block the overlap test found touching, and those it found separated
/// since the last evaluation (their slots, numbered from the block's first), up to [`BATCH`]
/// each, with [`LANES`] places to spare for a test that writes a lane set at a time. A
/// touching pair comes with what the test worked out, a number per list, so that a group's
/// lanes load as they lie: the minimum image d of the separation, |d|², the two radii, and
/// whether the scalar law takes it.
pub(super) struct Found {
    pub(super) len: usize,
    pub(super) slot: [u32; ROOM],
    pub(super) i: [u32; ROOM],
    pub(super) j: [u32; ROOM],
    /// d (m), |d|² (m²), r_i and r_j (m).
    pub(super) dx: [f64; ROOM],
    pub(super) dy: [f64; ROOM],
    pub(super) dz: [f64; ROOM],
    pub(super) d2: [f64; ROOM],
    pub(super) r_i: [f64; ROOM],
    pub(super) r_j: [f64; ROOM],
    /// 1 for a contact forming this step, a pair of two immovable bodies, or a model the
    /// lanes do not cover.
    pub(super) scalar: [u8; ROOM],
    pub(super) separated: usize,
    pub(super) apart: [u32; ROOM],
}

/// Places in each list of [`Found`].
pub(super) const ROOM: usize = BATCH + LANES;

/// A thread's working memory for the pair loop: the pairs found, their evaluation, and the
/// forces and torques of the block's grains while they are summed.
pub(super) struct Batch {
    pub(super) found: Found,
    pub(super) work: Work,
    /// Each row's sums; all zero between blocks, since each block zeroes the rows it used as
    /// it writes them out ...
    pub(super) sums: [Sums; BLOCK],
    /// ... unless a block was left unfinished (a panic unwound through it): then the next
    /// block zeroes its rows first.
    pub(super) zeroed: bool,
}

/// A grain's force and torque as runs of four numbers, in one cache line: a pair's sum into
/// each of its grains touches one line, not two.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub(super) struct Sums {
    pub(super) force: Run,
    pub(super) torque: Run,
}

thread_local! {
    /// Each thread's [`Batch`], made at a list build ([`make_every_threads`]) or at its first
    /// block: none is made or zeroed per step.
    pub(super) static BATCH_OF_THREAD: std::cell::RefCell<Option<Box<Batch>>> =
        const { std::cell::RefCell::new(None) };
}

/// Makes each thread's [`Batch`] in the current pool now, at a list build, so that no step
/// between builds allocates: a thread would make it at its first block, which a loaded machine
/// may give it only steps after the build.
pub(super) fn make_every_threads() {
    rayon::broadcast(|_| {
        BATCH_OF_THREAD.with_borrow_mut(|batch| {
            batch.get_or_insert_with(|| Box::new(Batch::empty()));
        })
    });
}

/// Each group's inputs to the contact law, where they touch, and what they do.
pub(super) struct Work {
    pub(super) inputs: [Contacts; GROUPS],
    pub(super) touches: [Touches; GROUPS],
    pub(super) reactions: [Reaction; GROUPS],
}

impl Batch {
    /// A batch with no pairs. Each block leaves it empty.
    pub(super) fn empty() -> Batch {
        Batch {
            sums: [Sums::default(); BLOCK],
            zeroed: true,
            found: Found::empty(),
            work: Work {
                inputs: [Contacts::default(); GROUPS],
                touches: [Touches::default(); GROUPS],
                reactions: [Reaction::default(); GROUPS],
            },
        }
    }
}

/// Groups of [`LANES`] pairs in a full batch.
pub(super) const GROUPS: usize = BATCH / LANES;

impl Found {
    /// No pairs.
    pub(super) fn empty() -> Found {
        Found {
            len: 0,
            slot: [0; ROOM],
            i: [0; ROOM],
            j: [0; ROOM],
            dx: [0.0; ROOM],
            dy: [0.0; ROOM],
            dz: [0.0; ROOM],
            d2: [0.0; ROOM],
            r_i: [0.0; ROOM],
            r_j: [0.0; ROOM],
            scalar: [0; ROOM],
            separated: 0,
            apart: [0; ROOM],
        }
    }

    /// Copies the last touching pair into the places after it up to the end of its group of
    /// [`LANES`], so that every lane of every group names a touching pair.
    pub(super) fn pad(&mut self) {
        let Some(last) = self.len.checked_sub(1) else {
            return;
        };
        for k in self.len..self.len.next_multiple_of(LANES) {
            self.slot[k] = self.slot[last];
            self.i[k] = self.i[last];
            self.j[k] = self.j[last];
            self.dx[k] = self.dx[last];
            self.dy[k] = self.dy[last];
            self.dz[k] = self.dz[last];
            self.d2[k] = self.d2[last];
            self.r_i[k] = self.r_i[last];
            self.r_j[k] = self.r_j[last];
            self.scalar[k] = self.scalar[last];
        }
    }
}

/// One block's share of the pair loop: its first row, slot and crossing pair, and the parts
/// of the per-slot and per-particle buffers it owns.
pub(super) struct Block<'a> {
    pub(super) first: usize,
    pub(super) first_slot: usize,
    pub(super) first_cross: usize,
    /// Per slot (empty unless the reactions are kept).
    pub(super) reaction: &'a mut [(DVec3, DVec3)],
    /// The block's pairs crossing into a later block, places `first_cross` on.
    pub(super) cross: &'a mut [(DVec3, DVec3)],
    pub(super) slip: &'a mut [Slip],
    pub(super) formed: &'a mut [Formed],
    pub(super) extra: &'a mut [Option<Box<Extra>>],
    pub(super) force: &'a mut [DVec3],
    pub(super) torque: &'a mut [DVec3],
}

impl<'a> Block<'a> {
    /// The rows before `row` and the rest, each with its part of the buffers; `row` starts a
    /// block, whose first crossing pair is `first_cross`.
    pub(super) fn split_at(
        self,
        row: usize,
        slot: usize,
        first_cross: usize,
    ) -> (Block<'a>, Block<'a>) {
        let (a, b) = (row - self.first, slot - self.first_slot);
        let c = first_cross - self.first_cross;
        let kept = if self.reaction.is_empty() { 0 } else { b };
        let (reaction, reaction_rest) = self.reaction.split_at_mut(kept);
        let (cross, cross_rest) = self.cross.split_at_mut(c);
        let (slip, slip_rest) = self.slip.split_at_mut(b);
        let (formed, formed_rest) = self.formed.split_at_mut(b);
        let (extra, extra_rest) = self.extra.split_at_mut(b);
        let (force, force_rest) = self.force.split_at_mut(a);
        let (torque, torque_rest) = self.torque.split_at_mut(a);
        let rest = Block {
            first: row,
            first_slot: slot,
            first_cross,
            reaction: reaction_rest,
            cross: cross_rest,
            slip: slip_rest,
            formed: formed_rest,
            extra: extra_rest,
            force: force_rest,
            torque: torque_rest,
        };
        let front = Block {
            reaction,
            cross,
            slip,
            formed,
            extra,
            force,
            torque,
            ..self
        };
        (front, rest)
    }
}
