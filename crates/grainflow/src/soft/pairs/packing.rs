//! The grains' centres and radii packed as runs of four numbers for the pair loop, with the
//! facts of the particles it needs.

use glam::DVec3;
use rayon::prelude::*;

use super::super::CHUNK;
use crate::ghosts::{periods, Ghosts, Image};
use crate::neighbor::NeighborList;
use crate::particles::Particles;

/// The grains' centres and radii as the pair loop reads them, as runs of four numbers (one
/// aligned load each, for every listed pair), a shift for each grain and ghost, and two facts
/// of the particles it needs.
///
/// The separation of a listed pair (i, j) is d = (x_k − x_i) − (h_i − h_j), with k the grain
/// of j (j itself, or the grain of ghost j) and h the shift of each index: w L for a grain
/// that wrapped by w whole periods since the build, and (s + w_k) L for ghost j, image s of
/// grain k. For one wrap or image it is the minimum image to the bit (d − (±L) is d ∓ L), and
/// with no shift d − (+0) keeps every bit of d, −0 included.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packed {
    /// Centre (m) and radius (m) of each grain.
    pub pos: Vec<Run>,
    /// Shift (m) along x, y, z, then 0, of each grain and then each ghost.
    pub shift: Vec<Run>,
    /// Per chunk of grains ([`CHUNK`]): whether some shift in it is not 0 ...
    pub(in crate::soft) shifted: Vec<bool>,
    /// ... and whether one of its shifts changed at the last packing.
    pub(in crate::soft) rewritten: Vec<bool>,
    /// One bit per slot of the list (eight slots a byte, the first in the lowest bit, and two
    /// bytes to spare): set where the partner is a ghost ...
    ghost_slots: Vec<u8>,
    /// ... and, besides, where the pair names a grain with a shift (as its row or its
    /// partner). A clear bit says that both shifts of the pair are +0, so that its separation
    /// is the plain difference of the centres ([`Shifts`]).
    pub(in crate::soft) shifted_slots: Vec<u8>,
    /// Whether every listed pair is nearer than half a period along each periodic axis, so
    /// that its separation is the minimum image of the plain difference of the centres, to
    /// the bit ([`Packed::nearest_images`]): the pair loop then folds, and reads no shift.
    pub(in crate::soft) nearest: bool,
    /// The neighbour list's build the shifts are for.
    built: Option<u64>,
    /// The material of every grain, when they all have the same.
    pub material: Option<u16>,
    /// Whether every grain has the same radius and inverse mass (bit for bit), when the pair
    /// loop asks ([`super::reads_alike`]): every contact's constants are then those of any
    /// pair of two grains.
    pub alike: bool,
    /// Whether some grain is immovable (inverse mass 0).
    pub fixed: bool,
    /// Whether the runs hold the grains as they are now: set by the pass that packs them
    /// with the drift, cleared by the pair loop that reads them and by anything that moves
    /// grains in between.
    pub fresh: bool,
}

impl Packed {
    /// Room for `n` grains and the ghosts of list `nl`; every shift 0 when the list was built
    /// since the shifts were written.
    pub(in crate::soft) fn resize(&mut self, n: usize, nl: &NeighborList) {
        let total = n + nl.ghosts.as_ref().map_or(0, |g| g.owner.len());
        if self.built != Some(nl.builds) {
            // A fresh block: growing the old one (for more ghosts) would copy it whole.
            self.shift = Vec::new();
            self.shifted.clear();
            super::batch::make_every_threads();
        }
        self.pos.resize(n, Run::default());
        self.shift.resize(total, Run::default());
        self.shifted.resize(n.div_ceil(CHUNK), false);
        self.rewritten.resize(n.div_ceil(CHUNK), false);
    }

