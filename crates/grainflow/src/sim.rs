//! Simulation: built from a [`Scene`], stepped, observed.
//!
//! [`World`] is the state (particles, walls, contact history, clock) and can be checkpointed
//! and resumed bit for bit; [`Physics`] is what does not change during a run (method, contact
//! law, pair table, fields, dt, limits).

use std::path::Path;

use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::boundary::Periodic;
use crate::contact::{ContactForce, ContactModel, ContactState};
use crate::fill::{
    file::read_particle_file, lattice::lattice_spaced, layer::cylinder_layer,
    random::random_placement, Sphere,
};
use crate::frame::Frame;
use crate::gravity::{Gravity, GravityWork};
use crate::hard;
use crate::io::checkpoint::Checkpoint;
use crate::io::lammps_data::read_lammps_data;
use crate::material::{PairOverride, PairTable};
use crate::neighbor::{AutoSkin, NeighborList};
use crate::particles::{core_shell_mass_inertia, Mobility, ParticleSpec, Particles};
use crate::scene::{HardOptions, Method, ParticleSource, Scene, Skin, TimeStep};
use crate::soft::{self, ContactStats, StageTimes};
use crate::timestep::{contact_time_of, ContactKind, AUTO_FRACTION};
use crate::walls::history::{WallHistory, WallMember};
use crate::walls::interact::{Attachment, WallRuntime};
use crate::walls::Wall;
use crate::{Error, Result};

/// Attempts random placement may make per requested sphere before it gives up.
const RANDOM_ATTEMPTS_PER_SPHERE: usize = 1000;

/// The state of a run.
#[derive(Clone, Debug)]
pub struct World {
    /// The grains.
    pub particles: Particles,
    /// The walls.
    pub walls: Vec<Wall>,
    /// Neighbour list with the particle–particle contact history.
    pub neighbors: NeighborList,
    /// Particle–wall contact history, and the near lists of the last neighbour rebuild.
    pub wall_history: WallHistory,
    /// Per slot, the force and torque of the last evaluation on the partner j (zero for
    /// slots not touching), for stress analysis; empty unless `keep_reactions`.
    pub reaction: Vec<(DVec3, DVec3)>,
    /// Whether the pair loop keeps `reaction` (stress output asks for it). Writing it costs
    /// the pair loop about a tenth of its time on a dense bed, so runs without it skip it.
    pub keep_reactions: bool,
    /// The same for the pairs crossing into a later block, in the order of
    /// [`crate::neighbor::Links::cross_slot`]: what the gather adds to their partners.
    pub cross: Vec<(DVec3, DVec3)>,
    /// The walls' force and torque at the last evaluation, as (particle, force, torque) in
    /// ascending particle, for every particle a wall may act on: what the gather adds; empty
    /// when there are no walls.
    pub wall_force: Vec<(u32, DVec3, DVec3)>,
    /// Every grain's state as the pair loop reads it, packed at each force evaluation
    /// ([`crate::soft::Packed`]).
    pub packed: crate::soft::Packed,
    /// Wall poses, grains held by walls, grains absorbed.
    pub wall_runtime: WallRuntime,
    /// Simulated time (s).
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// Wall-clock time per stage (not part of the physical state).
    pub timers: StageTimes,
    /// Hard-sphere drift scratch, reused every step.
    pub drift: crate::hard::DriftState,
    /// Hard-sphere collisions so far.
    pub collisions: u64,
    /// Body-force acceleration of every particle at the last evaluation (m/s²): gravity
    /// fields and rotating-frame terms.
    pub body_acc: Vec<DVec3>,
    /// Buffers of the self-gravity methods.
    pub gravity_work: GravityWork,
    /// State of the Runge–Kutta and Adams integrators.
    pub integrator_work: crate::integrator::IntegratorWork,
    /// Door state of the recirculation (001 chapter 6).
    pub doors: crate::drive::DoorState,
    /// Scratch and impulse tallies of the approximate hard-sphere method.
    pub approx: crate::approx_hard::ApproxState,
}

impl World {
    /// The contact history of every touching pair, keyed by the particles' ids (owner, partner).
    pub(crate) fn pair_history_by_id(&self) -> Vec<(u64, u64, ContactState)> {
        let (p, nl) = (&self.particles, &self.neighbors);
        (0..nl.len())
            .filter(|&s| nl.slip[s].touching())
            .map(|s| {
                (
                    p.id[nl.owner(s)],
                    p.id[nl.partner[s] as usize],
                    nl.history(s),
                )
            })
            .collect()
    }

