//! Resting contacts (`simulation.method.hard.resting`): grains that touch and approach slower
//! than the slide limit are resolved once per step, before the drift, instead of as a stream of
//! elastic bounces within it.
//!
//! Under gravity every grain of a pack gains g dt of approach to its supports at every step.
//! With pkdgrav's rule (000 §2.1, the slide limit making slow collisions elastic) the weight of
//! a column of n grains is carried by bounces that run up and down it, of order n² collisions
//! per column and step, and the pack never comes to rest. Here a **resting contact** is a pair
//! (or a grain and a wall) whose gap the impulses can close within the step, gap ≤
//! [`REACH`] v_slide dt, and whose normal relative speed is below v_slide. At the start of the
//! drift (after the first half kick) every resting contact receives a normal impulse λ ≥ 0, the
//! smallest set for which none approaches faster than it may close its gap down to the rest gap
//! δ = [`REST_GAP`] v_slide dt within the step, (max(gap, 0) − δ)/dt (negative, an opening,
//! when closer than δ): the normal restitution of a resting contact is 0, as in the collisions
//! that 004 §I resolves at the start of its step ("pending overlaps that would occur between t
//! and t + dt … as collisions taking place at time t"). The impulses are found by projected
//! Gauss–Seidel sweeps (sequential impulses), each started from the impulse the contact carried
//! at the last step, so a pack at rest needs few. A contact that carried a normal impulse
//! then receives 000 eq 4's tangential impulse with its ε_t once, as one collision would give
//! it. Whatever the sweeps leave (a contact not settled within [`MAX_SWEEPS`]) is met in the
//! drift as before.

use std::collections::HashMap;

use glam::DVec3;

use super::resolve::{apply_impulse, wall_grain, Grain, Motion};
use super::{separation, DriftState, HardStepper};
use crate::particles::Particles;
use crate::physics::Physics;
use crate::scene::HardOptions;
use crate::walls::Surface;
use crate::world::World;

/// Resting contacts are held this many v_slide dt apart: a Gauss–Seidel residual approach
/// below v_slide cannot close the gap within the step.
const REST_GAP: f64 = 1.0;

/// Pairs are resting contacts up to a gap of this many v_slide dt: those the impulses of the
/// pass can bring into touch within the step.
const REACH: f64 = 3.0;

/// Largest number of Gauss–Seidel sweeps (forward and back) of a step.
const MAX_SWEEPS: usize = 20;

/// The sweeps stop when no impulse of a sweep changed a velocity by more than this fraction of
/// the slide limit. (A sweep's changes are small long before a tall column is settled: the
/// weight climbs it a few grains per sweep.)
const SETTLED: f64 = 1e-6;

/// A contact's name from step to step: the two grains' ids, the lower first, or a grain's id
/// and `u64::MAX` less the wall member's number.
type Key = (u64, u64);

/// One resting contact: body `b` receives +λ n̂, body `a` (a grain, or a wall when `None`)
/// receives −λ n̂.
#[derive(Clone, Copy, Debug)]
struct Contact {
    a: Option<usize>,
    b: usize,
    /// Unit normal from a to b.
    n: DVec3,
    /// Velocity of a wall's surface at the contact (m/s); zero for a grain.
    surface: DVec3,
    /// 1/m_a + 1/m_b (1/kg).
    inv_m: f64,
    /// Approach speed the contact may keep (m/s), [`allowed`].
    allowed: f64,
    /// Normal impulse of this step so far (N s).
    lambda: f64,
    /// ε_t of the pair of materials (000 eq 4).
    eps_t: f64,
    key: Key,
}

/// The resting contacts of the last step, with the impulses they carried.
#[derive(Clone, Debug, Default)]
pub struct RestState {
    /// Normal impulse (N s) of each contact that carried one at the last step.
    pub(super) last: HashMap<Key, f64>,
    contacts: Vec<Contact>,
}

impl RestState {
    /// The impulses carried to the next step, for a checkpoint: (id, id or `u64::MAX` less a
    /// wall member, impulse in N s), in ascending order of ids (a map's order is not fixed).
    pub(crate) fn saved(&self) -> Vec<(u64, u64, f64)> {
        let mut all: Vec<_> = self.last.iter().map(|(&(a, b), &l)| (a, b, l)).collect();
        all.sort_by_key(|&(a, b, _)| (a, b));
        all
    }

    /// Takes the impulses a checkpoint saved, so that a resumed run goes on bit for bit.
    pub(crate) fn restore(&mut self, saved: &[(u64, u64, f64)]) {
        self.last = saved.iter().map(|&(a, b, l)| ((a, b), l)).collect();
    }
}

