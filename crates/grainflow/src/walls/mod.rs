//! Walls: geometry only. Each primitive answers "overlap and normal for a sphere"; the
//! contact law is the particles' own ([`crate::contact`]), with the wall as a material of
//! infinite radius and mass (seed 000 §2.2 for the primitives; 002 §4.1 uses a large
//! visco-elastic plate). Primitives are variants of [`Shape`], one file each.

pub mod plane;
pub mod plate;

use glam::DVec3;

pub use crate::contact::Touch;

pub use plane::Plane;
pub use plate::Plate;

/// A wall primitive.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Infinite plane bounding a half-space.
    Plane(Plane),
    /// Finite flat rectangle, touchable from both faces and its edges.
    Plate(Plate),
}

/// A wall: a shape made of a material.
#[derive(Clone, Debug, PartialEq)]
pub struct Wall {
    /// Geometry.
    pub shape: Shape,
    /// Index into the scene's materials.
    pub material: usize,
}

impl Wall {
    /// The contact of a sphere at `pos` (m) with radius `r` (m), if it touches: the normal
    /// points from the sphere's centre towards the wall, the overlap is r − distance.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        match &self.shape {
            Shape::Plane(p) => p.contact(pos, r),
            Shape::Plate(p) => p.contact(pos, r),
        }
    }

    /// A polygon mesh for output; infinite shapes are drawn as a square of half-size `extent` (m).
    pub fn mesh(&self, extent: f64) -> (Vec<DVec3>, Vec<Vec<usize>>) {
        let (c, n, u, half) = match &self.shape {
            Shape::Plane(p) => (
                p.point,
                p.normal,
                plate::any_perpendicular(p.normal),
                [extent, extent],
            ),
            Shape::Plate(p) => (p.center, p.normal, p.u, p.half),
        };
        let v = n.cross(u);
        let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .iter()
            .map(|&(a, b)| c + a * half[0] * u + b * half[1] * v)
            .collect();
        (corners, vec![vec![0, 1, 2, 3]])
    }
}

/// Overlap of a sphere with a surface point at `closest` (both m): a contact when the distance
/// is below `r`, with the normal from the centre to that point.
fn touch(pos: DVec3, r: f64, closest: DVec3) -> Option<Touch> {
    let d = closest - pos;
    let dist2 = d.length_squared();
    if dist2 >= r * r || dist2 == 0.0 {
        return None;
    }
    let dist = dist2.sqrt();
    Some(Touch {
        normal: d / dist,
        overlap: r - dist,
    })
}