    /// Puts back, after a rebuild, the history of the pairs `pairs` keyed by ids (owner,
    /// partner); pairs with a particle gone, or no longer listed, are dropped. A pair whose
    /// partner now comes first has its roles exchanged ([`ContactState::swapped`]).
    pub(crate) fn set_pair_history_by_id(&mut self, pairs: &[(u64, u64, ContactState)]) {
        let index = self.particles.index_map();
        let entries: Vec<_> = pairs
            .iter()
            .filter_map(|(a, b, s)| {
                let (i, j) = (*index.get(a)?, *index.get(b)?);
                Some(if i < j {
                    (i, j, s.clone())
                } else {
                    (j, i, s.swapped())
                })
            })
            .collect();
        self.neighbors.set_history(&entries);
    }

    /// Puts the soft-sphere particles in `order` (the particle at new index k is the one at
    /// `order[k]`) with all their state, and rebuilds the neighbour list keeping every
    /// contact's history. The per-grain state of the hard-sphere methods (drift, impulse
    /// tallies) is not carried: `simulation.sort_every` is refused for them.
    pub fn reorder(&mut self, order: &[usize], periodic: &Periodic) {
        use crate::particles::permute;
        debug_assert!(
            order.len() == self.particles.len() && {
                let mut seen = vec![false; order.len()];
                order
                    .iter()
                    .all(|&k| !std::mem::replace(&mut seen[k], true))
            },
            "not a permutation of the particles"
        );
        let pairs = self.pair_history_by_id();
        self.particles.permute(order);
        self.wall_history.permute(order);
        permute(&mut self.wall_runtime.attached, order);
        permute(&mut self.body_acc, order);
        self.integrator_work.permute(order);
        self.neighbors = self.neighbors.emptied();
        self.rebuild_neighbors(periodic);
        self.set_pair_history_by_id(&pairs);
    }

    /// Sorts the particles along the Morton curve they are made in (`curve_order`), so that
    /// grains near in space are near in memory again after they have mixed; nothing when they
    /// already are (`simulation.sort_every`).
    pub fn sort_along_curve(&mut self, periodic: &Periodic) {
        let order = curve_order(&self.particles.pos, 2.0 * self.particles.max_radius());
        if order.iter().enumerate().any(|(k, &o)| k != o) {
            self.reorder(&order, periodic);
        }
    }

    /// Rebuilds the neighbour list (keeping the history of listed pairs) and its buffers.
    pub fn rebuild_neighbors(&mut self, periodic: &Periodic) {
        let nl = &mut self.neighbors;
        if let Some(auto) = nl.auto {
            // The fastest grain or wall the near lists follow ([`crate::walls::near::listable`]).
            let walls = self
                .walls
                .iter()
                .filter(|w| crate::walls::near::listable(w));
            let wall = walls.map(|w| w.motion.pose(self.time).velocity.length());
            let fastest = crate::particles::fastest(&self.particles.vel);
            nl.skin = auto.size(wall.fold(fastest, f64::max));
        }
        nl.build(&self.particles.pos, &self.particles.radius, periodic);
        let near = crate::walls::near::near_walls(
            &self.walls,
            &self.particles.pos,
            &self.particles.radius,
            nl.skin,
            periodic,
            self.time,
        );
        self.wall_history.relist(near, &self.walls);
        self.reaction.clear();
        if self.keep_reactions {
            self.reaction.resize(nl.len(), (DVec3::ZERO, DVec3::ZERO));
        }
        self.cross.clear();
        self.cross
            .resize(nl.links.cross_of.len(), (DVec3::ZERO, DVec3::ZERO));
    }
}

/// What stays fixed during a run.
#[derive(Clone, Debug)]
pub struct Physics {
    /// The contact law.
    pub model: ContactModel,
    /// Resolved constants of every material pair.
    pub table: PairTable,
    /// Gravity fields.
    pub gravity: Gravity,
    /// Rotating reference frame.
    pub frame: Option<Frame>,
    /// Time step (s).
    pub dt: f64,
    /// Shortest contact time of the scene (s), 002 eq 27.
    pub contact_time: f64,
    /// Largest overlap / radius before the run stops.
    pub max_overlap: f64,
    /// Box the grains must stay in (periodic axes excepted).
    pub domain: Option<(DVec3, DVec3)>,
    /// Periodic boundaries.
    pub periodic: Periodic,
    /// How grains move.
    pub method: Method,
    /// How the soft-sphere state is advanced.
    pub integrator: crate::scene::Integrator,
    /// 2-D mode: discs in the xy plane ([`crate::planar`]).
    pub planar: bool,
    /// Record every hard-sphere collision (`[output] collision_log`).
    pub log_collisions: bool,
    /// Approach speed (m/s) below which hard-sphere collisions are elastic.
    pub slide_limit: f64,
    /// Integrator steps per time step (`simulation.substeps`).
    pub substeps: u32,
}

