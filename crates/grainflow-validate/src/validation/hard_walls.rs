//! Hard spheres against every wall primitive (000 §2.2): part of `validate hard-two-body`.
//!
//! Each case is one sphere and one wall that meet once within one step of 1 s (no gravity).
//! The predicted contact time must put the sphere's surface on the wall's (its centre at
//! distance s from the nearest surface point, found here from the geometry written out
//! independently of the wall code) and must be the first such time (the first crossing of the
//! distance through s, located by sampling and bisection). The state after the step must be
//! the closed form: straight drift to t_c, eq 6–8 with n̂ from the contact point to the centre
//! and the wall's surface velocity V + Ω × (x_c − c) subtracted in eq 8, straight drift for
//! dt − t_c. A moving wall travels along the secant of its motion over the step. A sticky wall
//! holds the sphere where it touched and carries it; an absorbing one removes it.

use std::path::Path;

use glam::{DQuat, DVec3};

use super::hard_two_body::{rel, scene, sphere};
use super::Metric;
use grainflow::scene::SphereSpec;
use grainflow::scene::{Motion, ShapeSpec, Side, Surface, WallSpec};
use grainflow::sim::Simulation;
use grainflow::Result;

const CASE: &str = "hard-two-body";
const TOL: f64 = 1e-12;

/// One sphere–wall impact.
struct WallCase {
    name: &'static str,
    shape: ShapeSpec,
    motion: Motion,
    surface: Surface,
    sphere: SphereSpec,
    /// ε_n, ε_t.
    eps: (f64, f64),
    /// The nearest point of the wall's surface to a point, with the wall in its scene placement.
    nearest: fn(DVec3) -> DVec3,
}

fn across(x: DVec3, axis: DVec3) -> DVec3 {
    x - x.dot(axis) * axis
}

fn plane_z(x: DVec3) -> DVec3 {
    across(x, DVec3::Z)
}

fn disk_z(x: DVec3) -> DVec3 {
    let q = across(x, DVec3::Z);
    if q.length() <= 1.0 {
        q
    } else {
        q.normalize()
    }
}

fn cylinder_z(radius: f64, half_length: f64, x: DVec3) -> DVec3 {
    let q = across(x, DVec3::Z);
    x.z.clamp(-half_length, half_length) * DVec3::Z + radius * q.normalize()
}

fn tilted_ring_normal() -> DVec3 {
    DVec3::new(0.3, 0.0, 1.0).normalize()
}

fn line_axis() -> DVec3 {
    DVec3::new(0.0, 1.0, 1.0).normalize()
}

fn plate_z(x: DVec3) -> DVec3 {
    DVec3::new(x.x.clamp(-1.0, 1.0), x.y.clamp(-0.5, 0.5), 0.0)
}

