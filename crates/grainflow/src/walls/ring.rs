//! Ring: a circle of radius R, i.e. a torus of tube radius equal to the sphere's radius
//! (000 §2.2.5, eq 13–25 for its hard-sphere quartic).
//!
//! The closest point of the circle to the sphere's centre is c + R q̂, with q the centre's
//! offset projected into the ring's plane; the contact normal is eq 25 reversed,
//! n̂ = (c + R q̂ − x)/|…|. A centre on the axis is equidistant from the whole circle: no
//! single contact point exists and no contact is reported (000 treats R ≤ s there as a plane
//! bounce; a soft sphere that large belongs on a disk).

use glam::DVec3;

use super::{touch, Touch};
use crate::hard::predict::ring_collision_time;

/// Circle with centre, unit normal (its axis) and radius.
#[derive(Clone, Debug, PartialEq)]
pub struct Ring {
    /// Centre (m).
    pub center: DVec3,
    /// Unit normal of the ring's plane.
    pub normal: DVec3,
    /// Radius R (m).
    pub radius: f64,
}

impl Ring {
    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the ring, touches it (000 eq 13–24).
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        ring_collision_time(pos - self.center, vel, self.normal, self.radius, s)
    }

    /// Unit vector from the contact point to the centre at `pos` (000 eq 25,
    /// n̂ = (ρ − R T̂)/s), and the distance; on the axis, sign(ρ_N) N̂ as for a plane.
    pub fn away(&self, pos: DVec3) -> (DVec3, f64) {
        let d = pos - self.center;
        let z = d.dot(self.normal);
        let q = d - z * self.normal;
        let rho = q.length();
        if rho == 0.0 {
            let n = if z < 0.0 { -self.normal } else { self.normal };
            return (n, d.length().hypot(self.radius));
        }
        super::away(pos, self.center + q * (self.radius / rho), self.normal)
    }

    /// Sphere contact with the nearest point of the circle.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let d = pos - self.center;
        let q = d - d.dot(self.normal) * self.normal;
        let rho = q.length();
        if rho == 0.0 {
            return None;
        }
        touch(pos, r, self.center + q * (self.radius / rho))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_inside_the_ring_touches_the_near_side() {
        let ring = Ring {
            center: DVec3::ZERO,
            normal: DVec3::Z,
            radius: 1.0,
        };
        let c = ring.contact(DVec3::new(0.7, 0.0, 0.0), 0.5).expect("touch");
        assert!((c.overlap - 0.2).abs() < 1e-15 && c.normal == DVec3::X);
        assert!(ring.contact(DVec3::new(0.0, 0.0, 0.1), 2.0).is_none());
    }
}
