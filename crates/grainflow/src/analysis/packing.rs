//! Packing fractions of a pebble bed, vertical and radial, with the exact volume of each sphere
//! inside each bin (001 chapter 9, `bin_count`, eq 9.1–9.27). The vessel axis is the z axis
//! through the origin, as in PEBBLES.
//!
//! * A horizontal slab [bot, top] holds π [r²(b − a) + (a³ − b³)/3] of a sphere at height z,
//!   a = max(−r, bot − z), b = min(r, top − z) (eq 9.1–9.3).
//! * An annulus I < ρ < O of a slab holds the sphere's slab volume minus what lies inside
//!   radius I and outside radius O (eq 9.22–9.27): at height t from the centre the sphere's
//!   section is a disk of radius c = √(r² − t²) whose centre is ρ_p from the axis;
//!   [`area_inside`] (eq 9.4–9.12) and [`area_outside`] (eq 9.13–9.21) give the parts of that
//!   disk inside I and outside O, integrated over t by adaptive Simpson quadrature with the
//!   interval split where the disk starts or stops crossing a circle (where the integrand has
//!   kinks), to 1e-12 of the sphere's volume.
//!
//! Eq 9.14 prints "πc² if c − r > O", which contradicts eq 9.15; the disk lies wholly outside
//! the circle of radius O when ρ_p − c > O, which is what we use.

use glam::DVec3;

use std::f64::consts::PI;

/// Volume (m³) of a sphere of radius `r` centred at height `z` between the heights `bot` and
/// `top` (eq 9.1–9.3); zero when they do not meet.
pub fn sphere_slab_volume(r: f64, z: f64, bot: f64, top: f64) -> f64 {
    let a = (-r).max(bot - z);
    let b = r.min(top - z);
    if b <= a {
        return 0.0;
    }
    PI * (r * r * (b - a) + (a * a * a - b * b * b) / 3.0)
}

/// Area (m²) of a disk of radius `c` centred `r` from the axis that lies inside the circle of
/// radius `i` about the axis (eq 9.4–9.12).
pub fn area_inside(i: f64, c: f64, r: f64) -> f64 {
    if i <= r - c || c <= 0.0 || i <= 0.0 {
        return 0.0;
    }
    if r + c <= i {
        return PI * c * c;
    }
    if i <= c - r {
        return PI * i * i;
    }
    // eq 9.8–9.12: j the distance from the disk's centre to the chord, f the half-chord.
    let j = (r * r + c * c - i * i) / (2.0 * r);
    let f = (c * c - j * j).max(0.0).sqrt();
    let theta = 2.0
        * ((i * i + r * r - c * c) / (2.0 * i * r))
            .clamp(-1.0, 1.0)
            .acos();
    let phi = 2.0
        * ((r * r + c * c - i * i) / (2.0 * r * c))
            .clamp(-1.0, 1.0)
            .acos();
    0.5 * c * c * phi + 0.5 * i * i * theta - f * r
}

/// Area (m²) of a disk of radius `c` centred `r` from the axis that lies outside the circle
/// of radius `o` about the axis (eq 9.13–9.21, 9.14 corrected as in the module notes).
pub fn area_outside(o: f64, c: f64, r: f64) -> f64 {
    if c <= 0.0 || o >= c + r {
        return 0.0;
    }
    if r - c >= o {
        return PI * c * c;
    }
    if o <= c - r {
        return PI * (c * c - o * o);
    }
    // eq 9.17–9.21: k from the disk's centre to the chord (negative towards the axis), m the
    // half-chord.
    let k = (o * o - r * r - c * c) / (2.0 * r);
    let m = (c * c - k * k).max(0.0).sqrt();
    let theta = 2.0 * ((k + r) / o).clamp(-1.0, 1.0).acos();
    let phi = 2.0 * (k / c).clamp(-1.0, 1.0).acos();
    (0.5 * c * c * phi - m * k) - (0.5 * o * o * theta - m * (k + r))
}

