//! `wall-contacts`: every wall primitive against an independent closest-point computation,
//! a sphere resting on each face, and a moving wall's velocity in the contact law.
//!
//! 1. **Geometry.** For each primitive (000 §2.2, 001 §3.4) at many random sphere positions
//!    (ChaCha8, seed 3), the overlap and normal returned by the wall agree with a closest point
//!    found independently: Gauss–Newton minimisation of |S(u, v) − x|² over a parametrisation
//!    S of each face (bounded parameters clamped), started from the best point of a grid. The
//!    tolerance is 1e-12 relative to the sphere radius for the overlap and 1e-12 for the unit
//!    normal; positions within 1e-9 r of just touching are skipped (either answer is right),
//!    and so are centres within r/100 of the surface, where the normal is ill-conditioned, and
//!    overlaps above 2 r (deeper than any run allows, `max_overlap` ≤ 1).
//! 2. **Resting.** A sphere of 002 Table 1 (r = 0.5 m, m = 1 kg, E = 0.5 MPa, ν = 0.3, Hertz,
//!    e = 0.2) is released touching each face with gravity 9.81 m/s² pressing it into the face;
//!    at rest its overlap is the Hertz static overlap δ = (m g / k_n)^{2/3}, k_n = 4/3 Ē √r
//!    (002 eq A6, walls have infinite radius), to 1e-6 relative; on an indented cylinder (001
//!    §4.7.2) it rests on the mantle, on a pocket's floor and on the rim of the pocket's mouth.
//! 3. **Moving wall.** The same sphere at rest on a floor sliding at V = 0.1 m/s (μ = 0.3, no
//!    rolling friction) is dragged until it rolls without slipping: v = 2/7 V (impulse balance
//!    m v = J, (2/5) m r ω = J r, v + ω r = V), to 1e-3 relative.

use std::path::Path;

use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::Metric;
use grainflow::contact::normal::hertz_stiffness;
use grainflow::contact::{ContactModel, Tangential};
use grainflow::gravity::Gravity;
use grainflow::material::{effective_modulus, Material};
use grainflow::particles::Mobility;
use grainflow::scene::{
    Indentation, ListSource, Motion, OutputSpec, ParticleSource, Scene, ShapeSpec, Side,
    SimulationSpec, SphereSpec, Surface, TimeStep, WallSpec,
};
use grainflow::sim::Simulation;
use grainflow::walls::indent::Row;
use grainflow::walls::{plate::any_perpendicular, Shape};
use grainflow::Result;

const CASE: &str = "wall-contacts";
/// Sphere radius (m) of every check.
const R: f64 = 0.5;

/// One face of a primitive over [lo, hi]: S(θ), its first derivatives ∂S/∂θ₀, ∂S/∂θ₁ and
/// second derivatives ∂²S/∂θ₀², ∂²S/∂θ₀∂θ₁, ∂²S/∂θ₁². A periodic parameter (an angle over
/// [lo, hi] = one turn) is searched over one turn and never clamped.
struct Patch {
    lo: [f64; 2],
    hi: [f64; 2],
    periodic: [bool; 2],
    s: Box<dyn Fn([f64; 2]) -> [DVec3; 6]>,
}

/// Nearest point of the patches to `x` by grid search then clamped Newton iteration on
/// |S(θ) − x|² (Gauss–Newton where the Hessian is not positive definite).
fn nearest(patches: &[Patch], x: DVec3) -> DVec3 {
    let mut best = (f64::INFINITY, DVec3::ZERO);
    for p in patches {
        // Newton from the 8 best grid points: a start on a singular edge (a disk's centre, a
        // cone's apex, where every angle is the same point) may stall; another will not.
        let n = 40;
        let mut starts: Vec<(f64, [f64; 2])> = Vec::with_capacity((n + 1) * (n + 1));
        for i in 0..=n {
            for j in 0..=n {
                let t = [
                    p.lo[0] + (p.hi[0] - p.lo[0]) * i as f64 / n as f64,
                    p.lo[1] + (p.hi[1] - p.lo[1]) * j as f64 / n as f64,
                ];
                starts.push((((p.s)(t)[0] - x).length_squared(), t));
            }
        }
        starts.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Distinct points only: a singular edge repeats one point for every angle.
        starts.dedup_by(|a, b| ((p.s)(a.1)[0] - (p.s)(b.1)[0]).length_squared() < 1e-24);
        for &(_, start) in starts.iter().take(8) {
            let s = newton(p, x, start);
            let d = (s - x).length_squared();
            if d < best.0 {
                best = (d, s);
            }
        }
    }
    best.1
}

