//! Cylinder wall with indentations (001 §4.7.2): grains inside a cylinder of radius R about the
//! z axis and inside pockets cut into its wall. A pocket is a convex polytope, the
//! intersection of the half-spaces n̂·x + d ≥ 0 of a pattern's `plane a b c d` lines (001
//! eq 3.37, grains on the side (a, b, c) points to), turned by a row's angle about the axis,
//! lifted by the row's lower height and cut to the row's band: from `row_min` to the next
//! row's `row_min`, or to the indentation's maximum.
//!
//! The wall is the boundary of "cylinder ∪ pockets". It is built of three kinds of parts, each
//! a union member with its own contact history:
//! * the **mantle**, the cylinder where it is not cut away: it touches where the centre's
//!   radial foot on the cylinder lies in no pocket;
//! * the **faces** of each pocket: a face touches where the centre's foot on its plane lies on
//!   the face's polygon, outside the cylinder and in no other pocket;
//! * the **rims**, where a pocket's plane cuts the cylinder (an ellipse arc; a vertical line
//!   for a vertical plane), the only convex edges of the solid: a rim touches where the centre
//!   is past both parts that meet there (its radial foot is on the pocket's side of the plane,
//!   its foot on the plane inside the cylinder).
//!
//! These regions are the parts' normal prisms, so a grain feels the nearest surface points of
//! the union: one part where the wall is smooth, a rim at a pocket's mouth, two faces in a
//! pocket's (concave) corner, and the summed overlap is continuous as it moves between them.
//! Pockets should not touch one another (a shared face would be a wall between two pockets).

use std::f64::consts::{FRAC_PI_2, PI};
use std::sync::Arc;

use glam::{DVec2, DVec3};
use serde::{Deserialize, Serialize};

use super::Touch;

/// An indentation block as written (001 §4.7.2): a pattern placed in rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Indentation {
    /// The pattern's planes [a, b, c, d] (a x + b y + c z + d = 0, pocket on the (a, b, c)
    /// side), in a frame whose z = 0 is the row's lower height and whose angle 0 is +x.
    pub pattern: Vec<[f64; 4]>,
    /// Heights between which the indentations lie (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub min_max: [f64; 2],
    /// Rows, from the bottom up.
    pub rows: Vec<Row>,
}

/// One row of an indentation: its lower height and the angles of its pockets.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Lower height of the row, the pattern's z = 0 (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub min: f64,
    /// Angles about the axis at which the pattern is placed (degrees, from +x towards +y).
    pub angles: Vec<f64>,
}

/// Half-space n̂·x + d ≥ 0 (n̂ unit, d in m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfSpace {
    /// Unit normal, into the pocket.
    pub normal: DVec3,
    /// Offset (m).
    pub d: f64,
}

impl HalfSpace {
    /// Signed distance (m) of `x` from the plane, positive on the pocket's side.
    #[inline]
    pub fn at(&self, x: DVec3) -> f64 {
        self.normal.dot(x) + self.d
    }

    /// The same half-space, to round-off.
    fn same(&self, other: &HalfSpace) -> bool {
        self.normal.distance(other.normal) < 1e-12
            && (self.d - other.d).abs() < 1e-12 * (1.0 + self.d.abs())
    }
}

/// The cylinder of radius `radius` about the z axis with its pockets.
#[derive(Clone, Debug, PartialEq)]
pub struct Indented {
    /// Cylinder radius R (m).
    pub radius: f64,
    /// Each pocket's half-spaces.
    pub pockets: Vec<Vec<HalfSpace>>,
    /// Each pocket's bounding box [min, max] (m).
    bounds: Vec<[DVec3; 2]>,
}

/// Which part of an [`Indented`] wall a member is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The cylinder outside the pockets.
    Mantle,
    /// Face `plane` of pocket `pocket`.
    Face {
        /// Pocket index.
        pocket: usize,
        /// Plane index within the pocket.
        plane: usize,
    },
    /// Curve where plane `plane` of pocket `pocket` cuts the cylinder.
    Rim {
        /// Pocket index.
        pocket: usize,
        /// Plane index within the pocket.
        plane: usize,
    },
}

/// One part of an indented cylinder: a union member.
#[derive(Clone, Debug, PartialEq)]
pub struct IndentedPart {
    /// The whole wall, shared by its parts.
    pub wall: Arc<Indented>,
    /// This member.
    pub part: Part,
}

