//! The bricks of a run shared among processes: the box cut by planes into as many bricks as
//! there are ranks, each rank owning the grains in its brick. The planes make equal slabs along
//! one to three axes, or, with `simulation.balance_every`, they bisect the grains' work again
//! and again (recursive coordinate bisection), at the start and every few rebuilds.

use std::ops::Range;

use glam::DVec3;

use crate::boundary::Periodic;

/// Bins of the histogram of work along the axis a bisection cuts: the cut lies on a bin's
/// edge, so each side's share is right to within a bin's work.
const BINS: usize = 512;

/// The bricks: a tree of cutting planes whose leaves are the ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct Bricks {
    root: Node,
    /// Each rank's brick: lower and upper bound along each axis (±∞ at the ends of an open
    /// axis).
    bounds: Vec<[(f64, f64); 3]>,
    /// Periodic length along each axis (0 when open).
    pub period: DVec3,
    /// How the box was cut.
    pub layout: Layout,
}

/// How the box was cut into bricks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    /// Equal slabs, so many along x, y and z; brick (i, j, k) is rank i + n_x (j + n_y k).
    Slabs([usize; 3]),
    /// Recursive bisection of the grains' work.
    Balanced,
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Layout::Slabs([x, y, z]) => write!(f, "bricks {x}×{y}×{z}"),
            Layout::Balanced => write!(f, "bricks balanced by work"),
        }
    }
}

/// A node of the tree of cuts.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    /// The brick of this rank.
    Brick(usize),
    /// A plane across `axis` at `at` (m): what lies below it, and what lies at or above it.
    Cut {
        axis: usize,
        at: f64,
        below: Box<Node>,
        above: Box<Node>,
    },
}

/// The box that the cuts divide: the periodic box along periodic axes, and along open ones
/// the extent `[lo, hi]` of the grains (the outer bricks reaching on to ±∞).
fn outer(periodic: &Periodic, [mut lo, mut hi]: [DVec3; 2]) -> ([DVec3; 2], DVec3) {
    let [plo, phi] = periodic.bounds();
    let period = periodic.lengths();
    for a in 0..3 {
        if period[a] > 0.0 {
            (lo[a], hi[a]) = (plo[a], phi[a]);
        }
    }
    ([lo, hi], period)
}

/// The least and greatest coordinates of `pos` (zeros when empty).
pub(super) fn extent<'a>(pos: impl IntoIterator<Item = &'a DVec3>) -> [DVec3; 2] {
    let mut e = [DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)];
    for x in pos {
        e = [e[0].min(*x), e[1].max(*x)];
    }
    if e[0].x > e[1].x {
        return [DVec3::ZERO; 2];
    }
    e
}

impl Bricks {
    /// Equal slabs for `ranks` ranks over the periodic box `periodic` and, along open axes, the
    /// extent of the grains at `pos`: of the ways to write `ranks` as n_x n_y n_z, the one
    /// whose cut faces have the least area (so the fewest copies), ties to the first in
    /// (n_x, n_y, n_z) order descending along x.
    pub fn new(ranks: usize, periodic: &Periodic, pos: &[DVec3]) -> Bricks {
        Bricks::within(ranks, periodic, extent(pos))
    }

    /// [`Bricks::new`] for grains whose extent is `[lo, hi]`.
    pub(crate) fn within(ranks: usize, periodic: &Periodic, extent: [DVec3; 2]) -> Bricks {
        let ([lo, hi], period) = outer(periodic, extent);
        let side = hi - lo;
        // Cut faces: n cuts along a periodic axis (one at the wrap), n − 1 along an open one.
        let area = |n: [usize; 3]| {
            (0..3)
                .map(|a| {
                    let cuts = if period[a] > 0.0 { n[a] } else { n[a] - 1 };
                    let cuts = if n[a] == 1 { 0 } else { cuts };
                    cuts as f64 * side[(a + 1) % 3] * side[(a + 2) % 3]
                })
                .sum::<f64>()
        };
        let mut best = ([ranks, 1, 1], f64::INFINITY);
        for nx in (1..=ranks).rev().filter(|n| ranks.is_multiple_of(*n)) {
            let rest = ranks / nx;
            for ny in (1..=rest).rev().filter(|n| rest.is_multiple_of(*n)) {
                let n = [nx, ny, rest / ny];
                // An axis with no extent is never cut.
                let flat = (0..3).any(|a| n[a] > 1 && side[a] <= 0.0);
                let a = area(n);
                if !flat && a < best.1 {
                    best = (n, a);
                }
            }
        }
        let counts = best.0;
        let root = slabs(counts, [lo, hi], 0, (0, counts[0]), [0; 3]);
        Bricks::of(root, ranks, periodic, Layout::Slabs(counts))
    }

