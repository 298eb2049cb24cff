//! `import grainflow as gf`: the grainflow engine from Python.
//!
//! The module drives the library's own `Simulation`, as the command line does: a scene read
//! from a file, TOML text, a built-in name or a dict; steps with the GIL released in a thread
//! pool of the simulation's own; NumPy views of the particle arrays without copies
//! (`views.rs` says why they are sound); contacts, walls, energies and stresses; checkpoints
//! that resume bit for bit; the validation cases. Errors are the library's, worded as the
//! command line words them (`errors.rs`). docs/python.md is the user's page.

mod errors;
mod simulation;
mod source;
mod state;
mod views;

use grainflow::scene::built_in::BUILT_IN;
use grainflow_validate::validation::{self, Comparison};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The built-in scenes: name → one line on what each shows (as `grainflow scenes` lists them).
#[pyfunction]
fn scenes(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for s in BUILT_IN {
        d.set_item(s.name, s.about)?;
    }
    Ok(d)
}

/// The built-in scene `name` as a dict with the keys of its TOML, to change and pass to
/// `Simulation.from_dict`.
#[pyfunction]
fn scene<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    source::built_in_dict(py, name)
}

/// The built-in scene `name` as TOML text (as `grainflow scenes NAME` writes it).
#[pyfunction]
fn scene_text(name: &str) -> PyResult<&'static str> {
    Ok(source::find(name)?.toml)
}

/// The validation cases: name → one line on what each checks (as `grainflow validate --list`).
#[pyfunction]
fn validation_cases(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for c in validation::CASES {
        d.set_item(c.name, c.about)?;
    }
    Ok(d)
}

/// Runs the validation case `name` (the full-size version when `full`) as `grainflow
/// validate NAME`, returning its metrics, one dict each: `case`, `model`, `metric`, `value`,
/// `expected`, `tolerance`, `comparison` (`within`, `at_least`, `at_most`, or `report`:
/// shown, not checked) and `pass`.
#[pyfunction]
#[pyo3(signature = (name, full=false, *, threads=None))]
fn validate<'py>(
    py: Python<'py>,
    name: &str,
    full: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let Some(case) = validation::find(name) else {
        return Err(pyo3::exceptions::PyKeyError::new_err(format!(
            "no validation case named {name}; grainflow.validation_cases() lists them"
        )));
    };
    let pool = simulation::pool(threads)?;
    let metrics = py
        .detach(|| pool.install(|| (case.run)(full)))
        .map_err(|e| errors::to_py_with(py, &e, Some(&format!("validation case {name}"))))?;
    let list = PyList::empty(py);
    for m in metrics {
        let d = PyDict::new(py);
        d.set_item("case", m.case)?;
        d.set_item("model", m.model)?;
        d.set_item("metric", m.metric)?;
        d.set_item("value", m.value)?;
        d.set_item("expected", m.expected)?;
        d.set_item("tolerance", m.tolerance)?;
        let comparison = match m.comparison {
            Comparison::Within => "within",
            Comparison::AtLeast => "at_least",
            Comparison::AtMost => "at_most",
            Comparison::Report => "report",
        };
        d.set_item("comparison", comparison)?;
        d.set_item("pass", m.pass)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Granular dynamics (DEM) from Python: the grainflow engine, its scenes and validation.
#[pymodule]
#[pyo3(name = "grainflow")]
fn grainflow_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<simulation::Simulation>()?;
    m.add_function(wrap_pyfunction!(scenes, m)?)?;
    m.add_function(wrap_pyfunction!(scene, m)?)?;
    m.add_function(wrap_pyfunction!(scene_text, m)?)?;
    m.add_function(wrap_pyfunction!(validation_cases, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add("Error", py.get_type::<errors::Error>())?;
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add("UnstableError", py.get_type::<errors::UnstableError>())?;
    m.add("FileError", py.get_type::<errors::FileError>())?;
    Ok(())
}