/// The speed (m/s) the neighbour skin must allow for so that the list holds the pairs a few
/// v_slide dt apart that may be resting contacts: 0 without the option.
pub(super) fn reach(options: &HardOptions) -> f64 {
    if options.resting {
        REACH * options.slide_limit
    } else {
        0.0
    }
}

/// Resolves the resting contacts of the coming drift of `dt` (see the module), when the scene
/// asks for them and the grains are not in a free flight (no body force, no wall: no weight to
/// carry). The neighbour list must hold every pair in touch now.
pub(super) fn settle(world: &mut World, physics: &Physics, s: &mut HardStepper, dt: f64) {
    if !s.options.resting || s.drift.flight.is_some() {
        return;
    }
    let (ds, rs, limit) = (&s.drift, &mut s.rest, s.options.slide_limit);
    let mut contacts = std::mem::take(&mut rs.contacts);
    contacts.clear();
    gather_pairs(world, physics, ds, (limit, dt), &mut contacts);
    gather_walls(world, physics, ds, (limit, dt), &mut contacts);
    let p = &mut world.particles;
    for c in &mut contacts {
        c.lambda = rs.last.get(&c.key).copied().unwrap_or(0.0);
        push(p, c, c.lambda);
    }
    sweep(p, &mut contacts, limit * SETTLED);
    for c in contacts.iter().filter(|c| c.lambda > 0.0) {
        couple(p, c);
    }
    sweep(p, &mut contacts, limit * SETTLED);
    rs.last.clear();
    rs.last.extend(
        contacts
            .iter()
            .filter(|c| c.lambda > 0.0)
            .map(|c| (c.key, c.lambda)),
    );
    rs.contacts = contacts;
}

/// Every listed pair of grains, one of them free, in resting contact.
fn gather_pairs(
    world: &World,
    physics: &Physics,
    ds: &DriftState,
    (limit, dt): (f64, f64),
    out: &mut Vec<Contact>,
) {
    let p = &world.particles;
    let nl = &world.neighbors;
    let period = physics.periodic.lengths();
    let ghosts = nl.ghosts.as_ref();
    if nl.start.len() != p.len() + 1 {
        return; // no list yet (the first step): the drift meets these pairs
    }
    for i in 0..p.len() {
        for &j in &nl.partner[nl.start[i]..nl.start[i + 1]] {
            let (j, s) = ghosts.map_or((j as usize, [0; 3]), |g| g.resolve(j as usize));
            let inv_m = p.inv_mass[i] + p.inv_mass[j];
            if inv_m == 0.0 {
                continue;
            }
            let d = separation(world, ds, period, (i, p.pos[i]), (j, s), p.pos[j]);
            let dist = d.length();
            let gap = dist - (p.radius[i] + p.radius[j]);
            let n = d / dist;
            let approach = -(p.vel[j] - p.vel[i]).dot(n);
            if gap > REACH * limit * dt || approach.abs() >= limit {
                continue;
            }
            let (a, b) = (p.id[i], p.id[j]);
            out.push(Contact {
                a: Some(i),
                b: j,
                n,
                surface: DVec3::ZERO,
                inv_m,
                allowed: allowed(gap, limit, dt),
                lambda: 0.0,
                eps_t: physics
                    .table
                    .get(p.material[i] as usize, p.material[j] as usize)
                    .tangential_restitution,
                key: (a.min(b), a.max(b)),
            });
        }
    }
}

/// Every free grain in resting contact with a member of a wall that neither holds nor absorbs
/// grains, the wall where its drift starts.
fn gather_walls(
    world: &World,
    physics: &Physics,
    ds: &DriftState,
    (limit, dt): (f64, f64),
    out: &mut Vec<Contact>,
) {
    let p = &world.particles;
    let mut number = 0u64;
    for (wall, wd) in world.walls.iter().zip(&ds.walls) {
        let members = wall.shape.members();
        if wall.surface != Surface::Normal {
            number += members.len() as u64;
            continue;
        }
        for shape in members {
            for i in (0..p.len()).filter(|&i| p.inv_mass[i] > 0.0) {
                let s = p.radius[i];
                let (n, dist) = shape.away(p.pos[i] - wd.offset, 2.0 * s);
                let gap = dist - s;
                if gap > REACH * limit * dt {
                    continue;
                }
                let contact = p.pos[i] - s * n;
                let surface = wd.vel + wd.omega.cross(contact - wd.center - wd.offset);
                let approach = -(p.vel[i] - surface).dot(n);
                if approach.abs() >= limit {
                    continue;
                }
                out.push(Contact {
                    a: None,
                    b: i,
                    n,
                    surface,
                    inv_m: p.inv_mass[i],
                    allowed: allowed(gap, limit, dt),
                    lambda: 0.0,
                    eps_t: physics
                        .table
                        .get(p.material[i] as usize, wall.material)
                        .tangential_restitution,
                    key: (p.id[i], u64::MAX - number),
                });
            }
            number += 1;
        }
    }
}

