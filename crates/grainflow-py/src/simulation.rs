//! `grainflow.Simulation`: the library's `Simulation`, built, stepped and resumed as the
//! command line does, with its own thread pool and NumPy views of its state.
//!
//! Stepping releases the GIL and runs in the simulation's rayon pool (`threads=`, as
//! `grainflow --threads`); it takes the GIL back about every 50 ms to let Ctrl-C through.
//! Nothing is added to a step: the same `Simulation::step` in the same loop gives the same bits
//! as `grainflow run`.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use grainflow::io::checkpoint::Checkpoint;
use grainflow::scene::Method;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyType};

use crate::errors::{self, Error};
use crate::source::{self, Loaded};
use crate::state;
use crate::views::{self, Field, Views};

/// How long a batch of steps runs without the GIL before Python's signals are checked.
const BATCH: Duration = Duration::from_millis(50);

/// A grainflow simulation driven from Python (see the module's documentation and
/// docs/python.md).
#[pyclass(module = "grainflow", name = "Simulation")]
pub struct Simulation {
    /// The library's simulation: state, physics, method.
    pub(crate) sim: grainflow::Simulation,
    /// The worker threads of this simulation.
    pool: rayon::ThreadPool,
    /// The NumPy views handed out.
    views: Mutex<Views>,
    /// Whether the per-pair forces kept describe the current state (a step since they were
    /// asked for, the grains not moved since).
    pub(crate) contacts_ready: bool,
}

/// How far a call steps.
#[derive(Clone, Copy)]
enum Goal {
    /// This many steps.
    Steps(u64),
    /// Until the simulated time reaches this (s), as `Simulation::run_until` counts.
    Time(f64),
}

/// A thread pool of `threads` workers (all cores when `None`), as `grainflow --threads`.
pub fn pool(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    if threads == Some(0) {
        return Err(PyValueError::new_err(
            "threads: must be at least 1 (or None for every core)",
        ));
    }
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        b = b.num_threads(n);
    }
    b.build()
        .map_err(|e| Error::new_err(format!("cannot start the thread pool: {e}")))
}

impl Simulation {
    /// Builds `loaded` in a pool of `threads`, refusing its problems first as `grainflow run`
    /// does (all of them in the error's `problems`).
    fn build(py: Python<'_>, loaded: Loaded, threads: Option<usize>) -> PyResult<Simulation> {
        if let Some(err) = errors::scene_problems(py, &loaded.scene.problems()) {
            return Err(err);
        }
        let pool = pool(threads)?;
        let Loaded { scene, base } = loaded;
        let sim = py
            .detach(|| pool.install(|| grainflow::Simulation::new(scene, &base)))
            .map_err(|e| errors::to_py(py, &e))?;
        Ok(Simulation::wrap(sim, pool))
    }

    fn wrap(sim: grainflow::Simulation, pool: rayon::ThreadPool) -> Simulation {
        let contacts_ready = sim.reactions().is_some() && sim.world.step == 0;
        Simulation {
            sim,
            pool,
            views: Mutex::new(Views::default()),
            contacts_ready,
        }
    }

    /// The record of views (a poisoned lock still holds a consistent record: it is only
    /// pushed to and filtered).
    fn views(&self) -> MutexGuard<'_, Views> {
        self.views.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lets the particle arrays be written: retires those live views show.
    fn release(&mut self, py: Python<'_>) {
        let views = self.views.get_mut().unwrap_or_else(|e| e.into_inner());
        views.release(py, &mut self.sim.world.particles);
    }

    /// Whether the simulated time has reached `t`, as `Simulation::run_until` decides.
    fn reached(&self, t: f64) -> bool {
        self.sim.world.time + 0.5 * self.sim.physics.dt >= t
    }

