//! Free rigid bodies: walls moved by their contacts instead of a motion law (a lid on a
//! column, a footpad landing in regolith, an impactor).
//!
//! * `mass.rs`: mass, centre of mass and inertia tensor of closed triangle meshes
//!   (divergence theorem) and of primitives (closed forms), principal axes;
//! * `body.rs`: the 6-DOF state and its velocity-Verlet step with the symmetric splitting of
//!   the free rotation;
//! * `free.rs`: `free = { ... }` on a wall as a scene writes it, and the body built from it;
//! * `penetration.rs`: a body's depth below its first contact against time, from `bodies.csv`.
//!
//! A free wall's pose comes from its body ([`crate::walls::interact::place`]); the soft-sphere
//! method sums the reactions of its grain contacts on it each step in ascending grain order
//! (`soft/free_walls.rs`), so the same scene gives the same bits on any number of threads.

pub mod body;
pub mod free;
pub mod mass;
pub mod penetration;

use glam::DVec3;

use crate::scene::{ShapeSpec, WallSpec};
use crate::walls::Wall;
use crate::{Error, Result};

pub use body::{BodyConstants, BodyState, RigidBody, Spin};
pub use free::{Dof, FreeSpec};
pub use mass::{MassProperties, Principal};

/// A wall that is a free body.
#[derive(Clone, Debug, PartialEq)]
pub struct FreeWall {
    /// Index of the wall.
    pub wall: usize,
    /// Its body.
    pub body: RigidBody,
    /// The force (N) and torque about the centre of mass (N m) of the grains on it at the
    /// last evaluation, before gravity and the held components are applied: for the series.
    pub contact: (DVec3, DVec3),
}

/// The free bodies of the walls `specs` as a scene writes them (built into `walls`), in wall
/// order; a spec with problems is refused with its field.
pub(crate) fn free_walls(specs: &[WallSpec], walls: &[Wall]) -> Result<Vec<FreeWall>> {
    let mut bodies = Vec::new();
    for (k, (spec, wall)) in specs.iter().zip(walls).enumerate() {
        let Some(free) = &spec.free else { continue };
        let body = free.build(&wall.shape).map_err(|(f, r)| {
            let r = match &spec.shape {
                ShapeSpec::Mesh { path, .. } => format!("the mesh {}: {r}", path.display()),
                _ => r,
            };
            Error::scene(format!("walls[{k}].free.{f}"), r)
        })?;
        bodies.push(FreeWall {
            wall: k,
            body,
            contact: (DVec3::ZERO, DVec3::ZERO),
        });
    }
    Ok(bodies)
}

/// The first half kick and the drift of every free body over a step of `dt` (s).
pub(crate) fn kick_drift(bodies: &mut [FreeWall], dt: f64) {
    for b in bodies {
        b.body.kick(0.5 * dt);
        b.body.drift(dt);
    }
}

/// Each body's load: the grains' `contact` force and torque on it plus its weight in the
/// field `gravity` (acceleration at its centre of mass, m/s²); then the half kick of `kick`
/// when given.
pub(crate) fn load(
    b: &mut FreeWall,
    contact: (DVec3, DVec3),
    gravity: impl Fn(DVec3) -> DVec3,
    kick: Option<f64>,
) {
    b.contact = contact;
    let weight = b.body.constants.mass * gravity(b.body.state.pos);
    b.body.load(contact.0 + weight, contact.1);
    if let Some(h) = kick {
        b.body.kick(h);
    }
}
