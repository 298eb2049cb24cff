//! A parsed PEBBLES deck as a grainflow [`Scene`] (001 chapters 4–7). What a Scene cannot
//! hold (files to load and dump, display cadences) goes into [`DeckRun`]; the physics
//! directives go through [`super::physics`]; directives read but not acted on are listed in
//! [`DeckRun::notes`], never dropped silently. docs/pebbles-decks.md gives the whole table. The vessel's walls are built in `io/pebbles/vessel.rs`.

use std::path::{Path, PathBuf};

use glam::DVec3;

use super::vessel::{vessel, wall, Vessel};
use super::{physics, save, Deck};
use crate::gravity::Gravity;
use crate::material::{Material, PairOverride};
use crate::particles::{core_shell_mass_inertia, Core};
use crate::scene::{
    Chute, Inlet, ListSource, Method, OutputSpec, PackSource, Packing, ParticleSource,
    Recirculation, Scene, SimulationSpec, SoftOptions, SphereSpec, TimeStep,
};
use crate::scene::{Motion, ShapeSpec, Side};
use crate::timestep::DtLimit;
use crate::{Error, Result};

/// Standard gravity (m/s²), pointing down −z (PEBBLES' vessels stand along z).
pub const STANDARD_GRAVITY: f64 = 9.806_65;

/// Display cadences of 001 §4.3, in steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cadence {
    /// Full display (positions, velocities, slips): `display_frequency`.
    pub display: u64,
    /// Positions only: `position_display_frequency`.
    pub positions: u64,
    /// Energies: `energy_display_frequency`.
    pub energy: u64,
    /// Overlap dump: `dump_frequency`.
    pub dump: u64,
}

/// A deck ready to run.
#[derive(Clone, Debug)]
pub struct DeckRun {
    /// The scene.
    pub scene: Scene,
    /// A save whose slips and pass counts are put back once the scene is built.
    pub restore: Option<save::Save>,
    /// `dump_positions` / `dump_positions_mult`: file and factor, written at the end.
    pub dump_positions: Option<(PathBuf, f64)>,
    /// Output cadences.
    pub cadence: Cadence,
    /// Directives read but not acted on (`ppf_filename`), each with its line and why.
    pub notes: Vec<String>,
    /// The deck's file stem: the run writes `<stem>.out` and `<stem>_save`.
    pub stem: String,
}

/// Earthquake motion of the vessel (001 §4.6, chapter 7), or `Fixed`.
fn earthquake(deck: &Deck, base: &Path) -> Result<Motion> {
    let enabled = deck.last("earthquake_enable");
    let allowed = enabled.map_or(0, |d| deck.num(d.name) as usize);
    let mut waves = Vec::new();
    for d in deck
        .directives
        .iter()
        .filter(|d| d.name.starts_with("earthquake_sine_wave"))
    {
        let before = enabled.is_some_and(|e| e.line < d.line);
        if !before || waves.len() >= allowed {
            return Err(Error::Parse {
                path: format!("{}:{}", deck.origin, d.line),
                message: format!(
                    "{}: earthquake_enable must come first and count at least every wave (it allows {allowed})",
                    d.name
                ),
            });
        }
        let v: Vec<f64> = d
            .args
            .iter()
            .filter_map(|a| match a {
                super::Arg::Num(x) => Some(*x),
                _ => None,
            })
            .collect();
        if !(v[5] > 0.0 && v[1] >= v[0]) {
            return Err(Error::Parse {
                path: format!("{}:{}", deck.origin, d.line),
                message: format!("{}: needs period > 0 and end_time ≥ start_time", d.name),
            });
        }
        waves.push(crate::walls::motion::Wave {
            start: v[0],
            end: v[1],
            displacement: DVec3::new(v[2], v[3], v[4]),
            period: v[5],
            phase: v[6],
            offset: *v.get(7).unwrap_or(&0.0),
        });
    }
    if let Some(t) = deck.last("tabular_earthquake") {
        if !waves.is_empty() {
            return Err(deck.error(
                "tabular_earthquake",
                "cannot be combined with sine waves yet (one vessel motion per run)",
            ));
        }
        let v = deck.nums("tabular_earthquake").unwrap_or_default();
        let file = deck.word("tabular_earthquake").unwrap_or_default();
        if v[1] <= 0.0 {
            return Err(deck.error("tabular_earthquake", "table_data_delta must be > 0"));
        }
        let rows = save::read_vectors(&base.join(file))?;
        let n = v[2] as usize;
        if rows.len() < n || n == 0 {
            return Err(deck.error(
                "tabular_earthquake",
                format!("table_length is {n} but {file} has {} rows", rows.len()),
            ));
        }
        let _ = t;
        return Ok(Motion::Table {
            start: v[0],
            interval: v[1],
            displacements: rows[..n].to_vec(),
        });
    }
    Ok(if waves.is_empty() {
        Motion::Fixed
    } else {
        Motion::Earthquake { waves }
    })
}

