//! A parsed PEBBLES deck as a grainflow [`Scene`] (001 chapters 4–7). What a Scene cannot
//! hold (files to load and dump, display cadences) goes into [`DeckRun`]; the physics
//! directives go through [`super::physics`]; directives read but not acted on are listed in
//! [`DeckRun::notes`], never dropped silently. docs/pebbles-decks.md gives the whole table.
//!
//! Geometry (001 §3.4, §4.7–4.8): the vessel is a cylinder of `vessel_radius` (with an inner
//! column for an annulus) or a `rectangular_vat`, a floor plane at `floor_location`, and
//! optionally an outlet cone `radius = m z + b` with radius R at `location`, cut where it
//! reaches the exit chute's hole (radius `hole_size` × pebble radius), a chute tube
//! `hole_depth` long below it, and a flat door closing the chute. Cone and tube are a
//! one-hole [`crate::walls::hopper`] (its floor outside the cylinder, or the vat's base around
//! the cone), so the lip between them is one edge. Indentations are pockets cut into the
//! vessel_radius wall ([`crate::walls::indent`]). Unions of the geometry section are solids
//! the pebbles stay outside of.

use std::path::{Path, PathBuf};

use glam::DVec3;

use super::{physics, save, Deck, Solid};
use crate::drive::{Chute, Inlet, Recirculation};
use crate::fill::prime::Packing;
use crate::gravity::Gravity;
use crate::material::{Material, PairOverride};
use crate::particles::{core_shell_mass_inertia, Core};
use crate::scene::{
    Method, OutputSpec, ParticleSource, Scene, SimulationSpec, SoftOptions, SphereSpec, TimeStep,
};
use crate::timestep::DtLimit;
use crate::walls::{Indentation, Motion, ShapeSpec, Side, WallSpec};
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

/// What [`vessel`] builds.
struct Vessel {
    walls: Vec<WallSpec>,
    /// Radius profile [z, R] of the vessel about the z axis (empty for a vat).
    profile: Vec<[f64; 2]>,
    inner: f64,
    half_xy: [f64; 2],
    bottom: f64,
    chutes: Vec<Chute>,
    /// Centres (x, y) of the outlet holes in the base: one at the axis unless number_of_cones > 1.
    holes: Vec<[f64; 2]>,
}

fn wall(shape: ShapeSpec) -> WallSpec {
    WallSpec {
        material: "vessel".into(),
        shape,
        surface: Default::default(),
        motion: Motion::Fixed,
    }
}

fn plane(point: DVec3, normal: DVec3) -> ShapeSpec {
    ShapeSpec::Plane {
        point: Some(point),
        normal: Some(normal),
        equation: None,
        both: false,
    }
}

/// The hole of the exit chute: (hole_size, hole_depth) and the directive that gave it.
fn exit_hole(deck: &Deck) -> Option<(f64, f64, &'static str)> {
    let chute = deck.last("exit_chute").map(|d| (d.line, "exit_chute"));
    let recirc = deck.last("recirculate").map(|d| (d.line, "recirculate"));
    let (_, name) = chute.into_iter().chain(recirc).max_by_key(|x| x.0)?;
    let v = deck.nums(name)?;
    Some(match name {
        "exit_chute" => (v[0], v[1], name),
        _ => (v[3], v[4], name),
    })
}

