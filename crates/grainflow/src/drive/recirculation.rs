//! Recirculation of pebbles (001 chapter 6, §4.2 `recirculate_params`, §4.8 `exit_chute`).
//!
//! A flat door closes the bottom of each exit chute. It first opens at
//! `first_door_open_time`; each time it opens, the lowest pebble resting on the door of the
//! current chute (its centre within one diameter of the door) leaves the vessel and re-enters
//! at the top, and the door stays closed for `door_closed_time`. Chutes are taken in turn, one
//! pebble per opening. A pebble re-enters at the next inlet in turn with the inlet's velocity,
//! or, without inlets, at `height` above the centre of the chute it left, at rest
//! (001 chapter 6). Its pass count goes up by one. When the drop point is still occupied by
//! another pebble the door waits for the next step, so no two pebbles are ever put on top of
//! each other. The door state is part of the world and of its checkpoints.
//!
//! ```toml
//! [recirculation]
//! height = 1.6                 # m, above every pebble
//! door_closed_time = 0.25      # s
//! first_door_open_time = 1.0   # s
//! chutes = [{ center = [0, 0], radius = 0.11, door = -0.09 }]
//! inlets = [{ pos = [0, 0.5, 3], vel = [0, -0.1, 0] }]   # optional
//! ```

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::doors::DoorState;
use crate::scene::{finite, positive};
use crate::world::World;
use crate::Error;

/// An exit chute: a vertical tube closed by a door at its bottom.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chute {
    /// Axis position x, y (m).
    pub center: [f64; 2],
    /// Radius of the hole (m).
    pub radius: f64,
    /// Height of the door (m).
    pub door: f64,
}

/// Where a recirculated pebble re-enters (001 §4.7 `inlet`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inlet {
    /// Position (m).
    pub pos: DVec3,
    /// Velocity (m/s).
    #[serde(default)]
    pub vel: DVec3,
}

/// The `[recirculation]` table of a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recirculation {
    /// Height pebbles are dropped from when there are no inlets (m).
    pub height: f64,
    /// Time the door stays closed after each pebble (s).
    pub door_closed_time: f64,
    /// Time the door first opens (s).
    pub first_door_open_time: f64,
    /// The exit chutes, taken in turn.
    pub chutes: Vec<Chute>,
    /// Inlets, taken in turn; drops above the chutes when empty.
    #[serde(default)]
    pub inlets: Vec<Inlet>,
    /// Horizontal offset (m) of the drop points from the chute centres (`offset_inlet_holes`).
    #[serde(default)]
    pub drop_offset: [f64; 2],
}

impl Recirculation {
    /// Everything wrong with the table, with field paths under `recirculation`.
    pub fn problems(&self, p: &mut Vec<Error>) {
        let f = |n: &str| format!("recirculation.{n}");
        if !self.height.is_finite() {
            p.push(Error::scene(f("height"), "must be finite"));
        }
        for (name, v) in [
            ("door_closed_time", self.door_closed_time),
            ("first_door_open_time", self.first_door_open_time),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                p.push(Error::scene(f(name), format!("must be ≥ 0, got {v}")));
            }
        }
        if self.chutes.is_empty() {
            p.push(Error::scene(f("chutes"), "needs at least one chute"));
        }
        for (k, c) in self.chutes.iter().enumerate() {
            positive(p, format!("recirculation.chutes[{k}].radius"), c.radius);
            finite(
                p,
                format!("recirculation.chutes[{k}].center"),
                DVec3::new(c.center[0], c.center[1], c.door),
            );
        }
        for (k, i) in self.inlets.iter().enumerate() {
            finite(p, format!("recirculation.inlets[{k}].pos"), i.pos);
            finite(p, format!("recirculation.inlets[{k}].vel"), i.vel);
        }
    }

    /// The door state at the start of a run.
    pub fn start(&self) -> DoorState {
        DoorState {
            next_open: self.first_door_open_time,
            first_discharge: f64::NAN,
            last_discharge: f64::NAN,
            ..DoorState::default()
        }
    }

    /// Opens the door if it is due: moves the lowest pebble on the current chute's door to its
    /// drop point, where it feels the body force `body_acc` of its index until the next
    /// evaluation. Returns the index of the pebble moved, if any.
    pub fn apply(&self, world: &mut World, body_acc: &[DVec3]) -> Option<usize> {
        let state = world.doors;
        if world.time < state.next_open || self.chutes.is_empty() {
            return None;
        }
        let c = self.chutes[(state.next_chute % self.chutes.len() as u64) as usize];
        let p = &world.particles;
        let axis = DVec3::new(c.center[0], c.center[1], 0.0);
        let on_door = |k: usize| {
            let d = p.pos[k] - axis;
            p.inv_mass[k] > 0.0
                && d.x * d.x + d.y * d.y < c.radius * c.radius
                && p.pos[k].z < c.door + 2.0 * p.radius[k]
        };
        // Lowest by height, ties to the lower id: the same pebble for any memory order.
        let k = (0..p.len()).filter(|&k| on_door(k)).min_by(|&a, &b| {
            p.pos[a]
                .z
                .total_cmp(&p.pos[b].z)
                .then(p.id[a].cmp(&p.id[b]))
        })?;
        let (pos, vel) = match self.inlets.len() {
            0 => (
                DVec3::new(
                    c.center[0] + self.drop_offset[0],
                    c.center[1] + self.drop_offset[1],
                    self.height,
                ),
                DVec3::ZERO,
            ),
            n => {
                let i = self.inlets[(state.next_inlet % n as u64) as usize];
                (i.pos, i.vel)
            }
        };
        let r = p.radius[k];
        let occupied = (0..p.len())
            .any(|j| j != k && p.pos[j].distance_squared(pos) < (r + p.radius[j]).powi(2));
        if occupied {
            return None;
        }
        let p = &mut world.particles;
        p.pos[k] = pos;
        p.vel[k] = vel;
        p.omega[k] = DVec3::ZERO;
        p.passes[k] += 1;
        // Its old contacts are gone: the wall history now, the pair history when the pairs
        // are next evaluated apart. Until forces are evaluated at the new place, it feels only
        // the body forces.
        p.force[k] = body_acc.get(k).map_or(DVec3::ZERO, |a| *a * p.mass[k]);
        p.torque[k] = DVec3::ZERO;
        world.wall_history.forget(k);
        let s = &mut world.doors;
        s.next_open = world.time + self.door_closed_time;
        s.next_chute += 1;
        s.next_inlet += 1;
        s.discharged += 1;
        if s.first_discharge.is_nan() {
            s.first_discharge = world.time;
        }
        s.last_discharge = world.time;
        Some(k)
    }
}