    /// Notes what `facts` tells of every grain (None: there are none), that the runs hold the
    /// grains as they are now, and the ghosts' shifts for list `nl` and periods `l` (the
    /// grains' written first).
    pub(in crate::soft) fn note(&mut self, facts: Option<Facts>, nl: &NeighborList, l: DVec3) {
        self.material = facts.and_then(|f| f.material);
        self.alike = facts.is_some_and(|f| f.alike.is_some());
        self.fixed = facts.is_some_and(|f| f.fixed);
        self.fresh = true;
        match &nl.ghosts {
            // A list built for other grains: the rebuild to come packs again.
            Some(g) if g.n_owned != self.pos.len() => {
                self.built = None;
                self.nearest = false;
                return;
            }
            Some(g) => shift_ghosts(self, g, l, self.built != Some(nl.builds)),
            None => {}
        }
        if self.built != Some(nl.builds) {
            self.nearest = self.nearest_images(nl, l);
        }
        self.mark_slots(nl, self.built != Some(nl.builds));
        self.built = Some(nl.builds);
    }

    /// Whether every pair of list `nl` is nearer than half a period `l` along each periodic
    /// axis until the next build, so that the minimum image of x_k − x_i is its separation
    /// (x_k − x_i) − (h_i − h_j), to the bit. At the build a listed pair was nearer than
    /// 2 r_max + skin, and the list is rebuilt before any grain has moved half the skin, so
    /// a pair stays nearer than 2 r_max + 2 skin; with every period longer than twice that,
    /// the pair's whole periods m = s + w_k − w_i are the minimum image's, −1, 0 or 1 (both
    /// centres lie in the box). Then h_i − h_j = (w_i − s − w_k) L is exact (products of L
    /// by −2 … 2, and a difference that is −L, +0 or L), and (x_k − x_i) − (±L) or − (+0)
    /// is the fold's d ∓ L or d. Without ghosts in a periodic box the pairs have no shift.
    fn nearest_images(&self, nl: &NeighborList, l: DVec3) -> bool {
        if nl.ghosts.is_none() && l.cmpne(DVec3::ZERO).any() {
            return false;
        }
        let r_max = self.pos.iter().fold(0.0, |m: f64, r| m.max(r.0[3]));
        let far = 2.0 * (2.0 * r_max + 2.0 * nl.skin);
        l.to_array().iter().all(|&l| l == 0.0 || l > far)
    }

    /// Sets the bits of [`Packed::shifted_slots`] for list `nl`: anew when `built` (a new
    /// list), else only when a shift changed. A grain gets a shift when it wraps across a
    /// periodic face, so the set of grains with one changes a few times between builds, and
    /// it holds few grains: each is marked in its row and where it is a partner (the reverse
    /// rows name the owners).
    fn mark_slots(&mut self, nl: &NeighborList, built: bool) {
        let (n, slots) = (self.pos.len(), nl.partner.len());
        let bytes = slots.div_ceil(8) + 2;
        if built || self.ghost_slots.len() != bytes {
            self.ghost_slots.clear();
            self.ghost_slots.resize(bytes, 0);
            self.ghost_slots[..slots.div_ceil(8)]
                .par_iter_mut()
                .zip(nl.partner.par_chunks(8))
                .with_min_len(crate::particles::MIN_LEN)
                .for_each(|(bits, partners)| {
                    *bits = (partners.iter().enumerate())
                        .fold(0, |m, (l, &p)| m | u8::from(p as usize >= n) << l);
                });
        } else if !self.rewritten.iter().any(|&r| r) {
            return;
        }
        self.shifted_slots.clone_from(&self.ghost_slots);
        let (start, partner) = (&nl.start, &nl.partner);
        let (rev_start, rev_owner) = (&nl.links.rev_start, &nl.links.rev_owner);
        let mut mark = |s: usize| self.shifted_slots[s / 8] |= 1 << (s % 8);
        let chunks = self.shifted.iter().enumerate().filter(|(_, &s)| s);
        for (c, _) in chunks {
            let grains = c * CHUNK..((c + 1) * CHUNK).min(n);
            let shifted = grains.filter(|&k| self.shift[k].0.iter().any(|h| h.to_bits() != 0));
            for k in shifted {
                (start[k]..start[k + 1]).for_each(&mut mark);
                for &o in &rev_owner[rev_start[k]..rev_start[k + 1]] {
                    let row = start[o as usize]..start[o as usize + 1];
                    row.filter(|&s| partner[s] as usize == k)
                        .for_each(&mut mark);
                }
            }
        }
    }
}

