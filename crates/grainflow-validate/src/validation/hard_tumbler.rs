//! `hard-tumbler`: the tumbler of 000 §3.2 with `method = "hard"`: dynamic angle of repose
//! against the Froude number Fr = Ω² R / g (eq 32).
//!
//! An infinite horizontal cylinder, sticky and spinning about its axis, is lined with grains
//! glued to it (000: to mimic the sandpaper of Brucks et al. 2007; its radius is R + 2s so that
//! the glued grains' inner surface is at R) and cut to length L by two frictionless vertical
//! planes (ε_n = ε_t = 1). Free grains, radius s, collide with ε_n = 0.64 and ε_t = 0.8 among
//! themselves and with the glued grains, which move with the cylinder as infinite masses
//! (000 §2.2). The drum is about half filled from a lattice, the grains settle, then the drum
//! turns at Ω: imposed at once in the quick drum, as in 000; spun up over 0.2 s in 000's drum,
//! as 000 §3.2 advises ("a better approach … would be to accelerate the tumbler gradually"),
//! since there the glued grains set off at once drive the settled pack of hard spheres into
//! inelastic collapse (more than 6.3 million collisions in the first step of the turn). The
//! angle is the line fit to the free surface
//! within R/2 of the centre ([`grainflow::analysis::drum_angle`]), averaged over samples in the
//! last part of the run, with the standard deviation of the mean as its error.
//!
//! * **Quick** (test suite): R = 12 mm, L = 4 mm, s = 1 mm (R/s = 12, 114 free grains, 80 glued),
//!   Fr = 0.01 and 0.3: the angle rises with Fr (000 Fig. 8: from about 20° to 40° over this
//!   range), both angles between 5° and 60°.
//! * **Full**: 000's drum, R = 30 mm, L = 5 mm, s = 0.53 mm, at Fr = 0.001, 0.01, 0.05, 0.1,
//!   0.3 and 0.5 for 2.5 s each (000: dt ≈ 5 µs); the angles are printed against Fr, with the
//!   requirement that they rise from the slowest to the fastest sub-critical drum.

use std::path::Path;

use glam::DVec3;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::hard_two_body::sphere;
use super::Metric;
use grainflow::analysis::{drum_angle, mean_and_error, DrumFrame};
use grainflow::contact::ContactModel;
use grainflow::fill::lattice::{lattice_spaced, LatticeKind};
use grainflow::fill::layer::cylinder_layer;
use grainflow::gravity::Gravity;
use grainflow::material::{Material, PairOverride};
use grainflow::scene::{
    HardOptions, ListSource, Method, OutputSpec, ParticleSource, Scene, SimulationSpec, TimeStep,
};
use grainflow::scene::{Motion, ShapeSpec, Side, Surface, WallSpec};
use grainflow::sim::Simulation;
use grainflow::Result;

const CASE: &str = "hard-tumbler";
/// Earth gravity (m/s²).
const G0: f64 = 9.81;

/// A hard-sphere tumbler.
#[derive(Clone, Debug, PartialEq)]
pub struct HardDrum {
    /// Radius R to the glued grains' inner surface (m).
    pub radius: f64,
    /// Length L between the end planes (m).
    pub length: f64,
    /// Grain radius s (m).
    pub grain: f64,
    /// Froude number Ω² R / g (eq 32).
    pub froude: f64,
    /// Time step (s).
    pub dt: f64,
    /// Settling time before the drum turns (s).
    pub settle: f64,
    /// Time the drum turns (s).
    pub turn: f64,
    /// Time over which Ω rises linearly from rest (s); 0 imposes it at once.
    pub spin_up: f64,
    /// Last part of the turning time over which the angle is sampled (s).
    pub measure: f64,
    /// Approach speed below which collisions are elastic (m/s), pkdgrav's slide limit.
    pub slide_limit: f64,
    /// Slow touching contacts resolved once per step as resting contacts (`resting`).
    pub resting: bool,
}

