//! The `[[particles]]` sources: each source's fields, its checks and how it makes particles,
//! side by side; [`make_particles`] makes those of every source of a scene.

use std::path::Path;

use glam::DVec3;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::particle_files::{FileSource, LammpsDataSource, LammpsDumpSource, SsSource};
use super::{box_corners, finite, in_range, positive, Method, Scene, MAX_GRAINS};
use crate::fill::lattice::{lattice_spaced, LatticeKind};
use crate::fill::{annulus::Annulus, layer::cylinder_layer, random::random_placement};
use crate::particles::{core_shell_mass_inertia, curve_order, Mobility, ParticleSpec, Particles};
use crate::walls::Wall;
use crate::{Error, Result};

/// Largest number of lattice sites a scene may ask for.
const MAX_LATTICE_SITES: f64 = 1e8;

/// Refuses `n` grains (or an estimate of them) at `field` past [`MAX_GRAINS`].
fn too_many(p: &mut Vec<Error>, field: String, n: f64) {
    if n > MAX_GRAINS {
        p.push(Error::scene(
            field,
            format!("makes about {n:.3e} grains, more than the limit {MAX_GRAINS:e}"),
        ));
    }
}

/// Attempts random placement may make per requested sphere before it gives up.
const RANDOM_ATTEMPTS_PER_SPHERE: usize = 1000;

/// A way to make particles: `type = "list"`, `"file"`, `"lammps_data"`, `"lammps_dump"`, `"ss"`,
/// `"lattice"`, `"cylinder_layer"`, `"annulus"`, `"random"` or `"pack"`, with the fields of that
/// source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ParticleSource {
    /// An explicit list.
    List(ListSource),
    /// A CSV file of spheres.
    File(FileSource),
    /// The atoms of a LAMMPS data file.
    LammpsData(LammpsDataSource),
    /// The atoms of one frame of a LAMMPS dump.
    LammpsDump(LammpsDumpSource),
    /// The particles of a pkdgrav `ss` file.
    Ss(SsSource),
    /// A cubic or HCP lattice filling a box.
    Lattice(LatticeSource),
    /// Touching spheres lining the inside of a cylinder.
    CylinderLayer(CylinderLayerSource),
    /// Discs (2-D) packed in an annulus.
    Annulus(AnnulusSource),
    /// Random non-overlapping placement in a box.
    Random(RandomSource),
    /// A container filled from the bottom.
    Pack(PackSource),
}

/// What a source needs to make its particles, besides its own fields.
pub(super) struct Making<'a> {
    /// Index of the source in `particles`, for messages.
    k: usize,
    /// Index of the source's material.
    pub(super) material: usize,
    /// Density of the source's material (kg/m³).
    pub(super) density: f64,
    /// Folder relative paths are read from.
    pub(super) base: &'a Path,
    /// The scene's walls (packing keeps clear of them).
    walls: &'a [Wall],
    /// Overlap left by relaxed packings, as a fraction of the smaller radius.
    tolerance: f64,
    /// The scene's generator, shared by the sources in order.
    rng: &'a mut ChaCha8Rng,
    /// The scene (materials of the sources that map types to them).
    pub(super) scene: &'a Scene,
}

impl Making<'_> {
    /// A free sphere of the source's material without spin.
    pub(super) fn free(&self, pos: DVec3, radius: f64, vel: DVec3) -> ParticleSpec {
        ParticleSpec {
            pos,
            vel,
            omega: DVec3::ZERO,
            radius,
            material: self.material,
            mobility: Mobility::Free,
        }
    }

    /// The source's place, `particles[k]`.
    pub(super) fn at(&self) -> String {
        format!("particles[{}]", self.k)
    }

    /// A scene error of the source's `field`, with its index in front.
    fn error(&self, field: &str, reason: impl Into<String>) -> Error {
        Error::scene(format!("particles[{}].{field}", self.k), reason)
    }
}

impl ParticleSource {
    /// The material name the source uses.
    pub fn material(&self) -> &str {
        match self {
            ParticleSource::List(s) => &s.material,
            ParticleSource::File(s) => &s.material,
            ParticleSource::LammpsData(s) => &s.material,
            ParticleSource::LammpsDump(s) => &s.material,
            ParticleSource::Ss(s) => &s.material,
            ParticleSource::Lattice(s) => &s.material,
            ParticleSource::CylinderLayer(s) => &s.material,
            ParticleSource::Annulus(s) => &s.material,
            ParticleSource::Random(s) => &s.material,
            ParticleSource::Pack(s) => &s.material,
        }
    }

