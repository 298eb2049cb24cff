//! Line: a cylinder of radius 0 (000 §2.2.4), infinite or a segment of given length.
//!
//! The closest point is the centre's projection onto the axis, clamped to ±L/2 for a segment
//! (the segment's ends are then points).

use glam::DVec3;

use super::{touch, Touch};

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

    /// Sphere contact with the nearest point of the line.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        touch(pos, r, self.closest(pos))
    }
}
