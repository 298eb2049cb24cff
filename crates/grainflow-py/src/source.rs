//! Where a scene comes from: a file, TOML text, a built-in scene's name, or a Python dict with
//! the keys of the TOML; and a scene back as a dict.
//!
//! A dict is written out as TOML and read by the same `Scene::from_toml` as a file, so it is
//! checked, and its errors are worded, exactly as the command line's (named `dict` where the
//! command line names the file, without line and column, which a dict has not).

use std::path::{Path, PathBuf};

use grainflow::scene::built_in;
use grainflow::Scene;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{self, FileError};

/// A scene and the folder its relative paths (particle files) are read from.
pub struct Loaded {
    /// The scene, parsed (not yet checked).
    pub scene: Scene,
    /// Folder for relative paths.
    pub base: PathBuf,
}

/// The scene `arg` names, as `grainflow run ARG` reads it: a dict; an existing file; a built-in
/// scene's name; else TOML text when it has a line break or a `=`; `base` replaces the folder
/// relative paths are read from (the file's folder, else the current one).
pub fn load(py: Python<'_>, arg: &Bound<'_, PyAny>, base: Option<PathBuf>) -> PyResult<Loaded> {
    let (scene, folder) = if let Ok(dict) = arg.cast::<PyDict>() {
        (from_dict(py, dict)?, PathBuf::from("."))
    } else if let Ok(text) = arg.cast::<PyString>() {
        from_str(py, &text.to_cow()?)?
    } else if let Ok(path) = arg.extract::<PathBuf>() {
        from_file(py, &path)?
    } else {
        return Err(PyTypeError::new_err(format!(
            "a scene is a path, TOML text, a built-in scene's name or a dict, not {}",
            arg.get_type().name()?
        )));
    };
    Ok(Loaded {
        scene,
        base: base.unwrap_or(folder),
    })
}

/// A string: a file, a built-in name, or TOML text.
fn from_str(py: Python<'_>, s: &str) -> PyResult<(Scene, PathBuf)> {
    let path = Path::new(s);
    if !s.contains('\n') && path.is_file() {
        return from_file(py, path);
    }
    if let Some(b) = built_in::find(s) {
        let scene = Scene::from_toml(b.toml, b.name).map_err(|e| errors::to_py(py, &e))?;
        return Ok((scene, PathBuf::from(".")));
    }
    if s.contains('\n') || s.contains('=') {
        let scene = Scene::from_toml(s, "text").map_err(|e| errors::to_py(py, &e))?;
        return Ok((scene, PathBuf::from(".")));
    }
    let err = FileError::new_err(format!(
        "{s}: no such file, and no built-in scene of that name (built-in: {})",
        built_in::BUILT_IN
            .iter()
            .map(|b| b.name)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let _ = err.value(py).setattr("path", s);
    Err(err)
}

/// A scene file; its folder is the base of relative paths.
fn from_file(py: Python<'_>, path: &Path) -> PyResult<(Scene, PathBuf)> {
    let scene = Scene::load(path).map_err(|e| errors::to_py(py, &e))?;
    Ok((
        scene,
        path.parent().map(Path::to_path_buf).unwrap_or_default(),
    ))
}

/// A dict with the keys of the TOML, through the TOML reader.
fn from_dict(py: Python<'_>, dict: &Bound<'_, PyDict>) -> PyResult<Scene> {
    let table = table(dict, "")?;
    let text = toml::to_string(&table).map_err(|e| dict_error(py, "", &e.to_string()))?;
    Scene::from_toml(&text, "dict").map_err(|e| match e {
        // The line and column are the written text's, which the user never saw.
        grainflow::Error::Parse { message, .. } => errors::to_py(
            py,
            &grainflow::Error::Parse {
                path: "dict".into(),
                message,
            },
        ),
        e => errors::to_py(py, &e),
    })
}

/// A `SceneError` at `field` of a dict.
fn dict_error(py: Python<'_>, field: &str, reason: &str) -> PyErr {
    let message = match field {
        "" => reason.to_string(),
        f => format!("{f}: {reason}"),
    };
    errors::to_py(
        py,
        &grainflow::Error::Parse {
            path: "dict".into(),
            message,
        },
    )
}

/// A dict as a TOML table; `at` is its dotted path.
fn table(dict: &Bound<'_, PyDict>, at: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in dict.iter() {
        let Ok(key) = k.cast::<PyString>() else {
            let reason = format!("keys are strings, got {}", k.repr()?);
            return Err(dict_error(dict.py(), at, &reason));
        };
        let key = key.to_cow()?.into_owned();
        let path = if at.is_empty() {
            key.clone()
        } else {
            format!("{at}.{key}")
        };
        t.insert(key, value(&v, &path)?);
    }
    Ok(t)
}

/// A Python value as a TOML value: dicts, lists and tuples, strings, booleans, integers,
/// floats, and anything with `tolist()` (NumPy arrays and scalars).
fn value(v: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    let py = v.py();
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        return match v.extract::<i64>() {
            Ok(i) => Ok(toml::Value::Integer(i)),
            Err(_) => Err(dict_error(py, at, "integer out of the 64-bit range")),
        };
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract::<f64>()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(toml::Value::Table(table(d, at)?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items = v.try_iter()?.enumerate().map(|(k, item)| {
            let item = item?;
            value(&item, &format!("{at}[{k}]"))
        });
        return Ok(toml::Value::Array(items.collect::<PyResult<_>>()?));
    }
    if v.is_none() {
        return Err(dict_error(
            py,
            at,
            "None has no TOML spelling; leave the key out",
        ));
    }
    if v.hasattr("tolist")? {
        return value(&v.call_method0("tolist")?, at);
    }
    let reason = format!(
        "a {} has no TOML spelling (give numbers, strings, booleans, lists and dicts)",
        v.get_type().name()?
    );
    Err(dict_error(py, at, &reason))
}

/// The built-in scene `name` as a dict with the keys of its TOML.
pub fn built_in_dict<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let b = find(name)?;
    let t: toml::Table = b
        .toml
        .parse()
        .map_err(|e: toml::de::Error| dict_error(py, "", e.message()))?;
    to_dict(py, &t)
}

/// The built-in scene `name`, or a `KeyError` listing them.
pub fn find(name: &str) -> PyResult<&'static built_in::BuiltIn> {
    built_in::find(name).ok_or_else(|| {
        pyo3::exceptions::PyKeyError::new_err(format!(
            "no built-in scene named {name}; grainflow.scenes() lists them"
        ))
    })
}

/// A TOML table as a dict.
fn to_dict<'py>(py: Python<'py>, t: &toml::Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in t {
        d.set_item(k, to_py(py, v)?)?;
    }
    Ok(d)
}

/// A TOML value as a Python value (dates as their TOML text).
fn to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    use toml::Value as V;
    Ok(match v {
        V::String(s) => PyString::new(py, s).into_any(),
        V::Integer(i) => i.into_pyobject(py)?.into_any(),
        V::Float(x) => x.into_pyobject(py)?.into_any(),
        V::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        V::Datetime(d) => PyString::new(py, &d.to_string()).into_any(),
        V::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        V::Table(t) => to_dict(py, t)?.into_any(),
    })
}
