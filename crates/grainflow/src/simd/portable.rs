//! The lanes as plain numbers, for every other processor: the compiler packs what it can.

use super::LANES;

/// Eight f64 lanes.
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct F([f64; LANES]);

/// A flag per lane.
#[derive(Clone, Copy, Default)]
pub struct Mask([bool; LANES]);

/// Four numbers.
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct Quad([f64; 4]);

impl F {
    #[inline(always)]
    fn map(self, f: impl Fn(f64) -> f64) -> F {
        F(self.0.map(f))
    }

    #[inline(always)]
    fn zip(self, o: F, f: impl Fn(f64, f64) -> f64) -> F {
        F(std::array::from_fn(|k| f(self.0[k], o.0[k])))
    }

    #[inline(always)]
    fn test(self, o: F, f: impl Fn(f64, f64) -> bool) -> Mask {
        Mask(std::array::from_fn(|k| f(self.0[k], o.0[k])))
    }

    /// `x` in every lane.
    #[inline(always)]
    pub fn splat(x: f64) -> F {
        F([x; LANES])
    }

    /// The lanes `x`.
    #[inline(always)]
    pub fn new(x: [f64; LANES]) -> F {
        F(x)
    }

    /// The lanes as numbers.
    #[inline(always)]
    pub fn to_array(self) -> [f64; LANES] {
        self.0
    }

    /// Lane `k`.
    #[inline(always)]
    pub fn lane(self, k: usize) -> f64 {
        self.0[k]
    }

    /// √x per lane.
    #[inline(always)]
    pub fn sqrt(self) -> F {
        self.map(f64::sqrt)
    }

    /// |x| per lane.
    #[inline(always)]
    pub fn abs(self) -> F {
        self.map(f64::abs)
    }

    /// The smaller per lane, as f64::min.
    #[inline(always)]
    pub fn min(self, o: F) -> F {
        self.zip(o, f64::min)
    }

    /// The larger per lane, as f64::max.
    #[inline(always)]
    pub fn max(self, o: F) -> F {
        self.zip(o, f64::max)
    }

    /// self < o per lane.
    #[inline(always)]
    pub fn lt(self, o: F) -> Mask {
        self.test(o, |a, b| a < b)
    }

    /// self ≤ o per lane.
    #[inline(always)]
    pub fn le(self, o: F) -> Mask {
        self.test(o, |a, b| a <= b)
    }

    /// self > o per lane.
    #[inline(always)]
    pub fn gt(self, o: F) -> Mask {
        self.test(o, |a, b| a > b)
    }

    /// self ≥ o per lane. Only the tests use it.
    #[cfg(test)]
    #[inline(always)]
    pub fn ge(self, o: F) -> Mask {
        self.test(o, |a, b| a >= b)
    }

    /// self = o per lane.
    #[inline(always)]
    pub fn equals(self, o: F) -> Mask {
        self.test(o, |a, b| a == b)
    }

    /// self ≠ o per lane.
    #[inline(always)]
    pub fn differs(self, o: F) -> Mask {
        self.test(o, |a, b| a != b)
    }

    /// `a` where the mask is set, `b` elsewhere.
    #[inline(always)]
    pub fn select(m: Mask, a: F, b: F) -> F {
        F(std::array::from_fn(
            |k| if m.0[k] { a.0[k] } else { b.0[k] },
        ))
    }

    /// Runs of four numbers, one per lane, as four lane sets: lane l of set k is number
    /// k of `r[l]`.
    #[inline(always)]
    pub fn from_quads(r: [Quad; LANES]) -> [F; 4] {
        std::array::from_fn(|k| F(std::array::from_fn(|l| r[l].0[k])))
    }

    /// Four lane sets as runs of four numbers, one per lane (the inverse of
    /// [`F::from_quads`]).
    #[inline(always)]
    pub fn to_quads(v: [F; 4]) -> [Quad; LANES] {
        std::array::from_fn(|l| Quad(std::array::from_fn(|k| v[k].0[l])))
    }
}

impl std::ops::Neg for F {
    type Output = F;
    /// −x per lane (−(+0) is −0, as Rust's `-x`).
    #[inline(always)]
    fn neg(self) -> F {
        self.map(|x| -x)
    }
}

