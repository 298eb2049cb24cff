//! The pair loop's overlap test in vector registers, for established contacts
//! ([`Rows::test_established`]): eight listed slots at a time, their centre runs transposed
//! into lanes, the slot-by-slot test's operations lane by lane ([`Rows::test`]: the same
//! lists, bit for bit, which a test checks), and each list's new entries put in front of a
//! register and stored at once, by AVX-512's compress or, with AVX2, by a permutation looked
//! up from the touching lanes. Built for x86-64 with either; other builds take the
//! slot-by-slot test. Each is compiled twice: folding every separation by the minimum image
//! (`FOLD`, where it is the shifts' bits: [`super::Packed::nearest`]), with no branch and no
//! read of the partners or shifts, as before the ghosts; or reading the shifts of the runs
//! whose bits say that a slot may have one.

use super::{Found, History, Rows, Run, Shifts, Slots};
use crate::contact::Slip;
use crate::simd::{prefetch, Quad, F, LANES};

impl Rows<'_> {
    /// [`Rows::test`] for a model the lanes cover, in the widest registers the build has;
    /// `FOLD`: the separations by the minimum image ([`Rows::fold`], which must be there);
    /// `FAR`: asking for the partners ahead ([`Rows::ask_partners`]).
    #[inline(always)]
    pub(super) fn test_established<const FOLD: bool, const FAR: bool>(
        &self,
        slots: Slots,
        history: History,
        first: (usize, Shifts),
        found: &mut Found,
    ) -> (usize, usize) {
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx512f",
            target_feature = "avx512vl"
        ))]
        {
            self.test_avx512::<FOLD, FAR>(slots, history, first, found)
        }
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            not(all(target_feature = "avx512f", target_feature = "avx512vl"))
        ))]
        {
            self.test_avx2::<FOLD, FAR>(slots, history, first, found)
        }
    }
}

impl Rows<'_> {
    /// L, L/2 and −L/2 per axis of the minimum image, when `FOLD` (zeros, unread, else).
    #[inline(always)]
    fn fold_axes<const FOLD: bool>(&self) -> [[f64; 3]; 3] {
        match &self.fold {
            Some(fold) if FOLD => fold.axes(),
            _ => {
                assert!(!FOLD, "a fold for the folding test");
                [[0.0; 3]; 3]
            }
        }
    }

    /// h_i − h_j of the eight owners `i` and partners `j`, taken run by run and then
    /// transposed into lane sets (x, y, z, 0): one transposition for the two.
    ///
    /// # Safety
    /// Every owner names a run of the shifts (the overlap test checks them).
    #[inline(always)]
    unsafe fn shifts(&self, i: &[u32; LANES], j: &[u32; LANES]) -> [F; 4] {
        let last = j.iter().fold(0, |m, &k| m.max(k));
        assert!(
            (last as usize) < self.shift.len(),
            "a listed pair names a particle of the store"
        );
        // SAFETY: the caller's promise, and the partners checked above.
        let at = |k: u32| Quad::new(unsafe { self.shift.get_unchecked(k as usize) }.0);
        F::from_quads(std::array::from_fn(|a| at(i[a]) - at(j[a])))
    }

    /// The runs `v` of the eight grains or ghosts `k` transposed into lane sets: x, y, z and
    /// radius of centres, or x, y, z and 0 of shifts.
    ///
    /// # Safety
    /// Every index in `k` names a run of `v` (the overlap test checks them).
    #[inline(always)]
    unsafe fn lanes_of(v: &[Run], k: &[u32; LANES]) -> [F; 4] {
        // SAFETY: the caller's promise.
        let q: [Quad; LANES] =
            std::array::from_fn(|a| Quad::new(unsafe { v.get_unchecked(k[a] as usize) }.0));
        F::from_quads(q)
    }

    /// Of the `lanes` (bits) of the pairs of grains `i` and `j`, those whose two grains are
    /// both immovable, when some grain is ([`Rows::fixed`]): the scalar law takes them, as in
    /// [`Rows::test`].
    #[inline(always)]
    fn immovable(&self, i: &[u32; LANES], j: &[u32; LANES], mut lanes: u32) -> u32 {
        let mut both = 0;
        if self.fixed {
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                let fixed = |k: u32| self.inv_mass[k as usize] == 0.0;
                both |= u32::from(fixed(i[l]) && fixed(j[l])) << l;
                lanes &= lanes - 1;
            }
        }
        both
    }
}

