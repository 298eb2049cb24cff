//! Random placement of non-overlapping spheres in a box by random sequential addition
//! (RSA): each sphere is tried at uniformly random positions until it overlaps none
//! placed before (Widom 1966, J. Chem. Phys. 44:3888; for spheres RSA jams near a
//! volume fraction of 0.38, Torquato, Uche & Stillinger 2006, PRE 74:061308).
//! Overlap tests go through a uniform cell grid, so a fill costs O(count) work.

use glam::{DVec3, USizeVec3};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::Sphere;
use crate::{Error, Result};

/// N points uniform in the unit ball by rejection from [−1, 1]³ (ChaCha8 with `seed`; S3 uses
/// seed 42 + N, as the peers' REBOUND script does).
pub fn uniform_ball(n: usize, seed: u64) -> Vec<DVec3> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let p = DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if p.length_squared() < 1.0 {
            out.push(p);
        }
    }
    out
}

/// Densest packing fraction of equal spheres, π/(3√2) (Hales 2005).
const KEPLER: f64 = 0.740_480_489_693_061;

/// End of a cell's list in [`Grid`].
const NONE: usize = usize::MAX;

const ADVICE: &str = "use a larger region or fewer particles";

/// A radius (m) drawn uniformly in `[radius·(1 − spread), radius·(1 + spread)]`; no draw
/// when `spread` is 0. The caller ensures `radius > 0`, `0 ≤ spread < 1`, all finite.
pub(crate) fn draw_radius(radius: f64, spread: f64, rng: &mut ChaCha8Rng) -> f64 {
    if spread == 0.0 {
        radius
    } else {
        rng.random_range(radius * (1.0 - spread)..=radius * (1.0 + spread))
    }
}

/// Places `count` spheres of mean radius `radius` (m) at random in the box `[min, max]`
/// (m), none overlapping another and each wholly inside the box.
///
/// Radii are drawn as in [`super::lattice::lattice`]: uniform within ±`spread` (a
/// fraction in `[0, 1)`) of `radius`; a sphere keeps its radius until it is placed.
/// Spheres come in the order they were placed. At most `max_attempts` positions are
/// tried in total; the same `rng` state gives the same spheres.
///
/// # Errors
/// [`Error::Scene`] for a bad radius, spread or box, or when `count` spheres do not fit:
/// either more than the densest packing allows, or not placed within `max_attempts`
/// (the message says how many were placed and the volume fraction they reached).
pub fn random_placement(
    min: DVec3,
    max: DVec3,
    count: usize,
    radius: f64,
    spread: f64,
    rng: &mut ChaCha8Rng,
    max_attempts: usize,
) -> Result<Vec<Sphere>> {
    let big = check_inputs(min, max, radius, spread)?;
    let volume = (max - min).element_product();
    let ball = |r: f64| 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let small = radius * (1.0 - spread);
    let (densest, what) = if spread == 0.0 {
        (KEPLER, "the densest packing of equal spheres (0.7405)")
    } else {
        (1.0, "the whole region")
    };
    let least = count as f64 * ball(small) / volume;
    if least > densest {
        let msg = format!(
            "{count} spheres of radius at least {small:.3e} m would fill {least:.3} of the \
             region's volume, more than {what}; {ADVICE}"
        );
        return Err(Error::scene("particles.count", msg));
    }
    let mut grid = Grid::new(min, max, 2.0 * big, count);
    let mut out: Vec<Sphere> = Vec::with_capacity(count.min(1 << 20));
    let mut pending = None; // radius of the sphere being placed
    for _ in 0..max_attempts {
        if out.len() == count {
            break;
        }
        let r = *pending.get_or_insert_with(|| draw_radius(radius, spread, rng));
        let (lo, hi) = (min + DVec3::splat(r), max - DVec3::splat(r));
        let u = DVec3::new(rng.random(), rng.random(), rng.random()); // each in [0, 1)
        let pos = lo + (hi - lo).max(DVec3::ZERO) * u;
        if !grid.overlaps(pos, r, &out) {
            grid.insert(pos, out.len());
            out.push(Sphere { pos, radius: r });
            pending = None;
        }
    }
    if out.len() < count {
        let n = out.len();
        let phi = out.iter().map(|s| ball(s.radius)).sum::<f64>() / volume;
        let msg = format!(
            "placed only {n} of {count} spheres in {max_attempts} attempts, reaching a volume \
             fraction of {phi:.3} of the region (random placement jams near 0.38); {ADVICE}"
        );
        return Err(Error::scene("particles.count", msg));
    }
    Ok(out)
}

