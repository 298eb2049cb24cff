//! PEBBLES sample decks (001 chapters 5, 6, 8): PRIME packing of `packing.inp` reaches a
//! packing fraction of at least 0.5 before compaction (chapter 5: about 0.55, and 001 §4.4:
//! "Using 100000 results in a packing fraction above 0.5") and compacts as its kinetic energy
//! decays; recirculation through the exit chute of `pack_and_recirc.inp` conserves the pebble
//! count, every discharge adds one pass, and the discharge rate is reported.
//!
//! The quick form shortens the decks (fewer pebbles and steps, earlier doors); `--full` runs
//! packing.inp as written and pack_and_recirc.inp for 3 s of its 51.

use std::path::Path;

use super::Metric;
use crate::io::pebbles::Deck;
use crate::sim::Simulation;
use crate::Result;

/// packing.inp of 001 §8.1.
pub const PACKING: &str = include_str!("../../../../scenes/pebbles/packing.inp");
/// pack_and_recirc.inp of 001 §8.3.
pub const PACK_AND_RECIRC: &str = include_str!("../../../../scenes/pebbles/pack_and_recirc.inp");

const CASE: &str = "pebbles";

/// `deck` with each (directive, new line) replaced, or the new line added before `done`.
pub fn shorten(deck: &str, changes: &[(&str, &str)]) -> String {
    let mut lines: Vec<String> = deck.lines().map(str::to_string).collect();
    for (name, new) in changes {
        match lines
            .iter()
            .position(|l| l.split_whitespace().next() == Some(name))
        {
            Some(k) => lines[k] = new.to_string(),
            None => {
                let done = lines
                    .iter()
                    .position(|l| l.trim() == "done")
                    .unwrap_or(lines.len());
                lines.insert(done, new.to_string());
            }
        }
    }
    lines.join("\n") + "\n"
}

/// Builds a deck's simulation (files from the current folder).
pub fn build(text: &str, origin: &str) -> Result<Simulation> {
    let deck = Deck::parse(text, origin)?;
    let run = deck.translate(Path::new("."), &[])?;
    Simulation::new(run.scene, Path::new("."))
}

/// Volume of a sphere of radius r centred at height z inside the slice bot ≤ z' ≤ top
/// (001 eq 9.1–9.3), m³.
pub fn slice_volume(r: f64, z: f64, bot: f64, top: f64) -> f64 {
    let a = (-r).max(bot - z);
    let b = r.min(top - z);
    if b <= a {
        return 0.0;
    }
    std::f64::consts::PI * (r * r * (b - a) + (a.powi(3) - b.powi(3)) / 3.0)
}

/// Bulk packing fraction of a bed on a floor: the slice two radii above the floor to two
/// radii below the highest centre, counting (eq 9.3) the pebbles whose centres lie within
/// R − 4 r of the axis, over that inner cylinder (away from the wall's ordered layers).
fn bed_fraction(sim: &Simulation, big_r: f64, floor: f64) -> f64 {
    let p = &sim.world.particles;
    let r = p.max_radius();
    let top = p.pos.iter().map(|x| x.z).fold(floor, f64::max) - 2.0 * r;
    let (a, rm) = (floor + 2.0 * r, big_r - 4.0 * r);
    let v: f64 = (0..p.len())
        .filter(|&k| p.pos[k].x.hypot(p.pos[k].y) < rm)
        .map(|k| slice_volume(p.radius[k], p.pos[k].z, a, top))
        .sum();
    v / (std::f64::consts::PI * rm * rm * (top - a))
}

/// Runs the case.
pub fn pebbles(full: bool) -> Result<Vec<Metric>> {
    let mut m = Vec::new();
    // Packing: the quick form packs 400 pebbles in a 0.25 m vessel for 0.5 s.
    let text = if full {
        PACKING.to_string()
    } else {
        shorten(
            PACKING,
            &[
                ("vessel_radius", "vessel_radius 0.0 0.25"),
                ("number_of_pebbles", "number_of_pebbles 400"),
                ("runs", "runs 5000"),
            ],
        )
    };
    let mut sim = build(&text, "packing.inp")?;
    let big_r = if full { 0.5 } else { 0.25 };
    let phi = bed_fraction(&sim, big_r, 0.0);
    m.push(Metric::at_least(
        CASE,
        "prime",
        "bulk packing fraction before compaction",
        phi,
        0.5,
    ));
    let steps = sim.total_steps();
    let mut peak = 0.0f64;
    for _ in 0..steps {
        sim.step()?;
        let e = sim.energies();
        peak = peak.max(e.translational + e.rotational);
    }
    let e = sim.energies();
    m.push(Metric::at_most(
        CASE,
        "prime",
        "final / peak kinetic energy",
        (e.translational + e.rotational) / peak,
        0.05,
    ));
    let phi_after = bed_fraction(&sim, big_r, 0.0);
    m.push(Metric::at_least(
        CASE,
        "prime",
        "bed packing fraction after minus before",
        phi_after - phi,
        0.0,
    ));
    // Recirculation.
    let text = if full {
        shorten(PACK_AND_RECIRC, &[("runs", "runs 30000")])
    } else {
        shorten(
            PACK_AND_RECIRC,
            &[
                ("number_of_pebbles", "number_of_pebbles 150"),
                ("runs", "runs 8000"),
                ("recirculate_params", "recirculate_params 1.6 0.05 0.3"),
            ],
        )
    };
    let mut sim = build(&text, "pack_and_recirc.inp")?;
    let n0 = sim.world.particles.len();
    for _ in 0..sim.total_steps() {
        sim.step()?;
    }
    let p = &sim.world.particles;
    let d = sim.world.doors;
    let passes: u64 = p.passes.iter().map(|&n| u64::from(n)).sum();
    m.push(Metric::new(
        CASE,
        "recirc",
        "pebble count change",
        p.len() as f64 - n0 as f64,
        0.0,
        0.0,
    ));
    m.push(Metric::new(
        CASE,
        "recirc",
        "total passes minus discharges",
        passes as f64 - d.discharged as f64,
        0.0,
        0.0,
    ));
    m.push(Metric::at_least(
        CASE,
        "recirc",
        "pebbles discharged",
        d.discharged as f64,
        2.0,
    ));
    // One pebble per door opening at most: rate ≤ 1 / door_closed_time.
    let closed = if full { 0.25 } else { 0.05 };
    m.push(Metric::at_most(
        CASE,
        "recirc",
        "discharge rate × door_closed_time",
        d.discharge_rate() * closed,
        1.0,
    ));
    m.push(Metric::at_least(
        CASE,
        "recirc",
        "discharge rate (pebbles/s)",
        d.discharge_rate(),
        0.0,
    ));
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_volume_of_eq_9_3_matches_caps_and_whole_spheres() {
        let ball = 4.0 / 3.0 * std::f64::consts::PI;
        // Whole sphere inside, half a sphere, nothing.
        assert!((slice_volume(1.0, 0.0, -2.0, 2.0) - ball).abs() < 1e-14);
        assert!((slice_volume(1.0, 0.0, 0.0, 2.0) - ball / 2.0).abs() < 1e-14);
        assert_eq!(slice_volume(1.0, 5.0, 0.0, 2.0), 0.0);
        // A cap of height h = 0.5: π h² (3r − h)/3.
        let cap = std::f64::consts::PI * 0.25 * (3.0 - 0.5) / 3.0;
        assert!((slice_volume(1.0, 0.0, 0.5, 2.0) - cap).abs() < 1e-14);
    }
}
