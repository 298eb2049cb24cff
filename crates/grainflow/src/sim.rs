//! Simulation: built from a [`Scene`], stepped, observed.
//!
//! [`World`] is the physical state (particles, walls, contact history, clock) and can be
//! checkpointed and resumed bit for bit; [`Physics`] is what does not change during a run
//! (contact law, pair table, fields, dt, limits); `Stepper` is the method with its options
//! and scratch. A step is one `match` on the stepper; observers read the simulation after it.

use std::path::Path;

use glam::DVec3;

use crate::energy::Energies;
use crate::hard::CollisionRecord;
use crate::particles::Particles;
use crate::physics::Physics;
use crate::scene::{make_particles, make_walls, Scene};
use crate::stats::{ContactStats, StageTimes};
use crate::stepper::Stepper;
use crate::world::World;
use crate::{Error, Result};

/// A runnable simulation.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// State.
    pub world: World,
    /// Fixed physics.
    pub physics: Physics,
    /// The method with its options and scratch.
    pub(crate) stepper: Stepper,
    /// The scene it was built from.
    pub scene: Scene,
    /// Statistics of the last force evaluation.
    pub stats: ContactStats,
}

impl Simulation {
    /// Builds a simulation from a scene; `base` is the folder relative paths are read from.
    pub fn new(scene: Scene, base: &Path) -> Result<Simulation> {
        let mut sim = Simulation::unstarted(scene, base, |_, _| {})?;
        sim.stats = sim.stepper.start(&mut sim.world, &sim.physics);
        sim.refusals()?;
        Ok(sim)
    }

    /// [`Simulation::new`] up to its first force evaluation, `keep` taking from the whole
    /// run's world (its grains made, wrapped into the periodic box, no list built yet) what
    /// this process keeps of it: the share of one rank of a run shared among processes
    /// ([`crate::domain`]). The physics, dt and the drives come from the whole run.
    pub(crate) fn unstarted(
        scene: Scene,
        base: &Path,
        keep: impl FnOnce(&mut World, &Physics),
    ) -> Result<Simulation> {
        let walls = checked_walls(&scene, base)?;
        let particles = make_particles(&scene, base, &walls)?;
        // Contact time, dt and skin cover the grains inserts will add.
        let probe = crate::drive::insert::with_probes(&particles, &scene);
        let physics = Physics::new(&scene, &probe, &walls)?;
        let radii = [probe.min_radius(), probe.max_radius()];
        drop(probe);
        Simulation::assemble(scene, (particles, walls), physics, radii, keep)
    }

    /// [`Simulation::unstarted`] for a process given what the whole run's grains decide
    /// (`whole`, from the process that made them) instead of making them; `keep` puts in the
    /// grains it is given.
    pub(crate) fn given(
        scene: Scene,
        base: &Path,
        whole: &Whole,
        keep: impl FnOnce(&mut World, &Physics),
    ) -> Result<Simulation> {
        let walls = checked_walls(&scene, base)?;
        let physics = Physics::timed(&scene, whole.times)?;
        let no_grains = (Particles::default(), walls);
        Simulation::assemble(scene, no_grains, physics, whole.radii, |world, physics| {
            world.inserts.next_id = whole.next_id;
            keep(world, physics)
        })
    }

    /// The simulation of `scene` with its grains and walls, the physics and the grains' least
    /// and largest radius, before its first force evaluation; `keep` as for
    /// [`Simulation::unstarted`].
    fn assemble(
        scene: Scene,
        (particles, walls): (Particles, Vec<crate::walls::Wall>),
        physics: Physics,
        radii: [f64; 2],
        keep: impl FnOnce(&mut World, &Physics),
    ) -> Result<Simulation> {
        let neighbors = crate::neighbor::start::neighbor_list(&scene, radii, physics.dt)?;
        let start = scene.simulation.start_time;
        let space = (&physics.periodic, physics.planar);
        let mut world = World::new(particles, walls, neighbors, start, space)?;
        world.wall_runtime.bodies = crate::rigid::free_walls(&scene.walls, &world.walls)?;
        crate::drive::start(&mut world, &physics);
        keep(&mut world, &physics);
        let stepper = Stepper::new(
            scene.simulation.method,
            scene.output.stress.is_some() || scene.output.contacts,
        );
        Ok(Simulation {
            world,
            physics,
            stepper,
            scene,
            stats: ContactStats::default(),
        })
    }