/// A runnable simulation.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// State.
    pub world: World,
    /// Fixed physics.
    pub physics: Physics,
    /// The scene it was built from.
    pub scene: Scene,
    /// Statistics of the last force evaluation.
    pub stats: ContactStats,
}

/// Energies of the current state (J).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Energies {
    /// Σ ½ m v².
    pub translational: f64,
    /// Σ ½ I ω².
    pub rotational: f64,
    /// Gravitational potential energy.
    pub potential: f64,
}

impl Simulation {
    /// Builds a simulation from a scene; `base` is the folder relative paths are read from.
    pub fn new(scene: Scene, base: &Path) -> Result<Simulation> {
        if let Some(first) = scene.problems().into_iter().next() {
            return Err(first);
        }
        let walls = make_walls(&scene);
        let particles = make_particles(&scene, base, &walls)?;
        let overrides: Vec<(usize, usize, PairOverride)> = scene
            .pairs
            .iter()
            .filter_map(|o| {
                let a = scene.material_index(&o.materials[0])?;
                let b = scene.material_index(&o.materials[1])?;
                Some((a, b, o.clone()))
            })
            .collect();
        let table = PairTable::new(&scene.materials, &overrides);
        let contact_time = shortest_contact_time(&scene, &table, &particles, &walls);
        if !contact_time.is_finite() {
            return Err(Error::scene(
                "particles",
                "the scene makes no particles; at least one is needed",
            ));
        }
        let (soft, hard) = match scene.simulation.method {
            Method::Soft(o) => (Some(o), HardOptions::default()),
            Method::Hard(o) => (None, o),
            Method::ApproxHard(_) => (None, HardOptions::default()),
        };
        // The integrator's step is dt / substeps: the limits and "auto" apply to it.
        let n = f64::from(soft.map_or(1, |o| o.substeps.max(1)));
        let dt = match scene.simulation.dt {
            TimeStep::Auto(_) => n * contact_time * AUTO_FRACTION,
            TimeStep::Fixed(dt) => {
                // Hard spheres have no contact time: any dt resolves collisions exactly.
                let fraction = scene.simulation.dt_limit.fraction();
                if soft.is_some() && dt / n > contact_time * fraction {
                    let per = if n > 1.0 {
                        format!(" in {n} sub-steps of {:.3e} s", dt / n)
                    } else {
                        String::new()
                    };
                    return Err(Error::scene(
                        "simulation.dt",
                        format!(
                            "{dt:.3e} s{per} is above {} = {:.3e} s (shortest contact time t_c = {contact_time:.3e} s, 002 eq 27; simulation.dt_limit = \"{}\"); use dt ≤ {:.3e} or \"auto\" ({:.3e})",
                            scene.simulation.dt_limit.label(),
                            contact_time * fraction,
                            scene.simulation.dt_limit.name(),
                            n * contact_time * fraction,
                            n * contact_time * AUTO_FRACTION
                        ),
                    ));
                }
                dt
            }
        };
        // The default skin is also the largest an automatic one takes.
        let default_skin = 0.2 * particles.max_radius();
        let (skin, auto) = match scene.simulation.skin {
            Some(Skin::Fixed(skin)) => (skin, None),
            None if soft.is_none() => (default_skin, None),
            // Soft spheres size it from the fastest grain unless given one: the skin decides
            // which pairs are visited, not the order of the sums, so any skin gives the same
            // bits, and a dense, slow bed lists fewer pairs that do not touch.
            None | Some(Skin::Auto(_)) => {
                let auto = AutoSkin {
                    dt,
                    range: [0.01 * particles.min_radius(), default_skin],
                };
                (auto.range[1], Some(auto))
            }
        };
        // One image per pair: every periodic length must hold three neighbour cells.
        let cell = 2.0 * particles.max_radius() + skin;
        let lengths = scene.boundary.periodic.lengths().to_array();
        for (name, l) in ["x", "y", "z"].iter().zip(lengths) {
            if l > 0.0 && l < 3.0 * cell {
                return Err(Error::scene(
                    format!("boundary.periodic.{name}"),
                    format!(
                        "length {l:e} m is below 3 × (2 r_max + skin) = {:e} m; enlarge the box",
                        3.0 * cell
                    ),
                ));
            }
        }
        let mut particles = particles;
        if scene.simulation.dimensions == 2 {
            crate::planar::check_plane(&particles)?;
            crate::planar::make_discs(&mut particles);
        }
        for p in particles.pos.iter_mut() {
            *p = scene.boundary.periodic.wrap(*p);
        }
        let n = particles.len();
        let physics = Physics {
            model: scene.contact,
            table,
            gravity: scene.gravity,
            frame: scene.frame,
            dt,
            contact_time,
            max_overlap: scene.simulation.max_overlap,
            domain: scene.simulation.domain.map(|[a, b]| (a, b)),
            periodic: scene.boundary.periodic,
            method: scene.simulation.method,
            integrator: soft.unwrap_or_default().integrator,
            planar: scene.simulation.dimensions == 2,
            log_collisions: hard.collision_log,
            slide_limit: hard.slide_limit,
            substeps: soft.unwrap_or_default().substeps,
        };
        let mut neighbors = NeighborList::new(skin);
        neighbors.auto = auto;
        let world = World {
            particles,
            walls,
            neighbors,
            wall_history: WallHistory::new(n),
            reaction: Vec::new(),
            keep_reactions: scene.output.stress.is_some(),
            cross: Vec::new(),
            wall_force: Vec::new(),
            packed: Default::default(),
            wall_runtime: WallRuntime::default(),
            time: scene.simulation.start_time,
            step: 0,
            timers: StageTimes::default(),
            drift: Default::default(),
            collisions: 0,
            body_acc: Vec::new(),
            gravity_work: GravityWork::default(),
            integrator_work: Default::default(),
            doors: scene
                .recirculation
                .as_ref()
                .map(|r| r.start())
                .unwrap_or_default(),
            approx: Default::default(),
        };
        let mut sim = Simulation {
            world,
            physics,
            scene,
            stats: ContactStats::default(),
        };
        if let Method::Soft(_) = sim.physics.method {
            sim.stats = soft::compute_forces(&mut sim.world, &sim.physics, 0.0);
        }
        if let Method::ApproxHard(spec) = sim.physics.method {
            // Overlaps of the initial state are corrected before the first step (004 §I).
            sim.world.rebuild_neighbors(&sim.physics.periodic);
            crate::walls::interact::prepare(&mut sim.world, &sim.physics.periodic);
            let w = &mut sim.world;
            crate::approx_hard::overlap::remove_overlaps(
                &mut w.particles.pos,
                &w.particles.radius,
                &w.particles.inv_mass,
                &w.neighbors,
                &sim.physics.periodic,
                &w.walls,
                &w.wall_runtime.pose,
                spec.overlap_tolerance,
                spec.max_sweeps,
                1.0,
            );
        }
        Ok(sim)
    }

