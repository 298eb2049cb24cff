//! Line: a cylinder of radius 0 (000 §2.2.4), infinite or a segment of given length.
//!
//! The closest point is the centre's projection onto the axis, clamped to ±L/2 for a segment
//! (the segment's ends are then points).

use glam::DVec3;

use super::{touch, Touch};
use crate::hard::predict::{earliest, pair_collision_time};

/// Straight line through `point` along unit `axis`; a segment of `length` centred on `point`.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// A point of the line, the centre of a segment (m).
    pub point: DVec3,
    /// Unit direction.
    pub axis: DVec3,
    /// Length of the segment (m), `None` for an infinite line.
    pub length: Option<f64>,
}

impl Line {
    /// The point of the line nearest to `pos`.
    pub fn closest(&self, pos: DVec3) -> DVec3 {
        let mut h = (pos - self.point).dot(self.axis);
        if let Some(l) = self.length {
            h = h.clamp(-0.5 * l, 0.5 * l);
        }
        self.point + h * self.axis
    }

    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the line, touches it: a cylinder of radius 0 (000 §2.2.4, eq 12 with R = 0) whose
    /// contact must fall within a segment's length, else one of the segment's end points.
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        let d = pos - self.point;
        let across = |x: DVec3| x - x.dot(self.axis) * self.axis;
        let side = pair_collision_time(across(d), across(vel), s);
        let Some(l) = self.length else {
            return side;
        };
        let side = side.filter(|&t| (d + vel * t.max(0.0)).dot(self.axis).abs() <= 0.5 * l);
        let end = |sign: f64| pair_collision_time(d - sign * 0.5 * l * self.axis, vel, s);
        earliest(side, earliest(end(1.0), end(-1.0)))
    }

    /// Sphere contact with the nearest point of the line.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        touch(pos, r, self.closest(pos))
    }
}
