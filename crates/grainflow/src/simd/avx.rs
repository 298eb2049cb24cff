//! The lanes as AVX registers of four, for processors with AVX but not AVX-512F.

use super::LANES;
use std::arch::x86_64::*;

/// An AVX intrinsic: safe here, as this module is compiled only with AVX enabled.
macro_rules! avx {
    ($e:expr) => {
        // SAFETY: the module exists only when the build enables AVX (its cfg in mod.rs), and the
        // intrinsics wrapped take no pointers.
        unsafe { $e }
    };
}

/// AVX registers in a lane set.
const H: usize = LANES / 4;

/// [`LANES`] f64 lanes: AVX registers of four, whose operations the processor overlaps.
#[derive(Clone, Copy)]
pub struct F([__m256d; H]);

/// A flag per lane: all bits set or clear in each f64 lane.
#[derive(Clone, Copy)]
pub struct Mask([__m256d; H]);

/// Four numbers in one AVX register.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Quad(__m256d);

impl F {
    /// `x` in every lane.
    #[inline(always)]
    pub fn splat(x: f64) -> F {
        F([avx!(_mm256_set1_pd(x)); H])
    }

    /// The lanes `x`.
    #[inline(always)]
    pub fn new(x: [f64; LANES]) -> F {
        // SAFETY: reads the numbers of `x`, four at a time.
        F(std::array::from_fn(|h| unsafe {
            _mm256_loadu_pd(x.as_ptr().add(4 * h))
        }))
    }

    /// The lanes as numbers.
    #[inline(always)]
    pub fn to_array(self) -> [f64; LANES] {
        let mut a = [0.0; LANES];
        for (h, v) in self.0.iter().enumerate() {
            // SAFETY: writes numbers 4h to 4h + 3 of `a`.
            unsafe { _mm256_storeu_pd(a.as_mut_ptr().add(4 * h), *v) };
        }
        a
    }

    /// Lane `k`.
    #[inline(always)]
    pub fn lane(self, k: usize) -> f64 {
        self.to_array()[k]
    }

    /// `f` on each register.
    #[inline(always)]
    fn map(self, f: impl Fn(__m256d) -> __m256d) -> F {
        F(self.0.map(f))
    }

    /// `f` on each register and `o`'s alongside.
    #[inline(always)]
    fn zip(self, o: F, f: impl Fn(__m256d, __m256d) -> __m256d) -> F {
        F(std::array::from_fn(|h| f(self.0[h], o.0[h])))
    }

    /// The comparison `f` of each register with `o`'s alongside.
    #[inline(always)]
    fn test(self, o: F, f: impl Fn(__m256d, __m256d) -> __m256d) -> Mask {
        Mask(std::array::from_fn(|h| f(self.0[h], o.0[h])))
    }

    /// √x per lane.
    #[inline(always)]
    pub fn sqrt(self) -> F {
        self.map(|a| avx!(_mm256_sqrt_pd(a)))
    }

    /// |x| per lane (the sign bit cleared, as f64::abs).
    #[inline(always)]
    pub fn abs(self) -> F {
        self.map(|a| avx!(_mm256_andnot_pd(_mm256_set1_pd(-0.0), a)))
    }

    /// The smaller per lane, as f64::min: the other lane where one is NaN. (x86's min
    /// gives its second operand for a NaN or for equal lanes; a NaN in `self` is then
    /// replaced by `o`, as LLVM lowers f64::min.)
    #[inline(always)]
    pub fn min(self, o: F) -> F {
        self.zip(o, |a, b| {
            let m = avx!(_mm256_min_pd(b, a));
            let nan = avx!(_mm256_cmp_pd::<_CMP_UNORD_Q>(a, a));
            avx!(_mm256_blendv_pd(m, b, nan))
        })
    }

    /// The larger per lane, as f64::max (see [`F::min`]).
    #[inline(always)]
    pub fn max(self, o: F) -> F {
        self.zip(o, |a, b| {
            let m = avx!(_mm256_max_pd(b, a));
            let nan = avx!(_mm256_cmp_pd::<_CMP_UNORD_Q>(a, a));
            avx!(_mm256_blendv_pd(m, b, nan))
        })
    }

    /// self < o per lane.
    #[inline(always)]
    pub fn lt(self, o: F) -> Mask {
        self.test(o, |a, b| avx!(_mm256_cmp_pd::<_CMP_LT_OQ>(a, b)))
    }

    /// self ≤ o per lane.
    #[inline(always)]
    pub fn le(self, o: F) -> Mask {
        self.test(o, |a, b| avx!(_mm256_cmp_pd::<_CMP_LE_OQ>(a, b)))
    }

    /// self > o per lane.
    #[inline(always)]
    pub fn gt(self, o: F) -> Mask {
        self.test(o, |a, b| avx!(_mm256_cmp_pd::<_CMP_GT_OQ>(a, b)))
    }