    /// Bricks for `ranks` ranks by recursive coordinate bisection (Berger & Bokhari 1987) of
    /// the work of the grains `grains` (position, work) within the periodic box `periodic` and,
    /// along open axes, the extent `extent` of every rank's grains: each brick is cut across
    /// its longest side where the work below matches the share of the ranks below (⌊n/2⌋ of
    /// n), to within a bin of [`BINS`]. `sum` adds up a histogram over every rank's grains
    /// (every rank calls it alike, in the same order); the bricks are the same on every rank.
    pub fn balanced(
        ranks: usize,
        periodic: &Periodic,
        extent: [DVec3; 2],
        grains: Vec<(DVec3, u64)>,
        sum: &mut dyn FnMut(Vec<u64>) -> Vec<u64>,
    ) -> Bricks {
        let (cut_box, _) = outer(periodic, extent);
        let root = bisect(0..ranks, cut_box, grains, sum);
        Bricks::of(root, ranks, periodic, Layout::Balanced)
    }

    /// The bricks of the tree `root` of `ranks` leaves in the box of `periodic`.
    fn of(root: Node, ranks: usize, periodic: &Periodic, layout: Layout) -> Bricks {
        let period = periodic.lengths();
        let [plo, phi] = periodic.bounds();
        let whole = std::array::from_fn(|a| match period[a] > 0.0 {
            true => (plo[a], phi[a]),
            false => (f64::NEG_INFINITY, f64::INFINITY),
        });
        let mut bounds = vec![whole; ranks];
        fill_bounds(&root, whole, &mut bounds);
        Bricks {
            root,
            bounds,
            period,
            layout,
        }
    }

    /// Number of bricks.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Always false: there is at least one brick.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The rank whose brick holds a grain at `x` (m, in the periodic box).
    pub fn rank_of(&self, x: DVec3) -> usize {
        let mut node = &self.root;
        loop {
            match node {
                Node::Brick(rank) => return *rank,
                Node::Cut {
                    axis,
                    at,
                    below,
                    above,
                } => node = if x[*axis] < *at { below } else { above },
            }
        }
    }

    /// Whether a grain at `x` (m) lies within `reach` (m) of brick `rank`, through the
    /// periodic faces too: then that rank holds a copy of it.
    pub fn near(&self, rank: usize, x: DVec3, reach: f64) -> bool {
        within(&self.bounds[rank], self.period, x, reach)
    }

    /// Every brick's bounds, for many [`Bricks::near`] tests at one `reach` (m).
    pub(crate) fn reach(&self, reach: f64) -> Reach {
        Reach {
            bounds: self.bounds.clone(),
            period: self.period,
            reach,
        }
    }
}

/// The tree of equal slabs `counts` over the box `[lo, hi]`, from axis `a` on, for the slabs
/// `i0..i1` along it, the slabs along the axes before it being `index`.
fn slabs(
    counts: [usize; 3],
    [lo, hi]: [DVec3; 2],
    a: usize,
    (i0, i1): (usize, usize),
    mut index: [usize; 3],
) -> Node {
    if a == 3 {
        return Node::Brick(index[0] + counts[0] * (index[1] + counts[1] * index[2]));
    }
    if i1 - i0 == 1 {
        index[a] = i0;
        let next = counts.get(a + 1).copied().unwrap_or(1);
        return slabs(counts, [lo, hi], a + 1, (0, next), index);
    }
    let m = (i0 + i1) / 2;
    let width = (hi[a] - lo[a]) / counts[a] as f64;
    Node::Cut {
        axis: a,
        at: lo[a] + m as f64 * width,
        below: Box::new(slabs(counts, [lo, hi], a, (i0, m), index)),
        above: Box::new(slabs(counts, [lo, hi], a, (m, i1), index)),
    }
}