/// Vessel walls, fill region and exit chutes (001 §4.8).
fn vessel(deck: &Deck, r_peb: f64) -> Result<Vessel> {
    let rv = deck.nums("vessel_radius").unwrap_or_default();
    let (ri, ro) = (rv[0], rv[1]);
    if !(ro > 0.0 && ri >= 0.0 && ri < ro) {
        return Err(deck.error(
            "vessel_radius",
            format!("needs 0 ≤ inside_radius < outside_radius, got {ri} and {ro}"),
        ));
    }
    let floor = deck.num("floor_location");
    let mut walls = vec![wall(plane(DVec3::new(0.0, 0.0, floor), DVec3::Z))];
    let mut profile = Vec::new();
    // Checked before the vat's branch, which refuses them.
    let indented = indentations(deck, ro)?;
    let half_xy = if let Some(v) = deck
        .nums("rectangular_vat")
        .filter(|_| deck.has("rectangular_vat"))
    {
        let (xw, yw) = (v[0], v[1]);
        if !(xw > r_peb && yw > r_peb) {
            return Err(deck.error(
                "rectangular_vat",
                format!(
                    "x_wall and y_wall must exceed the pebble radius {r_peb} m, got {xw} and {yw}"
                ),
            ));
        }
        for (p, n) in [
            (DVec3::new(-xw, 0.0, 0.0), DVec3::X),
            (DVec3::new(xw, 0.0, 0.0), DVec3::NEG_X),
            (DVec3::new(0.0, -yw, 0.0), DVec3::Y),
            (DVec3::new(0.0, yw, 0.0), DVec3::NEG_Y),
        ] {
            walls.push(wall(plane(p, n)));
        }
        [xw, yw]
    } else {
        walls.push(wall(match indented {
            Some(indentations) => ShapeSpec::IndentedCylinder {
                radius: ro,
                indentations,
            },
            None => ShapeSpec::Cylinder {
                origin: DVec3::ZERO,
                axis: DVec3::Z,
                radius: ro,
                side: Side::Inside,
                length: None,
            },
        }));
        if ri > 0.0 {
            walls.push(wall(ShapeSpec::Cylinder {
                origin: DVec3::ZERO,
                axis: DVec3::Z,
                radius: ri,
                side: Side::Outside,
                length: None,
            }));
        }
        profile.push([floor, ro]);
        [ro, ro]
    };
    let n_cones = deck.nums("number_of_cones").map_or(1, |v| v[0] as usize);
    if n_cones == 0 {
        return Err(deck.error("number_of_cones", "must be at least 1"));
    }
    let mut bottom = floor;
    let mut chutes = Vec::new();
    let mut holes = vec![[0.0, 0.0]];
    let hole = exit_hole(deck);
    match deck.nums("cone").filter(|_| deck.has("cone")) {
        Some(c) => {
            let (loc, m) = (c[0], c[1]);
            // One cone has the vessel's radius at `location`. Several sit on the circle midway
            // across the vessel (or the annulus), as wide as keeps them from overlapping each
            // other and the walls, under a floor at `location` (001 §4.8 leaves the layout
            // open; docs/pebbles-decks.md).
            let r_top = if n_cones == 1 {
                half_xy[0]
            } else {
                if deck.has("rectangular_vat") {
                    return Err(deck.error(
                        "number_of_cones",
                        "more than one cone needs the cylindrical vessel (vessel_radius), not a rectangular_vat",
                    ));
                }
                let ring = 0.5 * (ri + ro);
                holes = (0..n_cones)
                    .map(|k| {
                        let a = std::f64::consts::TAU * k as f64 / n_cones as f64;
                        [ring * a.cos(), ring * a.sin()]
                    })
                    .collect();
                (0.5 * (ro - ri)).min(ring * (std::f64::consts::PI / n_cones as f64).sin())
            };
            if m <= 0.0 {
                return Err(deck.error(
                    "cone",
                    format!("slope must be > 0 for an outlet cone (0 is a straight wall), got {m}"),
                ));
            }
            let b = r_top - m * loc;
            let (z_end, r_end) = match hole {
                Some((size, _, name)) => {
                    let r_h = size * r_peb;
                    if !(r_h > r_peb && r_h < r_top) {
                        return Err(deck.error(
                            name,
                            format!("the hole radius hole_size × pebble radius = {r_h} m must lie between the pebble radius and the vessel radius"),
                        ));
                    }
                    ((r_h - b) / m, r_h)
                }
                None => (-b / m, 0.0),
            };
            // The cones and their chute tubes are one hopper wall, so that each lip is counted
            // once. One cone is a hopper with one hole of the vessel's radius: in the cylinder
            // its floor lies outside the vessel, in a vat it is the flat base around the cone.
            walls.push(wall(ShapeSpec::Hopper {
                height: loc,
                centers: holes.clone(),
                radius: r_top,
                slope: m,
                bottom: z_end,
                tube: hole.map_or(0.0, |h| h.1.max(0.0)),
            }));
            if n_cones == 1 {
                profile = vec![[z_end, r_end], [loc, r_top]];
                bottom = z_end;
            } else {
                // The fill stays above the floor; the cones fill as the pebbles settle.
                profile = vec![[loc, ro]];
                bottom = loc;
            }
            if let Some((_, depth, name)) = hole {
                if depth < 0.0 {
                    return Err(deck.error(name, format!("hole_depth must be ≥ 0, got {depth}")));
                }
                let door = z_end - depth;
                for &[x, y] in &holes {
                    walls.push(wall(ShapeSpec::Disk {
                        center: DVec3::new(x, y, door),
                        normal: DVec3::Z,
                        radius: r_end + r_peb,
                    }));
                    chutes.push(Chute {
                        center: [x, y],
                        radius: r_end,
                        door,
                    });
                }
                if n_cones == 1 {
                    if depth > 0.0 {
                        profile.insert(0, [door, r_end]);
                    }
                    bottom = door;
                }
            }
        }
        None => {
            if n_cones > 1 {
                return Err(deck.error(
                    "number_of_cones",
                    "needs a cone: its location and slope make each outlet cone (001 §4.8)",
                ));
            }
            if let Some((_, _, name)) = hole {
                return Err(deck.error(
                    name,
                    "needs a cone: the exit chute's door is at the bottom of the cone (001 §4.8)",
                ));
            }
        }
    }
    walls.extend(unions(deck));
    Ok(Vessel {
        walls,
        profile,
        inner: ri,
        half_xy,
        bottom: bottom.max(floor),
        chutes,
        holes,
    })
}

