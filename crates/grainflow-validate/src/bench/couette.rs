//! `grainflow bench couette`: approximate hard spheres against the soft method on the same dense
//! 2-D Couette flow (seed 004 §III claims up to 10× in favour of approx_hard).
//!
//! Both runs start from the same pack (the scene's seed) at packing fraction φ: approx_hard with
//! the scene's fixed dt, soft with the Hertz contact of the scene's material and dt = t_c/15.
//! Each settles, then samples the angular-velocity profile over the same interval; the result is
//! the wall-clock time per simulated second of each, and the RMS difference of their mean
//! profiles beside each profile's fluctuation (whether the flows match).

use serde::Serialize;

use crate::validation::couette::{couette_scene, rms, run_couette, CouetteRun};
use grainflow::scene::{Method, TimeStep};
use grainflow::Result;

/// One method's run.
#[derive(Clone, Debug, Serialize)]
pub struct MethodRun {
    /// "approx_hard" or "soft".
    pub method: &'static str,
    /// Time step (s).
    pub dt: f64,
    /// Wall-clock seconds per simulated second.
    pub wall_per_simulated_s: f64,
    /// Mean ω/Ω by distance from the inner wall (one mean diameter per bin).
    pub omega: Vec<f64>,
    /// Fluctuation of that profile (RMS over bins of the block standard deviation).
    pub fluctuation: f64,
    /// Largest overlap after any step, over the smaller radius.
    pub max_overlap: f64,
}

/// The comparison.
#[derive(Clone, Debug, Serialize)]
pub struct CouetteBench {
    /// Packing fraction achieved.
    pub phi: f64,
    /// Grains.
    pub grains: usize,
    /// The two runs.
    pub runs: Vec<MethodRun>,
    /// RMS difference of the two mean ω/Ω profiles.
    pub profile_difference: f64,
    /// Soft wall time over approx_hard wall time, per simulated second.
    pub speedup: f64,
}

fn method_run(method: &'static str, dt: f64, r: &CouetteRun) -> MethodRun {
    let f = &r.profiles.fluctuation;
    MethodRun {
        method,
        dt,
        wall_per_simulated_s: r.wall_s / r.simulated,
        omega: r.profiles.omega.clone(),
        fluctuation: rms(f, &vec![0.0; f.len()]),
        max_overlap: r.max_overlap,
    }
}

/// Runs both methods at packing fraction `phi`, settling `settle` s and measuring `measure` s.
pub fn couette(phi: f64, settle: f64, measure: f64) -> Result<CouetteBench> {
    let hard = couette_scene(phi, 1e-3)?;
    let dt_hard = 1e-3;
    let a = run_couette(hard, settle, measure, 0.01)?;
    let mut soft = couette_scene(phi, 1e-3)?;
    soft.simulation.method = Method::default();
    soft.simulation.dt = TimeStep::Auto(grainflow::scene::Auto::Auto);
    let dt_soft = grainflow::sim::Simulation::new(soft.clone(), std::path::Path::new("."))?
        .physics
        .dt;
    let b = run_couette(soft, settle, measure, 0.01)?;
    let (ra, rb) = (
        method_run("approx_hard", dt_hard, &a),
        method_run("soft", dt_soft, &b),
    );
    Ok(CouetteBench {
        phi: a.phi,
        grains: a.grains,
        profile_difference: rms(&a.profiles.omega, &b.profiles.omega),
        speedup: rb.wall_per_simulated_s / ra.wall_per_simulated_s,
        runs: vec![ra, rb],
    })
}