/// Relative tolerance of "on a face" and "inside a pocket" (of R).
const TOL: f64 = 1e-12;
/// |n_z| below which a plane is taken as vertical (its rims are lines).
const VERTICAL: f64 = 1e-9;

impl Indentation {
    /// The pockets of this block: one per row and angle, each the pattern turned, lifted and
    /// cut to the row's band. The spec must have no problems.
    pub fn pockets(&self) -> Vec<Vec<HalfSpace>> {
        let mut out = Vec::new();
        for (i, row) in self.rows.iter().enumerate() {
            let top = self
                .rows
                .get(i + 1)
                .map_or(self.min_max[1], |next| next.min);
            for angle in &row.angles {
                let (s, c) = angle.to_radians().sin_cos();
                let mut pocket: Vec<HalfSpace> = self
                    .pattern
                    .iter()
                    .map(|&[a, b, cz, d]| {
                        let len = DVec3::new(a, b, cz).length();
                        let n = DVec3::new(c * a - s * b, s * a + c * b, cz) / len;
                        // x_world = R(θ) x + z0 ẑ, so n̂'·x_world + d' = n̂·x + d/len.
                        HalfSpace {
                            normal: n,
                            d: d / len - n.z * row.min,
                        }
                    })
                    .collect();
                pocket.extend([
                    HalfSpace {
                        normal: DVec3::Z,
                        d: -row.min,
                    },
                    HalfSpace {
                        normal: DVec3::NEG_Z,
                        d: top,
                    },
                ]);
                // A plane given twice (a pattern's floor at the row's lower height, say)
                // would be two faces and two rims touching the same grain.
                let mut unique: Vec<HalfSpace> = Vec::with_capacity(pocket.len());
                for h in pocket {
                    if !unique.iter().any(|u| u.same(&h)) {
                        unique.push(h);
                    }
                }
                out.push(unique);
            }
        }
        out
    }
}

impl Indented {
    /// The wall of radius `radius` (m) with `pockets` (each closed and non-empty).
    pub fn new(radius: f64, pockets: Vec<Vec<HalfSpace>>) -> Indented {
        let bounds = pockets
            .iter()
            .map(|p| {
                let v = vertices(p);
                let lo = v.iter().fold(DVec3::INFINITY, |a, &b| a.min(b));
                let hi = v.iter().fold(DVec3::NEG_INFINITY, |a, &b| a.max(b));
                [lo, hi]
            })
            .collect();
        Indented {
            radius,
            pockets,
            bounds,
        }
    }

    /// The members of the wall: the mantle, then each pocket's faces and rims.
    pub fn parts(self) -> Vec<IndentedPart> {
        let wall = Arc::new(self);
        let mut parts = vec![Part::Mantle];
        for (k, pocket) in wall.pockets.iter().enumerate() {
            for j in 0..pocket.len() {
                parts.push(Part::Face {
                    pocket: k,
                    plane: j,
                });
                parts.push(Part::Rim {
                    pocket: k,
                    plane: j,
                });
            }
        }
        parts
            .into_iter()
            .map(|part| IndentedPart {
                wall: wall.clone(),
                part,
            })
            .collect()
    }

    fn strictly_in(&self, k: usize, x: DVec3) -> bool {
        let tol = TOL * self.radius;
        self.pockets[k].iter().all(|h| h.at(x) > tol)
    }

    /// Whether `x` lies strictly inside a pocket other than `except`.
    fn in_pocket(&self, except: Option<usize>, x: DVec3) -> bool {
        (0..self.pockets.len()).any(|m| Some(m) != except && self.strictly_in(m, x))
    }

    /// Whether `x` (on plane `j` of pocket `k`) lies on that face's polygon.
    fn on_face(&self, k: usize, j: usize, x: DVec3) -> bool {
        let tol = TOL * self.radius;
        self.pockets[k]
            .iter()
            .enumerate()
            .all(|(l, h)| l == j || h.at(x) >= -tol)
    }

    fn mantle(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let rho = pos.truncate().length();
        let out = (pos.truncate() / rho).extend(0.0);
        let foot = DVec3::new(self.radius * out.x, self.radius * out.y, pos.z);
        let overlap = r - (self.radius - rho);
        (overlap > 0.0 && !self.in_pocket(None, foot)).then_some(Touch {
            normal: out,
            overlap,
        })
    }