/// Adaptive Simpson quadrature of `f` over [a, b] to absolute tolerance `tol`, where `f` is
/// known to `noise` (its round-off): an interval stops splitting when its error estimate is
/// below its share of `tol` or below `noise` times its length, which round-off cannot beat.
fn simpson(f: &dyn Fn(f64) -> f64, a: f64, b: f64, tol: f64, noise: f64) -> f64 {
    /// One interval: its ends, f at its ends and middle, and its Simpson estimate.
    struct Piece {
        a: f64,
        b: f64,
        f: [f64; 3],
        whole: f64,
    }
    fn rec(f: &dyn Fn(f64) -> f64, p: Piece, tol: f64, noise: f64, depth: u32) -> f64 {
        let [fa, fm, fb] = p.f;
        let m = 0.5 * (p.a + p.b);
        let (flm, frm) = (f(0.5 * (p.a + m)), f(0.5 * (m + p.b)));
        let left = (m - p.a) / 6.0 * (fa + 4.0 * flm + fm);
        let right = (p.b - m) / 6.0 * (fm + 4.0 * frm + fb);
        let delta = left + right - p.whole;
        if depth == 0 || delta.abs() <= 15.0 * tol.max(noise * (p.b - p.a)) {
            return left + right + delta / 15.0;
        }
        let l = Piece {
            a: p.a,
            b: m,
            f: [fa, flm, fm],
            whole: left,
        };
        let r = Piece {
            a: m,
            b: p.b,
            f: [fm, frm, fb],
            whole: right,
        };
        rec(f, l, 0.5 * tol, noise, depth - 1) + rec(f, r, 0.5 * tol, noise, depth - 1)
    }
    let (fa, fb, fm) = (f(a), f(b), f(0.5 * (a + b)));
    let whole = (b - a) / 6.0 * (fa + 4.0 * fm + fb);
    rec(
        f,
        Piece {
            a,
            b,
            f: [fa, fm, fb],
            whole,
        },
        tol,
        noise,
        40,
    )
}

/// Volume (m³) of a sphere of radius `r_p` centred `rho` from the axis at height `z` inside
/// the annulus `inner` < ρ < `outer` between heights `bot` and `top` (eq 9.22–9.27).
pub fn sphere_annulus_volume(
    r_p: f64,
    rho: f64,
    z: f64,
    inner: f64,
    outer: f64,
    bot: f64,
    top: f64,
) -> f64 {
    let a = (-r_p).max(bot - z);
    let b = r_p.min(top - z);
    if b <= a || rho - r_p >= outer || rho + r_p <= inner {
        return 0.0;
    }
    // eq 9.24
    let v_t = PI * (r_p * r_p * (b - a) + (a * a * a - b * b * b) / 3.0);
    let c_of = |t: f64| (r_p * r_p - t * t).max(0.0).sqrt();
    let cut = |t: f64| area_inside(inner, c_of(t), rho) + area_outside(outer, c_of(t), rho);
    // Kinks where c(t) = |ρ ± I| or |ρ ± O|: split the interval there.
    let mut breaks = vec![a, b];
    for edge in [inner, outer] {
        for c in [(rho - edge).abs(), rho + edge] {
            if c < r_p {
                let t = (r_p * r_p - c * c).sqrt();
                for t in [-t, t] {
                    if t > a && t < b {
                        breaks.push(t);
                    }
                }
            }
        }
    }
    breaks.sort_by(f64::total_cmp);
    let tol = 1e-13 * r_p.powi(3);
    // The cut areas are differences of terms of order I² and O² (eq 9.12, 9.21).
    let noise = 1e-14 * (inner * inner + outer * outer);
    // eq 9.25–9.27: v = v_t − v_i − v_o.
    let removed: f64 = breaks
        .windows(2)
        .map(|w| simpson(&cut, w[0], w[1], tol, noise))
        .sum();
    (v_t - removed).max(0.0)
}

/// One bin of a packing-fraction profile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// Lower edge (m): a height for vertical bins, a radius for radial ones.
    pub lo: f64,
    /// Upper edge (m).
    pub hi: f64,
    /// Volume of the bin (m³).
    pub volume: f64,
    /// Sphere volume inside the bin (m³).
    pub solid: f64,
}

impl Bin {
    /// Packing fraction: solid volume over bin volume.
    pub fn fraction(&self) -> f64 {
        self.solid / self.volume
    }
}

/// The vessel a profile is taken in: the annulus `inner` < ρ < `outer` (m) about the z axis
/// between heights `bottom` and `top` (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vessel {
    /// Inner radius (m), 0 for a plain cylinder.
    pub inner: f64,
    /// Outer radius (m).
    pub outer: f64,
    /// Bottom height (m).
    pub bottom: f64,
    /// Top height (m).
    pub top: f64,
}

