//! Walls: geometry only. Each primitive answers "closest point, outward normal and overlap
//! for a sphere"; the contact law is the particles' own ([`crate::contact`]), with the wall as
//! a material of infinite radius and mass whose surface velocity comes from its [`Motion`].
//! Primitives are variants of [`Shape`], one file each (seed 000 §2.2; 001 §3.4, §4.7–4.8):
//! plane (half-space or sheet, also a x + b y + c z + d = 0), plate, disk (faces and rim),
//! cylinder (infinite inside/outside/shell, finite with end rims), ring (torus of tube radius
//! = the sphere's), point, line, cone (radius = m z + b, inside), block, a cylinder with
//! indentations (001 §4.7.2) and a floor over several outlet cones (001 §4.8), each a union of
//! its parts, and unions of them; and triangle meshes read from STL or OBJ files
//! ([`trimesh`]), a union of their flat faces.
//!
//! **Hard spheres.** Each primitive's `contact` is the closest-point form of the surface that
//! 000 writes as a collision condition |ρ(t) − c(t)| = s; [`Shape::hard_collision_time`] gives
//! the time a sphere in straight-line motion relative to the wall reaches it (plane eq 9,
//! cylinder eq 10–12, ring eq 13–24; the rest from these), checked by `validate hard-two-body`
//! (docs/hard-spheres.md). Cones, solid blocks, indented cylinders and hoppers have no
//! collision time and are refused.
//!
//! **Surfaces.** A wall is `normal` (the contact law), `sticky` (a grain that touches it is
//! held rigidly and moves with it, 000 §2.2: rough drums) or `absorbing` (a grain that touches
//! it is removed and counted). Restitution and friction of grain–wall contacts are those of
//! the pair of materials, so the scene's `[[pairs]]` table overrides them for one wall
//! material (000's per-wall ε_n, ε_t; 002 Table 2's particle–wall values).
//!
//! **Layout.** A wall as a scene writes it, and what can be wrong with it, is
//! [`crate::scene::WallSpec`];
//! [`interact`] is what every method does with walls during a run (poses, a grain placed in
//! a wall's frame, sticky and absorbing surfaces); `near.rs` lists the members that may touch
//! each grain until the next neighbour rebuild; `history.rs` keeps every wall contact's
//! history ([`WallHistory`]); [`mesh`] draws the shapes. The soft-sphere wall forces are
//! `soft/walls.rs`.

pub mod block;
pub mod cone;
pub mod cylinder;
pub mod disk;
pub(crate) mod history;
pub mod hopper;
pub mod indent;
pub mod interact;
pub mod line;
pub mod mesh;
pub mod motion;
pub(crate) mod near;
pub mod plane;
pub mod plate;
pub mod point;
pub mod ring;
pub mod trimesh;

use glam::DVec3;
use serde::{Deserialize, Serialize};

pub use crate::contact::Touch;

pub use block::Block;
pub use cone::Cone;
pub use cylinder::{Cylinder, Side};
pub use disk::Disk;
pub use history::{WallHistory, WallMember};
pub use hopper::{Hopper, HopperPart};
pub use indent::{Indentation, IndentedPart};
pub use line::Line;
pub use mesh::Mesh;
pub use motion::{Motion, Pose};
pub use plane::Plane;
pub use plate::Plate;
pub use point::Point;
pub use ring::Ring;
pub use trimesh::inner::InnerHint;
pub use trimesh::{MeshPart, TriMesh};

/// Most members a union may have: contact histories are keyed by (wall, member) in a u32.
pub const MAX_UNION_MEMBERS: usize = 256;

/// A wall primitive, or a union of them.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Infinite plane: a half-space or a thin sheet.
    Plane(Plane),
    /// Finite flat rectangle, touchable from both faces and its edges.
    Plate(Plate),
    /// Finite disk with its rim.
    Disk(Disk),
    /// Infinite or finite cylinder.
    Cylinder(Cylinder),
    /// Circle (torus of tube radius equal to the sphere's).
    Ring(Ring),
    /// Single point.
    Point(Point),
    /// Line or segment.
    Line(Line),
    /// Cone, grains inside.
    Cone(Cone),
    /// Solid box.
    Block(Block),
    /// Part of a cylinder with indentations (mantle, pocket face or rim).
    Indented(IndentedPart),
    /// Part of a floor over outlet cones (floor, cone, rim or chute tube).
    Hopper(HopperPart),
    /// The flat faces of a triangle mesh that form one of its wall members.
    Mesh(MeshPart),
    /// Several primitives forming one vessel part; each touches a grain on its own.
    Union(Vec<Shape>),
}

/// What a wall does to grains that touch it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Surface {
    /// The contact law acts.
    #[default]
    Normal,
    /// Grains that touch it are held rigidly and move with it.
    Sticky,
    /// Grains that touch it are removed and counted.
    Absorbing,
}

