//! The restitution the default step delivers: head-on pairs at `dt = "auto"` (t_c/15) for
//! Hooke, Hertz, Flores and the linear spring–dashpot, e = 0.1 … 0.9 (002 §4.1.3's pair: two
//! spheres of 1 m diameter and 1 kg, E = 0.5 MPa, ν = 0.3, meeting at 1 m/s).
//!
//! Each pair is run through `Simulation` and compared, to 1e-9, with the discrete map of the
//! step at the phase of the step its contact began in
//! ([`grainflow::contact::discrete::delivered_at`]): the map is the step. The map's mean,
//! smallest and largest e over all phases of first touch are then shown beside e: the step
//! delivers e within 2 % only where the damping per step c = g_n dt / M is small (e ≳ 0.7 at
//! t_c/15); below, the contact's start and end between steps spread it by about ±c/2, which no
//! damping constant removes (docs/time-step.md gives the table).

use std::path::Path;

use super::Metric;
use grainflow::contact::discrete::{delivered, delivered_at};
use grainflow::contact::normal::{damping_factor, hooke_stiffness, stiffness};
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::Result;

/// Gap between the spheres at the start (m), closed at 1 m/s.
const GAP: f64 = 0.02;

/// The pair scene of `normal` (TOML) with restitution `e`.
fn scene(normal: &str, e: f64) -> Result<Scene> {
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
spheres = [{{ pos = [-0.51, 0, 0], radius = 0.5, vel = [0.5, 0, 0] }}, {{ pos = [0.51, 0, 0], radius = 0.5, vel = [-0.5, 0, 0] }}]
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

/// The case: every model at e = 0.1 … 0.9 (quick: 0.1, 0.3, 0.5, 0.7, 0.9).
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
            let (measured, sim) = run(scene(&normal, e)?)?;
            let model = sim.physics.model.normal;
            let p = sim.physics.table.get(0, 0);
            let s = stiffness(&model, p, r_eff, m_eff, 1.0, v0, false);
            let form = model.form();
            let dt = sim.physics.dt;
            // First touch at t = GAP / v₀: the fraction of its step before it.
            let steps = GAP / v0 / dt;
            let phi = 1.0 - (steps.ceil() - steps);
            let map = delivered_at(form, s.kn, s.gn, m_eff, v0, dt, phi);
            out.push(Metric::new(
                "restitution-dt",
                name,
                format!("e' of the run = the map's at e = {e:.1}"),
                measured,
                map,
                1e-9,
            ));
            let d = delivered(form, s.kn, s.gn, m_eff, v0, dt);
            for (what, v) in [("mean", d.mean), ("lowest", d.low), ("highest", d.high)] {
                out.push(Metric::report(
                    "restitution-dt",
                    name,
                    format!("e' {what} over phases, e = {e:.1}"),
                    v,
                    e,
                ));
            }
        }
    }
    Ok(out)
}
