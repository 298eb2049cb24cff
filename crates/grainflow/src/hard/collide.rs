//! Resolving a predicted collision on the world: a pair (000 eq 4), a wall (eq 6–8), or a
//! sticky or absorbing wall, each grain entering with its velocity at the contact instant.

use glam::DVec3;

use super::resolve::{resolve_pair, resolve_wall, Motion};
use super::{inertial_mass, separation, CollisionRecord, DriftState, Event, Partner, Target};
use crate::ghosts::Image;
use crate::particles::Mobility;
use crate::physics::Physics;
use crate::scene::HardOptions;
use crate::walls::interact::Attachment;
use crate::walls::Surface;
use crate::world::World;
use crate::Result;

/// ε_n of a collision approaching at `speed` (m/s): 1 below the slide limit, else `eps_n`.
/// 000 §3.2 keeps its tumbler tractable with "certain minor run parameters"; a velocity
/// threshold below which collisions are elastic is our reading of pkdgrav's slide limit.
fn restitution(eps_n: f64, speed: f64, slide_limit: f64) -> f64 {
    if speed < slide_limit {
        1.0
    } else {
        eps_n
    }
}

/// Resolves event `e` (its bodies already at the event time): a pair (eq 4), a wall (eq 6–8,
/// the wall's surface velocity subtracted), or a sticky or absorbing wall. Returns the overlap
/// found, as a fraction of the smaller radius (negative for a gap).
///
/// Each free grain enters the collision with its velocity at the contact instant, the drift
/// velocity plus its body acceleration times (t − dt/2) (the half kicks of the step spread
/// over it), and leaves it with that shift taken back. Between two grains of the same
/// acceleration (uniform gravity) this changes nothing; against a wall it makes a bounce
/// conserve energy to second order in dt instead of first (the chord of the drift meets the
/// wall at a height off the true parabola by O(v dt), 000 §3.1's energy test). Where that
/// would leave the drift velocities still approaching (slow contacts, a grain resting on a
/// wall), the collision is resolved with the drift velocities as in pkdgrav, so the bodies
/// separate along their straight paths and are not met again at once.
pub(super) fn collide(
    world: &mut World,
    physics: &Physics,
    options: &HardOptions,
    ds: &mut DriftState,
    body_acc: &[DVec3],
    e: &Event,
) -> Result<f64> {
    let i = e.i;
    let p = &world.particles;
    let lag = e.t - 0.5 * physics.dt;
    let shift = |k: usize| {
        if p.inv_mass[k] > 0.0 {
            body_acc.get(k).copied().unwrap_or(DVec3::ZERO) * lag
        } else {
            DVec3::ZERO
        }
    };
    let shift_i = shift(i);
    let time = world.time + e.t;
    Ok(match e.target {
        Target::Particle(j, image) => {
            let shift_j = shift(j);
            let pair = ([i, j], image);
            collide_pair(world, physics, options, ds, pair, [shift_i, shift_j], time)
        }
        Target::Wall(w, m) => collide_wall(world, physics, options, ds, e, (w, m), shift_i),
    })
}

