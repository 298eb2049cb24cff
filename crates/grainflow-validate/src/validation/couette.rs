//! 2-D granular Couette flow with approximate hard spheres (seed 004 §II), the scene
//! `scenes/couette.toml` at several packing fractions φ.
//!
//! Checks (issue 8, VALIDATION.md "Dense flows"):
//! * after every step no overlap above 1e-9 of a radius remains (an independent check of all
//!   listed pairs and walls after the correction, at every φ);
//! * the proxy stress on the outer wall (004 eq 4: normal impulses per time and length) is near
//!   zero below the strengthening transition and rises past it, by at least an order of
//!   magnitude over the sweep, never falling from one point to the next by more than twice
//!   the standard error of the difference (full: the mean of three packs per point, the
//!   error from their spread; quick: one pack, the error from its block means);
//! * (full) in a cell of Howell et al.'s proportions (gap of 19 mean diameters; in the
//!   7-diameter cell of the scene the rise is smeared) the transition, the onset of the rise
//!   fitted as a flat level followed by a straight rise, lies near φ_c = 0.776 (Howell et al.
//!   1999);
//! * past it, the angular velocity decays exponentially from the inner wall over a few grain
//!   diameters (a shear band; 004 §II.2, Howell et al. 1999, Lätzel et al. 2003);
//! * while the pack flows, velocities from displacements equal the internal ones (004 §II.2);
//! * the per-region proxy stress next to the outer wall matches the wall's own tally;
//! * halving dt changes the mean velocity profile by less than its fluctuations (004 §II.3):
//!   the fluctuations are measured as the spread between independent packs (different seeds)
//!   at the same dt, since the profile fluctuates on times longer than the window (004 §II.3:
//!   "the measured error here is being dominated by the noise floor introduced by these
//!   fluctuations"), and block means within one window underestimate them;
//! * (full) above jamming the pack turns without rearranging: almost no pair of neighbours
//!   parts during the test interval, and the angular velocity from displacements is the same
//!   in every bin.

use std::path::Path;

use glam::DVec3;

use super::Metric;
use grainflow::analysis::couette::{
    exponential_decay, polar_stress, Bins, CouetteProfiles, CouetteSampler,
};
use grainflow::approx_hard::max_overlap;
use grainflow::scene::{AnnulusSource, ParticleSource, Scene, TimeStep};
use grainflow::sim::Simulation;
use grainflow::{Error, Result};

const CASE: &str = "couette";
const MODEL: &str = "approx_hard";

/// The Couette scene of the repository.
pub const SCENE: &str = include_str!("../../../../scenes/couette.toml");

/// Strengthening transition of 2-D Couette flow (Howell, Behringer & Veje 1999).
pub const PHI_C: f64 = 0.776;

/// A packing fraction above jamming in the scene's cell: past the random close packing of
/// polydisperse discs (about 0.84), below where the annulus fill jams (about 0.865). Measured
/// over 3 s after 3 s: at 0.84 and 0.86 the pack turns as a body (ω from displacements
/// 0.007 Ω and 0.021 Ω in every bin); at 0.80 a shear band rearranges the inner bins.
pub const JAMMED: f64 = 0.86;

/// The Couette scene with packing fraction `phi` and time step `dt` (s).
pub fn couette_scene(phi: f64, dt: f64) -> Result<Scene> {
    let mut scene = Scene::from_toml(SCENE, "scenes/couette.toml")?;
    scene.simulation.dt = TimeStep::Fixed(dt);
    for src in scene.particles.iter_mut() {
        if let ParticleSource::Annulus(AnnulusSource {
            packing_fraction, ..
        }) = src
        {
            *packing_fraction = phi;
        }
    }
    Ok(scene)
}