    /// Keeps, from the next force evaluation on, the per-pair forces that stress analysis
    /// reads (`world.reaction`); scenes with stress output keep them from the start.
    pub fn keep_reactions(&mut self) {
        let w = &mut self.world;
        w.keep_reactions = true;
        w.reaction
            .resize(w.neighbors.len(), (DVec3::ZERO, DVec3::ZERO));
    }

    /// Advances one step with the scene's method.
    pub fn step(&mut self) -> Result<()> {
        // Sorted before the step, so that the step's own evaluation fills what is kept per
        // slot (the reactions stress output reads) for the new order.
        if let Some(every) = self.scene.simulation.sort_every {
            if self.world.step > 0 && self.world.step.is_multiple_of(every) {
                self.world.sort_along_curve(&self.physics.periodic);
            }
        }
        match self.physics.method {
            Method::Soft(_) => {
                self.stats = crate::integrator::step(&mut self.world, &self.physics)?
            }
            Method::Hard(_) => {
                let c = hard::step(&mut self.world, &self.physics)?;
                self.world.collisions += c.collisions;
                self.stats.max_overlap_ratio = c.max_overlap_ratio;
            }
            Method::ApproxHard(spec) => {
                let c = crate::approx_hard::step(&mut self.world, &self.physics, &spec)?;
                self.world.collisions += c.collisions;
                self.stats.max_overlap_ratio = c.max_overlap_ratio;
            }
        }
        if let Some(r) = &self.scene.recirculation {
            r.apply(&mut self.world);
        }
        Ok(())
    }

