//! Finite disk or annulus: a round portion of a plane with its rims (000 §2.2.2), touchable
//! from both faces, along the outer rim and, for an annulus, along the inner rim of its hole.
//!
//! The closest point to the sphere's centre lies in the plane, at the in-plane offset q of
//! the centre's projection clamped radially to [R_in, R]: the projection itself when
//! R_in ≤ |q| ≤ R, else the nearest point of the inner or outer rim, c + R_in q̂ or c + R q̂
//! (pkdgrav's face-then-ring decomposition of 000 §2.2.2, in closest-point form). A centre on
//! the axis of an annulus is equally near every point of the inner rim; one is taken along a
//! fixed in-plane direction.

use glam::DVec3;

use super::{touch, Touch};
use crate::hard::predict::{earliest, plane_collision_time, ring_collision_time};

/// Disk with centre, unit normal, radius and the radius of a central hole (0: none).
#[derive(Clone, Debug, PartialEq)]
pub struct Disk {
    /// Centre (m).
    pub center: DVec3,
    /// Unit normal.
    pub normal: DVec3,
    /// Radius R (m).
    pub radius: f64,
    /// Radius R_in of the central hole (m), 0 ≤ R_in < R; 0 for a full disk.
    pub inner: f64,
}

impl Disk {
    /// The point of the disk (or annulus) nearest to `pos`.
    pub fn closest(&self, pos: DVec3) -> DVec3 {
        let d = pos - self.center;
        let q = d - d.dot(self.normal) * self.normal;
        let rho = q.length();
        if rho > self.radius {
            self.center + q * (self.radius / rho)
        } else if rho >= self.inner {
            self.center + q
        } else if rho > 0.0 {
            self.center + q * (self.inner / rho)
        } else {
            self.center + super::plate::any_perpendicular(self.normal) * self.inner
        }
    }

    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the disk, touches it (000 §2.2.2): a face by eq 9 if the centre is then between R_in
    /// and R from the axis, else a rim (a ring, eq 13–24); the earliest of these.
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        let d = pos - self.center;
        let face = plane_collision_time(d.dot(self.normal), vel.dot(self.normal), s).filter(|&t| {
            let x = d + vel * t.max(0.0);
            let rho2 = (x - x.dot(self.normal) * self.normal).length_squared();
            rho2 <= self.radius * self.radius && rho2 >= self.inner * self.inner
        });
        let rim = ring_collision_time(d, vel, self.normal, self.radius, s);
        let hole = (self.inner > 0.0)
            .then(|| ring_collision_time(d, vel, self.normal, self.inner, s))
            .flatten();
        earliest(earliest(face, rim), hole)
    }

    /// Sphere contact with the nearest point of the disk (a face or a rim).
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        touch(pos, r, self.closest(pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(inner: f64) -> Disk {
        Disk {
            center: DVec3::ZERO,
            normal: DVec3::Z,
            radius: 1.0,
            inner,
        }
    }

    #[test]
    fn face_and_rim() {
        let d = disk(0.0);
        let face = d.contact(DVec3::new(0.5, 0.0, -0.3), 0.5).expect("face");
        assert!((face.overlap - 0.2).abs() < 1e-15 && face.normal == DVec3::Z);
        // Beyond the rim: distance from (1.3, 0, 0.3) to (1, 0, 0) is √0.18.
        let rim = d.contact(DVec3::new(1.3, 0.0, 0.3), 0.5).expect("rim");
        assert!((rim.overlap - (0.5 - 0.18f64.sqrt())).abs() < 1e-15);
    }

    #[test]
    fn annulus_faces_and_inner_rim() {
        let a = disk(0.4);
        // Over the ring: the projection, from either face.
        let top = a.contact(DVec3::new(0.0, 0.6, 0.3), 0.5).expect("top face");
        assert!((top.overlap - 0.2).abs() < 1e-15 && top.normal == DVec3::NEG_Z);
        let below = a.contact(DVec3::new(0.0, 0.6, -0.3), 0.5).expect("under");
        assert!(below.normal == DVec3::Z);
        // Over the hole: the inner rim at (0.4, 0, 0); distance from (0.1, 0, 0.3) is √0.18.
        let rim = a
            .contact(DVec3::new(0.1, 0.0, 0.3), 0.5)
            .expect("inner rim");
        assert!((rim.overlap - (0.5 - 0.18f64.sqrt())).abs() < 1e-15);
        let expected = (DVec3::new(0.3, 0.0, -0.3)).normalize();
        assert!((rim.normal - expected).length() < 1e-15);
        // On the axis: every rim point at distance √(0.4² + 0.3²) = 0.5 — just not touching.
        assert!(a.contact(DVec3::new(0.0, 0.0, 0.3), 0.5).is_none());
        let axis = a.contact(DVec3::new(0.0, 0.0, 0.2), 0.5).expect("axis");
        assert!((axis.overlap - (0.5 - 0.2f64.hypot(0.4))).abs() < 1e-15);
        // A grain smaller than the hole passes through its middle untouched.
        assert!(a.contact(DVec3::ZERO, 0.39).is_none());
    }

    #[test]
    fn annulus_collision_times() {
        let a = disk(0.4);
        let down = DVec3::new(0.0, 0.0, -1.0);
        // Over the ring, falling from z = 1: the face at z = s, t = 1 − 0.1.
        let t = a.collision_time(DVec3::new(0.7, 0.0, 1.0), down, 0.1);
        assert!((t.expect("face") - 0.9).abs() < 1e-12);
        // Through the middle of the hole with a radius below R_in: no contact.
        assert!(a
            .collision_time(DVec3::new(0.0, 0.0, 1.0), down, 0.3)
            .is_none());
        // Near the hole's edge: the inner rim, where |(0.3 − 0.4, z)| = 0.2, z = √0.03.
        let t = a.collision_time(DVec3::new(0.3, 0.0, 1.0), down, 0.2);
        assert!((t.expect("inner rim") - (1.0 - 0.03f64.sqrt())).abs() < 1e-9);
    }
}
