//! CSV time series of a run: one row per interval with energies, contact statistics and the
//! grain counters.
//!
//! Columns: `time` (s), `step`, `kinetic_translational`, `kinetic_rotational`, `potential`
//! (J; uniform gravity, central bodies and self-gravity), `contacts` (pair and wall contacts
//! touching at the row's step), `max_overlap_ratio` (the largest overlap per smaller radius of
//! the steps since the previous row), `collisions` (hard-sphere collisions so far); then
//! `particles` (present), `pair_contacts` and `wall_contacts` (the two parts of `contacts`,
//! soft spheres), `inserted` (by `[[inserts]]`, so far), `removed` (by absorbing walls, so
//! far), then `removed_wall_<k>` for each absorbing wall k and `recirculated` with
//! recirculation: the discharge of each.

use std::io::Write;

use crate::sim::Simulation;
use crate::walls::Surface;

/// The columns every series has, before those that depend on the scene ([`header`]).
pub const HEADER: &str =
    "time,step,kinetic_translational,kinetic_rotational,potential,contacts,max_overlap_ratio,collisions,particles,pair_contacts,wall_contacts,inserted,removed";

/// Indices of the absorbing walls.
fn absorbing(sim: &Simulation) -> impl Iterator<Item = usize> + '_ {
    (0..sim.world.walls.len()).filter(|&k| sim.world.walls[k].surface == Surface::Absorbing)
}

/// The header line of `sim`'s series: [`HEADER`], a column per absorbing wall and one for
/// recirculation when the scene has it.
pub fn header(sim: &Simulation) -> String {
    let mut h = HEADER.to_string();
    for k in absorbing(sim) {
        h.push_str(&format!(",removed_wall_{k}"));
    }
    if sim.physics.recirculation.is_some() {
        h.push_str(",recirculated");
    }
    h
}

/// Writes one row for the current state of `sim`, with `max_overlap_ratio` the largest overlap
/// (per smaller radius) seen in the steps since the previous row.
pub fn write_row(
    w: &mut impl Write,
    sim: &Simulation,
    max_overlap_ratio: f64,
) -> std::io::Result<()> {
    let e = sim.energies();
    let world = &sim.world;
    let absorbed = |k: usize| world.wall_runtime.absorbed.get(k).copied().unwrap_or(0);
    let removed: u64 = absorbing(sim).map(absorbed).sum();
    let stats = &sim.stats;
    write!(
        w,
        "{:e},{},{:e},{:e},{:e},{},{:e},{},{},{},{},{},{}",
        world.time,
        world.step,
        e.translational,
        e.rotational,
        e.potential,
        stats.contacts,
        max_overlap_ratio,
        world.collisions,
        world.particles.len(),
        stats.contacts - stats.wall_contacts,
        stats.wall_contacts,
        world.inserts.total(),
        removed
    )?;
    for k in absorbing(sim) {
        write!(w, ",{}", absorbed(k))?;
    }
    if sim.physics.recirculation.is_some() {
        write!(w, ",{}", world.doors.discharged)?;
    }
    writeln!(w)
}
