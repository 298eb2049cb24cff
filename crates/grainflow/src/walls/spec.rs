//! Walls as written in a scene, checked field by field, and built into [`Wall`]s.
//!
//! ```toml
//! [[walls]]
//! type = "cylinder"          # plane, plate, disk, cylinder, ring, point, line, cone, block,
//!                            # indented_cylinder, hopper, union
//! material = "steel"
//! origin = [0, 0, 0]
//! axis = [0, 0, 1]
//! radius = 0.03
//! side = "inside"            # inside, outside, both (infinite cylinders)
//! surface = "sticky"         # normal (default), sticky, absorbing
//! motion = { type = "rotate", center = [0, 0, 0], axis = [0, 0, 1], omega = 1.8, ramp = 0.2 }
//! ```

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::indent::{self, Indented};
use super::{
    Block, Cone, Cylinder, Disk, Hopper, Indentation, Line, Motion, Plane, Plate, Point, Ring,
    Shape, Side, Surface, Wall, MAX_UNION_MEMBERS,
};
use crate::scene::{finite, nonzero, positive};
use crate::Error;

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
}

/// A wall's geometry as written in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ShapeSpec {
    /// Infinite plane: `point` and `normal` (towards the grains), or
    /// `equation = [a, b, c, d]` for a x + b y + c z + d = 0 with grains where it is positive.
    Plane {
        /// A point of the plane (m).
        #[serde(default, skip_serializing_if = "Option::is_none")]
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
        center: DVec3,
        /// Normal (normalised on load).
        normal: DVec3,
        /// In-plane axis (made perpendicular to the normal and normalised on load).
        u: DVec3,
        /// Half-sizes along u and n × u (m).
        half_size: [f64; 2],
    },
    /// Finite disk, both faces and rim.
    Disk {
        /// Centre (m).
        center: DVec3,
        /// Normal (normalised on load).
        normal: DVec3,
        /// Radius (m).
        radius: f64,
    },
    /// Cylinder: infinite (`side` inside, outside or both) or of given `length` (a thin tube).
    Cylinder {
        /// A point of the axis, the centre of a finite cylinder (m).
        origin: DVec3,
        /// Axis (normalised on load).
        axis: DVec3,
        /// Radius (m).
        radius: f64,
        /// Faces of an infinite cylinder.
        #[serde(default)]
        side: Side,
        /// Length of a finite cylinder (m).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        length: Option<f64>,
    },
    /// Circle (torus of tube radius equal to the grain's).
    Ring {
        /// Centre (m).
        center: DVec3,
        /// Normal of its plane (normalised on load).
        normal: DVec3,
        /// Radius (m).
        radius: f64,
    },
    /// Single point.
    Point {
        /// Position (m).
        pos: DVec3,
    },
    /// Line, or a segment of `length` centred on `point`.
    Line {
        /// A point of the line (m).
        point: DVec3,
        /// Direction (normalised on load).
        axis: DVec3,
        /// Length of a segment (m).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        length: Option<f64>,
    },
    /// Cone of radius = slope · z + radius0, z along `axis` from `origin`; grains inside.
    Cone {
        /// Where z = 0 on the axis (m).
        origin: DVec3,
        /// Axis (normalised on load).
        axis: DVec3,
        /// m (−).
        slope: f64,
        /// b (m).
        radius0: f64,
        /// Axial range [z_lo, z_hi] (m) the cone is cut to; whole when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        range: Option<[f64; 2]>,
    },
    /// Axis-aligned box: a solid block (`side = "outside"`, default) or a vat holding grains
    /// (`side = "inside"`: six half-space planes).
    Block {
        /// Lower corner (m).
        min: DVec3,
        /// Upper corner (m).
        max: DVec3,
        /// outside (a solid) or inside (a vat).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<Side>,
    },
    /// Cylinder of `radius` about the z axis, grains inside, with pockets cut into its wall
    /// (001 §4.7.2): each indentation's pattern placed at its rows' heights and angles.
    IndentedCylinder {
        /// Radius (m).
        radius: f64,
        /// The indentation blocks.
        indentations: Vec<Indentation>,
    },
    /// Floor at `height` with circular holes of `radius` at `centers`, each the top of an
    /// outlet cone of `slope` (radius change per unit height) along +z cut at `bottom` (001
    /// §4.8 `cone` with `number_of_cones`); grains above the floor and in the cones.
    Hopper {
        /// Height of the floor (m).
        height: f64,
        /// Centres (x, y) of the holes (m).
        centers: Vec<[f64; 2]>,
        /// Radius of the holes (m).
        radius: f64,
        /// Slope m of the cones (−).
        slope: f64,
        /// Height where the cones are cut (m).
        bottom: f64,
        /// Length of a chute tube below each cone (m); none when 0.
        #[serde(default)]
        tube: f64,
    },
    /// Several primitives forming one vessel part, with one material, surface and motion.
    Union {
        /// The primitives.
        members: Vec<ShapeSpec>,
    },
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
        }
    }

    /// Everything wrong with wall `k`, each with its field path; `materials` are the names.
    pub fn problems(&self, k: usize, materials: &[&str], p: &mut Vec<Error>) {
        let f = |name: &str| format!("walls[{k}].{name}");
        if !materials.contains(&self.material.as_str()) {
            p.push(Error::scene(
                f("material"),
                format!(
                    "no material named \"{}\" (known: {materials:?})",
                    self.material
                ),
            ));
        }
        self.shape.problems(&format!("walls[{k}]"), p);
        motion_problems(&self.motion, &f("motion"), p);
    }

    /// The wall, with `material` the index of its material.
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