/// The pebble's material and the vessel's, with the pebble–vessel friction as a pair value.
fn materials(pebble: &Pebble, mu_pp: f64, mu_ps: f64) -> (Vec<Material>, Vec<PairOverride>) {
    let core = physics::core(pebble.r_c, pebble.r_o, pebble.rho[0]);
    let ball = 4.0 / 3.0 * std::f64::consts::PI * pebble.r_o.powi(3);
    let pebble_material = Material {
        name: "pebble".into(),
        // The shell's density beside a core; a pebble all core (or all shell) is uniform.
        density: Some(if core.is_some() {
            pebble.rho[1]
        } else {
            pebble.mass / ball
        }),
        // E, ν and e do not enter the PEBBLES law (its h and C⊥ are given).
        youngs_modulus: 1.0e9,
        poisson_ratio: 0.25,
        restitution: 0.5,
        sliding_friction: mu_pp,
        rolling_friction: 0.0,
        twisting_friction: 0.0,
        tangential_restitution: 1.0,
        cohesion: 0.0,
        core,
    };
    let vessel_material = Material {
        name: "vessel".into(),
        density: None,
        sliding_friction: mu_ps,
        ..pebble_material.clone()
    };
    let pairs = vec![PairOverride {
        materials: ["pebble".into(), "vessel".into()],
        sliding_friction: Some(mu_ps),
        ..PairOverride::default()
    }];
    (vec![pebble_material, vessel_material], pairs)
}

/// Finds `file` in the deck's folder, then in the `search` folders.
fn find(file: &str, base: &Path, search: &[PathBuf]) -> PathBuf {
    std::iter::once(base.to_path_buf())
        .chain(search.iter().cloned())
        .map(|d| d.join(file))
        .find(|p| p.exists())
        .unwrap_or_else(|| base.join(file))
}

/// The pebble of a deck: radii (m), the core's and shell's densities (kg/m³), and the mass
/// (kg) and moment of inertia (kg m²) of eq 3.5–3.6.
struct Pebble {
    r_c: f64,
    r_o: f64,
    rho: [f64; 2],
    mass: f64,
    inertia: f64,
}

/// Where the pebbles come from: a list read from a file or a fill packed in the vessel.
struct Fill {
    source: ParticleSource,
    /// The save whose slips and pass counts are put back.
    restore: Option<save::Save>,
}

