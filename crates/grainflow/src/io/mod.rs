//! Files a run reads and writes: VTU/PVD snapshots, LAMMPS-style dumps, CSV series,
//! checkpoints, PEBBLES decks and saves; and the [`Outputs`] observer that writes them at the scene's cadence.

pub mod checkpoint;
pub mod contacts;
pub mod dump;
pub mod dump_read;
pub mod lammps_data;
pub mod pebbles;
pub mod series;
pub mod ss;
pub mod tallies;
pub mod vtk;
pub mod wall_forces;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use glam::DVec3;

use crate::analysis::stress::stress_row;
use crate::scene::{HardOptions, Method};
use crate::sim::Simulation;
use crate::{Error, Result};

/// Writes a run's files into one folder at the intervals of the scene's `[output]` table.
pub struct Outputs {
    dir: PathBuf,
    pvd: vtk::PvdIndex,
    dump: Option<BufWriter<File>>,
    series: Option<BufWriter<File>>,
    /// `walls.csv`, force and torque on every wall at each series row.
    wall_forces: Option<BufWriter<File>>,
    /// `contacts.dump`, the contact network at each snapshot.
    contacts: Option<BufWriter<File>>,
    stress: Option<BufWriter<File>>,
    /// Largest overlap ratio seen since the last series row.
    overlap_peak: f64,
    collisions: Option<BufWriter<File>>,
    next_stress: f64,
    next_snapshot: f64,
    next_series: f64,
    next_checkpoint: f64,
    frame: usize,
    tallies: Option<tallies::Tallies>,
}

/// The first multiple of `interval` after `time` (s), or ∞ when the output is off.
fn next_after(time: f64, interval: Option<f64>) -> f64 {
    match interval {
        Some(i) => ((time / i + 1e-9).floor() + 1.0) * i,
        None => f64::INFINITY,
    }
}

fn create(path: &Path, append: bool) -> Result<BufWriter<File>> {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .append(append)
        .write(true)
        .truncate(!append)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    Ok(BufWriter::new(f))
}

impl Outputs {
    /// Opens the output folder for `sim` and writes the first snapshot and row. A resumed run
    /// (time > 0) appends to the series and dump, keeps the earlier entries of the PVD index
    /// and continues the frame numbering after them.
    pub fn new(dir: &Path, sim: &Simulation) -> Result<Outputs> {
        std::fs::create_dir_all(dir.join("frames")).map_err(|e| Error::io(dir, e))?;
        let spec = &sim.scene.output;
        let resumed = sim.world.time > sim.scene.simulation.start_time;
        // As in `observe`: what is due within half a step of now counts as written.
        let t = sim.world.time + 0.5 * sim.physics.dt;
        let pvd = if resumed {
            vtk::PvdIndex::resume(dir.join("particles.pvd"), t)
        } else {
            vtk::PvdIndex::new(dir.join("particles.pvd"))
        };
        let mut out = Outputs {
            dir: dir.to_path_buf(),
            frame: pvd.len(),
            pvd,
            dump: None,
            series: None,
            wall_forces: None,
            contacts: None,
            stress: None,
            overlap_peak: 0.0,
            collisions: None,
            next_stress: next_after(t, spec.stress.as_ref().map(|s| s.interval)),
            next_snapshot: next_after(t, spec.snapshot_interval),
            next_series: next_after(t, spec.series_interval),
            next_checkpoint: next_after(t, spec.checkpoint_interval),
            tallies: spec
                .tallies
                .as_ref()
                .map(|s| tallies::Tallies::new(dir, sim, s)),
        };
        if spec.snapshot_interval.is_some() {
            out.dump = Some(create(&dir.join("particles.dump"), resumed)?);
            if spec.contacts {
                out.contacts = Some(create(&dir.join("contacts.dump"), resumed)?);
            }
            for (k, w) in sim.world.walls.iter().enumerate() {
                let (v, poly) = w.mesh(wall_extent(sim));
                vtk::write_mesh_vtp(&dir.join(format!("wall_{k}.vtp")), &v, &poly, t)?;
            }
            if !resumed {
                out.snapshot(sim)?;
            }
        }
        if spec.series_interval.is_some() {
            let path = dir.join("series.csv");
            let mut w = create(&path, resumed)?;
            if !resumed {
                writeln!(w, "{}", series::HEADER).map_err(|e| Error::io(&path, e))?;
                series::write_row(&mut w, sim, sim.stats.max_overlap_ratio)
                    .map_err(|e| Error::io(&path, e))?;
            }
            out.series = Some(w);
        }
        if spec.wall_forces {
            let path = dir.join("walls.csv");
            let mut w = create(&path, resumed)?;
            if !resumed {
                let header = wall_forces::header(sim.world.walls.len());
                writeln!(w, "{header}").map_err(|e| Error::io(&path, e))?;
                wall_forces::write_row(&mut w, sim).map_err(|e| Error::io(&path, e))?;
            }
            out.wall_forces = Some(w);
        }
        if let Method::Hard(HardOptions {
            collision_log: true,
            ..
        }) = sim.scene.simulation.method
        {
            let path = dir.join("collisions.csv");
            let mut w = create(&path, resumed)?;
            if !resumed {
                writeln!(w, "{}", crate::hard::log::HEADER).map_err(|e| Error::io(&path, e))?;
            }
            out.collisions = Some(w);
        }
        if let Some(st) = &spec.stress {
            let path = dir.join("stress.csv");
            let mut w = create(&path, resumed)?;
            if !resumed {
                writeln!(w, "{}", st.header()).map_err(|e| Error::io(&path, e))?;
                writeln!(w, "{}", stress_row(st, sim)).map_err(|e| Error::io(&path, e))?;
            }
            out.stress = Some(w);
        }
        Ok(out)
    }

