//! Polygon meshes of the wall shapes, for output: vertices and polygons (indices into the
//! vertices) in the scene placement; infinite shapes are drawn `extent` (m) wide.

use glam::DVec3;

use super::{
    hopper, indent, plate, Block, Cone, Cylinder, Disk, HopperPart, IndentedPart, Shape, Side,
};

/// Vertices and polygons, each polygon as indices into the vertices.
pub type Mesh = (Vec<DVec3>, Vec<Vec<usize>>);

/// Points of a circle.
const N: usize = 48;

impl Shape {
    /// A polygon mesh in the scene placement; infinite shapes are drawn `extent` (m) wide.
    pub fn mesh(&self, extent: f64) -> Mesh {
        let thin = 1e-3 * extent;
        match self {
            Shape::Plane(p) => square(
                p.point,
                p.normal,
                plate::any_perpendicular(p.normal),
                [extent, extent],
            ),
            Shape::Plate(p) => plate_with_holes(p, thin),
            Shape::Disk(d) if d.inner > 0.0 => band(
                circle(d.center, d.normal, d.inner),
                circle(d.center, d.normal, d.radius),
            ),
            Shape::Disk(d) => (circle(d.center, d.normal, d.radius), vec![(0..N).collect()]),
            Shape::Cylinder(c) => {
                let h = 0.5 * c.length.unwrap_or(2.0 * extent);
                band(
                    circle(c.origin - h * c.axis, c.axis, c.radius),
                    circle(c.origin + h * c.axis, c.axis, c.radius),
                )
            }
            Shape::Ring(r) => band(
                circle(r.center, r.normal, r.radius),
                circle(r.center, r.normal, r.radius + thin),
            ),
            Shape::Point(p) => square(p.pos, DVec3::Z, DVec3::X, [thin, thin]),
            Shape::Line(l) => {
                let h = 0.5 * l.length.unwrap_or(2.0 * extent);
                let u = plate::any_perpendicular(l.axis);
                square(l.point, u, l.axis, [h, thin])
            }
            Shape::Cone(c) => cone(c, extent),
            Shape::Block(b) => block(b),
            Shape::Indented(part) => indented(part, extent),
            Shape::Hopper(part) => hopper_part(part, extent),
            Shape::Mesh(part) => part.polygons(),
            Shape::Union(members) => {
                let mut verts = Vec::new();
                let mut polys = Vec::new();
                for m in members {
                    let (v, p) = m.mesh(extent);
                    let base = verts.len();
                    verts.extend(v);
                    polys.extend(
                        p.into_iter()
                            .map(|poly| poly.into_iter().map(|k| k + base).collect()),
                    );
                }
                (verts, polys)
            }
        }
    }
}

/// [`N`] points of the circle of radius `r` about `c` in the plane of normal `n`.
fn circle(c: DVec3, n: DVec3, r: f64) -> Vec<DVec3> {
    let u = plate::any_perpendicular(n);
    let v = n.cross(u);
    (0..N)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / N as f64;
            c + r * (a.cos() * u + a.sin() * v)
        })
        .collect()
}

/// The band of quadrilaterals between two circles `a` and `b` ([`circle`]).
fn band(a: Vec<DVec3>, b: Vec<DVec3>) -> Mesh {
    let polys = (0..N)
        .map(|k| vec![k, (k + 1) % N, N + (k + 1) % N, N + k])
        .collect();
    ([a, b].concat(), polys)
}

/// The rectangle about `c` of normal `n`, axis `u` and half-sizes `half` along u and n × u.
fn square(c: DVec3, n: DVec3, u: DVec3, half: [f64; 2]) -> Mesh {
    let v = n.cross(u);
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(a, b)| c + a * half[0] * u + b * half[1] * v)
        .collect();
    (corners, vec![vec![0, 1, 2, 3]])
}

/// A plate as its rectangle, with each hole's rim drawn as a thin band (a polygon cannot hold
/// a hole).
fn plate_with_holes(p: &plate::Plate, thin: f64) -> Mesh {
    let mut mesh = square(p.center, p.normal, p.u, p.half);
    let v = p.normal.cross(p.u);
    for h in &p.holes {
        let c = p.center + h.at[0] * p.u + h.at[1] * v;
        let (verts, polys) = band(
            circle(c, p.normal, h.radius),
            circle(c, p.normal, h.radius + thin),
        );
        let base = mesh.0.len();
        mesh.0.extend(verts);
        mesh.1.extend(
            polys
                .into_iter()
                .map(|q| q.into_iter().map(|k| k + base).collect()),
        );
    }
    mesh
}

/// The cone `c` from where its radius is zero (or z = −extent) to z = extent.
fn cone(c: &Cone, extent: f64) -> Mesh {
    let z0 = if c.slope != 0.0 {
        (-c.radius0 / c.slope).clamp(-extent, extent)
    } else {
        -extent
    };
    let z1 = if c.slope < 0.0 { -extent } else { extent };
    let ring = |z: f64| {
        circle(
            c.origin + z * c.axis,
            c.axis,
            (c.slope * z + c.radius0).max(0.0),
        )
    };
    band(ring(z0), ring(z1))
}

/// The six faces of block `b`.
fn block(b: &Block) -> Mesh {
    let (lo, hi) = (b.min, b.max);
    let v = (0..8)
        .map(|k| {
            DVec3::new(
                if k & 1 == 0 { lo.x } else { hi.x },
                if k & 2 == 0 { lo.y } else { hi.y },
                if k & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect();
    let faces = vec![
        vec![0, 2, 6, 4],
        vec![1, 5, 7, 3],
        vec![0, 4, 5, 1],
        vec![2, 3, 7, 6],
        vec![0, 1, 3, 2],
        vec![4, 6, 7, 5],
    ];
    (v, faces)
}

/// A part of an indented cylinder: the mantle as a cylinder, a pocket's face as its polygon;
/// a rim is not drawn.
fn indented(part: &IndentedPart, extent: f64) -> Mesh {
    match part.part {
        indent::Part::Mantle => Shape::Cylinder(Cylinder {
            origin: DVec3::ZERO,
            axis: DVec3::Z,
            radius: part.wall.radius,
            side: Side::Inside,
            length: None,
        })
        .mesh(extent),
        indent::Part::Face { pocket, plane } => {
            let v = part.wall.face_polygon(pocket, plane);
            let poly = if v.is_empty() {
                Vec::new()
            } else {
                vec![(0..v.len()).collect()]
            };
            (v, poly)
        }
        indent::Part::Rim { .. } => (Vec::new(), Vec::new()),
    }
}

/// A part of a hopper: the floor as a disk, a cone, a chute as a cylinder; a rim is not
/// drawn.
fn hopper_part(part: &HopperPart, extent: f64) -> Mesh {
    match part.part {
        hopper::Part::Floor => {
            let h = part.hopper.height;
            Shape::Disk(Disk {
                center: DVec3::new(0.0, 0.0, h),
                normal: DVec3::Z,
                radius: extent,
                inner: 0.0,
            })
            .mesh(extent)
        }
        hopper::Part::Cone(k) => Shape::Cone(part.hopper.cones[k].clone()).mesh(extent),
        hopper::Part::Rim(_) => (Vec::new(), Vec::new()),
        hopper::Part::Tube(k) => {
            let h = &part.hopper;
            let (top, radius) = h.cut(k);
            Shape::Cylinder(Cylinder {
                origin: h.hole(k).0.extend(top - 0.5 * h.tube),
                axis: DVec3::Z,
                radius,
                side: Side::Inside,
                length: Some(h.tube),
            })
            .mesh(extent)
        }
    }
}
