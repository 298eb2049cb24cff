//! Soft-sphere step: velocity Verlet (003 §2.1, eq 3–10) with overlap-based contact forces.
//!
//! 1. half kick v, ω with the last forces; drift positions;
//! 2. rebuild the neighbour list when some particle moved more than half the skin;
//! 3. pair forces, one task per fixed block of rows ([`crate::neighbor::BLOCK`]): the block's
//!    touching pairs are gathered in batches, evaluated four at a time by the contact law's
//!    lanes ([`crate::contact::lanes`]) and summed in slot order into both particles when both
//!    lie in the block; a pair reaching into a later block leaves its reaction in a buffer of
//!    crossing pairs that the partner gathers after its block's sum, in ascending owner. The
//!    order of every sum is fixed by the list alone, so results are bit-identical for any
//!    thread count;
//! 4. wall contacts, each particle's into a buffer of its own; then the gather adds to every
//!    particle the crossing reactions naming it, its wall contact and its body force;
//! 5. second half kick.
//!
//! Velocity-dependent forces (damping, friction) see the half-step velocity v(t + ½dt), as in
//! LAMMPS's granular integrator.

use glam::DVec3;
use rayon::prelude::*;

mod free_walls;
mod gather;
mod pairs;
mod verlet;
pub mod walls;
use gather::gather_forces;
use pairs::pair_forces;
pub use pairs::Packed;
pub use verlet::{half_kick, kick_drift_pack};

use crate::contact::Body;
use crate::integrator::IntegratorWork;
use crate::particles::CHUNK;
use crate::physics::{BodyForce, Physics};
use crate::scene::SoftOptions;
pub use crate::stats::{ContactStats, StageTimes};
use crate::walls::interact::{apply_surfaces, place, Candidates};
use crate::world::World;
use crate::{Error, Result};
use walls::wall_forces;

/// The soft-sphere method: its options and its scratch, kept from step to step; none of the
/// scratch is part of the physical state (a resume makes it again,
/// [`SoftStepper::compute_forces`]).
#[derive(Clone, Debug, Default)]
pub struct SoftStepper {
    /// The integrator and its sub-steps (`simulation.method.soft`).
    pub options: SoftOptions,
    /// Every grain's state as the pair loop reads it, packed at each force evaluation.
    packed: Packed,
    /// Per slot, the force and torque of the last evaluation on the partner j (zero for
    /// slots not touching), for stress analysis; empty unless `keep_reactions`.
    pub reaction: Vec<(DVec3, DVec3)>,
    /// Whether the pair loop keeps `reaction` (stress output asks for it). Writing it costs
    /// the pair loop about a tenth of its time on a dense bed, so runs without it skip it.
    pub keep_reactions: bool,
    /// The same for the pairs crossing into a later block, in the order of
    /// [`crate::neighbor::Links::cross_slot`]: what the gather adds to their partners.
    cross: Vec<(DVec3, DVec3)>,
    /// The walls' force and torque at the last evaluation, as (particle, force, torque) in
    /// ascending particle, for every particle a wall may act on: what the gather adds; empty
    /// when there are no walls.
    pub(crate) wall_force: Vec<(u32, DVec3, DVec3)>,
    /// Body-force accelerations at the last evaluation.
    pub body: BodyForce,
    /// Stages and past rates of the Runge–Kutta and Adams integrators.
    pub(crate) integrator: IntegratorWork,
    /// Wall-clock time per stage.
    pub timers: StageTimes,
    /// The neighbour list's build count the slot buffers (`reaction`, `cross`) were sized
    /// for ([`crate::neighbor::NeighborList::builds`]).
    sized_for: Option<u64>,
}

impl SoftStepper {
    /// A stepper with `options` that keeps the per-pair reactions when `keep_reactions`
    /// (stress output).
    pub fn new(options: SoftOptions, keep_reactions: bool) -> Self {
        SoftStepper {
            options,
            keep_reactions,
            ..Default::default()
        }
    }

