//! The particle sources that read files another code or tool wrote: a CSV of spheres and a
//! LAMMPS data file.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::particles::Making;
use crate::fill::file::read_particle_file;
use crate::io::lammps_data::read_lammps_data;
use crate::particles::ParticleSpec;
use crate::{Error, Result};

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
        Ok(atoms
            .iter()
            .map(|a| ParticleSpec {
                omega: a.omega,
                ..m.free(a.pos, a.radius, a.vel)
            })
            .collect())
    }
}