    /// Steps until the simulated time reaches `until` (s), calling `observe` after every step.
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

    /// The whole state, for a checkpoint.
    pub fn checkpoint(&self) -> Checkpoint {
        let w = &self.world;
        let p = &w.particles;
        let pairs = w.pair_history_by_id();
        let walls = w
            .wall_history
            .iter()
            .map(|(k, member, s)| (p.id[k], member.to_bits(), s.clone()))
            .collect();
        Checkpoint {
            scene: self.scene.to_toml().unwrap_or_default(),
            time: w.time,
            step: w.step,
            dt: self.physics.dt,
            particles: p.clone(),
            pairs,
            walls,
            attached: w
                .wall_runtime
                .attached
                .iter()
                .enumerate()
                .filter_map(|(k, a)| a.map(|a| (p.id[k], a.wall, a.local)))
                .collect(),
            absorbed: w.wall_runtime.absorbed.clone(),
            doors: w.doors,
            tally: w.approx.tally.clone(),
            collisions: w.collisions,
        }
    }

    /// Resumes a run from a checkpoint: the physics comes from `scene` (which must be the
    /// checkpoint's scene, apart from duration and outputs), the state from the checkpoint.
    pub fn resume(scene: Scene, base: &Path, ckpt: Checkpoint) -> Result<Simulation> {
        let saved = Scene::from_checkpoint_toml(&ckpt.scene)?;
        let comparable = |s: &Scene| {
            let mut s = s.clone();
            s.simulation.duration = 0.0;
            s.output = Default::default();
            if let Method::Hard(o) = &mut s.simulation.method {
                o.collision_log = false;
            }
            s
        };
        if comparable(&saved) != comparable(&scene) {
            return Err(Error::scene(
                "scene",
                "differs from the scene the checkpoint was written with (only simulation.duration, [output] and the hard method's collision_log may change on resume)",
            ));
        }
        let mut sim = Simulation::new(scene, base)?;
        if sim.physics.dt.to_bits() != ckpt.dt.to_bits() {
            return Err(Error::scene(
                "simulation.dt",
                format!(
                    "is {:e} s but the checkpoint used {:e} s",
                    sim.physics.dt, ckpt.dt
                ),
            ));
        }
        let index = ckpt.particles.index_map();
        let n = ckpt.particles.len();
        let w = &mut sim.world;
        w.particles = ckpt.particles;
        w.time = ckpt.time;
        w.step = ckpt.step;
        let walls = ckpt.walls.into_iter().filter_map(|(id, member, s)| {
            Some((*index.get(&id)?, WallMember::from_bits(member), s))
        });
        w.wall_history.restore(n, walls, &w.walls);
        w.wall_runtime.attached = vec![None; n];
        for (id, wall, local) in ckpt.attached {
            if let Some(&k) = index.get(&id) {
                w.wall_runtime.attached[k] = Some(Attachment { wall, local });
            }
        }
        w.wall_runtime.absorbed = ckpt.absorbed;
        w.doors = ckpt.doors;
        w.approx.tally = ckpt.tally;
        w.collisions = ckpt.collisions;
        w.rebuild_neighbors(&sim.physics.periodic);
        w.set_pair_history_by_id(&ckpt.pairs);
        if sim.physics.integrator.needs_rate_form() {
            // Slip rates are not stored: the evaluation at the saved state gives them again,
            // bit for bit (the slips are unchanged by an evaluation with dt = 0).
            sim.stats = soft::compute_forces(&mut sim.world, &sim.physics, 0.0);
        }
        Ok(sim)
    }

    /// Energies of the current state.
    pub fn energies(&self) -> Energies {
        let p = &self.world.particles;
        let t = self.world.time;
        let external: f64 = (0..p.len())
            .filter(|&k| p.inv_mass[k] > 0.0)
            .map(|k| {
                self.physics.gravity.potential(p.mass[k], p.pos[k])
                    + self
                        .physics
                        .frame
                        .map_or(0.0, |f| f.potential(t, p.mass[k], p.pos[k]))
            })
            .sum();
        let potential = external + self.physics.gravity.self_potential(&p.pos, &p.mass);
        Energies {
            translational: p.translational_energy(),
            rotational: p.rotational_energy(),
            potential,
        }
    }