    /// Advances the world by one step of `physics.dt` with its integrator, after
    /// sorting the grains along the Morton curve when `simulation.sort_every` asks for it.
    pub fn step(&mut self, world: &mut World, physics: &Physics) -> Result<ContactStats> {
        // Sorted before the step, so that the step's own evaluation fills what is kept per
        // slot (the reactions stress output reads) for the new order.
        if let Some(every) = physics.sort_every {
            if world.step > 0 && world.step.is_multiple_of(every) {
                self.sort(world, physics);
            }
        }
        crate::integrator::step(world, physics, self)
    }

    /// Sorts the grains along the Morton curve they are made in, so that grains near in space
    /// are near in memory again after they have mixed; nothing when they already are. The
    /// per-grain scratch of the integrators and body forces goes with them.
    pub fn sort(&mut self, world: &mut World, physics: &Physics) {
        if let Some(order) = world.curve_order() {
            world.reorder(&order, &physics.periodic);
            self.body.permute(&order);
            self.integrator.permute(&order);
            self.follow_list(world);
        }
    }

    /// Forces and torques on every particle at the current state. `dt` advances the
    /// tangential history; 0 evaluates without advancing it (the first evaluation of a run).
    pub fn compute_forces(
        &mut self,
        world: &mut World,
        physics: &Physics,
        dt: f64,
    ) -> ContactStats {
        evaluate::<bool>(world, physics, self, dt, None, None)
    }

    /// [`SoftStepper::step`] for one rank of a run shared among processes: velocity Verlet
    /// with the neighbour list rebuilt by all ranks together (`ex`) and the copies of the
    /// other ranks' grains given their owners' forces after each evaluation, so that they
    /// kick and drift as their owners do. Every rank learns whether some rank's grains went
    /// bad before any goes on, so that all stop together.
    pub(crate) fn step_shared(
        &mut self,
        world: &mut World,
        physics: &Physics,
        ex: &mut dyn Exchange,
    ) -> Result<ContactStats> {
        let h = physics.dt / f64::from(self.options.substeps);
        let mut stats = ContactStats::default();
        for _ in 0..self.options.substeps {
            let mut t = std::time::Instant::now();
            let left = kick_drift_pack(world, &mut self.packed, physics, h);
            world.time += h;
            let left = ex.after_drift(world, left);
            self.timers.integrate += lap(&mut t);
            let share = (&mut *ex, left);
            stats = evaluate(world, physics, self, h, Some(0.5 * h), Some(share));
            let check = check_stability(world, physics, &stats);
            ex.after_forces(world, Some(0.5 * h), check)?;
        }
        world.step += 1;
        Ok(stats)
    }

    /// [`SoftStepper::compute_forces`] at the start of one rank's share of a run shared among
    /// processes: the list its ranks built together (`ex`), the body forces from them.
    pub(crate) fn start_shared(
        &mut self,
        world: &mut World,
        physics: &Physics,
        ex: &mut dyn Exchange,
    ) -> ContactStats {
        evaluate(world, physics, self, 0.0, None, Some((ex, false)))
    }

    /// Keeps, from the next force evaluation on, the per-pair forces that stress analysis
    /// reads ([`SoftStepper::reaction`]).
    pub fn keep_reactions(&mut self, world: &World) {
        self.keep_reactions = true;
        self.reaction
            .resize(world.neighbors.len(), (DVec3::ZERO, DVec3::ZERO));
    }

    /// Sizes the buffers per slot afresh (zeros) when the neighbour list was rebuilt since
    /// they were last sized.
    pub fn follow_list(&mut self, world: &World) {
        let nl = &world.neighbors;
        if self.sized_for == Some(nl.builds) {
            return;
        }
        self.sized_for = Some(nl.builds);
        self.reaction.clear();
        if self.keep_reactions {
            self.reaction.resize(nl.len(), (DVec3::ZERO, DVec3::ZERO));
        }
        self.cross.clear();
        self.cross
            .resize(nl.links.cross_of.len(), (DVec3::ZERO, DVec3::ZERO));
    }
}

/// Seconds since `t`, and `t` reset to now.
fn lap(t: &mut std::time::Instant) -> f64 {
    let now = std::time::Instant::now();
    let s = (now - *t).as_secs_f64();
    *t = now;
    s
}

