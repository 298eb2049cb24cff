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
mod avx512;
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
pub use avx512::{Mask, Quad, F};

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx",
    not(target_feature = "avx512f")
))]
mod avx;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx",
    not(target_feature = "avx512f")
))]
pub use avx::{Mask, Quad, F};

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
mod portable;
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
pub use portable::{Mask, Quad, F};

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
