//! The particle sources that read files another code or tool wrote: a CSV of spheres, a LAMMPS
//! data file or dump, a pkdgrav `ss` file.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::particles::Making;
use super::tile::tiled;
use super::Scene;
use crate::fill::file::read_particle_file;
use crate::io::dump_read::read_dump;
use crate::io::lammps_data::read_lammps_data;
use crate::io::ss::{read_ss, SsUnits};
use crate::particles::ParticleSpec;
use crate::{Error, Result};

/// Relative difference allowed between a file's mass and the mass of a sphere of the
/// material's density: the 7 digits of the f32 in a reduced `ss` file.
const MASS_TOLERANCE: f64 = 1e-5;

/// `type = "file"`: a CSV file with columns x, y, z, radius and optionally vx, vy, vz.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSource {
    /// Material name.
    pub material: String,
    /// Path of the file, relative to the scene.
    pub path: PathBuf,
}

impl FileSource {
    pub(super) fn make(&self, m: &Making) -> Result<Vec<ParticleSpec>> {
        Ok(read_particle_file(&m.base.join(&self.path))?
            .into_iter()
            .map(|f| m.free(f.pos, f.radius, f.vel))
            .collect())
    }
}

/// `type = "lammps_data"`: the atoms of a LAMMPS data file (atom_style sphere, `.gz` allowed),
/// with their velocities and spins; the file's per-atom density must equal the material's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LammpsDataSource {
    /// Material name of every atom.
    pub material: String,
    /// Path of the data file, relative to the scene.
    pub path: PathBuf,
    /// `[nx, ny]`: the file's bed repeated nx × ny times along x and y in the scene's periodic
    /// box (`scene/tile.rs`); once when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile: Option<[u32; 2]>,
}

impl LammpsDataSource {
    pub(super) fn make(&self, m: &Making) -> Result<Vec<ParticleSpec>> {
        let path = m.base.join(&self.path);
        let atoms = read_lammps_data(&path)?;
        let density = m.density;
        if let Some(a) = atoms
            .iter()
            .find(|a| (a.density - density).abs() > 1e-9 * density)
        {
            return Err(Error::Format {
                path,
                reason: format!(
                    "atom {} has density {} kg/m³ but material \"{}\" has {density}",
                    a.id, a.density, self.material
                ),
            });
        }
        let grains = atoms
            .iter()
            .map(|a| ParticleSpec {
                omega: a.omega,
                ..m.free(a.pos, a.radius, a.vel)
            })
            .collect();
        match self.tile {
            Some(tile) => tiled(grains, tile, m.scene, &m.at(), &path),
            None => Ok(grains),
        }
    }
}

/// `type = "ss"`: the particles of a pkdgrav `ss` file (standard or reduced, either byte
/// order), converted from pkdgrav's units unless `units = "scene"`. A particle's colour is its
/// type: `types` maps colours to materials, the others are of `material`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsSource {
    /// Material name of every particle whose colour `types` does not name.
    pub material: String,
    /// Path of the file, relative to the scene.
    pub path: PathBuf,
    /// `"pkdgrav"` (AU, M☉, yr/2π, converted to SI) or `"scene"` (numbers kept).
    #[serde(default)]
    pub units: SsUnits,
    /// Material name per colour, `{ 3 = "ice" }`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub types: BTreeMap<String, String>,
}

impl SsSource {
    pub(super) fn make(&self, m: &Making) -> Result<Vec<ParticleSpec>> {
        let path = m.base.join(&self.path);
        let file = read_ss(&path)?;
        let types = TypeMaterials::new(m, &self.types);
        file.records
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let r = r.to_scene(self.units);
                let what = || {
                    format!(
                        "particle {k} (original index {}, colour {})",
                        r.index, r.colour
                    )
                };
                let spec = ParticleSpec {
                    omega: r.spin,
                    material: types.of(i64::from(r.colour)),
                    ..m.free(r.pos, r.radius, r.vel)
                };
                check_particle(m, &spec, Some(r.mass), what).map_err(|reason| Error::Format {
                    path: path.clone(),
                    reason,
                })?;
                Ok(spec)
            })
            .collect()
    }
}

