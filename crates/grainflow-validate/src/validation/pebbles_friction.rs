//! The static-friction part of `grainflow validate pebbles`: the PEBBLES static friction law
//! (001 §3.5, eq 3.40–3.52) on an incline, and a poured pile whose angle of repose grows with
//! the friction coefficient.
//!
//! **Incline.** A pebble of the 001 §8 samples (r = 0.02 m, core r_c = 0.01 m of 2000 kg/m³ in a
//! 1000 kg/m³ shell, eq 3.5), rotation locked (PEBBLES has no rolling resistance, chapter 10,
//! so a free sphere would roll down any slope), rests on a plane; gravity is tilted by θ
//! instead of the plane. The sample constants: h = 1e6 N/m, C⊥ = C∥ = 200 N s/m, μ_k = 0.4,
//! static_friction_new3 0.6 1e6 0.6 1e6 0.01, decrease_long_slips 1.1 1.0. Checks:
//! * below the friction angle (θ = 20° and 28°, tan θ < μ_s = 0.6; 28° is past the kinetic
//!   angle atan 0.4 = 21.8°, so only static friction holds it) the pebble moves less than 1e-6 m
//!   in 1 s;
//! * above it (θ = 40°) it slides with a = g (sin θ − μ_k cos θ) once |v∥| > v_max (eq 3.8:
//!   μ_k|F⊥| caps the dashpot), fitted over 0.4–1 s, within 0.5 %.
//!
//! Each with velocity Verlet at dt = 1e-5 s and with the samples' Euler at alpha = 1e-4 s
//! (`use_simple_integrator`, `dt_limit = "contact_time"`).
//!
//! **Pile.** The 002 §5 quick piling box ([`super::pile::quick_pile`], 1 mm grains poured
//! through a slot onto a rough floor) with the PEBBLES law in place of Hertz: h = h_s = 100 N/m,
//! C⊥ = C∥ = 0.01 N s/m (restitution ≈ 0.5), v_max² = 1e-4 m²/s², μ_k = 0.75 μ_s. The angle
//! at μ_s = 0.8 must exceed the angle at μ_s = 0.2 (by at least 2°).

use std::path::Path;

use glam::DVec3;
use rayon::prelude::*;

use super::pile::{quick_pile, PileBox};
use super::Metric;
use grainflow::analysis::{pile_angle, DrumFrame};
use grainflow::contact::pebbles::{PebblesFriction, StaticFriction};
use grainflow::contact::{Cohesion, ContactModel, Normal, Rolling, Tangential, Twisting};
use grainflow::particles::{core_shell_mass_inertia, Core};
use grainflow::scene::{Integrator, Scene, TimeStep};
use grainflow::sim::Simulation;
use grainflow::timestep::DtLimit;
use grainflow::Result;

const CASE: &str = "pebbles";
/// Gravity (m/s²).
const G: f64 = 9.81;
/// The 001 §8 pebble: radius, core and shell density.
const RADIUS: f64 = 0.02;
const CORE: Core = Core {
    radius: 0.01,
    density: 2000.0,
};
const SHELL_DENSITY: f64 = 1000.0;
/// Largest creep allowed below the friction angle in 1 s (m).
pub const CREEP_LIMIT: f64 = 1e-6;

/// The contact law of the 001 §8 samples with static friction μ_s and kinetic μ_k.
pub fn sample_contact(mu_s: f64, mu_k: f64, hooke: f64, dash_pot: f64) -> ContactModel {
    ContactModel {
        normal: Normal::Pebbles {
            hooke,
            vessel_hooke: hooke,
            dash_pot,
        },
        tangential: Tangential::Pebbles(PebblesFriction {
            kinetic_friction: mu_k,
            dash_pot,
            static_friction: Some(StaticFriction {
                friction: mu_s,
                hooke,
                surface_friction: Some(mu_s),
                surface_hooke: Some(hooke),
                velocity_max_sqr: 0.01,
                linear_cutoff: false,
                zero_long_slips: None,
                decrease_long_slips: Some([1.1, 1.0]),
            }),
        }),
        rolling: Rolling::None,
        twisting: Twisting::None,
        cohesion: Cohesion::None,
        characteristic_velocity: 1.0,
        step_correction: true,
    }
}

/// The incline scene: the sample pebble at rest on the plane z = 0 under gravity tilted by
/// `theta` (rad) towards +x, with `integrator` and time step `dt` (s).
pub fn incline_scene(theta: f64, integrator: Integrator, dt: f64, duration: f64) -> Result<Scene> {
    let (m, _) = core_shell_mass_inertia(RADIUS, SHELL_DENSITY, Some(CORE));
    // Start at the static overlap m g cos θ / h, so that the normal force starts in balance.
    let overlap = m * G * theta.cos() / 1e6;
    let text = format!(
        r#"
[simulation]
duration = {duration:e}
dt = {dt:e}
method = {{ soft = {{ integrator = "{integrator}" }} }}
dt_limit = "contact_time"

[contact]
normal = "hooke"

[gravity]
uniform = [{gx:e}, 0.0, {gz:e}]

[[materials]]
name = "pebble"
density = {SHELL_DENSITY:e}
core = {{ radius = {rc:e}, density = {rhoc:e} }}
youngs_modulus = 1e9
poisson_ratio = 0.3
restitution = 0.5
sliding_friction = 0.6

[[walls]]
type = "plane"
material = "pebble"
point = [0, 0, 0]
normal = [0, 0, 1]

[[particles]]
type = "list"
material = "pebble"
spheres = [{{ pos = [0, 0, {z:e}], radius = {RADIUS:e}, mobility = "no_rotation" }}]
"#,
        integrator = integrator_name(integrator),
        gx = G * theta.sin(),
        gz = -G * theta.cos(),
        rc = CORE.radius,
        rhoc = CORE.density,
        z = RADIUS - overlap,
    );
    let mut scene = Scene::from_toml(&text, "pebbles-friction incline")?;
    scene.contact = sample_contact(0.6, 0.4, 1e6, 200.0);
    scene.simulation.dt = TimeStep::Fixed(dt);
    scene.simulation.dt_limit = DtLimit::ContactTime;
    Ok(scene)
}