    /// What a run would refuse in the source's own values; `at` is its place,
    /// `particles[k]`.
    fn problems(&self, at: &str, scene: &Scene, p: &mut Vec<Error>) {
        let dimensions = scene.simulation.dimensions;
        match self {
            ParticleSource::List(s) => s.problems(at, p),
            ParticleSource::File(_) => {}
            ParticleSource::LammpsData(s) => {
                if let Some(tile) = s.tile {
                    super::tile::tile_problems(at, tile, scene, p);
                }
            }
            ParticleSource::LammpsDump(s) => scene.type_table_problems(at, &s.types, p),
            ParticleSource::Ss(s) => scene.type_table_problems(at, &s.types, p),
            ParticleSource::Lattice(s) => s.problems(at, p),
            ParticleSource::CylinderLayer(s) => s.problems(at, p),
            ParticleSource::Annulus(s) => s.problems(at, dimensions, p),
            ParticleSource::Random(s) => s.problems(at, p),
            ParticleSource::Pack(s) => s.problems(at, p),
        }
    }

    /// The source's particles.
    fn make(&self, m: &mut Making) -> Result<Vec<ParticleSpec>> {
        match self {
            ParticleSource::List(s) => Ok(s.make(m)),
            ParticleSource::File(s) => s.make(m),
            ParticleSource::LammpsData(s) => s.make(m),
            ParticleSource::LammpsDump(s) => s.make(m),
            ParticleSource::Ss(s) => s.make(m),
            ParticleSource::Lattice(s) => Ok(s.make(m)),
            ParticleSource::CylinderLayer(s) => Ok(s.make(m)),
            ParticleSource::Annulus(s) => s.make(m),
            ParticleSource::Random(s) => s.make(m),
            ParticleSource::Pack(s) => s.make(m),
        }
    }
}

impl Scene {
    /// The problems of every particle source, each with its field path.
    pub(super) fn particle_problems(&self, p: &mut Vec<Error>) {
        for (k, src) in self.particles.iter().enumerate() {
            let at = format!("particles[{k}]");
            self.check_material_ref(p, format!("{at}.material"), src.material());
            src.problems(&at, self, p);
        }
    }
}

/// All particles of the scene's sources. Ids follow the order the sources make them; the store
/// keeps them along a Morton curve, so that neighbours in space are near in memory.
pub(crate) fn make_particles(scene: &Scene, base: &Path, walls: &[Wall]) -> Result<Particles> {
    let mut rng = ChaCha8Rng::seed_from_u64(scene.simulation.seed);
    // Packings are relaxed as far as the approximate hard spheres correct overlaps.
    let tolerance = match scene.simulation.method {
        Method::ApproxHard(o) => o.overlap_tolerance,
        _ => super::ApproxHardOptions::default().overlap_tolerance,
    };
    let mut made: Vec<(ParticleSpec, f64, f64)> = Vec::new();
    for (k, src) in scene.particles.iter().enumerate() {
        let material = scene
            .material_index(src.material())
            .ok_or_else(|| Error::scene(format!("particles[{k}].material"), "unknown material"))?;
        let density = scene.materials[material].density.ok_or_else(|| {
            Error::scene(
                format!("materials[{material}].density"),
                "is needed for particles",
            )
        })?;
        let mut making = Making {
            k,
            material,
            density,
            base,
            walls,
            tolerance,
            rng: &mut rng,
            scene,
        };
        for s in src.make(&mut making)? {
            let (m, i) = scene.particle_mass(&s).map_err(|e| match e {
                Error::Scene { field, reason } => {
                    Error::scene(field, format!("{reason} of particles[{k}]"))
                }
                other => other,
            })?;
            made.push((s, m, i));
        }
    }
    let cell = 2.0 * made.iter().map(|(s, ..)| s.radius).fold(0.0, f64::max);
    let pos: Vec<DVec3> = made.iter().map(|(s, ..)| s.pos).collect();
    let order = curve_order(&pos, cell);
    let mut particles = Particles::default();
    for k in order {
        particles.push_with_inertia(k as u64, &made[k].0, made[k].1, made[k].2);
    }
    Ok(particles)
}