    fn snapshot(&mut self, sim: &Simulation) -> Result<()> {
        let name = format!("frames/particles_{:06}.vtu", self.frame);
        vtk::write_particles_vtu(&self.dir.join(&name), &sim.world.particles, sim.world.time)?;
        self.pvd.push(sim.world.time, &name)?;
        if let Some(units) = sim.scene.output.ss {
            let path = self.dir.join(name.replace(".vtu", ".ss"));
            let file = ss::ss_from_particles(&sim.world.particles, sim.world.time, units).map_err(
                |reason| Error::Format {
                    path: path.clone(),
                    reason,
                },
            )?;
            ss::write_ss(&path, &file, ss::SsFormat::Standard)?;
        }
        // Moving walls: a mesh per frame where they are now (fixed ones were written once).
        for (k, w) in sim.world.walls.iter().enumerate() {
            if w.motion != crate::walls::Motion::Fixed {
                let (v, poly) = w.mesh_at(wall_extent(sim), sim.world.time);
                let path = self
                    .dir
                    .join(format!("frames/wall_{k}_{:06}.vtp", self.frame));
                vtk::write_mesh_vtp(&path, &v, &poly, sim.world.time)?;
            }
        }
        if let (Some(w), Some(list)) = (&mut self.contacts, contacts::contacts(sim)) {
            let vtp = format!("frames/contacts_{:06}.vtp", self.frame);
            contacts::write_contacts_vtp(&self.dir.join(vtp), &list, sim.world.time)?;
            let clock = (sim.world.step, sim.world.time);
            contacts::write_local_frame(w, clock, vtk_bounds(sim), &list)
                .map_err(|e| Error::io(self.dir.join("contacts.dump"), e))?;
        }
        if let Some(w) = &mut self.dump {
            let path = self.dir.join("particles.dump");
            let (clock, periodic) = ((sim.world.step, sim.world.time), &sim.physics.periodic);
            dump::write_dump_frame(w, clock, vtk_bounds(sim), periodic, &sim.world.particles)
                .map_err(|e| Error::io(path, e))?;
        }
        self.frame += 1;
        Ok(())
    }

    /// Writes whatever is due at the current time of `sim`.
    pub fn observe(&mut self, sim: &Simulation) -> Result<()> {
        let t = sim.world.time + 0.5 * sim.physics.dt;
        self.overlap_peak = self.overlap_peak.max(sim.stats.max_overlap_ratio);
        if let Some(w) = &mut self.collisions {
            for r in sim.stepper.collision_log() {
                writeln!(w, "{}", r.row())
                    .map_err(|e| Error::io(self.dir.join("collisions.csv"), e))?;
            }
        }
        if t >= self.next_snapshot {
            self.snapshot(sim)?;
            self.next_snapshot = next_after(t, sim.scene.output.snapshot_interval);
        }
        if t >= self.next_series {
            let path = self.dir.join("series.csv");
            if let Some(w) = &mut self.series {
                series::write_row(w, sim, self.overlap_peak).map_err(|e| Error::io(path, e))?;
            }
            if let Some(w) = &mut self.wall_forces {
                let path = self.dir.join("walls.csv");
                wall_forces::write_row(w, sim).map_err(|e| Error::io(path, e))?;
            }
            self.overlap_peak = 0.0;
            self.next_series = next_after(t, sim.scene.output.series_interval);
        }
        if t >= self.next_stress {
            let path = self.dir.join("stress.csv");
            if let (Some(w), Some(st)) = (&mut self.stress, &sim.scene.output.stress) {
                writeln!(w, "{}", stress_row(st, sim)).map_err(|e| Error::io(path, e))?;
            }
            self.next_stress = next_after(t, sim.scene.output.stress.as_ref().map(|s| s.interval));
        }
        if let Some(tallies) = &mut self.tallies {
            tallies.observe(sim);
        }
        if t >= self.next_checkpoint {
            sim.checkpoint().write(&self.dir.join("checkpoint.gfck"))?;
            self.next_checkpoint = next_after(t, sim.scene.output.checkpoint_interval);
        }
        Ok(())
    }

    /// Flushes the files and writes the final checkpoint `final.gfck`.
    pub fn finish(&mut self, sim: &Simulation) -> Result<()> {
        for w in [
            &mut self.dump,
            &mut self.series,
            &mut self.wall_forces,
            &mut self.contacts,
            &mut self.stress,
            &mut self.collisions,
        ]
        .into_iter()
        .flatten()
        {
            w.flush().map_err(|e| Error::io(&self.dir, e))?;
        }
        if let Some(tallies) = &self.tallies {
            tallies.finish()?;
        }
        sim.checkpoint().write(&self.dir.join("final.gfck"))
    }
}

/// Bounding box of the particles, padded by the largest radius (m).
fn vtk_bounds(sim: &Simulation) -> (DVec3, DVec3) {
    let p = &sim.world.particles;
    let pad = DVec3::splat(p.max_radius());
    let lo = p
        .pos
        .iter()
        .fold(DVec3::splat(f64::INFINITY), |a, b| a.min(*b));
    let hi = p
        .pos
        .iter()
        .fold(DVec3::splat(f64::NEG_INFINITY), |a, b| a.max(*b));
    if p.is_empty() {
        (DVec3::ZERO, DVec3::ZERO)
    } else {
        (lo - pad, hi + pad)
    }
}

/// Half-size (m) to draw infinite walls with: the particles' extent.
fn wall_extent(sim: &Simulation) -> f64 {
    let (lo, hi) = vtk_bounds(sim);
    (hi - lo).max_element().max(1e-3)
}