fn cases() -> Vec<WallCase> {
    let still = Motion::Fixed;
    let normal = Surface::Normal;
    let disk = ShapeSpec::Disk {
        center: DVec3::ZERO,
        normal: DVec3::Z,
        radius: 1.0,
        inner_radius: 0.0,
    };
    let cylinder = |radius: f64, side: Side, length: Option<f64>| ShapeSpec::Cylinder {
        origin: DVec3::ZERO,
        axis: DVec3::Z,
        radius,
        side,
        length,
    };
    let plate = ShapeSpec::Plate {
        center: DVec3::ZERO,
        normal: DVec3::Z,
        u: DVec3::X,
        half_size: [1.0, 0.5],
        holes: Vec::new(),
    };
    let spin_z = |omega: f64| Motion::Rotate {
        center: DVec3::ZERO,
        axis: DVec3::Z,
        omega,
        start: 0.0,
        ramp: 0.0,
    };
    let s = |pos: [f64; 3], vel: [f64; 3], omega: [f64; 3]| {
        sphere(DVec3::from(pos), DVec3::from(vel), DVec3::from(omega), 0.25)
    };
    vec![
        WallCase {
            name: "sheet from below",
            shape: ShapeSpec::Plane {
                point: Some(DVec3::ZERO),
                normal: Some(DVec3::Z),
                equation: None,
                both: true,
            },
            motion: still.clone(),
            surface: normal,
            sphere: s([0.0, 0.0, -1.0], [0.4, 0.0, 1.5], [1.0, 0.0, 0.0]),
            eps: (0.7, 0.4),
            nearest: plane_z,
        },
        WallCase {
            name: "disk face",
            shape: disk.clone(),
            motion: still.clone(),
            surface: normal,
            sphere: s([0.3, 0.1, 1.0], [0.2, 0.0, -1.5], [0.0, 2.0, 0.0]),
            eps: (0.64, 0.8),
            nearest: disk_z,
        },
        WallCase {
            name: "disk rim",
            shape: disk.clone(),
            motion: still.clone(),
            surface: normal,
            sphere: s([2.0, 0.0, 0.1], [-1.6, 0.05, 0.0], [0.0, 0.0, 1.0]),
            eps: (0.64, 0.8),
            nearest: disk_z,
        },
        WallCase {
            name: "cylinder inside",
            shape: cylinder(2.0, Side::Inside, None),
            motion: still.clone(),
            surface: normal,
            sphere: s([1.0, 0.2, 0.0], [1.5, 0.3, 0.7], [0.0, 1.0, -2.0]),
            eps: (0.9, 0.5),
            nearest: |x| cylinder_z(2.0, f64::INFINITY, x),
        },
        WallCase {
            name: "cylinder outside",
            shape: cylinder(0.5, Side::Outside, None),
            motion: still.clone(),
            surface: normal,
            sphere: s([-2.0, 0.3, 0.0], [2.5, 0.0, 0.5], [1.0, 0.0, 0.0]),
            eps: (0.8, -0.2),
            nearest: |x| cylinder_z(0.5, f64::INFINITY, x),
        },
        WallCase {
            name: "finite cylinder side",
            shape: cylinder(1.0, Side::Both, Some(2.0)),
            motion: still.clone(),
            surface: normal,
            sphere: s([2.5, 0.0, 0.2], [-2.2, 0.2, 0.1], [0.0, 0.0, 4.0]),
            eps: (0.64, 0.8),
            nearest: |x| cylinder_z(1.0, 1.0, x),
        },
        WallCase {
            name: "finite cylinder end rim",
            shape: cylinder(1.0, Side::Both, Some(2.0)),
            motion: still.clone(),
            surface: normal,
            sphere: s([1.0, 0.05, 2.0], [-0.3, 0.0, -2.0], [0.5, 0.5, 0.0]),
            eps: (0.64, 0.8),
            nearest: |x| cylinder_z(1.0, 1.0, x),
        },
        WallCase {
            name: "ring (tilted)",
            shape: ShapeSpec::Ring {
                center: DVec3::ZERO,
                normal: tilted_ring_normal(),
                radius: 1.0,
            },
            motion: still.clone(),
            surface: normal,
            sphere: s([0.9, 0.2, 1.5], [0.0, 0.0, -2.0], [1.0, -1.0, 0.5]),
            eps: (0.64, 0.8),
            nearest: |x| across(x, tilted_ring_normal()).normalize(),
        },
        WallCase {
            name: "point",
            shape: ShapeSpec::Point { pos: DVec3::ZERO },
            motion: still.clone(),
            surface: normal,
            sphere: s([-1.0, 0.1, 0.05], [1.5, 0.0, 0.0], [0.0, 0.0, 3.0]),
            eps: (0.64, 0.8),
            nearest: |_| DVec3::ZERO,
        },
        WallCase {
            name: "line",
            shape: ShapeSpec::Line {
                point: DVec3::ZERO,
                axis: line_axis(),
                length: None,
            },
            motion: still.clone(),
            surface: normal,
            sphere: s([-1.0, 0.0, 0.1], [1.5, 0.2, 0.0], [0.0, 2.0, 0.0]),
            eps: (0.64, 0.8),
            nearest: |x| x.dot(line_axis()) * line_axis(),
        },
        WallCase {
            name: "segment end",
            shape: ShapeSpec::Line {
                point: DVec3::ZERO,
                axis: DVec3::Z,
                length: Some(1.0),
            },
            motion: still.clone(),
            surface: normal,
            sphere: s([0.1, 0.0, 1.5], [0.0, 0.0, -2.0], [0.0, 0.0, 0.0]),
            eps: (0.64, 0.8),
            nearest: |x| x.z.clamp(-0.5, 0.5) * DVec3::Z,
        },
        WallCase {
            name: "plate face",
            shape: plate.clone(),
            motion: still.clone(),
            surface: normal,
            sphere: s([0.5, -0.2, 1.0], [0.3, 0.1, -1.5], [2.0, 0.0, 0.0]),
            eps: (0.64, 0.8),
            nearest: plate_z,
        },
        WallCase {
            name: "plate edge",
            shape: plate,
            motion: still.clone(),
            surface: normal,
            sphere: s([1.5, 0.0, 0.4], [-1.5, 0.0, -0.5], [0.0, 1.0, 0.0]),
            eps: (0.64, 0.8),
            nearest: plate_z,
        },
        WallCase {
            name: "translating floor",
            shape: ShapeSpec::Plane {
                point: Some(DVec3::ZERO),
                normal: Some(DVec3::Z),
                equation: None,
                both: false,
            },
            motion: Motion::Translate {
                velocity: DVec3::new(0.5, 0.0, 1.0),
                start: 0.0,
            },
            surface: normal,
            sphere: s([0.0, 0.0, 1.0], [0.0, 0.2, -1.0], [0.0, 0.0, 0.0]),
            eps: (0.64, 0.5),
            nearest: plane_z,
        },
        WallCase {
            name: "oscillating disk",
            shape: disk,
            motion: Motion::Oscillate {
                amplitude: 0.2,
                frequency: 2.0,
                direction: DVec3::Z,
            },
            surface: normal,
            sphere: s([0.2, 0.0, 1.0], [0.1, 0.0, -1.0], [0.0, 1.0, 0.0]),
            eps: (0.64, 0.8),
            nearest: disk_z,
        },
        WallCase {
            name: "rotating cylinder",
            shape: cylinder(2.0, Side::Inside, None),
            motion: spin_z(3.0),
            surface: normal,
            sphere: s([1.0, 0.0, 0.0], [1.5, 0.3, 0.0], [0.0, 0.0, 0.0]),
            eps: (0.9, 0.5),
            nearest: |x| cylinder_z(2.0, f64::INFINITY, x),
        },
        WallCase {
            name: "sticky rotating cylinder",
            shape: cylinder(2.0, Side::Inside, None),
            motion: spin_z(3.0),
            surface: Surface::Sticky,
            sphere: s([1.0, 0.0, 0.0], [1.5, 0.3, 0.0], [0.0, 0.0, 0.0]),
            eps: (0.9, 0.5),
            nearest: |x| cylinder_z(2.0, f64::INFINITY, x),
        },
        WallCase {
            name: "absorbing floor",
            shape: ShapeSpec::Plane {
                point: Some(DVec3::ZERO),
                normal: Some(DVec3::Z),
                equation: None,
                both: false,
            },
            motion: still,
            surface: Surface::Absorbing,
            sphere: s([0.0, 0.0, 1.0], [0.0, 0.2, -1.0], [0.0, 0.0, 0.0]),
            eps: (0.64, 0.8),
            nearest: plane_z,
        },
    ]
}

