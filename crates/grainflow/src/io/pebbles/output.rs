//! The output stream of a deck run, `<stem>.out`, as PEBBLES writes to standard output
//! (001 §4.3), and the post-processing jobs of 001 chapter 9 over it:
//!
//! * `energy step N time t translational E rotational E potential E` every
//!   `energy_display_frequency` steps (what `get_energy` extracts);
//! * a full display, which is a save block ([`super::save`]), every `display_frequency` steps
//!   and at the end (what `get_run` and `split_data` cut out);
//! * `positions step N time t count n`, n lines `x y z`, `end_positions` every
//!   `position_display_frequency` steps;
//! * `recirculated step N time t id I passes P` for each pebble taken through a door;
//! * `overlaps step N time t count n`, n lines `id_i id_j l` (the overlap l of each touching
//!   pair, m, eq 3.7), `end_overlaps` every `dump_frequency` steps and at the end.
//!
//! At the end the run also writes `<stem>_save` (the last display: what
//! `get_run … | get_save_info` gives), the `dump_positions` file, and `<stem>_pebbles.csv`:
//! `id,x,y,z,radius,passes` of every pebble centre, for neutronics codes.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::save::{write_positions, Save};
use super::translate::DeckRun;
use crate::sim::Simulation;
use crate::{Error, Result};

/// Writes `<stem>.out` as a run goes.
pub struct DeckOutput {
    dir: PathBuf,
    stem: String,
    out: BufWriter<File>,
    cadence: super::translate::Cadence,
    dump_positions: Option<(PathBuf, f64)>,
    discharged: u64,
}

impl DeckOutput {
    /// Opens `<dir>/<stem>.out` and writes the state at the start.
    pub fn new(dir: &Path, run: &DeckRun, sim: &Simulation) -> Result<DeckOutput> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join(format!("{}.out", run.stem));
        let f = File::create(&path).map_err(|e| Error::io(&path, e))?;
        let mut o = DeckOutput {
            dir: dir.to_path_buf(),
            stem: run.stem.clone(),
            out: BufWriter::new(f),
            cadence: run.cadence,
            dump_positions: run.dump_positions.clone(),
            discharged: sim.world.doors.discharged,
        };
        o.energy(sim)?;
        Ok(o)
    }

    fn path(&self) -> PathBuf {
        self.dir.join(format!("{}.out", self.stem))
    }

    fn energy(&mut self, sim: &Simulation) -> Result<()> {
        let e = sim.energies();
        let w = &sim.world;
        writeln!(
            self.out,
            "energy step {} time {:e} translational {:e} rotational {:e} potential {:e}",
            w.step, w.time, e.translational, e.rotational, e.potential
        )
        .map_err(|e| Error::io(self.path(), e))
    }

    /// Writes what is due after the step just taken.
    pub fn observe(&mut self, sim: &Simulation) -> Result<()> {
        let w = &sim.world;
        let step = w.step;
        if w.doors.discharged > self.discharged {
            self.discharged = w.doors.discharged;
            // The pebble just moved is the one with the latest drop: report it by the rate.
            writeln!(
                self.out,
                "recirculated step {step} time {:e} total {} rate {:e}",
                w.time,
                w.doors.discharged,
                w.doors.discharge_rate()
            )
            .map_err(|e| Error::io(self.path(), e))?;
        }
        if step.is_multiple_of(self.cadence.energy) {
            self.energy(sim)?;
        }
        if step.is_multiple_of(self.cadence.display) {
            Save::of(sim)
                .write_to(&mut self.out)
                .map_err(|e| Error::io(self.path(), e))?;
        }
        if step.is_multiple_of(self.cadence.dump) {
            self.overlaps(sim)?;
        }
        if step.is_multiple_of(self.cadence.positions) {
            let p = &w.particles;
            let mut order: Vec<usize> = (0..p.len()).collect();
            order.sort_by_key(|&k| p.id[k]);
            let mut text = format!(
                "positions step {step} time {:e} count {}\n",
                w.time,
                p.len()
            );
            for k in order {
                let x = p.pos[k];
                text.push_str(&format!("{:e} {:e} {:e}\n", x.x, x.y, x.z));
            }
            text.push_str("end_positions\n");
            self.out
                .write_all(text.as_bytes())
                .map_err(|e| Error::io(self.path(), e))?;
        }
        Ok(())
    }

    /// The overlap dump (`dump_frequency`): every touching pebble pair, ids ascending.
    fn overlaps(&mut self, sim: &Simulation) -> Result<()> {
        let w = &sim.world;
        let (p, nl) = (&w.particles, &w.neighbors);
        let period = sim.physics.periodic.lengths();
        let mut rows: Vec<(u64, u64, f64)> = (0..nl.len())
            .filter_map(|s| {
                let i = nl.owner(s);
                let (j, d) = nl.separation(i, nl.partner[s] as usize, &p.pos, period);
                let l = p.radius[i] + p.radius[j] - d.length();
                let (a, b) = (p.id[i].min(p.id[j]), p.id[i].max(p.id[j]));
                (l > 0.0).then_some((a, b, l))
            })
            .collect();
        rows.sort_by_key(|&(a, b, _)| (a, b));
        let mut text = format!(
            "overlaps step {} time {:e} count {}\n",
            w.step,
            w.time,
            rows.len()
        );
        for (a, b, l) in rows {
            text.push_str(&format!("{a} {b} {l:e}\n"));
        }
        text.push_str("end_overlaps\n");
        self.out
            .write_all(text.as_bytes())
            .map_err(|e| Error::io(self.path(), e))
    }

    /// The last display and overlap dump, `<stem>_save`, the dumped positions and the pebble
    /// CSV.
    pub fn finish(&mut self, sim: &Simulation) -> Result<()> {
        if !sim.world.step.is_multiple_of(self.cadence.dump) {
            self.overlaps(sim)?;
        }
        let save = Save::of(sim);
        if !sim.world.step.is_multiple_of(self.cadence.display) {
            save.write_to(&mut self.out)
                .map_err(|e| Error::io(self.path(), e))?;
        }
        self.out.flush().map_err(|e| Error::io(self.path(), e))?;
        save.write(&self.dir.join(format!("{}_save", self.stem)))?;
        if let Some((file, mult)) = &self.dump_positions {
            write_positions(&self.dir.join(file), sim, *mult)?;
        }
        write_pebble_csv(&self.dir.join(format!("{}_pebbles.csv", self.stem)), &save)?;
        crate::io::durable::sync_dir(&self.dir)
    }
}

