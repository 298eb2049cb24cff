//! Walls as written in a scene, checked field by field (`wall_check.rs`), and built into
//! [`Wall`]s.
//!
//! ```toml
//! [[walls]]
//! type = "cylinder"          # plane, plate, disk, cylinder, ring, point, line, cone, block,
//!                            # indented_cylinder, hopper, union, mesh
//! material = "steel"
//! origin = [0, 0, 0]
//! axis = [0, 0, 1]
//! radius = 0.03
//! side = "inside"            # inside, outside, both (infinite cylinders)
//! surface = "sticky"         # normal (default), sticky, absorbing
//! motion = { type = "rotate", center = [0, 0, 0], axis = [0, 0, 1], omega = 1.8, ramp = 0.2 }
//! ```
//!
//! A wall may instead be a free rigid body (`free = { density = 7800 }`, see `rigid::free`).

use std::path::{Path, PathBuf};

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::Scene;
use crate::rigid::FreeSpec;
use crate::walls::indent::{self, Indented};
use crate::walls::plate::Hole;
use crate::walls::trimesh::{Placement, TriMesh};
use crate::walls::{
    Block, Cone, Cylinder, Disk, Hopper, Indentation, Line, Motion, Plane, Plate, Point, Ring,
    Shape, Side, Surface, Wall,
};

/// One wall of a scene: material, shape, surface and motion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WallSpec {
    /// Material name.
    pub material: String,
    /// Geometry (its `type` and fields sit in the wall's own table).
    #[serde(flatten)]
    pub shape: ShapeSpec,
    /// normal, sticky or absorbing.
    #[serde(default)]
    pub surface: Surface,
    /// How the wall moves (fixed when absent).
    #[serde(default)]
    pub motion: Motion,
    /// A free rigid body moved by its contacts instead of a motion (`rigid::free`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free: Option<FreeSpec>,
}