/// Checks the inputs; returns the largest radius `radius·(1 + spread)` (m).
fn check_inputs(min: DVec3, max: DVec3, radius: f64, spread: f64) -> Result<f64> {
    if !(radius.is_finite() && radius > 0.0) {
        let msg = format!("must be a positive number of metres, got {radius}");
        return Err(Error::scene("particles.radius", msg));
    }
    if !(0.0..1.0).contains(&spread) {
        let msg = format!("must be a fraction in [0, 1), got {spread}");
        return Err(Error::scene("particles.spread", msg));
    }
    let (d, size) = (2.0 * radius * (1.0 + spread), max - min);
    if !(min.is_finite() && max.is_finite() && size.is_finite() && d.is_finite()) {
        let msg = format!("box corners must be finite, got min {min} and max {max} m");
        return Err(Error::scene("particles.region", msg));
    }
    if size.min_element() < d {
        let msg = format!("box of size {size} m cannot hold a sphere of diameter {d:.3e} m");
        return Err(Error::scene("particles.region", msg));
    }
    Ok(d / 2.0)
}

/// Uniform cell grid over the box with a linked list of spheres per cell.
struct Grid {
    min: DVec3,
    /// Cell edge (m), at least the largest centre distance of a touching pair.
    cell: f64,
    dims: USizeVec3,
    /// First sphere in each cell, then the next one in the same cell per sphere.
    head: Vec<usize>,
    next: Vec<usize>,
}

impl Grid {
    /// Cells of edge `cell` (m), enlarged while there are more than ~8 cells per sphere,
    /// so memory stays O(count) for a large, sparsely filled box.
    fn new(min: DVec3, max: DVec3, mut cell: f64, count: usize) -> Self {
        let limit = count.saturating_mul(8).max(64) as f64;
        let dims = |cell: f64| ((max - min) / cell).ceil().max(DVec3::ONE);
        while dims(cell).element_product() > limit {
            cell *= 2.0;
        }
        let dims = dims(cell).as_usizevec3();
        let head = vec![NONE; dims.element_product()];
        let next = Vec::with_capacity(count.min(1 << 20));
        Grid {
            min,
            cell,
            dims,
            head,
            next,
        }
    }

    /// Cell coordinates of `p`, clamped to the grid.
    fn coords(&self, p: DVec3) -> USizeVec3 {
        let c = ((p - self.min) / self.cell).floor().max(DVec3::ZERO);
        c.as_usizevec3().min(self.dims - USizeVec3::ONE)
    }

    fn index(&self, c: USizeVec3) -> usize {
        (c.z * self.dims.y + c.y) * self.dims.x + c.x
    }

    fn insert(&mut self, p: DVec3, id: usize) {
        let cell = self.index(self.coords(p));
        self.next.push(self.head[cell]);
        self.head[cell] = id;
    }

    /// True if a sphere at `p` (m) with radius `r` (m) overlaps any of `spheres`.
    fn overlaps(&self, p: DVec3, r: f64, spheres: &[Sphere]) -> bool {
        let c = self.coords(p);
        let lo = c.saturating_sub(USizeVec3::ONE);
        let hi = (c + USizeVec3::ONE).min(self.dims - USizeVec3::ONE);
        for z in lo.z..=hi.z {
            for y in lo.y..=hi.y {
                for x in lo.x..=hi.x {
                    let mut id = self.head[self.index(USizeVec3::new(x, y, z))];
                    while id != NONE {
                        let s = &spheres[id];
                        if s.pos.distance_squared(p) < (s.radius + r).powi(2) {
                            return true;
                        }
                        id = self.next[id];
                    }
                }
            }
        }
        false
    }
}