impl HardDrum {
    /// Angular speed Ω = √(Fr g / R) (rad/s, eq 32).
    pub fn omega(&self) -> f64 {
        (self.froude * G0 / self.radius).sqrt()
    }

    /// The scene: sticky spinning cylinder of radius R + 2s, glued layer, two frictionless
    /// planes, free grains on an HCP lattice in the lower part of the drum.
    pub fn scene(&self) -> Scene {
        let s = self.grain;
        let glass = |name: &str| Material {
            name: name.into(),
            density: Some(2500.0),
            youngs_modulus: 1e9,
            poisson_ratio: 0.3,
            restitution: 0.64,
            sliding_friction: 0.0,
            rolling_friction: 0.0,
            twisting_friction: 0.0,
            cohesion: 0.0,
            tangential_restitution: 0.8,
            core: None,
        };
        let wall_radius = self.radius + 2.0 * s;
        let half = 0.5 * self.length;
        let plane = |z: f64, n: f64| {
            WallSpec::plane("planes", DVec3::new(0.0, 0.0, z), DVec3::new(0.0, 0.0, n))
        };
        let glued: Vec<_> = cylinder_layer(DVec3::ZERO, DVec3::Z, wall_radius, self.length, s)
            .into_iter()
            .map(|g| sphere(g.pos, DVec3::ZERO, DVec3::ZERO, g.radius))
            .collect();
        // Free grains a hair apart on an HCP lattice filling the drum's lower part: a band
        // from the bottom to a little above the axis fills it about half when settled.
        let inner = self.radius - 1.01 * s;
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let free: Vec<_> = lattice_spaced(
            LatticeKind::Hcp,
            DVec3::new(-inner - s, -inner - s, -half + 0.01 * s),
            DVec3::new(inner + s, 0.1 * self.radius, half - 0.01 * s),
            s,
            0.0,
            Some(2.02 * s),
            &mut rng,
        )
        .into_iter()
        .filter(|g| g.pos.truncate().length() <= inner)
        .map(|g| sphere(g.pos, DVec3::ZERO, DVec3::ZERO, s))
        .collect();
        Scene {
            frame: None,
            recirculation: None,
            inserts: Vec::new(),
            simulation: SimulationSpec {
                method: Method::Hard(HardOptions {
                    slide_limit: self.slide_limit,
                    resting: self.resting,
                    ..Default::default()
                }),
                ..SimulationSpec::new(self.settle + self.turn, TimeStep::Fixed(self.dt))
            },
            contact: ContactModel::hertz(),
            materials: vec![glass("glass"), glass("planes")],
            pairs: vec![PairOverride {
                materials: ["glass".into(), "planes".into()],
                restitution: Some(1.0),
                tangential_restitution: Some(1.0),
                ..Default::default()
            }],
            gravity: Gravity {
                uniform: Some(DVec3::new(0.0, -G0, 0.0)),
                ..Default::default()
            },
            boundary: Default::default(),
            walls: vec![
                WallSpec {
                    material: "glass".into(),
                    shape: ShapeSpec::Cylinder {
                        origin: DVec3::ZERO,
                        axis: DVec3::Z,
                        radius: wall_radius,
                        side: Side::Inside,
                        length: None,
                    },
                    surface: Surface::Sticky,
                    motion: Motion::Rotate {
                        center: DVec3::ZERO,
                        axis: DVec3::Z,
                        omega: self.omega(),
                        start: self.settle,
                        ramp: self.spin_up,
                    },
                    free: None,
                },
                plane(-half, 1.0),
                plane(half, -1.0),
            ],
            particles: vec![
                ParticleSource::List(ListSource {
                    material: "glass".into(),
                    spheres: glued,
                }),
                ParticleSource::List(ListSource {
                    material: "glass".into(),
                    spheres: free,
                }),
            ],
            output: OutputSpec::default(),
        }
    }
}

