//! Insertion of grains during a run (`[[inserts]]`, [`crate::scene::InsertSpec`]): at a rate
//! in grains or kilograms per second between a start and an end, each grain placed at random
//! wholly inside a region, clear of every grain (periodic images included), every wall and
//! the grains inserted with it (LIGGGHTS's `insert/stream`, LAMMPS's `fix pour`).
//!
//! **Exactly the rate.** By time t the insert owes ⌊rate (min(t, end) − start)⌋ grains, or
//! grains while their mass stays within mass_rate (min(t, end) − start); whatever an
//! insertion could not place (no room found in [`ATTEMPTS`] tries) stays owed and is placed
//! at the next one, so the count catches up as soon as there is room, and requested and
//! inserted are both reported ([`Inserts::requested`]).
//!
//! **Random numbers.** The n-th grain of insert k draws its material and radius from the
//! ChaCha8 stream (seed, k, n), and its places and velocity from the stream (seed, k, n) at
//! the word position of the insertion's number: nothing depends on the thread count or on
//! where a run was checkpointed, and the whole state of an insert is three numbers
//! ([`InsertState`]), part of the world and its checkpoints.
//!
//! A grain enters with the force of uniform gravity alone until the next evaluation, as a
//! recirculated pebble does ([`crate::drive::recirculation`]).

use std::borrow::Cow;

use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::boundary::MinimumImage;
use crate::particles::{core_shell_mass_inertia, Core, Mobility, ParticleSpec, Particles};
use crate::physics::Physics;
use crate::scene::{Region, Scene, SizeDistribution};
use crate::world::World;

/// Random places tried for a grain at one insertion before it waits for the next.
pub const ATTEMPTS: usize = 200;

/// Words of the placement stream one insertion may use (far more than [`ATTEMPTS`] need).
const WORDS_PER_EVENT: u128 = 1 << 24;

/// What a run has inserted so far: part of the world and of its checkpoints.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inserts {
    /// The id the next inserted grain gets (ids are never reused).
    pub next_id: u64,
    /// Per `[[inserts]]` entry.
    pub each: Vec<InsertState>,
}

/// One insert's progress.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InsertState {
    /// Grains inserted.
    pub inserted: u64,
    /// Their mass (kg).
    pub mass: f64,
    /// Insertions done (each a step at which grains were due).
    pub events: u64,
    /// Time of the last insertion (s).
    pub last: f64,
}

/// An `[[inserts]]` entry resolved against the scene, fixed for the run.
#[derive(Clone, Debug, PartialEq)]
pub struct Insert {
    /// Materials (index, density, core) with cumulative fractions by number.
    materials: Vec<(usize, f64, Option<Core>, f64)>,
    region: Region,
    /// Grains per second, or kilograms per second.
    rate: Rate,
    start: f64,
    end: f64,
    interval: Option<f64>,
    velocity: DVec3,
    spread: f64,
    size: SizeDistribution,
    /// Sieve table as cumulative fractions by number, when the size is a table.
    table: Vec<(f64, f64)>,
    seed: u64,
    /// The entry's index.
    k: u64,
}

/// How an insert's rate is given.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rate {
    Grains(f64),
    Mass(f64),
}

