//! Discs packed between two circles at a chosen packing fraction (seed 004 §II).
//!
//! As the seed prepares its Couette packs: "evaluating the number of grains we expect to fit in
//! the area between the cylinders and attempting to place that many grains without overlap.
//! When overlap occurs (as it will for sufficiently high packing fractions) we relax the
//! position of the grains in the system to minimize the total overlap."
//!
//! 1. Radii are drawn uniformly in [r_min, r_max] until their discs cover the fraction φ of the
//!    annulus π (R_o² − R_i²) as closely as one more disc allows.
//! 2. Largest first, each disc, shrunk so that all of them cover at most half the annulus, is
//!    tried at up to [`ATTEMPTS`] uniform random places where it fits between the circles; if
//!    none is free of overlap it is put at the last place tried.
//! 3. The discs grow back towards their radii in [`GROWTH_STAGES`] equal steps, up to those
//!    covering [`GROWN_FRACTION`] (or φ, if less); after each, overlaps are relaxed with the
//!    correction of 004 eq 1–2 (masses ∝ r²) against each other and the two circles
//!    (`approx_hard/overlap.rs`); at the last step until none exceeds `tol` of a radius;
//!    each move is over-relaxed by [`OVER_RELAXATION`]. Growing in stages keeps every overlap
//!    small, so the relaxation does not lock up in the frustrated states a single relaxation
//!    from random places ends in; should it still lock up ([`MAX_SWEEPS`], as in an annulus
//!    a few discs wide), step 4 takes over from there.
//! 4. Denser packs are compressed from there to full size by hard-disc Monte Carlo with
//!    swaps of radii ([`super::compress`]), free of overlap all the way. Growth and relaxation
//!    alone jam near φ = 0.805 in the Couette cell of `scenes/couette.toml` (below the bulk's
//!    random close packing, φ ≈ 0.84, for the looser layers along the walls), and so does
//!    growth with the overlap energy minimised in between; the compression reaches about
//!    0.865 there. A requested φ above what it reaches is an error naming where it jammed.
//!
//! The achieved fraction differs from φ by the rounding of the count (the seed: about 1 %).

use glam::DVec3;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::compress::compress;
use super::Sphere;
use crate::approx_hard::overlap::{max_overlap, remove_overlaps};
use crate::boundary::Periodic;
use crate::neighbor::NeighborList;
use crate::walls::{Cylinder, Pose, Shape, Side, Surface, Wall};
use crate::{Error, Result};

/// Random places tried per disc before it is placed overlapping.
pub const ATTEMPTS: usize = 200;

/// Largest number of relaxation sweeps before compression takes over.
pub const MAX_SWEEPS: usize = 50_000;

/// Each relaxation move is this multiple of the move of eq 1–2: the discs end a little apart
/// instead of touching, which speeds the relaxation of a dense pack about tenfold (successive
/// over-relaxation); the packing fraction is that of the radii and does not change.
pub const OVER_RELAXATION: f64 = 1.8;

/// Sweeps between checks of the neighbour list (whose skin is the largest radius).
const CHUNK: usize = 20;

/// Fraction covered by the shrunk discs of the first placement, below the random sequential
/// addition limit of discs (0.547), so that placement nearly always finds free room.
const RSA_FRACTION: f64 = 0.5;

/// Stages in which the shrunk discs grow back to their radii.
pub const GROWTH_STAGES: usize = 50;

/// Fraction up to which the discs grow by relaxation (which jams near 0.805 in the Couette
/// cell); denser packs are compressed from it.
pub const GROWN_FRACTION: f64 = 0.80;

/// Overlap relaxed to in the intermediate stages, over the radius.
const STAGE_TOLERANCE: f64 = 1e-4;

/// The annulus to fill and the discs to fill it with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Annulus {
    /// Centre of the circles (m); the discs lie in the plane z = center.z.
    pub center: DVec3,
    /// Inner radius R_i (m).
    pub inner: f64,
    /// Outer radius R_o (m).
    pub outer: f64,
    /// Smallest disc radius (m).
    pub r_min: f64,
    /// Largest disc radius (m).
    pub r_max: f64,
    /// Fraction of the annulus' area to cover (−).
    pub fraction: f64,
}

