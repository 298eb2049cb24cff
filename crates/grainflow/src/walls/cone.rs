//! Cone with radius = m z + b about an axis, grains inside (001 §3.4, eq 3.26–3.36).
//!
//! In the half-plane through the axis and the sphere's centre (axial coordinate z, distance
//! pr from the axis) the cone is the line ρ = m z + b; its nearest point is at
//! z_c = (m (pr − b) + z)/(m² + 1), r_c = m z_c + b (eq 3.27–3.28), and the contact point is
//! c = z_c â + r_c q̂ (eq 3.29–3.31, with the x/y swap of the extraction corrected, see the
//! seeds README). A centre inside (r_c ≥ pr) overlaps by r − |x − c| (eq 3.35); a centre
//! beyond the surface by r + |x − c| (eq 3.33), so it is pushed back. Where z_c falls past
//! the apex (r_c < 0) the apex itself is the nearest point. A centre on the axis is
//! equidistant from a whole circle and gets no contact.
//!
//! A cone may be cut to an axial `range` [z_lo, z_hi] (a PEBBLES outlet cone between the vessel
//! wall and the exit chute, 001 §4.8): where the nearest point of the whole cone falls outside
//! the range, the nearest point of the cut edge (a circle) is the contact, with the overlap
//! r − distance of a thin edge.

use glam::DVec3;

use super::Touch;

/// Cone of radius `slope` · z + `radius0` at axial coordinate z from `origin` along `axis`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cone {
    /// Point of the axis where z = 0 (m).
    pub origin: DVec3,
    /// Unit axis (direction of increasing z).
    pub axis: DVec3,
    /// m: change of radius per unit z (−).
    pub slope: f64,
    /// b: radius at z = 0 (m).
    pub radius0: f64,
    /// Axial range [z_lo, z_hi] (m) the cone is cut to; whole when `None`.
    pub range: Option<[f64; 2]>,
}

/// A point seen from a cone's axis: its axial coordinate z, its radial vector q from the axis
/// and that vector's length pr (> 0), and its foot z_c on the generator line (eq 3.27).
pub(super) struct Foot {
    z: f64,
    q: DVec3,
    pr: f64,
    pub z_c: f64,
}

impl Cone {
    /// Where `pos` lies relative to the cone's axis and generator; `None` on the axis.
    pub(super) fn foot(&self, pos: DVec3) -> Option<Foot> {
        let d = pos - self.origin;
        let z = d.dot(self.axis);
        let q = d - z * self.axis;
        let pr = q.length();
        let m = self.slope;
        (pr > 0.0).then(|| Foot {
            z,
            q,
            pr,
            z_c: (m * (pr - self.radius0) + z) / (m * m + 1.0),
        })
    }

    /// The nearest point of the cone's surface to `pos` and whether `pos` is inside.
    pub fn closest(&self, pos: DVec3) -> Option<(DVec3, bool)> {
        self.foot(pos).map(|f| self.closest_at(&f))
    }

    /// [`Self::closest`] for a point whose [`Foot`] is known.
    pub(super) fn closest_at(&self, f: &Foot) -> (DVec3, bool) {
        let (m, b) = (self.slope, self.radius0);
        let mut z_c = f.z_c;
        let mut r_c = m * z_c + b;
        if r_c < 0.0 {
            // Past the apex the nearest point of the (one-nappe) cone is the apex.
            z_c = -b / m;
            r_c = 0.0;
        }
        let inside = m * f.z + b >= f.pr;
        (self.origin + z_c * self.axis + r_c * (f.q / f.pr), inside)
    }

    /// Axial coordinate z_c of the foot of `pos` on the cone's generator line (eq 3.27);
    /// `None` on the axis.
    pub fn foot_z(&self, pos: DVec3) -> Option<f64> {
        self.foot(pos).map(|f| f.z_c)
    }

    /// Sphere contact, grains inside the cone.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let f = self.foot(pos)?;
        self.contact_at(pos, r, &f, self.closest_at(&f))
    }

    /// [`Self::contact`] for a centre `pos` whose [`Foot`] and [`Self::closest_at`] are known.
    pub(super) fn contact_at(
        &self,
        pos: DVec3,
        r: f64,
        f: &Foot,
        (c, inside): (DVec3, bool),
    ) -> Option<Touch> {
        if let Some([lo, hi]) = self.range {
            if !(lo..=hi).contains(&f.z_c) {
                let z_e = f.z_c.clamp(lo, hi);
                let edge = self.origin
                    + z_e * self.axis
                    + (self.slope * z_e + self.radius0) * f.q.normalize();
                return super::touch(pos, r, edge);
            }
        }
        let d = c - pos;
        let dist = d.length();
        if dist == 0.0 {
            return None;
        }
        let (overlap, normal) = if inside {
            (r - dist, d / dist)
        } else {
            (r + dist, -d / dist)
        };
        (overlap > 0.0).then_some(Touch { normal, overlap })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_five_degree_cone() {
        // radius = z: at height 2 the radius is 2; a centre at (1.5, 0, 2) is 0.5/√2 from the
        // surface along (1, 0, −1)/√2.
        let c = Cone {
            origin: DVec3::ZERO,
            axis: DVec3::Z,
            slope: 1.0,
            radius0: 0.0,
            range: None,
        };
        let t = c.contact(DVec3::new(1.5, 0.0, 2.0), 0.5).expect("touch");
        let s = std::f64::consts::FRAC_1_SQRT_2;
        assert!((t.overlap - (0.5 - 0.5 * s)).abs() < 1e-15);
        assert!((t.normal - DVec3::new(s, 0.0, -s)).length() < 1e-15);
    }

    #[test]
    fn cut_cone_touches_only_its_edge_past_the_range() {
        // radius = z + 0.1, cut to z ∈ [0, 1]: a sphere in the chute below (z = −0.3, pr = 0.05)
        // is beyond the surface of the whole cone but 0.2 m from the edge circle (pr = 0.1, z = 0).
        let c = Cone {
            origin: DVec3::ZERO,
            axis: DVec3::Z,
            slope: 1.0,
            radius0: 0.1,
            range: Some([0.0, 1.0]),
        };
        assert!(c.contact(DVec3::new(0.05, 0.0, -0.3), 0.1).is_none());
        let t = c.contact(DVec3::new(0.1, 0.0, -0.05), 0.1).expect("edge");
        assert!((t.overlap - 0.05).abs() < 1e-15 && (t.normal - DVec3::Z).length() < 1e-15);
        // Inside the range the cut cone is the whole cone.
        let whole = Cone {
            range: None,
            ..c.clone()
        };
        let p = DVec3::new(0.5, 0.0, 0.5);
        assert_eq!(c.contact(p, 0.2), whole.contact(p, 0.2));
    }
}
