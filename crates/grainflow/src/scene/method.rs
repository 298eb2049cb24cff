//! `simulation.method`: how grains move, each method with its own options, so that an option
//! of one method cannot be written beside another.
//!
//! ```toml
//! [simulation]
//! method = "hard"                                  # the method with its default options
//! method = { hard = { slide_limit = 1.5e-4 } }     # or with options
//!
//! [simulation.method.soft]                         # or as a table of its own
//! integrator = "euler"
//! substeps = 2
//! ```
//!
//! The options were once keys beside `method` (`simulation.slide_limit`, `simulation.integrator`,
//! `simulation.substeps`, the `[simulation.approx_hard]` table, `output.collision_log`); a scene
//! that still has one is refused with the new spelling ([`old_spelling`]), and a checkpoint
//! written then is read in the new one ([`upgrade_old_spelling`]).

use std::fmt;

use glam::DVec3;
use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{BalanceBy, Scene, Skin, TimeStep};
use crate::Error;

/// How grains move, with the options of that method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Soft spheres with overlap-based contact forces and a fixed step (002, 003).
    Soft(SoftOptions),
    /// Hard spheres: instantaneous collisions predicted exactly during each drift (000).
    Hard(HardOptions),
    /// Approximate hard spheres: collisions gathered per fixed step, then overlaps corrected
    /// (004), for dense flows.
    ApproxHard(ApproxHardOptions),
}

impl Default for Method {
    fn default() -> Self {
        Method::Soft(SoftOptions::default())
    }
}

/// The names a scene gives the methods.
const NAMES: &[&str] = &["soft", "hard", "approx_hard"];

impl Method {
    /// The name a scene gives the method: `soft`, `hard` or `approx_hard`.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Soft(_) => "soft",
            Method::Hard(_) => "hard",
            Method::ApproxHard(_) => "approx_hard",
        }
    }

    /// The method called `name`, with its default options.
    fn named(name: &str) -> Option<Method> {
        Some(match name {
            "soft" => Method::Soft(Default::default()),
            "hard" => Method::Hard(Default::default()),
            "approx_hard" => Method::ApproxHard(Default::default()),
            _ => return None,
        })
    }

    /// Whether the options are the method's defaults (the scene then writes its name alone).
    fn has_default_options(&self) -> bool {
        Method::named(self.name()).as_ref() == Some(self)
    }
}

/// What the scene's method refuses: its options' own values, and the fields of the scene that
/// belong to another method, each with its field path.
pub(super) fn problems(scene: &Scene, p: &mut Vec<Error>) {
    let s = &scene.simulation;
    match s.dt {
        TimeStep::Fixed(dt) => super::positive(p, "simulation.dt", dt),
        TimeStep::Auto(_) if !matches!(s.method, Method::Soft(_)) => p.push(Error::scene(
            "simulation.dt",
            "\"auto\" follows the contact time of soft spheres; give dt in seconds with method = \"hard\" or \"approx_hard\"",
        )),
        TimeStep::Auto(_) => {}
    }
    match s.skin {
        Some(Skin::Fixed(skin)) => super::positive(p, "simulation.skin", skin),
        Some(Skin::Auto(_)) if matches!(s.method, Method::ApproxHard(_)) => p.push(Error::scene(
            "simulation.skin",
            "\"auto\" sizes the skin of soft spheres; approx_hard widens its own skin from the fastest grain, or takes one in metres",
        )),
        _ => {}
    }
    if s.skin.is_some() && matches!(s.method, Method::Hard(_)) {
        p.push(Error::scene(
            "simulation.skin",
            "is sized by the hard-sphere method itself, from the fastest grain (4 v_max dt); remove it",
        ));
    }
    match s.sort_every {
        Some(0) => p.push(Error::scene(
            "simulation.sort_every",
            "must be at least 1 (steps between sorts); leave it out to never sort",
        )),
        Some(_) if !matches!(s.method, Method::Soft(_)) => p.push(Error::scene(
            "simulation.sort_every",
            "applies to method = \"soft\" only",
        )),
        _ => {}
    }
    match s.balance_every {
        Some(0) => p.push(Error::scene(
            "simulation.balance_every",
            "must be at least 1 (rebuilds between balancings); leave it out for fixed equal bricks",
        )),
        Some(_) if !matches!(s.method, Method::Soft(_)) => p.push(Error::scene(
            "simulation.balance_every",
            "applies to method = \"soft\" only (the one shared among MPI ranks)",
        )),
        _ => {}
    }
    if s.balance_by == BalanceBy::Time && s.balance_every.is_none() {
        p.push(Error::scene(
            "simulation.balance_by",
            "needs simulation.balance_every (rebuilds between balancings)",
        ));
    }
    match &s.method {
        Method::Soft(o) => soft_problems(scene, o, p),
        Method::Hard(o) => {
            let slide = o.slide_limit;
            if !(slide.is_finite() && slide >= 0.0) {
                p.push(Error::scene(
                    "simulation.method.hard.slide_limit",
                    format!("must be a finite speed ≥ 0 (m/s), got {slide}"),
                ));
            }
            if o.resting && slide <= 0.0 {
                p.push(Error::scene(
                    "simulation.method.hard.resting",
                    "needs a slide_limit > 0 (m/s): resting contacts are those slower than it",
                ));
            }
            hard_problems(scene, p);
        }
        Method::ApproxHard(o) => o.problems(p),
    }
}