/// Advances the world by one velocity-Verlet step of `dt` (s); the caller counts steps and
/// checks stability. The first half kick, the drift and the packing of the grains for the pair
/// loop are one pass over the grains, chunk by chunk; the second half kick rides on the gather
/// of the forces. Each keeps its operations and order, so the results are those of separate
/// passes.
pub fn step(world: &mut World, physics: &Physics, s: &mut SoftStepper, dt: f64) -> ContactStats {
    let mut t = std::time::Instant::now();
    let left = kick_drift_pack(world, &mut s.packed, physics, dt);
    crate::rigid::kick_drift(&mut world.wall_runtime.bodies, dt);
    world.time += dt;
    s.timers.integrate += lap(&mut t);
    evaluate(world, physics, s, dt, Some(0.5 * dt), Some(left))
}

/// What a step asks of the other ranks when the grains are shared among processes
/// ([`crate::domain`]).
pub(crate) trait Exchange {
    /// After the drift of `world`, which moved the copies of the other ranks' grains as their
    /// owners moved them: whether the list needs a rebuild on every rank, from `left`,
    /// whether one of the grains here left half the skin.
    fn after_drift(&mut self, world: &World, left: bool) -> bool;
    /// Rebuilds the neighbour list with all ranks, each grain moving to the rank whose brick
    /// holds it.
    fn rebuild(&mut self, world: &mut World, physics: &Physics);
    /// After the forces and the second half kick `kick` (s; None at the start, which kicks
    /// nothing): gives each copy its owner's force, torque and kick, unless `check` failed
    /// here or on another rank: then the failure of the lowest such rank, on every rank.
    fn after_forces(
        &mut self,
        world: &mut World,
        kick: Option<f64>,
        check: Result<()>,
    ) -> Result<()>;
    /// The body-force accelerations of the grains here into `body`, with the other ranks
    /// when the grains' self-gravity needs them.
    fn body_force(&mut self, world: &World, physics: &Physics, body: &mut BodyForce);
}

/// [`SoftStepper::compute_forces`], then v += h F/m and ω += h T/I for every particle when `kick` is h.
/// `left` is whether a grain left half the skin, when the drift just asked, or the ranks'
/// exchange and whether the list needs a rebuild on every rank.
fn evaluate<L: Rebuilds>(
    world: &mut World,
    physics: &Physics,
    s: &mut SoftStepper,
    dt: f64,
    kick: Option<f64>,
    mut left: Option<L>,
) -> ContactStats {
    let mut t = std::time::Instant::now();
    // Held grains go with their walls before the rebuild check; then the check makes the
    // near lists cover every member a grain can touch, so that only the grains listed near
    // a sticky or absorbing wall are looked at.
    let moved = place(world);
    let period = physics.periodic.lengths();
    let outrun = world.wall_history.near().outrun(&world.wall_runtime.pose);
    match &mut left {
        // Grains that came and went since the drift packed them: packed again.
        Some(left) if !moved => s.packed.fresh &= !left.rebuild(world, physics, outrun),
        _ => {
            if outrun || world.neighbors.needs_rebuild(&world.particles.pos, period) {
                world.rebuild_neighbors(&physics.periodic);
            }
        }
    }
    if apply_surfaces(world, &physics.periodic, Candidates::Near) || moved {
        s.packed.fresh = false;
    }
    s.follow_list(world);
    s.timers.neighbor += lap(&mut t);
    match &mut left {
        Some(l) => l.body_force(world, physics, &mut s.body),
        None => s.body.update(physics, &world.particles, world.time),
    }
    pairs::pack(&mut s.packed, &world.particles, &world.neighbors, period);
    s.packed.fresh = false;
    let (pair_stats, wall_stats) = contact_forces(world, physics, s, dt, &mut t);
    let free_stats = free_walls::free_wall_forces(world, physics, dt, kick);
    let wall_stats = ContactStats::merge(wall_stats, free_stats);
    let stats = if physics.planar {
        let stats = gather_forces(world, physics, s, None);
        crate::planar::project_forces(&mut world.particles);
        if let Some(h) = kick {
            half_kick(world, 2.0 * h);
        }
        stats
    } else {
        gather_forces(world, physics, s, kick)
    };
    s.timers.gather += lap(&mut t);
    ContactStats::merge(ContactStats::merge(pair_stats, wall_stats), stats)
}

