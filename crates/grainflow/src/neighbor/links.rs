//! The compressed rows of the list and what they imply: the list seen from each partner, and the
//! pairs crossing [`BLOCK`]s.

use rayon::prelude::*;

use super::{BLOCK, NOT_CROSSING};
use crate::ghosts::Ghosts;

/// What the rows imply besides the history: the list seen from each partner, and the pairs
/// whose two particles lie in different [`BLOCK`]s (the pair loop leaves their reactions to the
/// gather).
#[derive(Clone, Debug, Default)]
pub struct Links {
    /// Reverse rows: the owners i of the slots where particle k is the partner, in ascending
    /// i, are `rev_owner[rev_start[k]..rev_start[k+1]]`.
    pub rev_start: Vec<usize>,
    /// Owner i of each reverse-row entry (the neighbour that lists this particle).
    pub rev_owner: Vec<u32>,
    /// Place of each slot among the pairs crossing into a later [`BLOCK`] (numbered in slot
    /// order), or [`NOT_CROSSING`] for a pair within one block. A ghost partner is in its
    /// grain's block: its reaction goes to that grain.
    pub cross_slot: Vec<u32>,
    /// Pairs crossing blocks before the first row of each block (one more entry at the end).
    pub block_cross: Vec<usize>,
    /// The first row of each block (one more entry at the end: the number of rows).
    pub block_first: Vec<usize>,
    /// The crossing pairs by partner grain, in ascending grain and for each in ascending slot
    /// (so owner): the grain of each.
    pub cross_to: Vec<u32>,
    /// The place of each among the crossing pairs.
    pub cross_of: Vec<u32>,
}

impl Links {
    /// The links of rows `start`, `partner`, with partners below `n_total` (ghosts included)
    /// and the grain of each partner `grain` (itself, or the ghost's owner); the block of each
    /// grain is `block`'s entry, or its index over [`BLOCK`].
    pub(super) fn of(
        start: &[usize],
        partner: &[u32],
        grain: &[u32],
        n_total: usize,
        block: Option<&[u32]>,
    ) -> Links {
        let n = start.len() - 1;
        // Reverse rows by counting sort on the partner, slots in ascending order (so ascending i).
        let mut rev_start = vec![0usize; n_total + 1];
        for &j in partner {
            rev_start[j as usize + 1] += 1;
        }
        for k in 0..n_total {
            rev_start[k + 1] += rev_start[k];
        }
        let mut fill = rev_start.clone();
        let mut rev_slot = vec![0u32; partner.len()];
        let mut rev_owner = vec![0u32; partner.len()];
        for i in 0..n {
            for (slot, &j) in partner.iter().enumerate().take(start[i + 1]).skip(start[i]) {
                let j = j as usize;
                rev_slot[fill[j]] = slot as u32;
                rev_owner[fill[j]] = i as u32;
                fill[j] += 1;
            }
        }
        // Pairs crossing into a later block, numbered in slot order (so each block's are
        // contiguous), and for each particle those naming it, in ascending owner.
        let (cross_slot, block_cross, block_first) = match block {
            Some(b) => crossings(start, grain, |k| b[k] as usize),
            None => crossings(start, grain, |k| k / BLOCK),
        };
        let crossing = block_cross[block_cross.len() - 1] as u32;
        // By counting sort on the grain, slots in ascending order.
        let mut first = vec![0u32; n + 1];
        for (s, &c) in cross_slot.iter().enumerate() {
            if c != NOT_CROSSING {
                first[grain[s] as usize + 1] += 1;
            }
        }
        for k in 0..n {
            first[k + 1] += first[k];
        }
        let mut cross_to = vec![0u32; crossing as usize];
        let mut cross_of = vec![0u32; crossing as usize];
        for (s, &c) in cross_slot.iter().enumerate() {
            if c != NOT_CROSSING {
                let k = grain[s] as usize;
                let at = first[k] as usize;
                (cross_to[at], cross_of[at]) = (k as u32, c);
                first[k] += 1;
            }
        }
        Links {
            rev_start,
            rev_owner,
            cross_slot,
            block_cross,
            block_first,
            cross_to,
            cross_of,
        }
    }
}

/// The pairs of rows `start` with partner grains `grain` that cross into another block
/// (`block_of` each grain): the place of each slot among them ([`Links::cross_slot`]), the
/// crossing pairs before each block's first row, and each block's first row (one more entry
/// at the end of each). Taking `block_of` as a parameter compiles the loop once per kind of
/// block, with no choice made slot by slot.
fn crossings(
    start: &[usize],
    grain: &[u32],
    block_of: impl Fn(usize) -> usize,
) -> (Vec<u32>, Vec<usize>, Vec<usize>) {
    let n = start.len() - 1;
    let mut cross_slot = vec![NOT_CROSSING; grain.len()];
    let mut block_cross = Vec::with_capacity(n / BLOCK + 2);
    let mut block_first = Vec::with_capacity(n / BLOCK + 2);
    let mut crossing = 0u32;
    for i in 0..n {
        if i == 0 || block_of(i) != block_of(i - 1) {
            block_cross.push(crossing as usize);
            block_first.push(i);
        }
        for s in start[i]..start[i + 1] {
            if block_of(grain[s] as usize) != block_of(i) {
                cross_slot[s] = crossing;
                crossing += 1;
            }
        }
    }
    block_cross.push(crossing as usize);
    block_first.push(n);
    (cross_slot, block_cross, block_first)
}

/// The compressed rows of `n` particles from `pairs` (i, j > i): row starts, partners (each
/// row sorted by j, or by grain and then image for `by_grain`) and owners, by counting sort
/// on i.
pub(super) fn rows(
    n: usize,
    pairs: &[(u32, u32)],
    by_grain: Option<&Ghosts>,
) -> (Vec<usize>, Vec<u32>, Vec<u32>) {
    let mut start = vec![0usize; n + 1];
    for &(i, _) in pairs {
        start[i as usize + 1] += 1;
    }
    for k in 0..n {
        start[k + 1] += start[k];
    }
    let mut fill = start.clone();
    let mut partner = vec![0u32; pairs.len()];
    let mut owner = vec![0u32; pairs.len()];
    for &(i, j) in pairs {
        let slot = &mut fill[i as usize];
        (partner[*slot], owner[*slot]) = (j, i);
        *slot += 1;
    }
    // Each row sorted by j, BLOCK rows per task: a row's slots are its own.
    let mut rest = &mut partner[..];
    let blocks: Vec<_> = (0..n)
        .step_by(BLOCK)
        .map(|first| {
            let end = (first + BLOCK).min(n);
            let (rows, tail) = std::mem::take(&mut rest).split_at_mut(start[end] - start[first]);
            rest = tail;
            (first..end, rows)
        })
        .collect();
    blocks.into_par_iter().for_each(|(rows, slots)| {
        let base = start[rows.start];
        for i in rows {
            let row = &mut slots[start[i] - base..start[i + 1] - base];
            // A row of grains alone is in the order of its partners either way.
            match by_grain {
                Some(g) if row.iter().any(|&j| j as usize >= g.n_owned) => {
                    row.sort_unstable_by_key(|&j| g.resolve(j as usize));
                }
                _ => row.sort_unstable(),
            }
        }
    });
    (start, partner, owner)
}