/// Slots ahead of the overlap test whose partners' centres a far list asks for
/// ([`Rows::ask_partners`]): about the slots the test goes through while memory answers.
const FAR_AHEAD: usize = 160;

/// Slots further ahead than [`AHEAD`] whose histories a far list asks for: the history is
/// a stream of its own, and a step of the test over [`LANES`] slots is short against
/// memory's answer when the stream is not in the caches.
const FAR_HISTORY: usize = 84;

impl Rows<'_> {
    /// Asks for what the pair loop reads of partners when the grains are many more than the
    /// caches hold ([`Rows::far`]), so that memory answers while the loop works: the centres
    /// of the partners of the [`LANES`] slots [`FAR_AHEAD`] after slot `s` of the list, which
    /// the overlap test reads, and the velocities and spins of the partners `j` of the
    /// `touching` lanes (bits) of the slots from `s`, which the contact law's inputs read once
    /// the batch is full; and the slots' crossing indices, which the sums read. A grain's
    /// state is then read where it was asked for, not where the list first names it, far
    /// ahead of the stream of rows.
    #[inline(always)]
    fn ask_partners(&self, s: usize, j: &[u32; LANES], mut touching: u32) {
        if let Some(ahead) = self.partner_grain.get(s + FAR_AHEAD..s + FAR_AHEAD + LANES) {
            for &k in ahead {
                prefetch(self.pos.as_ptr().wrapping_add(k as usize));
            }
        }
        // The list's own streams, further on, for the grains above.
        let on = s + 2 * FAR_AHEAD;
        prefetch(self.partner_grain.as_ptr().wrapping_add(on));
        prefetch(self.owner.as_ptr().wrapping_add(on));
        prefetch(self.cross_slot.as_ptr().wrapping_add(on));
        while touching != 0 {
            let k = j[touching.trailing_zeros() as usize] as usize;
            prefetch(self.vel.as_ptr().wrapping_add(k));
            prefetch(self.omega.as_ptr().wrapping_add(k));
            touching &= touching - 1;
        }
    }
}

/// Asks for the histories of the [`LANES`] slots [`AHEAD`] after slot `k`.
#[inline(always)]
fn ask_ahead(history: &History, k: usize) {
    for a in 0..LANES {
        history.ask_ahead(k + a);
    }
}

/// The `count` owners or partners `v` of the slots from `k` as eight: in place when there
/// are eight, else copied into `tail` (zeros past the run's end, which name grain 0).
#[inline(always)]
fn eight<'a>(v: &'a [u32], k: usize, count: usize, tail: &'a mut [u32; LANES]) -> &'a [u32; LANES] {
    if count == LANES {
        <&[u32; LANES]>::try_from(&v[k..k + LANES]).expect("eight slots")
    } else {
        tail[..count].copy_from_slice(&v[k..k + count]);
        tail
    }
}

/// [`eight`] of the owners and partners' grains, with their `tails`.
#[inline(always)]
fn eights<'a>(
    (owner, grain): (&'a [u32], &'a [u32]),
    k: usize,
    count: usize,
    tails: &'a mut [[u32; LANES]; 2],
) -> (&'a [u32; LANES], &'a [u32; LANES]) {
    let [tail_i, tail_j] = tails;
    (
        eight(owner, k, count, tail_i),
        eight(grain, k, count, tail_j),
    )
}

/// The touching flags of the histories of the `count` slots from `k`, as bits.
#[inline(always)]
fn touched(slip: &[Slip], k: usize, count: usize) -> u32 {
    slip[k..k + count]
        .iter()
        .enumerate()
        .fold(0, |bits, (a, s)| bits | u32::from(s.touching()) << a)
}

