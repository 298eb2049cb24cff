//! Point: the degenerate ring of radius 0 (000 §2.2.4–2.2.5; eq 3 with s₁ = 0).
//!
//! The contact normal runs from the sphere's centre to the point.

use glam::DVec3;

use super::{touch, Touch};
use crate::hard::predict::pair_collision_time;

/// A single point.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Position (m).
    pub pos: DVec3,
}

impl Point {
    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the point, touches it (000 eq 3 with s₁ = 0).
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        pair_collision_time(pos - self.pos, vel, s)
    }

    /// Sphere contact with the point.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        touch(pos, r, self.pos)
    }
}