/// A wall's geometry as written in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ShapeSpec {
    /// Infinite plane: `point` and `normal` (towards the grains), or
    /// `equation = [a, b, c, d]` for a x + b y + c z + d = 0 with grains where it is positive.
    Plane {
        /// A point of the plane (m).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "crate::units::length"
        )]
        point: Option<DVec3>,
        /// Normal towards the grains (normalised on load).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        normal: Option<DVec3>,
        /// Coefficients [a, b, c, d] (001 eq 3.37).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        equation: Option<[f64; 4]>,
        /// A thin sheet touchable from both faces instead of a half-space.
        #[serde(default)]
        both: bool,
    },
    /// Finite rectangle with centre, normal, in-plane axis `u` and half-sizes along u and n × u.
    Plate {
        /// Centre (m).
        #[serde(deserialize_with = "crate::units::length")]
        center: DVec3,
        /// Normal (normalised on load).
        normal: DVec3,
        /// In-plane axis (made perpendicular to the normal and normalised on load).
        u: DVec3,
        /// Half-sizes along u and n × u (m).
        #[serde(deserialize_with = "crate::units::length")]
        half_size: [f64; 2],
        /// Circular holes (an orifice plate): `{ at = [a, b], radius = r }`, `at` the centre's
        /// offsets along u and n × u (m); inside the rectangle and apart from each other.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        holes: Vec<Hole>,
    },
    /// Finite disk, both faces and rim; an annulus (a floor with a central orifice) when
    /// `inner_radius` > 0, with the hole's rim touchable too.
    Disk {
        /// Centre (m).
        #[serde(deserialize_with = "crate::units::length")]
        center: DVec3,
        /// Normal (normalised on load).
        normal: DVec3,
        /// Radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        radius: f64,
        /// Radius of the central hole (m), below `radius`; 0 (default) for a full disk.
        #[serde(
            default,
            skip_serializing_if = "is_zero",
            deserialize_with = "crate::units::length"
        )]
        inner_radius: f64,
    },
    /// Cylinder: infinite (`side` inside, outside or both) or of given `length` (a thin tube).
    Cylinder {
        /// A point of the axis, the centre of a finite cylinder (m).
        #[serde(deserialize_with = "crate::units::length")]
        origin: DVec3,
        /// Axis (normalised on load).
        axis: DVec3,
        /// Radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        radius: f64,
        /// Faces of an infinite cylinder.
        #[serde(default)]
        side: Side,
        /// Length of a finite cylinder (m).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "crate::units::length"
        )]
        length: Option<f64>,
    },
    /// Circle (torus of tube radius equal to the grain's).
    Ring {
        /// Centre (m).
        #[serde(deserialize_with = "crate::units::length")]
        center: DVec3,
        /// Normal of its plane (normalised on load).
        normal: DVec3,
        /// Radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        radius: f64,
    },
    /// Single point.
    Point {
        /// Position (m).
        #[serde(deserialize_with = "crate::units::length")]
        pos: DVec3,
    },
    /// Line, or a segment of `length` centred on `point`.
    Line {
        /// A point of the line (m).
        #[serde(deserialize_with = "crate::units::length")]
        point: DVec3,
        /// Direction (normalised on load).
        axis: DVec3,
        /// Length of a segment (m).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "crate::units::length"
        )]
        length: Option<f64>,
    },
    /// Cone of radius = slope · z + radius0, z along `axis` from `origin`; grains inside.
    Cone {
        /// Where z = 0 on the axis (m).
        #[serde(deserialize_with = "crate::units::length")]
        origin: DVec3,
        /// Axis (normalised on load).
        axis: DVec3,
        /// m (−).
        slope: f64,
        /// b (m).
        #[serde(deserialize_with = "crate::units::length")]
        radius0: f64,
        /// Axial range [z_lo, z_hi] (m) the cone is cut to; whole when absent.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "crate::units::length"
        )]
        range: Option<[f64; 2]>,
    },
    /// Axis-aligned box: a solid block (`side = "outside"`, default) or a vat holding grains
    /// (`side = "inside"`: six half-space planes).
    Block {
        /// Lower corner (m).
        #[serde(deserialize_with = "crate::units::length")]
        min: DVec3,
        /// Upper corner (m).
        #[serde(deserialize_with = "crate::units::length")]
        max: DVec3,
        /// outside (a solid) or inside (a vat).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<Side>,
    },
    /// Cylinder of `radius` about the z axis, grains inside, with pockets cut into its wall
    /// (001 §4.7.2): each indentation's pattern placed at its rows' heights and angles.
    IndentedCylinder {
        /// Radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        radius: f64,
        /// The indentation blocks.
        indentations: Vec<Indentation>,
    },
    /// Floor at `height` with circular holes of `radius` at `centers`, each the top of an
    /// outlet cone of `slope` (radius change per unit height) along +z cut at `bottom` (001
    /// §4.8 `cone` with `number_of_cones`); grains above the floor and in the cones.
    Hopper {
        /// Height of the floor (m).
        #[serde(deserialize_with = "crate::units::length")]
        height: f64,
        /// Centres (x, y) of the holes (m).
        #[serde(deserialize_with = "crate::units::length")]
        centers: Vec<[f64; 2]>,
        /// Radius of the holes (m).
        #[serde(deserialize_with = "crate::units::length")]
        radius: f64,
        /// Slope m of the cones (−).
        slope: f64,
        /// Height where the cones are cut (m).
        #[serde(deserialize_with = "crate::units::length")]
        bottom: f64,
        /// Length of a chute tube below each cone (m); none when 0.
        #[serde(default, deserialize_with = "crate::units::length")]
        tube: f64,
    },
    /// Several primitives forming one vessel part, with one material, surface and motion.
    Union {
        /// The primitives.
        members: Vec<ShapeSpec>,
    },
    /// A triangle mesh from an STL (ASCII or binary) or Wavefront OBJ file, its coordinates
    /// scaled, turned about x, then y, then z, then moved (docs/meshes.md).
    Mesh {
        /// The file, relative to the scene.
        path: PathBuf,
        /// The length of one of the file's units (m): 0.001 or "1 mm" for millimetres.
        #[serde(
            default = "one",
            skip_serializing_if = "is_one",
            deserialize_with = "crate::units::length"
        )]
        scale: f64,
        /// Angles about x, y and z (rad), applied in that order after scaling.
        #[serde(
            default,
            skip_serializing_if = "is_zero_vec",
            deserialize_with = "crate::units::angle"
        )]
        rotate: DVec3,
        /// Translation after the rotation (m).
        #[serde(
            default,
            skip_serializing_if = "is_zero_vec",
            deserialize_with = "crate::units::length"
        )]
        translate: DVec3,
    },
}