/// The Couette scene in a cell of Howell, Behringer & Veje's (1999) proportions: their inner
/// radius 10.3 cm and outer 25.5 cm are 12.9 and 31.9 of their mean diameters of 8 mm, about
/// those of our discs; we take R_i = 104 mm, R_o = 256 mm, a gap of 19 mean diameters (about
/// 2500 discs at φ = 0.78). The inner wall still turns at Ω = 1 rad/s.
pub fn wide_couette_scene(phi: f64, dt: f64) -> Result<Scene> {
    let mut scene = couette_scene(phi, dt)?;
    let (inner, outer) = (0.104, 0.256);
    for w in scene.walls.iter_mut() {
        if let grainflow::scene::ShapeSpec::Cylinder { radius, .. } = &mut w.shape {
            *radius = if *radius > 0.05 { outer } else { inner };
        }
    }
    for src in scene.particles.iter_mut() {
        if let ParticleSource::Annulus(AnnulusSource {
            inner_radius,
            outer_radius,
            ..
        }) = src
        {
            (*inner_radius, *outer_radius) = (inner, outer);
        }
    }
    scene.simulation.domain = None;
    Ok(scene)
}

/// The geometry of the scene's annulus: bins one mean diameter wide between the circles,
/// the outer radius and the mean diameter (m).
pub fn geometry(scene: &Scene) -> Result<(Bins, f64, f64)> {
    scene
        .particles
        .iter()
        .find_map(|s| match s {
            ParticleSource::Annulus(AnnulusSource {
                center,
                inner_radius,
                outer_radius,
                radius_min,
                radius_max,
                ..
            }) => {
                let d = radius_min + radius_max;
                Some((
                    Bins {
                        center: *center,
                        inner: *inner_radius,
                        width: d,
                        count: ((outer_radius - inner_radius) / d).floor() as usize,
                    },
                    *outer_radius,
                    d,
                ))
            }
            _ => None,
        })
        .ok_or_else(|| Error::scene("particles", "the Couette scene needs an annulus source"))
}

/// Angular velocity Ω of the first rotating wall (rad/s).
pub fn inner_omega(scene: &Scene) -> f64 {
    scene
        .walls
        .iter()
        .find_map(|w| match w.motion {
            grainflow::walls::Motion::Rotate { omega, .. } => Some(omega),
            _ => None,
        })
        .unwrap_or(0.0)
}

/// What one run measured over its test interval.
#[derive(Clone, Debug)]
pub struct CouetteRun {
    /// Grains.
    pub grains: usize,
    /// Packing fraction achieved (area of the discs over the annulus).
    pub phi: f64,
    /// Largest overlap after any step, over the smaller radius (independent check).
    pub max_overlap: f64,
    /// Profiles of the test interval, angular velocities divided by Ω.
    pub profiles: CouetteProfiles,
    /// Proxy normal stress on the outer wall: Σ|J_n| / (T 2π R_o) (N/m).
    pub outer_stress: f64,
    /// Its standard error from the spread of its means over five equal blocks of the
    /// interval (N/m).
    pub outer_stress_error: f64,
    /// Proxy stress σ_ρρ of the bin next to the outer wall (N/m, compression negative).
    pub outer_bin_stress: f64,
    /// Rearrangements over the test interval (004 §II.2: a jammed pack turns "without
    /// rearrangements"): the fraction of neighbour pairs (gap below a tenth of a mean radius)
    /// at the start of the interval that moved apart by more than half a mean radius by its
    /// end. Pair distances do not change under a rigid rotation, so a pack turning as a body
    /// (with slip at the walls) parts none.
    pub parted: f64,
    /// The same fraction per bin of the pair's midpoint at the start (NaN where no pair).
    pub parted_by_bin: Vec<f64>,
    /// Wall-clock time of the run (s).
    pub wall_s: f64,
    /// Simulated time (s).
    pub simulated: f64,
}