impl Deck {
    /// The deck as a runnable scene; files named in the deck are read from `base` (the deck's
    /// folder), then from the `search` folders (where an earlier run wrote its save).
    pub fn translate(&self, base: &Path, search: &[PathBuf]) -> Result<DeckRun> {
        let mut notes = Vec::new();
        let pebble = self.pebble()?;
        let alpha = self.num("alpha");
        let runs = self.num("runs");
        let limit = crate::scene::MAX_GRAINS;
        let count = self.num("number_of_pebbles");
        if count > limit {
            return Err(self.error(
                "number_of_pebbles",
                format!("{count:e} is more than the limit {limit:e}"),
            ));
        }
        let count = count as usize;
        if count == 0 {
            return Err(self.error("number_of_pebbles", "must be at least 1"));
        }
        for (name, k) in [
            ("pebble_pebble_hooke", self.num("pebble_pebble_hooke")),
            ("alpha", alpha),
        ] {
            if k <= 0.0 {
                return Err(self.error(name, format!("must be > 0, got {k}")));
            }
        }
        let v = vessel(self, pebble.r_o)?;
        let (model, mu_pp, mu_ps) = physics::contact_law(self)?;
        let method = self.method(&model, alpha, &pebble, &mut notes)?;
        let tallies = physics::tallies(self, alpha)?;
        let (materials, pairs) = materials(&pebble, mu_pp, mu_ps);
        let motion = earthquake(self, base)?;
        let packing = self.packing()?;
        let inlets: Vec<Inlet> = self
            .geometry
            .inlets
            .iter()
            .map(|i| Inlet {
                pos: i.pos,
                vel: i.vel,
            })
            .collect();
        let spots = self.drop_spots(&v);
        // Packing cones stand under the inlets, or else over the drop spots.
        let cone_spots: Vec<[f64; 2]> = if inlets.is_empty() {
            spots.clone()
        } else {
            inlets.iter().map(|i| [i.pos.x, i.pos.y]).collect()
        };
        let mut walls = v.walls.clone();
        let fill = match self.load_directive() {
            Some(name) => self.loaded(name, base, search, pebble.r_o)?,
            None => self.packed(&v, &cone_spots, (count, pebble.r_o), packing, &mut walls)?,
        };
        for w in walls.iter_mut() {
            w.motion = motion.clone();
        }
        let recirculation = self.recirculation(&v.chutes, inlets, &spots)?;
        if self.has("ppf_filename") {
            notes.push(format!(
                "{}: ppf_filename: ignored, as by the single-processor pebbles9 (001 §4.2)",
                self.at("ppf_filename")
            ));
        }
        let freq = |n: &str| (self.num(n) as u64).max(1);
        let scene = Scene {
            simulation: SimulationSpec {
                method,
                seed: self.num("seed") as u64,
                start_time: self.num("initial_time"),
                // alpha = 1e-4 s is about t_c/6 for the samples' h = 1e6 N/m (001 §8).
                dt_limit: DtLimit::ContactTime,
                ..SimulationSpec::new(runs * alpha, TimeStep::Fixed(alpha))
            },
            contact: model,
            materials,
            pairs,
            gravity: Gravity {
                uniform: Some(DVec3::new(0.0, 0.0, -STANDARD_GRAVITY)),
                ..Gravity::default()
            },
            boundary: Default::default(),
            frame: None,
            walls,
            particles: vec![fill.source],
            output: OutputSpec {
                tallies: Some(tallies),
                ..OutputSpec::default()
            },
            recirculation,
            inserts: Vec::new(),
        };
        let stem = Path::new(&self.origin)
            .file_stem()
            .map_or("deck".into(), |s| s.to_string_lossy().into_owned());
        Ok(DeckRun {
            scene,
            restore: fill.restore,
            dump_positions: self.dump_positions()?,
            cadence: Cadence {
                display: freq("display_frequency"),
                positions: freq("position_display_frequency"),
                energy: freq("energy_display_frequency"),
                dump: freq("dump_frequency"),
            },
            notes,
            stem,
        })
    }