/// A wall: a shape made of a material, with a surface kind and a motion.
#[derive(Clone, Debug, PartialEq)]
pub struct Wall {
    /// Geometry in the scene placement.
    pub shape: Shape,
    /// Index into the scene's materials.
    pub material: usize,
    /// What touching it does.
    pub surface: Surface,
    /// How it moves.
    pub motion: Motion,
}

impl Shape {
    /// The contact of a sphere at `pos` (m) with radius `r` (m), if it touches: the normal
    /// points from the sphere's centre towards the wall, the overlap is r − distance (or
    /// r + depth when the centre is inside a solid). Unions answer with their first member
    /// that touches; [`Shape::members`] gives all of them.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        match self {
            Shape::Plane(s) => s.contact(pos, r),
            Shape::Plate(s) => s.contact(pos, r),
            Shape::Disk(s) => s.contact(pos, r),
            Shape::Cylinder(s) => s.contact(pos, r),
            Shape::Ring(s) => s.contact(pos, r),
            Shape::Point(s) => s.contact(pos, r),
            Shape::Line(s) => s.contact(pos, r),
            Shape::Cone(s) => s.contact(pos, r),
            Shape::Block(s) => s.contact(pos, r),
            Shape::Indented(s) => s.contact(pos, r),
            Shape::Hopper(s) => s.contact(pos, r),
            Shape::Mesh(s) => s.contact(pos, r),
            Shape::Union(m) => m.iter().find_map(|s| s.contact(pos, r)),
        }
    }

    /// For a part of a mesh whose grid cells within `r + skin` of `pos` are all inner, what
    /// a sphere of radius `r` that moves less than `skin` from `pos` needs to be met by
    /// [`Shape::contact_inner`] ([`MeshPart::inner_hint`]); `None` for every other shape.
    pub fn inner_hint(&self, pos: DVec3, r: f64, skin: f64) -> Option<InnerHint> {
        match self {
            Shape::Mesh(p) => p.inner_hint(pos, r, skin),
            _ => None,
        }
    }

    /// [`Shape::contact`] of a sphere at `pos` of radius `r` given the `hint`
    /// [`Shape::inner_hint`] made when it was listed: the same contact, found without a
    /// search for a mesh part.
    #[inline]
    pub fn contact_inner(&self, pos: DVec3, r: f64, hint: &InnerHint) -> Option<Touch> {
        match self {
            Shape::Mesh(p) => p.contact_inner(pos, r, hint),
            other => other.contact(pos, r),
        }
    }

    /// Whether a sphere at `pos` of radius `reach` may touch the shape: for lists of the walls
    /// near each grain, built with `reach` = radius + skin and trusted while no grain moves half
    /// the skin. A primitive's contact does (its distance changes no faster than the centre
    /// moves); the parts of indented cylinders and hoppers, whose contacts switch on where
    /// their regions meet, answer with a bound.
    pub fn may_touch(&self, pos: DVec3, reach: f64) -> bool {
        match self {
            Shape::Indented(p) => p.may_touch(pos, reach),
            Shape::Hopper(p) => p.may_touch(pos, reach),
            Shape::Mesh(p) => p.may_touch(pos, reach),
            other => other.contact(pos, reach).is_some(),
        }
    }

    /// Whether turning the shape about the axis through `center` along the unit `axis` leaves
    /// it in place: a plane normal to the axis, or a disk, ring, cylinder, cone, line or point
    /// centred on it (to 1e-12 relative).
    pub fn symmetric_about(&self, center: DVec3, axis: DVec3) -> bool {
        const TOL: f64 = 1e-12;
        let parallel = |v: DVec3| v.cross(axis).length() <= TOL * v.length();
        let on_axis = |p: DVec3| {
            let d = p - center;
            d.cross(axis).length() <= TOL * d.length().max(p.length())
        };
        match self {
            Shape::Plane(s) => parallel(s.normal),
            Shape::Disk(s) => parallel(s.normal) && on_axis(s.center),
            Shape::Ring(s) => parallel(s.normal) && on_axis(s.center),
            Shape::Cylinder(s) => parallel(s.axis) && on_axis(s.origin),
            Shape::Cone(s) => parallel(s.axis) && on_axis(s.origin),
            Shape::Line(s) => parallel(s.axis) && on_axis(s.point),
            Shape::Point(s) => on_axis(s.pos),
            Shape::Plate(_)
            | Shape::Block(_)
            | Shape::Indented(_)
            | Shape::Hopper(_)
            | Shape::Mesh(_) => false,
            Shape::Union(m) => m.iter().all(|s| s.symmetric_about(center, axis)),
        }
    }

    /// Time at which a sphere of radius `s` at `pos` (m, in the wall's scene placement),
    /// moving in a straight line at `vel` (m/s, relative to the wall), first touches this
    /// primitive (000 §2.2: eq 9 plane, eq 10–12 cylinders, eq 13–24 ring; disk, plate and
    /// finite cylinder the earliest of their faces and rims; a mesh's triangles, faces and
    /// rims, within `horizon` (s) of now, [`MeshPart::collision_time`]). t ≤ 0: already
    /// touching and approaching (000 §2.3). `None` for a union (ask its members) and for
    /// shapes the hard-sphere method does not predict (cone, block, indented cylinder,
    /// hopper; refused by the scene check).
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64, horizon: f64) -> Option<f64> {
        match self {
            Shape::Mesh(w) => w.collision_time(pos, vel, s, horizon),
            Shape::Plane(w) => w.collision_time(pos, vel, s),
            Shape::Plate(w) => w.collision_time(pos, vel, s),
            Shape::Disk(w) => w.collision_time(pos, vel, s),
            Shape::Cylinder(w) => w.collision_time(pos, vel, s),
            Shape::Ring(w) => w.collision_time(pos, vel, s),
            Shape::Point(w) => w.collision_time(pos, vel, s),
            Shape::Line(w) => w.collision_time(pos, vel, s),
            Shape::Cone(_)
            | Shape::Block(_)
            | Shape::Indented(_)
            | Shape::Hopper(_)
            | Shape::Union(_) => None,
        }
    }

    /// [`Shape::collision_time`] with the overlap rule of 000 §2.3 applied to the primitive as
    /// a whole: a sphere touching or overlapping it (centre within s of its nearest surface
    /// point, or behind a solid face) collides at once if it approaches along n̂ of
    /// [`Shape::away`] — the normal its collision is resolved with — and otherwise only at a
    /// later contact; a sphere clear of it gets the earliest contact, a round-off t ≤ 0 at 0.
    /// Keeping the decision and the resolution on the same normal means a sphere overlapping
    /// two faces near an edge cannot be bounced between them for ever.
    pub fn hard_collision_time(&self, pos: DVec3, vel: DVec3, s: f64, horizon: f64) -> Option<f64> {
        let (n, dist) = self.away(pos, 2.0 * s);
        if dist <= s {
            if vel.dot(n) < 0.0 {
                return Some(0.0);
            }
            return self
                .collision_time(pos, vel, s, horizon)
                .filter(|&t| t > 0.0);
        }
        self.collision_time(pos, vel, s, horizon)
            .map(|t| t.max(0.0))
    }

    /// Unit vector n̂ from the nearest point of this primitive's surface to a sphere centre at
    /// `pos` (the collision normal of 000 eq 6–8, from the contact point to the centre), and
    /// the centre's distance from the surface (negative behind a solid face). A mesh looks
    /// within `reach` (m) of `pos` only, and answers (ẑ, ∞) beyond it.
    pub fn away(&self, pos: DVec3, reach: f64) -> (DVec3, f64) {
        match self {
            Shape::Mesh(w) => w.away(pos, reach),
            Shape::Plane(w) => w.away(pos),
            Shape::Plate(w) => away(pos, w.closest(pos), w.normal),
            Shape::Disk(w) => away(pos, w.closest(pos), w.normal),
            Shape::Cylinder(w) => w.away(pos),
            Shape::Ring(w) => w.away(pos),
            Shape::Point(w) => away(pos, w.pos, DVec3::Z),
            Shape::Line(w) => away(pos, w.closest(pos), plate::any_perpendicular(w.axis)),
            Shape::Cone(_)
            | Shape::Block(_)
            | Shape::Indented(_)
            | Shape::Hopper(_)
            | Shape::Union(_) => (DVec3::Z, f64::INFINITY),
        }
    }

    /// The primitives of the shape: itself, or a union's members.
    pub fn members(&self) -> &[Shape] {
        match self {
            Shape::Union(m) => m,
            other => std::slice::from_ref(other),
        }
    }
}

