//! What a simulation reports beyond the particle arrays, as NumPy arrays and dicts: the
//! contacts and stresses of the last step (read from the per-pair forces the soft-sphere step
//! keeps, `grainflow::io::contacts`, `grainflow::analysis::stress`) and the walls' poses and
//! loads (`grainflow::io::wall_forces`). These are copies, made when asked.

use glam::DVec3;
use grainflow::scene::Method;
use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::Error;
use crate::simulation::Simulation;

/// Refuses `what` unless the method is soft spheres, whose step keeps per-pair forces.
pub fn soft_only(sim: &grainflow::Simulation, what: &str) -> PyResult<()> {
    match sim.scene.simulation.method {
        Method::Soft(_) => Ok(()),
        _ => Err(Error::new_err(format!(
            "{what}: only the soft-sphere method keeps lasting contacts and their forces; the hard-sphere methods collide instantaneously (their collisions are in the scene's collision log)"
        ))),
    }
}

/// Refuses `what` unless the per-pair forces kept describe the current state.
fn ready(s: &Simulation, what: &str) -> PyResult<()> {
    soft_only(&s.sim, what)?;
    if s.sim.reactions().is_none() {
        return Err(Error::new_err(format!(
            "{what}: the per-pair forces are not kept; call keep_contacts() and step once"
        )));
    }
    if !s.contacts_ready {
        return Err(Error::new_err(format!(
            "{what}: the per-pair forces are kept from the next step on (keep_contacts(), a resume or setting positions since the last step); step once"
        )));
    }
    Ok(())
}

/// `rows` as an (m, 3) float64 array.
fn vectors<'py>(py: Python<'py>, rows: impl Iterator<Item = DVec3>) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = rows.flat_map(|v| v.to_array()).collect();
    let m = flat.len() / 3;
    Array2::from_shape_vec((m, 3), flat)
        .unwrap_or_else(|_| Array2::zeros((0, 3)))
        .into_pyarray(py)
}

/// The touching pairs of the last step as arrays ([`grainflow::io::contacts::Contact`]).
pub fn contacts<'py>(py: Python<'py>, s: &Simulation) -> PyResult<Bound<'py, PyDict>> {
    ready(s, "contacts()")?;
    let list = grainflow::io::contacts::contacts(&s.sim).unwrap_or_default();
    let ids: Vec<u64> = list.iter().flat_map(|c| [c.ids.0, c.ids.1]).collect();
    let ids = Array2::from_shape_vec((list.len(), 2), ids)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let scalars = |f: fn(&grainflow::io::contacts::Contact) -> f64| {
        PyArray1::from_vec(py, list.iter().map(f).collect())
    };
    let d = PyDict::new(py);
    d.set_item("ids", ids.into_pyarray(py))?;
    d.set_item("points", vectors(py, list.iter().map(|c| c.point)))?;
    d.set_item("normals", vectors(py, list.iter().map(|c| c.normal)))?;
    d.set_item("overlaps", scalars(|c| c.overlap))?;
    d.set_item("normal_forces", scalars(|c| c.normal_force))?;
    d.set_item(
        "tangential_forces",
        vectors(py, list.iter().map(|c| c.tangential_force)),
    )?;
    d.set_item("rolling", vectors(py, list.iter().map(|c| c.rolling)))?;
    d.set_item("twisting", scalars(|c| c.twisting))?;
    Ok(d)
}

/// The stress averaged over the box [lo, hi], a 3 × 3 array (row k, column l: σ_kl).
pub fn volume_stress<'py>(
    py: Python<'py>,
    s: &Simulation,
    lo: [f64; 3],
    hi: [f64; 3],
) -> PyResult<Bound<'py, PyAny>> {
    ready(s, "stress()")?;
    let (lo, hi) = (DVec3::from(lo), DVec3::from(hi));
    if !(lo.is_finite() && hi.is_finite() && lo.cmplt(hi).all()) {
        return Err(PyValueError::new_err(format!(
            "stress(): need finite lo < hi on every axis, got lo {lo:?}, hi {hi:?}"
        )));
    }
    let m = grainflow::analysis::stress::volume_stress(&s.sim, lo, hi);
    let rows = Array2::from_shape_fn((3, 3), |(k, l)| m.col(l)[k]);
    Ok(rows.into_pyarray(py).into_any())
}

/// Row `axis` of the stress on the plane x_axis = `at` of area `area`.
pub fn plane_stress<'py>(
    py: Python<'py>,
    s: &Simulation,
    axis: usize,
    at: f64,
    area: f64,
) -> PyResult<Bound<'py, PyAny>> {
    ready(s, "plane_stress()")?;
    if axis > 2 || !at.is_finite() || !(area > 0.0 && area.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "plane_stress(): need axis 0, 1 or 2, a finite plane and an area > 0, got {axis}, {at}, {area}"
        )));
    }
    let row = grainflow::analysis::stress::plane_stress(&s.sim, axis, at, area);
    Ok(Array1::from(row.to_array().to_vec())
        .into_pyarray(py)
        .into_any())
}

/// A float64 array of the three components of `v`.
fn vector<'py>(py: Python<'py>, v: DVec3) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_slice(py, &v.to_array())
}

/// One dict per wall: pose at the current time and the loads of the last step.
pub fn walls<'py>(py: Python<'py>, sim: &grainflow::Simulation) -> PyResult<Bound<'py, PyList>> {
    let loads = grainflow::io::wall_forces::wall_loads(sim);
    let list = PyList::empty(py);
    for (k, wall) in sim.world.walls.iter().enumerate() {
        let pose = wall.motion.pose(sim.world.time);
        let d = PyDict::new(py);
        d.set_item("offset", vector(py, pose.offset))?;
        d.set_item(
            "rotation",
            PyArray1::from_slice(py, &pose.rotation.to_array()),
        )?;
        d.set_item("center", vector(py, pose.center))?;
        d.set_item("velocity", vector(py, pose.velocity))?;
        d.set_item("omega", vector(py, pose.omega))?;
        let load = loads.as_ref().and_then(|l| l.walls.get(k));
        d.set_item("force", load.map(|l| vector(py, l.0)))?;
        d.set_item("torque", load.map(|l| vector(py, l.1)))?;
        list.append(d)?;
    }
    Ok(list)
}

/// The force on walls from grains touching several at once, and how many.
pub fn shared_wall_force<'py>(
    py: Python<'py>,
    sim: &grainflow::Simulation,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(loads) = grainflow::io::wall_forces::wall_loads(sim) else {
        return Ok(None);
    };
    let pair = (vector(py, loads.shared), loads.shared_grains);
    Ok(Some(pair.into_pyobject(py)?.into_any()))
}
