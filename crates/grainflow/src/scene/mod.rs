//! Scenes: plain data read from TOML, checked as a whole before anything physical happens.
//!
//! Unknown keys are refused by the parser (with line and column); impossible values are
//! refused by [`Scene::problems`] with the field's path and the reason
//! (`walls[2].half_size: must be > 0, got [-1, 2]`). Derived numbers that depend on the
//! particles (contact time, dt) are checked when the simulation is built.

use std::path::Path;

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::boundary::Periodic;
use crate::contact::{Cohesion, ContactModel, Normal};
use crate::frame::Frame;
use crate::gravity::Gravity;
use crate::material::{Material, PairOverride};
use crate::{Error, Result};

pub mod built_in;
pub mod estimate;
mod inserts;
mod method;
mod particle_files;
mod particles;
mod pebbles;
mod planar;
mod recirculation;
mod stress;
mod tallies;
mod tile;
mod wall_check;
pub mod walls;

pub use inserts::{InsertSpec, MaterialShare, Region, SizeDistribution};
pub use method::{ApproxHardOptions, Friction, HardOptions, Integrator, Method, SoftOptions};
pub use particle_files::{FileSource, LammpsDataSource};
pub(crate) use particles::make_particles;
pub use particles::{
    AnnulusSource, CylinderLayerSource, LatticeSource, ListSource, PackSource, Packing,
    ParticleSource, RandomSource, SphereSpec,
};
pub use recirculation::{Chute, Inlet, Recirculation};
pub use stress::StressOutput;
pub use tallies::{Cadence, ForceSpec, ProbabilitySpec, TalliesSpec, WearSpec};

/// A whole scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Method, duration, time step, seed and run limits.
    pub simulation: SimulationSpec,
    /// The contact law; none (`normal = "none"`) when the table is absent.
    #[serde(default = "ContactModel::none")]
    pub contact: ContactModel,
    /// Materials of particles and walls.
    pub materials: Vec<Material>,
    /// Explicit values for pairs of materials.
    #[serde(default)]
    pub pairs: Vec<PairOverride>,
    /// Gravity fields.
    #[serde(default)]
    pub gravity: Gravity,
    /// Periodic boundaries.
    #[serde(default)]
    pub boundary: BoundarySpec,
    /// Rotating reference frame (Coriolis and centrifugal forces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Frame>,
    /// Walls.
    #[serde(default)]
    pub walls: Vec<WallSpec>,
    /// Ways to make particles, applied in order.
    #[serde(default)]
    pub particles: Vec<ParticleSource>,
    /// What to write and how often.
    #[serde(default)]
    pub output: OutputSpec,
    /// Pebbles taken from the exit chutes and dropped back in at the top (001 chapter 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recirculation: Option<Recirculation>,
    /// Grains poured in during the run at a rate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inserts: Vec<InsertSpec>,
}

/// The `[boundary]` table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundarySpec {
    /// Periodic axes with their intervals, e.g. `periodic = { x = [0.0, 0.055] }`.
    #[serde(default)]
    pub periodic: Periodic,
}

/// The keyword `"auto"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Auto {
    /// Chosen by grainflow.
    Auto,
}

/// The time step: `"auto"` (t_c/15, 002 §5.2) or seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TimeStep {
    /// Given in seconds.
    Fixed(f64),
    /// t_c/15 of the stiffest, lightest pair.
    Auto(Auto),
}

/// The Verlet skin: `"auto"` (sized from the fastest grain at every rebuild, soft spheres) or
/// metres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Skin {
    /// Given in metres.
    Fixed(f64),
    /// 200 steps of the fastest grain's drift, within 0.01 r_min … 0.2 r_max
    /// ([`crate::neighbor::AutoSkin`]).
    Auto(Auto),
}

