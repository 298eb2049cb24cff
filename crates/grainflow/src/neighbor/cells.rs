//! Linked cells for the neighbour search: integer cell keys sorted, so that a grain far from the
//! others costs nothing, and each pair of neighbouring cells scanned once (a cell with itself and
//! with the 13 neighbours after it), reading positions copied in cell order.

use std::borrow::Cow;

use glam::DVec3;
use rayon::prelude::*;

use crate::boundary::Periodic;
use crate::ghosts::Ghosts;

/// Cells of at least the cut-off size: unbounded along open axes, a whole number of cells
/// along periodic ones (so that cell indices wrap).
struct Grid {
    /// Cell size per axis (m).
    h: [f64; 3],
    /// Lower bound per axis (m), 0 on open axes.
    lo: [f64; 3],
    /// Number of cells per periodic axis, 0 on open axes.
    n: [i64; 3],
}

impl Grid {
    fn new(cut: f64, periodic: &Periodic) -> Grid {
        let mut g = Grid {
            h: [cut; 3],
            lo: [0.0; 3],
            n: [0; 3],
        };
        for (k, axis) in periodic.axes().iter().enumerate() {
            if let Some([lo, hi]) = *axis {
                let n = ((hi - lo) / cut).floor().max(1.0);
                g.n[k] = n as i64;
                g.h[k] = (hi - lo) / n;
                g.lo[k] = lo;
            }
        }
        g
    }

    /// Integer cell coordinates of a position, wrapped into the box along periodic axes
    /// (round-off at the upper face stays in the last cell).
    fn cell_of(&self, p: DVec3) -> [i64; 3] {
        let p = p.to_array();
        std::array::from_fn(|k| {
            let c = ((p[k] - self.lo[k]) / self.h[k]).floor() as i64;
            if self.n[k] > 0 {
                c.clamp(0, self.n[k] - 1)
            } else {
                c
            }
        })
    }

    /// The cell `c + d` for a cell `c` of the grid and |d| ≤ 1 per axis, wrapped along periodic
    /// axes, and the shift (m) that brings its grains to their image beside `c`.
    fn neighbor(&self, c: [i64; 3], d: [i64; 3], period: DVec3) -> ([i64; 3], DVec3) {
        let mut shift = DVec3::ZERO;
        let cell = std::array::from_fn(|k| {
            let (x, n) = (c[k] + d[k], self.n[k]);
            if n > 0 && x < 0 {
                shift[k] = -period[k];
                x + n
            } else if n > 0 && x >= n {
                shift[k] = period[k];
                x - n
            } else {
                x
            }
        });
        (cell, shift)
    }
}

/// The particles of each cell, in ascending order: a dense array of cells when the occupied box
/// holds few enough cells (the usual case), else the particles sorted by cell key and found by
/// binary search (so a grain far from the others costs nothing).
enum Cells {
    /// Cells `origin + (x, y, z)` for x < dims[0] …, members in `members[start[c]..start[c + 1]]`.
    Dense {
        origin: [i64; 3],
        dims: [i64; 3],
        start: Vec<u32>,
        members: Vec<u32>,
    },
    /// Cell keys sorted, and the particle of each.
    Sparse {
        keys: Vec<[i64; 3]>,
        members: Vec<u32>,
    },
}

