//! Cylinders (000 §2.2.3–2.2.4; 001 eq 3.20–3.25).
//!
//! With ρ the distance of the sphere's centre from the axis and q̂ the direction away from it:
//! * infinite, `inside` (grains inside, solid beyond R): overlap ρ + r − R, normal +q̂
//!   (001 eq 3.21–3.22); a centre pushed past R is still pushed back;
//! * infinite, `outside` (a solid rod): overlap R + r − ρ, normal −q̂ (001 eq 3.24–3.25);
//! * infinite, `both` (a thin shell): the face the centre is on (000 eq 10, R ± s);
//! * finite, length L: a thin open tube touchable from both faces and along its two end rims
//!   (000 §2.2.4); the closest point is at axial height clamp(h, −L/2, L/2), radius R.
//!
//! A centre exactly on the axis has no defined direction q̂ and gets no contact.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::{touch, Touch};
use crate::hard::predict::{earliest, exit_time, pair_collision_time, ring_collision_time};

/// Which faces of an infinite cylinder grains touch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Grains inside; the solid lies beyond the radius.
    #[default]
    Inside,
    /// Grains outside; the cylinder is a solid rod.
    Outside,
    /// A thin shell touchable from either face.
    Both,
}

/// Cylinder about the axis through `origin` along unit `axis`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cylinder {
    /// A point of the axis; the centre of a finite cylinder (m).
    pub origin: DVec3,
    /// Unit axis.
    pub axis: DVec3,
    /// Radius R (m).
    pub radius: f64,
    /// Faces of an infinite cylinder (a finite one is always a thin shell).
    pub side: Side,
    /// Length L (m) of a finite cylinder, `None` for an infinite one.
    pub length: Option<f64>,
}

impl Cylinder {
    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the cylinder, touches it (000 §2.2.3–2.2.4, eq 10–12).
    ///
    /// Across the axis, the outer face (R + s) is met at the smaller root of eq 11 while the
    /// sphere approaches, the inner face (R − s, only if R > s) at the larger root while it
    /// moves out. An infinite cylinder offers the face its `side` says (a shell: the face on
    /// the centre's side). A finite one is a thin tube: either face counts if the centre is
    /// then within ±L/2 along the axis, a root at t ≤ 0 only on the face the centre is on
    /// (an overlap, 000 §2.3), and the two end rims are rings (eq 13–24).
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        let d = pos - self.origin;
        let h = d.dot(self.axis);
        let v_n = vel.dot(self.axis);
        let (q, vq) = (d - h * self.axis, vel - v_n * self.axis);
        let big = self.radius;
        let outer = || pair_collision_time(q, vq, big + s);
        let inner = || (big > s).then(|| exit_time(q, vq, big - s)).flatten();
        let Some(l) = self.length else {
            let inside = match self.side {
                Side::Inside => true,
                Side::Outside => false,
                Side::Both => q.length_squared() < big * big,
            };
            return if inside { inner() } else { outer() };
        };
        let inside_now = q.length_squared() < big * big;
        let within = |t: f64| (h + v_n * t.max(0.0)).abs() <= 0.5 * l;
        let side = earliest(
            outer().filter(|&t| within(t) && (t > 0.0 || !inside_now)),
            inner().filter(|&t| within(t) && (t > 0.0 || inside_now)),
        );
        let rim =
            |sign: f64| ring_collision_time(d - sign * 0.5 * l * self.axis, vel, self.axis, big, s);
        earliest(side, earliest(rim(1.0), rim(-1.0)))
    }

    /// Unit vector from the contact point to the centre at `pos`, and the distance (negative
    /// for a centre beyond an infinite cylinder's solid face): ±T̂ on the faces (000 §2.2.3),
    /// from the nearest rim point past a finite cylinder's ends.
    pub fn away(&self, pos: DVec3) -> (DVec3, f64) {
        let d = pos - self.origin;
        let h = d.dot(self.axis);
        let q = d - h * self.axis;
        let rho = q.length();
        let out = if rho > 0.0 {
            q / rho
        } else {
            super::plate::any_perpendicular(self.axis)
        };
        if let Some(l) = self.length {
            let hc = h.clamp(-0.5 * l, 0.5 * l);
            let n = if rho < self.radius { -out } else { out };
            return super::away(pos, self.origin + hc * self.axis + self.radius * out, n);
        }
        let inner = match self.side {
            Side::Inside => true,
            Side::Outside => false,
            Side::Both => rho < self.radius,
        };
        if inner {
            (-out, self.radius - rho)
        } else {
            (out, rho - self.radius)
        }
    }

    /// Sphere contact with the cylinder.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let d = pos - self.origin;
        let h = d.dot(self.axis);
        let q = d - h * self.axis;
        let rho = q.length();
        if rho == 0.0 {
            return None;
        }
        let out = q / rho;
        if let Some(l) = self.length {
            let hc = h.clamp(-0.5 * l, 0.5 * l);
            return touch(pos, r, self.origin + hc * self.axis + self.radius * out);
        }
        let inner = match self.side {
            Side::Inside => true,
            Side::Outside => false,
            Side::Both => rho < self.radius,
        };
        let (overlap, normal) = if inner {
            (rho + r - self.radius, out)
        } else {
            (self.radius + r - rho, -out)
        };
        (overlap > 0.0).then_some(Touch { normal, overlap })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cyl(side: Side, length: Option<f64>) -> Cylinder {
        Cylinder {
            origin: DVec3::ZERO,
            axis: DVec3::Z,
            radius: 1.0,
            side,
            length,
        }
    }

    #[test]
    fn inside_outside_and_shell() {
        let p = DVec3::new(0.8, 0.0, 5.0);
        let c = cyl(Side::Inside, None).contact(p, 0.5).expect("inside");
        assert!((c.overlap - 0.3).abs() < 1e-15 && c.normal == DVec3::X);
        assert!(cyl(Side::Outside, None).contact(p, 0.5).is_some());
        let far = DVec3::new(1.3, 0.0, 0.0);
        let o = cyl(Side::Outside, None).contact(far, 0.5).expect("outside");
        assert!((o.overlap - 0.2).abs() < 1e-15 && o.normal == DVec3::NEG_X);
        // A finite tube: beyond its end the nearest point is on the rim.
        let rim = cyl(Side::Both, Some(2.0))
            .contact(DVec3::new(0.8, 0.0, 1.3), 0.5)
            .expect("rim");
        assert!((rim.overlap - (0.5 - (0.04f64 + 0.09).sqrt())).abs() < 1e-15);
    }
}
