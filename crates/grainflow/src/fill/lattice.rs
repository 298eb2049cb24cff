//! Regular lattice filling of a box: simple cubic or hexagonal close packed (HCP).
//!
//! The HCP fill follows the initial state of Sánchez & Scheeres (2011), "Simulating
//! asteroid rubble piles with a self-gravitating soft-sphere distinct element method
//! model", ApJ 727:120, §2.4: spheres on an HCP lattice (ABAB layers along z) whose
//! radii are varied at random about the mean (they use ±20 %). The lattice spacing is
//! set by the largest possible radius, so no two spheres overlap whatever is drawn.

use glam::DVec3;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::random::draw_radius;
use super::Sphere;

/// Relative tolerance when counting how many lattice sites fit along an axis, so that a
/// box of exactly `n` spacings holds `n` sites despite rounding.
const FIT_TOL: f64 = 1e-9;

/// Lattice used by [`lattice`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LatticeKind {
    /// Simple cubic: spacing 2R along x, y and z (packing fraction π/6 ≈ 0.524).
    Cubic,
    /// Hexagonal close packed, ABAB along z (packing fraction π/(3√2) ≈ 0.7405).
    Hcp,
}

/// Fills the box `[min, max]` (m) with spheres of mean radius `radius` (m) on a lattice.
///
/// Each radius is drawn uniformly in `[radius·(1 − spread), radius·(1 + spread)]`
/// (`spread` is a fraction, e.g. 0.2 for ±20 %; 0 draws nothing). Sites are spaced for
/// the largest radius `R = radius·(1 + spread)`, the first site sits `R` from `min`, and
/// every sphere lies wholly inside the box. Spheres come ordered by z, then y, then x,
/// ascending. Returns no spheres if the box cannot hold one, or if `radius` is not
/// finite and positive, or `spread` is not in `[0, 1)`.
pub fn lattice(
    kind: LatticeKind,
    min: DVec3,
    max: DVec3,
    radius: f64,
    spread: f64,
    rng: &mut ChaCha8Rng,
) -> Vec<Sphere> {
    lattice_spaced(kind, min, max, radius, spread, None, rng)
}

/// [`lattice`] with the distance between neighbouring sites (m) given: 003 §4.4 uses a
/// translation vector of 2.2 times the largest radius, leaving the grains room to move.
/// `None`, or a spacing below 2 R, gives 2 R.
pub fn lattice_spaced(
    kind: LatticeKind,
    min: DVec3,
    max: DVec3,
    radius: f64,
    spread: f64,
    spacing: Option<f64>,
    rng: &mut ChaCha8Rng,
) -> Vec<Sphere> {
    let big = radius * (1.0 + spread);
    let d = spacing.unwrap_or(0.0).max(2.0 * big);
    let valid = radius > 0.0 && d.is_finite() && (0.0..1.0).contains(&spread);
    if !(valid && min.is_finite() && max.is_finite()) {
        return Vec::new();
    }
    // Per axis: the range the centres may take, [min + R, max − R].
    let lo = min + DVec3::splat(big);
    let room = max - min - DVec3::splat(d);
    let sites = match kind {
        LatticeKind::Cubic => cubic_sites(lo, room, d),
        LatticeKind::Hcp => hcp_sites(lo, room, d),
    };
    sites
        .into_iter()
        .map(|pos| Sphere {
            pos,
            radius: draw_radius(radius, spread, rng),
        })
        .collect()
}

/// Number of sites `offset + i·step` (i ≥ 0) that fit in `[0, room]`.
fn fit(room: f64, offset: f64, step: f64) -> usize {
    let free = room - offset;
    if free < -FIT_TOL * step {
        return 0;
    }
    // `free / step` is finite and ≥ −FIT_TOL here; the cast saturates on huge values.
    ((free / step + FIT_TOL).floor().max(0.0) as usize).saturating_add(1)
}

/// Simple-cubic centres with spacing `d` from `lo`, within `room` along each axis.
fn cubic_sites(lo: DVec3, room: DVec3, d: f64) -> Vec<DVec3> {
    let n = |len: f64| fit(len, 0.0, d);
    let (nx, ny, nz) = (n(room.x), n(room.y), n(room.z));
    let mut out = Vec::with_capacity(nx.saturating_mul(ny).saturating_mul(nz).min(1 << 24));
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                out.push(lo + d * DVec3::new(i as f64, j as f64, k as f64));
            }
        }
    }
    out
}