/// The approach speed (m/s) a contact `gap` (m) apart may keep through a step of `dt` with
/// slide limit `limit` (m/s): what closes its gap down to the rest gap, an opening when closer.
fn allowed(gap: f64, limit: f64, dt: f64) -> f64 {
    (gap.max(0.0) - REST_GAP * limit * dt) / dt
}

/// Approach speed of contact `c` along its normal (m/s, positive when closing).
fn approach(p: &Particles, c: &Contact) -> f64 {
    let va = c.a.map_or(c.surface, |a| p.vel[a]);
    -(p.vel[c.b] - va).dot(c.n)
}

/// Gives contact `c`'s bodies a normal impulse `l` (N s): +l n̂ to b, −l n̂ to a.
fn push(p: &mut Particles, c: &Contact, l: f64) {
    p.vel[c.b] += l * p.inv_mass[c.b] * c.n;
    if let Some(a) = c.a {
        p.vel[a] -= l * p.inv_mass[a] * c.n;
    }
}

/// Projected Gauss–Seidel sweeps, forward then back, until no contact approaches faster than
/// it may, every impulse non-negative; stops when a sweep changes no velocity by more than
/// `settled` (m/s), or after [`MAX_SWEEPS`].
fn sweep(p: &mut Particles, contacts: &mut [Contact], settled: f64) {
    for pass in 0..MAX_SWEEPS {
        let mut largest: f64 = 0.0;
        let mut one = |c: &mut Contact| {
            let excess = approach(p, c) - c.allowed;
            let lambda = (c.lambda + excess / c.inv_m).max(0.0);
            let dl = lambda - c.lambda;
            if dl != 0.0 {
                push(p, c, dl);
                c.lambda = lambda;
                largest = largest.max((dl * c.inv_m).abs());
            }
        };
        if pass % 2 == 0 {
            contacts.iter_mut().for_each(&mut one);
        } else {
            contacts.iter_mut().rev().for_each(&mut one);
        }
        if largest <= settled {
            return;
        }
    }
}