/// What one tumbler run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct HardDrumRun {
    /// Froude number.
    pub froude: f64,
    /// Mean angle (degrees) and its standard deviation of the mean.
    pub angle: (f64, f64),
    /// Free and held grains at the end.
    pub grains: (usize, usize),
    /// Collisions per free grain per second of the run.
    pub collision_rate: f64,
}

/// Runs a tumbler and samples its angle 20 times over the measured part.
pub fn run_hard_drum(d: &HardDrum) -> Result<HardDrumRun> {
    let mut sim = Simulation::new(d.scene(), Path::new("."))?;
    let frame = DrumFrame::new(DVec3::ZERO, DVec3::Z, DVec3::new(0.0, -G0, 0.0));
    let end = d.settle + d.turn;
    let samples = 20;
    let every = d.measure / samples as f64;
    let mut next = end - d.measure + every;
    let mut angles = Vec::new();
    while sim.world.time + 0.5 * d.dt < end {
        sim.step()?;
        if sim.world.time + 0.5 * d.dt >= next {
            next += every;
            let p = &sim.world.particles;
            let free: Vec<DVec3> = (0..p.len())
                .filter(|&k| p.inv_mass[k] > 0.0)
                .map(|k| p.pos[k])
                .collect();
            if let Some(fit) = drum_angle(&frame, &free, 2.0 * d.grain, 0.5 * d.radius) {
                angles.push(fit.angle_deg());
            }
        }
    }
    let p = &sim.world.particles;
    let free = (0..p.len()).filter(|&k| p.inv_mass[k] > 0.0).count();
    Ok(HardDrumRun {
        froude: d.froude,
        angle: mean_and_error(&angles),
        grains: (free, p.len() - free),
        collision_rate: sim.world.collisions as f64 / (free.max(1) as f64 * sim.world.time),
    })
}

/// The quick drum at Froude number `fr`.
pub fn quick_hard_drum(fr: f64) -> HardDrum {
    HardDrum {
        radius: 0.012,
        length: 0.004,
        grain: 0.001,
        froude: fr,
        dt: 1e-4,
        settle: 0.2,
        turn: 0.6,
        spin_up: 0.0,
        measure: 0.4,
        slide_limit: 3.0 * G0 * 1e-4,
        resting: true,
    }
}

/// 000's drum at Froude number `fr`.
pub fn full_hard_drum(fr: f64) -> HardDrum {
    HardDrum {
        radius: 0.03,
        length: 0.005,
        grain: 0.00053,
        froude: fr,
        dt: 5e-6,
        settle: 0.3,
        turn: 2.5,
        spin_up: 0.2,
        measure: 1.0,
        slide_limit: 3.0 * G0 * 5e-6,
        resting: true,
    }
}

/// Runs the case.
pub fn hard_tumbler(full: bool) -> Result<Vec<Metric>> {
    let (model, froudes, make): (&str, Vec<f64>, fn(f64) -> HardDrum) = if full {
        (
            "000-drum",
            vec![0.001, 0.01, 0.05, 0.1, 0.3, 0.5],
            full_hard_drum,
        )
    } else {
        ("quick", vec![0.01, 0.3], quick_hard_drum)
    };
    // The drums are independent: one per core.
    let runs = froudes
        .par_iter()
        .map(|&fr| run_hard_drum(&make(fr)))
        .collect::<Result<Vec<_>>>()?;
    let mut out = Vec::new();
    for r in &runs {
        out.push(Metric::new(
            CASE,
            model,
            format!(
                "angle at Fr = {:e} (deg, ±{:.1}; {} free, {} glued, {:.0} collisions/grain/s)",
                r.froude, r.angle.1, r.grains.0, r.grains.1, r.collision_rate
            ),
            r.angle.0,
            32.5,
            27.5,
        ));
    }
    let (first, last) = (&runs[0], runs.last().expect("two runs"));
    out.push(Metric::at_least(
        CASE,
        model,
        format!("rise Fr {:e} → {:e} (deg)", first.froude, last.froude),
        last.angle.0 - first.angle.0,
        0.0,
    ));
    Ok(out)
}