    /// Steps towards `goal` without the GIL, in batches of about [`BATCH`] between which
    /// Python's signals are checked; returns the steps taken.
    fn advance(&mut self, py: Python<'_>, goal: Goal) -> PyResult<u64> {
        self.release(py);
        let mut done = 0;
        loop {
            let finished = |sim: &grainflow::Simulation, done: u64| match goal {
                Goal::Steps(n) => done >= n,
                Goal::Time(t) => sim.world.time + 0.5 * sim.physics.dt >= t,
            };
            let (sim, pool) = (&mut self.sim, &self.pool);
            let (taken, result) = py.detach(|| {
                pool.install(|| {
                    let start = Instant::now();
                    let mut taken = 0;
                    while !finished(sim, done + taken) {
                        if let Err(e) = sim.step() {
                            return (taken, Err(e));
                        }
                        taken += 1;
                        if start.elapsed() > BATCH {
                            break;
                        }
                    }
                    (taken, Ok(()))
                })
            });
            done += taken;
            if taken > 0 {
                self.contacts_ready = self.sim.reactions().is_some();
            }
            result.map_err(|e| errors::to_py(py, &e))?;
            if finished(&self.sim, done) {
                return Ok(done);
            }
            py.check_signals()?;
        }
    }

    /// A read-only view of `field`.
    fn view<'py>(slf: &Bound<'py, Self>, field: Field) -> PyResult<Bound<'py, PyAny>> {
        let this = slf.borrow();
        let mut views = this.views();
        views.view(slf.as_any(), &this.sim.world.particles, field)
    }

    /// Checks `value` as `(n, 3)` finite float64 rows for `name`, then lets `put` write them.
    fn set_vectors(
        &mut self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        name: &str,
        put: impl FnOnce(&mut grainflow::Simulation, Vec<glam::DVec3>),
    ) -> PyResult<()> {
        let rows = views::vectors_from(value, self.sim.world.particles.len(), name)?;
        self.release(py);
        put(&mut self.sim, rows);
        Ok(())
    }
}

#[pymethods]
impl Simulation {
    /// Builds a simulation from a scene file, TOML text or a built-in scene's name (as
    /// `grainflow run SCENE` reads it). `threads`: worker threads (default: every core;
    /// results are bit-identical for any count). `base`: the folder relative paths in the
    /// scene are read from (default: the file's folder, else the current one). Raises
    /// `SceneError` for a scene the library refuses, worded as the command line words it.
    #[classmethod]
    #[pyo3(signature = (scene, *, threads=None, base=None))]
    fn from_toml(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        scene: &Bound<'_, PyAny>,
        threads: Option<usize>,
        base: Option<PathBuf>,
    ) -> PyResult<Simulation> {
        if scene.is_instance_of::<PyDict>() {
            return Err(PyTypeError::new_err(
                "from_toml takes a path, TOML text or a built-in scene's name; use from_dict for a dict",
            ));
        }
        Simulation::build(py, source::load(py, scene, base)?, threads)
    }

    /// Builds a simulation from a dict with the keys of the TOML (as `tomllib.load` gives
    /// it, or `grainflow.scene(name)`); NumPy arrays and scalars are taken as lists and
    /// numbers. Errors are the TOML reader's, naming the field, in a file called `dict`.
    #[classmethod]
    #[pyo3(signature = (scene, *, threads=None, base=None))]
    fn from_dict(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        scene: &Bound<'_, PyDict>,
        threads: Option<usize>,
        base: Option<PathBuf>,
    ) -> PyResult<Simulation> {
        Simulation::build(py, source::load(py, scene.as_any(), base)?, threads)
    }

    /// Resumes a run from a checkpoint, as `grainflow run SCENE --resume CHECKPOINT`: the scene
    /// (a path, text, name or dict) must be the checkpoint's, apart from its duration and
    /// outputs; the run continues bit for bit.
    #[classmethod]
    #[pyo3(signature = (scene, checkpoint, *, threads=None, base=None))]
    fn resume(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        scene: &Bound<'_, PyAny>,
        checkpoint: PathBuf,
        threads: Option<usize>,
        base: Option<PathBuf>,
    ) -> PyResult<Simulation> {
        let Loaded { scene, base } = source::load(py, scene, base)?;
        let ckpt = Checkpoint::read(&checkpoint).map_err(|e| errors::to_py(py, &e))?;
        let pool = pool(threads)?;
        let sim = py
            .detach(|| pool.install(|| grainflow::Simulation::resume(scene, &base, ckpt)))
            .map_err(|e| {
                let context = format!("cannot resume {}", checkpoint.display());
                errors::to_py_with(py, &e, Some(&context))
            })?;
        Ok(Simulation::wrap(sim, pool))
    }