    /// self ≥ o per lane. Only the tests use it.
    #[cfg(test)]
    #[inline(always)]
    pub fn ge(self, o: F) -> Mask {
        self.test(o, |a, b| avx!(_mm256_cmp_pd::<_CMP_GE_OQ>(a, b)))
    }

    /// self = o per lane.
    #[inline(always)]
    pub fn equals(self, o: F) -> Mask {
        self.test(o, |a, b| avx!(_mm256_cmp_pd::<_CMP_EQ_OQ>(a, b)))
    }

    /// self ≠ o per lane (true where either is NaN, as Rust's `!=`).
    #[inline(always)]
    pub fn differs(self, o: F) -> Mask {
        self.test(o, |a, b| avx!(_mm256_cmp_pd::<_CMP_NEQ_UQ>(a, b)))
    }

    /// `a` where the mask is set, `b` elsewhere.
    #[inline(always)]
    pub fn select(m: Mask, a: F, b: F) -> F {
        F(std::array::from_fn(|h| {
            avx!(_mm256_blendv_pd(b.0[h], a.0[h], m.0[h]))
        }))
    }

    /// The lanes as two AVX registers, for code written for AVX2 (the pair loop's
    /// overlap test).
    #[cfg(target_feature = "avx2")]
    #[inline(always)]
    pub fn halves(self) -> [__m256d; 2] {
        self.0
    }

    /// Runs of four numbers, one per lane, as four lane sets: lane l of set k is number
    /// k of `r[l]`.
    #[inline(always)]
    pub fn from_quads(r: [Quad; LANES]) -> [F; 4] {
        let t: [[__m256d; 4]; H] =
            std::array::from_fn(|h| transpose(std::array::from_fn(|k| r[4 * h + k].0)));
        std::array::from_fn(|k| F(std::array::from_fn(|h| t[h][k])))
    }

    /// Four lane sets as runs of four numbers, one per lane (the inverse of
    /// [`F::from_quads`]).
    #[inline(always)]
    pub fn to_quads(v: [F; 4]) -> [Quad; LANES] {
        let t: [[__m256d; 4]; H] =
            std::array::from_fn(|h| transpose(std::array::from_fn(|k| v[k].0[h])));
        std::array::from_fn(|l| Quad(t[l / 4][l % 4]))
    }
}

/// The 4 × 4 transpose in four unpacks and four lane permutes.
#[inline(always)]
fn transpose(r: [__m256d; 4]) -> [__m256d; 4] {
    let t0 = avx!(_mm256_unpacklo_pd(r[0], r[1]));
    let t1 = avx!(_mm256_unpackhi_pd(r[0], r[1]));
    let t2 = avx!(_mm256_unpacklo_pd(r[2], r[3]));
    let t3 = avx!(_mm256_unpackhi_pd(r[2], r[3]));
    [
        avx!(_mm256_permute2f128_pd::<0x20>(t0, t2)),
        avx!(_mm256_permute2f128_pd::<0x20>(t1, t3)),
        avx!(_mm256_permute2f128_pd::<0x31>(t0, t2)),
        avx!(_mm256_permute2f128_pd::<0x31>(t1, t3)),
    ]
}

impl Default for F {
    fn default() -> F {
        F::splat(0.0)
    }
}

impl std::ops::Neg for F {
    type Output = F;
    /// −x per lane (the sign bit flipped, as Rust's `-x`: −(+0) is −0).
    #[inline(always)]
    fn neg(self) -> F {
        self.map(|a| avx!(_mm256_xor_pd(a, _mm256_set1_pd(-0.0))))
    }
}

macro_rules! lane_op {
    ($tr:ident, $f:ident, $op:ident) => {
        impl std::ops::$tr for F {
            type Output = F;
            #[inline(always)]
            fn $f(self, o: F) -> F {
                self.zip(o, |a, b| avx!($op(a, b)))
            }
        }
        impl std::ops::$tr for Quad {
            type Output = Quad;
            #[inline(always)]
            fn $f(self, o: Quad) -> Quad {
                Quad(avx!($op(self.0, o.0)))
            }
        }
    };
}
lane_op!(Add, add, _mm256_add_pd);
lane_op!(Sub, sub, _mm256_sub_pd);
lane_op!(Mul, mul, _mm256_mul_pd);
lane_op!(Div, div, _mm256_div_pd);

impl Mask {
    /// `b` in every lane.
    #[inline(always)]
    pub fn splat(b: bool) -> Mask {
        Mask([avx!(_mm256_castsi256_pd(_mm256_set1_epi64x(-i64::from(b)))); H])
    }

    /// The lanes' flags as bits, lane l as bit l.
    #[inline(always)]
    pub fn bits(self) -> u32 {
        self.0.iter().enumerate().fold(0, |bits, (h, &m)| {
            bits | (avx!(_mm256_movemask_pd(m)) as u32) << (4 * h)
        })
    }

