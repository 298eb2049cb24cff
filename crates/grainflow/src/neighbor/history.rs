//! The contact history of the listed pairs carried across rebuilds, in place, and put back
//! from a checkpoint. A pair is known by its two grains and the image of the second beside the
//! first (whole periods, 0 without ghosts), so that a pair across a periodic face keeps its
//! history whatever the ghosts' numbers and however the grains wrapped.

use glam::DVec3;

use rayon::prelude::*;

use super::NeighborList;
use crate::contact::{ContactState, Formed, Slip};
use crate::ghosts::{Ghosts, Image};

/// A pair's partner as a rebuild or a checkpoint knows it: the grain and its image beside
/// the row's grain.
pub(crate) type Key = (u32, Image);

/// The old slots with a history and the keys of their pairs, grain i's first
/// ([`NeighborList::keyed_history`]).
pub(crate) type Kept = Vec<(u32, u32, Key)>;

impl NeighborList {
    /// The slots that hold a history (not the default), with their grain i and their pair's
    /// key as it is now, at positions `pos` and periods `period`; none when the list was
    /// built for another number of grains.
    pub(crate) fn keyed_history(&self, pos: &[DVec3], period: DVec3) -> Kept {
        let (blank_slip, blank) = (Slip::default(), Formed::default());
        if self.start.len() != pos.len() + 1 || self.ref_pos.len() != pos.len() {
            return Vec::new();
        }
        // Room for every slot at once: a block grown as it fills is copied each time.
        let mut kept = Vec::with_capacity(self.slip.len());
        // Where the wraps are found, each grain's once, not pair by pair; none when no grain
        // wrapped since the build (most builds): each image is then the ghost's own.
        let found = self.ghosts.as_ref().filter(|g| !g.counted).map(|g| {
            let wraps: Vec<Image> = (pos.par_iter().zip(&self.ref_pos))
                .map(|(p, r)| Ghosts::found_wrap(*p - *r, period))
                .collect();
            let wrapped = wraps.par_iter().any(|w| *w != [0; 3]);
            (g, wrapped.then_some(wraps))
        });
        for i in 0..pos.len() {
            for o in self.start[i]..self.start[i + 1] {
                let has_history = self.slip[o] != blank_slip
                    || self.formed[o] != blank
                    || self.extra[o].is_some();
                if has_history {
                    let j = self.partner[o] as usize;
                    let (k, image) = match &found {
                        // As NeighborList::image_now: s + w_k − w_i.
                        Some((g, wraps)) => {
                            let (k, s) = g.resolve(j);
                            match wraps {
                                Some(w) => (k, std::array::from_fn(|a| s[a] + w[k][a] - w[i][a])),
                                None => (k, s),
                            }
                        }
                        None => self.image_now(i, j, pos, period),
                    };
                    kept.push((o as u32, i as u32, (k as u32, image)));
                }
            }
        }
        kept
    }

    /// History for the new rows `start` with partners `partner`, each the grain `grain` in
    /// the image `image` of the partner ([`Key`]), in place: the old state of every pair in
    /// `kept` still listed moves to its new slot, every other slot is default. No second buffer while the new slots come in the order of the old ones (as
    /// they do, rows sorted by grain then image or, without ghosts, by partner): the states
    /// kept are packed at the front in old order, then each is swapped to its slot from the
    /// last to the first. The k-th kept pair has at least k pairs before it in the new rows,
    /// so its slot is at or after k and still default when it arrives.
    pub(super) fn carry_history(
        &mut self,
        kept: Kept,
        (start, partner, grain): (&[usize], &[u32], &[u32]),
        image: impl Fn(u32) -> Image,
    ) {
        let (blank_slip, blank) = (Slip::default(), Formed::default());
        let mut slots: Vec<usize> = Vec::with_capacity(kept.len());
        for (o, i, (k, s)) in kept {
            let (o, i) = (o as usize, i as usize);
            // A pair no longer listed loses its history. The image is read only where the
            // grain is the pair's (a grain has several images in a row only in a short box).
            let mut row = start[i]..start[i + 1];
            match row.find(|&slot| grain[slot] == k && image(partner[slot]) == s) {
                Some(slot) => {
                    self.swap_history(slots.len(), o);
                    slots.push(slot);
                }
                None => (self.slip[o], self.formed[o], self.extra[o]) = (blank_slip, blank, None),
            }
        }
        let n = slots.len();
        let states: Option<Vec<_>> = (!slots.is_sorted()).then(|| {
            let taken = (0..n).map(|k| (self.slip[k], self.formed[k], self.extra[k].take()));
            slots.iter().copied().zip(taken).collect()
        });
        // The kept histories first, then blanks for every new slot.
        self.slip.truncate(n);
        self.formed.truncate(n);
        self.extra.truncate(n);
        self.slip.resize(partner.len(), blank_slip);
        self.formed.resize(partner.len(), blank);
        self.extra.resize(partner.len(), None);
        match states {
            None => {
                for (k, &slot) in slots.iter().enumerate().rev() {
                    self.swap_history(k, slot);
                }
            }
            // Out of order (hard-sphere ghosts, numbered anew at each build): put one by one.
            Some(states) => {
                for k in 0..n {
                    (self.slip[k], self.formed[k], self.extra[k]) = (blank_slip, blank, None);
                }
                for (slot, (slip, formed, extra)) in states {
                    (self.slip[slot], self.formed[slot], self.extra[slot]) = (slip, formed, extra);
                }
            }
        }
    }

    /// Swaps the contact histories of slots `a` and `b`, all three parts.
    fn swap_history(&mut self, a: usize, b: usize) {
        self.slip.swap(a, b);
        self.formed.swap(a, b);
        self.extra.swap(a, b);
    }

    /// Replaces the history with `entries` of (i, k, image of k beside i, state); pairs not
    /// listed are ignored (a checkpoint stores only touching pairs, which a fresh build always
    /// lists). An entry with no image (a checkpoint written before images were kept) goes to
    /// the first slot of grain k in i's row: then a pair had one image.
    pub fn set_history(&mut self, entries: &[(usize, usize, Option<Image>, ContactState)]) {
        for (i, k, image, s) in entries {
            let row = self.start[*i]..self.start[*i + 1];
            let found = row.clone().find(|&o| {
                let grain = self.partner_grain[o] as usize == *k;
                grain && image.is_none_or(|image| self.slot_image(o) == image)
            });
            if let Some(o) = found {
                self.set_history_at(o, s.clone());
            }
        }
    }

    /// The image of slot `o`'s partner as its ghost was made (0 for a grain).
    fn slot_image(&self, o: usize) -> Image {
        self.ghosts
            .as_ref()
            .map_or([0; 3], |g| g.resolve(self.partner[o] as usize).1)
    }
}
