//! The soft-sphere contacts of free walls ([`crate::rigid`]): the contact law on every grain
//! touching a free wall at the pose of its body, as `walls.rs` does for every other wall (the
//! wall a body of infinite mass moving with its velocity field, 000 §2.2), and the reaction on
//! the body.
//!
//! The law sees the body's inverse mass, so that its damping and stiffness constants take
//! the pair's reduced mass, as for two grains (a fixed grain then pushes a free body too).
//! A grain at x with wall force f and torque τ about its centre from the body gives the body
//! −f and the torque −((x − X) × f + τ) about its centre of mass X (Newton's third law for
//! forces and couples: the pair's total momentum and angular momentum are unchanged). Each
//! grain's contacts are found in parallel; the sums over grains run in ascending grain order,
//! so the bits do not depend on the number of threads. The members of free walls are left out
//! of the near lists, and every grain is tried against them: a free wall is one of a few.

use glam::DVec3;
use rayon::prelude::*;

use super::walls::{bodies, grain, meet, touching};
use crate::contact::{ContactState, Touch};
use crate::physics::Physics;
use crate::stats::ContactStats;
use crate::walls::history::WallMember;
use crate::walls::Shape;
use crate::world::World;

/// The free walls' forces on the grains, added to the particles' force and torque, and their
/// reactions loaded on the bodies (with their weight in the uniform and central fields), each
/// body then kicked by `kick` (s) when given. `dt` advances the contact history (0 evaluates
/// without advancing it).
pub(super) fn free_wall_forces(
    world: &mut World,
    physics: &Physics,
    dt: f64,
    kick: Option<f64>,
) -> ContactStats {
    if world.wall_runtime.bodies.is_empty() {
        return ContactStats::default();
    }
    let mut stats = ContactStats::default();
    for b in 0..world.wall_runtime.bodies.len() {
        let (hits, s) = grain_forces(world, physics, b, dt);
        stats = ContactStats::merge(stats, s);
        let World {
            particles,
            wall_runtime,
            ..
        } = world;
        let body = &mut wall_runtime.bodies[b];
        let center = body.body.state.pos;
        let (mut force, mut torque) = (DVec3::ZERO, DVec3::ZERO);
        for (k, f, t) in hits {
            let k = k as usize;
            particles.force[k] += f;
            particles.torque[k] += t;
            force -= f;
            torque -= (particles.pos[k] - center).cross(f) + t;
        }
        let gravity = |x: DVec3| physics.gravity.acceleration(x);
        crate::rigid::load(body, (force, torque), gravity, kick);
    }
    stats
}

/// The force and torque of free wall `b` of the world on each grain it touches, as
/// (grain, force, torque) in ascending grain, updating the grains' contact histories.
fn grain_forces(
    world: &mut World,
    physics: &Physics,
    b: usize,
    dt: f64,
) -> (Vec<(u32, DVec3, DVec3)>, ContactStats) {
    let World {
        particles: p,
        walls,
        wall_runtime: rt,
        wall_history,
        ..
    } = world;
    let w = rt.bodies[b].wall;
    let wall = &walls[w];
    let pose = &rt.pose[w];
    let own = wall_history.lend().own;
    let inv_mass = 1.0 / rt.bodies[b].body.constants.mass;
    let visit = |(k, history): (usize, &mut Vec<(WallMember, ContactState)>)| {
        let (pos, r) = (p.pos[k], p.radius[k]);
        let (mut f, mut t, mut stats) = (DVec3::ZERO, DVec3::ZERO, ContactStats::default());
        let local = pose.to_local(pos);
        each_contact(&wall.shape, local, r, |m, contact| {
            let contact = contact.map(|mut c| {
                c.normal = pose.rotation * c.normal;
                c
            });
            let Some((c, s)) = meet(contact, WallMember::new(w, m), history) else {
                return;
            };
            let (grain, mut surface) = bodies(&grain(p, k), pose, pos);
            surface.inv_mass = inv_mass;
            let params = physics.table.get(p.material[k] as usize, wall.material);
            let out = physics
                .model
                .force(params, c, &grain, &surface, &mut history[s].1, dt);
            f += out.force_i;
            t += out.torque_i;
            stats = ContactStats::merge(stats, touching(k, c, r));
        });
        (stats.contacts > 0).then_some((k as u32, f, t, stats))
    };
    let hits: Vec<(u32, DVec3, DVec3, ContactStats)> = own
        .par_iter_mut()
        .enumerate()
        .with_min_len(crate::particles::MIN_LEN)
        .filter_map(visit)
        .collect();
    let stats = hits
        .iter()
        .fold(ContactStats::default(), |s, h| ContactStats::merge(s, h.3));
    (
        hits.into_iter().map(|(k, f, t, _)| (k, f, t)).collect(),
        stats,
    )
}

/// Calls `f` with each member of `shape` in ascending order and the contact with it of a
/// sphere at `local` (in the wall's placement) of radius `r`, if they touch; a mesh is
/// searched once for all its members ([`crate::walls::trimesh::TriMesh::member_contacts`]).
pub(super) fn each_contact(
    shape: &Shape,
    local: DVec3,
    r: f64,
    mut f: impl FnMut(usize, Option<Touch>),
) {
    let members = shape.members();
    if let Some(Shape::Mesh(part)) = members.first() {
        let (found, n) = part.mesh.member_contacts(local, r);
        let mut touched = found[..n].iter().peekable();
        for m in 0..members.len() {
            f(m, touched.next_if(|e| e.0 == m).map(|e| e.1));
        }
        return;
    }
    for (m, s) in members.iter().enumerate() {
        f(m, s.contact(local, r));
    }
}