/// Vertical packing fractions: `bins` equal slabs of the vessel (eq 9.1–9.3). Spheres count
/// whole in the horizontal directions (they are inside the vessel).
pub fn vertical_packing(v: &Vessel, pos: &[DVec3], radius: &[f64], bins: usize) -> Vec<Bin> {
    let dz = (v.top - v.bottom) / bins as f64;
    let area = PI * (v.outer * v.outer - v.inner * v.inner);
    (0..bins)
        .map(|k| {
            let (lo, hi) = (v.bottom + k as f64 * dz, v.bottom + (k + 1) as f64 * dz);
            let solid = pos
                .iter()
                .zip(radius)
                .map(|(p, &r)| sphere_slab_volume(r, p.z, lo, hi))
                .sum();
            Bin {
                lo,
                hi,
                volume: area * dz,
                solid,
            }
        })
        .collect()
}

/// Radial packing fractions: `bins` annuli of equal width between the vessel's radii, over
/// its height (eq 9.22–9.27).
pub fn radial_packing(v: &Vessel, pos: &[DVec3], radius: &[f64], bins: usize) -> Vec<Bin> {
    let dr = (v.outer - v.inner) / bins as f64;
    (0..bins)
        .map(|k| {
            let (lo, hi) = (v.inner + k as f64 * dr, v.inner + (k + 1) as f64 * dr);
            let solid = pos
                .iter()
                .zip(radius)
                .map(|(p, &r)| {
                    let rho = (p.x * p.x + p.y * p.y).sqrt();
                    sphere_annulus_volume(r, rho, p.z, lo, hi, v.bottom, v.top)
                })
                .sum();
            Bin {
                lo,
                hi,
                volume: PI * (hi * hi - lo * lo) * (v.top - v.bottom),
                solid,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slab_volumes_add_up_to_the_sphere() {
        // Slabs of 3 mm across a sphere of r = 1 cm sum to 4/3 π r³; a half-space is half.
        let (r, z) = (0.01, 0.2);
        let total: f64 = (0..10)
            .map(|k| sphere_slab_volume(r, z, 0.185 + 0.003 * k as f64, 0.188 + 0.003 * k as f64))
            .sum();
        let sphere = 4.0 / 3.0 * PI * r.powi(3);
        assert!((total - sphere).abs() < 1e-15 * sphere.max(1.0));
        assert!((sphere_slab_volume(r, z, -1.0, z) - 0.5 * sphere).abs() < 1e-18);
    }

    #[test]
    fn area_outside_is_the_disk_minus_the_lens() {
        // eq 9.21 against πc² − (area inside radius O, eq 9.12), and the two limits.
        for (o, c, r) in [
            (0.5, 0.02, 0.49),
            (0.5, 0.02, 0.51),
            (0.1, 0.05, 0.08),
            (0.3, 0.2, 0.25),
        ] {
            let lens = area_inside(o, c, r);
            assert!(
                (area_outside(o, c, r) - (PI * c * c - lens)).abs() < 1e-14,
                "{o} {c} {r}"
            );
        }
        assert_eq!(area_outside(1.0, 0.1, 0.5), 0.0);
        assert!((area_outside(0.1, 0.05, 0.3) - PI * 0.0025).abs() < 1e-15);
    }

    #[test]
    fn annulus_volumes_add_up_to_the_sphere() {
        // A sphere straddling three annuli: the three pieces sum to its volume (1e-12).
        let (r, rho, z) = (0.02, 0.1, 0.0);
        let edges = [0.0, 0.09, 0.105, 1.0];
        let total: f64 = edges
            .windows(2)
            .map(|e| sphere_annulus_volume(r, rho, z, e[0], e[1], -1.0, 1.0))
            .sum();
        let sphere = 4.0 / 3.0 * PI * r.powi(3);
        assert!((total / sphere - 1.0).abs() < 1e-12, "{}", total / sphere);
    }

    #[test]
    fn annuli_far_from_the_axis_add_up_to_the_slab() {
        // A pebble of packing.inp near the wall of a 0.5 m vessel, cut by the slab
        // 0.02–0.06 m: the annuli's areas are differences of terms of order O² = 0.25 m²,
        // whose round-off once sent the quadrature to its full depth (seconds per pebble).
        let (r, rho, z) = (0.02, 0.462_457_28, 0.020_330_7);
        let edges = [0.0, 0.4, 0.45, 0.5];
        let total: f64 = edges
            .windows(2)
            .map(|e| sphere_annulus_volume(r, rho, z, e[0], e[1], 0.02, 0.06))
            .sum();
        let slab = sphere_slab_volume(r, z, 0.02, 0.06);
        assert!((total / slab - 1.0).abs() < 1e-12, "{}", total / slab);
    }
    // The exact fractions against a Monte-Carlo volume estimate: validation::pebbles::chapter9.
}