fn motion_problems(m: &Motion, at: &str, p: &mut Vec<Error>) {
    let f = |name: &str| format!("{at}.{name}");
    let time = |p: &mut Vec<Error>, name: &str, v: f64| {
        if !(v.is_finite() && v >= 0.0) {
            p.push(Error::scene(f(name), format!("must be ≥ 0, got {v}")));
        }
    };
    match m {
        Motion::Fixed => {}
        Motion::Translate { velocity, start } => {
            finite(p, f("velocity"), *velocity);
            time(p, "start", *start);
        }
        Motion::Oscillate {
            amplitude,
            frequency,
            direction,
        } => {
            positive(p, f("amplitude"), *amplitude);
            positive(p, f("frequency"), *frequency);
            nonzero(p, f("direction"), *direction);
        }
        Motion::Rotate {
            center,
            axis,
            omega,
            start,
            ramp,
        } => {
            finite(p, f("center"), *center);
            nonzero(p, f("axis"), *axis);
            if !omega.is_finite() {
                p.push(Error::scene(
                    f("omega"),
                    format!("must be finite, got {omega}"),
                ));
            }
            time(p, "start", *start);
            time(p, "ramp", *ramp);
        }
        Motion::Earthquake { waves } => {
            if waves.is_empty() {
                p.push(Error::scene(f("waves"), "needs at least one wave"));
            }
            for (n, w) in waves.iter().enumerate() {
                let g = |name: &str| format!("{at}.waves[{n}].{name}");
                positive(p, g("period"), w.period);
                finite(p, g("displacement"), w.displacement);
                if !(w.start.is_finite() && w.end >= w.start) {
                    p.push(Error::scene(
                        g("end"),
                        format!("must be ≥ start ({}), got {}", w.start, w.end),
                    ));
                }
                if !(w.phase.is_finite() && w.offset.is_finite()) {
                    p.push(Error::scene(g("phase"), "phase and offset must be finite"));
                }
            }
        }
        Motion::Table {
            start,
            interval,
            displacements,
        } => {
            if !start.is_finite() {
                p.push(Error::scene(
                    f("start"),
                    format!("must be finite, got {start}"),
                ));
            }
            positive(p, f("interval"), *interval);
            if displacements.is_empty() {
                p.push(Error::scene(f("displacements"), "needs at least one row"));
            }
            if let Some(n) = displacements.iter().position(|d| !d.is_finite()) {
                p.push(Error::scene(
                    format!("{at}.displacements[{n}]"),
                    "must be finite",
                ));
            }
        }
    }
}