impl Cells {
    fn new(keys: &[[i64; 3]]) -> Cells {
        let lo: [i64; 3] = std::array::from_fn(|a| keys.iter().map(|k| k[a]).min().unwrap_or(0));
        let hi: [i64; 3] = std::array::from_fn(|a| keys.iter().map(|k| k[a]).max().unwrap_or(0));
        let dims: [i64; 3] = std::array::from_fn(|a| hi[a] - lo[a] + 1);
        let total = dims.iter().map(|&d| d as u128).product::<u128>();
        if total > 4 * keys.len() as u128 + 4096 {
            let mut keyed: Vec<([i64; 3], u32)> = keys
                .iter()
                .enumerate()
                .map(|(k, &c)| (c, k as u32))
                .collect();
            keyed.sort_unstable();
            let (keys, members) = keyed.into_iter().unzip();
            return Cells::Sparse { keys, members };
        }
        let index =
            |c: &[i64; 3]| ((c[2] - lo[2]) * dims[1] + (c[1] - lo[1])) * dims[0] + (c[0] - lo[0]);
        let mut start = vec![0u32; total as usize + 1];
        for c in keys {
            start[index(c) as usize + 1] += 1;
        }
        for k in 0..total as usize {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut members = vec![0u32; keys.len()];
        for (k, c) in keys.iter().enumerate() {
            let cell = index(c) as usize;
            members[fill[cell] as usize] = k as u32;
            fill[cell] += 1;
        }
        Cells::Dense {
            origin: lo,
            dims,
            start,
            members,
        }
    }

    /// The particles of every cell, cell after cell (each cell's in ascending order).
    fn ids(&self) -> &[u32] {
        match self {
            Cells::Dense { members, .. } | Cells::Sparse { members, .. } => members,
        }
    }

    /// Where the particles of cell `c` are in [`Cells::ids`].
    fn range(&self, c: [i64; 3]) -> std::ops::Range<usize> {
        match self {
            Cells::Dense { .. } => self.row(c, 1).unwrap_or_default(),
            Cells::Sparse { keys, .. } => {
                let lo = keys.partition_point(|k| *k < c);
                lo..lo + keys[lo..].partition_point(|k| *k == c)
            }
        }
    }

    /// Where the particles of the `len` cells from `c` along x are in [`Cells::ids`], when they
    /// are one stretch there (dense cells); `None` for sparse ones.
    fn row(&self, c: [i64; 3], len: i64) -> Option<std::ops::Range<usize>> {
        match self {
            Cells::Dense {
                origin,
                dims,
                start,
                ..
            } => {
                let r: [i64; 3] = std::array::from_fn(|a| c[a] - origin[a]);
                let (lo, hi) = (r[0].max(0), (r[0] + len).min(dims[0]));
                if r[1] < 0 || r[1] >= dims[1] || r[2] < 0 || r[2] >= dims[2] || lo >= hi {
                    return Some(0..0);
                }
                let base = (r[2] * dims[1] + r[1]) * dims[0];
                Some(start[(base + lo) as usize] as usize..start[(base + hi) as usize] as usize)
            }
            Cells::Sparse { .. } => None,
        }
    }

    /// Every occupied cell with the range of its particles in [`Cells::ids`], in key order.
    fn occupied(&self) -> Vec<([i64; 3], std::ops::Range<usize>)> {
        match self {
            Cells::Dense {
                origin,
                dims,
                start,
                ..
            } => (0..start.len() - 1)
                .filter(|&c| start[c] < start[c + 1])
                .map(|c| {
                    let c3 = c as i64;
                    let key = [
                        origin[0] + c3 % dims[0],
                        origin[1] + c3 / dims[0] % dims[1],
                        origin[2] + c3 / (dims[0] * dims[1]),
                    ];
                    (key, start[c] as usize..start[c + 1] as usize)
                })
                .collect(),
            Cells::Sparse { keys, .. } => {
                let mut out = Vec::new();
                let mut lo = 0;
                while lo < keys.len() {
                    let hi = lo + keys[lo..].partition_point(|k| *k == keys[lo]);
                    out.push((keys[lo], lo..hi));
                    lo = hi;
                }
                out
            }
        }
    }
}

/// The 13 stencil cells after a cell (its half stencil) as runs along x: (dx of the first,
/// dy, dz, number of cells).
const HALF_STENCIL_RUNS: [(i64, i64, i64, i64); 5] = [
    (1, 0, 0, 1),
    (-1, 1, 0, 3),
    (-1, -1, 1, 3),
    (-1, 0, 1, 3),
    (-1, 1, 1, 3),
];

/// The grains of one cell, in cell order: positions (wrapped into the box), radii and indices.
struct Run<'a> {
    pos: &'a [DVec3],
    rad: &'a [f64],
    ids: &'a [u32],
}

