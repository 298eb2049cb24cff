//! What is wrong with a wall as written in a scene ([`WallSpec`]), each problem with its
//! field path, so that a scene is refused with every mistake named before anything is built.

use glam::DVec3;

use super::walls::{ShapeSpec, WallSpec};
use super::{finite, nonzero, positive};
use crate::rigid::FreeSpec;
use crate::walls::indent;
use crate::walls::plate::Hole;
use crate::walls::{Indentation, Motion, Side, Surface, MAX_UNION_MEMBERS};
use crate::Error;

impl WallSpec {
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
        if let Some(free) = &self.free {
            self.free_problems(free, k, p);
        }
    }

    /// Problems of wall `k` as the free body `free`: its own, and a motion or surface beside it.
    fn free_problems(&self, free: &FreeSpec, k: usize, p: &mut Vec<Error>) {
        if self.motion != Motion::Fixed {
            p.push(Error::scene(
                format!("walls[{k}].motion"),
                "a free wall is moved by its contacts: give free or a motion, not both",
            ));
        }
        if self.surface != Surface::Normal {
            p.push(Error::scene(
                format!("walls[{k}].surface"),
                "a free wall has a normal surface (sticky and absorbing walls are not free)",
            ));
        }
        let mut own = Vec::new();
        self.shape.problems("", &mut own);
        if own.is_empty() {
            for (field, reason) in free.problems(&self.shape.build()) {
                p.push(Error::scene(format!("walls[{k}].free.{field}"), reason));
            }
        }
    }
}

/// What a scene with free walls may not have, each with the free wall's field path: a method
/// other than soft spheres with velocity Verlet (the body is stepped as the grains are), 2-D
/// mode, a rotating frame or self-gravity (a body feels the uniform field and the central
/// body at its centre of mass).
pub(crate) fn free_wall_problems(scene: &super::Scene, p: &mut Vec<Error>) {
    use super::{Integrator, Method};
    let Some(k) = scene.walls.iter().position(|w| w.free.is_some()) else {
        return;
    };
    let at = format!("walls[{k}].free");
    let verlet = matches!(
        scene.simulation.method,
        Method::Soft(o) if o.integrator == Integrator::VelocityVerlet
    );
    if !verlet {
        p.push(Error::scene(
            &at,
            "free walls move with method = \"soft\" and integrator = \"velocity_verlet\" only (not \"hard\" or \"approx_hard\")",
        ));
    }
    if scene.simulation.dimensions == 2 {
        p.push(Error::scene(
            &at,
            "free walls are not available in 2-D scenes",
        ));
    }
    if scene.frame.is_some() || scene.gravity.self_gravity.is_some() {
        p.push(Error::scene(
            &at,
            "a free wall feels uniform gravity and a central body only: not with [frame] or gravity.self_gravity",
        ));
    }
}

/// Problems of a wall's motion at field path `at`.
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
    /// Everything wrong with the shape at field path `at`: one check per primitive.
    pub fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        match self {
            ShapeSpec::Plane {
                point,
                normal,
                equation,
                ..
            } => plane_problems(*point, *normal, *equation, &f, p),
            ShapeSpec::Plate {
                center,
                normal,
                u,
                half_size,
                holes,
            } => {
                plate_problems(*center, *normal, *u, *half_size, &f, p);
                holes_problems(holes, *half_size, at, p);
            }
            ShapeSpec::Disk {
                center,
                normal,
                radius,
                inner_radius,
            } => {
                finite(p, f("center"), *center);
                nonzero(p, f("normal"), *normal);
                positive(p, f("radius"), *radius);
                if !(*inner_radius >= 0.0 && inner_radius < radius) {
                    p.push(Error::scene(
                        f("inner_radius"),
                        format!("must be ≥ 0 and below radius ({radius}), got {inner_radius}"),
                    ));
                }
            }
            ShapeSpec::Ring {
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
            } => cone_problems(*origin, *axis, [*slope, *radius0], *range, &f, p),
            ShapeSpec::Block { min, max, side } => block_problems(*min, *max, *side, &f, p),
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
                hopper_problems([*height, *bottom], *radius, *slope, *tube, &f, p);
                hole_problems(centers, *radius, at, p);
            }
            ShapeSpec::Union { members } => union_problems(members, at, p),
            ShapeSpec::Mesh {
                path,
                scale,
                rotate,
                translate,
            } => {
                if path.as_os_str().is_empty() {
                    p.push(Error::scene(
                        f("path"),
                        "needs the mesh file (.stl or .obj)",
                    ));
                }
                positive(p, f("scale"), *scale);
                finite(p, f("rotate"), *rotate);
                finite(p, f("translate"), *translate);
            }
        }
    }
}