/// Runs `scene` (a Couette scene) for `settle` seconds, then measures for `measure` seconds,
/// sampling every `sample` seconds.
pub fn run_couette(scene: Scene, settle: f64, measure: f64, sample: f64) -> Result<CouetteRun> {
    let (bins, outer, d) = geometry(&scene)?;
    let omega = inner_omega(&scene);
    let clock = std::time::Instant::now();
    let mut sim = Simulation::new(scene, Path::new("."))?;
    let outer_wall = sim
        .world
        .walls
        .iter()
        .position(
            |wall| matches!(&wall.shape, grainflow::walls::Shape::Cylinder(c) if c.radius == outer),
        )
        .unwrap_or(sim.world.walls.len().saturating_sub(1));
    let dt = sim.physics.dt;
    let area = std::f64::consts::PI * (outer * outer - bins.inner * bins.inner);
    let p = &sim.world.particles;
    let phi = p
        .radius
        .iter()
        .map(|r| std::f64::consts::PI * r * r)
        .sum::<f64>()
        / area;
    let per_sample = (sample / dt).round().max(1.0) as u64;
    let settle_steps = (settle / dt).round() as u64;
    let measure_steps = (measure / dt).round() as u64;
    // Five blocks: the fluctuation is that of a fifth of the interval's mean profile.
    let block = ((measure / sample).round() as usize / 5).max(1);
    let mut sampler = CouetteSampler::new(bins, block);
    let mut worst = 0.0f64;
    let mut start = Vec::new();
    // The outer wall's Σ|J_n| at the end of each fifth of the interval.
    let mut block_impulse = Vec::new();
    let per_block = (measure_steps / 5).max(1);
    for k in 0..settle_steps + measure_steps {
        if k == settle_steps {
            sim.world.tally.reset(sim.world.time);
            start = sim.world.particles.pos.clone();
        }
        sim.step()?;
        let tally = &sim.world.tally;
        if k >= settle_steps && (k + 1 - settle_steps).is_multiple_of(per_block) {
            if let Some(&j) = tally.wall_normal.get(outer_wall) {
                block_impulse.push(j);
            }
        }
        let w = &sim.world;
        let (o, _) = max_overlap(
            &w.particles.pos,
            &w.particles.radius,
            &w.neighbors,
            &sim.physics.periodic,
            &w.walls,
            &w.wall_runtime.pose,
        );
        worst = worst.max(o);
        if k >= settle_steps && (k + 1 - settle_steps).is_multiple_of(per_sample) {
            let p = &w.particles;
            sampler.sample(w.time, &p.pos, &p.vel, &p.radius);
        }
    }
    let w = &sim.world;
    let now = w.time;
    let mut profiles = sampler.profiles();
    for v in [
        &mut profiles.omega,
        &mut profiles.fluctuation,
        &mut profiles.omega_displacement,
        &mut profiles.omega_internal,
    ] {
        v.iter_mut().for_each(|x| *x /= omega);
    }
    // Impulse tallies exist for approx_hard only.
    let tally = &w.tally;
    let (outer_stress, stress) = if tally.wall_normal.len() > outer_wall {
        (
            tally.wall_force(outer_wall, now) / (std::f64::consts::TAU * outer),
            polar_stress(&bins, tally, &w.particles.pos, now),
        )
    } else {
        (f64::NAN, Vec::new())
    };
    // Block means of the wall stress, and the standard error of their mean.
    let block_stress: Vec<f64> = std::iter::once(&0.0)
        .chain(&block_impulse)
        .zip(&block_impulse)
        .map(|(a, b)| (b - a) / (per_block as f64 * dt * std::f64::consts::TAU * outer))
        .collect();
    let (_, outer_stress_error) = mean_and_error(&block_stress);
    let p = &w.particles;
    let (parted, parted_by_bin) = parted_pairs(&start, &p.pos, &p.radius, &bins, d);
    Ok(CouetteRun {
        grains: p.len(),
        phi,
        max_overlap: worst,
        profiles,
        outer_stress,
        outer_stress_error,
        outer_bin_stress: stress.last().map_or(f64::NAN, |s| s[0]),
        parted,
        parted_by_bin,
        wall_s: clock.elapsed().as_secs_f64(),
        simulated: sim.world.time,
    })
}

