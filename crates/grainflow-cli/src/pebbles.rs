//! `grainflow run DECK.inp`: PEBBLES decks (001 chapter 4) translated into scenes and run,
//! writing `<stem>.out`, `<stem>_save`, `<stem>_pebbles.csv` and `final.gfck` into the output
//! folder; and the `analyze` jobs get_run, split_data, get_energy and pebbles over them.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use grainflow::io::pebbles::{output, save::Save, Deck};
use grainflow::io::{Outputs, Start};
use grainflow::sim::Simulation;

/// True when the file at `path` is a PEBBLES deck rather than a TOML scene.
pub fn is_deck(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| grainflow::io::pebbles::is_deck(path, &t))
}

/// Builds the simulation of a deck, saves found in its folder or in `out`.
pub fn build(
    path: &Path,
    out: &Path,
) -> Result<(grainflow::io::pebbles::translate::DeckRun, Simulation)> {
    let deck = Deck::load(path)?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let run = deck.translate(&base, &[out.to_path_buf()])?;
    for n in &run.notes {
        eprintln!("grainflow: note: {n}");
    }
    let mut sim = Simulation::new(run.scene.clone(), &base)?;
    if let Some(save) = &run.restore {
        save.restore(&mut sim)?;
    }
    Ok((run, sim))
}

/// Runs a deck to its end (or to a stop by signal: then its save is written too).
pub fn run(path: &Path, out: &Path, overwrite: bool) -> Result<std::process::ExitCode> {
    let (run, mut sim) = build(path, out)?;
    eprintln!(
        "grainflow: {}: PEBBLES deck, {} pebbles, {} walls, dt = {:.3e} s (t_c = {:.3e} s), {} steps, output in {}",
        path.display(),
        sim.world.particles.len(),
        sim.world.walls.len(),
        sim.physics.dt,
        sim.physics.contact_time,
        sim.total_steps(),
        out.display()
    );
    let mut outputs = Outputs::open(out, &sim, Start::Fresh { overwrite })?;
    let mut stream = output::DeckOutput::new(out, &run, &sim)?;
    let end = sim.scene.simulation.start_time + sim.scene.simulation.duration;
    let start = Instant::now();
    let steps = sim.total_steps().max(1);
    let mut next_line = 0.1;
    let stopped = crate::stop::drive(&mut sim, end, &mut outputs, |s| {
        stream.observe(s)?;
        let fraction = s.world.step as f64 / steps as f64;
        if fraction >= next_line {
            let e = s.energies();
            eprintln!(
                "grainflow: {:3.0} % t = {} s, {:.0} steps/s, KE = {:.3e} J, {} recirculated",
                100.0 * fraction,
                crate::show::seconds(s.world.time),
                s.world.step as f64 / start.elapsed().as_secs_f64().max(1e-9),
                e.translational + e.rotational,
                s.world.doors.discharged
            );
            next_line += 0.1;
        }
        Ok(())
    })?;
    if let Some(status) = stopped {
        stream.finish(&sim)?;
        return Ok(std::process::ExitCode::from(status));
    }
    outputs.finish(&sim)?;
    stream.finish(&sim)?;
    let d = &sim.world.doors;
    // The rate needs two discharges (the time between the first and the last).
    let rate = match d.discharge_rate() {
        r if r.is_finite() => format!("discharge rate {r:.4} pebbles/s"),
        _ => "no discharge rate (fewer than two discharges)".into(),
    };
    eprintln!(
        "grainflow: done: t = {} s, {} steps in {:.1} s; {} pebbles recirculated, {rate}; wrote {}_save",
        crate::show::seconds(sim.world.time),
        sim.world.step,
        start.elapsed().as_secs_f64(),
        d.discharged,
        run.stem
    );
    Ok(std::process::ExitCode::SUCCESS)
}

/// `analyze get-run`: the display at `step` of a run's `.out`, a save file.
pub fn get_run(file: &Path, step: u64) -> Result<String> {
    Ok(output::get_run(file, step)?)
}

/// `analyze split-data`.
pub fn split_data(file: &Path, dir: &Path, frequency: u64, skips: u64) -> Result<Vec<PathBuf>> {
    Ok(output::split_data(file, dir, frequency, skips)?)
}

/// `analyze get-energy`.
pub fn get_energy(file: &Path) -> Result<String> {
    Ok(output::get_energy(file)?)
}

/// `analyze pebbles`: a save (or a `.out`'s last display) as `id,x,y,z,radius,passes` CSV.
pub fn pebbles_csv(save: &Path, csv: &Path) -> Result<()> {
    let s = Save::read(save).with_context(|| format!("reading {}", save.display()))?;
    output::write_pebble_csv(csv, &s)?;
    Ok(())
}