    /// Number of steps to cover the scene's duration.
    pub fn total_steps(&self) -> u64 {
        (self.scene.simulation.duration / self.physics.dt).round() as u64
    }

    /// Bytes the state takes, roughly: particle arrays, neighbour slots and their history.
    pub fn memory_estimate(&self) -> usize {
        let per_particle = 8 * (3 * 6 + 6) + 2 + 8;
        let per_slot =
            4 + 4 + std::mem::size_of::<ContactState>() + std::mem::size_of::<ContactForce>() + 4;
        self.world.particles.len() * per_particle
            + self
                .world
                .neighbors
                .len()
                .max(6 * self.world.particles.len())
                * per_slot
    }
}

/// Body-force accelerations of every particle into `world.body_acc`: gravity fields
/// (uniform, central body, self-gravity) and the rotating frame's Coriolis and centrifugal terms.
pub(crate) fn body_accelerations(world: &mut World, physics: &Physics) {
    let p = &world.particles;
    if let Some(a) = uniform_acceleration(physics) {
        // The same for every particle: written again only when the count changed.
        if world.body_acc.len() != p.len() || world.body_acc.first() != Some(&a) {
            world.body_acc.clear();
            world.body_acc.resize(p.len(), a);
        }
        return;
    }
    physics.gravity.accelerations(
        &p.pos,
        &p.mass,
        &mut world.gravity_work,
        &mut world.body_acc,
    );
    if let Some(frame) = &physics.frame {
        frame.add_accelerations(world.time, &p.pos, &p.vel, &mut world.body_acc);
    }
}

/// The body-force acceleration (m/s²) shared by every particle, when the body force is a
/// uniform field alone (no central body, self-gravity or rotating frame): what
/// [`body_accelerations`] writes for each of them, so loops may use it without reading them.
pub(crate) fn uniform_acceleration(physics: &Physics) -> Option<DVec3> {
    let g = &physics.gravity;
    // 0 + g, as that sum starts from zero there (a −0 component reads +0 in both).
    (g.central.is_none() && g.self_gravity.is_none() && physics.frame.is_none())
        .then(|| DVec3::ZERO + g.uniform.unwrap_or(DVec3::ZERO))
}

/// The walls of a scene with unit directions (already checked by [`Scene::problems`]).
fn make_walls(scene: &Scene) -> Vec<Wall> {
    scene
        .walls
        .iter()
        .map(|w| w.build(scene.material_index(&w.material).unwrap_or(0)))
        .collect()
}