/// The fraction of neighbour pairs at `start` (within 5 % of the mean diameter `d` (m) of
/// touching) that moved apart by more than a quarter diameter by `pos`, over all and per bin
/// of the pair's midpoint at the start (NaN where no pair).
fn parted_pairs(
    start: &[DVec3],
    pos: &[DVec3],
    radius: &[f64],
    bins: &Bins,
    d: f64,
) -> (f64, Vec<f64>) {
    let (mut near, mut parted) = (0usize, 0usize);
    let (mut near_bin, mut parted_bin) = (vec![0usize; bins.count], vec![0usize; bins.count]);
    for i in 0..pos.len() {
        for j in i + 1..pos.len() {
            let d0 = start[i].distance(start[j]);
            if d0 < radius[i] + radius[j] + 0.05 * d {
                let mid = 0.5 * (start[i] + start[j]) - bins.center;
                let xi = (mid.x.hypot(mid.y) - bins.inner) / bins.width;
                let b = (xi.max(0.0) as usize).min(bins.count.saturating_sub(1));
                near += 1;
                near_bin[b] += 1;
                if pos[i].distance(pos[j]) > d0 + 0.25 * d {
                    parted += 1;
                    parted_bin[b] += 1;
                }
            }
        }
    }
    let by_bin = parted_bin
        .iter()
        .zip(&near_bin)
        .map(|(&k, &n)| if n > 0 { k as f64 / n as f64 } else { f64::NAN })
        .collect();
    (parted as f64 / near.max(1) as f64, by_bin)
}

/// The mean of `x` and its standard error s/√n, with s² = Σ (x − mean)² / (n − 1) (NaN for
/// fewer than two values).
pub fn mean_and_error(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let ss: f64 = x.iter().map(|x| (x - mean).powi(2)).sum();
    (mean, (ss / ((n - 1.0) * n)).sqrt())
}

/// One point of a packing-fraction sweep over several packs.
#[derive(Clone, Copy, Debug)]
struct SweepPoint {
    /// Mean packing fraction achieved.
    phi: f64,
    /// Mean outer-wall stress (N/m).
    stress: f64,
    /// Its standard error (N/m).
    error: f64,
}

/// Root mean square of a − b over the bins where both are finite.
pub fn rms(a: &[f64], b: &[f64]) -> f64 {
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .map(|(x, y)| (x - y) * (x - y))
        .collect();
    (d.iter().sum::<f64>() / d.len().max(1) as f64).sqrt()
}

/// Onset of a rise: the φ_c of the least-squares fit y = a + b max(φ − φ_c, 0) (a flat level,
/// then a straight rise), searched on a grid of 1e-4 between the first and last φ; for each
/// φ_c the fit is linear least squares in a and b.
pub fn onset(phi: &[f64], y: &[f64]) -> f64 {
    let n = phi.len() as f64;
    let residual = |c: f64| {
        let x: Vec<f64> = phi.iter().map(|p| (p - c).max(0.0)).collect();
        let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
        let sxx: f64 = x.iter().map(|x| (x - mx).powi(2)).sum();
        let sxy: f64 = x.iter().zip(y).map(|(x, y)| (x - mx) * (y - my)).sum();
        let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        x.iter()
            .zip(y)
            .map(|(x, y)| (y - my - b * (x - mx)).powi(2))
            .sum::<f64>()
    };
    let (lo, hi) = (phi[0], phi[phi.len() - 1]);
    let steps = ((hi - lo) / 1e-4).round() as usize;
    (0..=steps)
        .map(|k| lo + (hi - lo) * k as f64 / steps.max(1) as f64)
        .map(|c| (c, residual(c)))
        .fold((lo, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a })
        .0
}

