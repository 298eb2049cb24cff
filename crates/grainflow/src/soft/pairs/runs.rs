//! Runs of four numbers as the pair loop moves them: sums, and a group's reactions transposed
//! back from the lanes.

use glam::DVec3;

use super::Run;
use crate::boundary::MinimumImage;
use crate::contact::lanes::{Reaction, V3};
use crate::simd::{Quad, F, LANES};

/// The minimum image of separations, as [`MinimumImage::fold`] axis by axis: d − L above
/// L/2, d + L below −L/2. Where every listed pair is nearer than half a period
/// ([`super::Packed::nearest`]) it is the same bits as the ghosts' shifts: see there.
pub(super) struct Fold {
    /// L, L/2 and −L/2 per axis (0, +∞ and −∞ on open axes, which it never folds).
    l: [f64; 3],
    half: [f64; 3],
    neg_half: [f64; 3],
}

impl Fold {
    pub(super) fn new(image: &MinimumImage) -> Fold {
        let (l, half) = image.lengths();
        Fold {
            l,
            half,
            neg_half: half.map(|h| -h),
        }
    }

    /// L, L/2 and −L/2 per axis.
    #[inline(always)]
    pub(super) fn axes(&self) -> [[f64; 3]; 3] {
        [self.l, self.half, self.neg_half]
    }
}

/// Four lane sets from each lane's four numbers `f(l)`.
#[inline(always)]
pub(super) fn quads(f: impl Fn(usize) -> Quad) -> [F; 4] {
    F::from_quads(std::array::from_fn(f))
}

/// sum += term, number by number.
#[inline(always)]
pub(super) fn add(sum: &mut Run, term: Quad) {
    *sum = Run((Quad::new(sum.0) + term).to_array());
}

/// sum −= term, number by number.
#[inline(always)]
pub(super) fn subtract(sum: &mut Run, term: Quad) {
    *sum = Run((Quad::new(sum.0) - term).to_array());
}

/// A vector as four numbers (the fourth 0).
#[inline(always)]
pub(super) fn run(v: DVec3) -> Quad {
    Quad::new([v.x, v.y, v.z, 0.0])
}

/// The first three numbers as a vector.
#[inline(always)]
pub(super) fn vec(q: Quad) -> DVec3 {
    let a = q.to_array();
    DVec3::new(a[0], a[1], a[2])
}

/// Rows of [`Runs`]: the force on i, the torques on i and j, the slip followed by 1 (a
/// [`crate::contact::Slip`] of a touching pair).
pub(super) const FORCE: usize = 0;
pub(super) const TORQUE_I: usize = 1;
pub(super) const TORQUE_J: usize = 2;
pub(super) const SLIP: usize = 3;

/// The reaction of a group's contacts as four numbers per contact and quantity (rows
/// [`FORCE`], [`TORQUE_I`], [`TORQUE_J`], [`SLIP`]), as the sums and the history take them.
#[derive(Default)]
pub(super) struct Runs([[Quad; LANES]; 4]);

impl Runs {
    /// Puts the lanes' reaction `r`.
    #[inline(always)]
    pub(super) fn put(&mut self, r: &Reaction) {
        let (zero, one) = (F::default(), F::splat(1.0));
        let back = |v: &V3, w: F| F::to_quads([v.x, v.y, v.z, w]);
        self.0 = [
            back(&r.force_i, zero),
            back(&r.torque_i, zero),
            back(&r.torque_j, zero),
            back(&r.slip, one),
        ];
    }

    /// Contact `l`'s numbers of `row`.
    #[inline(always)]
    pub(super) fn lane(&self, row: usize, l: usize) -> Quad {
        self.0[row][l]
    }
}