    fn face(&self, k: usize, j: usize, pos: DVec3, r: f64) -> Option<Touch> {
        let h = self.pockets[k][j];
        let s = h.at(pos);
        if s >= r || s <= -r {
            return None;
        }
        let foot = pos - s * h.normal;
        if foot.truncate().length() < self.radius * (1.0 - TOL)
            || !self.on_face(k, j, foot)
            || self.in_pocket(Some(k), foot)
        {
            return None;
        }
        Some(Touch {
            normal: -h.normal,
            overlap: r - s,
        })
    }

    fn rim(&self, k: usize, j: usize, pos: DVec3, r: f64) -> Option<Touch> {
        let h = self.pockets[k][j];
        let rho = pos.truncate().length();
        let radial = (self.radius / rho * pos.truncate()).extend(pos.z);
        // Past the mantle's edge (the radial foot is in the pocket's side of the plane) and past
        // the face's edge (the foot on the plane is inside the cylinder).
        if h.at(radial) <= 0.0 || (pos - h.at(pos) * h.normal).truncate().length() >= self.radius {
            return None;
        }
        let c = self.rim_point(h, pos, r)?;
        if !self.on_face(k, j, c) || self.in_pocket(Some(k), c) {
            return None;
        }
        super::touch(pos, r, c)
    }

    /// The point of the curve where plane `h` cuts the cylinder nearest to `pos`, searched
    /// within reach `r` of it.
    fn rim_point(&self, h: HalfSpace, pos: DVec3, r: f64) -> Option<DVec3> {
        let big_r = self.radius;
        let n = h.normal;
        let on_circle = |phi: f64| DVec2::from_angle(phi).extend(0.0) * big_r;
        if n.z.abs() < VERTICAL {
            // Vertical lines at cos(φ − α) = −d / (R |n_h|), α the normal's azimuth.
            let nh = n.truncate().length();
            let c = -h.d / (big_r * nh);
            if c.abs() > 1.0 {
                return None;
            }
            let (alpha, w) = (n.y.atan2(n.x), c.acos());
            return [alpha + w, alpha - w]
                .map(|phi| on_circle(phi) + pos.z * DVec3::Z)
                .into_iter()
                .min_by(|a, b| a.distance_squared(pos).total_cmp(&b.distance_squared(pos)));
        }
        // The curve x(φ) = (R cos φ, R sin φ, z(φ)) with z(φ) from the plane's equation;
        // a point within r of `pos` lies within ±(π/2)(r + |R − ρ|)/R of its azimuth.
        let z = |phi: f64| -(h.d + big_r * (n.x * phi.cos() + n.y * phi.sin())) / n.z;
        let point = |phi: f64| on_circle(phi) + z(phi) * DVec3::Z;
        let rho = pos.truncate().length();
        let phi0 = pos.y.atan2(pos.x);
        let window = (FRAC_PI_2 * (r + (big_r - rho).abs()) / big_r).min(PI);
        let (lo, hi) = (phi0 - window, phi0 + window);
        // A coarse scan, then Newton on d|x(φ) − p|²/dφ = 0.
        const SCAN: usize = 16;
        let mut phi = (0..=SCAN)
            .map(|i| lo + (hi - lo) * i as f64 / SCAN as f64)
            .min_by(|&a, &b| {
                point(a)
                    .distance_squared(pos)
                    .total_cmp(&point(b).distance_squared(pos))
            })?;
        for _ in 0..30 {
            let (s, c) = phi.sin_cos();
            let d1 = DVec3::new(-big_r * s, big_r * c, big_r * (n.x * s - n.y * c) / n.z);
            let d2 = DVec3::new(-big_r * c, -big_r * s, big_r * (n.x * c + n.y * s) / n.z);
            let x = point(phi) - pos;
            let curvature = d1.length_squared() + x.dot(d2);
            if curvature <= 0.0 {
                break;
            }
            let step = x.dot(d1) / curvature;
            phi = (phi - step).clamp(lo, hi);
            if step.abs() < 1e-15 {
                break;
            }
        }
        Some(point(phi))
    }

    /// Polygon of face `j` of pocket `k`: the pocket's vertices on that plane, in order.
    pub fn face_polygon(&self, k: usize, j: usize) -> Vec<DVec3> {
        let pocket = &self.pockets[k];
        let tol = 1e-9 * self.radius;
        let mut verts: Vec<DVec3> = vertices(pocket)
            .into_iter()
            .filter(|v| pocket[j].at(*v).abs() <= tol)
            .collect();
        if verts.len() < 3 {
            return Vec::new();
        }
        let centre = verts.iter().sum::<DVec3>() / verts.len() as f64;
        let u = (verts[0] - centre).normalize_or_zero();
        let w = pocket[j].normal.cross(u);
        verts.sort_by(|a, b| {
            let ang = |p: &DVec3| (*p - centre).dot(w).atan2((*p - centre).dot(u));
            ang(a).total_cmp(&ang(b))
        });
        verts
    }
}