/// 000 eq 4's tangential impulse at contact `c`, once: J_t = −(1 − ε_t) m_t u_t with
/// 1/m_t = 1/m_a + 1/m_b + s_a²/I_a + s_b²/I_b, so that u_t′ = ε_t u_t (no Coulomb limit, as in
/// a collision of `method = "hard"`).
fn couple(p: &mut Particles, c: &Contact) {
    let grain = |k: usize| Grain {
        motion: Motion {
            vel: p.vel[k],
            omega: p.omega[k],
        },
        inv_mass: p.inv_mass[k],
        inv_inertia: p.inv_inertia[k],
        radius: p.radius[k],
    };
    let a = c.a.map_or(wall_grain(c.surface), grain);
    let b = grain(c.b);
    let n = c.n;
    let u = b.motion.vel - a.motion.vel + b.motion.omega.cross(-b.radius * n)
        - a.motion.omega.cross(a.radius * n);
    let u_t = u - u.dot(n) * n;
    let inv_mt =
        c.inv_m + a.radius * a.radius * a.inv_inertia + b.radius * b.radius * b.inv_inertia;
    let (ma, mb) = apply_impulse(n, &a, &b, -(1.0 - c.eps_t) / inv_mt * u_t);
    if let Some(k) = c.a {
        (p.vel[k], p.omega[k]) = (ma.vel, ma.omega);
    }
    (p.vel[c.b], p.omega[c.b]) = (mb.vel, mb.omega);
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::scene::Scene;
    use crate::sim::Simulation;
    use crate::stepper::Stepper;

    /// A vertical column of `n` grains (s = 1 mm, 2500 kg/m³, ε_n = 0.5, ε_t = 0.8) standing
    /// on a floor under g = 9.81 m/s², dt = 1e-4 s, slide limit 3 g dt, every gap `gap` (m).
    fn column(n: usize, gap: f64) -> Simulation {
        let s = 1e-3;
        let spheres: Vec<String> = (0..n)
            .map(|k| {
                let z = s + gap + k as f64 * (2.0 * s + gap);
                format!("{{ pos = [0, 0, {z:e}], radius = {s:e} }}")
            })
            .collect();
        let text = format!(
            r#"
[simulation]
duration = 1
dt = 1e-4
method = {{ hard = {{ slide_limit = 2.943e-3, resting = true }} }}
[contact]
normal = "hertz"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 1e9
poisson_ratio = 0.3
restitution = 0.5
tangential_restitution = 0.8
sliding_friction = 0.0
[gravity]
uniform = [0, 0, -9.81]
[[walls]]
type = "plane"
material = "glass"
point = [0, 0, 0]
normal = [0, 0, 1]
[[particles]]
type = "list"
material = "glass"
spheres = [{}]
"#,
            spheres.join(", ")
        );
        Simulation::new(
            Scene::from_toml(&text, "column.toml").unwrap(),
            Path::new("."),
        )
        .unwrap()
    }

    /// A column standing at the rest gap δ = v_slide dt comes to rest once the impulses have
    /// built up from zero (1000 steps; the first step has no list yet and the sweeps carry the
    /// weight a little further up the column at each step), then stays where it is: no
    /// collision in 1000 steps (0.1 s, in which a free grain would fall 49 mm), every centre
    /// within a hundredth of the rest gap of where it was (the sweeps still settle the column a
    /// little: 1.7e-12 m measured), and each contact carries per step the weight above it to
    /// 1e-4, k m g dt for the k-th contact from the top, the floor N m g dt (momentum balance of
    /// the column at rest; 1.7e-5 measured, the sweeps stopping once no velocity changes by
    /// 1e-6 v_slide).
    #[test]
    fn a_column_at_rest_stays_at_rest_carrying_its_weight() {
        let n = 10;
        let gap = 2.943e-3 * 1e-4;
        let mut sim = column(n, gap);
        for _ in 0..1000 {
            sim.step().unwrap();
        }
        let (start, before) = (sim.world.particles.pos.clone(), sim.world.collisions);
        assert!(
            before <= n as u64,
            "{before} collisions while the impulses build up"
        );
        for _ in 0..1000 {
            sim.step().unwrap();
        }
        assert_eq!(sim.world.collisions, before);
        for (a, b) in start.iter().zip(&sim.world.particles.pos) {
            assert!(
                (*a - *b).length() < 1e-2 * gap,
                "moved {:e} m",
                (*a - *b).length()
            );
        }
        let p = &sim.world.particles;
        let weight = p.mass[0] * 9.81 * 1e-4;
        let Stepper::Hard(h) = &sim.stepper else {
            unreachable!()
        };
        assert_eq!(h.rest.last.len(), n);
        for (&(a, b), &l) in &h.rest.last {
            // ids 0 (bottom) … n − 1 (top); the floor's key has the bottom grain's id.
            let above = if b > u64::MAX / 2 {
                n
            } else {
                n - 1 - a as usize
            };
            let want = above as f64 * weight;
            assert!(
                (l - want).abs() < 1e-4 * want,
                "contact {a}-{b}: {l:e} N s, want {want:e}"
            );
        }
    }

    /// A run resumed from a checkpoint goes on with the impulses its resting contacts carried,
    /// bit for bit: 300 steps straight against 150, a checkpoint written and read, and 150
    /// more (the impulses still build up from zero then, so each step's differ).
    #[test]
    fn a_resumed_column_goes_on_bit_for_bit() {
        let (n, gap) = (10, 2.943e-3 * 1e-4);
        let mut straight = column(n, gap);
        let mut first = column(n, gap);
        for _ in 0..300 {
            straight.step().unwrap();
        }
        for _ in 0..150 {
            first.step().unwrap();
        }
        let dir = std::env::temp_dir().join(format!("grainflow-rest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("half.gfck");
        first.checkpoint().write(&path).unwrap();
        let saved = crate::io::checkpoint::Checkpoint::read(&path).unwrap();
        assert_eq!(
            saved.resting.len(),
            n,
            "the column's n contacts carry impulses"
        );
        let scene = first.scene.clone();
        let mut resumed = Simulation::resume(scene, Path::new("."), saved).unwrap();
        for _ in 0..150 {
            resumed.step().unwrap();
        }
        let bits = |v: &[glam::DVec3]| -> Vec<[u64; 3]> {
            v.iter().map(|x| x.to_array().map(f64::to_bits)).collect()
        };
        let (a, b) = (&straight.world.particles, &resumed.world.particles);
        assert_eq!(bits(&a.pos), bits(&b.pos), "positions");
        assert_eq!(bits(&a.vel), bits(&b.vel), "velocities");
        assert_eq!(straight.world.collisions, resumed.world.collisions);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Without the option the same column bounces: its grains collide at every step.
    #[test]
    fn without_resting_the_column_collides_at_every_step() {
        let mut sim = column(10, 2.943e-3 * 1e-4);
        if let Stepper::Hard(h) = &mut sim.stepper {
            h.options.resting = false;
        }
        for _ in 0..100 {
            sim.step().unwrap();
        }
        assert!(
            sim.world.collisions >= 100,
            "{} collisions",
            sim.world.collisions
        );
    }
}