/// The strengthening transition of a sweep: where the outer-wall stress, near zero in loose
/// packs, starts to rise (Howell et al. 1999 find the mean stress growing continuously from
/// φ_c), placed by [`onset`] on the stress; expected at φ_c within half the spacing of the
/// sweep plus the 0.01 spread of achieved packing fractions (004 §II). The onset fitted to
/// log stress, which weighs the loose packs' small collisional stress as much as the rise, is
/// printed beside it.
fn transition(runs: &[CouetteRun], cell: &str) -> Metric {
    let phi: Vec<f64> = runs.iter().map(|r| r.phi).collect();
    let stress: Vec<f64> = runs.iter().map(|r| r.outer_stress).collect();
    let log: Vec<f64> = stress.iter().map(|s| s.log10()).collect();
    let spacing = (phi[phi.len() - 1] - phi[0]) / (phi.len() - 1) as f64;
    let values: Vec<String> = runs
        .iter()
        .map(|r| format!("{:.3}: {:.2e}", r.phi, r.outer_stress))
        .collect();
    Metric::new(
        CASE,
        MODEL,
        format!(
            "strengthening transition phi (onset of the outer-wall stress; {:.4} fitted to log stress), {cell} [{}]",
            onset(&phi, &log),
            values.join(", ")
        ),
        onset(&phi, &stress),
        PHI_C,
        0.5 * spacing + 0.01,
    )
}

/// The change of the mean angular-velocity profile when dt is halved, against its statistical
/// error (004 §II.3). Runs `a` (dt) and `b` (dt/2) start from the same packs, one per seed.
/// Per bin: the change Δ = mean(b) − mean(a) over the packs; the run-to-run variance
/// s² = Σ (x − mean)² / (n − 1), pooled over both dts, so the standard error of Δ is
/// s √(2/n). `change` and `error` are their rms over the bins (in units of Ω): a ratio near 1
/// means the change is the noise of independent runs; above 2 it is significant.
pub struct DtHalving {
    /// Rms over bins of Δ (/Ω).
    pub change: f64,
    /// Rms over bins of the standard error of Δ (/Ω).
    pub error: f64,
    /// Rms over bins of the block fluctuation within one window, for comparison (/Ω).
    pub block: f64,
}

impl DtHalving {
    /// From runs at dt and dt/2 with the same packs in the same order.
    pub fn new(a: &[CouetteRun], b: &[CouetteRun]) -> DtHalving {
        let omega = |r: &[CouetteRun]| -> Vec<Vec<f64>> {
            r.iter().map(|r| r.profiles.omega.clone()).collect()
        };
        DtHalving::from_profiles(&omega(a), &omega(b), &a[0].profiles.fluctuation)
    }

    /// From the mean profiles `a[pack][bin]` at dt and `b[pack][bin]` at dt/2 (at least two
    /// packs each) and the block fluctuation of one run; bins with a NaN anywhere are skipped.
    pub fn from_profiles(a: &[Vec<f64>], b: &[Vec<f64>], block: &[f64]) -> DtHalving {
        let n = a.len().min(b.len());
        let (mut change, mut var, mut blocks, mut used) = (0.0, 0.0, 0.0, 0usize);
        for k in 0..block.len() {
            let xa: Vec<f64> = a[..n].iter().map(|p| p[k]).collect();
            let xb: Vec<f64> = b[..n].iter().map(|p| p[k]).collect();
            if xa
                .iter()
                .chain(&xb)
                .chain([&block[k]])
                .any(|x| !x.is_finite())
            {
                continue;
            }
            let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
            let (ma, mb) = (mean(&xa), mean(&xb));
            let ss = xa.iter().map(|x| (x - ma).powi(2)).sum::<f64>()
                + xb.iter().map(|x| (x - mb).powi(2)).sum::<f64>();
            let s2 = ss / (2 * (n - 1)) as f64;
            change += (mb - ma).powi(2);
            var += s2 * 2.0 / n as f64;
            blocks += block[k].powi(2);
            used += 1;
        }
        let u = used.max(1) as f64;
        DtHalving {
            change: (change / u).sqrt(),
            error: (var / u).sqrt(),
            block: (blocks / u).sqrt(),
        }
    }
}

