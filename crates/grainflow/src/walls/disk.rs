//! Finite disk: a round portion of a plane with its rim (000 §2.2.2), touchable from both
//! faces and along the perimeter ring.
//!
//! The closest point to the sphere's centre is its projection onto the plane when that lies
//! within the radius R, and otherwise the nearest point of the rim, c + R q̂ with q the
//! in-plane offset: exactly pkdgrav's face-then-ring decomposition, in closest-point form.

use glam::DVec3;

use super::{touch, Touch};
use crate::hard::predict::{earliest, plane_collision_time, ring_collision_time};

/// Disk with centre, unit normal and radius.
#[derive(Clone, Debug, PartialEq)]
pub struct Disk {
    /// Centre (m).
    pub center: DVec3,
    /// Unit normal.
    pub normal: DVec3,
    /// Radius R (m).
    pub radius: f64,
}

impl Disk {
    /// The point of the disk nearest to `pos`.
    pub fn closest(&self, pos: DVec3) -> DVec3 {
        let d = pos - self.center;
        let q = d - d.dot(self.normal) * self.normal;
        let rho = q.length();
        if rho <= self.radius {
            self.center + q
        } else {
            self.center + q * (self.radius / rho)
        }
    }

    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the disk, touches it (000 §2.2.2): a face by eq 9 if the centre is then within R of the
    /// axis, else the rim (a ring, eq 13–24); the earlier of the two.
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        let d = pos - self.center;
        let face = plane_collision_time(d.dot(self.normal), vel.dot(self.normal), s).filter(|&t| {
            let x = d + vel * t.max(0.0);
            (x - x.dot(self.normal) * self.normal).length_squared() <= self.radius * self.radius
        });
        let rim = ring_collision_time(d, vel, self.normal, self.radius, s);
        earliest(face, rim)
    }

    /// Sphere contact with the nearest point of the disk (face or rim).
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        touch(pos, r, self.closest(pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn face_and_rim() {
        let d = Disk {
            center: DVec3::ZERO,
            normal: DVec3::Z,
            radius: 1.0,
        };
        let face = d.contact(DVec3::new(0.5, 0.0, -0.3), 0.5).expect("face");
        assert!((face.overlap - 0.2).abs() < 1e-15 && face.normal == DVec3::Z);
        // Beyond the rim: distance from (1.3, 0, 0.4) to (1, 0, 0) is 0.5.
        let rim = d.contact(DVec3::new(1.3, 0.0, 0.3), 0.5).expect("rim");
        assert!((rim.overlap - (0.5 - 0.18f64.sqrt())).abs() < 1e-15);
    }
}
