//! The restitution the default step delivers: head-on pairs at `dt = "auto"` (t_c/15) for
//! Hooke, Hertz, Flores and the linear spring–dashpot, e = 0.1 … 0.9 (002 §4.1.3's pair: two
//! spheres of 1 m diameter and 1 kg, E = 0.5 MPa, ν = 0.3, meeting at 1 m/s).
//!
//! Each pair is run through `Simulation` [`PHASES`] times, its first touch moved across a step
//! by the starting gap, and each run is compared, to 1e-9, with the discrete map of the step at
//! that phase ([`grainflow::contact::discrete::delivered_at`]): the map is the step. The mean
//! e′ over the phases is then held within 2 % of e for every model (Hooke's, Hertz's and
//! linear's damping corrected for the step, `contact::restitution::Correction`; for linear, e is
//! the one its given dashpot implies, 003 eq 11–12), and the lowest and highest e′ of a single
//! collision are shown beside it. Flores, whose damping vanishes with the overlap and whose
//! constant gives e exactly (`hunt_crossley_damping`), is also held within 0.2 % at every
//! phase. The others' single collisions scatter about the mean by where in its step the contact
//! begins and ends (docs/time-step.md).

use std::path::Path;

use super::Metric;
use grainflow::contact::discrete::delivered_at;
use grainflow::contact::normal::{hooke_stiffness, stiffness};
use grainflow::contact::restitution::damping_factor;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::Result;

/// Phases of first touch swept across a step.
pub const PHASES: usize = 16;

/// Largest |mean e′ − e| / e over the phases (2 %).
const MEAN_WITHIN: f64 = 0.02;

/// Largest |e′ − e| / e of any phase for Flores (0.2 %; 0.104 % at e = 0.5).
const FLORES_WITHIN: f64 = 2e-3;

/// The pair scene of `normal` (TOML) with restitution `e`, the spheres `gap` (m) apart.
fn scene(normal: &str, e: f64, gap: f64) -> Result<Scene> {
    let x = 0.5 + 0.5 * gap;
    let text = format!(
        r#"
[simulation]
duration = 1.0
dt = "auto"
skin = 0.05
[contact]
normal = {normal}
tangential = "none"
rolling = "none"
twisting = "none"
[[materials]]
name = "body"
density = {rho}
youngs_modulus = 0.5e6
poisson_ratio = 0.3
restitution = {e}
sliding_friction = 0.3
[[particles]]
type = "list"
material = "body"
spheres = [{{ pos = [-{x}, 0, 0], radius = 0.5, vel = [0.5, 0, 0] }}, {{ pos = [{x}, 0, 0], radius = 0.5, vel = [-0.5, 0, 0] }}]
"#,
        rho = 1.0 / (4.0 / 3.0 * std::f64::consts::PI * 0.125)
    );
    Scene::from_toml(&text, "restitution-dt")
}

/// The separation speed of the pair of `scene` after its contact (m/s, = e' at 1 m/s).
fn run(scene: Scene) -> Result<(f64, Simulation)> {
    let mut sim = Simulation::new(scene, Path::new("."))?;
    let mut touched = false;
    while sim.world.time < 1.0 {
        sim.step()?;
        let p = &sim.world.particles;
        let (a, b) = (p.index_of(0).unwrap_or(0), p.index_of(1).unwrap_or(1));
        let apart = p.pos[b].x - p.pos[a].x > 1.0;
        touched |= !apart;
        if touched && apart {
            break;
        }
    }
    let p = &sim.world.particles;
    let (a, b) = (p.index_of(0).unwrap_or(0), p.index_of(1).unwrap_or(1));
    Ok((p.vel[b].x - p.vel[a].x, sim))
}

/// The case: every model at e = 0.1 … 0.9 (quick: 0.1, 0.3, 0.5, 0.7, 0.9), [`PHASES`] phases.
pub fn restitution_dt(full: bool) -> Result<Vec<Metric>> {
    let es: Vec<f64> = if full {
        (1..=9).map(|k| k as f64 / 10.0).collect()
    } else {
        vec![0.1, 0.3, 0.5, 0.7, 0.9]
    };
    let (m_eff, r_eff, v0) = (0.5, 0.25, 1.0);
    let mut out = Vec::new();
    for name in ["hooke", "hertz", "flores", "linear"] {
        for &e in &es {
            // The linear dashpot given the damping that has e in continuous time, on Hooke's
            // k_n at v_c = 1 m/s.
            let kn = hooke_stiffness(0.5e6 / (2.0 * (1.0 - 0.09)), r_eff, m_eff, 1.0);
            let gn = 2.0 * damping_factor(e) * (m_eff * kn).sqrt();
            let normal = match name {
                "linear" => format!("{{ linear = {{ kn = {kn}, damping = {gn} }} }}"),
                other => format!("\"{other}\""),
            };
            // The step, from the scene built once; then gaps of 10 steps and a phase.
            let dt = Simulation::new(scene(&normal, e, 0.02)?, Path::new("."))?
                .physics
                .dt;
            let (mut worst, mut mean, mut off_map) = (0.0f64, 0.0, 0.0f64);
            let (mut low, mut high) = (f64::INFINITY, 0.0f64);
            for j in 0..PHASES {
                let gap = v0 * dt * (10.0 + (j as f64 + 0.5) / PHASES as f64);
                let (measured, sim) = run(scene(&normal, e, gap)?)?;
                let model = sim.physics.model.normal;
                let p = sim.physics.table.get(0, 0);
                let s = stiffness(&model, p, r_eff, m_eff, 1.0, v0, false);
                // First touch at t = gap / v₀: the fraction of its step before it.
                let steps = gap / v0 / dt;
                let phi = 1.0 - (steps.ceil() - steps);
                let map = delivered_at(model.form(), s.kn, s.gn, m_eff, v0, dt, phi);
                off_map = off_map.max((measured - map).abs());
                worst = worst.max((measured - e).abs() / e);
                mean += measured / PHASES as f64;
                (low, high) = (low.min(measured), high.max(measured));
            }
            let case = "restitution-dt";
            out.push(Metric::at_most(
                case,
                name,
                format!("|e' of a run − the map's| at e = {e:.1}, largest of {PHASES} phases"),
                off_map,
                1e-9,
            ));
            out.push(Metric::at_most(
                case,
                name,
                format!("|mean e' − e| / e at e = {e:.1}, mean {mean:.4} of {PHASES} phases"),
                (mean - e).abs() / e,
                MEAN_WITHIN,
            ));
            for (what, value) in [("lowest", low), ("highest", high)] {
                out.push(Metric::report(
                    case,
                    name,
                    format!("e' at e = {e:.1}, {what} of {PHASES} phases (one collision)"),
                    value,
                    e,
                ));
            }
            if name == "flores" {
                out.push(Metric::at_most(
                    case,
                    name,
                    format!("|e' − e| / e at e = {e:.1}, worst of {PHASES} phases"),
                    worst,
                    FLORES_WITHIN,
                ));
            }
        }
    }
    Ok(out)
}
