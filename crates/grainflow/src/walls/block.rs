//! Block: a solid axis-aligned box (001 §4.7.1 `block xmin ymin zmin xmax ymax zmax`),
//! grains outside it.
//!
//! A centre outside the box touches its nearest point, the centre clamped to the box. A centre
//! pushed inside is pushed out through the nearest face, overlap r + depth. A box that holds
//! grains (a vat) is a union of six half-space planes; the scene's `side = "inside"` builds it.

use glam::DVec3;

use super::{touch, Touch};

/// Solid box between corners `min` and `max`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Lower corner (m).
    pub min: DVec3,
    /// Upper corner (m).
    pub max: DVec3,
}

impl Block {
    /// Sphere contact with the box.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let inside = pos.cmpge(self.min).all() && pos.cmple(self.max).all();
        if !inside {
            return touch(pos, r, pos.clamp(self.min, self.max));
        }
        // Depth below each of the six faces; leave through the shallowest (first on ties).
        let lo = pos - self.min;
        let hi = self.max - pos;
        let faces = [
            (lo.x, DVec3::NEG_X),
            (hi.x, DVec3::X),
            (lo.y, DVec3::NEG_Y),
            (hi.y, DVec3::Y),
            (lo.z, DVec3::NEG_Z),
            (hi.z, DVec3::Z),
        ];
        let (depth, out) =
            faces.into_iter().fold(
                (f64::INFINITY, DVec3::ZERO),
                |a, f| if f.0 < a.0 { f } else { a },
            );
        Some(Touch {
            normal: -out,
            overlap: r + depth,
        })
    }

    /// The six half-space planes bounding the box from inside (a vat holding grains).
    pub fn inner_planes(&self) -> [super::Plane; 6] {
        let plane = |point, normal| super::Plane {
            point,
            normal,
            both: false,
        };
        [
            plane(self.min, DVec3::X),
            plane(self.max, DVec3::NEG_X),
            plane(self.min, DVec3::Y),
            plane(self.max, DVec3::NEG_Y),
            plane(self.min, DVec3::Z),
            plane(self.max, DVec3::NEG_Z),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corner_face_and_inside() {
        let b = Block {
            min: DVec3::ZERO,
            max: DVec3::ONE,
        };
        let face = b.contact(DVec3::new(0.5, 0.5, 1.3), 0.5).expect("face");
        assert!((face.overlap - 0.2).abs() < 1e-15 && face.normal == DVec3::NEG_Z);
        let corner = b.contact(DVec3::new(1.2, 1.2, 1.2), 0.5).expect("corner");
        assert!((corner.overlap - (0.5 - 0.12f64.sqrt())).abs() < 1e-15);
        let deep = b.contact(DVec3::new(0.9, 0.5, 0.5), 0.5).expect("inside");
        assert!((deep.overlap - 0.6).abs() < 1e-15 && deep.normal == DVec3::NEG_X);
    }
}