/// The bits of [`Packed::shifted_slots`] as the overlap test reads them: the run of slots
/// from `at` on (numbered in the list).
#[derive(Clone, Copy)]
pub(in crate::soft) struct Shifts<'a> {
    pub(in crate::soft) bits: &'a [u8],
    pub(in crate::soft) at: usize,
}

impl Shifts<'_> {
    /// The bits of the eight slots from `at + k`, the first in the lowest bit.
    ///
    /// # Safety
    /// `bits` holds the bits of slot `at + k + 7`, and one byte more.
    #[inline(always)]
    pub(in crate::soft) unsafe fn eight(&self, k: usize) -> u32 {
        let s = self.at + k;
        // SAFETY: the caller's promise.
        let (a, b) = unsafe {
            (
                *self.bits.get_unchecked(s / 8),
                *self.bits.get_unchecked(s / 8 + 1),
            )
        };
        u32::from(u16::from_le_bytes([a, b]) >> (s % 8)) & 0xff
    }

    /// Whether the pair of slot `at + k` may have a shift (its bit).
    #[inline(always)]
    pub(in crate::soft) fn one(&self, k: usize) -> bool {
        let s = self.at + k;
        self.bits[s / 8] >> (s % 8) & 1 == 1
    }
}

/// What [`Packed`] notes of a run of grains, found chunk by chunk with the packing.
#[derive(Clone, Copy, Debug)]
pub(in crate::soft) struct Facts {
    /// The material of every grain of the run, when they all have the same.
    material: Option<u16>,
    /// The radius and inverse mass of every grain of the run, when they all have the same.
    alike: Option<[f64; 2]>,
    /// Whether some grain of the run is immovable (inverse mass 0).
    fixed: bool,
}

impl Facts {
    /// The facts of the grains with materials `material`, inverse masses `inv_mass` and
    /// radii `radius`, at least one; whether they are alike only when `radius` is given (the
    /// pair loop asks: [`super::reads_alike`]). Folded without stopping early, so that the
    /// compiler can take the grains eight or more at a time.
    pub(in crate::soft) fn of(material: &[u16], inv_mass: &[f64], radius: Option<&[f64]>) -> Facts {
        let first = material.first().copied();
        let same = |v: &[f64], x: f64| {
            v.iter()
                .fold(true, |all, y| all & (y.to_bits() == x.to_bits()))
        };
        let alike = match (radius, inv_mass.first()) {
            (Some(radius), Some(&w)) => {
                let r = radius.first().copied().unwrap_or(0.0);
                (same(radius, r) && same(inv_mass, w)).then_some([r, w])
            }
            _ => None,
        };
        Facts {
            material: first.filter(|&m| material.iter().fold(true, |all, &k| all & (k == m))),
            alike,
            fixed: inv_mass.iter().fold(false, |any, &w| any | (w == 0.0)),
        }
    }

    /// The facts of two runs together (None: a run of no grains).
    pub(in crate::soft) fn both(a: Option<Facts>, b: Option<Facts>) -> Option<Facts> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Facts {
                material: a.material.filter(|&m| b.material == Some(m)),
                alike: a
                    .alike
                    .filter(|x| b.alike.map(|y| y.map(f64::to_bits)) == Some(x.map(f64::to_bits))),
                fixed: a.fixed | b.fixed,
            }),
            (a, b) => a.or(b),
        }
    }
}

