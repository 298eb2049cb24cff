//! Drives that act on the grains between steps: recirculation of pebbles through exit
//! chutes (001 chapter 6) and insertion of grains at a rate (`[[inserts]]`). Earthquakes move the walls through [`crate::walls::Motion`]
//! (001 chapter 7, eq 7.1–7.4).

pub mod doors;
pub mod insert;
pub mod recirculation;

pub use doors::DoorState;

use crate::physics::Physics;
use crate::world::World;

/// The drives of a run at its start: the recirculation's doors as the scene sets them, and
/// every insert owing nothing yet, its grains numbered after the highest id present.
pub(crate) fn start(world: &mut World, physics: &Physics) {
    if let Some(r) = &physics.recirculation {
        world.doors = r.start();
    }
    let next_id = world.particles.id.iter().max().map_or(0, |&i| i + 1);
    world.inserts = insert::Inserts::start(&physics.inserts, next_id);
}