/// All particles of the scene's sources. Ids follow the order the sources make them; the store
/// keeps them along a Morton curve, so that neighbours in space are near in memory.
fn make_particles(scene: &Scene, base: &Path, walls: &[Wall]) -> Result<Particles> {
    let mut rng = ChaCha8Rng::seed_from_u64(scene.simulation.seed);
    let mut made: Vec<(ParticleSpec, f64, f64)> = Vec::new();
    for (k, src) in scene.particles.iter().enumerate() {
        let material = scene
            .material_index(src.material())
            .ok_or_else(|| Error::scene(format!("particles[{k}].material"), "unknown material"))?;
        let density = scene.materials[material].density.ok_or_else(|| {
            Error::scene(
                format!("materials[{material}].density"),
                "is needed for particles",
            )
        })?;
        let free = |pos, radius, vel| ParticleSpec {
            pos,
            vel,
            omega: DVec3::ZERO,
            radius,
            material,
            mobility: Mobility::Free,
        };
        let specs: Vec<ParticleSpec> = match src {
            ParticleSource::List { spheres, .. } => spheres
                .iter()
                .map(|s| ParticleSpec {
                    pos: s.pos,
                    vel: s.vel,
                    omega: s.omega,
                    radius: s.radius,
                    material,
                    mobility: s.mobility,
                })
                .collect(),
            ParticleSource::File { path, .. } => read_particle_file(&base.join(path))?
                .into_iter()
                .map(|f| free(f.pos, f.radius, f.vel))
                .collect(),
            ParticleSource::LammpsData { path, .. } => {
                let path = base.join(path);
                let atoms = read_lammps_data(&path)?;
                if let Some(a) = atoms
                    .iter()
                    .find(|a| (a.density - density).abs() > 1e-9 * density)
                {
                    return Err(Error::Format {
                        path,
                        reason: format!(
                            "atom {} has density {} kg/m³ but material \"{}\" has {density}",
                            a.id,
                            a.density,
                            src.material()
                        ),
                    });
                }
                atoms
                    .iter()
                    .map(|a| ParticleSpec {
                        omega: a.omega,
                        ..free(a.pos, a.radius, a.vel)
                    })
                    .collect()
            }
            ParticleSource::Lattice {
                kind,
                min,
                max,
                radius,
                spread,
                spacing,
                velocity,
                velocity_dispersion,
                ..
            } => {
                let spheres =
                    lattice_spaced(*kind, *min, *max, *radius, *spread, *spacing, &mut rng);
                let vel =
                    thermal_velocities(spheres.len(), *velocity, *velocity_dispersion, &mut rng);
                spheres
                    .iter()
                    .zip(vel)
                    .map(|(s, v): (&Sphere, DVec3)| free(s.pos, s.radius, v))
                    .collect()
            }
            ParticleSource::CylinderLayer {
                center,
                axis,
                radius,
                length,
                sphere_radius,
                ..
            } => cylinder_layer(*center, axis.normalize(), *radius, *length, *sphere_radius)
                .into_iter()
                .map(|s| free(s.pos, s.radius, DVec3::ZERO))
                .collect(),
            ParticleSource::Pack {
                count,
                radius,
                packing,
                min,
                max,
                profile,
                inner_radius,
                ..
            } => {
                let region = crate::fill::prime::Region {
                    min: *min,
                    max: *max,
                    profile,
                    inner_radius: *inner_radius,
                    walls,
                };
                let field = format!("particles[{k}].max");
                crate::fill::prime::pack(&region, *count, *radius, *packing, &mut rng, &field)?
                    .iter()
                    .map(|s| free(s.pos, s.radius, DVec3::ZERO))
                    .collect()
            }
            ParticleSource::Annulus {
                center,
                inner_radius,
                outer_radius,
                radius_min,
                radius_max,
                packing_fraction,
                velocity_dispersion,
                ..
            } => {
                // Relaxed as far as the approximate hard spheres correct overlaps.
                let tolerance = match scene.simulation.method {
                    Method::ApproxHard(o) => o.overlap_tolerance,
                    _ => crate::scene::ApproxHardOptions::default().overlap_tolerance,
                };
                let annulus = crate::fill::annulus::Annulus {
                    center: *center,
                    inner: *inner_radius,
                    outer: *outer_radius,
                    r_min: *radius_min,
                    r_max: *radius_max,
                    fraction: *packing_fraction,
                };
                let discs = annulus.pack(&mut rng, tolerance).map_err(|e| match e {
                    Error::Scene { field, reason } => {
                        Error::scene(format!("particles[{k}].{field}"), reason)
                    }
                    other => other,
                })?;
                let vel =
                    thermal_velocities(discs.len(), DVec3::ZERO, *velocity_dispersion, &mut rng);
                discs
                    .iter()
                    .zip(vel)
                    .map(|(s, v)| free(s.pos, s.radius, DVec3::new(v.x, v.y, 0.0)))
                    .collect()
            }
            ParticleSource::Random {
                min,
                max,
                count,
                radius,
                spread,
                velocity,
                velocity_dispersion,
                ..
            } => {
                let attempts = count * RANDOM_ATTEMPTS_PER_SPHERE;
                let spheres =
                    random_placement(*min, *max, *count, *radius, *spread, &mut rng, attempts)
                        .map_err(|e| match e {
                            Error::Scene { field, reason } => Error::scene(
                                field.replacen("particles.", &format!("particles[{k}]."), 1),
                                reason,
                            ),
                            other => other,
                        })?;
                let vel =
                    thermal_velocities(spheres.len(), *velocity, *velocity_dispersion, &mut rng);
                spheres
                    .iter()
                    .zip(vel)
                    .map(|(s, v)| free(s.pos, s.radius, v))
                    .collect()
            }
        };
        let core = scene.materials[material].core;
        let inside = |c: &crate::particles::Core| specs.iter().find(|s| s.radius <= c.radius);
        if let Some((c, s)) = core.as_ref().and_then(|c| Some((c, inside(c)?))) {
            return Err(Error::scene(
                format!("materials[{material}].core.radius"),
                format!(
                    "{} m is not below the radius {} m of a particle of particles[{k}]",
                    c.radius, s.radius
                ),
            ));
        }
        made.extend(specs.into_iter().map(|s| {
            // Discs (2-D) have mass per area; their inertia is set by planar::make_discs.
            let (m, i) = if scene.simulation.dimensions == 2 {
                let m = crate::planar::disc_mass(s.radius, density);
                (m, crate::planar::disc_inertia(m, s.radius))
            } else {
                core_shell_mass_inertia(s.radius, density, core)
            };
            (s, m, i)
        }));
    }
    let cell = 2.0 * made.iter().map(|(s, ..)| s.radius).fold(0.0, f64::max);
    let pos: Vec<DVec3> = made.iter().map(|(s, ..)| s.pos).collect();
    let order = curve_order(&pos, cell);
    let mut particles = Particles::default();
    for k in order {
        particles.push_with_inertia(k as u64, &made[k].0, made[k].1, made[k].2);
    }
    Ok(particles)
}

