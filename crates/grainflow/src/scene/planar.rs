//! `simulation.dimensions`: what a 2-D scene may not contain (discs in the xy plane, run in
//! `crate::planar`).

use glam::DVec3;

use super::{Method, Scene, ShapeSpec};
use crate::Error;

/// What a 2-D scene may not contain, each with its field path.
pub(super) fn problems(scene: &Scene, p: &mut Vec<Error>) {
    let d = scene.simulation.dimensions;
    if d != 2 && d != 3 {
        p.push(Error::scene(
            "simulation.dimensions",
            format!("must be 2 (discs in the xy plane) or 3 (spheres), got {d}"),
        ));
    }
    if d != 2 {
        return;
    }
    if let Method::Hard(_) = scene.simulation.method {
        p.push(Error::scene(
            "simulation.dimensions",
            "2 works with method = \"soft\" and \"approx_hard\"; the event-driven hard method resolves collisions with the inertia of spheres",
        ));
    }
    if let Some(g) = scene.gravity.uniform {
        if g.z != 0.0 {
            p.push(Error::scene(
                "gravity.uniform",
                format!("must lie in the xy plane with dimensions = 2, got {g:?}"),
            ));
        }
    }
    let across = |v: DVec3| v.z != 0.0 && (v.x != 0.0 || v.y != 0.0);
    for (k, w) in scene.walls.iter().enumerate() {
        let bad = match &w.shape {
            ShapeSpec::Cylinder { axis, .. } => (axis.x != 0.0 || axis.y != 0.0).then_some("axis"),
            ShapeSpec::Plane {
                normal: Some(n), ..
            } => (n.z != 0.0).then_some("normal"),
            ShapeSpec::Plane {
                equation: Some(e), ..
            } => (e[2] != 0.0).then_some("equation"),
            ShapeSpec::Disk { normal, .. } | ShapeSpec::Ring { normal, .. } => {
                across(*normal).then_some("normal")
            }
            _ => None,
        };
        if let Some(field) = bad {
            p.push(Error::scene(
                format!("walls[{k}].{field}"),
                "must be perpendicular to the xy plane of the discs (cylinder axes along z, plane normals in the plane) with dimensions = 2",
            ));
        }
    }
}
