//! The contact history of the listed pairs carried across rebuilds, in place, and put back
//! from a checkpoint.

use super::NeighborList;
use crate::contact::{ContactState, Formed, Slip};

impl NeighborList {
    /// History for the new rows, in place: the old state of every pair listed before that has
    /// one (not the default) moves to its new slot, every other slot is default. No second
    /// buffer: the states kept are packed at the front in (i, j) order, then each is swapped
    /// to its slot from the last to the first. The k-th kept pair has at least k pairs before
    /// it in the new rows, so its slot is at or after k and still default when it arrives.
    pub(super) fn carry_history(&mut self, n: usize, start: &[usize], partner: &[u32]) {
        let (blank_slip, blank) = (Slip::default(), Formed::default());
        let mut slots: Vec<usize> = Vec::new();
        if self.start.len() == n + 1 {
            for i in 0..n {
                for o in self.start[i]..self.start[i + 1] {
                    let has_history = self.slip[o] != blank_slip
                        || self.formed[o] != blank
                        || self.extra[o].is_some();
                    if !has_history {
                        continue;
                    }
                    let row = start[i]..start[i + 1];
                    // A pair no longer listed loses its history.
                    if let Ok(k) = partner[row.clone()].binary_search(&self.partner[o]) {
                        self.swap_history(slots.len(), o);
                        slots.push(row.start + k);
                    } else {
                        (self.slip[o], self.formed[o], self.extra[o]) = (blank_slip, blank, None);
                    }
                }
            }
        }
        // The kept histories first, then blanks for every new slot (all blanks when the list
        // was built for another count: none kept).
        let kept = slots.len();
        self.slip.truncate(kept);
        self.formed.truncate(kept);
        self.extra.truncate(kept);
        self.slip.resize(partner.len(), blank_slip);
        self.formed.resize(partner.len(), blank);
        self.extra.resize(partner.len(), None);
        for (k, &slot) in slots.iter().enumerate().rev() {
            self.swap_history(k, slot);
        }
    }

    /// Swaps the contact histories of slots `a` and `b`, all three parts.
    fn swap_history(&mut self, a: usize, b: usize) {
        self.slip.swap(a, b);
        self.formed.swap(a, b);
        self.extra.swap(a, b);
    }

    /// Replaces the history with `entries` of (i, j, state); pairs not listed are ignored
    /// (a checkpoint stores only touching pairs, which a fresh build always lists).
    pub fn set_history(&mut self, entries: &[(usize, usize, ContactState)]) {
        for (i, j, s) in entries {
            let row = self.start[*i]..self.start[*i + 1];
            if let Ok(k) = self.partner[row.clone()].binary_search(&(*j as u32)) {
                self.set_history_at(row.start + k, s.clone());
            }
        }
    }
}
