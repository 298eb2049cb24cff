//! Finite flat rectangular plate, touchable from both faces, its edges and corners.
//!
//! The closest point of the rectangle to the sphere's centre is the centre projected onto the
//! plane and clamped to the half-sizes along the two in-plane axes; the sphere touches when it
//! is nearer than its radius (the flat-face case of 000 §2.2's disk, with a rectangular rim).

use glam::DVec3;

use super::{touch, Touch};
use crate::hard::predict::{earliest, plane_collision_time};

/// Rectangle with centre, unit normal, unit in-plane axis `u` (v = n × u) and half-sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct Plate {
    /// Centre (m).
    pub center: DVec3,
    /// Unit normal.
    pub normal: DVec3,
    /// Unit in-plane axis, perpendicular to `normal`.
    pub u: DVec3,
    /// Half-sizes along u and v (m).
    pub half: [f64; 2],
}

impl Plate {
    /// The point of the rectangle nearest to `pos`.
    pub fn closest(&self, pos: DVec3) -> DVec3 {
        let v = self.normal.cross(self.u);
        let d = pos - self.center;
        let a = d.dot(self.u).clamp(-self.half[0], self.half[0]);
        let b = d.dot(v).clamp(-self.half[1], self.half[1]);
        self.center + a * self.u + b * v
    }

    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the plate, touches it: a face by eq 9 if the centre is then over the rectangle, else
    /// one of the four edges (segments, 000 §2.2.4 with R = 0, corners included).
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        let v = self.normal.cross(self.u);
        let d = pos - self.center;
        let face = plane_collision_time(d.dot(self.normal), vel.dot(self.normal), s).filter(|&t| {
            let x = d + vel * t.max(0.0);
            x.dot(self.u).abs() <= self.half[0] && x.dot(v).abs() <= self.half[1]
        });
        let edge = |along: DVec3, half: f64, offset: DVec3| {
            super::Line {
                point: self.center + offset,
                axis: along,
                length: Some(2.0 * half),
            }
            .collision_time(pos, vel, s)
        };
        let [hu, hv] = self.half;
        [
            edge(self.u, hu, hv * v),
            edge(self.u, hu, -hv * v),
            edge(v, hv, hu * self.u),
            edge(v, hv, -hu * self.u),
        ]
        .into_iter()
        .fold(face, earliest)
    }

    /// Sphere contact with the nearest point of the rectangle.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        touch(pos, r, self.closest(pos))
    }
}

/// A unit vector perpendicular to the unit vector `n`.
pub fn any_perpendicular(n: DVec3) -> DVec3 {
    let helper = if n.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
    (helper - helper.dot(n) * n).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plate() -> Plate {
        Plate {
            center: DVec3::ZERO,
            normal: DVec3::Z,
            u: DVec3::X,
            half: [1.0, 0.5],
        }
    }

    #[test]
    fn face_edge_and_both_sides() {
        let p = plate();
        let top = p.contact(DVec3::new(0.3, 0.2, 0.4), 0.5).expect("face");
        assert!((top.overlap - 0.1).abs() < 1e-15 && top.normal == DVec3::NEG_Z);
        let below = p
            .contact(DVec3::new(0.3, 0.2, -0.4), 0.5)
            .expect("other face");
        assert!(below.normal == DVec3::Z);
        // Beyond the edge x = 1: distance from (1.3, 0, 0.4) to (1, 0, 0) is 0.5 → just not touching.
        assert!(p.contact(DVec3::new(1.3, 0.0, 0.4), 0.5).is_none());
        let edge = p.contact(DVec3::new(1.3, 0.0, 0.3), 0.5).expect("edge");
        assert!((edge.overlap - (0.5 - (0.09f64 + 0.09).sqrt())).abs() < 1e-15);
    }

    #[test]
    fn perpendicular_is_unit_and_orthogonal() {
        for n in [DVec3::X, DVec3::Z, DVec3::new(1.0, 2.0, 3.0).normalize()] {
            let u = any_perpendicular(n);
            assert!(u.dot(n).abs() < 1e-15 && (u.length() - 1.0).abs() < 1e-15);
        }
    }
}