/// HCP centres with nearest-neighbour distance `d` from `lo`, within `room`.
///
/// Site (i, j, k) is at d·(i + ((j + k) mod 2)/2, (√3/2)(j + (k mod 2)/3), √(2/3)·k):
/// triangular layers in xy, B layers (odd k) shifted by d·(1/2, √3/6) so that each
/// sphere sits in a hollow of the layer below, and A layers repeating every second k.
fn hcp_sites(lo: DVec3, room: DVec3, d: f64) -> Vec<DVec3> {
    let row = d * 3f64.sqrt() / 2.0;
    let layer = d * (2.0f64 / 3.0).sqrt();
    let nz = fit(room.z, 0.0, layer);
    let mut out = Vec::new();
    for k in 0..nz {
        let y0 = if k % 2 == 1 { row / 3.0 } else { 0.0 };
        for j in 0..fit(room.y, y0, row) {
            let x0 = if (j + k) % 2 == 1 { d / 2.0 } else { 0.0 };
            for i in 0..fit(room.x, x0, d) {
                let p = DVec3::new(x0 + d * i as f64, y0 + row * j as f64, layer * k as f64);
                out.push(lo + p);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::f64::consts::PI;

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    fn assert_inside(s: &[Sphere], min: DVec3, max: DVec3) {
        let tol = 1e-12 * (max - min).max_element();
        for (n, p) in s.iter().enumerate() {
            let r = DVec3::splat(p.radius - tol);
            assert!(
                (p.pos - r).cmpge(min).all() && (p.pos + r).cmple(max).all(),
                "{n}: {p:?}"
            );
        }
    }

    fn min_gap(s: &[Sphere]) -> f64 {
        let mut gap = f64::INFINITY;
        for (i, a) in s.iter().enumerate() {
            for b in &s[i + 1..] {
                gap = gap.min(a.pos.distance(b.pos) - a.radius - b.radius);
            }
        }
        gap
    }

    #[test]
    fn cubic_box_of_n_spacings_holds_n_cubed() {
        // radius 0.5, spread 0.2 → R = 0.6, spacing 1.2; box of 5 spacings per side.
        let (min, max) = (DVec3::new(-1.0, 2.0, 0.0), DVec3::new(5.0, 8.0, 6.0));
        let s = lattice(LatticeKind::Cubic, min, max, 0.5, 0.2, &mut rng(1));
        assert_eq!(s.len(), 125);
        assert!(min_gap(&s) >= -1e-12);
        assert_inside(&s, min, max);
        assert!(s.iter().all(|p| (0.4..=0.6).contains(&p.radius)));
        // First site R from min; order z, then y, then x.
        assert!((s[0].pos - DVec3::new(-0.4, 2.6, 0.6)).length() < 1e-12);
        let key = |p: &Sphere| (p.pos.z, p.pos.y, p.pos.x);
        assert!(s.windows(2).all(|w| key(&w[0]) < key(&w[1])));
    }

    #[test]
    fn hcp_small_box_count_by_hand() {
        // r = 1, d = 2, box 3d per side: centres in [1, 5] (room 2d). Rows of 3 (no x
        // offset) or 2 (offset d/2); A layers have 3 rows (3+2+3), B layers start at
        // y = d√3/6 and have 2 rows (2+3); 3 layers fit (2/√(2/3) = 2.45) → 8+5+8 = 21.
        let max = DVec3::splat(6.0);
        let s = lattice(LatticeKind::Hcp, DVec3::ZERO, max, 1.0, 0.0, &mut rng(0));
        assert_eq!(s.len(), 21);
        assert!(min_gap(&s) >= -1e-12);
        assert_inside(&s, DVec3::ZERO, max);
        // ABAB: layer 2 sits straight above layer 0, layer 1 does not.
        let layer = |z: f64| -> Vec<(f64, f64)> {
            let z = 1.0 + z * 2.0 * (2.0f64 / 3.0).sqrt();
            s.iter()
                .filter(|p| (p.pos.z - z).abs() < 1e-9)
                .map(|p| (p.pos.x, p.pos.y))
                .collect()
        };
        assert_eq!(layer(0.0), layer(2.0));
        assert_eq!(layer(1.0).len(), 5);
        assert!(layer(1.0).iter().all(|q| !layer(0.0).contains(q)));
    }

    #[test]
    fn hcp_interior_sphere_has_twelve_touching_neighbours() {
        let max = DVec3::splat(12.0);
        let s = lattice(LatticeKind::Hcp, DVec3::ZERO, max, 1.0, 0.0, &mut rng(0));
        let c = max / 2.0;
        let mid = s
            .iter()
            .min_by(|a, b| a.pos.distance(c).total_cmp(&b.pos.distance(c)));
        let mid = mid.map(|p| p.pos).unwrap_or(c);
        let near = |t: f64| {
            s.iter()
                .filter(|p| p.pos != mid && p.pos.distance(mid) < t)
                .count()
        };
        assert_eq!(near(2.0 + 1e-9), 12);
        assert_eq!(near(2.0 - 1e-9), 0);
    }

    #[test]
    fn hcp_packing_fraction_approaches_close_packing() {
        // r = 1 in an 80 m cube, centres in [1, 79]: rows of 40 or 39 spheres; A layers
        // 46 rows (23·40 + 23·39 = 1817), B layers 45 rows (23·39 + 22·40 = 1777);
        // 48 layers → 24·(1817 + 1777) = 86256, i.e. 95.3 % of π/(3√2) (edge losses).
        let max = DVec3::splat(80.0);
        let s = lattice(LatticeKind::Hcp, DVec3::ZERO, max, 1.0, 0.0, &mut rng(0));
        assert_eq!(s.len(), 86256);
        let phi = s.len() as f64 * 4.0 / 3.0 * PI / max.element_product();
        let ideal = PI / (3.0 * 2f64.sqrt());
        assert!(phi < ideal && phi > 0.95 * ideal, "phi = {phi}");
    }

    #[test]
    fn radii_within_spread_and_seeded() {
        let (min, max) = (DVec3::ZERO, DVec3::new(10.0, 10.0, 10.0));
        let a = lattice(LatticeKind::Hcp, min, max, 0.5, 0.2, &mut rng(7));
        let b = lattice(LatticeKind::Hcp, min, max, 0.5, 0.2, &mut rng(7));
        let c = lattice(LatticeKind::Hcp, min, max, 0.5, 0.2, &mut rng(8));
        assert!(a.len() > 100);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|p| (0.4..=0.6).contains(&p.radius)));
        assert!(a.iter().any(|p| p.radius < 0.45) && a.iter().any(|p| p.radius > 0.55));
        assert!(min_gap(&a) >= -1e-12);
        assert_inside(&a, min, max);
    }

    #[test]
    fn degenerate_inputs_give_no_spheres() {
        let one = DVec3::ONE;
        let k = LatticeKind::Cubic;
        assert!(lattice(k, DVec3::ZERO, one, 0.6, 0.0, &mut rng(0)).is_empty());
        assert!(lattice(k, DVec3::ZERO, one, 0.0, 0.0, &mut rng(0)).is_empty());
        assert!(lattice(k, DVec3::ZERO, one, f64::NAN, 0.0, &mut rng(0)).is_empty());
        assert!(lattice(k, DVec3::ZERO, one, 1e308, 0.0, &mut rng(0)).is_empty());
        assert!(lattice(k, DVec3::ZERO, one, 0.1, 1.0, &mut rng(0)).is_empty());
        assert!(lattice(k, one, DVec3::ZERO, 0.1, 0.0, &mut rng(0)).is_empty());
        assert_eq!(lattice(k, DVec3::ZERO, one, 0.5, 0.0, &mut rng(0)).len(), 1);
    }

    #[test]
    fn kind_serde_names() {
        // No serde format crate here: deserialize straight from a string.
        let names = [(LatticeKind::Cubic, "cubic"), (LatticeKind::Hcp, "hcp")];
        for (k, n) in names {
            let de: serde::de::value::StrDeserializer<serde::de::value::Error> =
                serde::de::IntoDeserializer::into_deserializer(n);
            assert_eq!(LatticeKind::deserialize(de), Ok(k));
        }
    }
}
