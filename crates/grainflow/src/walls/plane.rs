//! Infinite plane (000 §2.2.1, eq 9 for its hard-sphere form; 001 eq 3.37–3.39 for the
//! a x + b y + c z + d = 0 form).
//!
//! With `both = false` the solid lies behind the plane and `normal` points into the space
//! where the grains are: a sphere whose centre is at signed distance d = (x − p)·n̂ overlaps
//! by r − d when d < r, however deep it is, so a grain pushed through is pushed back, never
//! captured (001 eq 3.38). With `both = true` the plane is a thin sheet touchable from either
//! face: the face is the side the centre is on (000 §2.2.1, n̂ = sign(ρ_N) N̂).

use glam::DVec3;

use super::Touch;
use crate::hard::predict::plane_collision_time;

/// Infinite plane through `point` with unit `normal` towards the grains.
#[derive(Clone, Debug, PartialEq)]
pub struct Plane {
    /// A point of the plane (m).
    pub point: DVec3,
    /// Unit normal, pointing to the grains' side.
    pub normal: DVec3,
    /// Thin sheet touchable from both faces instead of a half-space.
    pub both: bool,
}

impl Plane {
    /// The plane a x + b y + c z + d = 0 (001 eq 3.37), grains on the side (a, b, c) points to.
    /// `abc` must be non-zero.
    pub fn from_equation(abc: DVec3, d: f64) -> Plane {
        let len2 = abc.length_squared();
        Plane {
            point: -d * abc / len2,
            normal: abc / len2.sqrt(),
            both: false,
        }
    }

    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the plane, touches it (000 eq 9; a sheet on the face the centre is on, a half-space
    /// from the grains' side only, so a centre pushed behind it is pushed back). t ≤ 0: already
    /// touching and approaching (000 §2.3).
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        let rho_n = (pos - self.point).dot(self.normal);
        let v_n = vel.dot(self.normal);
        if self.both {
            plane_collision_time(rho_n, v_n, s)
        } else {
            (v_n < 0.0).then(|| (s - rho_n) / v_n)
        }
    }

    /// Unit vector from the contact point to the centre at `pos`, and the centre's distance
    /// from the surface along it (negative behind a half-space): n̂ = sign(ρ_N) N̂ (000 §2.2.1).
    pub fn away(&self, pos: DVec3) -> (DVec3, f64) {
        let d = (pos - self.point).dot(self.normal);
        if self.both && d < 0.0 {
            (-self.normal, -d)
        } else {
            (self.normal, d)
        }
    }

    /// Sphere contact: normal towards the wall, overlap r − |d| (sheet) or r − d (half-space).
    #[inline]
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let d = (pos - self.point).dot(self.normal);
        if self.both && d < 0.0 {
            return (-d < r).then_some(Touch {
                normal: self.normal,
                overlap: r + d,
            });
        }
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
            both: false,
        };
        let c = p.contact(DVec3::new(3.0, -2.0, 1.4), 0.5).expect("touches");
        assert!((c.overlap - 0.1).abs() < 1e-15);
        assert_eq!(c.normal, DVec3::NEG_Z);
        assert!(p.contact(DVec3::new(0.0, 0.0, 1.5), 0.5).is_none());
        // A centre behind the plane still overlaps by r − d, so it is pushed back out.
        let deep = p.contact(DVec3::new(0.0, 0.0, 0.8), 0.5).expect("deep");
        assert!((deep.overlap - 0.7).abs() < 1e-15);
        // A sheet is touched from below with the opposite normal.
        let sheet = Plane { both: true, ..p };
        let below = sheet
            .contact(DVec3::new(0.0, 0.0, 0.8), 0.5)
            .expect("below");
        assert!((below.overlap - 0.3).abs() < 1e-15 && below.normal == DVec3::Z);
    }

    #[test]
    fn equation_form_matches_pebbles_examples() {
        // 001 §4.7.1: "plane 0 0 -0.5 4" is a ceiling at height 8 with grains below.
        let p = Plane::from_equation(DVec3::new(0.0, 0.0, -0.5), 4.0);
        assert!((p.point.z - 8.0).abs() < 1e-15 && p.normal == DVec3::NEG_Z);
        let c = p.contact(DVec3::new(1.0, 2.0, 7.8), 0.5).expect("touches");
        assert!((c.overlap - 0.3).abs() < 1e-15 && c.normal == DVec3::Z);
    }
}