impl Annulus {
    /// Area of the annulus π (R_o² − R_i²) (m²).
    pub fn area(&self) -> f64 {
        std::f64::consts::PI * (self.outer * self.outer - self.inner * self.inner)
    }

    /// The two circles as walls: a rod of radius R_i and a ring of radius R_o about z.
    fn walls(&self) -> Vec<Wall> {
        let cyl = |radius, side| Wall {
            shape: Shape::Cylinder(Cylinder {
                origin: self.center,
                axis: DVec3::Z,
                radius,
                side,
                length: None,
            }),
            material: 0,
            surface: Surface::Normal,
            motion: Default::default(),
        };
        vec![
            cyl(self.inner, Side::Outside),
            cyl(self.outer, Side::Inside),
        ]
    }

    /// Discs covering the fraction of the annulus, free of overlaps above `tol` of a radius.
    pub fn pack(&self, rng: &mut ChaCha8Rng, tol: f64) -> Result<Vec<Sphere>> {
        let pi = std::f64::consts::PI;
        let target = self.fraction * self.area();
        let mut radii = Vec::new();
        let mut covered = 0.0;
        loop {
            let r = self.r_min + (self.r_max - self.r_min) * rng.random::<f64>();
            let a = pi * r * r;
            if covered + 0.5 * a > target {
                break;
            }
            radii.push(r);
            covered += a;
        }
        radii.sort_by(|a, b| b.total_cmp(a));
        // Placed at radii shrunk to cover at most RSA_FRACTION, then grown back in stages.
        let s0 = (RSA_FRACTION / self.fraction).sqrt().min(1.0);
        let mut pos: Vec<DVec3> = Vec::with_capacity(radii.len());
        for (k, &r) in radii.iter().enumerate() {
            let r = s0 * r;
            let (lo, hi) = ((self.inner + r).powi(2), (self.outer - r).powi(2));
            let mut place = self.center;
            for _ in 0..ATTEMPTS {
                let rho = (lo + (hi - lo) * rng.random::<f64>()).sqrt();
                let th = std::f64::consts::TAU * rng.random::<f64>();
                place = self.center + DVec3::new(rho * th.cos(), rho * th.sin(), 0.0);
                let free = pos[..k]
                    .iter()
                    .zip(&radii)
                    .all(|(x, s)| x.distance_squared(place) >= (r + s0 * s) * (r + s0 * s));
                if free {
                    break;
                }
            }
            pos.push(place);
        }
        let inv_mass: Vec<f64> = radii.iter().map(|r| 1.0 / (r * r)).collect();
        let walls = self.walls();
        let poses = vec![Pose::default(); walls.len()];
        let open = Periodic::default();
        let mut nl = NeighborList::new(self.r_max);
        let mut sweeps = 0;
        // Grown by relaxation up to GROWN_FRACTION, then compressed from the scale `compress_from`.
        let s1 = (GROWN_FRACTION / self.fraction).sqrt().min(1.0);
        let mut compress_from = Some(s1).filter(|&s| s < 1.0);
        let stages = if s0 < s1 { GROWTH_STAGES } else { 0 };
        'growth: for stage in 0..=stages {
            let s = s0 + (s1 - s0) * stage as f64 / stages.max(1) as f64;
            let scaled: Vec<f64> = radii.iter().map(|r| s * r).collect();
            let tol = if stage == stages {
                tol
            } else {
                STAGE_TOLERANCE
            };
            nl.build(&pos, &scaled, &open);
            loop {
                let c = remove_overlaps(
                    &mut pos,
                    &scaled,
                    &inv_mass,
                    &mut nl,
                    &open,
                    &walls,
                    &poses,
                    tol,
                    CHUNK,
                    OVER_RELAXATION,
                );
                sweeps += c.sweeps;
                let stale = nl.needs_rebuild(&pos, DVec3::ZERO);
                if stale {
                    nl.build(&pos, &scaled, &open);
                }
                if c.remaining <= tol && !stale {
                    let (left, _) = max_overlap(&pos, &scaled, &nl, &open, &walls, &poses);
                    if left <= tol {
                        break;
                    }
                }
                if sweeps >= MAX_SWEEPS {
                    compress_from = Some(s);
                    break 'growth;
                }
            }
        }
        if let Some(scale) = compress_from {
            let c = compress(&mut pos, &mut radii, &walls, scale, rng);
            if c.scale < 1.0 {
                return Err(Error::scene(
                    "packing_fraction",
                    format!(
                        "{} discs ({:.4} of the annulus) jam at {:.4} after {} compression sweeps; lower the packing fraction",
                        radii.len(),
                        covered / self.area(),
                        c.scale * c.scale * covered / self.area(),
                        c.sweeps
                    ),
                ));
            }
        }
        Ok(pos
            .into_iter()
            .zip(radii)
            .map(|(pos, radius)| Sphere { pos, radius })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// An annulus of inner and outer radius `inner`, `outer` mean radii, radii uniform in
    /// [0.8, 1.2], to be filled to `fraction`.
    fn annulus(inner: f64, outer: f64, fraction: f64) -> Annulus {
        Annulus {
            center: DVec3::new(0.1, -0.2, 0.3),
            inner,
            outer,
            r_min: 0.8,
            r_max: 1.2,
            fraction,
        }
    }

    /// The discs cover the fraction within one (largest) disc, lie in the plane and overlap
    /// each other (every pair) and the circles by at most `tol` of a radius.
    fn check(a: &Annulus, discs: &[Sphere], tol: f64) {
        let covered: f64 = discs
            .iter()
            .map(|d| std::f64::consts::PI * d.radius.powi(2))
            .sum();
        let disc = std::f64::consts::PI * a.r_max.powi(2) / a.area();
        assert!((covered / a.area() - a.fraction).abs() < disc, "{covered}");
        for (k, d) in discs.iter().enumerate() {
            assert_eq!(d.pos.z, 0.3);
            let rho = (d.pos - a.center).truncate().length();
            assert!(rho >= a.inner + d.radius * (1.0 - tol));
            assert!(rho <= a.outer - d.radius * (1.0 - tol));
            for e in &discs[k + 1..] {
                let gap = d.pos.distance(e.pos) - d.radius - e.radius;
                assert!(gap >= -tol * d.radius.min(e.radius), "{gap}");
            }
        }
    }

    #[test]
    fn dense_pack_covers_the_fraction_without_overlap() {
        let a = annulus(10.0, 24.0, 0.79);
        let discs = a
            .pack(&mut ChaCha8Rng::seed_from_u64(7), 1e-10)
            .expect("packs");
        check(&a, &discs, 1e-10);
    }

    /// Above where growth and relaxation alone jam (0.805 in this cell of the Couette scene's
    /// proportions), by compression.
    #[test]
    fn compressed_pack_covers_a_fraction_above_jamming_without_overlap() {
        let a = annulus(10.0, 24.0, 0.84);
        let discs = a
            .pack(&mut ChaCha8Rng::seed_from_u64(7), 1e-10)
            .expect("packs");
        check(&a, &discs, 1e-10);
    }

    #[test]
    fn compression_repeats_bit_for_bit_and_reports_where_it_jams() {
        let a = annulus(8.0, 16.0, 0.82);
        let pack = || {
            a.pack(&mut ChaCha8Rng::seed_from_u64(3), 1e-10)
                .expect("packs")
        };
        let (first, second) = (pack(), pack());
        check(&a, &first, 1e-10);
        let bits = |d: &[Sphere]| -> Vec<[u64; 4]> {
            d.iter()
                .map(|s| [s.pos.x, s.pos.y, s.pos.z, s.radius].map(f64::to_bits))
                .collect()
        };
        assert_eq!(bits(&first), bits(&second));
        // Hexagonal order (0.907) is out of reach of polydisperse discs between walls.
        let err = annulus(8.0, 16.0, 0.92)
            .pack(&mut ChaCha8Rng::seed_from_u64(3), 1e-10)
            .expect_err("jams");
        match err {
            Error::Scene { field, reason } => {
                assert_eq!(field, "packing_fraction");
                assert!(reason.contains("jam at"), "{reason}");
            }
            other => panic!("{other}"),
        }
    }
}