impl Insert {
    /// Every insert of `scene` (already checked).
    pub fn all(scene: &Scene) -> Vec<Insert> {
        let end_of_run = scene.simulation.start_time + scene.simulation.duration;
        scene
            .inserts
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let total: f64 = s.materials.iter().map(|m| m.fraction).sum();
                let mut acc = 0.0;
                let materials = s
                    .materials
                    .iter()
                    .map(|m| {
                        let i = scene.material_index(&m.name).unwrap_or(0);
                        let mat = &scene.materials[i];
                        acc += m.fraction / total;
                        (i, mat.density.unwrap_or(0.0), mat.core, acc)
                    })
                    .collect();
                Insert {
                    materials,
                    region: s.region,
                    rate: match (s.rate, s.mass_rate) {
                        (Some(r), _) => Rate::Grains(r),
                        (None, m) => Rate::Mass(m.unwrap_or(0.0)),
                    },
                    start: s.start,
                    end: s.end.unwrap_or(end_of_run),
                    interval: s.interval,
                    velocity: s.velocity,
                    spread: s.velocity_spread,
                    table: number_fractions(&s.size),
                    size: s.size.clone(),
                    seed: scene.simulation.seed,
                    k: k as u64,
                }
            })
            .collect()
    }

    /// Grains owed by time `t` for a rate in grains per second (the 1e-9 keeps a product
    /// such as 1000 × 0.1 from rounding below a whole count).
    fn owed(&self, t: f64) -> Option<u64> {
        match self.rate {
            Rate::Grains(r) => Some((r * self.elapsed(t) + 1e-9).floor() as u64),
            Rate::Mass(_) => None,
        }
    }

    /// Whether the next grain is owed at `t`.
    fn due(&self, state: &InsertState, t: f64) -> bool {
        match self.rate {
            Rate::Grains(_) => self.owed(t).is_some_and(|o| state.inserted < o),
            Rate::Mass(r) => {
                let (_, density, core, radius) = self.grain(state.inserted);
                let m = core_shell_mass_inertia(radius, density, core).0;
                state.mass + m <= r * self.elapsed(t) * (1.0 + 1e-12)
            }
        }
    }

    /// Time of insertion so far at `t` (s).
    fn elapsed(&self, t: f64) -> f64 {
        (t.min(self.end) - self.start).max(0.0)
    }

    /// The material (index, density, core) and radius of grain `n`.
    fn grain(&self, n: u64) -> (usize, f64, Option<Core>, f64) {
        let mut rng = stream(self.seed, self.k, n, 0);
        let u: f64 = rng.random();
        let &(i, density, core, _) = self
            .materials
            .iter()
            .find(|m| u < m.3)
            .unwrap_or(&self.materials[self.materials.len() - 1]);
        (i, density, core, sample(&self.size, &self.table, &mut rng))
    }
}

impl Inserts {
    /// The state at the start of a run of `inserts` whose grains so far have ids below
    /// `next_id`.
    pub fn start(inserts: &[Insert], next_id: u64) -> Inserts {
        Inserts {
            next_id,
            each: vec![InsertState::default(); inserts.len()],
        }
    }

    /// Grains (or kg, for a mass rate) each insert owed by time `t`, beside what it inserted.
    pub fn requested(&self, inserts: &[Insert], t: f64) -> Vec<(f64, f64)> {
        inserts
            .iter()
            .zip(&self.each)
            .map(|(ins, s)| match ins.rate {
                Rate::Grains(_) => (ins.owed(t).unwrap_or(0) as f64, s.inserted as f64),
                Rate::Mass(r) => (r * ins.elapsed(t), s.mass),
            })
            .collect()
    }

    /// Grains inserted by all inserts so far.
    pub fn total(&self) -> u64 {
        self.each.iter().map(|s| s.inserted).sum()
    }
}

/// `particles` with, for each insert, one grain of each of its materials at its smallest
/// radius, far apart: what the contact time, the time step and the neighbour skin are taken
/// from, so that they hold for the grains inserted later (a silo may start empty). Borrowed,
/// not copied, when the scene inserts nothing.
pub fn with_probes<'a>(particles: &'a Particles, scene: &Scene) -> Cow<'a, Particles> {
    if scene.inserts.is_empty() {
        return Cow::Borrowed(particles);
    }
    let mut probe = particles.clone();
    for ins in &scene.inserts {
        let [r_min, r_max] = ins.size.range();
        for m in &ins.materials {
            let Some(i) = scene.material_index(&m.name) else {
                continue;
            };
            let mat = &scene.materials[i];
            for r in [r_min, r_max] {
                let (mass, inertia) =
                    core_shell_mass_inertia(r, mat.density.unwrap_or(0.0), mat.core);
                let spec = ParticleSpec {
                    pos: DVec3::ZERO,
                    vel: DVec3::ZERO,
                    omega: DVec3::ZERO,
                    radius: r,
                    material: i,
                    mobility: Mobility::Free,
                };
                probe.push_with_inertia(u64::MAX, &spec, mass, inertia);
            }
        }
    }
    Cow::Owned(probe)
}

