//! CSV time series of a run: one row per interval with energies and contact statistics.

use std::io::Write;

use crate::sim::Simulation;

/// Column names of the series.
pub const HEADER: &str =
    "time,step,kinetic_translational,kinetic_rotational,potential,contacts,max_overlap_ratio,collisions";

/// Writes one row for the current state of `sim`, with `max_overlap_ratio` the largest overlap
/// (per smaller radius) seen in the steps since the previous row.
pub fn write_row(
    w: &mut impl Write,
    sim: &Simulation,
    max_overlap_ratio: f64,
) -> std::io::Result<()> {
    let e = sim.energies();
    writeln!(
        w,
        "{:e},{},{:e},{:e},{:e},{},{:e},{}",
        sim.world.time,
        sim.world.step,
        e.translational,
        e.rotational,
        e.potential,
        sim.stats.contacts,
        max_overlap_ratio,
        sim.world.collisions
    )
}
