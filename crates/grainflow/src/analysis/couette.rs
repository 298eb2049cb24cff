//! Profiles of 2-D Couette flow between coaxial circles (seed 004 §II.1–II.2).
//!
//! Grains are binned by their distance ξ = ρ − R_i from the inner wall (ρ the distance of the
//! centre from the axis, z). A [`CouetteSampler`] fed the state every few steps gives:
//! * the angular velocity profile ω(ξ) = ⟨(x × v)_z / ρ²⟩ from the grains' *internal*
//!   velocities, averaged over samples, with its fluctuations from block averages;
//! * the same profile from *displacements*: each grain's unwrapped turn Δθ over the interval
//!   divided by the interval, binned by the grain's mean ξ, beside the internal velocities
//!   averaged per grain and binned the same way (004 §II.2, Fig 5: the two agree while the pack
//!   flows and part once it jams and the overlap correction moves grains);
//! * the packing-fraction profile: the area of the discs whose centres lie in a bin over the
//!   bin's area (004 Fig 3);
//! * the proxy stress per bin in the radial/azimuthal basis from the impulse tallies (004 eq 4,
//!   Fig 2), and the decay length of an exponential fitted to ω(ξ) near the inner wall.

use glam::{DMat3, DVec3};

use super::mean_and_error;
use crate::approx_hard::ImpulseTally;

/// Radial bins between the circles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bins {
    /// Centre of the circles (m).
    pub center: DVec3,
    /// Inner radius R_i (m).
    pub inner: f64,
    /// Width of a bin (m).
    pub width: f64,
    /// Number of bins.
    pub count: usize,
}

impl Bins {
    /// Bin of the point `x`, if between the circles' first and last bin.
    pub fn of(&self, x: DVec3) -> Option<usize> {
        let xi = self.rho(x) - self.inner;
        (xi >= 0.0 && xi < self.width * self.count as f64).then(|| (xi / self.width) as usize)
    }

    /// Distance of `x` from the axis (m).
    pub fn rho(&self, x: DVec3) -> f64 {
        (x - self.center).truncate().length()
    }

    /// Distance from the inner wall of the middle of bin k (m).
    pub fn middle(&self, k: usize) -> f64 {
        (k as f64 + 0.5) * self.width
    }

    /// Area of bin k (m²).
    pub fn area(&self, k: usize) -> f64 {
        let (a, b) = (
            self.inner + k as f64 * self.width,
            self.inner + (k + 1) as f64 * self.width,
        );
        std::f64::consts::PI * (b * b - a * a)
    }
}

/// Angular velocity of a grain at `x` moving at `v` about the axis through `c` along z (rad/s).
fn angular_velocity(c: DVec3, x: DVec3, v: DVec3) -> f64 {
    let d = (x - c).truncate();
    (d.x * v.y - d.y * v.x) / d.length_squared()
}

/// Accumulates the profiles of one run over an interval.
#[derive(Clone, Debug)]
pub struct CouetteSampler {
    /// The bins.
    pub bins: Bins,
    /// Samples per block of the fluctuation estimate.
    block: usize,
    /// Time of the first sample (s).
    t0: f64,
    /// Time of the last sample (s).
    t1: f64,
    /// Per grain: angle at the last sample (rad), turn so far (rad), Σ ρ (m), Σ internal ω.
    angle: Vec<f64>,
    turn: Vec<f64>,
    rho_sum: Vec<f64>,
    omega_sum: Vec<f64>,
    /// Per bin: Σ ω and count within the current block, and the finished blocks' means.
    block_sum: Vec<f64>,
    block_count: Vec<u64>,
    blocks: Vec<Vec<f64>>,
    /// Per bin: Σ disc area over samples (m²).
    area_sum: Vec<f64>,
    /// Samples taken.
    samples: usize,
}

/// The profiles of an interval, by bin.
#[derive(Clone, Debug, PartialEq)]
pub struct CouetteProfiles {
    /// Distance of each bin's middle from the inner wall (m).
    pub xi: Vec<f64>,
    /// Mean internal angular velocity, over samples (rad/s); NaN in empty bins.
    pub omega: Vec<f64>,
    /// Standard deviation of the block means of `omega` (rad/s): its fluctuation.
    pub fluctuation: Vec<f64>,
    /// Angular velocity from displacements, grains binned by their mean distance (rad/s).
    pub omega_displacement: Vec<f64>,
    /// Internal angular velocity averaged per grain, binned like `omega_displacement` (rad/s).
    pub omega_internal: Vec<f64>,
    /// Packing fraction of each bin (−).
    pub packing: Vec<f64>,
}