/// Clamped Newton iteration on |S(θ) − x|² from `theta`; returns the point reached.
fn newton(p: &Patch, x: DVec3, mut theta: [f64; 2]) -> DVec3 {
    for _ in 0..400 {
        let [s, a, b, saa, sab, sbb] = (p.s)(theta);
        let r = s - x;
        let (mut aa, mut ab, mut bb) = (a.dot(a), a.dot(b), b.dot(b));
        let (na, nab, nb) = (aa + r.dot(saa), ab + r.dot(sab), bb + r.dot(sbb));
        if na > 0.0 && na * nb - nab * nab > 0.0 {
            (aa, ab, bb) = (na, nab, nb);
        }
        let (ga, gb) = (a.dot(r), b.dot(r));
        let reg = 1e-30 * (aa + bb + 1.0);
        let (aa, bb) = (aa + reg, bb + reg);
        let det = aa * bb - ab * ab;
        let step = [-(bb * ga - ab * gb) / det, -(aa * gb - ab * ga) / det];
        let next: [f64; 2] = std::array::from_fn(|i| {
            if p.periodic[i] {
                theta[i] + step[i]
            } else {
                (theta[i] + step[i]).clamp(p.lo[i], p.hi[i])
            }
        });
        if next == theta || !next[0].is_finite() || !next[1].is_finite() {
            break;
        }
        theta = next;
    }
    (p.s)(theta)[0]
}

/// Orthonormal e1, e2 across the unit vector `n`.
fn across(n: DVec3) -> (DVec3, DVec3) {
    let u = any_perpendicular(n);
    (u, n.cross(u))
}

/// A circle of radius ρ(θ₁) at axial height θ₁ (parameters: angle, height).
fn surface_of_revolution(
    o: DVec3,
    a: DVec3,
    rho: impl Fn(f64) -> (f64, f64) + 'static,
    z: [f64; 2],
) -> Patch {
    let (e1, e2) = across(a);
    Patch {
        lo: [-std::f64::consts::PI, z[0]],
        hi: [std::f64::consts::PI, z[1]],
        periodic: [true, false],
        s: Box::new(move |[phi, h]| {
            let (r, dr) = rho(h);
            let radial = phi.cos() * e1 + phi.sin() * e2;
            let tangent = -phi.sin() * e1 + phi.cos() * e2;
            [
                o + h * a + r * radial,
                r * tangent,
                a + dr * radial,
                -r * radial,
                dr * tangent,
                DVec3::ZERO,
            ]
        }),
    }
}

/// A flat parallelogram c + θ₀ u + θ₁ v.
fn flat(c: DVec3, u: DVec3, v: DVec3, lo: [f64; 2], hi: [f64; 2]) -> Patch {
    Patch {
        lo,
        hi,
        periodic: [false; 2],
        s: Box::new(move |[a, b]| {
            [
                c + a * u + b * v,
                u,
                v,
                DVec3::ZERO,
                DVec3::ZERO,
                DVec3::ZERO,
            ]
        }),
    }
}

/// The primitives under test: name, shape, independent faces, and whether a point is on the
/// solid side (a half-space or solid's interior).
type Solid = Box<dyn Fn(DVec3) -> bool>;

