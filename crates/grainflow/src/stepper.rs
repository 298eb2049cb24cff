//! The method of a run with its options and scratch: one variant per way of moving grains,
//! as REBOUND keeps each integrator's settings and buffers in one struct. `Simulation::step`
//! is one `match` on it ([`crate::sim::Simulation::step`]).

use glam::DVec3;

use crate::approx_hard::ApproxStepper;
use crate::hard::{CollisionRecord, HardStepper};
use crate::physics::Physics;
use crate::scene::Method;
use crate::soft::SoftStepper;
use crate::stats::{ContactStats, StageTimes};
use crate::world::World;

/// Each method with its options and the scratch it keeps from step to step.
#[derive(Clone, Debug)]
pub enum Stepper {
    /// Soft spheres, with their integrator.
    Soft(SoftStepper),
    /// Event-driven hard spheres.
    Hard(HardStepper),
    /// Approximate hard spheres (004).
    ApproxHard(ApproxStepper),
}

impl Stepper {
    /// The stepper of `method`, holding its options; the soft-sphere one keeps the per-pair
    /// reactions when `keep_reactions` (stress output).
    pub(crate) fn new(method: Method, keep_reactions: bool) -> Stepper {
        match method {
            Method::Soft(o) => Stepper::Soft(SoftStepper::new(o, keep_reactions)),
            Method::Hard(o) => Stepper::Hard(HardStepper::new(o)),
            Method::ApproxHard(o) => Stepper::ApproxHard(ApproxStepper::new(o)),
        }
    }

    /// Readies the built world for the first step: the soft-sphere forces at the initial
    /// state, or the initial overlaps of the approximate hard spheres corrected (004 §I).
    pub(crate) fn start(&mut self, world: &mut World, physics: &Physics) -> ContactStats {
        match self {
            Stepper::Soft(s) => return s.compute_forces(world, physics, 0.0),
            Stepper::Hard(_) => {}
            Stepper::ApproxHard(s) => s.start(world, physics),
        }
        ContactStats::default()
    }

    /// Wall-clock time per stage so far (none for event-driven hard spheres).
    pub fn timers(&self) -> StageTimes {
        match self {
            Stepper::Soft(s) => s.timers,
            Stepper::Hard(_) => StageTimes::default(),
            Stepper::ApproxHard(s) => s.timers,
        }
    }

    /// Body-force acceleration of every particle at the last evaluation (m/s²).
    pub fn body_acc(&self) -> &[DVec3] {
        match self {
            Stepper::Soft(s) => &s.body.acc,
            Stepper::Hard(s) => &s.body.acc,
            Stepper::ApproxHard(s) => &s.body.acc,
        }
    }

    /// The hard-sphere collisions of the last step, when the scene logs them.
    pub fn collision_log(&self) -> &[CollisionRecord] {
        match self {
            Stepper::Hard(s) => &s.drift.log,
            _ => &[],
        }
    }
}