/// `id,x,y,z,radius,passes` of every pebble of a save (m), for neutronics codes.
pub fn write_pebble_csv(path: &Path, save: &Save) -> Result<()> {
    let mut text = String::from("id,x,y,z,radius,passes\n");
    for b in &save.pebbles {
        text.push_str(&format!(
            "{},{:e},{:e},{:e},{:e},{}\n",
            b.id, b.pos.x, b.pos.y, b.pos.z, b.radius, b.passes
        ));
    }
    crate::io::durable::write_text(path, &text)
}

fn open(path: &Path) -> Result<BufReader<File>> {
    Ok(BufReader::new(
        File::open(path).map_err(|e| Error::io(path, e))?,
    ))
}

/// The save blocks of a run's output, as (step, text), in order; `keep(step)` selects them.
fn blocks(
    path: &Path,
    mut keep: impl FnMut(u64) -> bool,
    mut each: impl FnMut(u64, String) -> Result<bool>,
) -> Result<()> {
    let mut block: Option<(u64, String)> = None;
    let mut pending = false;
    for line in open(path)?.lines() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line == "pebbles_save 1" {
            pending = true;
            block = Some((0, String::new()));
        }
        if let Some((step, text)) = &mut block {
            if pending {
                if let Some(s) = line.strip_prefix("step ") {
                    *step = s.trim().parse().unwrap_or(u64::MAX);
                    pending = false;
                }
            }
            text.push_str(&line);
            text.push('\n');
            if line == "end_save" {
                let (step, text) = block.take().unwrap_or_default();
                if keep(step) && !each(step, text)? {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

/// `get_run`: the full display at `step` of a run's output, a valid save file.
pub fn get_run(path: &Path, step: u64) -> Result<String> {
    let mut found = None;
    blocks(
        path,
        |s| s == step,
        |_, text| {
            found = Some(text);
            Ok(false)
        },
    )?;
    found.ok_or_else(|| Error::Format {
        path: path.to_path_buf(),
        reason: format!("no display at step {step}"),
    })
}

/// `split_data`: every display whose step is a multiple of `frequency` × `skips`, each into
/// `<dir>/<step>`; returns the files written.
pub fn split_data(path: &Path, dir: &Path, frequency: u64, skips: u64) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let every = frequency.max(1) * skips.max(1);
    let mut written = Vec::new();
    blocks(
        path,
        |s| s % every == 0,
        |step, text| {
            let file = dir.join(format!("{step:012}"));
            crate::io::durable::write_text(&file, &text)?;
            written.push(file);
            Ok(true)
        },
    )?;
    Ok(written)
}

/// `get_energy`: the energy lines of a run's output as CSV rows
/// `step,time,translational,rotational,potential` (with a header).
pub fn get_energy(path: &Path) -> Result<String> {
    let mut csv = String::from("step,time,translational,rotational,potential\n");
    for line in open(path)?.lines() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if let Some(rest) = line.strip_prefix("energy ") {
            let w: Vec<&str> = rest.split_whitespace().collect();
            if let [_, step, _, t, _, tr, _, rot, _, pot] = w[..] {
                csv.push_str(&format!("{step},{t},{tr},{rot},{pot}\n"));
            }
        }
    }
    Ok(csv)
}