/// The flat ring of radii `rho` about `c` in the plane of `e1`, `e2`, by polar parameters
/// (radius, angle), with its first and second derivatives.
fn polar(c: DVec3, e1: DVec3, e2: DVec3, rho: [f64; 2]) -> Patch {
    Patch {
        lo: [rho[0], -std::f64::consts::PI],
        hi: [rho[1], std::f64::consts::PI],
        periodic: [false, true],
        s: Box::new(move |[rho, phi]| {
            let radial = phi.cos() * e1 + phi.sin() * e2;
            let tangent = -phi.sin() * e1 + phi.cos() * e2;
            [
                c + rho * radial,
                radial,
                rho * tangent,
                DVec3::ZERO,
                tangent,
                -rho * radial,
            ]
        }),
    }
}

fn primitives() -> Vec<(&'static str, Shape, Vec<Patch>, Solid)> {
    use grainflow::walls::*;
    let big = 50.0;
    let n = DVec3::new(0.3, -0.2, 0.9).normalize();
    let c = DVec3::new(0.1, 0.2, -0.3);
    let (e1, e2) = across(n);
    let plane = Plane {
        point: c,
        normal: n,
        both: false,
    };
    let eq = Plane::from_equation(DVec3::new(1.0, 2.0, -2.0), 0.7);
    let eq_point = eq.point;
    let eq_n = eq.normal;
    let (q1, q2) = across(eq_n);
    let never: fn(DVec3) -> bool = |_| false;
    vec![
        (
            "plane",
            Shape::Plane(plane.clone()),
            vec![flat(c, e1, e2, [-big; 2], [big; 2])],
            Box::new(move |x: DVec3| (x - c).dot(n) < 0.0),
        ),
        (
            "plane-sheet",
            Shape::Plane(Plane {
                both: true,
                ..plane
            }),
            vec![flat(c, e1, e2, [-big; 2], [big; 2])],
            Box::new(never),
        ),
        (
            "plane-equation",
            Shape::Plane(eq),
            // Independent: the plane x + 2y − 2z + 0.7 = 0 through its own point and axes.
            vec![flat(eq_point, q1, q2, [-big; 2], [big; 2])],
            Box::new(|x: DVec3| x.x + 2.0 * x.y - 2.0 * x.z + 0.7 < 0.0),
        ),
        (
            "plate",
            Shape::Plate(Plate {
                center: c,
                normal: n,
                u: e1,
                half: [1.0, 0.6],
                holes: Vec::new(),
            }),
            vec![flat(c, e1, e2, [-1.0, -0.6], [1.0, 0.6])],
            Box::new(never),
        ),
        (
            "disk",
            Shape::Disk(Disk {
                center: c,
                normal: n,
                radius: 1.2,
                inner: 0.0,
            }),
            // Polar parameters (radius, angle): the rim is the clamped radius.
            vec![polar(c, e1, e2, [0.0, 1.2])],
            Box::new(never),
        ),
        (
            "annulus",
            Shape::Disk(Disk {
                center: c,
                normal: n,
                radius: 1.2,
                inner: 0.5,
            }),
            // Both rims are the clamped radius.
            vec![polar(c, e1, e2, [0.5, 1.2])],
            Box::new(never),
        ),
        (
            "cylinder-inside",
            Shape::Cylinder(Cylinder {
                origin: c,
                axis: n,
                radius: 2.0,
                side: Side::Inside,
                length: None,
            }),
            vec![surface_of_revolution(c, n, |_| (2.0, 0.0), [-big, big])],
            Box::new(move |x: DVec3| {
                let d = x - c;
                (d - d.dot(n) * n).length() > 2.0
            }),
        ),
        (
            "cylinder-outside",
            Shape::Cylinder(Cylinder {
                origin: c,
                axis: n,
                radius: 1.0,
                side: Side::Outside,
                length: None,
            }),
            vec![surface_of_revolution(c, n, |_| (1.0, 0.0), [-big, big])],
            Box::new(move |x: DVec3| {
                let d = x - c;
                (d - d.dot(n) * n).length() < 1.0
            }),
        ),
        (
            "cylinder-shell",
            Shape::Cylinder(Cylinder {
                origin: c,
                axis: n,
                radius: 1.5,
                side: Side::Both,
                length: None,
            }),
            vec![surface_of_revolution(c, n, |_| (1.5, 0.0), [-big, big])],
            Box::new(never),
        ),
        (
            "cylinder-finite",
            Shape::Cylinder(Cylinder {
                origin: c,
                axis: n,
                radius: 1.5,
                side: Side::Both,
                length: Some(2.0),
            }),
            vec![surface_of_revolution(c, n, |_| (1.5, 0.0), [-1.0, 1.0])],
            Box::new(never),
        ),
        (
            "ring",
            Shape::Ring(Ring {
                center: c,
                normal: n,
                radius: 1.5,
            }),
            vec![surface_of_revolution(c, n, |_| (1.5, 0.0), [0.0, 0.0])],
            Box::new(never),
        ),
        (
            "point",
            Shape::Point(Point { pos: c }),
            vec![flat(c, e1, e2, [0.0; 2], [0.0; 2])],
            Box::new(never),
        ),
        (
            "line",
            Shape::Line(Line {
                point: c,
                axis: n,
                length: None,
            }),
            vec![flat(c, n, e1, [-big, 0.0], [big, 0.0])],
            Box::new(never),
        ),
        (
            "segment",
            Shape::Line(Line {
                point: c,
                axis: n,
                length: Some(1.5),
            }),
            vec![flat(c, n, e1, [-0.75, 0.0], [0.75, 0.0])],
            Box::new(never),
        ),
        (
            "cone",
            Shape::Cone(Cone {
                origin: c,
                axis: n,
                slope: 0.6,
                radius0: 1.0,
                range: None,
            }),
            // radius = 0.6 z + 1 from the apex z = −5/3 up to z = 8 (test points reach z ≈ 4):
            // the grid must be fine enough that Newton does not start on the apex, where
            // every angle gives the same point.
            vec![surface_of_revolution(
                c,
                n,
                |z| (0.6 * z + 1.0, 0.6),
                [-1.0 / 0.6, 8.0],
            )],
            Box::new(move |x: DVec3| {
                let d = x - c;
                let z = d.dot(n);
                (d - z * n).length() > 0.6 * z + 1.0
            }),
        ),
        (
            "block",
            Shape::Block(Block {
                min: DVec3::new(-1.0, -0.5, 0.0),
                max: DVec3::new(1.0, 0.5, 0.8),
            }),
            {
                let (lo, hi) = (DVec3::new(-1.0, -0.5, 0.0), DVec3::new(1.0, 0.5, 0.8));
                let size = hi - lo;
                vec![
                    flat(lo, DVec3::Y, DVec3::Z, [0.0; 2], [size.y, size.z]),
                    flat(hi, DVec3::Y, DVec3::Z, [-size.y, -size.z], [0.0; 2]),
                    flat(lo, DVec3::X, DVec3::Z, [0.0; 2], [size.x, size.z]),
                    flat(hi, DVec3::X, DVec3::Z, [-size.x, -size.z], [0.0; 2]),
                    flat(lo, DVec3::X, DVec3::Y, [0.0; 2], [size.x, size.y]),
                    flat(hi, DVec3::X, DVec3::Y, [-size.x, -size.y], [0.0; 2]),
                ]
            },
            Box::new(|x: DVec3| {
                x.cmpge(DVec3::new(-1.0, -0.5, 0.0)).all()
                    && x.cmple(DVec3::new(1.0, 0.5, 0.8)).all()
            }),
        ),
    ]
}

