//! Eight f64 lanes and their masks, for laws evaluated eight contacts at a time
//! ([`crate::contact::lanes`]), and runs of four numbers ([`Quad`]) for the pair loop that
//! feeds them.
//!
//! On x86-64 (this repository builds for the processor it is built on, see
//! `.cargo/config.toml`) a lane set is one AVX-512 register where the processor has them,
//! else two AVX registers, every operation one instruction per register; elsewhere it is
//! eight numbers. Each operation is, lane by lane, the IEEE operation the scalar code does
//! (Rust never fuses or reorders floating-point operations), so every form gives the scalar
//! law's bits.

pub use imp::{Mask, Quad, F};

/// Lanes in a set: eight, so that two registers' worth of independent work hide the
/// latency of each operation (square roots, divisions) in the law's long chains.
pub const LANES: usize = 8;

/// Asks the processor to bring the cache line at `p` closer, for the streams the pair loop
/// and the wall pass read a little ahead of where they are. A hint reads nothing and never
/// faults, whatever the address.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it dereferences nothing, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
mod imp {
    use super::LANES;
    use std::arch::x86_64::*;

    /// An AVX-512 or AVX intrinsic: safe here, as this module is compiled only with AVX-512F
    /// enabled (which implies AVX).
    macro_rules! avx {
        ($e:expr) => {
            // SAFETY: the module exists only when the build enables AVX-512F (cfg above), and
            // the intrinsics wrapped take no pointers.
            unsafe { $e }
        };
    }

    /// AVX-512 registers in a lane set.
    const H: usize = LANES / 8;

    /// [`LANES`] f64 lanes: AVX-512 registers of eight.
    #[derive(Clone, Copy)]
    pub struct F([__m512d; H]);

    /// A flag per lane: one AVX-512 mask per register.
    #[derive(Clone, Copy)]
    pub struct Mask([__mmask8; H]);

    /// Four numbers in one AVX register.
    #[derive(Clone, Copy)]
    #[repr(transparent)]
    pub struct Quad(__m256d);

    impl F {
        /// `x` in every lane.
        #[inline(always)]
        pub fn splat(x: f64) -> F {
            F([avx!(_mm512_set1_pd(x)); H])
        }

        /// The lanes `x`.
        #[inline(always)]
        pub fn new(x: [f64; LANES]) -> F {
            // SAFETY: reads the numbers of `x`, eight at a time.
            F(std::array::from_fn(|h| unsafe {
                _mm512_loadu_pd(x.as_ptr().add(8 * h))
            }))
        }

        /// The lanes as numbers.
        #[inline(always)]
        pub fn to_array(self) -> [f64; LANES] {
            let mut a = [0.0; LANES];
            for (h, v) in self.0.iter().enumerate() {
                // SAFETY: writes numbers 8h to 8h + 7 of `a`.
                unsafe { _mm512_storeu_pd(a.as_mut_ptr().add(8 * h), *v) };
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
        fn map(self, f: impl Fn(__m512d) -> __m512d) -> F {
            F(self.0.map(f))
        }

        /// `f` on each register and `o`'s alongside.
        #[inline(always)]
        fn zip(self, o: F, f: impl Fn(__m512d, __m512d) -> __m512d) -> F {
            F(std::array::from_fn(|h| f(self.0[h], o.0[h])))
        }

        /// The comparison `f` of each register with `o`'s alongside.
        #[inline(always)]
        fn test(self, o: F, f: impl Fn(__m512d, __m512d) -> __mmask8) -> Mask {
            Mask(std::array::from_fn(|h| f(self.0[h], o.0[h])))
        }

        /// √x per lane.
        #[inline(always)]
        pub fn sqrt(self) -> F {
            self.map(|a| avx!(_mm512_sqrt_pd(a)))
        }

        /// |x| per lane (the sign bit cleared, as f64::abs).
        #[inline(always)]
        pub fn abs(self) -> F {
            self.map(|a| avx!(_mm512_abs_pd(a)))
        }

        /// The smaller per lane, as f64::min: the other lane where one is NaN. (x86's min
        /// gives its second operand for a NaN or for equal lanes; a NaN in `self` is then
        /// replaced by `o`, as LLVM lowers f64::min.)
        #[inline(always)]
        pub fn min(self, o: F) -> F {
            self.zip(o, |a, b| {
                let m = avx!(_mm512_min_pd(b, a));
                let nan = avx!(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, a));
                avx!(_mm512_mask_blend_pd(nan, m, b))
            })
        }

        /// The larger per lane, as f64::max (see [`F::min`]).
        #[inline(always)]
        pub fn max(self, o: F) -> F {
            self.zip(o, |a, b| {
                let m = avx!(_mm512_max_pd(b, a));
                let nan = avx!(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, a));
                avx!(_mm512_mask_blend_pd(nan, m, b))
            })
        }