/// The scene's spelling of an integrator.
fn integrator_name(i: Integrator) -> &'static str {
    match i {
        Integrator::VelocityVerlet => "velocity_verlet",
        Integrator::Euler => "euler",
        Integrator::RungeKutta => "runge_kutta",
        Integrator::AdamsBashforth => "adams_bashforth",
        Integrator::AdamsMoulton => "adams_moulton",
    }
}

/// Runs the incline for 1 s: (distance moved along x (m), fitted acceleration over 0.4–1 s
/// (m/s²)).
pub fn run_incline(theta_deg: f64, integrator: Integrator, dt: f64) -> Result<(f64, f64)> {
    let scene = incline_scene(theta_deg.to_radians(), integrator, dt, 1.0)?;
    let mut sim = Simulation::new(scene, Path::new("."))?;
    let x0 = sim.world.particles.pos[0].x;
    let mut samples: Vec<(f64, f64)> = Vec::new();
    sim.run_until(1.0, |s| {
        if s.world.time >= 0.4 - 1e-9 {
            samples.push((s.world.time, s.world.particles.vel[0].x));
        }
        Ok(())
    })?;
    let moved = sim.world.particles.pos[0].x - x0;
    // Least-squares slope of v(t).
    let n = samples.len() as f64;
    let (st, sv) = samples
        .iter()
        .fold((0.0, 0.0), |(a, b), (t, v)| (a + t, b + v));
    let (mt, mv) = (st / n, sv / n);
    let (num, den) = samples.iter().fold((0.0, 0.0), |(a, b), (t, v)| {
        (a + (t - mt) * (v - mv), b + (t - mt) * (t - mt))
    });
    Ok((moved, num / den))
}

/// The quick piling box with the PEBBLES law at static friction `mu_s`.
pub fn pile_box_scene(mu_s: f64) -> (PileBox, Scene) {
    let b = quick_pile(0.0);
    let mut scene = b.scene();
    let mut contact = sample_contact(mu_s, 0.75 * mu_s, 100.0, 0.01);
    if let Tangential::Pebbles(f) = &mut contact.tangential {
        if let Some(st) = &mut f.static_friction {
            st.velocity_max_sqr = 1e-4;
        }
    }
    scene.contact = contact;
    (b, scene)
}

/// Angle of repose (deg) of the PEBBLES pile at `mu_s`, measured as in 002 §5.3.
pub fn pile_angle_at(mu_s: f64) -> Result<f64> {
    let (b, scene) = pile_box_scene(mu_s);
    let mut sim = Simulation::new(scene, Path::new("."))?;
    sim.run_until(b.duration, |_| Ok(()))?;
    let p = &sim.world.particles;
    let pos: Vec<DVec3> = (0..p.len())
        .filter(|&k| p.pos[k].y < b.slot_height - 2.0 * b.grain_radius)
        .map(|k| p.pos[k])
        .collect();
    let frame = DrumFrame::new(DVec3::ZERO, DVec3::Z, DVec3::new(0.0, -G, 0.0));
    Ok(pile_angle(&frame, &pos, 2.0 * b.grain_radius, 0.0).map_or(f64::NAN, |f| f.angle_deg()))
}

/// Runs the case (the quick and full forms are the same).
pub fn pebbles_friction(_full: bool) -> Result<Vec<Metric>> {
    let runs = [
        (Integrator::VelocityVerlet, 1e-5, "verlet"),
        (Integrator::Euler, 1e-4, "euler"),
    ];
    let mut out = Vec::new();
    let jobs: Vec<(Integrator, f64, &str, f64)> = runs
        .iter()
        .flat_map(|&(i, dt, name)| [20.0, 28.0, 40.0].map(|th| (i, dt, name, th)))
        .collect();
    let results = jobs
        .par_iter()
        .map(|&(i, dt, _, th)| run_incline(th, i, dt))
        .collect::<Result<Vec<_>>>()?;
    for (&(_, dt, name, th), &(moved, acc)) in jobs.iter().zip(&results) {
        let model = format!("{name} dt={dt:e}");
        if th < 30.0 {
            out.push(Metric::at_most(
                CASE,
                &model,
                format!("creep in 1 s at θ = {th}° (tan θ < μ_s = 0.6) (m)"),
                moved.abs(),
                CREEP_LIMIT,
            ));
        } else {
            let t = th.to_radians();
            let expected = G * (t.sin() - 0.4 * t.cos());
            out.push(Metric::new(
                CASE,
                &model,
                format!("sliding acceleration at θ = {th}°, g (sin θ − μ_k cos θ) (m/s²)"),
                acc,
                expected,
                5e-3 * expected,
            ));
        }
    }
    let angles = [0.2, 0.8]
        .par_iter()
        .map(|&mu| pile_angle_at(mu))
        .collect::<Result<Vec<_>>>()?;
    out.push(Metric::at_least(
        CASE,
        "pile",
        format!(
            "angle of repose rise μ_s 0.2 → 0.8: {:.1}° → {:.1}° (deg, at least 2)",
            angles[0], angles[1]
        ),
        angles[1] - angles[0],
        2.0,
    ));
    Ok(out)
}
