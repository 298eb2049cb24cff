//! The grains' centres and radii packed as runs of four numbers for the pair loop, with the
//! facts of the particles it needs.

use glam::DVec3;
use rayon::prelude::*;

use super::super::CHUNK;
use crate::ghosts::{periods, Ghosts, Image};
use crate::neighbor::NeighborList;
use crate::particles::Particles;

/// The grains' centres and radii as the pair loop reads them, as runs of four numbers (one
/// aligned load each, for every listed pair), the owned grains' then their ghosts' (copies of
/// their owners'), each with its shift, and two facts of the particles it needs.
///
/// The separation of a listed pair (i, j) is d = (x_j − x_i) − (h_i − h_j), with h the shift
/// of each index: w L for an owned grain that wrapped by w whole periods since the build, and
/// (s + w_k) L for ghost j, image s of grain k. For one wrap or image it is the minimum image
/// to the bit (d − (±L) is d ∓ L), and with no shift d − (+0) keeps every bit of d, −0 included.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packed {
    /// Centre (m) and radius (m): the owned grains, then their ghosts.
    pub pos: Vec<Run>,
    /// Shift (m) of each index of `pos` along x, y, z, then 0.
    pub shift: Vec<Run>,
    /// Per chunk of owned grains ([`CHUNK`]): whether some shift in it is not 0.
    pub(in crate::soft) shifted: Vec<bool>,
    /// The owned grains the runs are for.
    owned: usize,
    /// The neighbour list's build the shifts and ghosts are for.
    built: Option<u64>,
    /// The material of every grain, when they all have the same.
    pub material: Option<u16>,
    /// Whether some grain is immovable (inverse mass 0).
    pub fixed: bool,
    /// Whether the runs hold the grains as they are now: set by the pass that packs them
    /// with the drift, cleared by the pair loop that reads them and by anything that moves
    /// grains in between.
    pub fresh: bool,
}

impl Packed {
    /// Room for the grains and ghosts of list `nl` with `n` owned grains; every shift 0 when
    /// the number of owned grains changed.
    pub(in crate::soft) fn resize(&mut self, n: usize, nl: &NeighborList) {
        let total = n + nl.ghosts.as_ref().map_or(0, |g| g.owner.len());
        if n != self.owned {
            self.shift.clear();
            self.shifted.clear();
            self.owned = n;
        }
        self.pos.resize(total, Run::default());
        self.shift.resize(total, Run::default());
        self.shifted.resize(n.div_ceil(CHUNK), false);
    }

    /// Notes what `facts` tells of every grain (None: there are none), that the runs hold the
    /// grains as they are now and the list's build `built` they are for.
    pub(in crate::soft) fn note(&mut self, facts: Option<Facts>, built: u64) {
        self.material = facts.and_then(|f| f.material);
        self.fixed = facts.is_some_and(|f| f.fixed);
        self.fresh = true;
        self.built = Some(built);
    }
}

/// What [`Packed`] notes of a run of grains, found chunk by chunk with the packing.
#[derive(Clone, Copy, Debug)]
pub(in crate::soft) struct Facts {
    /// The material of every grain of the run, when they all have the same.
    material: Option<u16>,
    /// Whether some grain of the run is immovable (inverse mass 0).
    fixed: bool,
}

impl Facts {
    /// The facts of the grains with materials `material` and inverse masses `inv_mass`, at
    /// least one. Folded without stopping early, so that the compiler can take the grains
    /// eight or more at a time.
    pub(in crate::soft) fn of(material: &[u16], inv_mass: &[f64]) -> Facts {
        let first = material.first().copied();
        Facts {
            material: first.filter(|&m| material.iter().fold(true, |all, &k| all & (k == m))),
            fixed: inv_mass.iter().fold(false, |any, &w| any | (w == 0.0)),
        }
    }

    /// The facts of two runs together (None: a run of no grains).
    pub(in crate::soft) fn both(a: Option<Facts>, b: Option<Facts>) -> Option<Facts> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Facts {
                material: a.material.filter(|&m| b.material == Some(m)),
                fixed: a.fixed | b.fixed,
            }),
            (a, b) => a.or(b),
        }
    }
}

