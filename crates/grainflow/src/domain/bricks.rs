//! The bricks of a run shared among processes: the box cut along one to three axes into as
//! many bricks as there are ranks, each rank owning the grains in its brick.

use glam::DVec3;

use crate::boundary::Periodic;

/// The box cut into `counts[a]` equal slabs along each axis a; brick (i, j, k) is rank
/// i + n_x (j + n_y k). Along a periodic axis the slabs cover the period; along an open axis
/// they cover the grains' extent at the start, the first and last slab reaching on to ±∞.
#[derive(Clone, Debug, PartialEq)]
pub struct Bricks {
    /// Slabs along x, y and z.
    pub counts: [usize; 3],
    /// Lower corner of the cut box (m).
    pub lo: DVec3,
    /// Upper corner of the cut box (m).
    pub hi: DVec3,
    /// Periodic length along each axis (0 when open).
    pub period: DVec3,
}

impl Bricks {
    /// Bricks for `ranks` ranks over the periodic box `periodic` and, along open axes, the
    /// extent of the grains at `pos`: of the ways to write `ranks` as n_x n_y n_z, the one
    /// whose cut faces have the least area (so the fewest copies), ties to the first in
    /// (n_x, n_y, n_z) order descending along x.
    pub fn new(ranks: usize, periodic: &Periodic, pos: &[DVec3]) -> Bricks {
        let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        for x in pos {
            (lo, hi) = (lo.min(*x), hi.max(*x));
        }
        if pos.is_empty() {
            (lo, hi) = (DVec3::ZERO, DVec3::ZERO);
        }
        let [plo, phi] = periodic.bounds();
        let period = periodic.lengths();
        for a in 0..3 {
            if period[a] > 0.0 {
                (lo[a], hi[a]) = (plo[a], phi[a]);
            }
        }
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
        Bricks {
            counts: best.0,
            lo,
            hi,
            period,
        }
    }

    /// Number of bricks.
    pub fn len(&self) -> usize {
        self.counts.iter().product()
    }

    /// Always false: there is at least one brick.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The slab along axis `a` of coordinate `x` (m).
    fn slab(&self, a: usize, x: f64) -> usize {
        let n = self.counts[a];
        let width = (self.hi[a] - self.lo[a]) / n as f64;
        if n == 1 || width <= 0.0 {
            return 0;
        }
        (((x - self.lo[a]) / width).floor().max(0.0) as usize).min(n - 1)
    }

    /// The rank whose brick holds a grain at `x` (m, in the periodic box).
    pub fn rank_of(&self, x: DVec3) -> usize {
        let [i, j, k] = std::array::from_fn(|a| self.slab(a, x[a]));
        i + self.counts[0] * (j + self.counts[1] * k)
    }

    /// Lower and upper bound of brick `rank` along axis `a` (±∞ at the ends of an open axis).
    fn bounds(&self, rank: usize, a: usize) -> (f64, f64) {
        let c = self.counts;
        let index = [rank % c[0], rank / c[0] % c[1], rank / (c[0] * c[1])];
        let (n, i) = (c[a], index[a]);
        let width = (self.hi[a] - self.lo[a]) / n as f64;
        let open = self.period[a] <= 0.0;
        let low = if open && i == 0 {
            f64::NEG_INFINITY
        } else {
            self.lo[a] + i as f64 * width
        };
        let high = if open && i + 1 == n {
            f64::INFINITY
        } else {
            self.lo[a] + (i + 1) as f64 * width
        };
        (low, high)
    }

    /// Whether a grain at `x` (m) lies within `reach` (m) of brick `rank`, through the
    /// periodic faces too: then that rank holds a copy of it.
    pub fn near(&self, rank: usize, x: DVec3, reach: f64) -> bool {
        let bounds = std::array::from_fn(|a| self.bounds(rank, a));
        within(&bounds, self.period, x, reach)
    }

    /// Every brick's bounds, for many [`Bricks::near`] tests at one `reach` (m).
    pub(crate) fn reach(&self, reach: f64) -> Reach {
        Reach {
            bounds: (0..self.len())
                .map(|r| std::array::from_fn(|a| self.bounds(r, a)))
                .collect(),
            period: self.period,
            reach,
        }
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
        assert_eq!(Bricks::new(1, &periodic, &pos).counts, [1, 1, 1]);
        assert_eq!(Bricks::new(2, &periodic, &pos).counts, [2, 1, 1]);
        assert_eq!(Bricks::new(3, &periodic, &pos).counts, [3, 1, 1]);
        assert_eq!(Bricks::new(4, &periodic, &pos).counts, [4, 1, 1]);
        assert_eq!(Bricks::new(16, &periodic, &pos).counts, [4, 4, 1]);
        // A flat bed (no extent in z) is never cut along z.
        let flat = [DVec3::new(0.01, 0.01, 0.0), DVec3::new(0.02, 0.02, 0.0)];
        assert_eq!(Bricks::new(8, &periodic, &flat).counts[2], 1);
    }

    #[test]
    fn each_grain_has_one_owner_and_copies_within_reach_through_periodic_faces() {
        let periodic = Periodic {
            x: Some([0.0, 1.0]),
            ..Periodic::default()
        };
        let pos = [DVec3::new(0.1, 0.0, 0.0), DVec3::new(0.9, 5.0, 0.0)];
        let b = Bricks::new(3, &periodic, &pos);
        assert_eq!(b.counts, [3, 1, 1]);
        assert_eq!(b.rank_of(DVec3::new(0.1, 0.0, 0.0)), 0);
        assert_eq!(b.rank_of(DVec3::new(0.5, -9.0, 3.0)), 1);
        assert_eq!(b.rank_of(DVec3::new(0.99, 0.0, 0.0)), 2);
        // 0.02 from x = 0 is 0.02 from brick 2 through the face, 0.32 from brick 1.
        let x = DVec3::new(0.02, 0.0, 0.0);
        assert!(b.near(2, x, 0.05) && !b.near(2, x, 0.01) && !b.near(1, x, 0.3));
        assert!(b.near(0, x, 1e-9));
    }
}