/// AVX-512 (F and VL): one register of eight lanes.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512vl"
))]
impl Rows<'_> {
    /// [`Rows::test`] for a model the lanes cover, eight slots at a time in one AVX-512
    /// register, each list's new entries written with one compressed store.
    #[inline(always)]
    pub(super) fn test_avx512<const FOLD: bool, const FAR: bool>(
        &self,
        (owner, partner, grain): Slots,
        history: History,
        (first, shifted): (usize, Shifts),
        found: &mut Found,
    ) -> (usize, usize) {
        use super::ROOM;
        use std::arch::x86_64::*;
        let slip = history.slip;
        let n = slip
            .len()
            .min(owner.len())
            .min(partner.len())
            .min(grain.len());
        let (mut len, mut separated) = (0usize, 0usize);
        // SAFETY (every intrinsic below): the build enables AVX-512F and VL (cfg above); the
        // loads read runs of the store (the overlap test checked every index against it;
        // lanes past the run's end read run 0), the shifts' bits of every slot are there
        // (pair_forces), and every store writes LANES places from len or separated, both
        // ≤ k ≤ BATCH − count, inside ROOM.
        unsafe {
            let axes = self
                .fold_axes::<FOLD>()
                .map(|v| v.map(|x| _mm512_set1_pd(x)));
            let [l, half, neg_half] = axes;
            let zero = _mm512_setzero_pd();
            let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let runs = |v: &[Run], k: &[u32; LANES]| Self::lanes_of(v, k).map(F::raw);
            let ints = |v: &[u32; LANES]| _mm256_loadu_si256(v.as_ptr().cast());
            let (mut tails, mut tail_p) = ([[0u32; LANES]; 2], [0u32; LANES]);
            let mut k = 0;
            while k < n {
                let count = (n - k).min(LANES);
                let valid = ((1u32 << count) - 1) as __mmask8;
                ask_ahead(&history, k + if FAR { FAR_HISTORY } else { 0 });
                let (oi, oj) = eights((owner, grain), k, count, &mut tails);
                let (pi, pj) = (runs(self.pos, oi), runs(self.pos, oj));
                // As Rows::test: (x_k − x_i) − (h_i − h_j), or x_k − x_i where no slot of
                // the run has a shift; when FOLD, as MinimumImage::fold: d − L above L/2,
                // d + L below −L/2.
                let d = [0, 1, 2].map(|c| _mm512_sub_pd(pj[c], pi[c]));
                let d = if FOLD {
                    [0, 1, 2].map(|c| {
                        let below = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(neg_half[c], d[c]);
                        let inner = _mm512_mask_blend_pd(below, d[c], _mm512_add_pd(d[c], l[c]));
                        let above = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(d[c], half[c]);
                        _mm512_mask_blend_pd(above, inner, _mm512_sub_pd(d[c], l[c]))
                    })
                } else if shifted.eight(k) & u32::from(valid) != 0 {
                    let op = eight(partner, k, count, &mut tail_p);
                    let h = self.shifts(oi, op).map(F::raw);
                    [0, 1, 2].map(|c| _mm512_sub_pd(d[c], h[c]))
                } else {
                    d
                };
                let sq = d.map(|d| _mm512_mul_pd(d, d));
                let d2 = _mm512_add_pd(_mm512_add_pd(sq[0], sq[1]), sq[2]);
                let (r_i, r_j) = (pi[3], pj[3]);
                let reach = _mm512_add_pd(r_i, r_j);
                let apart = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(d2, _mm512_mul_pd(reach, reach))
                    | _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(d2, zero);
                let touching = valid & !apart;
                let before = touched(slip, k, count) as __mmask8;
                let gone = valid & apart & before;
                history.ask_forming(k, u32::from(touching & !before));
                if FAR {
                    self.ask_partners(shifted.at + k, oj, u32::from(touching));
                }
                let slot = _mm256_add_epi32(_mm256_set1_epi32((first + k) as i32), lane);
                let put = |v: __m256i, dst: *mut u32, m: __mmask8| {
                    _mm256_storeu_si256(dst.cast(), _mm256_maskz_compress_epi32(m, v))
                };
                put(slot, found.slot.as_mut_ptr().add(len), touching);
                put(ints(oi), found.i.as_mut_ptr().add(len), touching);
                put(ints(oj), found.j.as_mut_ptr().add(len), touching);
                put(slot, found.apart.as_mut_ptr().add(separated), gone);
                let put = |v: __m512d, dst: &mut [f64; ROOM]| {
                    _mm512_storeu_pd(
                        dst.as_mut_ptr().add(len),
                        _mm512_maskz_compress_pd(touching, v),
                    )
                };
                put(d[0], &mut found.dx);
                put(d[1], &mut found.dy);
                put(d[2], &mut found.dz);
                put(d2, &mut found.d2);
                put(r_i, &mut found.r_i);
                put(r_j, &mut found.r_j);
                let scalar = !before | self.immovable(oi, oj, u32::from(touching & before)) as u8;
                let scalar = _mm256_maskz_set1_epi32(scalar, 1);
                let scalar = _mm256_cvtepi32_epi8(_mm256_maskz_compress_epi32(touching, scalar));
                _mm_storel_epi64(found.scalar.as_mut_ptr().add(len).cast(), scalar);
                len += touching.count_ones() as usize;
                separated += gone.count_ones() as usize;
                k += count;
            }
        }
        (len, separated)
    }
}