/// A mesh's default scale.
fn one() -> f64 {
    1.0
}

/// Whether a scale is left at its default 1 (not written back).
fn is_one(x: &f64) -> bool {
    *x == 1.0
}

/// Whether a vector is left at its default 0 (not written back).
fn is_zero_vec(v: &DVec3) -> bool {
    *v == DVec3::ZERO
}

/// The walls of a scene with unit directions (already checked by [`Scene::problems`]), mesh
/// files read from `base`.
pub(crate) fn make_walls(scene: &Scene, base: &Path) -> crate::Result<Vec<Wall>> {
    scene
        .walls
        .iter()
        .map(|w| w.load(scene.material_index(&w.material).unwrap_or(0), base))
        .collect()
}

impl WallSpec {
    /// A fixed half-space plane through `point` with `normal` towards the grains.
    pub fn plane(material: &str, point: DVec3, normal: DVec3) -> WallSpec {
        WallSpec {
            material: material.into(),
            shape: ShapeSpec::Plane {
                point: Some(point),
                normal: Some(normal),
                equation: None,
                both: false,
            },
            surface: Surface::Normal,
            motion: Motion::Fixed,
            free: None,
        }
    }

    /// The wall, with `material` the index of its material, its mesh (if it is one) read
    /// from the file at its path relative to `base`.
    pub fn load(&self, material: usize, base: &Path) -> crate::Result<Wall> {
        let mut wall = self.build(material);
        if let ShapeSpec::Mesh {
            path,
            scale,
            rotate,
            translate,
        } = &self.shape
        {
            let place = Placement {
                scale: *scale,
                rotate: *rotate,
                translate: *translate,
            };
            wall.shape = TriMesh::load(&base.join(path), &place)?.into_shape();
        }
        Ok(wall)
    }

    /// The wall, with `material` the index of its material; a mesh's file is not read here
    /// (it has no surface: [`WallSpec::load`] reads it).
    pub fn build(&self, material: usize) -> Wall {
        Wall {
            shape: self.shape.build(),
            material,
            surface: self.surface,
            motion: match &self.motion {
                Motion::Oscillate {
                    amplitude,
                    frequency,
                    direction,
                } => Motion::Oscillate {
                    amplitude: *amplitude,
                    frequency: *frequency,
                    direction: direction.normalize(),
                },
                Motion::Rotate {
                    center,
                    axis,
                    omega,
                    start,
                    ramp,
                } => Motion::Rotate {
                    center: *center,
                    axis: axis.normalize(),
                    omega: *omega,
                    start: *start,
                    ramp: *ramp,
                },
                other => other.clone(),
            },
        }
    }
}

