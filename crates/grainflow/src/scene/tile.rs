//! `tile = [nx, ny]` on a `lammps_data` source: the file's bed repeated nx × ny times along x
//! and y, so that a small settled periodic bed makes a large one (the weak-scaling and
//! million-grain benchmarks, `grainflow bench s1 --tile NX,NY`).
//!
//! The scene's periodic box is the tiled one: along an axis cut into n tiles, the file's
//! grains fill the first n-th of the period and each copy is shifted by a whole n-th. A bed
//! settled periodic in the small box is then periodic in the large one, with the same
//! contacts across every tile face as across the small box's periodic faces.

use std::path::Path;

use glam::DVec3;

use super::{Scene, MAX_GRAINS};
use crate::particles::ParticleSpec;
use crate::{Error, Result};

/// The axes a bed is tiled along, and their names.
const AXES: [(usize, &str); 2] = [(0, "x"), (1, "y")];

/// What a run would refuse in `tile` of the source at `at` (`particles[k]`): a count below
/// one, or more than one tile along an axis that is not periodic.
pub(super) fn tile_problems(at: &str, tile: [u32; 2], scene: &Scene, p: &mut Vec<Error>) {
    let periodic = scene.boundary.periodic.axes();
    for (axis, name) in AXES {
        let n = tile[axis];
        if n == 0 {
            p.push(Error::scene(
                format!("{at}.tile"),
                format!("the count along {name} must be ≥ 1, got 0"),
            ));
        } else if n > 1 && periodic[axis].is_none() {
            p.push(Error::scene(
                format!("{at}.tile"),
                format!(
                    "{n} tiles along {name} need a periodic {name} (boundary.periodic.{name}): \
                     a tile is the period over the count"
                ),
            ));
        }
    }
}

/// `grains` (the file's, read from `path`) repeated `tile` times along x and y in the scene's
/// periodic box, tile by tile (y outer, x inner), each tile in the file's order: the first
/// tile is the file's bed itself. Refuses a grain outside the first tile (the box not widened
/// for the tiles) and more grains than [`MAX_GRAINS`], before anything is allocated.
pub(super) fn tiled(
    grains: Vec<ParticleSpec>,
    tile: [u32; 2],
    scene: &Scene,
    at: &str,
    path: &Path,
) -> Result<Vec<ParticleSpec>> {
    let count = grains.len() as f64 * f64::from(tile[0]) * f64::from(tile[1]);
    if count > MAX_GRAINS {
        return Err(Error::scene(
            format!("{at}.tile"),
            format!("makes {count:.3e} grains, more than the limit {MAX_GRAINS:e}"),
        ));
    }
    let periodic = scene.boundary.periodic.axes();
    let mut step = [0.0; 2];
    for (axis, name) in AXES.into_iter().filter(|&(a, _)| tile[a] > 1) {
        let Some([lo, hi]) = periodic[axis] else {
            return Err(Error::scene(
                format!("{at}.tile"),
                format!("needs a periodic {name}"),
            ));
        };
        let width = (hi - lo) / f64::from(tile[axis]);
        if let Some((k, g)) =
            (grains.iter().enumerate()).find(|(_, g)| !(lo..=lo + width).contains(&g.pos[axis]))
        {
            return Err(Error::Format {
                path: path.to_path_buf(),
                reason: format!(
                    "grain {k} at {name} = {} lies outside the first of {at}.tile's {} tiles, \
                     [{lo}, {}] (boundary.periodic.{name} is the whole tiled box)",
                    g.pos[axis],
                    tile[axis],
                    lo + width
                ),
            });
        }
        step[axis] = width;
    }
    let mut out = Vec::with_capacity(count as usize);
    for iy in 0..tile[1] {
        for ix in 0..tile[0] {
            let shift = DVec3::new(f64::from(ix) * step[0], f64::from(iy) * step[1], 0.0);
            out.extend(grains.iter().map(|g| ParticleSpec {
                pos: g.pos + shift,
                ..g.clone()
            }));
        }
    }
    Ok(out)
}