/// AVX2 (x86-64-v3): two registers of four lanes. Built where AVX-512 is not, and for the test
/// against the slot-by-slot one on every AVX2 build.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    any(
        test,
        not(all(target_feature = "avx512f", target_feature = "avx512vl"))
    )
))]
mod avx2 {
    use super::*;

    /// For each set of lanes (the bits of the index), their 32-bit lanes in order, then zeros:
    /// the permutation that puts a register's chosen lanes in front, AVX2's stand-in for
    /// AVX-512's compress.
    const FRONT: [[i32; 8]; 256] = front::<256, 1>();

    /// [`FRONT`] for four 64-bit lanes, each a pair of 32-bit ones.
    const FRONT64: [[i32; 8]; 16] = front::<16, 2>();

    /// The table of [`FRONT`] for `N` sets of lanes `W` 32-bit lanes wide.
    const fn front<const N: usize, const W: usize>() -> [[i32; 8]; N] {
        let mut t = [[0; 8]; N];
        let mut m = 0;
        while m < N {
            let (mut p, mut s) = (0, 0);
            while s < 8 / W {
                if m >> s & 1 == 1 {
                    let mut w = 0;
                    while w < W {
                        t[m][W * p + w] = (W * s + w) as i32;
                        w += 1;
                    }
                    p += 1;
                }
                s += 1;
            }
            m += 1;
        }
        t
    }

