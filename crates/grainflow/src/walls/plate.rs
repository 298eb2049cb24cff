//! Finite flat rectangular plate, touchable from both faces, its edges and corners, with
//! circular holes (an orifice plate).
//!
//! The closest point of the rectangle to the sphere's centre is the centre projected onto the
//! plane and clamped to the half-sizes along the two in-plane axes; the sphere touches when it
//! is nearer than its radius (the flat-face case of 000 §2.2's disk, with a rectangular rim).
//! A projection falling inside a hole is moved radially onto the hole's rim instead (the inner
//! rim of an annulus, [`super::Disk`]): holes lie inside the rectangle and apart from each
//! other (checked on load), so that point is the nearest of the plate with its holes.

use glam::{DVec2, DVec3};
use serde::{Deserialize, Serialize};

use super::{touch, Touch};
use crate::hard::predict::{earliest, plane_collision_time, ring_collision_time};

/// A circular hole in a plate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hole {
    /// Centre as offsets from the plate's centre along u and n × u (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub at: [f64; 2],
    /// Radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius: f64,
}

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
    /// Circular holes, inside the rectangle and apart from each other.
    pub holes: Vec<Hole>,
}

impl Plate {
    /// The point of the rectangle nearest to `pos`.
    pub fn closest(&self, pos: DVec3) -> DVec3 {
        let v = self.normal.cross(self.u);
        let d = pos - self.center;
        let q = DVec2::new(d.dot(self.u), d.dot(v));
        let on_plate = match self.holes.iter().find_map(|h| {
            let off = q - DVec2::from(h.at);
            let rho = off.length();
            (rho < h.radius).then_some((h, off, rho))
        }) {
            Some((h, off, rho)) if rho > 0.0 => DVec2::from(h.at) + off * (h.radius / rho),
            Some((h, _, _)) => DVec2::from(h.at) + DVec2::new(h.radius, 0.0),
            None => q.clamp(-DVec2::from(self.half), DVec2::from(self.half)),
        };
        self.center + on_plate.x * self.u + on_plate.y * v
    }

    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the plate, touches it: a face by eq 9 if the centre is then over the rectangle, else
    /// one of the four edges (segments, 000 §2.2.4 with R = 0, corners included) or the rim of
    /// a hole (a ring, 000 eq 13–24); the face only where the centre is then over no hole.
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        let v = self.normal.cross(self.u);
        let d = pos - self.center;
        let in_plane = |h: &Hole| self.u * h.at[0] + v * h.at[1];
        let face = plane_collision_time(d.dot(self.normal), vel.dot(self.normal), s).filter(|&t| {
            let x = d + vel * t.max(0.0);
            let q = DVec2::new(x.dot(self.u), x.dot(v));
            q.x.abs() <= self.half[0]
                && q.y.abs() <= self.half[1]
                && self
                    .holes
                    .iter()
                    .all(|h| q.distance_squared(DVec2::from(h.at)) >= h.radius * h.radius)
        });
        let rims = self
            .holes
            .iter()
            .map(|h| ring_collision_time(d - in_plane(h), vel, self.normal, h.radius, s))
            .fold(face, earliest);
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
        .fold(rims, earliest)
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
            holes: Vec::new(),
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
    fn hole_rim_is_the_nearest_point() {
        let mut p = plate();
        p.holes.push(Hole {
            at: [0.5, 0.0],
            radius: 0.2,
        });
        // Over the plate away from the hole: the face.
        let face = p.contact(DVec3::new(-0.5, 0.0, 0.3), 0.5).expect("face");
        assert!((face.overlap - 0.2).abs() < 1e-15);
        // Over the hole, 0.1 from its centre: the rim point (0.7, 0, 0) at √(0.1² + 0.3²).
        let rim = p.contact(DVec3::new(0.6, 0.0, 0.3), 0.5).expect("rim");
        assert!((rim.overlap - (0.5 - 0.1f64.hypot(0.3))).abs() < 1e-15);
        let n = DVec3::new(0.1, 0.0, -0.3).normalize();
        assert!((rim.normal - n).length() < 1e-15);
        // A grain of radius below the hole's, centred in it, touches nothing.
        assert!(p.contact(DVec3::new(0.5, 0.0, 0.0), 0.19).is_none());
        // Falling through the hole's middle: no collision; beside it: the face at t = 1 − s.
        let down = DVec3::NEG_Z;
        assert!(p
            .collision_time(DVec3::new(0.5, 0.0, 1.0), down, 0.15)
            .is_none());
        let t = p.collision_time(DVec3::new(-0.5, 0.0, 1.0), down, 0.15);
        assert!((t.expect("face") - 0.85).abs() < 1e-12);
        // Near the hole's rim (0.3, 0, 0): where |(0.35 − 0.3, z)| = 0.1, z = √0.0075.
        let t = p.collision_time(DVec3::new(0.35, 0.0, 1.0), down, 0.1);
        assert!((t.expect("rim") - (1.0 - 0.0075f64.sqrt())).abs() < 1e-9);
    }

    #[test]
    fn perpendicular_is_unit_and_orthogonal() {
        for n in [DVec3::X, DVec3::Z, DVec3::new(1.0, 2.0, 3.0).normalize()] {
            let u = any_perpendicular(n);
            assert!(u.dot(n).abs() < 1e-15 && (u.length() - 1.0).abs() < 1e-15);
        }
    }
}
