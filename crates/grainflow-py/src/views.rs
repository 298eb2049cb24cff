//! NumPy views of the particle arrays, without copies, and the setters that check what they
//! are given.
//!
//! A view is a read-only NumPy array over the simulation's own memory (`Vec<DVec3>` as
//! `(n, 3)` float64, `Vec<f64>` and `Vec<u64>` as `(n,)`); its `base` is the simulation
//! object, which it keeps alive. Soundness rests on one rule: **the simulation never changes
//! or frees memory that a live view shows.** Every view is recorded with a weak reference
//! (a slice, a `.view()` or a `memoryview` of it keeps the view itself alive, as its base).
//! Before anything that writes particle arrays — a step, a run, a setter — the arrays that
//! still have a live view are *retired*: the simulation goes on with a copy (the same bits, so
//! results do not change), and the retired memory is kept, unchanged, until the last of its
//! views is gone. So a view always shows the state when it was taken; a view taken after a
//! step shows the state after it. Without live views (the usual case: views read inside a
//! callback and dropped), nothing is copied.

use glam::DVec3;
use grainflow::particles::Particles;
use numpy::ndarray::{ArrayView1, ArrayView2};
use numpy::prelude::*;
use numpy::{PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyWeakrefMethods, PyWeakrefReference};

// A `DVec3` is three contiguous f64 (glam's `repr(C)`), which an `(n, 3)` array reads.
const _: () = assert!(std::mem::size_of::<DVec3>() == 24 && std::mem::align_of::<DVec3>() == 8);

/// A particle array a view can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Centres (m).
    Positions,
    /// Velocities (m/s).
    Velocities,
    /// Angular velocities (rad/s).
    Spins,
    /// Forces of the last evaluation (N).
    Forces,
    /// Torques of the last evaluation (N m).
    Torques,
    /// Radii (m).
    Radii,
    /// Masses (kg).
    Masses,
    /// Ids.
    Ids,
}

/// Memory a live view still shows (a `Vec` of the array's elements), owned until its views
/// are gone and never read from Rust.
type Retired = Box<dyn std::any::Any + Send + Sync>;

/// The views handed out, and the memory retired under live ones.
#[derive(Default)]
pub struct Views {
    /// Views of the simulation's current arrays.
    live: Vec<(Field, Py<PyWeakrefReference>)>,
    /// Arrays the simulation moved off while views showed them, with those views.
    retired: Vec<(Retired, Vec<Py<PyWeakrefReference>>)>,
}

/// Whether the object behind `r` still lives.
fn alive(py: Python<'_>, r: &Py<PyWeakrefReference>) -> bool {
    r.bind(py).upgrade().is_some()
}

impl Views {
    /// Retires every array of `p` a live view shows, and frees retired memory whose views
    /// are all gone: after this, `p` may be written.
    pub fn release(&mut self, py: Python<'_>, p: &mut Particles) {
        self.retired
            .retain(|(_, views)| views.iter().any(|r| alive(py, r)));
        let live = std::mem::take(&mut self.live);
        let mut fields: Vec<(Field, Vec<Py<PyWeakrefReference>>)> = Vec::new();
        for (field, r) in live.into_iter().filter(|(_, r)| alive(py, r)) {
            match fields.iter_mut().find(|(f, _)| *f == field) {
                Some((_, views)) => views.push(r),
                None => fields.push((field, vec![r])),
            }
        }
        for (field, views) in fields {
            self.retired.push((retire(p, field), views));
        }
    }