impl Run<'_> {
    /// Pushes (i, j > i) for every two grains of this cell closer than r_i + r_j + skin.
    fn pairs_within(&self, skin: f64, out: &mut Vec<(u32, u32)>) {
        out.reserve(self.pos.len() * self.pos.len());
        for a in 0..self.pos.len() {
            for b in a + 1..self.pos.len() {
                let cut = self.rad[a] + self.rad[b] + skin;
                let near = (self.pos[b] - self.pos[a]).length_squared() < cut * cut;
                push_if(out, ordered(self.ids[a], self.ids[b]), near);
            }
        }
    }

    /// Pushes (i, j > i) for every grain of this cell and grain of `other`, moved by `shift`,
    /// closer than r_i + r_j + skin.
    fn pairs_with(&self, other: &Run, shift: DVec3, skin: f64, out: &mut Vec<(u32, u32)>) {
        out.reserve(self.pos.len() * other.pos.len());
        for ((&pa, &ra), &ia) in self.pos.iter().zip(self.rad).zip(self.ids) {
            let rel = shift - pa;
            for ((&pb, &rb), &ib) in other.pos.iter().zip(other.rad).zip(other.ids) {
                let cut = ra + rb + skin;
                let near = (pb + rel).length_squared() < cut * cut;
                push_if(out, ordered(ia, ib), near);
            }
        }
    }

    /// As [`Run::pairs_with`] by minimum image, keeping only j > i (for a cell that may meet
    /// itself or another twice round a short periodic axis).
    fn pairs_by_image(&self, other: &Run, period: DVec3, skin: f64, out: &mut Vec<(u32, u32)>) {
        for ((&pa, &ra), &ia) in self.pos.iter().zip(self.rad).zip(self.ids) {
            for ((&pb, &rb), &ib) in other.pos.iter().zip(other.rad).zip(other.ids) {
                let cut = ra + rb + skin;
                if ib > ia && Periodic::minimum_image(pb - pa, period).length_squared() < cut * cut
                {
                    out.push((ia, ib));
                }
            }
        }
    }
}

/// Pushes `pair` when `keep`, without a branch the processor would mispredict: the pair is
/// written after the last either way and counted only when kept. `out` must have room.
#[inline(always)]
fn push_if(out: &mut Vec<(u32, u32)>, pair: (u32, u32), keep: bool) {
    let len = out.len();
    assert!(len < out.capacity(), "room reserved for every candidate");
    // SAFETY: len < capacity: the place is allocated, and counted only once written.
    unsafe {
        out.as_mut_ptr().add(len).write(pair);
        out.set_len(len + usize::from(keep));
    }
}

/// A pair as (lower index, higher index).
fn ordered(i: u32, j: u32) -> (u32, u32) {
    (i.min(j), i.max(j))
}