/// `n` velocities: `mean` plus Gaussian components of spread σ (m/s) drawn with Box–Muller from
/// the scene's generator, their own mean removed so the centre of mass moves at `mean`.
fn thermal_velocities(n: usize, mean: DVec3, sigma: f64, rng: &mut ChaCha8Rng) -> Vec<DVec3> {
    if sigma == 0.0 || n == 0 {
        return vec![mean; n];
    }
    let mut gauss = || {
        let (u1, u2): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random::<f64>());
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    };
    let mut v: Vec<DVec3> = (0..n)
        .map(|_| sigma * DVec3::new(gauss(), gauss(), gauss()))
        .collect();
    let drift = v.iter().copied().sum::<DVec3>() / n as f64;
    for x in v.iter_mut() {
        *x += mean - drift;
    }
    v
}

/// The order of `pos` along a Morton curve through cubic cells of side `cell` (m) from their
/// lowest corner; ties keep their order.
fn curve_order(pos: &[DVec3], cell: f64) -> Vec<usize> {
    let lo = pos
        .iter()
        .fold(DVec3::splat(f64::INFINITY), |a, &x| a.min(x));
    let mut order: Vec<usize> = (0..pos.len()).collect();
    order.sort_by_key(|&k| morton(((pos[k] - lo) / cell).as_uvec3().to_array()));
    order
}

/// Morton (Z-order) key of a cell: the bits of x, y and z interleaved (21 bits each).
fn morton(c: [u32; 3]) -> u64 {
    let spread = |v: u32| {
        let mut x = u64::from(v.min((1 << 21) - 1));
        x = (x | x << 32) & 0x1f00000000ffff;
        x = (x | x << 16) & 0x1f0000ff0000ff;
        x = (x | x << 8) & 0x100f00f00f00f00f;
        x = (x | x << 4) & 0x10c30c30c30c30c3;
        (x | x << 2) & 0x1249249249249249
    };
    spread(c[0]) | spread(c[1]) << 1 | spread(c[2]) << 2
}

/// The shortest contact time over every kind of contact the scene can make: for each pair of
/// materials present, the smallest spheres (lightest and, for Hooke, stiffest per unit mass),
/// and each particle material against each wall material.
fn shortest_contact_time(scene: &Scene, table: &PairTable, p: &Particles, walls: &[Wall]) -> f64 {
    let n_mat = scene.materials.len();
    let mut smallest: Vec<Option<(f64, f64)>> = vec![None; n_mat];
    for k in 0..p.len() {
        let m = p.material[k] as usize;
        if smallest[m].is_none_or(|(r, _)| p.radius[k] < r) {
            smallest[m] = Some((p.radius[k], p.mass[k]));
        }
    }
    let v_c = scene.contact.characteristic_velocity;
    let mut t = f64::INFINITY;
    for a in 0..n_mat {
        let Some((r_a, m_a)) = smallest[a] else {
            continue;
        };
        for (b, sb) in smallest.iter().enumerate() {
            if let Some((r_b, m_b)) = *sb {
                let kind = ContactKind {
                    r_i: r_a,
                    m_i: m_a,
                    r_j: Some(r_b),
                    m_j: Some(m_b),
                };
                t = t.min(contact_time_of(
                    &scene.contact.normal,
                    table.get(a, b),
                    &kind,
                    v_c,
                ));
            }
        }
        for w in walls {
            let kind = ContactKind {
                r_i: r_a,
                m_i: m_a,
                r_j: None,
                m_j: None,
            };
            t = t.min(contact_time_of(
                &scene.contact.normal,
                table.get(a, w.material),
                &kind,
                v_c,
            ));
        }
    }
    t
}