/// Packs every grain's centre and radius for the pair loop with their shifts, and the ghosts'
/// shifts, for the list `nl` and periods `period`, unless the drift just did for this build.
/// When the drift packed the grains and the list was rebuilt since, only the shifts are
/// written: the grains have not moved, and each is where the list was built, so every
/// grain's shift is 0 and the ghosts' are their images'.
#[inline(never)]
pub(in crate::soft) fn pack(q: &mut Packed, p: &Particles, nl: &NeighborList, period: DVec3) {
    if q.fresh && q.pos.len() == p.len() {
        if q.built != Some(nl.builds) {
            q.resize(p.len(), nl);
            q.rewritten.fill(false);
            let (facts, alike) = (
                Facts {
                    material: q.material,
                    alike: None,
                    fixed: q.fixed,
                },
                q.alike,
            );
            q.note(Some(facts), nl, period);
            q.alike = alike;
        }
        return;
    }
    q.resize(p.len(), nl);
    let ghosts = nl.ghosts.is_some();
    let n = p.len();
    let facts = q
        .pos
        .par_chunks_mut(CHUNK)
        .zip(q.shift[..n].par_chunks_mut(CHUNK))
        .zip(q.shifted.par_iter_mut().zip(q.rewritten.par_iter_mut()))
        .enumerate()
        .map(|(c, ((pos, shift), flags))| {
            let (a, b) = (c * CHUNK, c * CHUNK + pos.len());
            pack_chunk(pos, &p.pos[a..b], &p.radius[a..b]);
            if ghosts {
                let (x, built) = (&p.pos[a..b], nl.built_at(a..b));
                shift_chunk(shift, flags, x, built, period, true);
            }
            Some(Facts::of(
                &p.material[a..b],
                &p.inv_mass[a..b],
                Some(&p.radius[a..b]),
            ))
        })
        .reduce(|| None, Facts::both);
    q.note(facts, nl, period);
}

/// Packs one chunk of grains' centres `x` and radii `r` into runs.
#[inline(always)]
pub(in crate::soft) fn pack_chunk(pos: &mut [Run], x: &[DVec3], r: &[f64]) {
    for ((q, x), &r) in pos.iter_mut().zip(x).zip(r) {
        *q = Run([x.x, x.y, x.z, r]);
    }
}

/// The shifts of one chunk of grains at `x` that were at `built` at the list's build, for
/// periods `l`: w L for the whole periods w each wrapped by since ([`Ghosts::found_wrap`]).
/// `flags` are the chunk's [`Packed::shifted`] and [`Packed::rewritten`] (whether a shift
/// changed). Written only when `moved` (some grain of the chunk may have wrapped: its plain
/// move passed half the skin) and some grain did, or the chunk had a shift.
#[inline(always)]
pub(in crate::soft) fn shift_chunk(
    shift: &mut [Run],
    (shifted, rewritten): (&mut bool, &mut bool),
    x: &[DVec3],
    built: &[DVec3],
    l: DVec3,
    moved: bool,
) {
    let half = DVec3::select(l.cmpeq(DVec3::ZERO), DVec3::INFINITY, 0.5 * l);
    let wrapped = moved
        && x.iter()
            .zip(built)
            .any(|(x, b)| (*x - *b).abs().cmpgt(half).any());
    if !(wrapped || *shifted) {
        *rewritten = false;
        return;
    }
    *shifted = wrapped;
    let mut changed = false;
    for ((s, x), b) in shift.iter_mut().zip(x).zip(built) {
        let h = periods(Ghosts::found_wrap(*x - *b, l), l);
        let h = Run([h.x, h.y, h.z, 0.0]);
        changed |= *s != h;
        *s = h;
    }
    *rewritten = changed;
}

/// Each ghost's shift (s + w_k) L for ghosts `g` and periods `l`, from its grain's: of every
/// ghost when `all`, else of those whose grain's chunk had a shift change.
fn shift_ghosts(q: &mut Packed, g: &Ghosts, l: DVec3, all: bool) {
    if !all && !q.rewritten.iter().any(|&r| r) {
        return;
    }
    let (own, ghost) = q.shift.split_at_mut(g.n_owned);
    let rewritten = &q.rewritten;
    let wrap = |h: &Run| -> Image {
        std::array::from_fn(|a| {
            if l[a] > 0.0 {
                (h.0[a] / l[a]).round() as i32
            } else {
                0
            }
        })
    };
    ghost
        .par_iter_mut()
        .zip(g.owner.par_iter().zip(g.image.par_iter()))
        .with_min_len(crate::particles::MIN_LEN)
        .filter(|(_, (&k, _))| all || rewritten[k as usize / CHUNK])
        .for_each(|(h, (&k, s))| {
            let w = wrap(&own[k as usize]);
            let sh = periods(std::array::from_fn(|a| s[a] + w[a]), l);
            *h = Run([sh.x, sh.y, sh.z, 0.0]);
        });
}

/// Four numbers that travel together, aligned for one load: a grain's centre and radius,
/// its velocity, or its angular velocity and inverse inertia.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub struct Run(pub [f64; 4]);