impl Scene {
    /// Mass (kg) and moment of inertia (kg m²) of a particle of its material: a core–shell or
    /// homogeneous sphere, or a disc (mass per area) in 2-D, whose inertia planar::make_discs
    /// sets. Refuses a material without density or a core not inside the particle.
    pub(crate) fn particle_mass(&self, s: &ParticleSpec) -> Result<(f64, f64)> {
        let (k, material) = (s.material, &self.materials[s.material]);
        let density = material.density.ok_or_else(|| {
            Error::scene(format!("materials[{k}].density"), "is needed for particles")
        })?;
        if let Some(c) = material.core.filter(|c| s.radius <= c.radius) {
            return Err(Error::scene(
                format!("materials[{k}].core.radius"),
                format!(
                    "{} m is not below the radius {} m of a particle",
                    c.radius, s.radius
                ),
            ));
        }
        Ok(if self.simulation.dimensions == 2 {
            let m = crate::planar::disc_mass(s.radius, density);
            (m, crate::planar::disc_inertia(m, s.radius))
        } else {
            core_shell_mass_inertia(s.radius, density, material.core)
        })
    }
}

/// `n` velocities: `mean` plus Gaussian components of spread σ (m/s) drawn with Box–Muller from
/// the scene's generator, their own mean removed so the centre of mass moves at `mean`.
fn thermal_velocities(n: usize, mean: DVec3, sigma: f64, rng: &mut ChaCha8Rng) -> Vec<DVec3> {
    if sigma == 0.0 || n == 0 {
        return vec![mean; n];
    }
    let mut gauss = || crate::fill::random::standard_normal(rng);
    let mut v: Vec<DVec3> = (0..n)
        .map(|_| sigma * DVec3::new(gauss(), gauss(), gauss()))
        .collect();
    let drift = v.iter().copied().sum::<DVec3>() / n as f64;
    for x in v.iter_mut() {
        *x += mean - drift;
    }
    v
}

/// Refuses a Gaussian velocity spread σ unless it is finite and ≥ 0.
fn dispersion_problems(at: &str, sigma: f64, p: &mut Vec<Error>) {
    if !(sigma.is_finite() && sigma >= 0.0) {
        p.push(Error::scene(
            format!("{at}.velocity_dispersion"),
            format!("must be ≥ 0, got {sigma}"),
        ));
    }
}

/// One sphere of an explicit list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereSpec {
    /// Centre (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub pos: DVec3,
    /// Radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius: f64,
    /// Velocity (m/s).
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub vel: DVec3,
    /// Angular velocity (rad/s).
    #[serde(default, deserialize_with = "crate::units::angular_velocity")]
    pub omega: DVec3,
    /// free, no_rotation or fixed.
    #[serde(default)]
    pub mobility: Mobility,
}

/// `type = "list"`: an explicit list of spheres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListSource {
    /// Material name.
    pub material: String,
    /// The spheres.
    pub spheres: Vec<SphereSpec>,
}

impl ListSource {
    fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        for (n, s) in self.spheres.iter().enumerate() {
            let g = |name: &str| f(&format!("spheres[{n}].{name}"));
            positive(p, g("radius"), s.radius);
            finite(p, g("pos"), s.pos);
            finite(p, g("vel"), s.vel);
            finite(p, g("omega"), s.omega);
            if s.mobility == Mobility::Fixed && (s.vel != DVec3::ZERO || s.omega != DVec3::ZERO) {
                p.push(Error::scene(
                    g("vel"),
                    "a fixed sphere is held in place; give it no velocity or spin",
                ));
            }
        }
    }

    fn make(&self, m: &Making) -> Vec<ParticleSpec> {
        self.spheres
            .iter()
            .map(|s| ParticleSpec {
                pos: s.pos,
                vel: s.vel,
                omega: s.omega,
                radius: s.radius,
                material: m.material,
                mobility: s.mobility,
            })
            .collect()
    }
}