/// Largest overlap and normal errors of `shape` over `count` random positions near it.
fn geometry_errors(
    shape: &Shape,
    patches: &[Patch],
    solid: &Solid,
    rng: &mut ChaCha8Rng,
    count: usize,
) -> (f64, f64, usize) {
    let (mut e_overlap, mut e_normal, mut disagree) = (0.0f64, 0.0f64, 0);
    let mut tested = 0;
    while tested < count {
        // A random point of a face, moved off it by up to 1.4 r along a random direction.
        let p = &patches[rng.random_range(0..patches.len())];
        let t = [
            rng.random_range(p.lo[0].max(-3.0)..=p.hi[0].min(3.0)),
            rng.random_range(p.lo[1].max(-3.0)..=p.hi[1].min(3.0)),
        ];
        let dir = DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if dir.length_squared() > 1.0 || dir.length_squared() < 1e-4 {
            continue;
        }
        let x = (p.s)(t)[0] + dir.normalize() * rng.random_range(0.0..1.4 * R);
        let s = nearest(patches, x);
        let d = s - x;
        let dist = d.length();
        let inside_solid = solid(x);
        let (overlap, normal) = if inside_solid {
            (R + dist, -d / dist)
        } else {
            (R - dist, d / dist)
        };
        if overlap.abs() < 1e-9 * R || dist < 1e-2 * R || overlap > 2.0 * R {
            continue;
        }
        tested += 1;
        match (shape.contact(x, R), overlap > 0.0) {
            (Some(c), true) => {
                e_overlap = e_overlap.max((c.overlap - overlap).abs() / R);
                e_normal = e_normal.max((c.normal - normal).length());
            }
            (None, false) => {}
            _ => disagree += 1,
        }
    }
    (e_overlap, e_normal, disagree)
}