    /// Advances `n` steps with the scene's method (the GIL released).
    #[pyo3(signature = (n=1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<()> {
        self.advance(py, Goal::Steps(n)).map(|_| ())
    }

    /// Steps until the simulated time reaches `until` (s). With `callback`, calls
    /// `callback(sim)` after the step that reaches each multiple of `every` (s) past the start
    /// (after every step when `every` is None); a callback returning `False` stops the run.
    /// Returns True when the run reached `until`, False when the callback stopped it.
    #[pyo3(signature = (until, every=None, callback=None))]
    fn run(
        slf: &Bound<'_, Self>,
        until: f64,
        every: Option<f64>,
        callback: Option<Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let py = slf.py();
        if !until.is_finite() {
            return Err(PyValueError::new_err(format!(
                "until: must be finite, got {until}"
            )));
        }
        let (start, dt) = {
            let this = slf.borrow();
            (this.sim.world.time, this.sim.physics.dt)
        };
        if let Some(e) = every {
            if !(e.is_finite() && e >= dt) {
                return Err(PyValueError::new_err(format!(
                    "every: must be at least the time step {dt:e} s, got {e}"
                )));
            }
        }
        if let Some(c) = &callback {
            if !c.is_callable() {
                return Err(PyTypeError::new_err("callback: must be callable"));
            }
        }
        let mut mark = 1.0;
        loop {
            let goal = match (every, &callback) {
                (Some(e), _) => Goal::Time((start + mark * e).min(until)),
                (None, Some(_)) => Goal::Steps(1),
                (None, None) => Goal::Time(until),
            };
            let at_mark = match (every, goal) {
                (Some(e), _) => start + mark * e < until + 0.5 * dt,
                (None, _) => true,
            };
            {
                let mut this = slf.borrow_mut();
                if this.reached(until) {
                    return Ok(true);
                }
                this.advance(py, goal)?;
            }
            if let (Some(c), true) = (&callback, at_mark) {
                let answer = c.call1((slf,))?;
                if answer.cast::<PyBool>().is_ok_and(|b| !b.is_true()) {
                    return Ok(false);
                }
            }
            mark += 1.0;
        }
    }

    /// Writes the whole state to `path`, as the command line's checkpoints (`--resume` and
    /// `Simulation.resume` continue it bit for bit).
    fn checkpoint(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let ckpt = self.sim.checkpoint();
        py.detach(|| ckpt.write(&path))
            .map_err(|e| errors::to_py(py, &e))
    }

    /// Keeps, from the next step on, the per-pair forces that `contacts()` and `stress()`
    /// read (soft spheres; a scene with `output.contacts` or `output.stress` keeps them from
    /// the start). Keeping them costs a little time per step.
    fn keep_contacts(&mut self) -> PyResult<()> {
        state::soft_only(&self.sim, "keep_contacts()")?;
        if self.sim.reactions().is_none() {
            self.sim.keep_reactions();
            self.contacts_ready = false;
        }
        Ok(())
    }

    /// The touching grain pairs of the last step, as arrays: `ids` (m, 2), `points`,
    /// `normals` (unit, from the first grain to the second), `tangential_forces`, `rolling`
    /// (m, 3), `overlaps`, `normal_forces` (> 0 repulsive), `twisting` (m,); forces and
    /// couples on the second grain (N, N m). Needs `keep_contacts()` and a step since.
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        state::contacts(py, self)
    }

    /// Energies of the current state (J): `translational` Σ ½ m v², `rotational` Σ ½ I ω²,
    /// `potential` (gravity fields, self-gravity, rotating frame).
    fn energies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let e = self.sim.energies();
        let d = PyDict::new(py);
        d.set_item("translational", e.translational)?;
        d.set_item("rotational", e.rotational)?;
        d.set_item("potential", e.potential)?;
        Ok(d)
    }

    /// The stress tensor (Pa, 3 × 3, compression negative) averaged over the box [lo, hi]
    /// (m) from the pair contacts whose contact point lies in it (004 eq 3). Needs
    /// `keep_contacts()` and a step since.
    fn stress<'py>(
        &self,
        py: Python<'py>,
        lo: [f64; 3],
        hi: [f64; 3],
    ) -> PyResult<Bound<'py, PyAny>> {
        state::volume_stress(py, self, lo, hi)
    }

    /// Row `axis` of the stress tensor (Pa, 3 values) on the plane x_axis = `at` (m) of area
    /// `area` (m²): the force per area the grains above exert on those below (003 eq 36).
    /// Needs `keep_contacts()` and a step since.
    fn plane_stress<'py>(
        &self,
        py: Python<'py>,
        axis: usize,
        at: f64,
        area: f64,
    ) -> PyResult<Bound<'py, PyAny>> {
        state::plane_stress(py, self, axis, at, area)
    }

    /// The walls, one dict each: `offset` (m) and `rotation` (quaternion x, y, z, w) from the
    /// scene placement about `center` (m), `velocity` (m/s), `omega` (rad/s), and the `force`
    /// (N) and `torque` about the origin (N m) the grains exert on it at the last step (soft
    /// spheres; None for the other methods).
    #[getter]
    fn walls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        state::walls(py, &self.sim)
    }

    /// The force (N) on the walls from grains touching more than one wall at once, which
    /// no single wall's `force` includes, and how many such grains there are; None for
    /// methods other than soft spheres.
    #[getter]
    fn shared_wall_force<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        state::shared_wall_force(py, &self.sim)
    }

    /// Simulated time (s).
    #[getter]
    fn time(&self) -> f64 {
        self.sim.world.time
    }

    /// Time step (s).
    #[getter]
    fn dt(&self) -> f64 {
        self.sim.physics.dt
    }

    /// Steps taken since the run began (counting those before a checkpoint).
    #[getter]
    fn steps(&self) -> u64 {
        self.sim.world.step
    }

    /// Worker threads of this simulation.
    #[getter]
    fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Number of grains.
    fn __len__(&self) -> usize {
        self.sim.world.particles.len()
    }

    fn __repr__(&self) -> String {
        let method = match self.sim.scene.simulation.method {
            Method::Soft(_) => "soft",
            Method::Hard(_) => "hard",
            Method::ApproxHard(_) => "approx_hard",
        };
        format!(
            "<grainflow.Simulation: {} grains, {} walls, {method}, t = {:e} s, dt = {:e} s>",
            self.sim.world.particles.len(),
            self.sim.world.walls.len(),
            self.sim.world.time,
            self.sim.physics.dt
        )
    }

    /// Centres (m), a read-only (n, 3) view; set with a float64 (n, 3) array of finite values
    /// (wrapped into the periodic box; the neighbour list is rebuilt).
    #[getter]
    fn positions<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Simulation::view(slf, Field::Positions)
    }

    #[setter]
    fn set_positions(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_vectors(py, value, "positions", |sim, rows| {
            let periodic = sim.physics.periodic;
            for (x, r) in sim.world.particles.pos.iter_mut().zip(rows) {
                *x = periodic.wrap(r);
            }
            sim.world.rebuild_neighbors(&periodic);
        })?;
        self.contacts_ready = false;
        Ok(())
    }

    /// Velocities (m/s), a read-only (n, 3) view; set with a float64 (n, 3) array of finite
    /// values.
    #[getter]
    fn velocities<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Simulation::view(slf, Field::Velocities)
    }

    #[setter]
    fn set_velocities(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_vectors(py, value, "velocities", |sim, rows| {
            sim.world.particles.vel = rows;
        })
    }

    /// Angular velocities (rad/s), a read-only (n, 3) view; set with a float64 (n, 3) array
    /// of finite values.
    #[getter]
    fn spins<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Simulation::view(slf, Field::Spins)
    }

    #[setter]
    fn set_spins(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_vectors(py, value, "spins", |sim, rows| {
            sim.world.particles.omega = rows;
        })
    }

    /// Forces on each grain at the last evaluation (N), a read-only (n, 3) view.
    #[getter]
    fn forces<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Simulation::view(slf, Field::Forces)
    }

    /// Torques on each grain at the last evaluation (N m), a read-only (n, 3) view.
    #[getter]
    fn torques<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Simulation::view(slf, Field::Torques)
    }

    /// Radii (m), a read-only (n,) view.
    #[getter]
    fn radii<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Simulation::view(slf, Field::Radii)
    }

    /// Masses (kg), a read-only (n,) view.
    #[getter]
    fn masses<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Simulation::view(slf, Field::Masses)
    }

    /// Stable ids (uint64), a read-only (n,) view; the order of grains may change between
    /// steps (sorting along a curve, grains inserted or removed), ids do not.
    #[getter]
    fn ids<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Simulation::view(slf, Field::Ids)
    }
}