/// Problems of a plane given by `point` and `normal`, or by its `equation`, not both; `f`
/// names a field.
fn plane_problems(
    point: Option<DVec3>,
    normal: Option<DVec3>,
    equation: Option<[f64; 4]>,
    f: &impl Fn(&str) -> String,
    p: &mut Vec<Error>,
) {
    match (point, normal, equation) {
        (Some(point), Some(normal), None) => {
            finite(p, f("point"), point);
            nonzero(p, f("normal"), normal);
        }
        (None, None, Some([a, b, c, d])) => {
            nonzero(p, f("equation"), DVec3::new(a, b, c));
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
    }
}

/// Problems of a plate: its axis `u` must leave the normal's line, its half-sizes be > 0.
fn plate_problems(
    center: DVec3,
    normal: DVec3,
    u: DVec3,
    half_size: [f64; 2],
    f: &impl Fn(&str) -> String,
    p: &mut Vec<Error>,
) {
    finite(p, f("center"), center);
    nonzero(p, f("normal"), normal);
    nonzero(p, f("u"), u);
    if normal.cross(u).length_squared() <= 1e-12 * normal.length_squared() * u.length_squared() {
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

/// Problems of a plate's holes at field path `at`: each of positive radius, wholly inside the
/// rectangle of `half_size`, and apart from every other (the closest point of
/// [`crate::walls::Plate`] relies on both).
fn holes_problems(holes: &[Hole], half_size: [f64; 2], at: &str, p: &mut Vec<Error>) {
    for (n, h) in holes.iter().enumerate() {
        let f = format!("{at}.holes[{n}]");
        if !(h.radius.is_finite() && h.radius > 0.0) {
            p.push(Error::scene(
                format!("{f}.radius"),
                format!("must be a finite number > 0, got {}", h.radius),
            ));
            continue;
        }
        let inside = (0..2).all(|a| h.at[a].is_finite() && h.at[a].abs() + h.radius < half_size[a]);
        if !inside {
            p.push(Error::scene(
                format!("{f}.at"),
                format!(
                    "the hole of radius {} at {:?} must lie inside the plate (half sizes {half_size:?})",
                    h.radius, h.at
                ),
            ));
        }
        let apart = |o: &Hole| {
            let d = (h.at[0] - o.at[0]).hypot(h.at[1] - o.at[1]);
            d > h.radius + o.radius
        };
        if let Some(m) = holes[..n].iter().position(|o| !apart(o)) {
            p.push(Error::scene(
                format!("{f}.at"),
                format!("overlaps holes[{m}]; holes must be apart from each other"),
            ));
        }
    }
}

/// Problems of a cone of radius slope · z + radius0 (`line`), cut to `range`.
fn cone_problems(
    origin: DVec3,
    axis: DVec3,
    line: [f64; 2],
    range: Option<[f64; 2]>,
    f: &impl Fn(&str) -> String,
    p: &mut Vec<Error>,
) {
    finite(p, f("origin"), origin);
    nonzero(p, f("axis"), axis);
    if let Some([lo, hi]) = range {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            p.push(Error::scene(
                f("range"),
                format!("must be [lo, hi] with lo < hi, got [{lo}, {hi}]"),
            ));
        }
    }
    let [slope, radius0] = line;
    if !(slope.is_finite() && radius0.is_finite()) || (slope == 0.0 && radius0 <= 0.0) {
        p.push(Error::scene(
            f("slope"),
            format!("slope and radius0 must be finite and give a positive radius somewhere, got {slope}, {radius0}"),
        ));
    }
}

/// Problems of a block from `min` to `max`, a solid or a vat (`side`).
fn block_problems(
    min: DVec3,
    max: DVec3,
    side: Option<Side>,
    f: &impl Fn(&str) -> String,
    p: &mut Vec<Error>,
) {
    finite(p, f("min"), min);
    finite(p, f("max"), max);
    if !min.cmplt(max).all() {
        p.push(Error::scene(
            f("max"),
            format!("must exceed min on every axis, got min {min:?}, max {max:?}"),
        ));
    }
    if side == Some(Side::Both) {
        p.push(Error::scene(
            f("side"),
            "must be inside or outside for a block",
        ));
    }
}

/// Problems of a hopper's floor at height and cones cut at bottom (`heights`) of hole
/// `radius` and `slope`, with chutes of length `tube`: the cones must end above their apex.
fn hopper_problems(
    heights: [f64; 2],
    radius: f64,
    slope: f64,
    tube: f64,
    f: &impl Fn(&str) -> String,
    p: &mut Vec<Error>,
) {
    let [height, bottom] = heights;
    positive(p, f("radius"), radius);
    if !(tube.is_finite() && tube >= 0.0) {
        p.push(Error::scene(f("tube"), format!("must be ≥ 0, got {tube}")));
    } else if tube > 0.0 && radius - slope * (height - bottom) <= 0.0 {
        p.push(Error::scene(
            f("tube"),
            "needs the cones cut above their apex (a tube of radius 0)",
        ));
    }
    positive(p, f("slope"), slope);
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
}

/// Problems of a hopper's holes of `radius` at `centers`: as many as its parts allow, finite,
/// none overlapping another.
fn hole_problems(centers: &[[f64; 2]], radius: f64, at: &str, p: &mut Vec<Error>) {
    if centers.is_empty() || 2 * centers.len() + 1 > MAX_UNION_MEMBERS {
        p.push(Error::scene(
            format!("{at}.centers"),
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
                    format!("its hole overlaps hole {a}'s (centres closer than two radii)"),
                ));
            }
        }
    }
}

/// Problems of a union's `members`: as many as a wall's parts allow, none a union, an
/// indented cylinder or a hopper, and each one's own.
fn union_problems(members: &[ShapeSpec], at: &str, p: &mut Vec<Error>) {
    if members.is_empty() || members.len() > MAX_UNION_MEMBERS / 6 {
        p.push(Error::scene(
            format!("{at}.members"),
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
                | ShapeSpec::Mesh { .. }
        ) {
            p.push(Error::scene(
                format!("{at}.members[{n}]"),
                "a union cannot contain a union, an indented cylinder, a hopper or a mesh; list a union's members instead, give the others their own wall",
            ));
        }
        m.problems(&format!("{at}.members[{n}]"), p);
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