impl IndentedPart {
    /// Whether a sphere at `pos` of radius `reach` may touch this part: a bound (the cylinder,
    /// the pocket's bounding box) for lists of walls near each grain, where the contact itself
    /// would not do, since a part's contact switches on where its region meets the next one's.
    pub fn may_touch(&self, pos: DVec3, reach: f64) -> bool {
        let wall = &*self.wall;
        if pos.truncate().length() + reach <= wall.radius {
            return false;
        }
        match self.part {
            Part::Mantle => true,
            Part::Face { pocket, .. } | Part::Rim { pocket, .. } => {
                let [lo, hi] = wall.bounds[pocket];
                pos.cmpge(lo - reach).all() && pos.cmple(hi + reach).all()
            }
        }
    }

    /// Sphere contact with this part (see the module's rules).
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let wall = &*self.wall;
        // Every part of the boundary lies at |x_xy| ≥ R.
        if pos.truncate().length() + r <= wall.radius || pos.truncate() == DVec2::ZERO {
            return None;
        }
        match self.part {
            Part::Mantle => wall.mantle(pos, r),
            Part::Face { pocket, plane } => wall.face(pocket, plane, pos, r),
            Part::Rim { pocket, plane } => wall.rim(pocket, plane, pos, r),
        }
    }
}

/// The pockets without repeats: a pattern whose turn by 180° is itself (the manual's slot) at
/// θ and θ + 180°, or a row listing an angle twice, would otherwise make two copies of each face.
pub fn distinct(pockets: Vec<Vec<HalfSpace>>) -> Vec<Vec<HalfSpace>> {
    let covers = |p: &[HalfSpace], q: &[HalfSpace]| p.iter().all(|a| q.iter().any(|b| a.same(b)));
    let mut out: Vec<Vec<HalfSpace>> = Vec::new();
    for p in pockets {
        if !out.iter().any(|q| covers(&p, q) && covers(q, &p)) {
            out.push(p);
        }
    }
    out
}

/// Vertices of the polytope ∩ {n̂·x + d ≥ 0}: the points where three planes meet that satisfy
/// every half-space (to 1e-9 of their scale), without repeats.
pub fn vertices(planes: &[HalfSpace]) -> Vec<DVec3> {
    let scale = planes.iter().map(|h| h.d.abs()).fold(1e-300, f64::max);
    let tol = 1e-9 * scale;
    let mut out: Vec<DVec3> = Vec::new();
    for a in 0..planes.len() {
        for b in a + 1..planes.len() {
            for c in b + 1..planes.len() {
                let (p, q, s) = (planes[a], planes[b], planes[c]);
                let det = p.normal.dot(q.normal.cross(s.normal));
                if det.abs() < 1e-12 {
                    continue;
                }
                // Cramer's rule for n̂ᵢ·x = −dᵢ.
                let x = -(p.d * q.normal.cross(s.normal)
                    + q.d * s.normal.cross(p.normal)
                    + s.d * p.normal.cross(q.normal))
                    / det;
                if planes.iter().all(|h| h.at(x) >= -tol) && out.iter().all(|v| v.distance(x) > tol)
                {
                    out.push(x);
                }
            }
        }
    }
    out
}

