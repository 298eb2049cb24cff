//! 2-D granular Couette flow with approximate hard spheres (seed 004 §II), the scene
//! `scenes/couette.toml` at several packing fractions φ.
//!
//! Checks (issue 8, VALIDATION.md "Dense flows"):
//! * after every step no overlap above 1e-9 of a radius remains (an independent check of all
//!   listed pairs and walls after the correction, at every φ);
//! * the proxy stress on the outer wall (004 eq 4: normal impulses per time and length) is near
//!   zero below the strengthening transition and rises past it; the transition, placed between
//!   the two sweep points where the stress jumps most, lies near φ_c = 0.776 (Howell et al. 1999);
//! * past it, the angular velocity decays exponentially from the inner wall over a few grain
//!   diameters (a shear band; 004 §II.2, Howell et al. 1999, Lätzel et al. 2003);
//! * while the pack flows, velocities from displacements equal the internal ones (004 §II.2);
//! * the per-region proxy stress next to the outer wall matches the wall's own tally;
//! * halving dt changes the mean velocity profile by less than its fluctuations (004 §II.3);
//! * (full) above jamming the pack turns without rearranging: almost no pair of neighbours
//!   parts during the test interval.

use std::path::Path;

use super::Metric;
use crate::analysis::couette::{
    exponential_decay, polar_stress, Bins, CouetteProfiles, CouetteSampler,
};
use crate::approx_hard::overlap::max_overlap;
use crate::scene::{ParticleSource, Scene, TimeStep};
use crate::sim::Simulation;
use crate::{Error, Result};

const CASE: &str = "couette";
const MODEL: &str = "approx_hard";

/// The Couette scene of the repository.
pub const SCENE: &str = include_str!("../../../../scenes/couette.toml");

/// Strengthening transition of 2-D Couette flow (Howell, Behringer & Veje 1999).
pub const PHI_C: f64 = 0.776;

/// The Couette scene with packing fraction `phi` and time step `dt` (s).
pub fn couette_scene(phi: f64, dt: f64) -> Result<Scene> {
    let mut scene = Scene::from_toml(SCENE, "scenes/couette.toml")?;
    scene.simulation.dt = TimeStep::Fixed(dt);
    for src in scene.particles.iter_mut() {
        if let ParticleSource::Annulus {
            packing_fraction, ..
        } = src
        {
            *packing_fraction = phi;
        }
    }
    Ok(scene)
}