/// Every pair (i, j > i) of grains at `pos` with radii `radius` closer than r_i + r_j + `skin`
/// (across periodic faces by their minimum image), found cell by cell, each pair of
/// neighbouring cells scanned once; [`super::rows`] puts them in order.
///
/// With `ghosts` the periodic images are the ghosts, numbered after the grains, in an open
/// box: every pair of two of them is found, and the caller keeps the ones it lists.
pub(super) fn candidate_pairs(
    pos: &[DVec3],
    radius: &[f64],
    skin: f64,
    periodic: &Periodic,
    ghosts: Option<&Ghosts>,
) -> Vec<(u32, u32)> {
    let r_max = radius.iter().copied().fold(0.0, f64::max);
    let grid_of = |periodic| Grid::new((2.0 * r_max + skin).max(f64::MIN_POSITIVE), periodic);
    // With ghosts the grains and then the ghosts, in an open box; else the grains wrapped.
    let (grid, period, pos, radius): (Grid, DVec3, Vec<DVec3>, Cow<[f64]>) = match ghosts {
        Some(g) => {
            let total = g.total();
            let mut all = Vec::with_capacity(total);
            all.extend_from_slice(pos);
            all.extend(g.positions(pos, periodic.lengths()));
            let mut radii = Vec::with_capacity(total);
            radii.extend_from_slice(radius);
            radii.extend(g.owner.iter().map(|&k| radius[k as usize]));
            let open = Periodic::default();
            (grid_of(&open), DVec3::ZERO, all, Cow::Owned(radii))
        }
        None => {
            let wrapped = pos.par_iter().map(|&p| periodic.wrap(p)).collect();
            (
                grid_of(periodic),
                periodic.lengths(),
                wrapped,
                Cow::Borrowed(radius),
            )
        }
    };
    let keys: Vec<[i64; 3]> = pos.par_iter().map(|&p| grid.cell_of(p)).collect();
    let cells = Cells::new(&keys);
    let wraps_onto_itself = grid.n.iter().any(|&n| n > 0 && n < 3);
    // Positions and radii copied in cell order, so that a cell's grains are read together.
    let ids = cells.ids();
    let (cpos, crad): (Vec<DVec3>, Vec<f64>) = ids
        .par_iter()
        .map(|&k| (pos[k as usize], radius[k as usize]))
        .unzip();
    let run = |r: std::ops::Range<usize>| Run {
        pos: &cpos[r.clone()],
        rad: &crad[r.clone()],
        ids: &ids[r],
    };
    // Stencil cell k: offset (k mod 3, ⌊k/3⌋ mod 3, ⌊k/9⌋) − 1, the cell itself at k = 13.
    let offset = |k: usize| [k as i64 % 3 - 1, k as i64 / 3 % 3 - 1, k as i64 / 9 - 1];
    let occupied = cells.occupied();
    occupied
        .par_iter()
        .with_min_len(64)
        .fold(Vec::new, |mut out, (c, own)| {
            let own = run(own.clone());
            if wraps_onto_itself {
                // Fewer than three cells along a periodic axis: a cell comes round twice,
                // so every distinct neighbour is scanned by minimum image, and j > i keeps
                // each pair once.
                let mut stencil: [[i64; 3]; 27] =
                    std::array::from_fn(|k| grid.neighbor(*c, offset(k), period).0);
                stencil.sort_unstable();
                for (k, &cell) in stencil.iter().enumerate() {
                    if k > 0 && stencil[k - 1] == cell {
                        continue;
                    }
                    own.pairs_by_image(&run(cells.range(cell)), period, skin, &mut out);
                }
            } else {
                // Each pair of cells once: the cell with itself, and with the 13 neighbours
                // after it in stencil order (the other 13 scan this one), their grains
                // shifted to the image beside it. The 13 are five runs along x; a run not
                // crossing a periodic x face is one stretch of the cell-ordered grains.
                own.pairs_within(skin, &mut out);
                for (dx, dy, dz, len) in HALF_STENCIL_RUNS {
                    let (first, shift) = grid.neighbor(*c, [0, dy, dz], period);
                    let x0 = c[0] + dx;
                    let crosses = grid.n[0] > 0 && (x0 < 0 || x0 + len > grid.n[0]);
                    match cells.row([x0, first[1], first[2]], len) {
                        Some(r) if !crosses => own.pairs_with(&run(r), shift, skin, &mut out),
                        _ => {
                            for d in 0..len {
                                let (cell, shift) = grid.neighbor(*c, [dx + d, dy, dz], period);
                                own.pairs_with(&run(cells.range(cell)), shift, skin, &mut out);
                            }
                        }
                    }
                }
            }
            out
        })
        .reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            a
        })
}