/// How a force evaluation learns whether to rebuild the list, and rebuilds it: one process
/// asks its drift, the ranks of a run shared among processes ask each other.
trait Rebuilds {
    /// Rebuilds the list of `world` when a grain left half the skin or, `outrun`, a wall
    /// moved past its near lists; whether the grains here changed (ranks trading them).
    fn rebuild(&mut self, world: &mut World, physics: &Physics, outrun: bool) -> bool;
    /// The body-force accelerations of the grains of `world` into `body`.
    fn body_force(&mut self, world: &World, physics: &Physics, body: &mut BodyForce) {
        body.update(physics, &world.particles, world.time);
    }
}

impl Rebuilds for bool {
    fn rebuild(&mut self, world: &mut World, physics: &Physics, outrun: bool) -> bool {
        if *self || outrun {
            world.rebuild_neighbors(&physics.periodic);
        }
        false
    }
}

impl<'b> Rebuilds for (&mut (dyn Exchange + 'b), bool) {
    fn rebuild(&mut self, world: &mut World, physics: &Physics, outrun: bool) -> bool {
        let rebuild = self.1 || outrun;
        if rebuild {
            self.0.rebuild(world, physics);
        }
        rebuild
    }

    fn body_force(&mut self, world: &World, physics: &Physics, body: &mut BodyForce) {
        self.0.body_force(world, physics, body);
    }
}

/// Particle k as the contact law sees it, from the particles' velocity, angular velocity,
/// radius, inverse mass and inverse inertia.
#[inline(always)]
fn body(
    vel: &[DVec3],
    omega: &[DVec3],
    radius: &[f64],
    inv_mass: &[f64],
    inv_inertia: &[f64],
    k: usize,
) -> Body {
    Body {
        vel: vel[k],
        omega: omega[k],
        radius: Some(radius[k]),
        inv_mass: inv_mass[k],
        inv_inertia: inv_inertia[k],
    }
}

/// The pair loop ([`pair_forces`]) and the wall pass ([`wall_forces`]) side by side
/// ([`rayon::join`]): both read the grains and they write apart (the pairs into the forces and
/// torques, taken out of the particles for the while; the walls into `s.wall_force`), so
/// that the threads one leaves idle at its end take up the other. Each stage's timer gets the
/// share of the wall time since `t` that its own run time is of both (on one thread they run
/// one after the other, and the shares are their times).
fn contact_forces(
    world: &mut World,
    physics: &Physics,
    s: &mut SoftStepper,
    dt: f64,
    t: &mut std::time::Instant,
) -> (ContactStats, ContactStats) {
    let World {
        particles,
        neighbors,
        walls,
        wall_runtime,
        wall_history,
        ..
    } = world;
    let SoftStepper {
        packed,
        reaction,
        keep_reactions,
        cross,
        wall_force,
        timers,
        ..
    } = s;
    let mut force = std::mem::take(&mut particles.force);
    let mut torque = std::mem::take(&mut particles.torque);
    let p = &*particles;
    let ((pair_stats, own_pairs), (wall_stats, own_walls)) = rayon::join(
        || {
            timed(|| {
                let parts = pairs::PairParts {
                    particles: p,
                    force: &mut force,
                    torque: &mut torque,
                    packed,
                    neighbors: &mut *neighbors,
                    reaction: if *keep_reactions {
                        &mut reaction[..]
                    } else {
                        &mut []
                    },
                    cross: &mut cross[..],
                };
                pair_forces(parts, physics, dt)
            })
        },
        || {
            timed(|| {
                wall_forces(
                    p,
                    walls,
                    wall_runtime,
                    wall_history,
                    wall_force,
                    physics,
                    dt,
                )
            })
        },
    );
    particles.force = force;
    particles.torque = torque;
    let both = lap(t);
    let share = own_pairs / (own_pairs + own_walls).max(f64::MIN_POSITIVE);
    timers.pairs += both * share;
    timers.walls += both * (1.0 - share);
    (pair_stats, wall_stats)
}