impl ShapeSpec {
    /// The shape with unit directions (the spec must have no problems); a mesh, whose file
    /// this does not read, as an empty union ([`WallSpec::load`] reads it).
    pub fn build(&self) -> Shape {
        match self {
            ShapeSpec::Plane {
                point,
                normal,
                equation,
                both,
            } => Shape::Plane(plane(*point, *normal, *equation, *both)),
            ShapeSpec::Plate {
                center,
                normal,
                u,
                half_size,
                holes,
            } => Shape::Plate(plate(*center, *normal, *u, *half_size, holes)),
            ShapeSpec::Disk {
                center,
                normal,
                radius,
                inner_radius,
            } => Shape::Disk(Disk {
                center: *center,
                normal: normal.normalize(),
                radius: *radius,
                inner: *inner_radius,
            }),
            ShapeSpec::Cylinder {
                origin,
                axis,
                radius,
                side,
                length,
            } => Shape::Cylinder(Cylinder {
                origin: *origin,
                axis: axis.normalize(),
                radius: *radius,
                side: *side,
                length: *length,
            }),
            ShapeSpec::Ring {
                center,
                normal,
                radius,
            } => Shape::Ring(Ring {
                center: *center,
                normal: normal.normalize(),
                radius: *radius,
            }),
            ShapeSpec::Point { pos } => Shape::Point(Point { pos: *pos }),
            ShapeSpec::Line {
                point,
                axis,
                length,
            } => Shape::Line(Line {
                point: *point,
                axis: axis.normalize(),
                length: *length,
            }),
            ShapeSpec::Cone {
                origin,
                axis,
                slope,
                radius0,
                range,
            } => Shape::Cone(Cone {
                origin: *origin,
                axis: axis.normalize(),
                slope: *slope,
                radius0: *radius0,
                range: *range,
            }),
            ShapeSpec::Block { min, max, side } => block(*min, *max, *side),
            ShapeSpec::IndentedCylinder {
                radius,
                indentations,
            } => indented_cylinder(*radius, indentations),
            ShapeSpec::Hopper {
                height,
                centers,
                radius,
                slope,
                bottom,
                tube,
            } => hopper([*height, *bottom], centers, *radius, *slope, *tube),
            ShapeSpec::Union { members } => Shape::Union(
                members
                    .iter()
                    .flat_map(|m| m.build().members().to_vec())
                    .collect(),
            ),
            ShapeSpec::Mesh { .. } => Shape::Union(Vec::new()),
        }
    }
}

/// The plane through `point` with `normal`, or of `equation`, a sheet when `both`.
fn plane(
    point: Option<DVec3>,
    normal: Option<DVec3>,
    equation: Option<[f64; 4]>,
    both: bool,
) -> Plane {
    let mut plane = match equation {
        Some([a, b, c, d]) => Plane::from_equation(DVec3::new(a, b, c), d),
        None => Plane {
            point: point.unwrap_or_default(),
            normal: normal.unwrap_or(DVec3::Z).normalize(),
            both: false,
        },
    };
    plane.both = both;
    plane
}

/// The plate at `center` with unit `normal` and in-plane axis `u` made perpendicular to it.
fn plate(center: DVec3, normal: DVec3, u: DVec3, half_size: [f64; 2], holes: &[Hole]) -> Plate {
    let n = normal.normalize();
    Plate {
        center,
        normal: n,
        u: (u - u.dot(n) * n).normalize(),
        half: half_size,
        holes: holes.to_vec(),
    }
}

/// Whether an optional length is left at its default 0 (not written back).
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The block from `min` to `max`: a solid, or a vat of six half-spaces (`side` inside).
fn block(min: DVec3, max: DVec3, side: Option<Side>) -> Shape {
    let block = Block { min, max };
    if side == Some(Side::Inside) {
        Shape::Union(block.inner_planes().into_iter().map(Shape::Plane).collect())
    } else {
        Shape::Block(block)
    }
}

/// The cylinder of `radius` with the distinct pockets of `indentations`, as its parts.
fn indented_cylinder(radius: f64, indentations: &[Indentation]) -> Shape {
    let pockets = indent::distinct(indentations.iter().flat_map(Indentation::pockets).collect());
    Shape::Union(
        Indented::new(radius, pockets)
            .parts()
            .into_iter()
            .map(Shape::Indented)
            .collect(),
    )
}

