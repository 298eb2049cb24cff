//! `grainflow bench couette`: approximate hard spheres against the soft method on the same dense
//! 2-D Couette flow (seed 004 §III claims up to 10× in favour of approx_hard).
//!
//! The runs start from the same pack (the scene's seed) at packing fraction φ: approx_hard with
//! the scene's fixed dt, soft with the Hertz contact of the scene's material (photoelastic
//! discs, E = 4 MPa) and dt = t_c/15, and soft again with glass's stiffness ([`GLASS_E`]), the
//! hard grains seed 004 has in mind: the Hertz contact time, and so the soft method's step,
//! goes as E^(−2/5) (002 eq 27–29 with the Hertz law's equivalent stiffness, ∝ E^(4/5)),
//! while approx_hard's step does not depend on E. Each settles,
//! then samples the angular-velocity profile over the same interval; the result is the
//! wall-clock time per simulated second of each, and the RMS difference of the soft mean
//! profiles from approx_hard's beside each profile's fluctuation (whether the flows match).

use serde::Serialize;

use crate::validation::couette::{couette_scene, rms, run_couette, CouetteRun};
use grainflow::scene::{Method, TimeStep};
use grainflow::Result;

/// Young's modulus of soda-lime glass (Pa), for the soft run at a realistic stiffness.
pub const GLASS_E: f64 = 70e9;

/// One method's run.
#[derive(Clone, Debug, Serialize)]
pub struct MethodRun {
    /// "approx_hard", "soft" (the scene's discs) or "soft glass".
    pub method: &'static str,
    /// Young's modulus of the grains (Pa): the soft runs' stiffness.
    pub youngs_modulus: f64,
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
    /// The three runs: approx_hard, soft, soft glass.
    pub runs: Vec<MethodRun>,
    /// RMS difference of the soft and approx_hard mean ω/Ω profiles.
    pub profile_difference: f64,
    /// Soft wall time over approx_hard wall time, per simulated second.
    pub speedup: f64,
    /// The same with the glass grains.
    pub profile_difference_glass: f64,
    /// Soft glass wall time over approx_hard wall time, per simulated second.
    pub speedup_glass: f64,
}

fn method_run(method: &'static str, e: f64, dt: f64, r: &CouetteRun) -> MethodRun {
    let f = &r.profiles.fluctuation;
    MethodRun {
        method,
        youngs_modulus: e,
        dt,
        wall_per_simulated_s: r.wall_s / r.simulated,
        omega: r.profiles.omega.clone(),
        fluctuation: rms(f, &vec![0.0; f.len()]),
        max_overlap: r.max_overlap,
    }
}

/// Runs approx_hard and the soft method (the scene's grains and glass ones) at packing
/// fraction `phi`, settling `settle` s and measuring `measure` s.
pub fn couette(phi: f64, settle: f64, measure: f64) -> Result<CouetteBench> {
    let dt_hard = 1e-3;
    let hard = couette_scene(phi, dt_hard)?;
    let e_scene = hard.materials[0].youngs_modulus;
    let run = run_couette(hard, settle, measure, 0.01)?;
    let a = method_run("approx_hard", e_scene, dt_hard, &run);
    let soft = |method, e| -> Result<MethodRun> {
        let mut scene = couette_scene(phi, dt_hard)?;
        scene.simulation.method = Method::default();
        scene.simulation.dt = TimeStep::Auto(grainflow::scene::Auto::Auto);
        for m in &mut scene.materials {
            m.youngs_modulus = e;
        }
        let dt = grainflow::sim::Simulation::new(scene.clone(), std::path::Path::new("."))?
            .physics
            .dt;
        Ok(method_run(
            method,
            e,
            dt,
            &run_couette(scene, settle, measure, 0.01)?,
        ))
    };
    let (b, c) = (soft("soft", e_scene)?, soft("soft glass", GLASS_E)?);
    Ok(CouetteBench {
        phi: run.phi,
        grains: run.grains,
        profile_difference: rms(&a.omega, &b.omega),
        speedup: b.wall_per_simulated_s / a.wall_per_simulated_s,
        profile_difference_glass: rms(&a.omega, &c.omega),
        speedup_glass: c.wall_per_simulated_s / a.wall_per_simulated_s,
        runs: vec![a, b, c],
    })
}
