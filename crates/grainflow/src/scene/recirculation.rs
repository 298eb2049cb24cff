//! The `[recirculation]` table: pebbles taken from the exit chutes and dropped back in at the
//! top (001 chapter 6, §4.2 `recirculate_params`, §4.8 `exit_chute`); how the doors work is in
//! [`crate::drive::recirculation`].
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

use super::{finite, positive};
use crate::Error;

/// An exit chute: a vertical tube closed by a door at its bottom.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chute {
    /// Axis position x, y (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub center: [f64; 2],
    /// Radius of the hole (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius: f64,
    /// Height of the door (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub door: f64,
}

/// Where a recirculated pebble re-enters (001 §4.7 `inlet`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inlet {
    /// Position (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub pos: DVec3,
    /// Velocity (m/s).
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub vel: DVec3,
}

/// The `[recirculation]` table of a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recirculation {
    /// Height pebbles are dropped from when there are no inlets (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub height: f64,
    /// Time the door stays closed after each pebble (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub door_closed_time: f64,
    /// Time the door first opens (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub first_door_open_time: f64,
    /// The exit chutes, taken in turn.
    pub chutes: Vec<Chute>,
    /// Inlets, taken in turn; drops above the chutes when empty.
    #[serde(default)]
    pub inlets: Vec<Inlet>,
    /// Horizontal offset (m) of the drop points from the chute centres (`offset_inlet_holes`).
    #[serde(default, deserialize_with = "crate::units::length")]
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
}