/// The ChaCha8 stream of grain `n` of insert `k`, at word `word`.
fn stream(seed: u64, k: u64, n: u64, word: u128) -> ChaCha8Rng {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed ^ (k.wrapping_add(1)).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    rng.set_stream(n);
    rng.set_word_pos(word);
    rng
}

/// A sieve table's rows as (radius, cumulative fraction by number): grains per unit mass of
/// a class are ∝ w_i / r_i³.
fn number_fractions(size: &SizeDistribution) -> Vec<(f64, f64)> {
    let SizeDistribution::Table(rows) = size else {
        return Vec::new();
    };
    let total: f64 = rows.iter().map(|r| r[1] / r[0].powi(3)).sum();
    let mut acc = 0.0;
    rows.iter()
        .map(|r| {
            acc += r[1] / r[0].powi(3) / total;
            (r[0], acc)
        })
        .collect()
}

/// A radius from `size` (cut normals drawn again until within 3 standard deviations).
fn sample(size: &SizeDistribution, table: &[(f64, f64)], rng: &mut ChaCha8Rng) -> f64 {
    let cut = |rng: &mut ChaCha8Rng| loop {
        let z = crate::fill::random::standard_normal(rng);
        if z.abs() <= 3.0 {
            return z;
        }
    };
    match size {
        SizeDistribution::Fixed(r) => *r,
        SizeDistribution::Uniform { min, max } => min + (max - min) * rng.random::<f64>(),
        SizeDistribution::Normal { mean, std } => mean + std * cut(rng),
        SizeDistribution::LogNormal { median, sigma } => median * (sigma * cut(rng)).exp(),
        SizeDistribution::Table(_) => {
            let u: f64 = rng.random();
            table
                .iter()
                .find(|c| u < c.1)
                .or(table.last())
                .map_or(0.0, |c| c.0)
        }
    }
}

/// A random point at which a sphere of radius `r` lies wholly inside `region`.
fn place_in(region: &Region, r: f64, rng: &mut ChaCha8Rng) -> DVec3 {
    let mut u = || rng.random::<f64>();
    match *region {
        Region::Box { min, max } => {
            let (lo, hi) = (min + DVec3::splat(r), max - DVec3::splat(r));
            lo + (hi - lo) * DVec3::new(u(), u(), u())
        }
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => {
            let a = axis.normalize();
            let e1 = crate::walls::plate::any_perpendicular(a);
            let e2 = a.cross(e1);
            // Uniform over the disk of radius R − r: ρ = (R − r)√u.
            let rho = (radius - r) * u().sqrt();
            let phi = std::f64::consts::TAU * u();
            let z = (length - 2.0 * r) * (u() - 0.5);
            center + rho * (phi.cos() * e1 + phi.sin() * e2) + z * a
        }
    }
}

/// Inserts the grains due at the world's time; returns how many were inserted.
pub fn apply(inserts: &[Insert], world: &mut World, physics: &Physics) -> usize {
    let mut added = 0;
    let t = world.time;
    for (k, ins) in inserts.iter().enumerate() {
        let state = world.inserts.each[k];
        let next = match state.events {
            0 => ins.start,
            _ => state.last + ins.interval.unwrap_or(0.0),
        };
        if t + 0.5 * physics.dt < next || !ins.due(&state, t) {
            continue;
        }
        let made = insert_due(ins, state, world, physics);
        added += made.len();
        let s = &mut world.inserts.each[k];
        s.events += 1;
        s.last = t;
        for (spec, mass, inertia) in made {
            let id = world.inserts.next_id;
            world.inserts.next_id += 1;
            let p = &mut world.particles;
            let i = p.push_with_inertia(id, &spec, mass, inertia);
            p.force[i] = physics.uniform_acceleration().unwrap_or(DVec3::ZERO) * mass;
            let s = &mut world.inserts.each[k];
            s.inserted += 1;
            s.mass += mass;
        }
    }
    if added > 0 {
        let pairs = world.pair_history_by_id(&physics.periodic);
        world.wall_history.extend(added);
        world.neighbors = world.neighbors.emptied();
        world.rebuild_neighbors(&physics.periodic);
        world.set_pair_history_by_id(&pairs);
    }
    added
}