/// Sub-steps are at least one; Runge–Kutta and Adams need slots whose history is in rate form.
fn soft_problems(scene: &Scene, o: &SoftOptions, p: &mut Vec<Error>) {
    use crate::contact::{Rolling, Tangential, Twisting};
    if o.substeps == 0 {
        p.push(Error::scene(
            "simulation.method.soft.substeps",
            "must be at least 1",
        ));
    }
    let c = &scene.contact;
    let rate_form = matches!(c.tangential, Tangential::None | Tangential::Pebbles(_))
        && c.rolling == Rolling::None
        && c.twisting == Twisting::None;
    if o.integrator.needs_rate_form() && !rate_form {
        p.push(Error::scene(
            "simulation.method.soft.integrator",
            "runge_kutta and adams_* need contact.tangential = pebbles or none and rolling = twisting = \"none\" (the spring, rolling and twisting slots integrate inside the force)",
        ));
    }
}

/// What a hard-sphere scene cannot have, each with its field path: walls whose collision
/// times are not predicted (cone, block), and rotations that move a wall's shape (straight-line
/// prediction needs a wall turning about its own symmetry axis, 000 §2.2.3; a mesh's never
/// counts as one).
fn hard_problems(scene: &Scene, p: &mut Vec<Error>) {
    use crate::walls::{Motion as WallMotion, Shape};
    for (k, w) in scene.walls.iter().enumerate() {
        let shape = w.shape.build();
        if shape.members().iter().any(|s| {
            matches!(
                s,
                Shape::Cone(_) | Shape::Block(_) | Shape::Indented(_) | Shape::Hopper(_)
            )
        }) {
            p.push(Error::scene(
                format!("walls[{k}].type"),
                "method = \"hard\" predicts collisions with planes, plates, disks, cylinders, rings, points and lines (and blocks with side = \"inside\", which are planes); not cones, solid blocks, indented cylinders or hoppers",
            ));
        }
        if let WallMotion::Rotate { center, axis, .. } = &w.motion {
            let axis = axis.normalize_or_zero();
            // A mesh is read when the run is built, and is never taken as symmetric.
            let mesh = matches!(w.shape, crate::scene::ShapeSpec::Mesh { .. });
            if axis != DVec3::ZERO && (mesh || !shape.symmetric_about(*center, axis)) {
                p.push(Error::scene(
                    format!("walls[{k}].motion.axis"),
                    "method = \"hard\" needs a rotation that leaves the wall in place: about a cylinder's, disk's, ring's or line's own axis, or a plane's normal (000 §2.2.3)",
                ));
            }
        }
    }
}

/// Options of `method = "soft"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoftOptions {
    /// Integrator (001 §3.3); velocity Verlet when absent.
    #[serde(default, skip_serializing_if = "is_default")]
    pub integrator: Integrator,
    /// Integrator steps per time step (each of dt / substeps). Outputs, tallies and
    /// recirculation still go by dt; PEBBLES decks use it to keep Euler stable at the deck's
    /// `alpha` (see `integrator::euler_substeps`).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub substeps: u32,
}

impl Default for SoftOptions {
    fn default() -> Self {
        SoftOptions {
            integrator: Integrator::default(),
            substeps: 1,
        }
    }
}

/// How the soft-sphere state is advanced (`simulation.method.soft.integrator`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Kick–drift–kick velocity Verlet (003 eq 3–10).
    #[default]
    VelocityVerlet,
    /// Euler's method, 001 eq 3.17 (PEBBLES `use_simple_integrator`).
    Euler,
    /// Classical fourth-order Runge–Kutta (001 §3.3).
    RungeKutta,
    /// Four-step Adams–Bashforth (001 §3.3, `integration_method adams_bashforth`).
    AdamsBashforth,
    /// Adams–Bashforth–Moulton predictor–corrector (001 §3.3, `adams_moulton`).
    AdamsMoulton,
}