impl ShapeSpec {
    /// Everything wrong with the shape at field path `at`.
    pub fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        match self {
            ShapeSpec::Plane {
                point,
                normal,
                equation,
                ..
            } => match (point, normal, equation) {
                (Some(point), Some(normal), None) => {
                    finite(p, f("point"), *point);
                    nonzero(p, f("normal"), *normal);
                }
                (None, None, Some([a, b, c, d])) => {
                    nonzero(p, f("equation"), DVec3::new(*a, *b, *c));
                    if !d.is_finite() {
                        p.push(Error::scene(
                            f("equation"),
                            format!("d must be finite, got {d}"),
                        ));
                    }
                }
                _ => p.push(Error::scene(
                    f("equation"),
                    "give either point and normal, or equation = [a, b, c, d]",
                )),
            },
            ShapeSpec::Plate {
                center,
                normal,
                u,
                half_size,
            } => {
                finite(p, f("center"), *center);
                nonzero(p, f("normal"), *normal);
                nonzero(p, f("u"), *u);
                if normal.cross(*u).length_squared()
                    <= 1e-12 * normal.length_squared() * u.length_squared()
                {
                    p.push(Error::scene(
                        f("u"),
                        format!("must not be parallel to the normal, got {u:?}"),
                    ));
                }
                if !half_size.iter().all(|h| h.is_finite() && *h > 0.0) {
                    p.push(Error::scene(
                        f("half_size"),
                        format!("must be > 0, got {half_size:?}"),
                    ));
                }
            }
            ShapeSpec::Disk {
                center,
                normal,
                radius,
            }
            | ShapeSpec::Ring {
                center,
                normal,
                radius,
            } => {
                finite(p, f("center"), *center);
                nonzero(p, f("normal"), *normal);
                positive(p, f("radius"), *radius);
            }
            ShapeSpec::Cylinder {
                origin,
                axis,
                radius,
                length,
                ..
            } => {
                finite(p, f("origin"), *origin);
                nonzero(p, f("axis"), *axis);
                positive(p, f("radius"), *radius);
                if let Some(l) = length {
                    positive(p, f("length"), *l);
                }
            }
            ShapeSpec::Point { pos } => finite(p, f("pos"), *pos),
            ShapeSpec::Line {
                point,
                axis,
                length,
            } => {
                finite(p, f("point"), *point);
                nonzero(p, f("axis"), *axis);
                if let Some(l) = length {
                    positive(p, f("length"), *l);
                }
            }
            ShapeSpec::Cone {
                origin,
                axis,
                slope,
                radius0,
                range,
            } => {
                finite(p, f("origin"), *origin);
                nonzero(p, f("axis"), *axis);
                if let Some([lo, hi]) = range {
                    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                        p.push(Error::scene(
                            f("range"),
                            format!("must be [lo, hi] with lo < hi, got [{lo}, {hi}]"),
                        ));
                    }
                }
                if !(slope.is_finite() && radius0.is_finite()) || (*slope == 0.0 && *radius0 <= 0.0)
                {
                    p.push(Error::scene(
                        f("slope"),
                        format!("slope and radius0 must be finite and give a positive radius somewhere, got {slope}, {radius0}"),
                    ));
                }
            }
            ShapeSpec::Block { min, max, side } => {
                finite(p, f("min"), *min);
                finite(p, f("max"), *max);
                if !min.cmplt(*max).all() {
                    p.push(Error::scene(
                        f("max"),
                        format!("must exceed min on every axis, got min {min:?}, max {max:?}"),
                    ));
                }
                if *side == Some(Side::Both) {
                    p.push(Error::scene(
                        f("side"),
                        "must be inside or outside for a block",
                    ));
                }
            }
            ShapeSpec::IndentedCylinder {
                radius,
                indentations,
            } => indentation_problems(*radius, indentations, at, p),
            ShapeSpec::Hopper {
                height,
                centers,
                radius,
                slope,
                bottom,
                tube,
            } => {
                positive(p, f("radius"), *radius);
                if !(tube.is_finite() && *tube >= 0.0) {
                    p.push(Error::scene(f("tube"), format!("must be ≥ 0, got {tube}")));
                } else if *tube > 0.0 && radius - slope * (height - bottom) <= 0.0 {
                    p.push(Error::scene(
                        f("tube"),
                        "needs the cones cut above their apex (a tube of radius 0)",
                    ));
                }
                positive(p, f("slope"), *slope);
                if !(height.is_finite() && bottom.is_finite() && bottom < height) {
                    p.push(Error::scene(
                        f("bottom"),
                        format!("must lie below height ({height}), got {bottom}"),
                    ));
                } else if radius - slope * (height - bottom) < 0.0 {
                    p.push(Error::scene(
                        f("bottom"),
                        format!("lies below the cones' apex at {}", height - radius / slope),
                    ));
                }
                if centers.is_empty() || 2 * centers.len() + 1 > MAX_UNION_MEMBERS {
                    p.push(Error::scene(
                        f("centers"),
                        format!(
                            "needs 1 to {} holes, got {}",
                            MAX_UNION_MEMBERS / 2 - 1,
                            centers.len()
                        ),
                    ));
                }
                for (a, c) in centers.iter().enumerate() {
                    if !(c[0].is_finite() && c[1].is_finite()) {
                        p.push(Error::scene(format!("{at}.centers[{a}]"), "must be finite"));
                    }
                    for (b, d) in centers.iter().enumerate().skip(a + 1) {
                        if (c[0] - d[0]).hypot(c[1] - d[1]) < 2.0 * radius * (1.0 - 1e-12) {
                            p.push(Error::scene(
                                format!("{at}.centers[{b}]"),
                                format!(
                                    "its hole overlaps hole {a}'s (centres closer than two radii)"
                                ),
                            ));
                        }
                    }
                }
            }
            ShapeSpec::Union { members } => {
                if members.is_empty() || members.len() > MAX_UNION_MEMBERS / 6 {
                    p.push(Error::scene(
                        f("members"),
                        format!(
                            "needs 1 to {} members, got {}",
                            MAX_UNION_MEMBERS / 6,
                            members.len()
                        ),
                    ));
                }
                for (n, m) in members.iter().enumerate() {
                    if matches!(
                        m,
                        ShapeSpec::Union { .. }
                            | ShapeSpec::IndentedCylinder { .. }
                            | ShapeSpec::Hopper { .. }
                    ) {
                        p.push(Error::scene(
                            format!("{at}.members[{n}]"),
                            "a union cannot contain a union, an indented cylinder or a hopper; list a union's members instead, give the others their own wall",
                        ));
                    }
                    m.problems(&format!("{at}.members[{n}]"), p);
                }
            }
        }
    }

    /// The shape with unit directions (the spec must have no problems).
    pub fn build(&self) -> Shape {
        match self {
            ShapeSpec::Plane {
                point,
                normal,
                equation,
                both,
            } => {
                let mut plane = match equation {
                    Some([a, b, c, d]) => Plane::from_equation(DVec3::new(*a, *b, *c), *d),
                    None => Plane {
                        point: point.unwrap_or_default(),
                        normal: normal.unwrap_or(DVec3::Z).normalize(),
                        both: false,
                    },
                };
                plane.both = *both;
                Shape::Plane(plane)
            }
            ShapeSpec::Plate {
                center,
                normal,
                u,
                half_size,
            } => {
                let n = normal.normalize();
                Shape::Plate(Plate {
                    center: *center,
                    normal: n,
                    u: (*u - u.dot(n) * n).normalize(),
                    half: *half_size,
                })
            }
            ShapeSpec::Disk {
                center,
                normal,
                radius,
            } => Shape::Disk(Disk {
                center: *center,
                normal: normal.normalize(),
                radius: *radius,
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
            ShapeSpec::Block { min, max, side } => {
                let block = Block {
                    min: *min,
                    max: *max,
                };
                if *side == Some(Side::Inside) {
                    Shape::Union(block.inner_planes().into_iter().map(Shape::Plane).collect())
                } else {
                    Shape::Block(block)
                }
            }
            ShapeSpec::IndentedCylinder {
                radius,
                indentations,
            } => Shape::Union(
                Indented::new(
                    *radius,
                    indent::distinct(indentations.iter().flat_map(Indentation::pockets).collect()),
                )
                .parts()
                .into_iter()
                .map(Shape::Indented)
                .collect(),
            ),
            ShapeSpec::Hopper {
                height,
                centers,
                radius,
                slope,
                bottom,
                tube,
            } => Shape::Union(
                Hopper {
                    height: *height,
                    cones: centers
                        .iter()
                        .map(|c| Cone {
                            origin: DVec3::new(c[0], c[1], *height),
                            axis: DVec3::Z,
                            slope: *slope,
                            radius0: *radius,
                            range: Some([bottom - height, 0.0]),
                        })
                        .collect(),
                    tube: *tube,
                }
                .parts()
                .into_iter()
                .map(Shape::Hopper)
                .collect(),
            ),
            ShapeSpec::Union { members } => Shape::Union(
                members
                    .iter()
                    .flat_map(|m| m.build().members().to_vec())
                    .collect(),
            ),
        }
    }
}

/// Problems of an indented cylinder at `at`: its numbers, then each pocket closed, non-empty
/// and reaching past the cylinder, then the number of parts.
fn indentation_problems(radius: f64, blocks: &[Indentation], at: &str, p: &mut Vec<Error>) {
    positive(p, format!("{at}.radius"), radius);
    if blocks.is_empty() {
        p.push(Error::scene(
            format!("{at}.indentations"),
            "needs at least one indentation",
        ));
    }
    let before = p.len();
    for (n, b) in blocks.iter().enumerate() {
        let f = |name: &str| format!("{at}.indentations[{n}].{name}");
        if b.pattern.is_empty() {
            p.push(Error::scene(f("pattern"), "needs at least one plane"));
        }
        for (j, &[a, bb, c, d]) in b.pattern.iter().enumerate() {
            nonzero(p, f(&format!("pattern[{j}]")), DVec3::new(a, bb, c));
            if !d.is_finite() {
                p.push(Error::scene(
                    f(&format!("pattern[{j}]")),
                    format!("d must be finite, got {d}"),
                ));
            }
        }
        let [lo, hi] = b.min_max;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            p.push(Error::scene(
                f("min_max"),
                format!("must be [minimum, maximum] with minimum < maximum, got [{lo}, {hi}]"),
            ));
        }
        if b.rows.is_empty() {
            p.push(Error::scene(f("rows"), "needs at least one row"));
        }
        let mut below = lo;
        for (i, row) in b.rows.iter().enumerate() {
            if !(row.min >= below && row.min < hi) {
                p.push(Error::scene(
                    f(&format!("rows[{i}].min")),
                    format!(
                        "must lie in [{below}, {hi}) (rows go up, inside min_max), got {}",
                        row.min
                    ),
                ));
            }
            below = row.min.max(below);
            if row.angles.is_empty() || !row.angles.iter().all(|a| a.is_finite()) {
                p.push(Error::scene(
                    f(&format!("rows[{i}].angles")),
                    format!("needs at least one finite angle, got {:?}", row.angles),
                ));
            }
        }
    }
    if p.len() > before || !radius.is_finite() {
        return;
    }
    let mut parts = 1;
    for (n, b) in blocks.iter().enumerate() {
        let pockets = b.pockets();
        let placed = b
            .rows
            .iter()
            .enumerate()
            .flat_map(|(i, row)| row.angles.iter().map(move |a| (i, a)));
        for ((i, angle), pocket) in placed.zip(&pockets) {
            parts += 2 * pocket.len();
            let problem = if !indent::bounded(pocket) {
                "the pattern's planes do not close the pocket (it would be open to infinity)"
            } else {
                let v = indent::vertices(pocket);
                if v.is_empty() {
                    "the pattern's planes leave no room between them in this row"
                } else if v.iter().all(|x| x.truncate().length() <= radius) {
                    "the pocket lies inside the cylinder: it cuts nothing out of the wall"
                } else {
                    continue;
                }
            };
            p.push(Error::scene(
                format!("{at}.indentations[{n}].rows[{i}].angles"),
                format!("pocket at {angle}°: {problem}"),
            ));
        }
    }
    if parts > MAX_UNION_MEMBERS {
        p.push(Error::scene(
            format!("{at}.indentations"),
            format!("the pockets make {parts} wall parts (the mantle, and a face and a rim per plane of each pocket, with the row's two band planes); at most {MAX_UNION_MEMBERS}"),
        ));
    }
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