/// A standard normal number by Box–Muller from two uniform draws of `rng` (the first taken as
/// 1 − u so that its logarithm is finite).
pub(crate) fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
    let (u1, u2): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random::<f64>());
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    type Out = std::result::Result<Vec<Sphere>, String>;
    const O: DVec3 = DVec3::ZERO;
    const BOX: DVec3 = DVec3::new(1.0, 2.0, 3.0);

    /// `n` spheres of radius `r` ± `sp` in `[min, max]`, seed `seed`, `tries` attempts.
    fn rsa(min: DVec3, max: DVec3, n: usize, r: f64, sp: f64, seed: u64, tries: usize) -> Out {
        let rng = &mut ChaCha8Rng::seed_from_u64(seed);
        random_placement(min, max, n, r, sp, rng, tries).map_err(|e| e.to_string())
    }

    #[test]
    fn no_overlap_inside_and_radii_in_bounds() {
        // 500 spheres of r ≤ 0.06 in a 6 m³ box: volume fraction ≈ 0.045.
        let s = rsa(O, BOX, 500, 0.05, 0.2, 1, 10_000).expect("a sparse fill succeeds");
        assert_eq!(s.len(), 500);
        for (i, a) in s.iter().enumerate() {
            assert!((0.04..=0.06).contains(&a.radius), "{a:?}");
            let r = DVec3::splat(a.radius);
            assert!(
                (a.pos - r).cmpge(O).all() && (a.pos + r).cmple(BOX).all(),
                "{a:?}"
            );
            for b in &s[i + 1..] {
                assert!(a.pos.distance(b.pos) >= a.radius + b.radius, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn same_seed_same_spheres() {
        let a = rsa(O, BOX, 300, 0.05, 0.2, 42, 10_000);
        assert!(a.as_ref().is_ok_and(|v| v.len() == 300));
        assert_eq!(a, rsa(O, BOX, 300, 0.05, 0.2, 42, 10_000));
        assert_ne!(a, rsa(O, BOX, 300, 0.05, 0.2, 43, 10_000));
    }

    #[test]
    fn only_one_fits_reports_count_and_fraction() {
        // Box 2r × 2r × 3.9r holds one sphere of radius r but not two (they need 4r
        // along z); two would fill 8π/3/15.6 = 0.537 < 0.7405, so RSA must try and
        // give up. One sphere fills (4π/3)/15.6 = 0.2685 of the box.
        let max = DVec3::new(2.0, 2.0, 3.9);
        let msg = rsa(O, max, 2, 1.0, 0.0, 3, 10_000)
            .err()
            .unwrap_or_default();
        assert!(msg.starts_with("particles.count: placed only 1 of 2 spheres in 10000"));
        assert!(
            msg.contains("0.269") && msg.contains("larger region"),
            "{msg}"
        );
    }

    #[test]
    fn impossible_requests_fail_instead_of_hanging() {
        // 10⁶ spheres of r ≥ 0.04 m have volume ≥ 10⁶ · 2.68e-4 m³ = 268 m³ > 6 m³.
        let msg = rsa(O, BOX, 1_000_000, 0.05, 0.2, 0, 10)
            .err()
            .unwrap_or_default();
        assert!(msg.starts_with("particles.count: 1000000 spheres"), "{msg}");
        assert!(msg.contains("fewer particles"), "{msg}");
        // Volume fraction 0.55: under 0.7405, so RSA tries, but far past its jamming (0.38).
        let n = (0.55 / (4.0 / 3.0 * std::f64::consts::PI * 0.05f64.powi(3))) as usize;
        let msg = rsa(O, DVec3::ONE, n, 0.05, 0.0, 9, 200_000)
            .err()
            .unwrap_or_default();
        assert!(
            msg.contains(&format!("of {n} spheres in 200000 attempts")),
            "{msg}"
        );
    }

    #[test]
    fn sparse_huge_box_and_bad_inputs() {
        // A 2 mm grid over this box would need ~10¹⁶ cells: the grid must coarsen.
        let huge = DVec3::new(1e4, 1e4, 1.0);
        assert_eq!(rsa(O, huge, 10, 1e-3, 0.0, 5, 100).map(|v| v.len()), Ok(10));
        let bad = |min, r, sp| rsa(min, DVec3::ONE, 1, r, sp, 0, 10).err();
        let bad = |min, r, sp, field| bad(min, r, sp).is_some_and(|e| e.starts_with(field));
        assert!(bad(O, -1.0, 0.0, "particles.radius"));
        assert!(bad(O, f64::NAN, 0.0, "particles.radius"));
        assert!(bad(O, 0.1, 1.0, "particles.spread"));
        assert!(bad(O, 0.6, 0.0, "particles.region"));
        assert!(bad(
            DVec3::splat(f64::NEG_INFINITY),
            0.1,
            0.0,
            "particles.region"
        ));
        assert_eq!(rsa(O, DVec3::ONE, 0, 0.1, 0.0, 0, 0), Ok(Vec::new()));
    }
}