/// The bricks' bounds under `node`, whose box is `b`, into `bounds`.
fn fill_bounds(node: &Node, b: [(f64, f64); 3], bounds: &mut [[(f64, f64); 3]]) {
    match node {
        Node::Brick(rank) => bounds[*rank] = b,
        Node::Cut {
            axis,
            at,
            below,
            above,
        } => {
            let (mut under, mut over) = (b, b);
            under[*axis].1 = *at;
            over[*axis].0 = *at;
            fill_bounds(below, under, bounds);
            fill_bounds(above, over, bounds);
        }
    }
}

/// The tree of bisections for `ranks` over the box `[lo, hi]` holding `grains` (position,
/// work) of this rank; `sum` adds each histogram up over the ranks ([`Bricks::balanced`]).
fn bisect(
    ranks: Range<usize>,
    [lo, hi]: [DVec3; 2],
    grains: Vec<(DVec3, u64)>,
    sum: &mut dyn FnMut(Vec<u64>) -> Vec<u64>,
) -> Node {
    if ranks.len() == 1 {
        return Node::Brick(ranks.start);
    }
    let side = hi - lo;
    let axis = (0..3).fold(0, |best, a| if side[a] > side[best] { a } else { best });
    let (start, width) = (lo[axis], side[axis]);
    let mut histogram = vec![0u64; BINS];
    for (x, w) in &grains {
        let bin = ((x[axis] - start) / width * BINS as f64).floor();
        histogram[(bin.max(0.0) as usize).min(BINS - 1)] += w;
    }
    let histogram = sum(histogram);
    let total: u128 = histogram.iter().map(|&w| u128::from(w)).sum();
    let n_below = ranks.len() / 2;
    let target = total * n_below as u128 / ranks.len() as u128;
    // The bin edge whose work below is nearest the target (the first of equals).
    let (mut below_work, mut best) = (0u128, (u128::MAX, BINS / 2));
    for edge in 1..BINS {
        below_work += u128::from(histogram[edge - 1]);
        let miss = below_work.abs_diff(target);
        if miss < best.0 {
            best = (miss, edge);
        }
    }
    let at = if width > 0.0 {
        start + width * best.1 as f64 / BINS as f64
    } else {
        start
    };
    let (under, over): (Vec<_>, Vec<_>) = grains.into_iter().partition(|(x, _)| x[axis] < at);
    let (mut top, mut bottom) = (hi, lo);
    top[axis] = at;
    bottom[axis] = at;
    let mid = ranks.start + n_below;
    Node::Cut {
        axis,
        at,
        below: Box::new(bisect(ranks.start..mid, [lo, top], under, sum)),
        above: Box::new(bisect(mid..ranks.end, [bottom, hi], over, sum)),
    }
}

/// The bricks' bounds along each axis, and a reach (m): [`Bricks::near`] without working
/// the bounds out again at every test.
pub(crate) struct Reach {
    bounds: Vec<[(f64, f64); 3]>,
    period: DVec3,
    reach: f64,
}

impl Reach {
    /// [`Bricks::near`] at this reach.
    #[inline]
    pub(crate) fn near(&self, rank: usize, x: DVec3) -> bool {
        within(&self.bounds[rank], self.period, x, self.reach)
    }
}

