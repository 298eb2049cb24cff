//! Infinite plane bounding a half-space (000 §2.2, eq 9 for its hard-sphere form).
//!
//! The solid lies behind the plane; `normal` points into the space where the grains are.
//! A sphere whose centre is at signed distance d = (x − p)·n̂ overlaps by r − d when d < r,
//! however deep it is, so a grain pushed through is pushed back, never captured.

use glam::DVec3;

use super::Touch;

/// Infinite plane through `point` with unit `normal` towards the grains.
#[derive(Clone, Debug, PartialEq)]
pub struct Plane {
    /// A point of the plane (m).
    pub point: DVec3,
    /// Unit normal, pointing to the grains' side.
    pub normal: DVec3,
}

impl Plane {
    /// Sphere contact: normal −n̂ (towards the wall), overlap r − d.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let d = (pos - self.point).dot(self.normal);
        (d < r).then(|| Touch {
            normal: -self.normal,
            overlap: r - d,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_radius_minus_signed_distance() {
        let p = Plane {
            point: DVec3::new(0.0, 0.0, 1.0),
            normal: DVec3::Z,
        };
        let c = p.contact(DVec3::new(3.0, -2.0, 1.4), 0.5).expect("touches");
        assert!((c.overlap - 0.1).abs() < 1e-15);
        assert_eq!(c.normal, DVec3::NEG_Z);
        assert!(p.contact(DVec3::new(0.0, 0.0, 1.5), 0.5).is_none());
        // A centre behind the plane still overlaps by r − d, so it is pushed back out.
        assert!(
            (p.contact(DVec3::new(0.0, 0.0, 0.8), 0.5)
                .expect("deep")
                .overlap
                - 0.7)
                .abs()
                < 1e-15
        );
    }
}