    /// Whether lane `k` is set. Only the tests use it.
    #[cfg(test)]
    #[inline(always)]
    pub fn lane(self, k: usize) -> bool {
        self.bits() >> k & 1 == 1
    }

    /// Every lane set.
    #[inline(always)]
    pub fn all(self) -> bool {
        self.bits() == u32::MAX >> (32 - LANES)
    }

    /// Some lane set.
    #[inline(always)]
    pub fn any(self) -> bool {
        self.bits() != 0
    }
}

impl std::ops::BitAnd for Mask {
    type Output = Mask;
    #[inline(always)]
    fn bitand(self, o: Mask) -> Mask {
        Mask(std::array::from_fn(|h| {
            avx!(_mm256_and_pd(self.0[h], o.0[h]))
        }))
    }
}

impl std::ops::BitOr for Mask {
    type Output = Mask;
    #[inline(always)]
    fn bitor(self, o: Mask) -> Mask {
        Mask(std::array::from_fn(|h| {
            avx!(_mm256_or_pd(self.0[h], o.0[h]))
        }))
    }
}

impl std::ops::Not for Mask {
    type Output = Mask;
    #[inline(always)]
    fn not(self) -> Mask {
        let ones = avx!(_mm256_castsi256_pd(_mm256_set1_epi64x(-1)));
        Mask(self.0.map(|m| avx!(_mm256_xor_pd(m, ones))))
    }
}

impl Quad {
    /// Each number where `m` is greater than `o`'s, `a`, else `b`: the fold of a separation
    /// into its minimum image takes two of these.
    #[inline(always)]
    pub fn select_gt(self, o: Quad, a: Quad, b: Quad) -> Quad {
        let m = avx!(_mm256_cmp_pd::<_CMP_GT_OQ>(self.0, o.0));
        Quad(avx!(_mm256_blendv_pd(b.0, a.0, m)))
    }

    /// Each of the four numbers three times, in order, as three runs: the factors of four
    /// grains' three components.
    #[inline(always)]
    pub fn triple(self) -> [Quad; 3] {
        [
            Quad(avx!(_mm256_permute4x64_pd::<0b01_00_00_00>(self.0))),
            Quad(avx!(_mm256_permute4x64_pd::<0b10_10_01_01>(self.0))),
            Quad(avx!(_mm256_permute4x64_pd::<0b11_11_11_10>(self.0))),
        ]
    }

    /// (x² + y²) + z² of the first three numbers, in glam's order.
    #[inline(always)]
    pub fn length_squared3(self) -> f64 {
        let sq = avx!(_mm256_mul_pd(self.0, self.0));
        let xy = avx!(_mm256_castpd256_pd128(sq));
        let xy = avx!(_mm_add_sd(xy, _mm_unpackhi_pd(xy, xy)));
        avx!(_mm_cvtsd_f64(_mm_add_sd(
            xy,
            _mm256_extractf128_pd::<1>(sq)
        )))
    }

    /// The numbers `x`.
    #[inline(always)]
    pub fn new(x: [f64; 4]) -> Quad {
        // SAFETY: reads the four numbers of `x`.
        Quad(unsafe { _mm256_loadu_pd(x.as_ptr()) })
    }

    /// The four numbers at `p` (no alignment needed).
    ///
    /// # Safety
    /// `p` must be valid for reading four f64s.
    #[inline(always)]
    pub unsafe fn load(p: *const f64) -> Quad {
        // SAFETY: the caller's promise.
        Quad(unsafe { _mm256_loadu_pd(p) })
    }

    /// A vector's three numbers, then 0: one masked load, which reads nothing past `v`.
    #[inline(always)]
    pub fn vector(v: &glam::DVec3) -> Quad {
        let mask = avx!(_mm256_set_epi64x(0, -1, -1, -1));
        // SAFETY: the mask reads the three numbers of `v` alone (a masked-out lane is
        // neither read nor faults).
        Quad(unsafe { _mm256_maskload_pd((v as *const glam::DVec3).cast::<f64>(), mask) })
    }

    /// Stores the four numbers at `p` (no alignment needed).
    ///
    /// # Safety
    /// `p` must be valid for writing four f64s.
    #[inline(always)]
    pub unsafe fn store(self, p: *mut f64) {
        // SAFETY: the caller's promise.
        unsafe { _mm256_storeu_pd(p, self.0) }
    }

    /// The numbers.
    #[inline(always)]
    pub fn to_array(self) -> [f64; 4] {
        let mut a = [0.0; 4];
        // SAFETY: writes the four numbers of `a`.
        unsafe { _mm256_storeu_pd(a.as_mut_ptr(), self.0) };
        a
    }
}

impl Default for Quad {
    fn default() -> Quad {
        Quad(avx!(_mm256_setzero_pd()))
    }
}