    /// `pebble_radius` and `pebble_density`, with the mass and inertia they give.
    fn pebble(&self) -> Result<Pebble> {
        let rp = self.nums("pebble_radius").unwrap_or_default();
        let (r_c, r_o) = (rp[0], rp[1]);
        if !(r_o > 0.0 && r_c >= 0.0 && r_c <= r_o) {
            return Err(self.error(
                "pebble_radius",
                format!("needs 0 ≤ center_radius ≤ outside_radius and outside_radius > 0, got {r_c} and {r_o}"),
            ));
        }
        let rho = self.nums("pebble_density").unwrap_or_default();
        // eq 3.5–3.6 with the deck's core as given (also when it is empty or the whole pebble).
        let (mass, inertia) = core_shell_mass_inertia(
            r_o,
            rho[1],
            Some(Core {
                radius: r_c,
                density: rho[0],
            }),
        );
        if !(mass > 0.0 && rho[0] >= 0.0 && rho[1] >= 0.0) {
            return Err(self.error(
                "pebble_density",
                format!(
                    "densities must be ≥ 0 and give a positive mass, got {} and {}",
                    rho[0], rho[1]
                ),
            ));
        }
        Ok(Pebble {
            r_c,
            r_o,
            rho: [rho[0], rho[1]],
            mass,
            inertia,
        })
    }

    /// The soft method with the deck's integrator, in as many Euler sub-steps per alpha as keep
    /// an isolated contact stable (noted when more than one).
    fn method(
        &self,
        model: &crate::contact::ContactModel,
        alpha: f64,
        pebble: &Pebble,
        notes: &mut Vec<String>,
    ) -> Result<Method> {
        let integrator = physics::integrator(self)?;
        let substeps = if integrator == crate::scene::Integrator::Euler {
            physics::euler_substeps(model, alpha, pebble.mass, pebble.inertia, pebble.r_o)
        } else {
            1
        };
        if substeps > 1 {
            notes.push(format!(
                "{}: Euler (eq 3.17) is unstable at alpha = {alpha:e} s for this deck's dashpots and springs; each alpha is taken in {substeps} Euler steps (outputs still every alpha)",
                self.at("alpha")
            ));
        }
        Ok(Method::Soft(SoftOptions {
            integrator,
            substeps,
        }))
    }

    /// Drop points without inlets, and packing cones: over each outlet hole, or
    /// (offset_inlet_holes) beside it: half the vessel radius off a single central hole,
    /// half-way round to the next of several.
    fn drop_spots(&self, v: &Vessel) -> Vec<[f64; 2]> {
        let offset = self.has("offset_inlet_holes");
        let turn = std::f64::consts::PI / v.holes.len() as f64;
        match (v.holes.len(), offset) {
            (1, true) => vec![[0.5 * v.half_xy[0], 0.0]],
            (_, true) => v
                .holes
                .iter()
                .map(|&[x, y]| {
                    let (s, c) = turn.sin_cos();
                    [c * x - s * y, s * x + c * y]
                })
                .collect(),
            _ => v.holes.clone(),
        }
    }