macro_rules! lane_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl std::ops::$tr for F {
            type Output = F;
            #[inline(always)]
            fn $f(self, o: F) -> F {
                self.zip(o, |a, b| a $op b)
            }
        }
        impl std::ops::$tr for Quad {
            type Output = Quad;
            #[inline(always)]
            fn $f(self, o: Quad) -> Quad {
                Quad(std::array::from_fn(|k| self.0[k] $op o.0[k]))
            }
        }
    };
}
lane_op!(Add, add, +);
lane_op!(Sub, sub, -);
lane_op!(Mul, mul, *);
lane_op!(Div, div, /);

impl Mask {
    /// `b` in every lane.
    #[inline(always)]
    pub fn splat(b: bool) -> Mask {
        Mask([b; LANES])
    }

    /// The lanes' flags as bits 0–7.
    #[inline(always)]
    pub fn bits(self) -> u32 {
        (0..LANES).map(|k| u32::from(self.0[k]) << k).sum()
    }

    /// Whether lane `k` is set. Only the tests use it.
    #[cfg(test)]
    #[inline(always)]
    pub fn lane(self, k: usize) -> bool {
        self.0[k]
    }

    /// Every lane set.
    #[inline(always)]
    pub fn all(self) -> bool {
        self.0.iter().all(|&b| b)
    }

    /// Some lane set.
    #[inline(always)]
    pub fn any(self) -> bool {
        self.0.iter().any(|&b| b)
    }
}

impl std::ops::BitAnd for Mask {
    type Output = Mask;
    #[inline(always)]
    fn bitand(self, o: Mask) -> Mask {
        Mask(std::array::from_fn(|k| self.0[k] & o.0[k]))
    }
}

impl std::ops::BitOr for Mask {
    type Output = Mask;
    #[inline(always)]
    fn bitor(self, o: Mask) -> Mask {
        Mask(std::array::from_fn(|k| self.0[k] | o.0[k]))
    }
}

impl std::ops::Not for Mask {
    type Output = Mask;
    #[inline(always)]
    fn not(self) -> Mask {
        Mask(self.0.map(|b| !b))
    }
}

impl Quad {
    /// Each number where `m` is greater than `o`'s, `a`, else `b`.
    #[inline(always)]
    pub fn select_gt(self, o: Quad, a: Quad, b: Quad) -> Quad {
        Quad(std::array::from_fn(|k| {
            if self.0[k] > o.0[k] {
                a.0[k]
            } else {
                b.0[k]
            }
        }))
    }

    /// Each of the four numbers three times, in order, as three runs.
    #[inline(always)]
    pub fn triple(self) -> [Quad; 3] {
        let x = self.0;
        [
            Quad([x[0], x[0], x[0], x[1]]),
            Quad([x[1], x[1], x[2], x[2]]),
            Quad([x[2], x[3], x[3], x[3]]),
        ]
    }

    /// (x² + y²) + z² of the first three numbers, in glam's order.
    #[inline(always)]
    pub fn length_squared3(self) -> f64 {
        let x = self.0;
        (x[0] * x[0] + x[1] * x[1]) + x[2] * x[2]
    }

    /// The numbers `x`.
    #[inline(always)]
    pub fn new(x: [f64; 4]) -> Quad {
        Quad(x)
    }

    /// The four numbers at `p`.
    ///
    /// # Safety
    /// `p` must be valid for reading four f64s.
    #[inline(always)]
    pub unsafe fn load(p: *const f64) -> Quad {
        // SAFETY: the caller's promise.
        Quad(unsafe { std::ptr::read_unaligned(p.cast::<[f64; 4]>()) })
    }

    /// A vector's three numbers, then 0.
    #[inline(always)]
    pub fn vector(v: &glam::DVec3) -> Quad {
        Quad([v.x, v.y, v.z, 0.0])
    }

    /// Stores the four numbers at `p`.
    ///
    /// # Safety
    /// `p` must be valid for writing four f64s.
    #[inline(always)]
    pub unsafe fn store(self, p: *mut f64) {
        // SAFETY: the caller's promise.
        unsafe { std::ptr::write_unaligned(p.cast::<[f64; 4]>(), self.0) }
    }

    /// The numbers.
    #[inline(always)]
    pub fn to_array(self) -> [f64; 4] {
        self.0
    }
}