/// Table 1 material with restitution `e` and sliding friction `mu`.
fn body(e: f64, mu: f64) -> Material {
    Material {
        name: "body".into(),
        density: Some(1.0 / (4.0 / 3.0 * std::f64::consts::PI * R.powi(3))),
        youngs_modulus: 0.5e6,
        poisson_ratio: 0.3,
        restitution: e,
        sliding_friction: mu,
        rolling_friction: 0.0,
        twisting_friction: 0.0,
        cohesion: 0.0,
        core: None,
        tangential_restitution: 1.0,
    }
}

/// One sphere at `pos` with `vel`, a wall, gravity `g`; Hertz, tangential spring when `mu` > 0.
fn one_sphere(wall: WallSpec, pos: DVec3, g: DVec3, e: f64, mu: f64) -> Result<Simulation> {
    let scene = Scene {
        frame: None,
        boundary: Default::default(),
        simulation: SimulationSpec {
            skin: Some(grainflow::scene::Skin::Fixed(0.05)),
            ..SimulationSpec::new(1.0, TimeStep::Fixed(1e-5))
        },
        contact: ContactModel {
            tangential: if mu > 0.0 {
                Tangential::Spring
            } else {
                Tangential::None
            },
            ..ContactModel::hertz()
        },
        materials: vec![body(e, mu)],
        pairs: vec![],
        gravity: Gravity {
            uniform: Some(g),
            ..Default::default()
        },
        walls: vec![wall],
        particles: vec![ParticleSource::List(ListSource {
            material: "body".into(),
            spheres: vec![SphereSpec {
                pos,
                radius: R,
                vel: DVec3::ZERO,
                omega: DVec3::ZERO,
                mobility: Mobility::Free,
            }],
        })],
        output: OutputSpec::default(),
        recirculation: None,
        inserts: Vec::new(),
    };
    Simulation::new(scene, Path::new("."))
}

fn wall(shape: ShapeSpec) -> WallSpec {
    WallSpec {
        material: "body".into(),
        shape,
        surface: Surface::Normal,
        motion: Motion::Fixed,
        free: None,
    }
}