/// `type = "lattice"`: a cubic or HCP lattice filling a box, radii uniform in r(1 ± spread)
/// (003 §2.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatticeSource {
    /// Material name.
    pub material: String,
    /// cubic or hcp.
    pub kind: LatticeKind,
    /// Lower corner (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub min: DVec3,
    /// Upper corner (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub max: DVec3,
    /// Mean radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius: f64,
    /// Relative radius spread, in [0, 1).
    #[serde(default)]
    pub spread: f64,
    /// Distance between neighbouring sites (m), ≥ 2 R_max; 2 R_max when absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::length"
    )]
    pub spacing: Option<f64>,
    /// Initial velocity of every sphere (m/s).
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity: DVec3,
    /// Gaussian velocity spread σ per component (m/s), centre-of-mass motion removed.
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity_dispersion: f64,
}

impl LatticeSource {
    fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        let (radius, spread) = (self.radius, self.spread);
        dispersion_problems(at, self.velocity_dispersion, p);
        box_fill_problems(at, [self.min, self.max], radius, spread, p);
        finite(p, f("velocity"), self.velocity);
        if let Some(d) = self.spacing {
            let least = 2.0 * radius * (1.0 + spread);
            if !(d.is_finite() && d >= least) {
                p.push(Error::scene(
                    f("spacing"),
                    format!("must be ≥ 2 × the largest radius = {least}, got {d}"),
                ));
            }
        }
        // A lattice makes about V / (2 r_max)³ spheres: refuse a typo that asks for billions.
        let estimate =
            (self.max - self.min).element_product() / (2.0 * radius * (1.0 + spread)).powi(3);
        if estimate > MAX_LATTICE_SITES {
            p.push(Error::scene(
                f("radius"),
                format!("{radius} m in this box would make about {estimate:.1e} spheres (limit {MAX_LATTICE_SITES:.0e}); check the units"),
            ));
        }
    }

    fn make(&self, m: &mut Making) -> Vec<ParticleSpec> {
        let spheres = lattice_spaced(
            self.kind,
            self.min,
            self.max,
            self.radius,
            self.spread,
            self.spacing,
            m.rng,
        );
        let vel = thermal_velocities(
            spheres.len(),
            self.velocity,
            self.velocity_dispersion,
            m.rng,
        );
        spheres
            .iter()
            .zip(vel)
            .map(|(s, v)| m.free(s.pos, s.radius, v))
            .collect()
    }
}

/// The box and radii of a lattice or random fill: corners in order, radius > 0, spread in
/// [0, 1).
fn box_fill_problems(
    at: &str,
    [min, max]: [DVec3; 2],
    radius: f64,
    spread: f64,
    p: &mut Vec<Error>,
) {
    box_corners(p, at, min, max);
    positive(p, format!("{at}.radius"), radius);
    if !(0.0..1.0).contains(&spread) {
        p.push(Error::scene(
            format!("{at}.spread"),
            format!("must be in [0, 1), got {spread}"),
        ));
    }
}

/// `type = "cylinder_layer"`: touching spheres lining the inside of a cylinder of `radius`
/// (m) about `axis` through `center`, over `length` (m): the glued grains of a rough drum
/// (002 §6.2), held by a sticky cylinder wall of the same radius.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CylinderLayerSource {
    /// Material name.
    pub material: String,
    /// A point of the axis, the middle of the layer (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub center: DVec3,
    /// Axis (normalised on load).
    pub axis: DVec3,
    /// Radius of the wall the grains line (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius: f64,
    /// Length covered along the axis (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub length: f64,
    /// Radius of the grains (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub sphere_radius: f64,
}

impl CylinderLayerSource {
    fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        let (radius, sphere_radius) = (self.radius, self.sphere_radius);
        finite(p, f("center"), self.center);
        super::nonzero(p, f("axis"), self.axis);
        positive(p, f("sphere_radius"), sphere_radius);
        positive(p, f("length"), self.length);
        if !(radius.is_finite() && radius > 2.0 * sphere_radius) {
            p.push(Error::scene(
                f("radius"),
                format!("must exceed twice sphere_radius ({sphere_radius}), got {radius}"),
            ));
        }
        // Rings of about πR/r grains, one every 2r along the length (fill/layer.rs).
        let estimate = std::f64::consts::PI * radius / sphere_radius
            * (self.length / (2.0 * sphere_radius)).max(1.0);
        too_many(p, f("sphere_radius"), estimate);
    }

    fn make(&self, m: &Making) -> Vec<ParticleSpec> {
        let axis = self.axis.normalize();
        cylinder_layer(
            self.center,
            axis,
            self.radius,
            self.length,
            self.sphere_radius,
        )
        .into_iter()
        .map(|s| m.free(s.pos, s.radius, DVec3::ZERO))
        .collect()
    }
}