/// Runs one case and appends its metrics.
fn wall_case(out: &mut Vec<Metric>, c: &WallCase) -> Result<()> {
    let dt = 1.0;
    let wall = WallSpec {
        material: "m".into(),
        shape: c.shape.clone(),
        surface: c.surface,
        motion: c.motion.clone(),
        free: None,
    };
    let scene = scene(c.eps.0, c.eps.1, dt, vec![wall], vec![c.sphere.clone()]);
    let mut sim = Simulation::new(scene, Path::new("."))?;
    let built = sim.world.walls[0].clone();
    sim.step()?;
    let (x0, v0, w0, s) = (c.sphere.pos, c.sphere.vel, c.sphere.omega, c.sphere.radius);
    // The wall's secant path over the step.
    let (d0, d1) = (built.motion.pose(0.0).offset, built.motion.pose(dt).offset);
    let wall_vel = (d1 - d0) / dt;
    let offset = |t: f64| d0 + wall_vel * t;
    let gap = |t: f64| {
        let local = x0 + v0 * t - offset(t);
        (local - (c.nearest)(local)).length() - s
    };
    let tc = built
        .shape
        .collision_time(x0 - d0, v0 - wall_vel, s, f64::INFINITY)
        .unwrap_or(f64::NAN);
    out.push(Metric::new(
        CASE,
        c.name,
        "gap at predicted contact / radius",
        gap(tc) / s,
        0.0,
        TOL,
    ));
    let first = first_touch(gap, dt);
    out.push(Metric::new(
        CASE,
        c.name,
        "contact time − first touch by bisection (/dt)",
        (tc - first) / dt,
        0.0,
        TOL,
    ));
    let xc = x0 + v0 * tc;
    let local = xc - offset(tc);
    let n = (local - (c.nearest)(local)).normalize();
    let p = &sim.world.particles;
    if c.surface != Surface::Normal {
        surface_metrics(out, c, &sim, xc, dt - tc);
        return Ok(());
    }
    // Eq 6–8 with the wall's surface velocity at the contact point subtracted.
    let omega_wall = built.motion.pose(0.5 * dt).omega;
    let contact = xc - s * n;
    let surface = wall_vel + omega_wall.cross(contact - offset(tc));
    let (eps_n, eps_t) = c.eps;
    let sv = -s * n;
    let u = v0 + w0.cross(sv) - surface;
    let (u_n, u_t) = (u.dot(n) * n, u - u.dot(n) * n);
    let vel = v0 - (1.0 + eps_n) * u_n - 2.0 / 7.0 * (1.0 - eps_t) * u_t;
    let spin = w0 - 5.0 / 7.0 / (s * s) * (1.0 - eps_t) * sv.cross(u);
    out.push(Metric::new(
        CASE,
        c.name,
        "velocity after (eq 6, rel. error)",
        rel(p.vel[0], vel),
        0.0,
        TOL,
    ));
    out.push(Metric::new(
        CASE,
        c.name,
        "spin after (eq 7, rel. error)",
        rel(p.omega[0], spin),
        0.0,
        TOL,
    ));
    let u_after = p.vel[0] + p.omega[0].cross(sv) - surface;
    out.push(Metric::new(
        CASE,
        c.name,
        "contact velocity after (eq 4, rel. error)",
        rel(u_after, -eps_n * u_n + eps_t * u_t),
        0.0,
        TOL,
    ));
    out.push(Metric::new(
        CASE,
        c.name,
        "position after the step (rel. error)",
        rel(p.pos[0], xc + vel * (dt - tc)),
        0.0,
        TOL,
    ));
    Ok(())
}