impl CouetteSampler {
    /// A sampler with `bins`, estimating fluctuations from blocks of `block` samples.
    pub fn new(bins: Bins, block: usize) -> CouetteSampler {
        CouetteSampler {
            bins,
            block: block.max(1),
            t0: 0.0,
            t1: 0.0,
            angle: Vec::new(),
            turn: Vec::new(),
            rho_sum: Vec::new(),
            omega_sum: Vec::new(),
            block_sum: vec![0.0; bins.count],
            block_count: vec![0; bins.count],
            blocks: Vec::new(),
            area_sum: vec![0.0; bins.count],
            samples: 0,
        }
    }

    /// Adds the state at time `t` (s). Samples must come often enough that no grain turns by
    /// more than half a turn between two of them.
    pub fn sample(&mut self, t: f64, pos: &[DVec3], vel: &[DVec3], radius: &[f64]) {
        let c = self.bins.center;
        let angle_of = |x: DVec3| (x.y - c.y).atan2(x.x - c.x);
        if self.samples == 0 {
            self.t0 = t;
            self.angle = pos.iter().map(|&x| angle_of(x)).collect();
            self.turn = vec![0.0; pos.len()];
            self.rho_sum = vec![0.0; pos.len()];
            self.omega_sum = vec![0.0; pos.len()];
        }
        self.t1 = t;
        let pi = std::f64::consts::PI;
        for (k, (&x, &v)) in pos.iter().zip(vel).enumerate() {
            let a = angle_of(x);
            let mut d = a - self.angle[k];
            if d > pi {
                d -= 2.0 * pi;
            } else if d < -pi {
                d += 2.0 * pi;
            }
            self.turn[k] += d;
            self.angle[k] = a;
            self.rho_sum[k] += self.bins.rho(x);
            let w = angular_velocity(c, x, v);
            self.omega_sum[k] += w;
            if let Some(b) = self.bins.of(x) {
                self.block_sum[b] += w;
                self.block_count[b] += 1;
                self.area_sum[b] += pi * radius[k] * radius[k];
            }
        }
        self.samples += 1;
        if self.samples.is_multiple_of(self.block) {
            let mean = self
                .block_sum
                .iter()
                .zip(&self.block_count)
                .map(|(s, &n)| if n > 0 { s / n as f64 } else { f64::NAN })
                .collect();
            self.blocks.push(mean);
            self.block_sum.iter_mut().for_each(|s| *s = 0.0);
            self.block_count.iter_mut().for_each(|n| *n = 0);
        }
    }

    /// The profiles from the samples so far (the unfinished block left out of `omega`).
    pub fn profiles(&self) -> CouetteProfiles {
        let n_bins = self.bins.count;
        let mut omega = vec![f64::NAN; n_bins];
        let mut fluctuation = vec![f64::NAN; n_bins];
        for b in 0..n_bins {
            let values: Vec<f64> = self
                .blocks
                .iter()
                .map(|m| m[b])
                .filter(|v| v.is_finite())
                .collect();
            let (mean, err) = mean_and_error(&values);
            omega[b] = mean;
            fluctuation[b] = err * (values.len() as f64).sqrt();
        }
        let span = self.t1 - self.t0;
        let mut disp = vec![(0.0, 0usize); n_bins];
        let mut internal = vec![0.0; n_bins];
        for k in 0..self.turn.len() {
            let rho = self.rho_sum[k] / self.samples as f64;
            let xi = rho - self.bins.inner;
            if xi < 0.0 {
                continue;
            }
            let b = (xi / self.bins.width) as usize;
            if b < n_bins {
                disp[b].0 += self.turn[k] / span;
                disp[b].1 += 1;
                internal[b] += self.omega_sum[k] / self.samples as f64;
            }
        }
        let per = |s: f64, n: usize| if n > 0 { s / n as f64 } else { f64::NAN };
        CouetteProfiles {
            xi: (0..n_bins).map(|k| self.bins.middle(k)).collect(),
            omega,
            fluctuation,
            omega_displacement: disp.iter().map(|&(s, n)| per(s, n)).collect(),
            omega_internal: internal
                .iter()
                .zip(&disp)
                .map(|(&s, &(_, n))| per(s, n))
                .collect(),
            packing: (0..n_bins)
                .map(|b| self.area_sum[b] / (self.samples as f64 * self.bins.area(b)))
                .collect(),
        }
    }
}