/// [`collide`] for grains `i` and `j` (at its periodic `image`) meeting at `time` (s), each
/// entering with its velocity shifted by `shift_i`, `shift_j` (m/s).
fn collide_pair(
    world: &mut World,
    physics: &Physics,
    options: &HardOptions,
    ds: &mut DriftState,
    ([i, j], image): ([usize; 2], Image),
    [shift_i, shift_j]: [DVec3; 2],
    time: f64,
) -> f64 {
    let p = &world.particles;
    let l = physics.periodic.lengths();
    let d = separation(world, ds, l, (i, p.pos[i]), (j, image), p.pos[j]);
    let dist = d.length();
    let n = d / dist;
    let reach = p.radius[i] + p.radius[j];
    let overlap = (reach - dist) / p.radius[i].min(p.radius[j]);
    let params = physics
        .table
        .get(p.material[i] as usize, p.material[j] as usize);
    let resolve = |si: DVec3, sj: DVec3| {
        let mi = Motion {
            vel: p.vel[i] + si,
            omega: p.omega[i],
        };
        let mj = Motion {
            vel: p.vel[j] + sj,
            omega: p.omega[j],
        };
        let u =
            mj.vel - mi.vel + mj.omega.cross(-p.radius[j] * n) - mi.omega.cross(p.radius[i] * n);
        let (a, b) = resolve_pair(
            n,
            mi,
            mj,
            inertial_mass(p, i),
            inertial_mass(p, j),
            p.radius[i],
            p.radius[j],
            restitution(params.restitution, -u.dot(n), options.slide_limit),
            params.tangential_restitution,
        );
        let a = Motion {
            vel: a.vel - si,
            ..a
        };
        let b = Motion {
            vel: b.vel - sj,
            ..b
        };
        (a, b, u)
    };
    let mut out = resolve(shift_i, shift_j);
    if (out.1.vel - out.0.vel).dot(n) < 0.0 {
        out = resolve(DVec3::ZERO, DVec3::ZERO);
    }
    let (a, b, u) = out;
    if options.collision_log {
        ds.log.push(CollisionRecord {
            time,
            particle: p.id[i],
            partner: Partner::Particle(p.id[j]),
            normal_speed: -u.dot(n),
            speed: u.length(),
        });
    }
    let p = &mut world.particles;
    (p.vel[i], p.omega[i]) = (a.vel, a.omega);
    (p.vel[j], p.omega[j]) = (b.vel, b.omega);
    overlap
}

/// [`collide`] for grain `e.i` meeting member `m` of wall `w` at the event's time, entering
/// with its velocity shifted by `shift_i` (m/s).
fn collide_wall(
    world: &mut World,
    physics: &Physics,
    options: &HardOptions,
    ds: &mut DriftState,
    e: &Event,
    (w, m): (usize, usize),
    shift_i: DVec3,
) -> f64 {
    let (i, time) = (e.i, world.time + e.t);
    let p = &world.particles;
    let wall = &world.walls[w];
    let wd = ds.walls[w];
    let offset = wd.offset + wd.vel * e.t;
    let s = p.radius[i];
    let (n, dist) = wall.shape.members()[m].away(p.pos[i] - offset, 2.0 * s);
    let overlap = (s - dist) / s;
    // Velocity of the wall's material at the contact point (subtracted in eq 8).
    let at = |x: DVec3| wd.vel + wd.omega.cross(x - wd.center - offset);
    let surface = at(p.pos[i] - s * n);
    let contact_velocity = |si: DVec3| p.vel[i] + si + p.omega[i].cross(-s * n) - surface;
    let u = contact_velocity(shift_i);
    if options.collision_log {
        ds.log.push(CollisionRecord {
            time,
            particle: p.id[i],
            partner: Partner::Wall(w),
            normal_speed: -u.dot(n),
            speed: u.length(),
        });
    }
    match wall.surface {
        Surface::Normal => {
            let params = physics.table.get(p.material[i] as usize, wall.material);
            let resolve = |si: DVec3| {
                let u = contact_velocity(si);
                let after = resolve_wall(
                    n,
                    Motion {
                        vel: p.vel[i] + si,
                        omega: p.omega[i],
                    },
                    s,
                    surface,
                    restitution(params.restitution, -u.dot(n), options.slide_limit),
                    params.tangential_restitution,
                );
                Motion {
                    vel: after.vel - si,
                    ..after
                }
            };
            let mut after = resolve(shift_i);
            if (after.vel - wd.vel).dot(n) < 0.0 {
                after = resolve(DVec3::ZERO);
            }
            let p = &mut world.particles;
            (p.vel[i], p.omega[i]) = (after.vel, after.omega);
        }
        Surface::Sticky => {
            // Held where it touched, moving with the wall's material (000 §2.2).
            let local = wall.motion.pose(time).to_local(p.pos[i]);
            let vel = at(p.pos[i]);
            world.wall_runtime.attached[i] = Some(Attachment {
                wall: w as u32,
                local,
            });
            world.wall_history.forget(i);
            let p = &mut world.particles;
            p.inv_mass[i] = 0.0;
            p.inv_inertia[i] = 0.0;
            p.mobility[i] = Mobility::Fixed;
            (p.vel[i], p.omega[i]) = (vel, wd.omega);
        }
        Surface::Absorbing => {
            (ds.gone[i], ds.absorbed) = (true, true);
            world.wall_runtime.absorbed[w] += 1;
        }
    }
    overlap
}