impl Wall {
    /// The contact of a sphere at `pos` with the wall where the scene placed it (see
    /// [`Shape::contact`]); moving walls are evaluated through [`interact`].
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        self.shape.contact(pos, r)
    }

    /// A polygon mesh at time `t` (s); infinite shapes are drawn `extent` (m) wide.
    pub fn mesh_at(&self, extent: f64, t: f64) -> Mesh {
        let pose = self.motion.pose(t);
        let (v, p) = self.shape.mesh(extent);
        (v.into_iter().map(|x| pose.to_world(x)).collect(), p)
    }

    /// A polygon mesh at `pose` (a free wall's, which its motion does not give).
    pub fn mesh_posed(&self, extent: f64, pose: &Pose) -> Mesh {
        let (v, p) = self.shape.mesh(extent);
        (v.into_iter().map(|x| pose.to_world(x)).collect(), p)
    }

    /// A polygon mesh in the scene placement.
    pub fn mesh(&self, extent: f64) -> Mesh {
        self.shape.mesh(extent)
    }
}

/// Unit vector from the surface point `closest` to `pos` and their distance; `fallback` when
/// they coincide.
pub(crate) fn away(pos: DVec3, closest: DVec3, fallback: DVec3) -> (DVec3, f64) {
    let d = pos - closest;
    let len = d.length();
    if len > 0.0 {
        (d / len, len)
    } else {
        (fallback, 0.0)
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
