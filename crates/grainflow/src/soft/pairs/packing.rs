//! The grains' centres and radii packed as runs of four numbers for the pair loop, with the
//! facts of the particles it needs.

use glam::DVec3;
use rayon::prelude::*;

use super::super::CHUNK;
use crate::particles::Particles;

/// The grains' centres and radii as the pair loop reads them, as runs of four numbers (one
/// aligned load each, for every listed pair), and two facts of the particles it needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packed {
    /// Centre (m) and radius (m).
    pub pos: Vec<Run>,
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
    /// Room for `n` grains.
    pub(in crate::soft) fn resize(&mut self, n: usize) {
        self.pos.resize(n, Run::default());
    }

    /// Notes what `facts` tells of every grain (None: there are none), and that the runs
    /// hold the grains as they are now.
    pub(in crate::soft) fn note(&mut self, facts: Option<Facts>) {
        self.material = facts.and_then(|f| f.material);
        self.fixed = facts.is_some_and(|f| f.fixed);
        self.fresh = true;
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

/// Packs every grain's centre and radius for the pair loop, unless the drift just did.
#[inline(never)]
pub(in crate::soft) fn pack(q: &mut Packed, p: &Particles) {
    if q.fresh && q.pos.len() == p.len() {
        return;
    }
    q.resize(p.len());
    let facts = q
        .pos
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, pos)| {
            let (a, b) = (c * CHUNK, c * CHUNK + pos.len());
            pack_chunk(pos, &p.pos[a..b], &p.radius[a..b]);
            Some(Facts::of(&p.material[a..b], &p.inv_mass[a..b]))
        })
        .reduce(|| None, Facts::both);
    q.note(facts);
}

/// Packs one chunk of grains' centres `x` and radii `r` into runs.
#[inline(always)]
pub(in crate::soft) fn pack_chunk(pos: &mut [Run], x: &[DVec3], r: &[f64]) {
    for ((q, x), &r) in pos.iter_mut().zip(x).zip(r) {
        *q = Run([x.x, x.y, x.z, r]);
    }
}

/// Four numbers that travel together, aligned for one load: a grain's centre and radius,
/// its velocity, or its angular velocity and inverse inertia.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub struct Run(pub [f64; 4]);