/// The case: a packing-fraction sweep, dt halving and (full) a jammed pack.
pub fn couette(full: bool) -> Result<Vec<Metric>> {
    let times = Times {
        dt: 1e-3,
        settle: if full { 3.0 } else { 2.0 },
        measure: 3.0,
        sample: 0.01,
    };
    let sweep: Vec<f64> = if full {
        (0..=10).map(|k| 0.70 + 0.01 * k as f64).collect()
    } else {
        vec![0.70, 0.74, 0.76, 0.78]
    };
    let mut out = Vec::new();
    // Packs per point: the scene's seed, and (full) two more, because the stress differs from
    // pack to pack by more than it changes between points 0.01 apart.
    let probe = couette_scene(0.78, times.dt)?;
    let (_, _, diameter) = geometry(&probe)?;
    let seed0 = probe.simulation.seed;
    let seeds: Vec<u64> = (seed0..seed0 + if full { 3 } else { 1 }).collect();
    let mut packs: Vec<Vec<CouetteRun>> = Vec::new();
    for &phi in &sweep {
        let mut at = Vec::new();
        for &s in &seeds {
            let mut scene = couette_scene(phi, times.dt)?;
            scene.simulation.seed = s;
            at.push(times.run(scene)?);
        }
        packs.push(at);
    }
    let runs: Vec<CouetteRun> = packs.iter().map(|at| at[0].clone()).collect();
    let mut worst = packs
        .iter()
        .flatten()
        .map(|r| r.max_overlap)
        .fold(0.0, f64::max);
    stress_metrics(&packs, seeds.len(), &mut out);
    if full {
        // The transition needs a wide cell: Howell et al.'s gap of 19 diameters.
        let mut wide = Vec::new();
        for &phi in &sweep {
            wide.push(times.run(wide_couette_scene(phi, times.dt)?)?);
        }
        out.push(transition(&wide, "19-diameter cell"));
        worst = wide.iter().map(|r| r.max_overlap).fold(worst, f64::max);
    }
    band_metrics(&runs, diameter, &mut out);
    // Halving dt, each from the same two packs (seeds 1 and 2), over the same interval.
    let phi_dt = if full { 0.78 } else { 0.74 };
    let swept = sweep.iter().position(|&phi| phi == phi_dt);
    let mut by_dt = Vec::new();
    for step in [times.dt, 0.5 * times.dt] {
        let mut pair = Vec::new();
        for seed in [seed0, seed0 + 1] {
            // The sweep ran this pack at this phi and dt already.
            let pack = seeds.iter().position(|&s| s == seed);
            if let (true, Some(k), Some(p)) = (step == times.dt, swept, pack) {
                pair.push(packs[k][p].clone());
                continue;
            }
            let mut scene = couette_scene(phi_dt, step)?;
            scene.simulation.seed = seed;
            let r = times.run(scene)?;
            worst = worst.max(r.max_overlap);
            pair.push(r);
        }
        by_dt.push(pair);
    }
    out.push(dt_halving_metric(&by_dt));
    if full {
        let jammed = times.run(couette_scene(JAMMED, times.dt)?)?;
        jammed_metrics(&jammed, times.measure, &mut out);
    }
    out.push(Metric::at_most(
        CASE,
        MODEL,
        "largest overlap after any step (of a radius)",
        worst,
        1e-9,
    ));
    Ok(out)
}

/// The times of every run of the case (s): step, settling, measuring, sampling interval.
#[derive(Clone, Copy, Debug)]
struct Times {
    dt: f64,
    settle: f64,
    measure: f64,
    sample: f64,
}

impl Times {
    /// [`run_couette`] with these times.
    fn run(&self, scene: Scene) -> Result<CouetteRun> {
        run_couette(scene, self.settle, self.measure, self.sample)
    }
}