    /// Stores the lanes `touching` of the two registers `v` at `dst`, in order.
    ///
    /// # Safety
    /// `dst` must be valid for writing eight f64s.
    #[inline(always)]
    unsafe fn put_touching(dst: *mut f64, v: [std::arch::x86_64::__m256d; 2], touching: u32) {
        use std::arch::x86_64::*;
        let low = (touching & 0xf).count_ones() as usize;
        for (h, at) in [(0, 0), (1, low)] {
            let m = (touching >> (4 * h) & 0xf) as usize;
            // SAFETY: the build enables AVX2 (cfg above); the table has 16 rows of eight
            // 32-bit lanes, and the caller's promise covers dst + at for four f64s.
            unsafe {
                let order = _mm256_loadu_si256(FRONT64[m].as_ptr().cast());
                let v = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(v[h]), order);
                _mm256_storeu_pd(dst.add(at), _mm256_castsi256_pd(v));
            }
        }
    }

    /// The minimum image of the four separations `d` along an axis of period `l`, half
    /// period `half` and its negative `neg_half`: d − L above L/2, d + L below −L/2.
    ///
    /// # Safety
    /// The build enables AVX2.
    #[inline(always)]
    unsafe fn fold(
        d: std::arch::x86_64::__m256d,
        [l, half, neg_half]: [std::arch::x86_64::__m256d; 3],
    ) -> std::arch::x86_64::__m256d {
        use std::arch::x86_64::*;
        // SAFETY: the caller's promise.
        unsafe {
            let below = _mm256_cmp_pd::<_CMP_GT_OQ>(neg_half, d);
            let inner = _mm256_blendv_pd(d, _mm256_add_pd(d, l), below);
            let above = _mm256_cmp_pd::<_CMP_GT_OQ>(d, half);
            _mm256_blendv_pd(inner, _mm256_sub_pd(d, l), above)
        }
    }

    impl Rows<'_> {
        /// [`Rows::test`] without `GENERAL`, eight slots at a time in AVX2 registers (two of four
        /// lanes): as [`Rows::test_avx512`], with each list's new entries put in front of their
        /// register by a permutation looked up from the touching lanes (AVX2 has no compress).
        #[inline(always)]
        pub(in crate::soft::pairs) fn test_avx2<const FOLD: bool, const FAR: bool>(
            &self,
            (owner, partner, grain): Slots,
            history: History,
            (first, shifted): (usize, Shifts),
            found: &mut Found,
        ) -> (usize, usize) {
            use std::arch::x86_64::*;
            let slip = history.slip;
            let n = slip
                .len()
                .min(owner.len())
                .min(partner.len())
                .min(grain.len());
            let (mut len, mut separated) = (0usize, 0usize);
            // SAFETY (every intrinsic below): the build enables AVX2 and BMI2 (x86-64-v3, cfg
            // above); the loads read runs of the store (the overlap test checked every index
            // against it; lanes past the run's end read run 0), the shifts' bits of every slot
            // are there (pair_forces), and every store writes at most LANES places from len or
            // separated, both ≤ k ≤ BATCH − count, inside ROOM.
            unsafe {
                let axes = self
                    .fold_axes::<FOLD>()
                    .map(|v| v.map(|x| _mm256_set1_pd(x)));
                let [l, half, neg_half] = axes;
                let zero = _mm256_setzero_pd();
                let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                let runs = |v: &[Run], k: &[u32; LANES]| Self::lanes_of(v, k).map(F::halves);
                let ints = |v: &[u32; LANES]| _mm256_loadu_si256(v.as_ptr().cast());
                let (mut tails, mut tail_p) = ([[0u32; LANES]; 2], [0u32; LANES]);
                let mut k = 0;
                while k < n {
                    let count = (n - k).min(LANES);
                    let valid = (1u32 << count) - 1;
                    ask_ahead(&history, k + if FAR { FAR_HISTORY } else { 0 });
                    let (oi, oj) = eights((owner, grain), k, count, &mut tails);
                    let (pi, pj) = (runs(self.pos, oi), runs(self.pos, oj));
                    // As Rows::test: (x_k − x_i) − (h_i − h_j), or x_k − x_i where no slot of
                    // the run has a shift; when FOLD, as MinimumImage::fold.
                    let mut d =
                        [0, 1, 2].map(|c| [0, 1].map(|h| _mm256_sub_pd(pj[c][h], pi[c][h])));
                    if FOLD {
                        d = [0, 1, 2].map(|c| d[c].map(|d| fold(d, [l[c], half[c], neg_half[c]])));
                    } else if shifted.eight(k) & valid != 0 {
                        let op = eight(partner, k, count, &mut tail_p);
                        let shift = self.shifts(oi, op).map(F::halves);
                        for (d, shift) in d.iter_mut().zip(shift) {
                            *d = [0, 1].map(|h| _mm256_sub_pd(d[h], shift[h]));
                        }
                    }
                    let mut apart = 0u32;
                    let mut lists = [[zero; 2]; 6];
                    for h in 0..2 {
                        let d = [0, 1, 2].map(|c| d[c][h]);
                        let sq = d.map(|d| _mm256_mul_pd(d, d));
                        let d2 = _mm256_add_pd(_mm256_add_pd(sq[0], sq[1]), sq[2]);
                        let (r_i, r_j) = (pi[3][h], pj[3][h]);
                        let reach = _mm256_add_pd(r_i, r_j);
                        let far = _mm256_or_pd(
                            _mm256_cmp_pd::<_CMP_GE_OQ>(d2, _mm256_mul_pd(reach, reach)),
                            _mm256_cmp_pd::<_CMP_EQ_OQ>(d2, zero),
                        );
                        apart |= (_mm256_movemask_pd(far) as u32) << (4 * h);
                        for (list, v) in lists.iter_mut().zip([d[0], d[1], d[2], d2, r_i, r_j]) {
                            list[h] = v;
                        }
                    }
                    let touching = valid & !apart;
                    let before = touched(slip, k, count);
                    let gone = valid & apart & before;
                    history.ask_forming(k, touching & !before);
                    if FAR {
                        self.ask_partners(shifted.at + k, oj, touching);
                    }
                    let slot = _mm256_add_epi32(_mm256_set1_epi32((first + k) as i32), lane);
                    let put = |v: __m256i, dst: *mut u32, m: u32| {
                        let order = _mm256_loadu_si256(FRONT[m as usize].as_ptr().cast());
                        _mm256_storeu_si256(dst.cast(), _mm256_permutevar8x32_epi32(v, order))
                    };
                    put(slot, found.slot.as_mut_ptr().add(len), touching);
                    put(ints(oi), found.i.as_mut_ptr().add(len), touching);
                    put(ints(oj), found.j.as_mut_ptr().add(len), touching);
                    put(slot, found.apart.as_mut_ptr().add(separated), gone);
                    let dsts = [
                        &mut found.dx,
                        &mut found.dy,
                        &mut found.dz,
                        &mut found.d2,
                        &mut found.r_i,
                        &mut found.r_j,
                    ];
                    for (dst, v) in dsts.into_iter().zip(lists) {
                        put_touching(dst.as_mut_ptr().add(len), v, touching);
                    }
                    // One byte per touching lane: 1 where the contact forms or both grains are
                    // immovable (scalar law).
                    let scalar = !before | self.immovable(oi, oj, touching & before);
                    let forming = _pext_u32(scalar & valid, touching);
                    let bytes = _pdep_u64(u64::from(forming), 0x0101_0101_0101_0101);
                    let flags = found.scalar.as_mut_ptr().add(len).cast::<u64>();
                    flags.write_unaligned(bytes);
                    len += touching.count_ones() as usize;
                    separated += gone.count_ones() as usize;
                    k += count;
                }
            }
            (len, separated)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::neighbor::BLOCK;

    /// An overlap test over a run of slots ([`Rows::test`]).
    type VectorTest = fn(&Rows, Slots, History, (usize, Shifts), &mut Found) -> (usize, usize);

    #[test]
    fn the_overlap_tests_in_registers_find_what_the_slot_by_slot_one_finds() {
        // The peers' settled bed after a step, with every seventh grain lifted by a fifth of
        // its diameter so that some contacts separated: over every block, runs of BATCH slots
        // and a short run at the end, both tests must list the same touching pairs with the
        // same separations, radii and flags, and the same separated slots, bit for bit; again
        // with two grains in five immovable, whose pairs with each other take the scalar law
        // (S1 is periodic: partners across the faces are ghosts, with shifts). Each test reads
        // every shift, and again only where a slot's bit says that the pair may have one
        // ([`Packed::shifted_slots`]: a ghost partner, or a grain that wrapped since the
        // build); so does the slot-by-slot one; and the vector tests again folding every
        // separation by the minimum image, reading no shift ([`Packed::nearest`]). Three
        // grains are moved across a periodic face first, so that some grains have shifts.
        let toml = include_str!("../../../../../scenes/bench/s1.toml");
        let mut sim = crate::soft::tests::bench_scene(toml, "s1");
        sim.step().expect("stable");
        let (w, physics, s) = crate::soft::tests::parts(&mut sim);
        for x in w.particles.pos.iter_mut().step_by(7) {
            x.z += 2e-4;
        }
        let [lo, hi] = physics.periodic.bounds();
        for k in [100, 7_000, 15_001] {
            let x = &mut w.particles.pos[k];
            x.x = if x.x - lo.x < hi.x - x.x {
                hi.x - 1e-9
            } else {
                lo.x
            };
        }
        s.packed.fresh = false;
        pack(
            &mut s.packed,
            &w.particles,
            &w.neighbors,
            physics.periodic.lengths(),
        );
        let (w, packed) = (&*w, &s.packed);
        let (p, nl) = (&w.particles, &w.neighbors);
        let immovable: Vec<f64> = (0..p.len())
            .map(|k| if k % 5 < 2 { 0.0 } else { p.inv_mass[k] })
            .collect();
        assert!(packed.nearest, "S1's periods are long enough for the fold");
        let (mut a, mut b) = (Box::new(Found::empty()), Box::new(Found::empty()));
        let (mut touching, mut separated, mut scalar) = (0, 0, [0, 0]);
        let every = vec![u8::MAX; packed.shifted_slots.len()];
        let read = |bits: &[u8]| {
            (0..nl.len())
                .filter(|&s| bits[s / 8] >> (s % 8) & 1 == 1)
                .count()
        };
        let (with_shift, with_ghost) = (
            read(&packed.shifted_slots),
            (0..nl.len())
                .filter(|&s| nl.partner[s] as usize >= p.len())
                .count(),
        );
        assert!(
            with_shift > with_ghost && with_shift < nl.len() / 10,
            "{with_shift} slots with a shift, {with_ghost} with a ghost, of {}",
            nl.len()
        );
        for fixed in [false, true] {
            let rows = Rows {
                start: &nl.start,
                owner: &nl.owner,
                partner: &nl.partner,
                partner_grain: &nl.partner_grain,
                cross_slot: &nl.links.cross_slot,
                pos: &packed.pos,
                shift: &packed.shift,
                shifted: &packed.shifted_slots,
                fold: Some(Fold::new(&MinimumImage::new(physics.periodic.lengths()))),
                vel: &p.vel,
                omega: &p.omega,
                radius: &p.radius,
                material: &p.material,
                inv_mass: if fixed { &immovable } else { &p.inv_mass },
                inv_inertia: &p.inv_inertia,
                physics,
                lanes: Lanes::covers(&physics.model, physics.dt),
                per_pair: false,
                constants: PairConstants::ByMaterial,
                fixed,
                far: fixed,
                stiffness: None,
                dt: physics.dt,
            };
            for first in (0..p.len()).step_by(BLOCK) {
                let s0 = nl.start[first];
                let slots = nl.start[(first + BLOCK).min(p.len())] - s0;
                for run in (0..slots)
                    .step_by(BATCH)
                    .map(|k| k..slots.min(k + BATCH - 3))
                {
                    let lists = |r: std::ops::Range<usize>| (s0 + r.start)..(s0 + r.end);
                    let slots = (
                        &nl.owner[lists(run.clone())],
                        &nl.partner[lists(run.clone())],
                        &nl.partner_grain[lists(run.clone())],
                    );
                    let history = History {
                        slip: &nl.slip[lists(run.clone())],
                        formed: &nl.formed[lists(run.clone())],
                        extra: &nl.extra[lists(run.clone())],
                        constants: true,
                    };
                    let shifts = |bits| Shifts {
                        bits,
                        at: s0 + run.start,
                    };
                    let all = (run.start, shifts(&every));
                    let x = if fixed {
                        rows.test::<true>(slots, history, all, &mut a)
                    } else {
                        rows.test::<false>(slots, history, all, &mut a)
                    };
                    // Each test, in registers this build has and slot by slot, reading the
                    // shifts only where needed, against the slot-by-slot one reading them all.
                    let check = |test: VectorTest, b: &mut Found, bits| {
                        let y = test(&rows, slots, history, (run.start, shifts(bits)), b);
                        assert_eq!(x, y, "block from {first}, slots {run:?}");
                        let (len, gone) = x;
                        assert_eq!(a.apart[..gone], b.apart[..gone]);
                        assert_eq!(a.slot[..len], b.slot[..len]);
                        assert_eq!(a.i[..len], b.i[..len]);
                        assert_eq!(a.j[..len], b.j[..len]);
                        assert_eq!(a.scalar[..len], b.scalar[..len]);
                        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        for (u, v) in [
                            (&a.dx, &b.dx),
                            (&a.dy, &b.dy),
                            (&a.dz, &b.dz),
                            (&a.d2, &b.d2),
                            (&a.r_i, &b.r_i),
                            (&a.r_j, &b.r_j),
                        ] {
                            assert_eq!(bits(&u[..len]), bits(&v[..len]));
                        }
                    };
                    // Reading every shift, or where the bits say; and folding by the minimum
                    // image (FOLD), which reads no bit.
                    let none = vec![0; every.len()];
                    let runs = [
                        (false, &every[..]),
                        (false, &packed.shifted_slots),
                        (true, &none),
                    ];
                    for (fold, bits) in runs {
                        #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
                        {
                            let tests: [VectorTest; 2] = [
                                |r, o, s, f, b| r.test_avx512::<false, false>(o, s, f, b),
                                |r, o, s, f, b| r.test_avx512::<true, true>(o, s, f, b),
                            ];
                            check(tests[usize::from(fold)], &mut b, bits);
                        }
                        #[cfg(target_feature = "avx2")]
                        {
                            let tests: [VectorTest; 2] = [
                                |r, o, s, f, b| r.test_avx2::<false, true>(o, s, f, b),
                                |r, o, s, f, b| r.test_avx2::<true, false>(o, s, f, b),
                            ];
                            check(tests[usize::from(fold)], &mut b, bits);
                        }
                    }
                    let bits = &packed.shifted_slots;
                    check(|r, o, s, f, b| r.test::<true>(o, s, f, b), &mut b, bits);
                    let (len, gone) = x;
                    touching += len;
                    separated += gone;
                    scalar[usize::from(fixed)] +=
                        a.scalar[..len].iter().filter(|&&f| f == 1).count();
                }
            }
        }
        assert!(touching > 40_000, "{touching} touching");
        assert!(separated > 2_000, "{separated} separated");
        let [forming, with_immovable] = scalar;
        assert!(forming > 1_000, "{forming} forming");
        assert!(
            with_immovable > forming + 1_000,
            "{with_immovable} for the scalar law"
        );
    }
}
