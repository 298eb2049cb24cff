//! The library's errors as Python exceptions, worded exactly as the command line words them
//! (`grainflow run` prints `error: ` and then the same text).
//!
//! `grainflow.Error` is the base; `SceneError` is a scene the library refuses (a value, a
//! key, TOML that does not parse) with the field's dotted path in `field`; `UnstableError` a
//! run that went bad, naming the grain, the time and the step; `FileError` a file that cannot
//! be read or written, or has the wrong content.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::BoundObject;

create_exception!(
    grainflow,
    Error,
    PyException,
    "Every error grainflow raises: its text is the command line's, after `error: `."
);
create_exception!(
    grainflow,
    SceneError,
    Error,
    "A scene the library refuses: `field` is the dotted path of the value or key \
     (`materials[0].sliding_friction`, empty where the parser names none), `reason` what is \
     wrong, `place` the file (or `dict`) with line and column where known, and `problems` \
     every refusal, one line each, as `grainflow check` lists them (several where the \
     scene's own values have several faults)."
);
create_exception!(
    grainflow,
    UnstableError,
    Error,
    "A run that went bad: `time` (s), `step`, the grain's `id` and the `reason`, with its \
     likely cause."
);
create_exception!(
    grainflow,
    FileError,
    Error,
    "A file that cannot be read or written (`path`), or whose content is wrong."
);

/// The Python exception for `e`, with its parts as attributes.
pub fn to_py(py: Python<'_>, e: &grainflow::Error) -> PyErr {
    to_py_with(py, e, None)
}

/// [`to_py`], its text led by `context` as the command line's `context: error`
/// (`cannot resume out/final.gfck: …`).
pub fn to_py_with(py: Python<'_>, e: &grainflow::Error, context: Option<&str>) -> PyErr {
    use grainflow::Error as E;
    let text = match context {
        Some(c) => format!("{c}: {e}"),
        None => e.to_string(),
    };
    let (err, attributes): (PyErr, Vec<(&str, Py<PyAny>)>) = match e {
        E::Scene { field, reason } => (
            SceneError::new_err(text.clone()),
            vec![
                ("field", any(py, field)),
                ("reason", any(py, reason)),
                ("place", py.None()),
                ("problems", any(py, vec![text.clone()])),
            ],
        ),
        E::Parse { path, message } => {
            let (field, reason) = split_key(message);
            (
                SceneError::new_err(text.clone()),
                vec![
                    ("field", any(py, field)),
                    ("reason", any(py, reason)),
                    ("place", any(py, path)),
                    ("problems", any(py, vec![text.clone()])),
                ],
            )
        }
        E::Unstable {
            time,
            step,
            id,
            reason,
        } => (
            UnstableError::new_err(text),
            vec![
                ("time", any(py, time)),
                ("step", any(py, step)),
                ("id", any(py, id)),
                ("reason", any(py, reason)),
            ],
        ),
        E::Io { path, .. } | E::Format { path, .. } => (
            FileError::new_err(text),
            vec![("path", any(py, path.display().to_string()))],
        ),
        // A run shared among MPI ranks; the Python module runs in one process, so only a
        // library caller that shares a run itself meets it.
        E::Rank { rank, message } => (
            Error::new_err(text),
            vec![("rank", any(py, rank)), ("message", any(py, message))],
        ),
    };
    let value = err.value(py);
    for (name, v) in attributes {
        // Setting an attribute on a fresh exception instance cannot fail short of memory.
        let _ = value.setattr(name, v);
    }
    err
}

/// `v` as a Python object (numbers and strings, which convert without fail).
fn any<'py>(py: Python<'py>, v: impl IntoPyObject<'py>) -> Py<PyAny> {
    v.into_pyobject(py)
        .map_or_else(|_| py.None(), |o| o.into_any().unbind())
}

/// The parser's message split into the dotted key it leads with (`materials[0].x: unknown
/// field …`, as `Scene::from_toml` writes it) and the rest; no key when the text before the
/// first `: ` has a space (the parser's own words).
fn split_key(message: &str) -> (&str, &str) {
    match message.split_once(": ") {
        Some((key, rest)) if !key.is_empty() && !key.contains(char::is_whitespace) => (key, rest),
        _ => ("", message),
    }
}

/// A `SceneError` for `first`, carrying every refusal in `problems` (as `grainflow check`
/// lists them, one line each).
pub fn scene_problems(py: Python<'_>, problems: &[grainflow::Error]) -> Option<PyErr> {
    let first = problems.first()?;
    let err = to_py(py, first);
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let _ = err.value(py).setattr("problems", lines);
    Some(err)
}