    /// What the first step would refuse (an overlap past the limit, a grain outside the
    /// domain, a non-finite force), after the first evaluation, so that `check` refuses it as
    /// `run` does; and grains at one centre, too many steps, speeds past light's.
    pub(crate) fn refusals(&self) -> Result<()> {
        if matches!(self.stepper, Stepper::Soft(_)) {
            crate::soft::check_stability(&self.world, &self.physics, &self.stats)?;
        }
        coincident_centres(&self.world)?;
        step_count(&self.scene, self.physics.dt)?;
        speeds(&self.world.particles)
    }

    /// Evaluates the soft-sphere forces at the current state without advancing any contact
    /// history (dt = 0); nothing for the hard-sphere methods.
    pub fn evaluate_forces(&mut self) {
        if let Stepper::Soft(s) = &mut self.stepper {
            self.stats = s.compute_forces(&mut self.world, &self.physics, 0.0);
        }
    }

    /// Keeps, from the next force evaluation on, the per-pair forces that stress analysis
    /// reads ([`Simulation::reactions`]); scenes with stress output keep them from the start.
    pub fn keep_reactions(&mut self) {
        if let Stepper::Soft(s) = &mut self.stepper {
            s.keep_reactions(&self.world);
        }
    }

    /// Per neighbour slot, the force and torque of the last evaluation on the partner j (zero
    /// for slots not touching), when the soft-sphere stepper keeps them.
    pub fn reactions(&self) -> Option<&[(DVec3, DVec3)]> {
        match &self.stepper {
            Stepper::Soft(s) if s.keep_reactions => Some(&s.reaction),
            _ => None,
        }
    }

    /// Sorts the soft-sphere grains along the Morton curve now, as `simulation.sort_every`
    /// does (`SoftStepper::sort`); nothing for the hard-sphere methods.
    pub fn sort_along_curve(&mut self) {
        if let Stepper::Soft(s) = &mut self.stepper {
            s.sort(&mut self.world, &self.physics);
        }
    }

    /// Advances one step with the scene's method, then the drives.
    pub fn step(&mut self) -> Result<()> {
        let (w, physics) = (&mut self.world, &self.physics);
        match &mut self.stepper {
            Stepper::Soft(s) => self.stats = s.step(w, physics)?,
            Stepper::Hard(s) => {
                self.stats.max_overlap_ratio = s.step(w, physics)?.max_overlap_ratio
            }
            Stepper::ApproxHard(s) => {
                self.stats.max_overlap_ratio = s.step(w, physics)?.max_overlap_ratio
            }
        }
        if physics.model.normal == crate::contact::Normal::None && self.stats.contacts > 0 {
            return Err(Error::Unstable {
                time: w.time,
                step: w.step,
                id: w.particles.id[self.stats.worst],
                reason: "touches another grain, but the scene has no contact law ([contact] normal = \"none\" or no [contact] table); give one".into(),
            });
        }
        if let Some(r) = &physics.recirculation {
            r.apply(w, self.stepper.body_acc());
        }
        if !physics.inserts.is_empty() {
            crate::drive::insert::apply(&physics.inserts, w, physics);
        }
        Ok(())
    }

    /// Steps until the simulated time reaches `until` (s), calling `observe` after every step.
    /// (A checkpoint is written and resumed in [`crate::io::checkpoint`].)
    pub fn run_until(
        &mut self,
        until: f64,
        mut observe: impl FnMut(&Simulation) -> Result<()>,
    ) -> Result<()> {
        while self.world.time + 0.5 * self.physics.dt < until {
            self.step()?;
            observe(self)?;
        }
        Ok(())
    }

    /// Wall-clock time per stage so far (none for event-driven hard spheres).
    pub fn timers(&self) -> StageTimes {
        self.stepper.timers()
    }