/// `type = "annulus"`: discs (2-D) between two circles about `center` in the xy plane, radii
/// uniform in [radius_min, radius_max], as many as cover `packing_fraction` of the annulus,
/// placed at random and relaxed until no two overlap (004 §II; `fill/annulus.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnulusSource {
    /// Material name.
    pub material: String,
    /// Centre of the circles (m); the discs lie in the plane z = center.z.
    #[serde(deserialize_with = "crate::units::length")]
    pub center: DVec3,
    /// Inner radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub inner_radius: f64,
    /// Outer radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub outer_radius: f64,
    /// Smallest disc radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius_min: f64,
    /// Largest disc radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius_max: f64,
    /// Fraction of the annulus' area the discs cover (−).
    pub packing_fraction: f64,
    /// Gaussian velocity spread σ per in-plane component (m/s), mean motion removed.
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity_dispersion: f64,
}

impl AnnulusSource {
    fn problems(&self, at: &str, dimensions: u8, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        let (inner, outer) = (self.inner_radius, self.outer_radius);
        let (r_min, r_max) = (self.radius_min, self.radius_max);
        finite(p, f("center"), self.center);
        positive(p, f("inner_radius"), inner);
        positive(p, f("radius_min"), r_min);
        if !(r_max.is_finite() && r_max >= r_min) {
            p.push(Error::scene(
                f("radius_max"),
                format!("must be ≥ radius_min ({r_min}), got {r_max}"),
            ));
        }
        if !(outer.is_finite() && outer > inner + 2.0 * r_max) {
            p.push(Error::scene(
                f("outer_radius"),
                format!(
                    "must exceed inner_radius + 2 radius_max = {}, got {outer}",
                    inner + 2.0 * r_max
                ),
            ));
        }
        in_range(p, f("packing_fraction"), self.packing_fraction, 0.0, 0.9);
        dispersion_problems(at, self.velocity_dispersion, p);
        if dimensions != 2 {
            p.push(Error::scene(
                f("type"),
                "\"annulus\" packs discs and needs simulation.dimensions = 2",
            ));
        }
    }

    fn make(&self, m: &mut Making) -> Result<Vec<ParticleSpec>> {
        let annulus = Annulus {
            center: self.center,
            inner: self.inner_radius,
            outer: self.outer_radius,
            r_min: self.radius_min,
            r_max: self.radius_max,
            fraction: self.packing_fraction,
        };
        let discs = annulus.pack(m.rng, m.tolerance).map_err(|e| match e {
            Error::Scene { field, reason } => m.error(&field, reason),
            other => other,
        })?;
        let vel = thermal_velocities(discs.len(), DVec3::ZERO, self.velocity_dispersion, m.rng);
        Ok(discs
            .iter()
            .zip(vel)
            .map(|(s, v)| m.free(s.pos, s.radius, DVec3::new(v.x, v.y, 0.0)))
            .collect())
    }
}

/// `type = "random"`: random non-overlapping placement in a box (random sequential addition).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomSource {
    /// Material name.
    pub material: String,
    /// Lower corner (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub min: DVec3,
    /// Upper corner (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub max: DVec3,
    /// Number of spheres.
    pub count: usize,
    /// Mean radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius: f64,
    /// Relative radius spread, in [0, 1).
    #[serde(default)]
    pub spread: f64,
    /// Initial velocity of every sphere (m/s).
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity: DVec3,
    /// Gaussian velocity spread σ per component (m/s), centre-of-mass motion removed.
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity_dispersion: f64,
}