/// The geometry of the scene's annulus: bins one mean diameter wide between the circles,
/// the outer radius and the mean diameter (m).
pub fn geometry(scene: &Scene) -> Result<(Bins, f64, f64)> {
    scene
        .particles
        .iter()
        .find_map(|s| match s {
            ParticleSource::Annulus {
                center,
                inner_radius,
                outer_radius,
                radius_min,
                radius_max,
                ..
            } => {
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
            crate::walls::Motion::Rotate { omega, .. } => Some(omega),
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
    /// Proxy stress σ_ρρ of the bin next to the outer wall (N/m, compression negative).
    pub outer_bin_stress: f64,
    /// Fraction of neighbour pairs (gap below a tenth of a mean radius) at the start of the
    /// interval that moved apart by more than half a mean radius by its end.
    pub parted: f64,
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
    for k in 0..settle_steps + measure_steps {
        if k == settle_steps {
            sim.world.approx.tally.reset(sim.world.time);
            start = sim.world.particles.pos.clone();
        }
        sim.step()?;
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
        if k >= settle_steps && (k + 1 - settle_steps) % per_sample == 0 {
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
    let outer_wall = w
        .walls
        .iter()
        .position(
            |wall| matches!(&wall.shape, crate::walls::Shape::Cylinder(c) if c.radius == outer),
        )
        .unwrap_or(w.walls.len().saturating_sub(1));
    // Impulse tallies exist for approx_hard only.
    let tally = &w.approx.tally;
    let (outer_stress, stress) = if tally.wall_normal.len() > outer_wall {
        (
            tally.wall_force(outer_wall, now) / (std::f64::consts::TAU * outer),
            polar_stress(&bins, tally, &w.particles.pos, now),
        )
    } else {
        (f64::NAN, Vec::new())
    };
    let p = &w.particles;
    let (mut near, mut parted) = (0usize, 0usize);
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            let d0 = start[i].distance(start[j]);
            if d0 < p.radius[i] + p.radius[j] + 0.05 * d {
                near += 1;
                if p.pos[i].distance(p.pos[j]) > d0 + 0.25 * d {
                    parted += 1;
                }
            }
        }
    }
    Ok(CouetteRun {
        grains: p.len(),
        phi,
        max_overlap: worst,
        profiles,
        outer_stress,
        outer_bin_stress: stress.last().map_or(f64::NAN, |s| s[0]),
        parted: parted as f64 / near.max(1) as f64,
        wall_s: clock.elapsed().as_secs_f64(),
        simulated: sim.world.time,
    })
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

/// The case: a packing-fraction sweep, dt halving and (full) a jammed pack.
pub fn couette(full: bool) -> Result<Vec<Metric>> {
    let dt = 1e-3;
    let (sweep, settle, measure): (Vec<f64>, f64, f64) = if full {
        ((0..=10).map(|k| 0.70 + 0.01 * k as f64).collect(), 3.0, 3.0)
    } else {
        (vec![0.70, 0.74, 0.76, 0.78], 2.0, 3.0)
    };
    let sample = 0.01;
    let mut out = Vec::new();
    let mut runs = Vec::new();
    for &phi in &sweep {
        let scene = couette_scene(phi, dt)?;
        runs.push(run_couette(scene, settle, measure, sample)?);
    }
    let probe = couette_scene(0.78, dt)?;
    let (_, _, diameter) = geometry(&probe)?;
    let worst = runs.iter().map(|r| r.max_overlap).fold(0.0, f64::max);
    // The outer wall feels almost nothing in a loose pack and ever more as φ rises.
    let rises = runs
        .windows(2)
        .all(|w| w[1].outer_stress > w[0].outer_stress);
    let values: Vec<String> = runs
        .iter()
        .map(|r| format!("{:.3}: {:.2e}", r.phi, r.outer_stress))
        .collect();
    out.push(Metric::new(
        CASE,
        MODEL,
        format!(
            "outer-wall proxy stress (N/m) rises with phi (1 = yes) [{}]",
            values.join(", ")
        ),
        f64::from(u8::from(rises)),
        1.0,
        0.0,
    ));
    let (first, last) = (&runs[0], &runs[runs.len() - 1]);
    out.push(Metric::at_least(
        CASE,
        MODEL,
        format!(
            "outer-wall stress at phi = {:.3} / at phi = {:.3}",
            last.phi, first.phi
        ),
        last.outer_stress / first.outer_stress,
        10.0,
    ));
    // The transition: the largest relative jump of the outer-wall stress between neighbours.
    let (k, _) = (1..runs.len())
        .map(|k| (k, runs[k].outer_stress / runs[k - 1].outer_stress))
        .fold((1, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    let spacing = runs[k].phi - runs[k - 1].phi;
    out.push(Metric::new(
        CASE,
        MODEL,
        "strengthening transition phi (largest stress jump)",
        0.5 * (runs[k].phi + runs[k - 1].phi),
        PHI_C,
        0.5 * spacing + 0.01,
    ));
    // The shear band past the transition: the densest run of the sweep below 0.79.
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
    // Halving dt from the same initial pack, over the same interval.
    let phi_dt = if full { 0.78 } else { 0.74 };
    let a = run_couette(couette_scene(phi_dt, dt)?, settle, measure, sample)?;
    let b = run_couette(couette_scene(phi_dt, 0.5 * dt)?, settle, measure, sample)?;
    let fluct = rms(
        &a.profiles.fluctuation,
        &vec![0.0; a.profiles.fluctuation.len()],
    );
    out.push(Metric::at_most(
        CASE,
        MODEL,
        format!("rms profile change on halving dt / its fluctuation, phi = {phi_dt}"),
        rms(&a.profiles.omega, &b.profiles.omega) / fluct,
        1.0,
    ));
    let worst = worst.max(a.max_overlap).max(b.max_overlap);
    if full {
        let jammed = run_couette(couette_scene(0.80, dt)?, settle, measure, sample)?;
        out.push(Metric::at_most(
            CASE,
            MODEL,
            format!(
                "neighbour pairs parted in the jammed pack, phi = {:.4}",
                jammed.phi
            ),
            jammed.parted,
            0.01,
        ));
        out.push(Metric::at_most(
            CASE,
            MODEL,
            "largest overlap after a step in the jammed pack (of a radius)",
            jammed.max_overlap,
            1e-9,
        ));
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
