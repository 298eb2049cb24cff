//! Compression of hard discs between walls by Monte Carlo with swaps, up to their full radii.
//!
//! The discs keep their plane and are scaled together: at scale s disc k has radius s r_k and
//! none overlaps another or a wall. Each sweep visits the discs in order and offers each
//!
//! * a displacement in the plane, uniform in a square of half-side Δ, and
//! * an exchange of radii with a uniformly drawn other disc (swap Monte Carlo: Grigera &
//!   Parisi, PRE 63, 045102, 2001; Ninarello, Berthier & Coslovich, PRX 7, 021039, 2017),
//!
//! accepting each when it leaves no overlap (hard discs, Metropolis et al., J. Chem. Phys. 21,
//! 1087, 1953). Between sweeps the radii grow (the compression of Lubachevsky & Stillinger,
//! J. Stat. Phys. 60, 561, 1990, in Monte Carlo sweeps) by [`GROWTH`] of the room left by
//! the (k+1)-th closest contact (pair, or disc and wall), k = N / [`REFERENCE`]. A pack of
//! fewer than [`REFERENCE`] discs thus grows into half the room of its closest contact and
//! stays free of overlap. A larger one, whose closest contact would slow it in proportion to
//! N, grows about as fast per sweep; the k contacts that then overlap are relaxed apart by the
//! correction of 004 eq 1–2 (`remove_overlaps`), and should that not converge within
//! [`RELAX_SWEEPS`] sweeps the pack takes the overlap-free growth instead. (Growing faster
//! than this jams looser: the swaps need sweeps to find the dense arrangements.)
//!
//! The swaps let large discs move into large holes, which displacements cannot do in a dense
//! pack: with radii uniform in [0.8, 1.2] of their mean, an annulus 7 mean diameters wide jams
//! near φ = 0.82 without them and near 0.865 with them.
//!
//! Δ adapts every [`ADAPT`] sweeps towards an acceptance of [`ACCEPTANCE`] of the
//! displacements; compression ends as jammed once s² (the packing fraction over its value at
//! s = 1) rose by less than [`STALL`] of itself in [`WINDOW`] sweeps. All moves are sequential
//! and drawn from one generator: one seed gives one pack, bit for bit.

use glam::DVec3;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::approx_hard::overlap::remove_overlaps;
use crate::boundary::Periodic;
use crate::neighbor::NeighborList;
use crate::walls::{Pose, Surface, Wall};

/// Fraction of the room left by the contact that limits growth, grown into per sweep.
pub const GROWTH: f64 = 0.5;

/// Discs per contact allowed to overlap after a growth step (before relaxation).
pub const REFERENCE: usize = 800;

/// Largest number of relaxation sweeps after a growth step.
pub const RELAX_SWEEPS: usize = 20;

/// Overlap, over the smaller radius, the relaxation after a growth step leaves at most.
const RELAXED: f64 = 1e-9;

/// Sweeps between adaptations of the step Δ.
pub const ADAPT: usize = 10;

/// Acceptance of displacements Δ adapts towards.
pub const ACCEPTANCE: f64 = 0.3;

/// Sweeps over which compression must progress by [`STALL`].
pub const WINDOW: usize = 2000;

/// Least relative growth of s² in [`WINDOW`] sweeps before the pack counts as jammed.
pub const STALL: f64 = 1e-4;

/// Skin of the neighbour list, over the largest radius.
const SKIN: f64 = 0.5;

/// Outcome of a compression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compression {
    /// Scale reached: 1 when the discs reached their full radii.
    pub scale: f64,
    /// Sweeps made.
    pub sweeps: usize,
}

/// Discs at `pos` in a plane z = const with radii s `radius` between `walls` (at rest), and
/// a list of every pair closer than 2 s_build r_max + skin at the last build.
struct Pack<'a> {
    pos: &'a mut [DVec3],
    radius: &'a mut [f64],
    walls: &'a [Wall],
    nl: NeighborList,
    /// Positions at the last build.
    built: Vec<DVec3>,
    /// Scale at the last build.
    built_scale: f64,
    r_max: f64,
}