impl RandomSource {
    fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        dispersion_problems(at, self.velocity_dispersion, p);
        box_fill_problems(at, [self.min, self.max], self.radius, self.spread, p);
        finite(p, f("velocity"), self.velocity);
        if self.count == 0 {
            p.push(Error::scene(f("count"), "must be at least 1"));
        }
        too_many(p, f("count"), self.count as f64);
    }

    fn make(&self, m: &mut Making) -> Result<Vec<ParticleSpec>> {
        let attempts = self.count * RANDOM_ATTEMPTS_PER_SPHERE;
        let spheres = random_placement(
            self.min,
            self.max,
            self.count,
            self.radius,
            self.spread,
            m.rng,
            attempts,
        )
        .map_err(|e| match e {
            Error::Scene { field, reason } => {
                m.error(field.strip_prefix("particles.").unwrap_or(&field), reason)
            }
            other => other,
        })?;
        let vel = thermal_velocities(
            spheres.len(),
            self.velocity,
            self.velocity_dispersion,
            m.rng,
        );
        Ok(spheres
            .iter()
            .zip(vel)
            .map(|(s, v)| m.free(s.pos, s.radius, v))
            .collect())
    }
}

/// How a container is filled (`fill/prime.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
pub enum Packing {
    /// PRIME with this many candidates per slab beyond `count` (001 `random_packing_method`).
    Prime {
        /// Candidates beyond the count, per slab.
        extra_candidates: usize,
    },
    /// Random sequential placement at this volume fraction (001 `initial_packing`).
    Loose {
        /// Volume fraction of the fill (−), in (0, 0.3].
        fraction: f64,
    },
}

/// `type = "pack"`: a container filled from the bottom, by PRIME or a loose random fill (001
/// chapter 5): spheres in the box [min, max], inside the profile of radii about the z axis,
/// outside `inner_radius`, touching no wall.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackSource {
    /// Material name.
    pub material: String,
    /// Number of spheres.
    pub count: usize,
    /// Radius (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub radius: f64,
    /// `{ method = "prime", extra_candidates = … }` or `{ method = "loose", fraction = … }`.
    pub packing: Packing,
    /// Lower corner (m); the fill starts at min.z.
    #[serde(deserialize_with = "crate::units::length")]
    pub min: DVec3,
    /// Upper corner (m); no sphere goes above max.z.
    #[serde(deserialize_with = "crate::units::length")]
    pub max: DVec3,
    /// Container radius about the z axis as [z, R] points (m), interpolated linearly.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "crate::units::length"
    )]
    pub profile: Vec<[f64; 2]>,
    /// Radius about the z axis (m) spheres stay outside of (an annular vessel).
    #[serde(
        default,
        skip_serializing_if = "super::is_zero",
        deserialize_with = "crate::units::length"
    )]
    pub inner_radius: f64,
}

impl PackSource {
    fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        box_corners(p, at, self.min, self.max);
        positive(p, f("radius"), self.radius);
        if self.count == 0 {
            p.push(Error::scene(f("count"), "must be at least 1"));
        }
        too_many(p, f("count"), self.count as f64);
        if let Packing::Loose { fraction } = self.packing {
            if !(fraction > 0.0 && fraction <= 0.3) {
                p.push(Error::scene(
                    f("packing.fraction"),
                    format!("must be in (0, 0.3] (001 §4.4: not above 0.15 or so), got {fraction}"),
                ));
            }
        }
        let inner = self.inner_radius;
        if !(inner.is_finite() && inner >= 0.0) {
            p.push(Error::scene(
                f("inner_radius"),
                format!("must be ≥ 0, got {inner}"),
            ));
        }
        let profile = &self.profile;
        if profile.windows(2).any(|w| w[1][0] <= w[0][0])
            || profile
                .iter()
                .any(|q| !(q[0].is_finite() && q[1].is_finite() && q[1] >= 0.0))
        {
            p.push(Error::scene(
                f("profile"),
                "must be [z, R] points with z rising and R ≥ 0",
            ));
        }
    }

    fn make(&self, m: &mut Making) -> Result<Vec<ParticleSpec>> {
        let region = crate::fill::prime::Region {
            min: self.min,
            max: self.max,
            profile: &self.profile,
            inner_radius: self.inner_radius,
            walls: m.walls,
        };
        let field = format!("particles[{}].max", m.k);
        let spheres = crate::fill::prime::pack(
            &region,
            self.count,
            self.radius,
            self.packing,
            m.rng,
            &field,
        )?;
        Ok(spheres
            .iter()
            .map(|s| m.free(s.pos, s.radius, DVec3::ZERO))
            .collect())
    }
}
