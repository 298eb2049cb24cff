//! The neighbour list a run starts with: its skin, given or sized from the fastest grain, and
//! ghosts in a periodic box.

use crate::neighbor::{AutoSkin, NeighborList};
use crate::scene::{Method, Scene, Skin};
use crate::{Error, Result};

/// The neighbour list of a run of `scene` whose grains' radii span `[r_min, r_max]`: its skin
/// given, or sized from the fastest grain for soft spheres, keeping ghosts in a periodic box;
/// refused for soft spheres when a periodic length is not above the skin.
pub(crate) fn neighbor_list(
    scene: &Scene,
    [r_min, r_max]: [f64; 2],
    dt: f64,
) -> Result<NeighborList> {
    // The default skin is also the largest an automatic one takes.
    let default_skin = 0.2 * r_max;
    let (skin, auto) = match scene.simulation.skin {
        Some(Skin::Fixed(skin)) => (skin, None),
        None if !matches!(scene.simulation.method, Method::Soft(_)) => (default_skin, None),
        // Soft spheres size it from the fastest grain unless given one: the skin decides
        // which pairs are visited, not the order of the sums, so any skin gives the same
        // bits, and a dense, slow bed lists fewer pairs that do not touch.
        None | Some(Skin::Auto(_)) => {
            let auto = AutoSkin {
                dt,
                range: [0.01 * r_min, default_skin],
            };
            (auto.range[1], Some(auto))
        }
    };
    // In a periodic box every method lists the periodic images within reach as ghosts; the
    // hard-sphere methods count the grains' wraps, as a drift may go far.
    let hard = !matches!(scene.simulation.method, Method::Soft(_));
    let ghosts = !scene.boundary.periodic.is_open();
    // Soft spheres find each grain's wraps by the minimum image of its move since the build,
    // less than half the skin: right while the skin is below every period.
    let lengths = scene.boundary.periodic.lengths().to_array();
    for (name, l) in ["x", "y", "z"].iter().zip(lengths) {
        if !hard && l > 0.0 && l <= skin {
            return Err(Error::scene(
                format!("boundary.periodic.{name}"),
                format!(
                    "length {l:e} m is not above the neighbour skin {skin:e} m; enlarge the box or give a smaller simulation.skin"
                ),
            ));
        }
    }
    let mut neighbors = NeighborList::new(skin);
    neighbors.auto = auto;
    if ghosts {
        neighbors.ghosts = Some(crate::ghosts::Ghosts::empty(hard));
    }
    Ok(neighbors)
}