        /// self < o per lane.
        #[inline(always)]
        pub fn lt(self, o: F) -> Mask {
            self.test(o, |a, b| avx!(_mm512_cmp_pd_mask::<_CMP_LT_OQ>(a, b)))
        }

        /// self ≤ o per lane.
        #[inline(always)]
        pub fn le(self, o: F) -> Mask {
            self.test(o, |a, b| avx!(_mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, b)))
        }

        /// self > o per lane.
        #[inline(always)]
        pub fn gt(self, o: F) -> Mask {
            self.test(o, |a, b| avx!(_mm512_cmp_pd_mask::<_CMP_GT_OQ>(a, b)))
        }

        /// self ≥ o per lane.
        #[inline(always)]
        pub fn ge(self, o: F) -> Mask {
            self.test(o, |a, b| avx!(_mm512_cmp_pd_mask::<_CMP_GE_OQ>(a, b)))
        }

        /// self = o per lane.
        #[inline(always)]
        pub fn equals(self, o: F) -> Mask {
            self.test(o, |a, b| avx!(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, b)))
        }

        /// self ≠ o per lane (true where either is NaN, as Rust's `!=`).
        #[inline(always)]
        pub fn differs(self, o: F) -> Mask {
            self.test(o, |a, b| avx!(_mm512_cmp_pd_mask::<_CMP_NEQ_UQ>(a, b)))
        }

        /// `a` where the mask is set, `b` elsewhere.
        #[inline(always)]
        pub fn select(m: Mask, a: F, b: F) -> F {
            F(std::array::from_fn(|h| {
                avx!(_mm512_mask_blend_pd(m.0[h], b.0[h], a.0[h]))
            }))
        }

        /// Runs of four numbers, one per lane, as four lane sets: lane l of set k is number
        /// k of `r[l]`.
        #[inline(always)]
        pub fn from_quads(r: [Quad; LANES]) -> [F; 4] {
            let t: [[__m256d; 4]; 2 * H] =
                std::array::from_fn(|q| transpose(std::array::from_fn(|k| r[4 * q + k].0)));
            let join = |a: __m256d, b: __m256d| {
                avx!(_mm512_insertf64x4::<1>(_mm512_castpd256_pd512(a), b))
            };
            std::array::from_fn(|k| F(std::array::from_fn(|h| join(t[2 * h][k], t[2 * h + 1][k]))))
        }

        /// The register, for code written for AVX-512 (the pair loop's overlap test).
        #[cfg(target_feature = "avx512vl")]
        #[inline(always)]
        pub fn raw(self) -> __m512d {
            self.0[0]
        }

        /// The lanes as two AVX registers, for code written for AVX2 (the pair loop's
        /// overlap test, built here for its test only).
        #[cfg(all(target_feature = "avx2", any(test, not(target_feature = "avx512vl"))))]
        #[inline(always)]
        pub fn halves(self) -> [__m256d; 2] {
            [
                avx!(_mm512_castpd512_pd256(self.0[0])),
                avx!(_mm512_extractf64x4_pd::<1>(self.0[0])),
            ]
        }

        /// Four lane sets as runs of four numbers, one per lane (the inverse of
        /// [`F::from_quads`]).
        #[inline(always)]
        pub fn to_quads(v: [F; 4]) -> [Quad; LANES] {
            let half = |f: __m512d, q: usize| {
                if q == 0 {
                    avx!(_mm512_castpd512_pd256(f))
                } else {
                    avx!(_mm512_extractf64x4_pd::<1>(f))
                }
            };
            let t: [[__m256d; 4]; 2 * H] = std::array::from_fn(|q| {
                transpose(std::array::from_fn(|k| half(v[k].0[q / 2], q % 2)))
            });
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
            let sign = avx!(_mm512_set1_epi64(i64::MIN));
            self.map(|a| {
                let bits = avx!(_mm512_xor_si512(_mm512_castpd_si512(a), sign));
                avx!(_mm512_castsi512_pd(bits))
            })
        }
    }

    macro_rules! lane_op {
        ($tr:ident, $f:ident, $wide:ident, $narrow:ident) => {
            impl std::ops::$tr for F {
                type Output = F;
                #[inline(always)]
                fn $f(self, o: F) -> F {
                    self.zip(o, |a, b| avx!($wide(a, b)))
                }
            }
            impl std::ops::$tr for Quad {
                type Output = Quad;
                #[inline(always)]
                fn $f(self, o: Quad) -> Quad {
                    Quad(avx!($narrow(self.0, o.0)))
                }
            }
        };
    }
    lane_op!(Add, add, _mm512_add_pd, _mm256_add_pd);
    lane_op!(Sub, sub, _mm512_sub_pd, _mm256_sub_pd);
    lane_op!(Mul, mul, _mm512_mul_pd, _mm256_mul_pd);
    lane_op!(Div, div, _mm512_div_pd, _mm256_div_pd);

    impl Mask {
        /// `b` in every lane.
        #[inline(always)]
        pub fn splat(b: bool) -> Mask {
            Mask([if b { 0xff } else { 0 }; H])
        }

        /// The lanes' flags as bits, lane l as bit l.
        #[inline(always)]
        pub fn bits(self) -> u32 {
            self.0
                .iter()
                .enumerate()
                .fold(0, |bits, (h, &m)| bits | u32::from(m) << (8 * h))
        }

        /// Whether lane `k` is set.
        #[inline(always)]
        pub fn lane(self, k: usize) -> bool {
            self.bits() >> k & 1 == 1
        }

        /// Every lane set.
        #[inline(always)]
        pub fn all(self) -> bool {
            self.0.iter().all(|&m| m == 0xff)
        }

        /// Some lane set.
        #[inline(always)]
        pub fn any(self) -> bool {
            self.0.iter().any(|&m| m != 0)
        }
    }

    impl std::ops::BitAnd for Mask {
        type Output = Mask;
        #[inline(always)]
        fn bitand(self, o: Mask) -> Mask {
            Mask(std::array::from_fn(|h| self.0[h] & o.0[h]))
        }
    }

    impl std::ops::BitOr for Mask {
        type Output = Mask;
        #[inline(always)]
        fn bitor(self, o: Mask) -> Mask {
            Mask(std::array::from_fn(|h| self.0[h] | o.0[h]))
        }
    }

    impl std::ops::Not for Mask {
        type Output = Mask;
        #[inline(always)]
        fn not(self) -> Mask {
            Mask(self.0.map(|m| !m))
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
}

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx",
    not(target_feature = "avx512f")
))]
mod imp {
    use super::LANES;
    use std::arch::x86_64::*;