impl Integrator {
    /// True for the methods that evaluate f more than once per step or keep past rates, and
    /// so need the contact slots in rate form.
    pub fn needs_rate_form(self) -> bool {
        matches!(
            self,
            Integrator::RungeKutta | Integrator::AdamsBashforth | Integrator::AdamsMoulton
        )
    }
}

/// Options of `method = "hard"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HardOptions {
    /// Collisions approaching slower than this (m/s) are elastic, ε_n = 1 (pkdgrav's slide
    /// limit, the run parameter that keeps 000 §3.2's tumbler tractable: grains resting on each
    /// other would otherwise collide without end, inelastic collapse).
    #[serde(
        default,
        skip_serializing_if = "is_default",
        deserialize_with = "crate::units::velocity"
    )]
    pub slide_limit: f64,
    /// Grains touching and approaching slower than the slide limit are resting contacts,
    /// resolved once per step before the drift (`hard/rest.rs`); needs a slide limit > 0.
    #[serde(default, skip_serializing_if = "is_default")]
    pub resting: bool,
    /// Every collision (time, bodies, relative speed) into `collisions.csv`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub collision_log: bool,
}

/// How the tangential impulse of an approx_hard collision is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Friction {
    /// Tangential restitution ε_t of the pair of materials (000 eq 4), no Coulomb limit: the
    /// rule of `method = "hard"`.
    #[default]
    Restitution,
    /// Coulomb friction with the pair's sliding friction μ: the tangential impulse stops the
    /// slip at the contact unless that needs more than μ times the normal impulse, in which case
    /// it is μ times the normal impulse against the slip (004 §II: grains with μ and ε_n).
    Coulomb,
}

/// Options of `method = "approx_hard"` (see [`crate::approx_hard`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApproxHardOptions {
    /// Largest number of gathering passes per step (004: one pass and the overlap correction
    /// is often the most efficient; more passes carry momentum further per step).
    #[serde(default = "default_passes")]
    pub passes: usize,
    /// Tangential rule of the collisions.
    #[serde(default)]
    pub friction: Friction,
    /// Overlap left after the correction, as a fraction of the smaller radius (−).
    #[serde(default = "default_tolerance")]
    pub overlap_tolerance: f64,
    /// Largest number of correction sweeps per step; a step that needs more stops the run.
    #[serde(default = "default_sweeps")]
    pub max_sweeps: usize,
    /// Each correction move is this multiple of the move of eq 1–2, in (0, 2): 1 puts a pair
    /// just at contact (004); above 1 leaves it slightly apart, and the sweeps converge much
    /// faster in dense packs (successive over-relaxation; 1.8 is about 15× faster in a Couette
    /// cell near φ = 0.78).
    #[serde(default = "one_f64")]
    pub over_relaxation: f64,
}

impl Default for ApproxHardOptions {
    fn default() -> Self {
        ApproxHardOptions {
            passes: default_passes(),
            friction: Friction::default(),
            overlap_tolerance: default_tolerance(),
            max_sweeps: default_sweeps(),
            over_relaxation: 1.0,
        }
    }
}

impl ApproxHardOptions {
    /// Everything a run would refuse, with field paths.
    fn problems(&self, p: &mut Vec<Error>) {
        let f = |n: &str| format!("simulation.method.approx_hard.{n}");
        if self.passes == 0 {
            p.push(Error::scene(f("passes"), "must be at least 1"));
        }
        if self.max_sweeps == 0 {
            p.push(Error::scene(f("max_sweeps"), "must be at least 1"));
        }
        if !(self.over_relaxation > 0.0 && self.over_relaxation < 2.0) {
            p.push(Error::scene(
                f("over_relaxation"),
                format!("must be in (0, 2), got {}", self.over_relaxation),
            ));
        }
        if !(self.overlap_tolerance > 0.0 && self.overlap_tolerance < 0.1) {
            p.push(Error::scene(
                f("overlap_tolerance"),
                format!("must be in (0, 0.1), got {}", self.overlap_tolerance),
            ));
        }
    }
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

fn one_f64() -> f64 {
    1.0
}

fn default_passes() -> usize {
    1
}

fn default_tolerance() -> f64 {
    1e-10
}

fn default_sweeps() -> usize {
    10_000
}

/// The name alone when the options are the defaults, else `{ name = { options } }`.
impl Serialize for Method {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if self.has_default_options() {
            return s.serialize_str(self.name());
        }
        let mut map = s.serialize_map(Some(1))?;
        match self {
            Method::Soft(o) => map.serialize_entry("soft", o)?,
            Method::Hard(o) => map.serialize_entry("hard", o)?,
            Method::ApproxHard(o) => map.serialize_entry("approx_hard", o)?,
        }
        map.end()
    }
}

