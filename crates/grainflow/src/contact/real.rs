//! The number types the contact law is written over: one f64 (the scalar law) or a lane set
//! of [`crate::simd::LANES`] f64 ([`F`], the lanes), and a 3-vector of either.
//!
//! Each slot of the law is one function generic over [`Real`]. A branch of the scalar law is
//! written as a [`Real::select`] between both outcomes, which for f64 is the branch itself and
//! for lanes a blend, so that every lane does the scalar law's IEEE operations in its order
//! and gives its bits (Rust never fuses or reorders floating-point operations). Vector
//! operations keep glam's order, so that the scalar law gives glam's bits.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use glam::DVec3;

use crate::simd::{Mask, F};

/// A flag per lane: `bool` for one number, [`Mask`] for a lane set.
pub trait Flags: Copy + BitAnd<Output = Self> + BitOr<Output = Self> + Not<Output = Self> {
    /// `b` in every lane.
    fn splat(b: bool) -> Self;
    /// Every lane set.
    fn all(self) -> bool;
}

/// A number of the contact law: f64, or [`crate::simd::LANES`] of them.
pub trait Real:
    Copy
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The flags of a comparison.
    type Mask: Flags;
    /// `x` in every lane.
    fn splat(x: f64) -> Self;
    /// √x.
    fn sqrt(self) -> Self;
    /// |x|.
    fn abs(self) -> Self;
    /// The smaller, as f64::min.
    fn min(self, o: Self) -> Self;
    /// The larger, as f64::max.
    fn max(self, o: Self) -> Self;
    /// self < o.
    fn lt(self, o: Self) -> Self::Mask;
    /// self ≤ o.
    fn le(self, o: Self) -> Self::Mask;
    /// self > o.
    fn gt(self, o: Self) -> Self::Mask;
    /// self = o.
    fn equals(self, o: Self) -> Self::Mask;
    /// self ≠ o (true where either is NaN).
    fn differs(self, o: Self) -> Self::Mask;
    /// `a` where `m` is set, `b` elsewhere.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
}

impl Flags for bool {
    #[inline(always)]
    fn splat(b: bool) -> bool {
        b
    }
    #[inline(always)]
    fn all(self) -> bool {
        self
    }
}

impl Real for f64 {
    type Mask = bool;
    #[inline(always)]
    fn splat(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    #[inline(always)]
    fn min(self, o: f64) -> f64 {
        f64::min(self, o)
    }
    #[inline(always)]
    fn max(self, o: f64) -> f64 {
        f64::max(self, o)
    }
    #[inline(always)]
    fn lt(self, o: f64) -> bool {
        self < o
    }
    #[inline(always)]
    fn le(self, o: f64) -> bool {
        self <= o
    }
    #[inline(always)]
    fn gt(self, o: f64) -> bool {
        self > o
    }
    #[inline(always)]
    fn equals(self, o: f64) -> bool {
        self == o
    }
    #[inline(always)]
    fn differs(self, o: f64) -> bool {
        self != o
    }
    #[inline(always)]
    fn select(m: bool, a: f64, b: f64) -> f64 {
        if m {
            a
        } else {
            b
        }
    }
}

impl Flags for Mask {
    #[inline(always)]
    fn splat(b: bool) -> Mask {
        Mask::splat(b)
    }
    #[inline(always)]
    fn all(self) -> bool {
        Mask::all(self)
    }
}

impl Real for F {
    type Mask = Mask;
    #[inline(always)]
    fn splat(x: f64) -> F {
        F::splat(x)
    }
    #[inline(always)]
    fn sqrt(self) -> F {
        F::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> F {
        F::abs(self)
    }
    #[inline(always)]
    fn min(self, o: F) -> F {
        F::min(self, o)
    }
    #[inline(always)]
    fn max(self, o: F) -> F {
        F::max(self, o)
    }
    #[inline(always)]
    fn lt(self, o: F) -> Mask {
        F::lt(self, o)
    }
    #[inline(always)]
    fn le(self, o: F) -> Mask {
        F::le(self, o)
    }
    #[inline(always)]
    fn gt(self, o: F) -> Mask {
        F::gt(self, o)
    }
    #[inline(always)]
    fn equals(self, o: F) -> Mask {
        F::equals(self, o)
    }
    #[inline(always)]
    fn differs(self, o: F) -> Mask {
        F::differs(self, o)
    }
    #[inline(always)]
    fn select(m: Mask, a: F, b: F) -> F {
        F::select(m, a, b)
    }
}

/// A 3-vector of [`Real`]s: one vector, or a vector per lane as three lane sets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V3<R> {
    pub x: R,
    pub y: R,
    pub z: R,
}

impl<R: Real> V3<R> {
    /// glam's order: (x x' + y y') + z z'.
    #[inline(always)]
    pub fn dot(self, o: V3<R>) -> R {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// glam's order: (y z' − y' z, z x' − z' x, x y' − x' y).
    #[inline(always)]
    pub fn cross(self, o: V3<R>) -> V3<R> {
        V3 {
            x: self.y * o.z - o.y * self.z,
            y: self.z * o.x - o.z * self.x,
            z: self.x * o.y - o.x * self.y,
        }
    }

    /// `s` times each component, as glam's `f64 * DVec3`.
    #[inline(always)]
    pub fn scale(self, s: R) -> V3<R> {
        V3 {
            x: s * self.x,
            y: s * self.y,
            z: s * self.z,
        }
    }

    /// `a` where the mask is set, `b` elsewhere.
    #[inline(always)]
    pub fn select(m: R::Mask, a: V3<R>, b: V3<R>) -> V3<R> {
        V3 {
            x: R::select(m, a.x, b.x),
            y: R::select(m, a.y, b.y),
            z: R::select(m, a.z, b.z),
        }
    }

    /// Where some component is not zero (as glam's `v != DVec3::ZERO`).
    #[inline(always)]
    pub fn nonzero(self) -> R::Mask {
        let zero = R::default();
        self.x.differs(zero) | self.y.differs(zero) | self.z.differs(zero)
    }
}

impl<R: Real> Add for V3<R> {
    type Output = V3<R>;
    #[inline(always)]
    fn add(self, o: V3<R>) -> V3<R> {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl<R: Real> Sub for V3<R> {
    type Output = V3<R>;
    #[inline(always)]
    fn sub(self, o: V3<R>) -> V3<R> {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl<R: Real> Div<R> for V3<R> {
    type Output = V3<R>;
    /// Each component divided by `s`, as glam's `DVec3 / f64`.
    #[inline(always)]
    fn div(self, s: R) -> V3<R> {
        V3 {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }
}

impl<R: Real> Neg for V3<R> {
    type Output = V3<R>;
    #[inline(always)]
    fn neg(self) -> V3<R> {
        V3 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

impl From<DVec3> for V3<f64> {
    #[inline(always)]
    fn from(v: DVec3) -> V3<f64> {
        V3 {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl From<V3<f64>> for DVec3 {
    #[inline(always)]
    fn from(v: V3<f64>) -> DVec3 {
        DVec3::new(v.x, v.y, v.z)
    }
}