/// The first time in [0, `dt`] the `gap` crosses zero: sampled, then bisected (NaN if never).
fn first_touch(gap: impl Fn(f64) -> f64, dt: f64) -> f64 {
    let samples = 4000;
    for k in 1..=samples {
        let (a, b) = (
            dt * (k - 1) as f64 / samples as f64,
            dt * k as f64 / samples as f64,
        );
        if gap(a) > 0.0 && gap(b) <= 0.0 {
            let (mut lo, mut hi) = (a, b);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if gap(mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return 0.5 * (lo + hi);
        }
    }
    f64::NAN
}

/// The metrics of an absorbing or sticky wall: the grain is gone, or held where it touched
/// (`xc`) and carried by the wall's rotation for the `rest` of the step (s).
fn surface_metrics(out: &mut Vec<Metric>, c: &WallCase, sim: &Simulation, xc: DVec3, rest: f64) {
    let p = &sim.world.particles;
    match c.surface {
        Surface::Absorbing => {
            out.push(Metric::new(
                CASE,
                c.name,
                "grains absorbed minus grains left",
                sim.world.wall_runtime.absorbed[0] as f64 - p.len() as f64,
                1.0,
                0.0,
            ));
        }
        Surface::Sticky => {
            // Held where it touched, carried by the wall's rotation for dt − t_c.
            let Motion::Rotate { omega, .. } = c.motion else {
                return;
            };
            let end = DQuat::from_rotation_z(omega * rest) * xc;
            out.push(Metric::new(
                CASE,
                c.name,
                "position carried by the wall (rel. error)",
                rel(p.pos[0], end),
                0.0,
                TOL,
            ));
            out.push(Metric::new(
                CASE,
                c.name,
                "held: inverse mass",
                p.inv_mass[0],
                0.0,
                0.0,
            ));
        }
        Surface::Normal => {}
    }
}

/// Every wall case of `hard-two-body`.
pub fn hard_walls(out: &mut Vec<Metric>) -> Result<()> {
    for c in cases() {
        wall_case(out, &c)?;
    }
    Ok(())
}
