//! spin-up (003 §3.2): a regolith bed on the surface of a spinning asteroid, in a box periodic in
//! x and z, is settled (003 §2.4) and held at a series of spin rates ω. The pressure on a plane
//! near the bottom is the weight per area of the grains above it (003 eq 37–39):
//!
//!   σ_yy = −ρ_p φ g_eff h′,   g_eff = G M_A/R_A² − ω² R_A,
//!
//! where ρ_p φ h′ is the mass of grains above the plane per unit area; here it is counted
//! directly (Σ m over the grains whose centres are above the plane, each with g_eff at its own
//! height), so the expected value carries no fitted packing fraction. It must hold within 5 %
//! for ω ≤ 0.9 ω_c, and the pressure must vanish past ω_c = √(G M_A/R_A³) as grains lift off.
//!
//! Full: the scene `scenes/spin-up.toml` (the paper's 2 mm grains, 8 km asteroid with
//! g ≈ 0.0044 m/s², holds of 10 s; tens of millions of steps). Quick: the same set-up scaled to
//! run in seconds — 4 mm grains (radius 2 mm ± 10 %), a 24 × 24 mm periodic box, an asteroid of
//! the same radius with surface gravity 1 m/s², γ = 0.05 N s/m (restitution ≈ 0.9 as in the
//! paper's bed), holds of 0.3 s.

use std::path::Path;

use glam::DVec3;

use super::Metric;
use grainflow::analysis::stress::plane_stress;
use grainflow::fill::settle::{settle, Settle};
use grainflow::frame::Frame;
use grainflow::scene::{ParticleSource, Scene, TimeStep};
use grainflow::sim::Simulation;
use grainflow::{Error, Result};

/// The spin-up scene of 003 §3.2.
pub const SPIN_UP_SCENE: &str = include_str!("../../../../scenes/spin-up.toml");

/// Spin rates held, as fractions of ω_c.
const RATES: [f64; 5] = [0.0, 0.3, 0.6, 0.9, 1.1];

/// The quick form of the scene (see the module comment).
fn quick_scene(mut scene: Scene) -> Result<Scene> {
    let r_a = 8000.0;
    let g_surface = 1.0;
    let Some(central) = &mut scene.gravity.central else {
        return Err(Error::scene(
            "gravity.central",
            "the spin-up scene needs a central body",
        ));
    };
    central.mass = g_surface * r_a * r_a / scene.gravity.constant;
    let side = 0.024;
    central.position = DVec3::new(0.5 * side, -r_a, 0.5 * side);
    if let Some(f) = &mut scene.frame {
        f.origin = central.position;
    }
    scene.boundary.periodic.x = Some([0.0, side]);
    scene.boundary.periodic.z = Some([0.0, side]);
    scene.contact.normal = grainflow::contact::Normal::Linear {
        kn: 9000.0,
        damping: 0.05,
        kt: Some(2.57e3),
        tangential_damping: None,
    };
    scene.simulation.dt = TimeStep::Auto(grainflow::scene::Auto::Auto);
    if let Some(ParticleSource::Lattice {
        radius,
        spacing,
        max,
        ..
    }) = scene.particles.first_mut()
    {
        *radius = 2e-3;
        *spacing = Some(4.84e-3);
        *max = DVec3::new(side, 0.045, side);
    }
    Ok(scene)
}

/// Runs the spin-up validation.
pub fn spin_up(full: bool) -> Result<Vec<Metric>> {
    let scene = Scene::from_toml(SPIN_UP_SCENE, "scenes/spin-up.toml")?;
    let (scene, hold, plane) = if full {
        (scene, 10.0, 5e-3)
    } else {
        (quick_scene(scene)?, 0.3, 5e-3)
    };
    let mut scene = scene;
    scene.output = Default::default();
    let mut sim = Simulation::new(scene, Path::new("."))?;
    sim.keep_reactions();
    let (Some(central), Some(frame)) = (sim.physics.gravity.central, sim.physics.frame) else {
        return Err(Error::scene(
            "frame",
            "the spin-up scene needs a central body and a frame",
        ));
    };
    settle(&mut sim, &Settle::default())?;
    let g_const = sim.physics.gravity.constant;
    let r_a = (DVec3::ZERO - central.position).y;
    let omega_c = (g_const * central.mass / r_a.powi(3)).sqrt();
    let (lx, lz) = (
        sim.physics.periodic.lengths().x,
        sim.physics.periodic.lengths().z,
    );
    let area = lx * lz;
    let case = "spin-up";
    let mut out = Vec::new();
    let mut sigma_0 = 0.0;
    for rate in RATES {
        let omega = rate * omega_c;
        sim.physics.frame = Some(Frame {
            omega,
            schedule: None,
            ..frame
        });
        let start = sim.world.time;
        let (mut measured, mut expected, mut samples) = (0.0, 0.0, 0.0);
        let every = ((0.005 / sim.physics.dt).round() as u64).max(1);
        sim.run_until(start + hold, |s| {
            if s.world.time > start + 0.5 * hold && s.world.step % every == 0 {
                measured += plane_stress(s, 1, plane, area).y;
                expected += weight_per_area(s, plane, area, central.mass, g_const, r_a, omega);
                samples += 1.0;
            }
            Ok(())
        })?;
        let (measured, expected) = (measured / samples, expected / samples);
        if rate == 0.0 {
            sigma_0 = expected;
        }
        let model = format!("{rate:.1} ω_c");
        if rate <= 0.9 {
            out.push(Metric::new(
                case,
                &model,
                format!("σ_yy at y = {plane} m (Pa) vs −ρ φ g_eff h′"),
                measured,
                expected,
                0.05 * expected.abs(),
            ));
        } else {
            // Past ω_c the grains float off: no pressure left (1e-3 of the ω = 0 value).
            out.push(Metric::at_most(
                case,
                &model,
                format!("|σ_yy| / |σ_yy(ω = 0)| at y = {plane} m"),
                (measured / sigma_0).abs(),
                1e-3,
            ));
        }
    }
    Ok(out)
}

/// −Σ m g_eff / A over the grains whose centres are above the plane y = `plane` (Pa):
/// g_eff = G M/(R_A + y)² − ω² (R_A + y) at each grain's height (003 eq 37).
fn weight_per_area(
    sim: &Simulation,
    plane: f64,
    area: f64,
    mass: f64,
    g: f64,
    r_a: f64,
    omega: f64,
) -> f64 {
    let p = &sim.world.particles;
    let weight: f64 = (0..p.len())
        .filter(|&k| p.pos[k].y > plane)
        .map(|k| {
            let r = r_a + p.pos[k].y;
            p.mass[k] * (g * mass / (r * r) - omega * omega * r)
        })
        .sum();
    -weight / area
}
