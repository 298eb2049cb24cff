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