    /// An AVX intrinsic: safe here, as this module is compiled only with AVX enabled.
    macro_rules! avx {
        ($e:expr) => {
            // SAFETY: the module exists only when the build enables AVX (cfg above), and the
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

        /// self ≥ o per lane.
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

        /// Whether lane `k` is set.
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
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
mod imp {
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

        /// self ≥ o per lane.
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

        /// Whether lane `k` is set.
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
}

impl std::fmt::Debug for F {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.to_array().fmt(f)
    }
}

impl PartialEq for F {
    /// Lane by lane, as f64's `==`.
    fn eq(&self, o: &F) -> bool {
        self.to_array() == o.to_array()
    }
}

impl std::fmt::Debug for Mask {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let b = self.bits();
        f.debug_list()
            .entries((0..LANES).map(|k| b >> k & 1 == 1))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers that probe the edges: zeros of both signs, infinities, NaN, ties.
    const EDGES: [f64; 8] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.5,
    ];

    #[test]
    fn every_lane_operation_is_the_scalar_operation_bit_for_bit() {
        let bits = |x: f64| x.to_bits();
        for a in EDGES {
            for b in EDGES {
                let (x, y) = (
                    F::new([a, b, a, b, b, a, 2.0, a]),
                    F::new([b, a, 1.0, a, b, 0.0, a, -0.0]),
                );
                let (xs, ys) = (x.to_array(), y.to_array());
                type Op = (fn(F, F) -> F, fn(f64, f64) -> f64);
                let ops: [Op; 7] = [
                    (|x, y| x + y, |x, y| x + y),
                    (|x, y| x - y, |x, y| x - y),
                    (|x, y| x * y, |x, y| x * y),
                    (|x, y| x / y, |x, y| x / y),
                    (F::min, f64::min),
                    (F::max, f64::max),
                    (|x, _| -x.abs().sqrt(), |x, _| -x.abs().sqrt()),
                ];
                for (k, (vector, scalar)) in ops.iter().enumerate() {
                    let v = vector(x, y).to_array();
                    for l in 0..LANES {
                        let s = scalar(xs[l], ys[l]);
                        assert!(
                            bits(v[l]) == bits(s) || v[l].is_nan() && s.is_nan(),
                            "op {k} on {} and {}: {} against {}",
                            xs[l],
                            ys[l],
                            v[l],
                            s
                        );
                    }
                }
                type Cmp = (fn(F, F) -> Mask, fn(f64, f64) -> bool);
                let cmps: [Cmp; 6] = [
                    (F::lt, |x, y| x < y),
                    (F::le, |x, y| x <= y),
                    (F::gt, |x, y| x > y),
                    (F::ge, |x, y| x >= y),
                    (F::equals, |x, y| x == y),
                    (F::differs, |x, y| x != y),
                ];
                for (k, (vector, scalar)) in cmps.iter().enumerate() {
                    let m = vector(x, y);
                    for l in 0..LANES {
                        assert_eq!(m.lane(l), scalar(xs[l], ys[l]), "comparison {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn masks_select_combine_and_count() {
        let a = F::new(std::array::from_fn(|l| l as f64));
        let b = F::splat(-1.0);
        let m = a.gt(F::splat(5.5));
        assert_eq!(m.bits(), 0b1100_0000);
        let chosen = F::select(m, a, b).to_array();
        assert_eq!(chosen, [-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 6.0, 7.0]);
        assert_eq!((!m).bits(), 0b0011_1111);
        assert_eq!((m & a.lt(F::splat(6.5))).bits(), 0b0100_0000);
        assert_eq!((m | a.lt(F::splat(0.5))).bits(), 0b1100_0001);
        assert!(Mask::splat(true).all() && !Mask::splat(false).any() && m.any() && !m.all());
        assert_eq!((-F::splat(0.0)).lane(3).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn quads_turn_into_lanes_and_back() {
        let runs: [[f64; 4]; LANES] =
            std::array::from_fn(|l| std::array::from_fn(|k| (10 * l + k) as f64));
        let lanes = F::from_quads(runs.map(Quad::new));
        for (k, set) in lanes.iter().enumerate() {
            assert_eq!(set.to_array(), std::array::from_fn(|l| (10 * l + k) as f64));
        }
        let q = Quad::new([3.0, -4.0, 12.0, 7.0]);
        assert_eq!(q.length_squared3(), 169.0);
        let picked = q.select_gt(
            Quad::new([0.0; 4]),
            Quad::new([1.0; 4]),
            Quad::new([2.0; 4]),
        );
        assert_eq!(picked.to_array(), [1.0, 2.0, 1.0, 1.0]);
        let [a, b, c] = q.triple().map(Quad::to_array);
        assert_eq!(
            [a, b, c],
            [
                [3.0, 3.0, 3.0, -4.0],
                [-4.0, -4.0, 12.0, 12.0],
                [12.0, 7.0, 7.0, 7.0]
            ]
        );
        let back = F::to_quads(lanes);
        for l in 0..LANES {
            assert_eq!(back[l].to_array(), runs[l]);
            let sum = (back[l] + back[l] - Quad::new(runs[l])).to_array();
            assert_eq!(sum, runs[l]);
        }
    }

    #[test]
    fn a_vector_loads_as_its_three_numbers_then_zero() {
        // The last vector of a slice too: the masked load reads nothing past it.
        let v = [
            glam::DVec3::new(1.5, -0.0, 3.0),
            glam::DVec3::new(-2.0, 5.0, f64::MAX),
        ];
        for x in &v {
            let q = Quad::vector(x).to_array();
            assert_eq!(q.map(f64::to_bits), [x.x, x.y, x.z, 0.0].map(f64::to_bits));
        }
    }
}