/// The indentation blocks of the geometry section, checked as the wall they cut into the
/// vessel_radius cylinder of radius `ro` (001 §4.7.2); `None` when there are none.
fn indentations(deck: &Deck, ro: f64) -> Result<Option<Vec<Indentation>>> {
    let Some(first) = deck.geometry.indentations.first() else {
        return Ok(None);
    };
    let at = |line: usize, message: String| Error::Parse {
        path: format!("{}:{line}", deck.origin),
        message: format!("start_indentation: {message}"),
    };
    if deck.has("rectangular_vat") {
        return Err(at(
            first.line,
            "indentations are cut into the vessel_radius wall only (001 §4.7.2), not a rectangular_vat".into(),
        ));
    }
    let mut blocks = Vec::new();
    for i in &deck.geometry.indentations {
        let min_max = i
            .min_max
            .ok_or_else(|| at(i.line, "needs min_max and at least one row".into()))?;
        let block = Indentation {
            pattern: i.pattern.clone(),
            min_max,
            rows: i.rows.clone(),
        };
        let mut problems = Vec::new();
        ShapeSpec::IndentedCylinder {
            radius: ro,
            indentations: vec![block.clone()],
        }
        .problems("", &mut problems);
        if let Some(Error::Scene { field, reason }) = problems.first() {
            let field = field.strip_prefix(".indentations[0].").unwrap_or(field);
            return Err(at(i.line, format!("{field}: {reason}")));
        }
        blocks.push(block);
    }
    Ok(Some(blocks))
}