/// Packs every grain's centre and radius for the pair loop with their shifts, and their
/// ghosts', for the list `nl` and periods `period`, unless the drift just did for this build.
#[inline(never)]
pub(in crate::soft) fn pack(q: &mut Packed, p: &Particles, nl: &NeighborList, period: DVec3) {
    if q.fresh && q.built == Some(nl.builds) && q.owned == p.len() {
        return;
    }
    q.resize(p.len(), nl);
    let n = p.len();
    let ghosts = nl.ghosts.is_some();
    let (pos, shift) = (&mut q.pos[..n], &mut q.shift[..n]);
    let facts = pos
        .par_chunks_mut(CHUNK)
        .zip(shift.par_chunks_mut(CHUNK))
        .zip(q.shifted.par_iter_mut())
        .enumerate()
        .map(|(c, ((pos, shift), shifted))| {
            let (a, b) = (c * CHUNK, c * CHUNK + pos.len());
            pack_chunk(pos, &p.pos[a..b], &p.radius[a..b]);
            if ghosts {
                shift_chunk(shift, shifted, &p.pos[a..b], nl.built_at(a..b), period);
            }
            Some(Facts::of(&p.material[a..b], &p.inv_mass[a..b]))
        })
        .reduce(|| None, Facts::both);
    pack_ghosts(q, nl, period);
    q.note(facts, nl.builds);
}

/// Packs one chunk of grains' centres `x` and radii `r` into runs.
#[inline(always)]
pub(in crate::soft) fn pack_chunk(pos: &mut [Run], x: &[DVec3], r: &[f64]) {
    for ((q, x), &r) in pos.iter_mut().zip(x).zip(r) {
        *q = Run([x.x, x.y, x.z, r]);
    }
}

/// The shifts of one chunk of owned grains at `x` that were at `built` at the list's build,
/// for periods `l`: w L for the whole periods w each wrapped by since ([`Ghosts::found_wrap`]),
/// with `shifted`, whether some is not 0. Only a chunk with a grain that moved more than half
/// a period along an axis (so wrapped), or that had a shift, is written.
#[inline(always)]
pub(in crate::soft) fn shift_chunk(
    shift: &mut [Run],
    shifted: &mut bool,
    x: &[DVec3],
    built: &[DVec3],
    l: DVec3,
) {
    let half = DVec3::select(l.cmpeq(DVec3::ZERO), DVec3::INFINITY, 0.5 * l);
    let wrapped = x
        .iter()
        .zip(built)
        .fold(false, |any, (x, b)| any | (*x - *b).abs().cmpgt(half).any());
    if !wrapped && !*shifted {
        return;
    }
    *shifted = wrapped;
    for ((s, x), b) in shift.iter_mut().zip(x).zip(built) {
        let h = periods(Ghosts::found_wrap(*x - *b, l), l);
        *s = Run([h.x, h.y, h.z, 0.0]);
    }
}

/// Each ghost's centre and radius, its owner's, and its shift (s + w_k) L, for the list `nl`
/// and periods `l`, the owners' runs and shifts packed first.
pub(in crate::soft) fn pack_ghosts(q: &mut Packed, nl: &NeighborList, l: DVec3) {
    let Some(g) = &nl.ghosts else {
        return;
    };
    let n = g.n_owned;
    let (own, ghost) = q.pos.split_at_mut(n);
    let (own_shift, ghost_shift) = q.shift.split_at_mut(n);
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
        .zip(ghost_shift.par_iter_mut())
        .zip(g.owner.par_iter().zip(g.image.par_iter()))
        .with_min_len(crate::particles::MIN_LEN)
        .for_each(|((q, h), (&k, s))| {
            let k = k as usize;
            *q = own[k];
            let w = wrap(&own_shift[k]);
            let sh = periods(std::array::from_fn(|a| s[a] + w[a]), l);
            *h = Run([sh.x, sh.y, sh.z, 0.0]);
        });
}

/// Four numbers that travel together, aligned for one load: a grain's centre and radius,
/// its velocity, or its angular velocity and inverse inertia.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub struct Run(pub [f64; 4]);
