//! The settling routine of Sánchez & Scheeres (003 §2.4): let a packing come to rest under a
//! weak gravity field without waiting for it to fall under that field.
//!
//! The grains first settle under 1 g_e (g_e = 9.8 m/s²); gravity is then lowered by one order of
//! magnitude at a time down to the scene's own value, each stage running until the grains are
//! at rest again. During settling the grains feel a Stokes-like drag (v and ω decay as
//! e^{−c t}, integrated exactly after each step). The kinetic energy is measured every 0.05 s;
//! a stage ends when it changes by less than 5e-4 of its first measured value in the stage.
//! "Gravity" is every external field of the scene: the uniform field and the central body's
//! mass are scaled together. Scenes whose gravity already exceeds 1 g_e settle in one stage
//! (003 also scales random initial velocities by √α there; grainflow's fills start at rest or
//! with the velocity the scene gives). When settling ends the clock is reset to zero: the
//! simulation proper starts from the settled packing (003 §2.4).

use crate::sim::Simulation;
use crate::{Error, Result};

/// g_e of 003 §2.4 (m/s²).
pub const EARTH_GRAVITY: f64 = 9.8;

/// Settling parameters; [`Settle::default`] gives 003's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settle {
    /// Time between kinetic-energy checks (s): 0.05 in 003.
    pub check_interval: f64,
    /// Settled when |ΔKE| between checks < tolerance × the stage's first KE: 5e-4 in 003.
    pub tolerance: f64,
    /// Stokes-like drag rate c (1/s): v and ω are multiplied by e^{−c dt} every step.
    pub drag: f64,
    /// Longest a stage may run (s) before settling gives up with an error.
    pub max_stage_time: f64,
}

impl Default for Settle {
    fn default() -> Self {
        Settle {
            check_interval: 0.05,
            tolerance: 5e-4,
            drag: 10.0,
            max_stage_time: 10.0,
        }
    }
}

/// One stage of settling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stage {
    /// Gravity of the stage as a multiple of the scene's (−).
    pub scale: f64,
    /// Simulated time the stage took (s).
    pub time: f64,
    /// Kinetic energy at its end (J).
    pub kinetic_energy: f64,
}

/// Settles `sim` as 003 §2.4 does and returns the stages; gravity is back to the scene's and
/// the clock at zero afterwards.
pub fn settle(sim: &mut Simulation, opts: &Settle) -> Result<Vec<Stage>> {
    let original = sim.physics.gravity;
    let p = &sim.world.particles;
    let n = p.len().max(1) as f64;
    let centroid = p.pos.iter().fold(glam::DVec3::ZERO, |a, &x| a + x) / n;
    let g = original.acceleration(centroid).length();
    if g.is_nan() || g <= 0.0 {
        return Err(Error::scene(
            "gravity",
            "settling needs a uniform field or a central body (no external gravity in the scene)",
        ));
    }
    let mut scale = (EARTH_GRAVITY / g).max(1.0);
    let mut stages = Vec::new();
    loop {
        let mut gravity = original;
        gravity.uniform = original.uniform.map(|u| u * scale);
        if let (Some(c), Some(o)) = (&mut gravity.central, original.central) {
            c.mass = o.mass * scale;
        }
        sim.physics.gravity = gravity;
        stages.push(settle_stage(sim, opts, scale)?);
        if scale <= 1.0 {
            break;
        }
        scale = (scale / 10.0).max(1.0);
    }
    sim.physics.gravity = original;
    sim.world.time = 0.0;
    sim.world.step = 0;
    Ok(stages)
}

fn kinetic(sim: &Simulation) -> f64 {
    let p = &sim.world.particles;
    p.translational_energy() + p.rotational_energy()
}

/// Runs one stage with drag until the kinetic energy stops changing.
fn settle_stage(sim: &mut Simulation, opts: &Settle, scale: f64) -> Result<Stage> {
    let start = sim.world.time;
    let decay = (-opts.drag * sim.physics.dt).exp();
    let mut first: Option<f64> = None;
    let mut last = kinetic(sim);
    loop {
        let until = sim.world.time + opts.check_interval;
        while sim.world.time + 0.5 * sim.physics.dt < until {
            sim.step()?;
            let p = &mut sim.world.particles;
            p.vel.iter_mut().for_each(|v| *v *= decay);
            p.omega.iter_mut().for_each(|w| *w *= decay);
        }
        let ke = kinetic(sim);
        let reference = *first.get_or_insert(ke);
        if (ke - last).abs() < opts.tolerance * reference || reference == 0.0 {
            return Ok(Stage {
                scale,
                time: sim.world.time - start,
                kinetic_energy: ke,
            });
        }
        if sim.world.time - start > opts.max_stage_time {
            return Err(Error::scene(
                "settle",
                format!(
                    "gravity × {scale:.3e} did not settle within {} s (kinetic energy {ke:.3e} J, changing by {:.3e} J per check)",
                    opts.max_stage_time,
                    (ke - last).abs()
                ),
            ));
        }
        last = ke;
    }
}