/// A name (`"hard"`: default options) or a table of one name with its options.
impl<'de> Deserialize<'de> for Method {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Method;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "\"soft\", \"hard\" or \"approx_hard\", or one of them with its options, e.g. {{ hard = {{ slide_limit = 0.01 }} }}"
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Method, E> {
                Method::named(v).ok_or_else(|| E::unknown_variant(v, NAMES))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Method, A::Error> {
                let Some(name) = map.next_key::<String>()? else {
                    return Err(A::Error::invalid_length(0, &self));
                };
                let method = match name.as_str() {
                    "soft" => Method::Soft(map.next_value()?),
                    "hard" => Method::Hard(map.next_value()?),
                    "approx_hard" => Method::ApproxHard(map.next_value()?),
                    other => return Err(A::Error::unknown_variant(other, NAMES)),
                };
                if map.next_key::<IgnoredAny>()?.is_some() {
                    return Err(A::Error::custom(format!(
                        "one method is run, got \"{name}\" and another"
                    )));
                }
                Ok(method)
            }
        }
        d.deserialize_any(V)
    }
}

/// The keys that were options of a method before they moved into `method`: (table, key,
/// method they belong to). `approx_hard` was a table of its own.
const OLD_KEYS: [(&str, &str, &str); 5] = [
    ("simulation", "slide_limit", "hard"),
    ("output", "collision_log", "hard"),
    ("simulation", "integrator", "soft"),
    ("simulation", "substeps", "soft"),
    ("simulation", "approx_hard", "approx_hard"),
];

/// Moves the old keys of a parsed scene into `simulation.method`. Returns the first old key
/// found, as its dotted path, with the new spelling of `method` that holds it; `None` when the
/// scene has none. Options of a method other than the scene's are dropped from the scene (the
/// old spelling refused them unless they had their default values).
pub(crate) fn upgrade_old_spelling(doc: &mut toml::Table) -> Option<(String, toml::Value)> {
    let method = doc
        .get("simulation")
        .and_then(|s| s.get("method"))
        .and_then(|m| m.as_str())
        .unwrap_or("soft")
        .to_string();
    let spell = |name: &str, options: toml::Table| {
        toml::Value::Table(toml::Table::from_iter([(name.into(), options.into())]))
    };
    let mut first = None;
    let mut options = toml::Table::new();
    for (table, key, owner) in OLD_KEYS {
        let Some(value) = doc
            .get_mut(table)
            .and_then(|t| t.as_table_mut())
            .and_then(|t| t.remove(key))
        else {
            continue;
        };
        let moved = match value {
            toml::Value::Table(t) if key == "approx_hard" => t,
            v => toml::Table::from_iter([(key.to_string(), v)]),
        };
        if first.is_none() && owner != method {
            first = Some((format!("{table}.{key}"), Some(spell(owner, moved.clone()))));
        }
        first.get_or_insert_with(|| (format!("{table}.{key}"), None));
        if owner == method {
            options.extend(moved);
        }
    }
    let (field, elsewhere) = first?;
    let spelled = spell(&method, options);
    if let Some(sim) = doc.get_mut("simulation").and_then(|s| s.as_table_mut()) {
        sim.insert("method".into(), spelled.clone());
    }
    Some((field, elsewhere.unwrap_or(spelled)))
}

/// The refusal of a scene `text` that still writes a method's options in the old places: one
/// line with the file, the field and the new spelling. `None` when it has none.
pub(crate) fn old_spelling(text: &str, origin: &str) -> Option<Error> {
    let mut doc: toml::Table = toml::from_str(text).ok()?;
    let (field, spelled) = upgrade_old_spelling(&mut doc)?;
    let key = field.rsplit('.').next().unwrap_or(&field);
    let line = text
        .lines()
        .position(|l| {
            let l = l.trim_start();
            l.starts_with(key) || l.starts_with(&format!("[{field}]"))
        })
        .map_or(String::new(), |k| format!(":{}", k + 1));
    Some(Error::Parse {
        path: format!("{origin}{line}"),
        message: format!(
            "{field}: is now an option of the method; write `method = {spelled}` in [simulation]"
        ),
    })
}