/// Faces to rest on: name, wall, point of the face, unit normal towards the grain there.
fn resting_faces() -> Vec<(&'static str, WallSpec, DVec3, DVec3)> {
    let o = DVec3::ZERO;
    let z = DVec3::Z;
    let cyl = |side, length, radius| ShapeSpec::Cylinder {
        origin: o,
        axis: DVec3::X,
        radius,
        side,
        length,
    };
    vec![
        ("plane", WallSpec::plane("body", o, z), o, z),
        (
            "plane-sheet-underside",
            wall(ShapeSpec::Plane {
                point: Some(o),
                normal: Some(z),
                equation: None,
                both: true,
            }),
            o,
            -z,
        ),
        (
            "plane-equation",
            wall(ShapeSpec::Plane {
                point: None,
                normal: None,
                equation: Some([0.0, 0.0, 2.0, -1.0]),
                both: false,
            }),
            DVec3::new(0.0, 0.0, 0.5),
            z,
        ),
        (
            "plate",
            wall(ShapeSpec::Plate {
                center: o,
                normal: z,
                u: DVec3::X,
                half_size: [2.0, 1.0],
                holes: Vec::new(),
            }),
            o,
            z,
        ),
        (
            "disk",
            wall(ShapeSpec::Disk {
                center: o,
                normal: z,
                radius: 2.0,
                inner_radius: 0.0,
            }),
            o,
            z,
        ),
        (
            "cylinder-inside",
            wall(cyl(Side::Inside, None, 3.0)),
            DVec3::new(0.0, 0.0, -3.0),
            z,
        ),
        (
            "cylinder-outside",
            wall(cyl(Side::Outside, None, 3.0)),
            DVec3::new(0.0, 0.0, 3.0),
            z,
        ),
        (
            "cylinder-finite",
            wall(cyl(Side::Both, Some(4.0), 3.0)),
            DVec3::new(0.0, 0.0, -3.0),
            z,
        ),
        (
            "ring",
            wall(ShapeSpec::Ring {
                center: o,
                normal: DVec3::Y,
                radius: 3.0,
            }),
            DVec3::new(0.0, 0.0, 3.0),
            z,
        ),
        ("point", wall(ShapeSpec::Point { pos: o }), o, z),
        (
            "line",
            wall(ShapeSpec::Line {
                point: o,
                axis: DVec3::X,
                length: None,
            }),
            o,
            z,
        ),
        (
            "cone",
            // radius = x + 1 about x̂: the generator through (x, 0, −(x + 1)) tilts at 45°;
            // its inward normal is (1, 0, 1)/√2, and gravity against it presses the sphere on.
            wall(ShapeSpec::Cone {
                origin: o,
                axis: DVec3::X,
                slope: 1.0,
                radius0: 1.0,
                range: None,
            }),
            DVec3::new(3.0, 0.0, -4.0),
            DVec3::new(1.0, 0.0, 1.0).normalize(),
        ),
        (
            "block",
            wall(ShapeSpec::Block {
                min: DVec3::splat(-1.0),
                max: DVec3::ZERO,
                side: None,
            }),
            DVec3::new(-0.5, -0.5, 0.0),
            z,
        ),
        (
            "block-inside",
            wall(ShapeSpec::Block {
                min: DVec3::splat(-2.0),
                max: DVec3::splat(2.0),
                side: Some(Side::Inside),
            }),
            DVec3::new(0.0, 0.0, -2.0),
            z,
        ),
        (
            "indented-mantle",
            indented(),
            DVec3::new(3.0, 0.0, 0.0),
            -DVec3::X,
        ),
        (
            "indented-pocket-floor",
            indented(),
            DVec3::new(4.0, 0.0, 1.0),
            z,
        ),
        (
            // The mouth's lower edge, pressed on along the bisector of the mantle and the
            // pocket's floor.
            "indented-rim",
            indented(),
            DVec3::new(3.0, 0.0, 1.0),
            DVec3::new(-1.0, 0.0, 1.0).normalize(),
        ),
    ]
}