/// `type = "lammps_dump"`: the atoms of a LAMMPS text dump (`.gz` allowed) at `timestep`, or at
/// its last frame, columns mapped by name (`x y z` or `xu yu zu` or `xs ys zs`, `radius` or
/// `diameter`, optionally `id type vx vy vz omegax omegay omegaz mass`). `types` maps atom
/// types to materials, the others are of `material`; a `mass` column must agree with them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LammpsDumpSource {
    /// Material name of every atom whose type `types` does not name.
    pub material: String,
    /// Path of the dump, relative to the scene.
    pub path: PathBuf,
    /// The frame to read; the last when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestep: Option<u64>,
    /// Material name per atom type, `{ 2 = "steel" }`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub types: BTreeMap<String, String>,
}

impl LammpsDumpSource {
    pub(super) fn make(&self, m: &Making) -> Result<Vec<ParticleSpec>> {
        let path = m.base.join(&self.path);
        let format = |reason| Error::Format {
            path: path.clone(),
            reason,
        };
        let frame = read_dump(&path, self.timestep)?;
        let mut atoms = frame.atoms().map_err(format)?;
        atoms.sort_by_key(|a| a.id);
        let types = TypeMaterials::new(m, &self.types);
        atoms
            .iter()
            .map(|a| {
                let spec = ParticleSpec {
                    omega: a.omega,
                    material: types.of(a.kind),
                    ..m.free(a.pos, a.radius, a.vel)
                };
                let what = || format!("timestep {}: atom {}", frame.timestep, a.id);
                check_particle(m, &spec, a.mass, what).map_err(format)?;
                Ok(spec)
            })
            .collect()
    }
}

/// The material of each particle type of a source: those its `types` table names, else the
/// source's own.
struct TypeMaterials {
    default: usize,
    named: BTreeMap<i64, usize>,
}

impl TypeMaterials {
    /// The table of a source; its keys and names were checked with the scene.
    fn new(m: &Making, types: &BTreeMap<String, String>) -> Self {
        let named = types
            .iter()
            .filter_map(|(k, name)| Some((k.parse().ok()?, m.scene.material_index(name)?)))
            .collect();
        TypeMaterials {
            default: m.material,
            named,
        }
    }

    fn of(&self, kind: i64) -> usize {
        self.named.get(&kind).copied().unwrap_or(self.default)
    }
}

/// Refuses a particle read from a file whose radius is not > 0 or whose mass differs from
/// the mass its material gives it (the mass the run will use, [`Scene::particle_mass`]).
fn check_particle(
    m: &Making,
    spec: &ParticleSpec,
    mass: Option<f64>,
    what: impl Fn() -> String,
) -> Result<(), String> {
    if !(spec.radius.is_finite() && spec.radius > 0.0) {
        return Err(format!(
            "{}: radius must be > 0, got {}",
            what(),
            spec.radius
        ));
    }
    let (Some(mass), Ok((want, _))) = (mass, m.scene.particle_mass(spec)) else {
        return Ok(());
    };
    if (mass - want).abs() > MASS_TOLERANCE * want {
        let name = &m.scene.materials[spec.material].name;
        return Err(format!(
            "{}: mass {mass} kg, but a radius of {} m of material \"{name}\" gives {want} kg (density {} kg/m³); set the material's density to the file's",
            what(),
            spec.radius,
            m.scene.materials[spec.material].density.unwrap_or(f64::NAN)
        ));
    }
    Ok(())
}

impl Scene {
    /// Refuses a `types` table whose keys are not whole numbers or whose names are no material.
    pub(super) fn type_table_problems(
        &self,
        at: &str,
        types: &BTreeMap<String, String>,
        p: &mut Vec<Error>,
    ) {
        for (key, name) in types {
            let field = format!("{at}.types.{key}");
            if key.parse::<i64>().is_err() {
                p.push(Error::scene(field.clone(), "a type must be a whole number"));
            }
            self.check_material_ref(p, field, name);
        }
    }
}
