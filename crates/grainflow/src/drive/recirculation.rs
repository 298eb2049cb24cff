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
//! The `[recirculation]` table is [`crate::scene::Recirculation`].

use glam::DVec3;

use super::doors::DoorState;
use crate::scene::Recirculation;
use crate::world::World;

impl Recirculation {
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