impl Pack<'_> {
    /// Lists every pair closer than 2 s r_max plus the skin.
    fn build(&mut self, s: f64) {
        let uniform = vec![s * self.r_max; self.pos.len()];
        self.nl.build(self.pos, &uniform, &Periodic::default());
        self.built.copy_from_slice(self.pos);
        self.built_scale = s;
    }

    /// Largest scale at which the list holds every pair that can touch while each disc moves
    /// `reach` (m) more: an unlisted pair was 2 s_build r_max + skin apart at the build.
    fn listed_up_to(&self, reach: f64) -> f64 {
        let moved = self
            .pos
            .iter()
            .zip(&self.built)
            .map(|(x, b)| x.distance_squared(*b))
            .fold(0.0, f64::max)
            .sqrt();
        self.built_scale + (self.nl.skin - 2.0 * (moved + reach)) / (2.0 * self.r_max)
    }

    /// Neighbours of disc k (both halves of its row).
    fn neighbours(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let nl = &self.nl;
        nl.partner[nl.start[k]..nl.start[k + 1]]
            .iter()
            .chain(&nl.links.rev_owner[nl.links.rev_start[k]..nl.links.rev_start[k + 1]])
            .map(|&j| j as usize)
    }

    /// Distance of a centre at `x` from the nearest normal wall (m).
    fn clearance(&self, x: DVec3) -> f64 {
        self.walls
            .iter()
            .filter(|w| w.surface == Surface::Normal)
            .flat_map(|w| w.shape.members())
            .map(|m| m.away(x, f64::INFINITY).1)
            .fold(f64::INFINITY, f64::min)
    }

    /// True when disc k with radius s r at `x` overlaps no wall and no disc but `skip`.
    fn fits(&self, k: usize, x: DVec3, r: f64, skip: usize, s: f64) -> bool {
        self.clearance(x) >= s * r
            && self.neighbours(k).all(|j| {
                let reach = s * (r + self.radius[j]);
                j == skip || x.distance_squared(self.pos[j]) >= reach * reach
            })
    }

    /// One sweep at scale s with step Δ; returns the displacements accepted.
    fn sweep(&mut self, s: f64, delta: f64, rng: &mut ChaCha8Rng) -> usize {
        let n = self.pos.len();
        let mut accepted = 0;
        for i in 0..n {
            let step = DVec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                0.0,
            );
            let x = self.pos[i] + delta * step;
            if self.fits(i, x, self.radius[i], i, s) {
                self.pos[i] = x;
                accepted += 1;
            }
            let j = rng.random_range(0..n);
            let (a, b) = (self.radius[i], self.radius[j]);
            if j != i && self.fits(i, self.pos[i], b, j, s) && self.fits(j, self.pos[j], a, i, s) {
                self.radius.swap(i, j);
            }
        }
        accepted
    }

    /// Scales at which each listed pair, and each disc and its nearest wall, touch.
    fn contacts(&self, out: &mut Vec<f64>) {
        let nl = &self.nl;
        out.clear();
        for i in 0..self.pos.len() {
            out.push(self.clearance(self.pos[i]) / self.radius[i]);
            for &j in &nl.partner[nl.start[i]..nl.start[i + 1]] {
                let j = j as usize;
                out.push(self.pos[i].distance(self.pos[j]) / (self.radius[i] + self.radius[j]));
            }
        }
    }
}

/// Compresses discs free of overlap at scale `scale` towards their full radii (scale 1),
/// exchanging their radii on the way; returns the scale reached (1 unless they jammed).
pub fn compress(
    pos: &mut [DVec3],
    radius: &mut [f64],
    walls: &[Wall],
    scale: f64,
    rng: &mut ChaCha8Rng,
) -> Compression {
    let n = pos.len();
    let r_max = radius.iter().copied().fold(0.0, f64::max);
    let skin = SKIN * r_max;
    let mut p = Pack {
        built: pos.to_vec(),
        pos,
        radius,
        walls,
        nl: NeighborList::new(skin),
        built_scale: scale,
        r_max,
    };
    let poses = vec![Pose::default(); walls.len()];
    let mut touch = Vec::new();
    let mut saved = p.built.clone();
    p.build(scale);
    p.contacts(&mut touch);
    let mut s = touch.iter().copied().fold(scale, f64::min);
    let mut delta = skin / 8.0;
    let (mut accepted, mut sweeps) = (0, 0);
    let mut window_start = s * s;
    let (mut scaled, mut inv_mass) = (vec![0.0; n], vec![0.0; n]);
    while s < 1.0 {
        sweeps += 1;
        accepted += p.sweep(s, delta, rng);
        if sweeps % ADAPT == 0 {
            let rate = accepted as f64 / (ADAPT * n) as f64;
            delta = (delta * (rate / ACCEPTANCE).clamp(0.5, 2.0)).min(skin / 8.0);
            accepted = 0;
        }
        // Moves in the next sweep are at most √2 Δ; rebuild once half the skin is used.
        let reach = std::f64::consts::SQRT_2 * delta;
        if p.listed_up_to(reach) < s + 0.25 * skin / r_max {
            p.build(s);
        }
        let limit = p.listed_up_to(reach).min(1.0);
        p.contacts(&mut touch);
        let room = touch.iter().copied().fold(f64::INFINITY, f64::min);
        let mut next = (s + GROWTH * (room - s)).min(limit);
        let k = n / REFERENCE;
        let grown = if k > 0 {
            let (_, &mut kth, _) = touch.select_nth_unstable_by(k, f64::total_cmp);
            (s + GROWTH * (kth - s)).min(limit)
        } else {
            next
        };
        if grown > next {
            saved.copy_from_slice(p.pos);
            for ((s, w), r) in scaled.iter_mut().zip(&mut inv_mass).zip(p.radius.iter()) {
                (*s, *w) = (grown * r, 1.0 / (r * r));
            }
            let c = remove_overlaps(
                p.pos,
                &scaled,
                &inv_mass,
                &mut p.nl,
                &Periodic::default(),
                walls,
                &poses,
                RELAXED,
                RELAX_SWEEPS,
                1.0,
            );
            if c.remaining <= RELAXED && grown <= p.listed_up_to(reach) {
                p.contacts(&mut touch);
                next = touch.iter().copied().fold(grown, f64::min);
            } else {
                p.pos.copy_from_slice(&saved);
            }
        }
        s = next;
        if sweeps % WINDOW == 0 {
            if s * s < window_start * (1.0 + STALL) {
                break;
            }
            window_start = s * s;
        }
    }
    Compression { scale: s, sweeps }
}