/// The hopper's floor at height with cones cut at bottom (`heights`) under holes of `radius`
/// at `centers`, of `slope`, with chutes of length `tube`, as its parts.
fn hopper(heights: [f64; 2], centers: &[[f64; 2]], radius: f64, slope: f64, tube: f64) -> Shape {
    let [height, bottom] = heights;
    let cones = centers
        .iter()
        .map(|c| Cone {
            origin: DVec3::new(c[0], c[1], height),
            axis: DVec3::Z,
            slope,
            radius0: radius,
            range: Some([bottom - height, 0.0]),
        })
        .collect();
    let hopper = Hopper {
        height,
        cones,
        tube,
    };
    Shape::Union(hopper.parts().into_iter().map(Shape::Hopper).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    const BASE: &str = r#"
[simulation]
duration = 0.1
dt = "auto"
[contact]
normal = "hertz"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3
"#;

    #[test]
    fn every_primitive_parses_from_toml() {
        let walls = r#"
[[walls]]
type = "plane"
material = "glass"
equation = [0, 0, -0.5, 4]
[[walls]]
type = "disk"
material = "glass"
center = [0, 0, 0]
normal = [0, 0, 1]
radius = 0.1
motion = { type = "oscillate", amplitude = 1e-3, frequency = 300, direction = [0, 0, 2] }
[[walls]]
type = "cylinder"
material = "glass"
origin = [0, 0, 0]
axis = [0, 0, 1]
radius = 0.03
surface = "sticky"
motion = { type = "rotate", center = [0, 0, 0], axis = [0, 0, 1], omega = 2, ramp = 0.5 }
[[walls]]
type = "block"
material = "glass"
min = [0, 0, 0]
max = [1, 1, 1]
side = "inside"
surface = "absorbing"
[[walls]]
type = "union"
material = "glass"
members = [{ type = "ring", center = [0, 0, 0], normal = [0, 0, 1], radius = 1 }, { type = "cone", origin = [0, 0, 0], axis = [0, 0, 1], slope = 1, radius0 = 0.1 }]
"#;
        let s = Scene::from_toml(&format!("{BASE}{walls}"), "t").expect("parses");
        assert!(s.problems().is_empty(), "{:?}", s.problems());
        let w = s.walls[3].build(0);
        assert_eq!(w.shape.members().len(), 6);
        assert_eq!(w.surface, Surface::Absorbing);
        let again = Scene::from_toml(&s.to_toml().expect("writes"), "again").expect("re-parses");
        assert_eq!(s, again);
    }

    #[test]
    fn bad_values_and_unknown_keys_are_named() {
        let bad = format!(
            "{BASE}[[walls]]\ntype = \"cylinder\"\nmaterial = \"glass\"\norigin = [0, 0, 0]\naxis = [0, 0, 0]\nradius = -1\n"
        );
        let s = Scene::from_toml(&bad, "t").expect("parses");
        let msgs: Vec<String> = s.problems().iter().map(|e| e.to_string()).collect();
        assert!(
            msgs.iter()
                .any(|m| m.starts_with("walls[0].axis: must be a finite non-zero")),
            "{msgs:?}"
        );
        assert!(
            msgs.iter()
                .any(|m| m.starts_with("walls[0].radius: must be a finite number > 0, got -1")),
            "{msgs:?}"
        );
        let typo = format!(
            "{BASE}[[walls]]\ntype = \"disk\"\nmaterial = \"glass\"\ncenter = [0, 0, 0]\nnormal = [0, 0, 1]\nradius = 1\nradus = 2\n"
        );
        let e = Scene::from_toml(&typo, "t")
            .expect_err("refused")
            .to_string();
        assert!(e.contains("radus"), "{e}");
    }
}