    /// A read-only view of `field` of the simulation `owner` (whose particles are `p`),
    /// recorded so that [`Views::release`] keeps its memory.
    pub fn view<'py>(
        &mut self,
        owner: &Bound<'py, PyAny>,
        p: &Particles,
        field: Field,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = owner.py();
        let vectors = |v: &[DVec3]| -> PyResult<Bound<'py, PyAny>> {
            let flat: &[f64] = bytemuck::cast_slice(v);
            let a = ArrayView2::from_shape((v.len(), 3), flat)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            // SAFETY: the array's base is `owner`, which owns `v`; `v` is neither written
            // nor freed while the view lives (`Views::release`, module comment).
            let array = unsafe { PyArray2::borrow_from_array(&a, owner.clone()) };
            read_only(array)
        };
        let array = match field {
            Field::Positions => vectors(&p.pos)?,
            Field::Velocities => vectors(&p.vel)?,
            Field::Spins => vectors(&p.omega)?,
            Field::Forces => vectors(&p.force)?,
            Field::Torques => vectors(&p.torque)?,
            Field::Radii => scalars(owner, &p.radius)?,
            Field::Masses => scalars(owner, &p.mass)?,
            Field::Ids => scalars(owner, &p.id)?,
        };
        // Reading a view in a loop without stepping must not grow the record.
        if self.live.len() >= 64 {
            self.live.retain(|(_, r)| alive(py, r));
        }
        self.live
            .push((field, PyWeakrefReference::new(&array)?.unbind()));
        Ok(array)
    }
}

/// A read-only `(n,)` view of `v`, whose owner is `owner`.
fn scalars<'py, T: numpy::Element>(
    owner: &Bound<'py, PyAny>,
    v: &[T],
) -> PyResult<Bound<'py, PyAny>> {
    let a = ArrayView1::from(v);
    // SAFETY: as for the vectors in `Views::view`.
    let array = unsafe { PyArray1::borrow_from_array(&a, owner.clone()) };
    read_only(array)
}

/// `array` with its WRITEABLE flag cleared (which Python cannot set again on an array that
/// does not own its memory).
fn read_only<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    array: Bound<'py, numpy::PyArray<T, D>>,
) -> PyResult<Bound<'py, PyAny>> {
    let guard = array
        .try_readwrite()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    drop(guard.make_nonwriteable());
    Ok(array.into_any())
}

/// Moves `field` of `p` off its memory onto a copy, returning the old memory.
fn retire(p: &mut Particles, field: Field) -> Retired {
    fn off<T: Clone + Send + Sync + 'static>(v: &mut Vec<T>) -> Retired {
        Box::new(std::mem::replace(v, v.clone()))
    }
    match field {
        Field::Positions => off(&mut p.pos),
        Field::Velocities => off(&mut p.vel),
        Field::Spins => off(&mut p.omega),
        Field::Forces => off(&mut p.force),
        Field::Torques => off(&mut p.torque),
        Field::Radii => off(&mut p.radius),
        Field::Masses => off(&mut p.mass),
        Field::Ids => off(&mut p.id),
    }
}

/// The rows of `value`, which must be a float64 NumPy array of shape `(n, 3)` with finite
/// entries; `name` names the attribute in the errors.
pub fn vectors_from(value: &Bound<'_, PyAny>, n: usize, name: &str) -> PyResult<Vec<DVec3>> {
    let Ok(array) = value.cast::<PyArray2<f64>>() else {
        let what = match value.getattr("dtype") {
            Ok(dtype) => format!("an array of {dtype} with shape {}", value.getattr("shape")?),
            Err(_) => format!("a {}", value.get_type().name()?),
        };
        return Err(PyTypeError::new_err(format!(
            "{name}: expected a NumPy array of float64 with shape ({n}, 3), got {what}"
        )));
    };
    let shape = array.shape().to_vec();
    if shape != [n, 3] {
        return Err(PyValueError::new_err(format!(
            "{name}: expected shape ({n}, 3), got {shape:?}"
        )));
    }
    let read: PyReadonlyArray2<f64> = array.readonly();
    let rows: Vec<DVec3> = read
        .as_array()
        .rows()
        .into_iter()
        .map(|r| DVec3::new(r[0], r[1], r[2]))
        .collect();
    if let Some(k) = rows.iter().position(|v| !v.is_finite()) {
        let v = rows[k];
        return Err(PyValueError::new_err(format!(
            "{name}[{k}]: must be finite, got [{}, {}, {}]",
            v.x, v.y, v.z
        )));
    }
    Ok(rows)
}