    /// The hard-sphere collisions of the last step, when the scene logs them
    /// (`simulation.method.hard.collision_log`).
    pub fn collision_log(&self) -> &[CollisionRecord] {
        self.stepper.collision_log()
    }

    /// Energies of the current state.
    pub fn energies(&self) -> Energies {
        Energies::of(&self.world, &self.physics)
    }

    /// Number of steps to cover the scene's duration.
    pub fn total_steps(&self) -> u64 {
        (self.scene.simulation.duration / self.physics.dt).round() as u64
    }
}

/// The walls of `scene` (relative paths from `base`), once the scene's values were found to
/// fit together: the first problem otherwise.
fn checked_walls(scene: &Scene, base: &Path) -> Result<Vec<crate::walls::Wall>> {
    if let Some(first) = scene.problems().into_iter().next() {
        return Err(first);
    }
    make_walls(scene, base)
}

/// What the whole run's grains decide of a run, for a process that holds only some of them (a
/// rank of a run shared among processes, given its grains): the shortest contact time and
/// orbital step (s, which give dt), the least and largest radius (m, which give the skin) and
/// the id the next inserted grain gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Whole {
    pub times: (f64, f64),
    pub radii: [f64; 2],
    pub next_id: u64,
}

impl Whole {
    /// What the grains of `world` (the whole run's, no grain to be inserted) decide under
    /// `physics`.
    pub(crate) fn of(world: &World, physics: &Physics) -> Whole {
        let p = &world.particles;
        Whole {
            times: (physics.contact_time, physics.orbital_step),
            radii: [p.min_radius(), p.max_radius()],
            next_id: world.inserts.next_id,
        }
    }
}

/// Two grains at the same centre have no contact normal, so no force ever parts them: the
/// first such pair in the neighbour list is refused, naming both.
fn coincident_centres(world: &World) -> Result<()> {
    let (p, nl) = (&world.particles, &world.neighbors);
    let same = nl.owner.iter().zip(&nl.partner_grain).find(|(i, j)| {
        let (i, j) = (**i as usize, **j as usize);
        i != j && p.pos[i] == p.pos[j]
    });
    match same {
        Some((&i, &j)) => Err(Error::scene(
            "particles",
            format!(
                "particle ids {} and {} are at the same centre {:?}; a contact there has no normal",
                p.id[i as usize], p.id[j as usize], p.pos[i as usize]
            ),
        )),
        None => Ok(()),
    }
}

/// The most steps a run may take: 10¹² steps of even one grain take days, and the step
/// counter and the time sum lose their meaning long before 2⁶³ steps.
const MAX_STEPS: f64 = 1e12;

/// Refuses a duration of more than [`MAX_STEPS`] steps of `dt`.
fn step_count(scene: &Scene, dt: f64) -> Result<()> {
    let steps = scene.simulation.duration / dt;
    if steps > MAX_STEPS {
        return Err(Error::scene(
            "simulation.duration",
            format!(
                "{:e} s at dt = {dt:e} s is {steps:.3e} steps, more than the limit {MAX_STEPS:e}",
                scene.simulation.duration
            ),
        ));
    }
    Ok(())
}

/// The speed of light (m/s): grainflow's mechanics is Newtonian, and a grain's speed, or the
/// speed of its surface from spin, at or above it is a wrong input (its kinetic energy
/// overflows long before 10³⁰⁷ m/s).
const LIGHT_SPEED: f64 = 299_792_458.0;

/// Refuses a grain whose speed or surface speed from spin is not finite or not below light's.
fn speeds(p: &Particles) -> Result<()> {
    let bad = (0..p.len()).find(|&k| {
        let (v, w) = (p.vel[k].length(), p.omega[k].length() * p.radius[k]);
        !(v < LIGHT_SPEED && w < LIGHT_SPEED)
    });
    match bad {
        Some(k) => Err(Error::scene(
            "particles",
            format!(
                "particle id {} has velocity {:?} m/s and angular velocity {:?} rad/s; speeds must be finite and below the speed of light {LIGHT_SPEED} m/s",
                p.id[k], p.vel[k], p.omega[k]
            ),
        )),
        None => Ok(()),
    }
}