/// A number, or the string `"auto"` (`None`), with an error that says which two it takes.
fn number_or_auto<'de, D: serde::Deserializer<'de>>(
    d: D,
    what: &'static str,
    dim: crate::units::Dimension,
) -> std::result::Result<Option<f64>, D::Error> {
    use serde::de::{Error, Visitor};
    struct V(&'static str, crate::units::Dimension);
    impl Visitor<'_> for V {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(
                f,
                "{} (a number or a string with a unit) or \"auto\"",
                self.0
            )
        }
        fn visit_f64<E: Error>(self, v: f64) -> std::result::Result<Option<f64>, E> {
            Ok(Some(v))
        }
        fn visit_i64<E: Error>(self, v: i64) -> std::result::Result<Option<f64>, E> {
            Ok(Some(v as f64))
        }
        fn visit_u64<E: Error>(self, v: u64) -> std::result::Result<Option<f64>, E> {
            Ok(Some(v as f64))
        }
        fn visit_str<E: Error>(self, v: &str) -> std::result::Result<Option<f64>, E> {
            let numeric = v
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c));
            match v {
                "auto" => Ok(None),
                _ if !numeric => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                _ => crate::units::convert(v, self.1)
                    .map(Some)
                    .map_err(E::custom),
            }
        }
    }
    d.deserialize_any(V(what, dim))
}

impl<'de> Deserialize<'de> for TimeStep {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(
            number_or_auto(d, "a time step in seconds", crate::units::TIME)?
                .map_or(TimeStep::Auto(Auto::Auto), TimeStep::Fixed),
        )
    }
}

impl<'de> Deserialize<'de> for Skin {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(number_or_auto(d, "a skin in metres", crate::units::LENGTH)?
            .map_or(Skin::Auto(Auto::Auto), Skin::Fixed))
    }
}

/// The `[simulation]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// How grains move, with the method's options.
    #[serde(default)]
    pub method: Method,
    /// Simulated time to run (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub duration: f64,
    /// Time step.
    pub dt: TimeStep,
    /// Seed of the random generator (ChaCha8) used to make particles.
    #[serde(default)]
    pub seed: u64,
    /// Largest overlap allowed, as a fraction of the smaller radius; a run past it stops.
    #[serde(default = "default_max_overlap")]
    pub max_overlap: f64,
    /// Verlet skin; when absent, `"auto"` for soft spheres and 0.2 × the largest radius for
    /// approx_hard (hard spheres size their own).
    #[serde(default)]
    pub skin: Option<Skin>,
    /// Box [[x, y, z], [x, y, z]] (m) that grains must stay in; unbounded when absent.
    #[serde(default, deserialize_with = "crate::units::length")]
    pub domain: Option<[DVec3; 2]>,
    /// How large a given dt may be: "accuracy" (t_c/10, default) or "contact_time" (t_c).
    #[serde(default)]
    pub dt_limit: crate::timestep::DtLimit,
    /// Simulated time at the start (s), 001 `initial_time`; the run ends at start_time + duration.
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "crate::units::time"
    )]
    pub start_time: f64,
    /// 3 (spheres) or 2 (discs in the xy plane, density per area; see `planar.rs`).
    #[serde(default = "three")]
    pub dimensions: u8,
    /// Soft method: every this many steps, the particles are sorted again along the Morton
    /// curve they are made in, so that grains near in space stay near in memory as a flow
    /// mixes them (LAMMPS's `atom_modify sort`); never when absent. Results then differ from
    /// an unsorted run in the last bits (sums are taken in another order), not between thread
    /// counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_every: Option<u64>,
    /// A run shared among MPI ranks: at the start and every this many neighbour-list
    /// rebuilds, the bricks are cut again by recursive bisection of the grains' work (each
    /// grain and the pairs listed in its row); equal slabs, never moved, when absent. One
    /// process has nothing to balance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_every: Option<u64>,
    /// What `balance_every` balances: the grains' work (the same bricks on every run), or
    /// that work weighed by the time each rank took for it.
    #[serde(default, skip_serializing_if = "BalanceBy::is_work")]
    pub balance_by: BalanceBy,
}

/// What the bricks of a run shared among MPI ranks are balanced by (`simulation.balance_by`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BalanceBy {
    /// Each grain and the pairs listed in its row: the same bricks on every run of a scene.
    #[default]
    Work,
    /// That work weighed by each rank's wall time per unit of it since the last balancing,
    /// so that a slow or shared core gets less: the bricks differ from run to run, the
    /// results never (they keep the bits of one process for any bricks).
    Time,
}

impl BalanceBy {
    fn is_work(&self) -> bool {
        *self == BalanceBy::Work
    }
}