/// The proxy stress (004 eq 4) of each bin in the radial/azimuthal basis, [σ_ρρ, σ_θθ, σ_ρθ]
/// (Pa; in 2-D N/m), from the tallies of grains at `pos` (binned where they are at `now`).
pub fn polar_stress(bins: &Bins, tally: &ImpulseTally, pos: &[DVec3], now: f64) -> Vec<[f64; 3]> {
    (0..bins.count)
        .map(|b| {
            let sum =
                (0..pos.len())
                    .filter(|&k| bins.of(pos[k]) == Some(b))
                    .fold(DMat3::ZERO, |a, k| {
                        let e_r = (pos[k] - bins.center).truncate().normalize_or_zero();
                        let (er, et) = (
                            DVec3::new(e_r.x, e_r.y, 0.0),
                            DVec3::new(-e_r.y, e_r.x, 0.0),
                        );
                        let basis = DMat3::from_cols(er, et, DVec3::Z);
                        a + basis.transpose() * tally.moment[k] * basis
                    });
            let s = sum * (1.0 / (bins.area(b) * (now - tally.since)));
            [s.x_axis.x, s.y_axis.y, 0.5 * (s.y_axis.x + s.x_axis.y)]
        })
        .collect()
}

/// Least-squares fit of ln(ω/ω₀) = −ξ/λ + c over the points with ω > 0: the decay length λ
/// (m) and the coefficient of determination R² of the fit; `None` with fewer than 3 points.
pub fn exponential_decay(xi: &[f64], omega: &[f64]) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64)> = xi
        .iter()
        .zip(omega)
        .filter(|(_, &w)| w.is_finite() && w > 0.0)
        .map(|(&x, &w)| (x, w.ln()))
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    let slope = sxy / sxx;
    let r2 = if syy > 0.0 {
        sxy * sxy / (sxx * syy)
    } else {
        1.0
    };
    (slope < 0.0).then_some((-1.0 / slope, r2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rigid_rotation_gives_flat_profiles_and_exponential_fit_recovers_lambda() {
        // Grains on circles turning rigidly at 0.5 rad/s: every profile is 0.5.
        let bins = Bins {
            center: DVec3::ZERO,
            inner: 1.0,
            width: 1.0,
            count: 3,
        };
        let mut s = CouetteSampler::new(bins, 2);
        let r0 = [1.5, 2.5, 3.5];
        let state = |t: f64| -> (Vec<DVec3>, Vec<DVec3>) {
            r0.iter()
                .map(|&r| {
                    let a = 0.5 * t + r;
                    (
                        DVec3::new(r * a.cos(), r * a.sin(), 0.0),
                        DVec3::new(-0.5 * r * a.sin(), 0.5 * r * a.cos(), 0.0),
                    )
                })
                .unzip()
        };
        for k in 0..=40 {
            let t = 0.5 * k as f64;
            let (x, v) = state(t);
            s.sample(t, &x, &v, &[0.1; 3]);
        }
        let p = s.profiles();
        for b in 0..3 {
            assert!((p.omega[b] - 0.5).abs() < 1e-12, "{p:?}");
            assert!((p.omega_displacement[b] - 0.5).abs() < 1e-12, "{p:?}");
            assert!((p.omega_internal[b] - 0.5).abs() < 1e-12);
            assert!(p.fluctuation[b] < 1e-12);
            // One disc of area 0.01 π in a bin of area π ((b+2)² − (b+1)²).
            let area = std::f64::consts::PI * (((b + 2) * (b + 2) - (b + 1) * (b + 1)) as f64);
            assert!((p.packing[b] - 0.01 * std::f64::consts::PI / area).abs() < 1e-15);
        }
        let xi = [0.5, 1.5, 2.5, 3.5];
        let w: Vec<f64> = xi.iter().map(|x: &f64| 2.0 * (-x / 1.7).exp()).collect();
        let (lambda, r2) = exponential_decay(&xi, &w).expect("fits");
        assert!((lambda - 1.7).abs() < 1e-12 && (r2 - 1.0).abs() < 1e-12);
    }
}