/// What `stage` returns, and the time it took (s).
fn timed<R>(stage: impl FnOnce() -> R) -> (R, f64) {
    let start = std::time::Instant::now();
    let out = stage();
    (out, start.elapsed().as_secs_f64())
}

/// Stops a run that went bad, naming the particle, the time and the likely cause.
#[inline(never)]
pub(crate) fn check_stability(
    world: &World,
    physics: &Physics,
    stats: &ContactStats,
) -> Result<()> {
    let p = &world.particles;
    let fail = |k: usize, reason: String| Error::Unstable {
        time: world.time,
        step: world.step,
        id: p.id[k],
        reason,
    };
    if let Some(k) = stats.non_finite {
        return Err(fail(
            k,
            format!(
                "force or torque is not finite (pos {:?}, vel {:?}); likely cause: dt = {:.3e} s too large for the contact time, or a stiffness or cohesion that diverges",
                p.pos[k], p.vel[k], physics.dt
            ),
        ));
    }
    if stats.max_overlap_ratio > physics.max_overlap {
        let k = stats.worst;
        return Err(fail(
            k,
            format!(
                "overlap is {:.3} of its radius (limit simulation.max_overlap = {}); likely cause: impact speed far above contact.characteristic_velocity, a stiffness too low for the load, or dt = {:.3e} s too large",
                stats.max_overlap_ratio, physics.max_overlap, physics.dt
            ),
        ));
    }
    if let Some((lo, hi)) = physics.domain {
        let open = physics.periodic.lengths().cmpeq(DVec3::ZERO);
        let outside = |x: &DVec3| (open & (x.cmplt(lo) | x.cmpgt(hi))).any();
        // Every step: chunk by chunk, each folded without stopping early (no branch to leave
        // by, so it vectorises) and searched for its first grain outside only when it has one.
        let first = p
            .pos
            .par_chunks(CHUNK)
            .enumerate()
            .find_map_first(|(c, xs)| {
                let any = xs.iter().fold(false, |any, x| any | outside(x));
                any.then(|| xs.iter().position(outside).map(|o| c * CHUNK + o))
                    .flatten()
            });
        if let Some(k) = first {
            return Err(fail(
                k,
                format!(
                    "left the domain at {:?} (simulation.domain {:?} to {:?}); likely cause: a missing wall or a grain launched by an overlap",
                    p.pos[k], lo, hi
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neighbor::BLOCK;
    use crate::walls::history::WallMember;
    use walls::WallForces;

    /// The simulation of a benchmark scene's `toml` (named `name`), its data files read from
    /// `scenes/bench`.
    pub(crate) fn bench_scene(toml: &str, name: &str) -> crate::sim::Simulation {
        let scene = crate::scene::Scene::from_toml(toml, name).expect("parses");
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/bench");
        crate::sim::Simulation::new(scene, &base).expect("builds")
    }

    /// The world, physics and soft-sphere stepper of `sim`.
    pub(crate) fn parts(
        sim: &mut crate::sim::Simulation,
    ) -> (&mut World, &Physics, &mut SoftStepper) {
        match &mut sim.stepper {
            crate::stepper::Stepper::Soft(s) => (&mut sim.world, &sim.physics, s),
            _ => panic!("a soft-sphere scene"),
        }
    }

    #[test]
    fn every_particle_gets_each_pair_force_once_across_blocks() {
        // The peers' settled bed (20 000 grains, 40 blocks, 2 contacts per grain) without
        // floor and gravity: after one step each grain's force must be the sum over its
        // touching pairs of the force each pair left in its slot (−f on the owner, +f on the
        // partner), whether the pair lies within a block or crosses two.
        let toml = include_str!("../../../../scenes/bench/s1.toml");
        let cut = toml.find("[gravity]").expect("has gravity");
        let at = toml.find("[[particles]]").expect("has particles");
        let toml = format!("{}{}", &toml[..cut], &toml[at..]);
        let mut sim = bench_scene(&toml, "s1 without floor");
        sim.keep_reactions();
        sim.step().expect("stable");
        let (p, nl) = (&sim.world.particles, &sim.world.neighbors);
        assert!(p.len() > 8 * BLOCK);
        let mut sum = vec![DVec3::ZERO; p.len()];
        let mut crossing = 0;
        for i in 0..p.len() {
            for s in nl.start[i]..nl.start[i + 1] {
                let j = nl.partner_grain[s] as usize;
                let f = sim.reactions().expect("kept")[s].0;
                sum[i] -= f;
                sum[j] += f;
                if f != DVec3::ZERO && i / BLOCK != j / BLOCK {
                    crossing += 1;
                }
            }
        }
        assert!(crossing > 1000, "{crossing} pairs cross blocks");
        let scale = sum.iter().map(|f| f.length()).fold(0.0, f64::max);
        for (k, (f, g)) in p.force.iter().zip(&sum).enumerate() {
            assert!(
                (*f - *g).length() <= 1e-12 * scale,
                "grain {k}: {f} against {g}"
            );
        }
    }

    #[test]
    fn a_grain_out_of_the_domain_stops_the_run_naming_the_lowest_such_grain() {
        // S1 (periodic along x and y, open along z) in a domain from z = 0 to 0.1: grains
        // moved below it in two chunks, the lowest index named whatever the chunk; a grain
        // far out along a periodic axis, and one exactly on the boundary, are not out.
        let mut sim = bench_scene(include_str!("../../../../scenes/bench/s1.toml"), "s1");
        let (lo, hi) = (DVec3::new(-1.0, -1.0, 0.0), DVec3::new(1.0, 1.0, 0.1));
        sim.physics.domain = Some((lo, hi));
        let check = |sim: &crate::sim::Simulation| {
            check_stability(&sim.world, &sim.physics, &ContactStats::default())
        };
        let p = &mut sim.world.particles;
        p.pos[3] = DVec3::new(5.0, -7.0, 0.05);
        p.pos[4].z = 0.1;
        assert!(check(&sim).is_ok());
        for k in [17 * CHUNK + 5, 3 * CHUNK + 1000] {
            sim.world.particles.pos[k].z = -1e-3;
            let e = check(&sim).expect_err("out of the domain").to_string();
            let id = sim.world.particles.id[k];
            assert!(
                e.contains(&format!("id {id}")) && e.contains("left the domain"),
                "{e}"
            );
        }
    }

    #[test]
    fn the_floor_acts_on_the_listed_grains_only_and_a_bad_force_names_its_grain() {
        // S1 on its floor: the wall pass visits only the grains listed near the floor. Every
        // grain's wall force, found by visiting all of them, must equal the pass's entry for
        // a listed grain and be zero for the others; and some grains must touch the floor.
        let mut sim = bench_scene(include_str!("../../../../scenes/bench/s1.toml"), "s1");
        let n = sim.world.particles.len();
        let history = &sim.world.wall_history;
        let before: Vec<Vec<_>> = (0..n)
            .map(|k| history.contacts(k).map(|(m, s)| (m, s.clone())).collect())
            .collect();
        soft_forces(&mut sim);
        let (w, ph, s) = parts(&mut sim);
        let near = w.wall_history.near();
        let listed = near.listed(n).expect("built for n");
        assert_eq!(s.wall_force.len(), listed.len());
        assert!(
            listed.len() > 1000 && listed.len() < n / 4,
            "{}",
            listed.len()
        );
        let walls = WallForces::new(&w.walls, &w.wall_runtime, near, &ph.model, &ph.table, ph.dt);
        let p = &w.particles;
        let mut touching = 0;
        for (k, mut state) in before.into_iter().enumerate() {
            let body = body(&p.vel, &p.omega, &p.radius, &p.inv_mass, &p.inv_inertia, k);
            let m = p.material[k] as usize;
            let (f, t, _) = walls.on(k, &body, p.pos[k], p.radius[k], m, &mut state);
            match listed.binary_search(&(k as u32)) {
                Ok(e) => assert_eq!(s.wall_force[e], (k as u32, f, t), "grain {k}"),
                Err(_) => assert_eq!((f, t), (DVec3::ZERO, DVec3::ZERO), "grain {k}"),
            }
            touching += usize::from(f != DVec3::ZERO);
        }
        assert!(touching > 1000, "{touching} grains on the floor");
        // A grain whose mass is not a number gets a force that is not finite: the check names
        // the lowest such grain, whichever chunk it lies in.
        for k in [n - 1, 3 * CHUNK + 17] {
            sim.world.particles.mass[k] = f64::NAN;
            assert_eq!(soft_forces(&mut sim).non_finite, Some(k));
        }
    }

    #[test]
    fn listed_walls_give_each_grain_the_scalar_laws_bits_through_the_lanes() {
        // Grains thrown about in a vat (a block's six faces: a union, corners near three)
        // crossed by a turning drum (a cylinder about its axis, still, its surface moving
        // along itself), over a patch of nine stacked disks (a grain there is near more members
        // than a batch of lanes holds) and a floor shaken up and down (met in its placement),
        // one grain fixed on the floor, and every slot of the law
        // on (Hertz, spring, rolling, twisting, DMT cohesion). At every step the pass over the
        // listed grains, which takes established contacts in lanes, must give each grain the
        // force, torque and wall history of WallForces::on from the same histories, bit for
        // bit, while contacts form, last and end.
        let disks: String = (0..9)
            .map(|i| {
                let z = -1e-6 * i as f64;
                format!("{{ type = \"disk\", center = [4e-3, 4e-3, {z:e}], normal = [0, 0, 1], radius = 3e-3 }},")
            })
            .collect();
        let toml = format!(
            r#"
[simulation]
duration = 1.0
dt = 1e-6
max_overlap = 1.0
[contact]
normal = "hertz"
tangential = "spring"
rolling = "constant"
twisting = "constant"
cohesion = "dmt"
[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 1e7
poisson_ratio = 0.25
restitution = 0.8
sliding_friction = 0.4
rolling_friction = 0.05
twisting_friction = 0.05
cohesion = 0.05
[gravity]
uniform = [0.0, 0.0, -9.81]
[[walls]]
type = "block"
material = "glass"
min = [-0.01, -0.01, 0.0]
max = [0.01, 0.01, 0.03]
side = "inside"
[[walls]]
type = "cylinder"
material = "glass"
origin = [0, 0, 0]
axis = [0, 0, 1]
radius = 0.0125
side = "inside"
motion = {{ type = "rotate", center = [0, 0, 0], axis = [0, 0, 1], omega = 20.0 }}
[[walls]]
type = "union"
material = "glass"
members = [{disks}]
[[walls]]
type = "plane"
material = "glass"
point = [0, 0, 0]
normal = [0, 0, 1]
motion = {{ type = "oscillate", amplitude = 5e-4, frequency = 300.0, direction = [0, 0, 1] }}
[[particles]]
type = "random"
material = "glass"
count = 100
radius = 1e-3
spread = 0.1
min = [-0.01, -0.01, 0.0]
max = [0.01, 0.01, 0.006]
velocity = [0.0, 0.0, -1.0]
velocity_dispersion = 1.0
[[particles]]
type = "list"
material = "glass"
spheres = [{{ pos = [-4e-3, 4e-3, 0.99e-3], radius = 1e-3, mobility = "fixed" }}]
"#
        );
        let scene = crate::scene::Scene::from_toml(&toml, "vat").expect("parses");
        let mut sim =
            crate::sim::Simulation::new(scene, std::path::Path::new(".")).expect("builds");
        let dt = sim.physics.dt;
        let bits = |v: DVec3| v.to_array().map(f64::to_bits);
        // Each grain's wall contacts, wherever they are kept (its own list or the near
        // lists), in key order; a history entry not touching is no contact.
        let contacts = |w: &World, k: usize| {
            let contacts = w.wall_history.contacts(k);
            let mut c: Vec<_> = contacts.map(|(h, s)| (h, s.clone())).collect();
            c.retain(|(_, s)| s.touching);
            c.sort_by_key(|(h, _)| *h);
            c
        };
        let (mut lanes, mut formed, mut ended, mut crowded) = (0, 0, 0, 0);
        for _ in 0..2000 {
            let (w, ph, s) = parts(&mut sim);
            kick_drift_pack(w, &mut s.packed, ph, dt);
            w.time += dt;
            let n = w.particles.len();
            let before: Vec<_> = (0..n).map(|k| contacts(w, k)).collect();
            evaluate::<bool>(w, ph, s, dt, None, None);
            let near = w.wall_history.near();
            let listed = near.listed(n).expect("every wall listed").to_vec();
            let walls = WallForces::new(&w.walls, &w.wall_runtime, near, &ph.model, &ph.table, dt);
            assert_eq!(
                s.wall_force.len(),
                listed.len(),
                "the pass took the listed grains"
            );
            let p = &w.particles;
            for (e, &k) in listed.iter().enumerate() {
                let k = k as usize;
                let mut history = before[k].clone();
                let body = body(&p.vel, &p.omega, &p.radius, &p.inv_mass, &p.inv_inertia, k);
                let m = p.material[k] as usize;
                let (f, t, _) = walls.on(k, &body, p.pos[k], p.radius[k], m, &mut history);
                history.retain(|(_, s)| s.touching);
                history.sort_by_key(|(h, _)| *h);
                let (g, fg, tg) = s.wall_force[e];
                assert_eq!(g as usize, k);
                assert!(
                    bits(f) == bits(fg) && bits(t) == bits(tg),
                    "grain {k}: {f} {t} against {fg} {tg}"
                );
                let after = contacts(w, k);
                assert_eq!(history.len(), after.len(), "grain {k}");
                for ((a, s), (b, q)) in history.iter().zip(&after) {
                    assert!(
                        a == b && bits(s.slip) == bits(q.slip) && s == q,
                        "grain {k}"
                    );
                }
                let established =
                    |id: &WallMember| before[k].iter().any(|(h, s)| h == id && s.touching);
                let movable = p.inv_mass[k] > 0.0;
                formed += history
                    .iter()
                    .filter(|(h, _)| movable && !established(h))
                    .count();
                ended += before[k]
                    .iter()
                    .filter(|(h, _)| !history.iter().any(|(g, _)| g == h))
                    .count();
                let near = near.of(k).map_or(0, <[WallMember]>::len);
                crowded += usize::from(near > crate::contact::lanes::LANES && !history.is_empty());
                lanes += usize::from(
                    p.inv_mass[k] > 0.0
                        && history.iter().all(|(h, _)| established(h))
                        && near <= crate::contact::lanes::LANES
                        && !history.is_empty(),
                );
            }
            half_kick(w, dt);
        }
        assert!(lanes > 10_000, "{lanes} grains in lanes");
        assert!(
            formed > 100 && ended > 100,
            "{formed} contacts formed, {ended} ended"
        );
        assert!(
            crowded > 100,
            "{crowded} grains near more members than a batch holds"
        );
    }

    /// One force evaluation of `sim` with its time step.
    fn soft_forces(sim: &mut crate::sim::Simulation) -> ContactStats {
        let dt = sim.physics.dt;
        let (w, ph, s) = parts(sim);
        s.compute_forces(w, ph, dt)
    }

    #[test]
    fn merged_stats_name_the_lowest_particle_gone_bad_whatever_the_split() {
        let bad = |k| ContactStats {
            non_finite: Some(k),
            ..ContactStats::default()
        };
        let fine = ContactStats::default();
        for (a, b) in [(bad(7), bad(3)), (bad(3), bad(7))] {
            assert_eq!(ContactStats::merge(a, b).non_finite, Some(3));
        }
        assert_eq!(ContactStats::merge(fine, bad(5)).non_finite, Some(5));
        assert_eq!(ContactStats::merge(bad(5), fine).non_finite, Some(5));
        assert_eq!(ContactStats::merge(fine, fine).non_finite, None);
    }
}