/// The outer-wall stress over the sweep: it never falls significantly from one point to the
/// next, and rises by at least an order of magnitude. `packs` holds the runs per point.
fn stress_metrics(packs: &[Vec<CouetteRun>], seeds: usize, out: &mut Vec<Metric>) {
    // Per point: the mean stress over the packs and its standard error from the packs'
    // spread, or with one pack that of its block means.
    let points: Vec<SweepPoint> = packs
        .iter()
        .map(|at| {
            let stress: Vec<f64> = at.iter().map(|r| r.outer_stress).collect();
            let (mean, spread) = mean_and_error(&stress);
            SweepPoint {
                phi: at.iter().map(|r| r.phi).sum::<f64>() / at.len() as f64,
                stress: mean,
                error: if at.len() > 1 {
                    spread
                } else {
                    at[0].outer_stress_error
                },
            }
        })
        .collect();
    // The outer wall feels almost nothing in a loose pack and ever more as φ rises: from one
    // point of the sweep to the next it never falls by more than twice the standard error of
    // the difference (the stress of a Couette cell fluctuates strongly, Howell et al. 1999).
    // Block means are correlated over longer than a block, so this error is if anything too
    // small and the test too strict.
    let falls = points
        .windows(2)
        .filter(|w| w[0].stress - w[1].stress > 2.0 * w[0].error.hypot(w[1].error))
        .count();
    let values: Vec<String> = points
        .iter()
        .map(|p| format!("{:.3}: {:.2e} ± {:.1e}", p.phi, p.stress, p.error))
        .collect();
    out.push(Metric::new(
        CASE,
        MODEL,
        format!(
            "outer-wall proxy stress (N/m, mean over {seeds} pack(s)) falls significantly (by more than 2 standard errors) from one phi to the next, times [{}]",
            values.join(", ")
        ),
        falls as f64,
        0.0,
        0.0,
    ));
    let (first, last) = (points[0], points[points.len() - 1]);
    out.push(Metric::at_least(
        CASE,
        MODEL,
        format!(
            "orders of magnitude the outer-wall stress rises, phi = {:.3} to {:.3}",
            first.phi, last.phi
        ),
        (last.stress / first.stress).log10(),
        1.0,
    ));
}

/// The shear band past the transition (the densest run of the sweep below 0.79) and the
/// flowing pack (the loosest): decay length, fit quality, the stress near the outer wall and
/// the two velocity profiles. `diameter` is the mean grain diameter (m).
fn band_metrics(runs: &[CouetteRun], diameter: f64, out: &mut Vec<Metric>) {
    let band = runs
        .iter()
        .rev()
        .find(|r| r.phi < 0.79)
        .unwrap_or(&runs[runs.len() - 1]);
    let (lambda, r2) =
        exponential_decay(&band.profiles.xi, &band.profiles.omega).unwrap_or((f64::NAN, f64::NAN));
    out.push(Metric::new(
        CASE,
        MODEL,
        format!(
            "shear-band decay length (diameters) at phi = {:.4}",
            band.phi
        ),
        lambda / diameter,
        2.0,
        1.5,
    ));
    out.push(Metric::at_least(
        CASE,
        MODEL,
        "R^2 of the exponential fit of omega(xi)",
        r2,
        0.8,
    ));
    out.push(Metric::new(
        CASE,
        MODEL,
        "proxy sigma_rr next to the outer wall / outer-wall stress",
        -band.outer_bin_stress / band.outer_stress,
        1.0,
        0.2,
    ));
    let flowing = &runs[0];
    out.push(Metric::at_most(
        CASE,
        MODEL,
        format!(
            "rms(omega from displacements - internal)/Omega at phi = {:.4}",
            flowing.phi
        ),
        rms(
            &flowing.profiles.omega_displacement,
            &flowing.profiles.omega_internal,
        ),
        0.01,
    ));
}