/// Whether the half-spaces bound a finite region: no direction u ≠ 0 has n̂·u ≥ 0 for all of
/// them. Such a u, if any, is along an edge of the cone of directions, n̂ᵢ × n̂ⱼ, or normal to
/// every n̂ when the normals lie in one plane.
pub fn bounded(planes: &[HalfSpace]) -> bool {
    let mut widest = DVec3::ZERO;
    let mut candidates = Vec::new();
    for a in 0..planes.len() {
        for b in a + 1..planes.len() {
            let u = planes[a].normal.cross(planes[b].normal);
            if u.length_squared() > widest.length_squared() {
                widest = u;
            }
            if u.length_squared() > 1e-24 {
                candidates.extend([u.normalize(), -u.normalize()]);
            }
        }
    }
    if widest.length_squared() <= 1e-24 {
        return false;
    }
    let w = widest.normalize();
    if planes.iter().all(|h| h.normal.dot(w).abs() <= 1e-12) {
        return false;
    }
    !candidates
        .iter()
        .any(|u| planes.iter().all(|h| h.normal.dot(*u) >= -1e-12))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manual's example (001 §4.7.2): R = 0.15, a box pocket x ∈ [−0.25, 0.25],
    /// |y| ≤ 0.05, z ∈ [0, 0.5] of the row, one row from 0.4 to 2.0 at angle 0.
    fn example(angle: f64) -> Vec<IndentedPart> {
        let ind = Indentation {
            pattern: vec![
                [-1.0, 0.0, 0.0, 0.25],
                [1.0, 0.0, 0.0, 0.25],
                [0.0, -1.0, 0.0, 0.05],
                [0.0, 1.0, 0.0, 0.05],
                [0.0, 0.0, -1.0, 0.5],
                [0.0, 0.0, 1.0, 0.0],
            ],
            min_max: [0.4, 2.0],
            rows: vec![Row {
                min: 0.4,
                angles: vec![angle],
            }],
        };
        Indented::new(0.15, ind.pockets()).parts()
    }

    fn touches(parts: &[IndentedPart], pos: DVec3, r: f64) -> Vec<(Part, Touch)> {
        parts
            .iter()
            .filter_map(|p| p.contact(pos, r).map(|t| (p.part, t)))
            .collect()
    }

    fn close(a: DVec3, b: DVec3) -> bool {
        (a - b).length() < 1e-12
    }

    #[test]
    fn mantle_below_the_pocket_and_nothing_at_its_mouth() {
        let parts = example(0.0);
        let t = touches(&parts, DVec3::new(0.14, 0.0, 0.2), 0.02);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].0, Part::Mantle);
        assert!((t[0].1.overlap - 0.01).abs() < 1e-15 && close(t[0].1.normal, DVec3::X));
        // In front of the mouth the wall is cut away, and the pocket's faces are out of reach.
        assert!(touches(&parts, DVec3::new(0.14, 0.0, 0.6), 0.02).is_empty());
    }

    #[test]
    fn one_face_inside_the_pocket_two_in_its_corner() {
        let parts = example(0.0);
        let t = touches(&parts, DVec3::new(0.2, 0.04, 0.6), 0.02);
        assert_eq!(t.len(), 1);
        assert!((t[0].1.overlap - 0.01).abs() < 1e-15 && close(t[0].1.normal, DVec3::Y));
        let t = touches(&parts, DVec3::new(0.24, 0.04, 0.6), 0.02);
        assert_eq!(t.len(), 2);
        for (_, c) in &t {
            assert!((c.overlap - 0.01).abs() < 1e-15);
        }
    }

    #[test]
    fn rims_at_the_mouth_horizontal_and_vertical() {
        let parts = example(0.0);
        // The mouth's lower edge is the circle R = 0.15 at z = 0.4.
        let t = touches(&parts, DVec3::new(0.14, 0.0, 0.41), 0.02);
        assert_eq!(t.len(), 1);
        assert!(matches!(t[0].0, Part::Rim { .. }));
        let s = std::f64::consts::FRAC_1_SQRT_2;
        assert!((t[0].1.overlap - (0.02 - 0.01 / s)).abs() < 1e-12);
        assert!((t[0].1.normal - DVec3::new(s, 0.0, -s)).length() < 1e-9);
        // Its side edge is the vertical line at y = 0.05, x = √(R² − 0.05²).
        let pos = DVec3::new(0.14, 0.04, 0.6);
        let edge = DVec3::new((0.15f64 * 0.15 - 0.05 * 0.05).sqrt(), 0.05, 0.6);
        let t = touches(&parts, pos, 0.02);
        assert_eq!(t.len(), 1);
        assert!((t[0].1.overlap - (0.02 - pos.distance(edge))).abs() < 1e-12);
    }

    #[test]
    fn turned_pockets_touch_as_the_turned_grain() {
        let (a, b) = (example(0.0), example(-45.0));
        let turn = glam::DQuat::from_rotation_z((-45.0f64).to_radians());
        for pos in [
            DVec3::new(0.14, 0.0, 0.41),
            DVec3::new(0.24, 0.04, 0.6),
            DVec3::new(0.2, 0.04, 0.6),
            DVec3::new(0.14, 0.04, 0.6),
        ] {
            let (ta, tb) = (touches(&a, pos, 0.02), touches(&b, turn * pos, 0.02));
            assert_eq!(ta.len(), tb.len());
            for ((_, x), (_, y)) in ta.iter().zip(&tb) {
                assert!((x.overlap - y.overlap).abs() < 1e-12);
                assert!((turn * x.normal - y.normal).length() < 1e-9);
            }
        }
    }

    #[test]
    fn tilted_rim_point_is_the_nearest_point_of_the_ellipse() {
        // A plane tilted 60° from the horizontal cuts the cylinder in an ellipse; compare with a
        // fine scan of the curve.
        let n = DVec3::new(0.3, 0.4, 0.5).normalize();
        let wall = Indented::new(1.0, vec![]);
        let h = HalfSpace { normal: n, d: -0.2 };
        let pos = DVec3::new(0.9, 0.3, -0.4);
        let c = wall.rim_point(h, pos, 0.3).expect("point");
        assert!(h.at(c).abs() < 1e-12 && (c.truncate().length() - 1.0).abs() < 1e-12);
        let scan = (0..2_000_000)
            .map(|i| {
                let phi = std::f64::consts::TAU * i as f64 / 2e6;
                let (s, co) = phi.sin_cos();
                let x = DVec3::new(co, s, 0.0);
                x + DVec3::Z * (-(h.d + n.x * co + n.y * s) / n.z)
            })
            .map(|x| x.distance(pos))
            .fold(f64::INFINITY, f64::min);
        assert!(c.distance(pos) <= scan + 1e-12 && scan - c.distance(pos) < 1e-9);
    }

    #[test]
    fn summed_overlap_is_continuous_across_the_mouth() {
        // A grain moved in small steps along paths in the open space near the mouth's edges:
        // the overlap summed over the
        // touching parts is 1-Lipschitz per part, so it changes by at most a few steps' length;
        // a part counted twice, or missed, would jump by about the overlap (≈ 1e-2 m).
        let parts = example(0.0);
        let r = 0.02;
        for (from, to) in [
            // Up through the lower rim into the pocket; past the side rim in front of the
            // mouth; into the pocket's corner; past the mouth's lower corner.
            (DVec3::new(0.13, 0.0, 0.39), DVec3::new(0.16, 0.0, 0.45)),
            (DVec3::new(0.1, 0.1, 0.6), DVec3::new(0.13, 0.0, 0.6)),
            (DVec3::new(0.13, 0.0, 0.6), DVec3::new(0.24, 0.04, 0.6)),
            (DVec3::new(0.1, -0.1, 0.38), DVec3::new(0.14, 0.0, 0.42)),
        ] {
            let steps = 100_000;
            let mut last: Option<f64> = None;
            for i in 0..=steps {
                let pos = from.lerp(to, i as f64 / steps as f64);
                let sum: f64 = touches(&parts, pos, r).iter().map(|(_, t)| t.overlap).sum();
                if let Some(prev) = last {
                    let step = from.distance(to) / steps as f64;
                    assert!((sum - prev).abs() <= 3.0 * step + 1e-12, "jump at {pos:?}");
                }
                last = Some(sum);
            }
        }
    }

    #[test]
    fn a_slot_at_opposite_angles_is_one_pocket() {
        // The manual's pattern spans x ∈ [−0.25, 0.25]: at 0° and 180° it is the same slot.
        let mut ind = Indentation {
            pattern: vec![
                [-1.0, 0.0, 0.0, 0.25],
                [1.0, 0.0, 0.0, 0.25],
                [0.0, -1.0, 0.0, 0.05],
                [0.0, 1.0, 0.0, 0.05],
            ],
            min_max: [0.0, 1.0],
            rows: vec![Row {
                min: 0.0,
                angles: vec![0.0, 180.0, 90.0],
            }],
        };
        assert_eq!(distinct(ind.pockets()).len(), 2);
        ind.rows[0].angles = vec![0.0, 0.0];
        assert_eq!(distinct(ind.pockets()).len(), 1);
    }

    #[test]
    fn bounded_and_vertices() {
        let pocket = &Indentation {
            pattern: vec![
                [1.0, 0.0, 0.0, 1.0],
                [-1.0, 0.0, 0.0, 1.0],
                [0.0, 1.0, 0.0, 1.0],
            ],
            min_max: [0.0, 1.0],
            rows: vec![Row {
                min: 0.0,
                angles: vec![0.0],
            }],
        }
        .pockets()[0];
        // Open towards +y: unbounded; a fourth plane closes it into a 2 × 2 × 1 box.
        assert!(!bounded(pocket));
        let mut closed = pocket.clone();
        closed.push(HalfSpace {
            normal: DVec3::NEG_Y,
            d: 1.0,
        });
        assert!(bounded(&closed));
        assert_eq!(vertices(&closed).len(), 8);
    }
}