/// Whether `x` (m) lies within `reach` (m) of the brick of `bounds` (lower and upper bound
/// along each axis), through the faces of the periods `period` (0 on open axes) too.
#[inline]
fn within(bounds: &[(f64, f64); 3], period: DVec3, x: DVec3, reach: f64) -> bool {
    let mut d2 = 0.0;
    for (a, &(low, high)) in bounds.iter().enumerate() {
        let gap = |x: f64| (low - x).max(x - high).max(0.0);
        let l = period[a];
        let d = if l > 0.0 {
            gap(x[a]).min(gap(x[a] - l)).min(gap(x[a] + l))
        } else {
            gap(x[a])
        };
        d2 += d * d;
    }
    d2 < reach * reach
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cut_with_the_least_face_area_is_chosen() {
        // S1's box, 55 × 44 mm periodic in x and y, grains 0 to 10 mm high: two ranks cut x
        // (faces 2 × 44 × 10 mm² against 2 × 55 × 10), three and four too (4 × 440 mm²
        // against 2 × 440 + 2 × 550 for 2 × 2); sixteen cut x and y four times each (3960 mm²
        // against 4620 for 8 × 2 and 5280 for 4 × 2 × 2).
        let periodic = Periodic {
            x: Some([0.0, 0.055]),
            y: Some([0.0, 0.044]),
            z: None,
        };
        let pos = [DVec3::new(0.01, 0.01, 0.0), DVec3::new(0.02, 0.02, 0.01)];
        assert_eq!(
            Bricks::new(1, &periodic, &pos).layout,
            Layout::Slabs([1, 1, 1])
        );
        assert_eq!(
            Bricks::new(2, &periodic, &pos).layout,
            Layout::Slabs([2, 1, 1])
        );
        assert_eq!(
            Bricks::new(3, &periodic, &pos).layout,
            Layout::Slabs([3, 1, 1])
        );
        assert_eq!(
            Bricks::new(4, &periodic, &pos).layout,
            Layout::Slabs([4, 1, 1])
        );
        assert_eq!(
            Bricks::new(16, &periodic, &pos).layout,
            Layout::Slabs([4, 4, 1])
        );
        // A flat bed (no extent in z) is never cut along z.
        let flat = [DVec3::new(0.01, 0.01, 0.0), DVec3::new(0.02, 0.02, 0.0)];
        let Layout::Slabs(counts) = Bricks::new(8, &periodic, &flat).layout else {
            panic!("slabs")
        };
        assert_eq!(counts[2], 1);
    }

    #[test]
    fn each_grain_has_one_owner_and_copies_within_reach_through_periodic_faces() {
        let periodic = Periodic {
            x: Some([0.0, 1.0]),
            ..Periodic::default()
        };
        let pos = [DVec3::new(0.1, 0.0, 0.0), DVec3::new(0.9, 5.0, 0.0)];
        let b = Bricks::new(3, &periodic, &pos);
        assert_eq!(b.layout, Layout::Slabs([3, 1, 1]));
        assert_eq!(b.rank_of(DVec3::new(0.1, 0.0, 0.0)), 0);
        assert_eq!(b.rank_of(DVec3::new(0.5, -9.0, 3.0)), 1);
        assert_eq!(b.rank_of(DVec3::new(0.99, 0.0, 0.0)), 2);
        // 0.02 from x = 0 is 0.02 from brick 2 through the face, 0.32 from brick 1.
        let x = DVec3::new(0.02, 0.0, 0.0);
        assert!(b.near(2, x, 0.05) && !b.near(2, x, 0.01) && !b.near(1, x, 0.3));
        assert!(b.near(0, x, 1e-9));
    }

    #[test]
    fn bisection_gives_each_rank_an_equal_share_of_the_work() {
        // 1000 grains on a 100 × 10 lattice in x ∈ [0, 0.3] of a period [0, 1] and y in
        // [0.05, 0.95] (open): equal slabs would give rank 0 of 2 every grain. The first cut
        // crosses the longest side, the period (1 against 0.9), after 50 of the 100 columns;
        // each half is then longer in y (0.9 against about 0.15), cut after 5 of the 10 rows:
        // 250 grains each, exactly, for the bins (1/512 of a side) are finer than the lattice.
        let periodic = Periodic {
            x: Some([0.0, 1.0]),
            ..Periodic::default()
        };
        let grains: Vec<(DVec3, u64)> = (0..1000)
            .map(|g| {
                let (i, j) = (g % 100, g / 100);
                let x = DVec3::new(0.003 * (i as f64 + 0.5), 0.05 + 0.1 * j as f64, 0.0);
                (x, 1)
            })
            .collect();
        let pos: Vec<DVec3> = grains.iter().map(|g| g.0).collect();
        let slabs = Bricks::new(2, &periodic, &pos);
        assert!(pos.iter().all(|&x| slabs.rank_of(x) == 0));
        let b = Bricks::balanced(4, &periodic, extent(&pos), grains, &mut |h| h);
        assert_eq!(b.layout, Layout::Balanced);
        let mut per_rank = [0; 4];
        for &x in &pos {
            let r = b.rank_of(x);
            per_rank[r] += 1;
            assert!(b.near(r, x, 1e-12), "a grain of rank {r} outside its brick");
        }
        assert_eq!(per_rank, [250; 4]);
    }
}