/// The unions of the geometry section as walls; pebbles stay outside each solid.
fn unions(deck: &Deck) -> Vec<WallSpec> {
    deck.geometry
        .unions
        .iter()
        .filter(|(_, u)| !u.is_empty())
        .map(|(_, u)| {
            let members = u
                .iter()
                .flat_map(|s| match *s {
                    Solid::Block { min, max } => vec![ShapeSpec::Block {
                        min,
                        max,
                        side: None,
                    }],
                    // A solid finite cylinder: its mantle and two end disks.
                    Solid::Cylinder { radius, center, z } => {
                        let disk = |zz: f64| ShapeSpec::Disk {
                            center: DVec3::new(center[0], center[1], zz),
                            normal: DVec3::Z,
                            radius,
                        };
                        vec![
                            ShapeSpec::Cylinder {
                                origin: DVec3::new(center[0], center[1], 0.5 * (z[0] + z[1])),
                                axis: DVec3::Z,
                                radius,
                                side: Side::Both,
                                length: Some(z[1] - z[0]),
                            },
                            disk(z[0]),
                            disk(z[1]),
                        ]
                    }
                    Solid::Plane(e) => vec![ShapeSpec::Plane {
                        point: None,
                        normal: None,
                        equation: Some(e),
                        both: false,
                    }],
                })
                .collect();
            wall(ShapeSpec::Union { members })
        })
        .collect()
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

/// Finds `file` in the deck's folder, then in the `search` folders.
fn find(file: &str, base: &Path, search: &[PathBuf]) -> PathBuf {
    std::iter::once(base.to_path_buf())
        .chain(search.iter().cloned())
        .map(|d| d.join(file))
        .find(|p| p.exists())
        .unwrap_or_else(|| base.join(file))
}

impl Deck {
    /// The deck as a runnable scene; files named in the deck are read from `base` (the deck's
    /// folder), then from the `search` folders (where an earlier run wrote its save).
    pub fn translate(&self, base: &Path, search: &[PathBuf]) -> Result<DeckRun> {
        let mut notes = Vec::new();
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
        let alpha = self.num("alpha");
        let runs = self.num("runs");
        let count = self.num("number_of_pebbles") as usize;
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
        let v = vessel(self, r_o)?;
        let (model, mu_pp, mu_ps) = physics::contact_law(self)?;
        let integrator = physics::integrator(self)?;
        let substeps = if integrator == crate::scene::Integrator::Euler {
            physics::euler_substeps(&model, alpha, mass, inertia, r_o)
        } else {
            1
        };
        if substeps > 1 {
            notes.push(format!(
                "{}: Euler (eq 3.17) is unstable at alpha = {alpha:e} s for this deck's dashpots and springs; each alpha is taken in {substeps} Euler steps (outputs still every alpha)",
                self.at("alpha")
            ));
        }
        let tallies = physics::tallies(self, alpha)?;
        let core = physics::core(r_c, r_o, rho[0]);
        let ball = 4.0 / 3.0 * std::f64::consts::PI * r_o.powi(3);
        let pebble = Material {
            name: "pebble".into(),
            // The shell's density beside a core; a pebble all core (or all shell) is uniform.
            density: Some(if core.is_some() { rho[1] } else { mass / ball }),
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
            ..pebble.clone()
        };
        let pairs = vec![PairOverride {
            materials: ["pebble".into(), "vessel".into()],
            sliding_friction: Some(mu_ps),
            ..PairOverride::default()
        }];
        let motion = earthquake(self, base)?;
        let mut walls = v.walls;
        let mut restore = None;
        let mut fill_bottom = v.bottom;
        let mut packing = if self.has("random_packing_method") {
            Packing::Prime {
                extra_candidates: self.num("random_packing_method") as usize,
            }
        } else {
            let f = self.num("initial_packing");
            if !(f > 0.0 && f <= 0.3) {
                return Err(self.error(
                    "initial_packing",
                    format!("must be in (0, 0.3] (001 §4.4: not above 0.15), got {f}"),
                ));
            }
            Packing::Loose { fraction: f }
        };
        let inlets: Vec<Inlet> = self
            .geometry
            .inlets
            .iter()
            .map(|i| Inlet {
                pos: i.pos,
                vel: i.vel,
            })
            .collect();
        // Drop points without inlets, and packing cones: over each outlet hole, or
        // (offset_inlet_holes) beside it: half the vessel radius off a single central hole,
        // half-way round to the next of several.
        let offset = self.has("offset_inlet_holes");
        let turn = std::f64::consts::PI / v.holes.len() as f64;
        let spots: Vec<[f64; 2]> = match (v.holes.len(), offset) {
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
        };
        let cone_packing = ["cone_packing", "cone_packing_chute"]
            .iter()
            .filter_map(|n| self.last(n))
            .max_by_key(|d| d.line);
        let load = [
            "load_pebble_save",
            "load_pebble_info",
            "load_positions",
            "load_positions_divide",
        ]
        .iter()
        .filter_map(|n| self.last(n))
        .max_by_key(|d| d.line);
        let particles = if let Some(d) = load {
            let file = find(self.word(d.name).unwrap_or_default(), base, search);
            match d.name {
                "load_positions" | "load_positions_divide" => {
                    let divide = if d.name == "load_positions" {
                        1.0
                    } else {
                        self.nums(d.name).unwrap_or_default()[0]
                    };
                    if divide <= 0.0 {
                        return Err(self.error(d.name, "divide must be > 0"));
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
                    ParticleSource::List {
                        material: "pebble".into(),
                        spheres,
                    }
                }
                _ => {
                    let mut s = save::Save::read(&file)?;
                    if d.name == "load_pebble_info" {
                        if !self.has("load_pebble_slips") {
                            s.slips.clear();
                        }
                        if !self.has("load_pebble_surface_slips") {
                            s.surface_slips.clear();
                        }
                    }
                    let source = s.source("pebble");
                    restore = Some(s);
                    source
                }
            }
        } else {
            if let Some(d) = cone_packing {
                let n = self.nums(d.name).unwrap_or_default();
                let (open, h) = (n[0], n[1]);
                if open <= r_o {
                    return Err(self.error(
                        d.name,
                        format!("opening_size must exceed the pebble radius, got {open}"),
                    ));
                }
                let spots: Vec<[f64; 2]> = if inlets.is_empty() {
                    spots.clone()
                } else {
                    inlets.iter().map(|i| [i.pos.x, i.pos.y]).collect()
                };
                // Each 45° cone widens until it meets its neighbour's, or the vessel wall.
                let mut reach = v.half_xy[0];
                for (a, p) in spots.iter().enumerate() {
                    for q in &spots[a + 1..] {
                        reach = reach.min(0.5 * ((p[0] - q[0]).hypot(p[1] - q[1])));
                    }
                }
                for p in &spots {
                    walls.push(wall(ShapeSpec::Cone {
                        origin: DVec3::new(p[0], p[1], 0.0),
                        axis: DVec3::Z,
                        slope: 1.0,
                        radius0: open - h,
                        range: Some([h, h + (reach - open).max(r_o)]),
                    }));
                    if d.name == "cone_packing_chute" {
                        let c = n[2];
                        if c <= 0.0 {
                            return Err(self.error(d.name, "chute_height must be > 0"));
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
                fill_bottom = h;
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
            ParticleSource::Pack {
                material: "pebble".into(),
                count,
                radius: r_o,
                packing,
                min: DVec3::new(-v.half_xy[0], -v.half_xy[1], fill_bottom),
                max: DVec3::new(v.half_xy[0], v.half_xy[1], top),
                profile: v.profile.clone(),
                inner_radius: v.inner,
            }
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
        let dump_positions = match ["dump_positions", "dump_positions_mult"]
            .iter()
            .filter_map(|n| self.last(n))
            .max_by_key(|d| d.line)
        {
            Some(d) => {
                let mult = if d.name == "dump_positions" {
                    1.0
                } else {
                    self.nums(d.name).unwrap_or_default()[0]
                };
                Some((PathBuf::from(self.word(d.name).unwrap_or_default()), mult))
            }
            None => None,
        };
        let freq = |n: &str| (self.num(n) as u64).max(1);
        let scene = Scene {
            simulation: SimulationSpec {
                seed: self.num("seed") as u64,
                start_time: self.num("initial_time"),
                // alpha = 1e-4 s is about t_c/6 for the samples' h = 1e6 N/m (001 §8).
                dt_limit: DtLimit::ContactTime,
                method: Method::Soft(SoftOptions {
                    integrator,
                    substeps,
                }),
                ..SimulationSpec::new(runs * alpha, TimeStep::Fixed(alpha))
            },
            contact: model,
            materials: vec![pebble, vessel_material],
            pairs,
            gravity: Gravity {
                uniform: Some(DVec3::new(0.0, 0.0, -STANDARD_GRAVITY)),
                ..Gravity::default()
            },
            boundary: Default::default(),
            frame: None,
            walls,
            particles: vec![particles],
            output: OutputSpec {
                tallies: Some(tallies),
                ..OutputSpec::default()
            },
            recirculation,
        };
        let stem = Path::new(&self.origin)
            .file_stem()
            .map_or("deck".into(), |s| s.to_string_lossy().into_owned());
        Ok(DeckRun {
            scene,
            restore,
            dump_positions,
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