    /// The last of the directives that load the pebbles from a file, if any.
    fn load_directive(&self) -> Option<&'static str> {
        [
            "load_pebble_save",
            "load_pebble_info",
            "load_positions",
            "load_positions_divide",
        ]
        .iter()
        .filter_map(|n| self.last(n))
        .max_by_key(|d| d.line)
        .map(|d| d.name)
    }

    /// Pebbles loaded by directive `name`: positions (sorted by height with `sort_pebbles`),
    /// or a save with the slips and pass counts it restores.
    fn loaded(&self, name: &str, base: &Path, search: &[PathBuf], r_o: f64) -> Result<Fill> {
        let file = find(self.word(name).unwrap_or_default(), base, search);
        if let "load_positions" | "load_positions_divide" = name {
            let divide = if name == "load_positions" {
                1.0
            } else {
                self.nums(name).unwrap_or_default()[0]
            };
            if divide <= 0.0 {
                return Err(self.error(name, "divide must be > 0"));
            }
            let mut positions = save::read_vectors(&file)?;
            if self.has("sort_pebbles") {
                // 001 §4.2: once loaded, pebbles are sorted by height (ids follow).
                positions.sort_by(|a, b| a.z.total_cmp(&b.z));
            }
            let spheres = positions
                .into_iter()
                .map(|p| SphereSpec {
                    pos: p / divide,
                    radius: r_o,
                    vel: DVec3::ZERO,
                    omega: DVec3::ZERO,
                    mobility: Default::default(),
                })
                .collect();
            let source = ParticleSource::List(ListSource {
                material: "pebble".into(),
                spheres,
            });
            return Ok(Fill {
                source,
                restore: None,
            });
        }
        let mut s = save::Save::read(&file)?;
        if name == "load_pebble_info" {
            if !self.has("load_pebble_slips") {
                s.slips.clear();
            }
            if !self.has("load_pebble_surface_slips") {
                s.surface_slips.clear();
            }
        }
        Ok(Fill {
            source: s.source("pebble"),
            restore: Some(s),
        })
    }

    /// `random_packing_method` (PRIME) or `initial_packing` (a loose fill, 001 §4.4).
    fn packing(&self) -> Result<Packing> {
        if self.has("random_packing_method") {
            return Ok(Packing::Prime {
                extra_candidates: self.num("random_packing_method") as usize,
            });
        }
        let f = self.num("initial_packing");
        if !(f > 0.0 && f <= 0.3) {
            return Err(self.error(
                "initial_packing",
                format!("must be in (0, 0.3] (001 §4.4: not above 0.15), got {f}"),
            ));
        }
        Ok(Packing::Loose { fraction: f })
    }

    /// `count` pebbles of radius `r_o` packed in the vessel from its bottom, or over packing
    /// cones at `cone_spots` (which join `walls`) with `cone_packing` / `cone_packing_chute`.
    fn packed(
        &self,
        v: &Vessel,
        cone_spots: &[[f64; 2]],
        (count, r_o): (usize, f64),
        mut packing: Packing,
        walls: &mut Vec<crate::scene::WallSpec>,
    ) -> Result<Fill> {
        let mut fill_bottom = v.bottom;
        let cone_packing = ["cone_packing", "cone_packing_chute"]
            .iter()
            .filter_map(|n| self.last(n))
            .max_by_key(|d| d.line);
        if let Some(d) = cone_packing {
            fill_bottom = self.packing_cones(d.name, cone_spots, v.half_xy[0], r_o, walls)?;
            if !self.has("random_packing_method") {
                packing = Packing::Loose {
                    fraction: self.num("initial_packing"),
                };
            }
        }
        let ball = 4.0 / 3.0 * std::f64::consts::PI * r_o.powi(3);
        let area = 4.0 * v.half_xy[0] * v.half_xy[1];
        // Room for the whole fill at 1 % volume fraction: far more than any method needs;
        // at least two pebbles tall, so that a deck of a few pebbles still fits.
        let top = fill_bottom + (count as f64 * ball / (0.01 * area)).max(4.0 * r_o);
        let source = ParticleSource::Pack(PackSource {
            material: "pebble".into(),
            count,
            radius: r_o,
            packing,
            min: DVec3::new(-v.half_xy[0], -v.half_xy[1], fill_bottom),
            max: DVec3::new(v.half_xy[0], v.half_xy[1], top),
            profile: v.profile.clone(),
            inner_radius: v.inner,
        });
        Ok(Fill {
            source,
            restore: None,
        })
    }

    /// The 45° cones of directive `name` over each of `spots`, each widening until it meets
    /// its neighbour's or the vessel wall at `reach` (m), with a chute below for
    /// `cone_packing_chute`; returns the height the fill starts from.
    fn packing_cones(
        &self,
        name: &str,
        spots: &[[f64; 2]],
        reach: f64,
        r_o: f64,
        walls: &mut Vec<crate::scene::WallSpec>,
    ) -> Result<f64> {
        let n = self.nums(name).unwrap_or_default();
        let (open, h) = (n[0], n[1]);
        if open <= r_o {
            return Err(self.error(
                name,
                format!("opening_size must exceed the pebble radius, got {open}"),
            ));
        }
        let mut reach = reach;
        for (a, p) in spots.iter().enumerate() {
            for q in &spots[a + 1..] {
                reach = reach.min(0.5 * ((p[0] - q[0]).hypot(p[1] - q[1])));
            }
        }
        for p in spots {
            walls.push(wall(ShapeSpec::Cone {
                origin: DVec3::new(p[0], p[1], 0.0),
                axis: DVec3::Z,
                slope: 1.0,
                radius0: open - h,
                range: Some([h, h + (reach - open).max(r_o)]),
            }));
            if name == "cone_packing_chute" {
                let c = n[2];
                if c <= 0.0 {
                    return Err(self.error(name, "chute_height must be > 0"));
                }
                walls.push(wall(ShapeSpec::Cylinder {
                    origin: DVec3::new(p[0], p[1], h - 0.5 * c),
                    axis: DVec3::Z,
                    radius: open,
                    side: Side::Both,
                    length: Some(c),
                }));
            }
        }
        Ok(h)
    }

    /// `dump_positions` / `dump_positions_mult`: the file and the factor, the later wins.
    /// The file is written into `--out`: a plain name, never a path out of it.
    fn dump_positions(&self) -> Result<Option<(PathBuf, f64)>> {
        let Some(d) = ["dump_positions", "dump_positions_mult"]
            .iter()
            .filter_map(|n| self.last(n))
            .max_by_key(|d| d.line)
        else {
            return Ok(None);
        };
        let mult = if d.name == "dump_positions" {
            1.0
        } else {
            self.nums(d.name).unwrap_or_default()[0]
        };
        let name = self.word(d.name).unwrap_or_default();
        let plain = matches!(
            Path::new(name).components().collect::<Vec<_>>()[..],
            [std::path::Component::Normal(n)] if n == name
        );
        if !plain || name.contains(['/', '\\']) {
            return Err(self.error(
                d.name,
                format!("{name:?} must be a plain file name: the file is written into --out"),
            ));
        }
        Ok(Some((PathBuf::from(name), mult)))
    }

    /// `recirculate_params` / `recirculate` as a recirculation table (001 §4.2, chapter 6).
    fn recirculation(
        &self,
        chutes: &[Chute],
        inlets: Vec<Inlet>,
        spots: &[[f64; 2]],
    ) -> Result<Option<Recirculation>> {
        let Some(d) = ["recirculate_params", "recirculate"]
            .iter()
            .filter_map(|n| self.last(n))
            .max_by_key(|d| d.line)
        else {
            return Ok(None);
        };
        let v = self.nums(d.name).unwrap_or_default();
        if chutes.is_empty() {
            return Err(self.error(d.name, "needs an exit chute (exit_chute with a cone)"));
        }
        if !(v[1] >= 0.0 && v[2] >= 0.0) {
            return Err(self.error(
                d.name,
                "door_closed_time and first_door_open_time must be ≥ 0",
            ));
        }
        // One hole: pebbles drop over it, shifted to the spot. Several holes with spots beside
        // them: the spots are inlets at the recirculation height, taken in turn as the chutes.
        let (inlets, drop_offset) = match spots {
            [one] => (
                inlets,
                [one[0] - chutes[0].center[0], one[1] - chutes[0].center[1]],
            ),
            many if inlets.is_empty() && many.iter().zip(chutes).any(|(s, c)| *s != c.center) => (
                many.iter()
                    .map(|&[x, y]| Inlet {
                        pos: DVec3::new(x, y, v[0]),
                        vel: DVec3::ZERO,
                    })
                    .collect(),
                [0.0, 0.0],
            ),
            _ => (inlets, [0.0, 0.0]),
        };
        Ok(Some(Recirculation {
            height: v[0],
            door_closed_time: v[1],
            first_door_open_time: v[2],
            chutes: chutes.to_vec(),
            inlets,
            drop_offset,
        }))
    }
}