/// A cylinder of radius 3 m about z with one pocket (001 §4.7.2): x ∈ [2, 5], |y| ≤ 1.5,
/// z ∈ [1, 3].
fn indented() -> WallSpec {
    wall(ShapeSpec::IndentedCylinder {
        radius: 3.0,
        indentations: vec![Indentation {
            pattern: vec![
                [1.0, 0.0, 0.0, -2.0],
                [-1.0, 0.0, 0.0, 5.0],
                [0.0, 1.0, 0.0, 1.5],
                [0.0, -1.0, 0.0, 1.5],
                [0.0, 0.0, 1.0, 0.0],
                [0.0, 0.0, -1.0, 2.0],
            ],
            min_max: [1.0, 10.0],
            rows: vec![Row {
                min: 1.0,
                angles: vec![0.0],
            }],
        }],
    })
}

/// Runs the case (the same in quick and full form).
pub fn wall_contacts(full: bool) -> Result<Vec<Metric>> {
    let mut out = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let count = if full { 20_000 } else { 500 };
    for (name, shape, patches, solid) in primitives() {
        let (eo, en, bad) = geometry_errors(&shape, &patches, &solid, &mut rng, count);
        out.push(Metric::new(CASE, name, "overlap error / r", eo, 0.0, 1e-12));
        out.push(Metric::new(CASE, name, "normal error", en, 0.0, 1e-12));
        out.push(Metric::new(
            CASE,
            name,
            "touch disagreements",
            bad as f64,
            0.0,
            0.0,
        ));
    }
    // Resting: Hertz δ = (m g / k_n)^{2/3} with m = 1 kg, R_eff = r.
    let g = 9.81;
    let m = body(0.2, 0.0);
    let k_n = hertz_stiffness(effective_modulus(&m, &m), R);
    let expected = (g / k_n).powf(2.0 / 3.0);
    for (name, spec, point, normal) in resting_faces() {
        let mut sim = one_sphere(spec, point + normal * R, -g * normal, 0.2, 0.0)?;
        sim.run_until(1.5, |_| Ok(()))?;
        let x = sim.world.particles.pos[0];
        let w = &sim.world.walls[0];
        let overlap = w.contact(x, R).map_or(0.0, |c| c.overlap);
        out.push(Metric::new(
            CASE,
            name,
            "resting overlap / Hertz δ",
            overlap / expected,
            1.0,
            1e-6,
        ));
    }
    // Moving floor: rolling without slip at 2/7 of the floor's speed.
    let v_wall = 0.1;
    let mut floor = WallSpec::plane("body", DVec3::ZERO, DVec3::Z);
    floor.motion = Motion::Translate {
        velocity: DVec3::new(v_wall, 0.0, 0.0),
        start: 0.0,
    };
    let mut sim = one_sphere(
        floor,
        DVec3::new(0.0, 0.0, R - expected),
        DVec3::new(0.0, 0.0, -g),
        0.2,
        0.3,
    )?;
    sim.run_until(0.5, |_| Ok(()))?;
    out.push(Metric::new(
        CASE,
        "moving-plane",
        "v / V (rolling on a belt, 2/7)",
        sim.world.particles.vel[0].x / v_wall,
        2.0 / 7.0,
        1e-3 * 2.0 / 7.0,
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_point_of_a_disk_rim_by_minimisation() {
        // Beyond the rim of the unit disk in z = 0, (2, 0, 1) is nearest to (1, 0, 0).
        let (e1, e2) = (DVec3::X, DVec3::Y);
        let p = Patch {
            lo: [0.0, -3.0],
            hi: [1.0, 3.0],
            periodic: [false, true],
            s: Box::new(move |[rho, phi]| {
                let radial = phi.cos() * e1 + phi.sin() * e2;
                let tangent = -phi.sin() * e1 + phi.cos() * e2;
                [
                    rho * radial,
                    radial,
                    rho * tangent,
                    DVec3::ZERO,
                    tangent,
                    -rho * radial,
                ]
            }),
        };
        let s = nearest(&[p], DVec3::new(2.0, 0.0, 1.0));
        assert!((s - DVec3::X).length() < 1e-14, "{s:?}");
    }
}