/// The grains insert `ins` owes now and finds room for: (spec, mass, inertia) each.
fn insert_due(
    ins: &Insert,
    state: InsertState,
    world: &World,
    physics: &Physics,
) -> Vec<(ParticleSpec, f64, f64)> {
    let t = world.time;
    let p = &world.particles;
    let image = MinimumImage::new(physics.periodic.lengths());
    let r_hi = ins.size.range()[1];
    // Grains that may touch one placed in the region: near its bounding box.
    let (lo, hi) = bounding_box(&ins.region);
    let reach = r_hi + p.max_radius();
    let mid = 0.5 * (lo + hi);
    let half = 0.5 * (hi - lo) + DVec3::splat(reach);
    let near: Vec<usize> = (0..p.len())
        .filter(|&j| (image.of(p.pos[j] - mid).abs() - half).max_element() <= 0.0)
        .collect();
    let owed = ins.owed(t);
    let budget = match ins.rate {
        Rate::Mass(r) => r * ins.elapsed(t) * (1.0 + 1e-12),
        Rate::Grains(_) => f64::INFINITY,
    };
    let mut made: Vec<(ParticleSpec, f64, f64)> = Vec::new();
    let mut mass = state.mass;
    loop {
        let n = state.inserted + made.len() as u64;
        if owed.is_some_and(|o| n >= o) {
            break;
        }
        let (material, density, core, r) = ins.grain(n);
        let (m, inertia) = core_shell_mass_inertia(r, density, core);
        if mass + m > budget {
            break;
        }
        let mut rng = stream(
            ins.seed,
            ins.k,
            n,
            1 + state.events as u128 * WORDS_PER_EVENT,
        );
        let clear = |x: DVec3| {
            near.iter()
                .all(|&j| image.of(p.pos[j] - x).length() >= r + p.radius[j])
                && made
                    .iter()
                    .all(|(s, _, _)| image.of(s.pos - x).length() >= r + s.radius)
                && world.walls.iter().enumerate().all(|(w, wall)| {
                    let local = world.wall_runtime.placed(w, x).0;
                    wall.shape.contact(local, r).is_none()
                })
        };
        let Some(pos) = (0..ATTEMPTS)
            .map(|_| physics.periodic.wrap(place_in(&ins.region, r, &mut rng)))
            .find(|&x| clear(x))
        else {
            break;
        };
        let mut u = || 2.0 * rng.random::<f64>() - 1.0;
        let vel = ins.velocity + ins.spread * DVec3::new(u(), u(), u());
        mass += m;
        made.push((
            ParticleSpec {
                pos,
                vel,
                omega: DVec3::ZERO,
                radius: r,
                material,
                mobility: Mobility::Free,
            },
            m,
            inertia,
        ));
    }
    made
}

/// Lower and upper corners of the box around `region`.
fn bounding_box(region: &Region) -> (DVec3, DVec3) {
    match *region {
        Region::Box { min, max } => (min, max),
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => {
            let a = axis.normalize();
            // Half-extent along each world axis of a cylinder: |a_i| L/2 + R √(1 − a_i²).
            let side = (DVec3::ONE - a * a)
                .max(DVec3::ZERO)
                .to_array()
                .map(f64::sqrt);
            let e = a.abs() * 0.5 * length + radius * DVec3::from_array(side);
            (center - e, center + e)
        }
    }
}