impl SimulationSpec {
    /// A soft-sphere run of `duration` (s) with time step `dt`, every other field at the value
    /// a scene file gets when it leaves the field out.
    pub fn new(duration: f64, dt: TimeStep) -> Self {
        SimulationSpec {
            method: Method::default(),
            duration,
            dt,
            seed: 0,
            max_overlap: default_max_overlap(),
            skin: None,
            domain: None,
            dt_limit: Default::default(),
            start_time: 0.0,
            dimensions: three(),
            sort_every: None,
            balance_every: None,
            balance_by: BalanceBy::Work,
        }
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

fn three() -> u8 {
    3
}

fn default_max_overlap() -> f64 {
    0.3
}

/// The wall vocabulary a scene shares with the runtime: motions, sides, surfaces, indentations.
pub use crate::walls::{Indentation, Motion, Side, Surface};
pub(crate) use walls::make_walls;
pub use walls::{ShapeSpec, WallSpec};

/// The `[output]` table; intervals in simulated seconds, absent = not written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Snapshots (VTU + PVD, LAMMPS dump, walls VTP).
    #[serde(default, deserialize_with = "crate::units::time")]
    pub snapshot_interval: Option<f64>,
    /// Rows of the CSV time series.
    #[serde(default, deserialize_with = "crate::units::time")]
    pub series_interval: Option<f64>,
    /// Checkpoints that resume bit for bit.
    #[serde(default, deserialize_with = "crate::units::time")]
    pub checkpoint_interval: Option<f64>,
    /// Stress on planes and in boxes, as a CSV series (`stress.csv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stress: Option<StressOutput>,
    /// PEBBLES tallies (001 §4.3): energy, velocity, probability table, wear, force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tallies: Option<TalliesSpec>,
    /// With snapshots, a pkdgrav `ss` file per frame in these units (`"pkdgrav"` or `"scene"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ss: Option<crate::io::ss::SsUnits>,
    /// Force and torque on every wall at each series row (`walls.csv`; soft spheres).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wall_forces: bool,
    /// With snapshots, the contact network (`contacts.dump`, `frames/contacts_NNNNNN.vtp`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contacts: bool,
}

/// Largest number of grains one particle source may make: refused before anything is
/// allocated (each grain costs about a kilobyte with its neighbour slots).
pub(crate) const MAX_GRAINS: f64 = 1e8;

/// Refuses `v` at `field` unless it is a finite number > 0.
pub(crate) fn positive(problems: &mut Vec<Error>, field: impl Into<String>, v: f64) {
    if !(v.is_finite() && v > 0.0) {
        problems.push(Error::scene(
            field,
            format!("must be a finite number > 0, got {v}"),
        ));
    }
}

fn in_range(problems: &mut Vec<Error>, field: impl Into<String>, v: f64, lo: f64, hi: f64) {
    if !(v >= lo && v <= hi) {
        problems.push(Error::scene(
            field,
            format!("must be in [{lo}, {hi}], got {v}"),
        ));
    }
}

/// Refuses `v` at `field` unless every component is finite.
pub(crate) fn finite(problems: &mut Vec<Error>, field: impl Into<String>, v: DVec3) {
    if !v.is_finite() {
        problems.push(Error::scene(field, format!("must be finite, got {v:?}")));
    }
}

/// Refuses `v` at `field` unless it is a finite non-zero vector.
pub(crate) fn nonzero(problems: &mut Vec<Error>, field: impl Into<String>, v: DVec3) {
    if !(v.is_finite() && v.length_squared() > 0.0) {
        problems.push(Error::scene(
            field,
            format!("must be a finite non-zero vector, got {v:?}"),
        ));
    }
}

fn box_corners(problems: &mut Vec<Error>, field: &str, min: DVec3, max: DVec3) {
    finite(problems, format!("{field}.min"), min);
    finite(problems, format!("{field}.max"), max);
    if !min.cmplt(max).all() {
        problems.push(Error::scene(
            format!("{field}.max"),
            format!("must exceed min on every axis, got min {min:?}, max {max:?}"),
        ));
    }
}

impl Scene {
    /// Parses TOML text; `origin` names the source in messages, which are one line with the
    /// place and the dotted key: `scene.toml:15:1: materials[0].sliding_fricton: unknown field
    /// `sliding_fricton`, expected one of …`.
    pub fn from_toml(text: &str, origin: &str) -> Result<Scene> {
        let parse_error = |e: &toml::de::Error, key: Option<String>| {
            let place = e.span().map_or(String::new(), |span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |k| k + 1) + 1;
                format!(":{line}:{column}")
            });
            let key = key.map_or(String::new(), |k| format!("{k}: "));
            Error::Parse {
                path: format!("{origin}{place}"),
                message: format!("{key}{}", e.message().replace('\n', " ")),
            }
        };
        let document = toml::Deserializer::parse(text).map_err(|e| parse_error(&e, None))?;
        serde_path_to_error::deserialize(document).map_err(|e| {
            if let Some(old) = method::old_spelling(text, origin) {
                return old;
            }
            // The path of a value at the top level is ".": nothing to name beyond the place.
            // Inside a tagged enum serde's path stops at the enum; a unit error names its
            // text, which finds the field.
            let mut key = e.path().to_string();
            if let Some(whole) = crate::units::field_of_error(text, &key, e.inner().message()) {
                key = whole;
            }
            parse_error(e.inner(), (key != ".").then_some(key))
        })
    }

    /// Parses the scene a checkpoint holds; one written before the method's options moved
    /// into `simulation.method` is read in the new spelling.
    pub fn from_checkpoint_toml(text: &str) -> Result<Scene> {
        let origin = "checkpoint scene";
        let mut doc: toml::Table = toml::from_str(text).map_err(|e| Error::Parse {
            path: origin.into(),
            message: e.message().replace('\n', " "),
        })?;
        if method::upgrade_old_spelling(&mut doc).is_none() {
            return Scene::from_toml(text, origin);
        }
        let text = toml::to_string(&doc).map_err(|e| Error::Parse {
            path: origin.into(),
            message: e.to_string(),
        })?;
        Scene::from_toml(&text, origin)
    }

    /// Reads and parses a scene file.
    pub fn load(path: &Path) -> Result<Scene> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Scene::from_toml(&text, &path.display().to_string())
    }

    /// The scene as TOML (for templates).
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string_pretty(self).map_err(|e| Error::Parse {
            path: "scene".into(),
            message: e.to_string(),
        })
    }

    /// Index of the material called `name`.
    pub fn material_index(&self, name: &str) -> Option<usize> {
        self.materials.iter().position(|m| m.name == name)
    }

    fn check_material_ref(&self, problems: &mut Vec<Error>, field: String, name: &str) {
        if self.material_index(name).is_none() {
            let known: Vec<&str> = self.materials.iter().map(|m| m.name.as_str()).collect();
            problems.push(Error::scene(
                field,
                format!("no material named \"{name}\" (known: {known:?})"),
            ));
        }
    }

    /// Everything a run would refuse in the scene's own values, each with its field path.
    pub fn problems(&self) -> Vec<Error> {
        let mut p = Vec::new();
        let s = &self.simulation;
        positive(&mut p, "simulation.duration", s.duration);
        method::problems(self, &mut p);
        if !(s.max_overlap > 0.0 && s.max_overlap <= 1.0) {
            p.push(Error::scene(
                "simulation.max_overlap",
                format!("must be in (0, 1], got {}", s.max_overlap),
            ));
        }
        planar::problems(self, &mut p);
        if let Some([lo, hi]) = s.domain {
            box_corners(&mut p, "simulation.domain", lo, hi);
        }
        if !s.start_time.is_finite() {
            p.push(Error::scene("simulation.start_time", "must be finite"));
        }
        if let Some(r) = &self.recirculation {
            r.problems(&mut p);
        }
        self.contact_problems(&mut p);
        self.material_problems(&mut p);
        p.extend(self.gravity.problems());
        self.grid_problems(&mut p);
        if let Some(f) = &self.frame {
            p.extend(f.problems());
        }
        if !self.boundary.periodic.is_open() && self.gravity.self_gravity.is_some() {
            p.push(Error::scene(
                "gravity.self_gravity",
                "cannot be combined with periodic [boundary] axes (periodic images of the mass are not summed)",
            ));
        }
        for (name, axis) in ["x", "y", "z"].iter().zip(self.boundary.periodic.axes()) {
            if let Some([lo, hi]) = axis {
                if !(lo.is_finite() && hi.is_finite() && hi > lo) {
                    p.push(Error::scene(
                        format!("boundary.periodic.{name}"),
                        format!("must be [lo, hi] with lo < hi, got [{lo}, {hi}]"),
                    ));
                }
            }
        }
        self.wall_problems(&mut p);
        self.particle_problems(&mut p);
        self.insert_problems(&mut p);
        let o = &self.output;
        if let Some(st) = &o.stress {
            p.extend(st.problems(&self.boundary.periodic));
        }
        if let Some(t) = &o.tallies {
            p.extend(t.problems());
        }
        let soft = matches!(self.simulation.method, Method::Soft(_));
        if o.contacts && !(soft && o.snapshot_interval.is_some()) {
            p.push(Error::scene(
                "output.contacts",
                "the contact network is written with snapshots by method = \"soft\": set output.snapshot_interval and the method",
            ));
        }
        if o.wall_forces && !(soft && o.series_interval.is_some()) {
            p.push(Error::scene(
                "output.wall_forces",
                "walls.csv is written at output.series_interval by method = \"soft\": set both",
            ));
        }
        for (name, v) in [
            ("output.snapshot_interval", o.snapshot_interval),
            ("output.series_interval", o.series_interval),
            ("output.checkpoint_interval", o.checkpoint_interval),
        ] {
            if let Some(v) = v {
                positive(&mut p, name, v);
            }
        }
        p
    }

    /// Grid self-gravity needs every grain inside the grid: `simulation.domain` must be set
    /// and lie within it, so that a grain leaving the grid stops the run.
    fn grid_problems(&self, p: &mut Vec<Error>) {
        use crate::gravity::SelfGravityMethod;
        let Some(SelfGravityMethod::Grid(g)) = self.gravity.self_gravity.map(|s| s.method) else {
            return;
        };
        let inside = self
            .simulation
            .domain
            .is_some_and(|[lo, hi]| lo.cmpge(g.min).all() && hi.cmple(g.max()).all());
        if !inside {
            p.push(Error::scene(
                "simulation.domain",
                format!(
                    "must be set and lie inside the gravity grid {:?} to {:?} (grid self-gravity needs every grain inside it)",
                    g.min,
                    g.max()
                ),
            ));
        }
    }

    fn contact_problems(&self, p: &mut Vec<Error>) {
        let c = &self.contact;
        positive(
            p,
            "contact.characteristic_velocity",
            c.characteristic_velocity,
        );
        if let Normal::Linear {
            kn,
            damping,
            kt,
            tangential_damping,
        } = c.normal
        {
            positive(p, "contact.normal.linear.kn", kn);
            for (name, v) in [
                ("damping", Some(damping)),
                ("tangential_damping", tangential_damping),
            ] {
                if let Some(v) = v {
                    if !(v.is_finite() && v >= 0.0) {
                        p.push(Error::scene(
                            format!("contact.normal.linear.{name}"),
                            format!("must be ≥ 0, got {v}"),
                        ));
                    }
                }
            }
            // k_t = 0 leaves the dashpot alone under the Coulomb cap: kinetic friction
            // min(μ|F_n|, C_t|v_t|) without a static spring (001 eq 3.8).
            if let Some(kt) = kt {
                if !(kt.is_finite() && kt >= 0.0) {
                    p.push(Error::scene(
                        "contact.normal.linear.kt",
                        format!("must be ≥ 0, got {kt}"),
                    ));
                }
            }
        }
        if let Cohesion::Perko {
            hamaker,
            separation,
        } = c.cohesion
        {
            positive(p, "contact.cohesion.perko.hamaker", hamaker);
            positive(p, "contact.cohesion.perko.separation", separation);
        }
        pebbles::problems(c, p);
    }

    fn material_problems(&self, p: &mut Vec<Error>) {
        if self.materials.is_empty() {
            p.push(Error::scene("materials", "at least one material is needed"));
        }
        let flores = self.contact.normal == Normal::Flores;
        let no_cohesion = self.contact.cohesion == Cohesion::None;
        for (k, m) in self.materials.iter().enumerate() {
            let f = |name: &str| format!("materials[{k}].{name}");
            if m.name.is_empty() || self.materials[..k].iter().any(|o| o.name == m.name) {
                p.push(Error::scene(
                    f("name"),
                    format!("must be non-empty and unique, got \"{}\"", m.name),
                ));
            }
            if let Some(rho) = m.density {
                positive(p, f("density"), rho);
            } else if self.particles.iter().any(|s| s.material() == m.name) {
                p.push(Error::scene(
                    f("density"),
                    "is needed: particles are made of this material",
                ));
            }
            if let Some(c) = m.core {
                for (name, v) in [("core.radius", c.radius), ("core.density", c.density)] {
                    if !(v.is_finite() && v >= 0.0) {
                        p.push(Error::scene(f(name), format!("must be ≥ 0, got {v}")));
                    }
                }
            }
            if self.contact.normal == Normal::None {
                continue;
            }
            if let Some(name) = m.missing_elastic() {
                p.push(Error::scene(
                    f(name),
                    "is needed by the contact law ([contact] normal); a scene whose grains never touch may leave out [contact] and the elastic constants",
                ));
                continue;
            }
            positive(p, f("youngs_modulus"), m.youngs_modulus);
            if !(m.poisson_ratio > -1.0 && m.poisson_ratio < 0.5) {
                p.push(Error::scene(
                    f("poisson_ratio"),
                    format!("must be in (-1, 0.5), got {}", m.poisson_ratio),
                ));
            }
            in_range(p, f("restitution"), m.restitution, 0.0, 1.0);
            in_range(
                p,
                f("tangential_restitution"),
                m.tangential_restitution,
                -1.0,
                1.0,
            );
            if flores && m.restitution <= 0.0 {
                p.push(Error::scene(
                    f("restitution"),
                    "must be > 0 with contact.normal = \"flores\" (c_n = 8/5 k_n (1 − e)/(e v₀) is infinite at e = 0, 002 eq 6)",
                ));
            }
            for (name, v) in [
                ("sliding_friction", m.sliding_friction),
                ("rolling_friction", m.rolling_friction),
                ("twisting_friction", m.twisting_friction),
                ("cohesion", m.cohesion),
            ] {
                if !(v.is_finite() && v >= 0.0) {
                    p.push(Error::scene(f(name), format!("must be ≥ 0, got {v}")));
                }
            }
            if no_cohesion && m.cohesion > 0.0 {
                p.push(Error::scene(
                    f("cohesion"),
                    "is set but contact.cohesion is \"none\"; choose constant, dmt or perko",
                ));
            }
        }
        for (k, o) in self.pairs.iter().enumerate() {
            for (n, name) in o.materials.iter().enumerate() {
                self.check_material_ref(p, format!("pairs[{k}].materials[{n}]"), name);
            }
            if let Some(e) = o.restitution {
                in_range(p, format!("pairs[{k}].restitution"), e, 0.0, 1.0);
                if flores && e <= 0.0 {
                    p.push(Error::scene(
                        format!("pairs[{k}].restitution"),
                        "must be > 0 with contact.normal = \"flores\" (002 eq 6)",
                    ));
                }
            }
            for (name, v) in [
                ("sliding_friction", o.sliding_friction),
                ("rolling_friction", o.rolling_friction),
                ("twisting_friction", o.twisting_friction),
                ("cohesion", o.cohesion),
            ] {
                if let Some(v) = v {
                    if !(v.is_finite() && v >= 0.0) {
                        p.push(Error::scene(
                            format!("pairs[{k}].{name}"),
                            format!("must be ≥ 0, got {v}"),
                        ));
                    }
                }
            }
        }
    }

    fn wall_problems(&self, p: &mut Vec<Error>) {
        let names: Vec<&str> = self.materials.iter().map(|m| m.name.as_str()).collect();
        for (k, w) in self.walls.iter().enumerate() {
            w.problems(k, &names, p);
        }
        wall_check::free_wall_problems(self, p);
        if self.contact.normal == Normal::None {
            if !self.walls.is_empty() {
                p.push(Error::scene(
                    "walls",
                    "need a contact law: give [contact] with a normal model (a scene without one is for grains that never touch)",
                ));
            }
            if !matches!(self.simulation.method, Method::Soft(_)) {
                p.push(Error::scene(
                    "contact.normal",
                    "\"none\" runs with the soft method only (hard spheres collide with the materials' restitution)",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests;