/// Halving dt (004 §II.3): the change of the mean profile against the spread of independent
/// packs; `by_dt` holds the two packs at dt and at dt/2.
fn dt_halving_metric(by_dt: &[Vec<CouetteRun>]) -> Metric {
    let halving = DtHalving::new(&by_dt[0], &by_dt[1]);
    Metric::at_most(
        CASE,
        MODEL,
        format!(
            "rms change of the mean omega profile on halving dt / its standard error from independent packs, phi = {:.4} and {:.4} (change {:.4}, error {:.4}, block fluctuation {:.4} of Omega)",
            by_dt[0][0].phi, by_dt[0][1].phi, halving.change, halving.error, halving.block
        ),
        halving.change / halving.error,
        2.0,
    )
}

/// Above jamming the pack turns as a body: almost no neighbours part over the `measure`
/// seconds (s), the angular velocity from displacements is the same in every bin, and no
/// overlap remains.
fn jammed_metrics(jammed: &CouetteRun, measure: f64, out: &mut Vec<Metric>) {
    let round = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.4}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push(Metric::at_most(
        CASE,
        MODEL,
        format!(
            "neighbour pairs parted over the {measure} s interval in the jammed pack, phi = {:.4} (by diameter from the inner wall: [{}])",
            jammed.phi,
            round(&jammed.parted_by_bin)
        ),
        jammed.parted,
        0.01,
    ));
    // A rigid body turns at one angular velocity: the profile from displacements is flat.
    // The internal velocities are not (004 §II.2, Fig. 5: the correction moves the grains
    // in ways their velocities do not record), so they are only printed.
    let disp = &jammed.profiles.omega_displacement;
    let mean = disp.iter().sum::<f64>() / disp.len() as f64;
    let spread = disp.iter().copied().fold(f64::MIN, f64::max)
        - disp.iter().copied().fold(f64::MAX, f64::min);
    out.push(Metric::at_most(
        CASE,
        MODEL,
        format!(
            "jammed pack turns rigidly: spread / mean of omega from displacements over the bins, phi = {:.4} (omega/Omega from displacements [{}], internal [{}])",
            jammed.phi,
            round(disp),
            round(&jammed.profiles.omega_internal)
        ),
        spread / mean,
        0.1,
    ));
    out.push(Metric::at_most(
        CASE,
        MODEL,
        "largest overlap after a step in the jammed pack (of a radius)",
        jammed.max_overlap,
        1e-9,
    ));
}

#[cfg(test)]
mod tests {
    use super::{mean_and_error, onset, DtHalving};

    #[test]
    fn mean_and_standard_error() {
        // 1, 2, 3: mean 2, s² = (1 + 0 + 1)/2 = 1, standard error 1/√3.
        let (m, e) = mean_and_error(&[1.0, 2.0, 3.0]);
        assert_eq!(m, 2.0);
        assert!((e - 1.0 / 3f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn onset_of_a_hinge_is_found() {
        // y = 1 up to φ = 0.7734, then rising with slope 50: the fit recovers the corner to
        // its grid of 1e-4.
        let phi: Vec<f64> = (0..=10).map(|k| 0.70 + 0.01 * k as f64).collect();
        let y: Vec<f64> = phi
            .iter()
            .map(|p| 1.0 + 50.0 * (p - 0.7734f64).max(0.0))
            .collect();
        assert!((onset(&phi, &y) - 0.7734).abs() <= 1e-4);
    }

    #[test]
    fn dt_halving_error_from_two_packs() {
        // Bin 0: at dt 1 and 3, at dt/2 2 and 4: Δ = 1; s² = (2 + 2)/2 = 2; SE² = 2 s²/2 = 2.
        // Bin 1 the same shifted by 1; bin 2 has a NaN and is skipped.
        let a = vec![vec![1.0, 2.0, f64::NAN], vec![3.0, 4.0, 0.0]];
        let b = vec![vec![2.0, 3.0, 0.0], vec![4.0, 5.0, 0.0]];
        let h = DtHalving::from_profiles(&a, &b, &[0.5, 0.5, 0.5]);
        assert!((h.change - 1.0).abs() < 1e-15);
        assert!((h.error - 2f64.sqrt()).abs() < 1e-15);
        assert!((h.block - 0.5).abs() < 1e-15);
    }
}
