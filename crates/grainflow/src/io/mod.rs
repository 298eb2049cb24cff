//! Files a run reads and writes: VTU/PVD snapshots, LAMMPS-style dumps, CSV series,
//! checkpoints, PEBBLES decks and saves; and the [`Outputs`] observer that writes them at the scene's cadence.

pub mod bodies;
pub mod checkpoint;
mod checkpoint_check;
pub mod contacts;
pub mod dump;
pub mod dump_read;
pub mod durable;
pub mod fuzz;
pub mod input;
pub mod lammps_data;
pub mod manifest;
pub mod pebbles;
pub mod series;
pub mod ss;
pub mod tallies;
pub mod vtk;
pub mod wall_forces;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use glam::DVec3;

use crate::analysis::stress::stress_row;
use crate::scene::{HardOptions, Method};
use crate::sim::Simulation;
use crate::{Error, Result};
use durable::Appender;
use manifest::{Manifest, Mark};

/// How a run takes its output folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A run from the scene's start: refused when the folder holds an earlier run's outputs,
    /// unless `overwrite`, which removes them first.
    Fresh {
        /// Replace an earlier run's outputs.
        overwrite: bool,
    },
    /// A run resumed from a checkpoint: into the folder of the run that took it (its files
    /// cut back to the checkpoint, its frame numbers continued from the manifest) or into a
    /// folder with no run in it (files started afresh, with their headers).
    Resume,
}

/// The append-only files, in the order a checkpoint syncs them.
const APPENDED: [&str; 9] = [
    "particles.dump",
    "series.csv",
    "stress.csv",
    "collisions.csv",
    "walls.csv",
    "contacts.dump",
    "bodies.csv",
    "energy.csv",
    "velocity_tally.csv",
];

/// Writes a run's files into one folder at the intervals of the scene's `[output]` table.
pub struct Outputs {
    dir: PathBuf,
    pvd: vtk::PvdIndex,
    manifest: Manifest,
    /// The append-only files, as in [`APPENDED`].
    appended: [Option<Appender>; 9],
    /// Largest overlap ratio seen since the last series row.
    overlap_peak: f64,
    next_stress: f64,
    next_snapshot: f64,
    next_series: f64,
    next_checkpoint: f64,
    frame: usize,
    tallies: Option<tallies::Tallies>,
    /// Wall-clock time spent in [`Outputs::observe`] (s).
    seconds: f64,
    /// Ranks writing each snapshot in pieces ([`Outputs::open_in_pieces`]); None: one file.
    pieces: Option<usize>,
}

/// The piece of snapshot `frame` that rank `rank` writes in a run shared among processes,
/// relative to the output folder.
pub fn piece_name(frame: usize, rank: usize) -> String {
    format!("frames/particles_{frame:06}_{rank}.vtu")
}

/// The first multiple of `interval` after `time` (s), or ∞ when the output is off.
fn next_after(time: f64, interval: Option<f64>) -> f64 {
    match interval {
        Some(i) => ((time / i + 1e-9).floor() + 1.0) * i,
        None => f64::INFINITY,
    }
}

impl Outputs {
    /// [`Outputs::open`] as a library user wants it: a run at its start time takes the folder
    /// afresh (replacing what an earlier run wrote there), a later one resumes.
    pub fn new(dir: &Path, sim: &Simulation) -> Result<Outputs> {
        let resumed = sim.world.time > sim.scene.simulation.start_time;
        let start = match resumed {
            true => Start::Resume,
            false => Start::Fresh { overwrite: true },
        };
        Outputs::open(dir, sim, start)
    }

    /// Opens the output folder for `sim` as `start` says, writes the manifest and, for a
    /// fresh run, the first snapshot and rows.
    pub fn open(dir: &Path, sim: &Simulation, start: Start) -> Result<Outputs> {
        Outputs::open_in_pieces(dir, sim, start, None)
    }

    /// [`Outputs::open`] for a run shared among `pieces` ranks (None: one process): each
    /// snapshot is then a `.pvtu` indexing the pieces [`piece_name`] that the ranks write, the
    /// `.pvd` listing the `.pvtu`.
    pub fn open_in_pieces(
        dir: &Path,
        sim: &Simulation,
        start: Start,
        pieces: Option<usize>,
    ) -> Result<Outputs> {
        durable::refuse_link(&dir.join("frames"))?;
        std::fs::create_dir_all(dir.join("frames")).map_err(|e| Error::io(dir, e))?;
        durable::remove_stale(dir)?;
        durable::remove_stale(&dir.join("frames"))?;
        let (manifest, mark) = Self::take_folder(dir, sim, start)?;
        manifest.write(dir)?;
        let spec = &sim.scene.output;
        // As in `observe`: what is due within half a step of now counts as written.
        let t = sim.world.time + 0.5 * sim.physics.dt;
        let pvd = match &mark {
            Some(_) => vtk::PvdIndex::resume(dir.join("particles.pvd"), t),
            None => vtk::PvdIndex::new(dir.join("particles.pvd")),
        };
        let fresh = matches!(start, Start::Fresh { .. });
        let mut out = Outputs {
            dir: dir.to_path_buf(),
            frame: mark.as_ref().map_or(0, |m| m.frame),
            pvd,
            manifest,
            appended: std::array::from_fn(|_| None),
            overlap_peak: mark.as_ref().map_or(0.0, |m| m.overlap_peak),
            next_stress: next_after(t, spec.stress.as_ref().map(|s| s.interval)),
            next_snapshot: next_after(t, spec.snapshot_interval),
            next_series: next_after(t, spec.series_interval),
            next_checkpoint: next_after(t, spec.checkpoint_interval),
            tallies: spec.tallies.as_ref().map(|s| {
                let saved = mark.as_ref().and_then(|m| m.tallies.as_ref());
                tallies::Tallies::new(dir, sim, s, saved)
            }),
            seconds: 0.0,
            pieces,
        };
        let lengths = mark.map(|m| m.lengths).unwrap_or_default();
        out.open_appended(sim, &lengths, fresh)?;
        if spec.snapshot_interval.is_some() {
            for (k, w) in sim.world.walls.iter().enumerate() {
                let path = dir.join(format!("wall_{k}.vtp"));
                // A resumed run keeps the meshes its first part wrote.
                if lengths.is_empty() || !path.exists() {
                    let (v, poly) = w.mesh(wall_extent(sim));
                    vtk::write_mesh_vtp(&path, &v, &poly, t)?;
                }
            }
            if fresh {
                out.snapshot(sim, "")?;
            }
        }
        Ok(out)
    }

    /// The manifest of the folder for `start`, and for a resumed run the checkpoint's mark
    /// (none when the folder held no run).
    fn take_folder(dir: &Path, sim: &Simulation, start: Start) -> Result<(Manifest, Option<Mark>)> {
        let overwrite = match start {
            Start::Fresh { overwrite } => overwrite,
            Start::Resume => match Manifest::read(dir)? {
                Some(mut m) => {
                    let hash = manifest::scene_hash(&sim.scene);
                    if m.scene_hash != hash {
                        return Err(Error::Format {
                            path: dir.join(manifest::NAME),
                            reason: format!(
                                "the run in this folder is of another scene (scene hash {} here, {hash} resumed); resume into a fresh --out",
                                m.scene_hash
                            ),
                        });
                    }
                    let mark = m.resume_at(dir, sim.world.step)?;
                    return Ok((m, Some(mark)));
                }
                // A folder without a manifest may hold no run, or an old one: never cut that.
                None => false,
            },
        };
        manifest::claim(dir, overwrite)?;
        Ok((Manifest::new(&sim.scene), None))
    }

    /// Opens the append-only files the scene asks for: cut back to `lengths` where the
    /// checkpoint recorded them, else new with their headers (and, when `fresh`, the row at
    /// the start).
    fn open_appended(
        &mut self,
        sim: &Simulation,
        lengths: &BTreeMap<String, u64>,
        fresh: bool,
    ) -> Result<()> {
        let spec = &sim.scene.output;
        let logs = matches!(
            sim.scene.simulation.method,
            Method::Hard(HardOptions {
                collision_log: true,
                ..
            })
        );
        let tally = spec.tallies.as_ref();
        let wanted = [
            spec.snapshot_interval.is_some(),
            spec.series_interval.is_some(),
            spec.stress.is_some(),
            logs,
            spec.wall_forces,
            spec.contacts && spec.snapshot_interval.is_some(),
            spec.series_interval.is_some() && !sim.world.wall_runtime.bodies.is_empty(),
            tally.is_some_and(|t| t.energy_interval.is_some()),
            tally.is_some_and(|t| t.velocity.is_some()),
        ];
        for (k, name) in APPENDED.into_iter().enumerate() {
            if !wanted[k] {
                continue;
            }
            let path = self.dir.join(name);
            if let Some(&len) = lengths.get(name) {
                self.appended[k] = Some(Appender::resume(&path, len)?);
                continue;
            }
            let mut a = Appender::create(&path)?;
            let w = a.writer();
            let head = match name {
                "series.csv" => writeln!(w, "{}", series::header(sim)).and_then(|()| match fresh {
                    true => series::write_row(w, sim, sim.stats.max_overlap_ratio),
                    false => Ok(()),
                }),
                "stress.csv" => spec.stress.as_ref().map_or(Ok(()), |st| {
                    writeln!(w, "{}", st.header())?;
                    match fresh {
                        true => writeln!(w, "{}", stress_row(st, sim)),
                        false => Ok(()),
                    }
                }),
                "collisions.csv" => writeln!(w, "{}", crate::hard::log::HEADER),
                "energy.csv" => writeln!(w, "{}", tallies::ENERGY_HEADER),
                "velocity_tally.csv" => writeln!(w, "{}", tallies::VELOCITY_HEADER),
                "bodies.csv" => writeln!(w, "{}", bodies::header(sim)).and_then(|()| match fresh {
                    true => bodies::write_row(w, sim),
                    false => Ok(()),
                }),
                "walls.csv" => writeln!(w, "{}", wall_forces::header(sim.world.walls.len()))
                    .and_then(|()| match fresh {
                        true => wall_forces::write_row(w, sim),
                        false => Ok(()),
                    }),
                _ => Ok(()),
            };
            head.map_err(|e| Error::io(&path, e))?;
            self.appended[k] = Some(a);
        }
        Ok(())
    }

    /// The append-only file `name` when the scene writes it.
    fn appender(&mut self, name: &str) -> Option<&mut Appender> {
        let k = APPENDED.iter().position(|n| *n == name)?;
        self.appended[k].as_mut()
    }

    /// Writes the frame of `sim`'s state as [`Outputs::frame_name`] names it, `suffix` after
    /// its number: one `.vtu`, or the `.pvtu` indexing the ranks' pieces.
    fn snapshot(&mut self, sim: &Simulation, suffix: &str) -> Result<()> {
        let name = self.frame_name(self.frame, suffix);
        match self.pieces {
            Some(ranks) => {
                let frame = self.frame;
                let pieces: Vec<String> = (0..ranks)
                    .map(|r| piece_name(frame, r).replace("frames/", ""))
                    .collect();
                vtk::write_particles_pvtu(&self.dir.join(&name), &pieces, sim.world.time)?;
            }
            None => {
                let (path, p) = (self.dir.join(&name), &sim.world.particles);
                vtk::write_particles_vtu(&path, p, sim.world.time)?;
            }
        }
        self.pvd.push(sim.world.time, &name)?;
        if let Some(units) = sim.scene.output.ss {
            let path = (self.dir).join(format!("frames/particles_{:06}.ss", self.frame));
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
            let rt = &sim.world.wall_runtime;
            if w.motion != crate::walls::Motion::Fixed || rt.is_free(k) {
                let (v, poly) = match rt.pose.get(k).filter(|_| rt.is_free(k)) {
                    Some(pose) => w.mesh_posed(wall_extent(sim), pose),
                    None => w.mesh_at(wall_extent(sim), sim.world.time),
                };
                let path = self
                    .dir
                    .join(format!("frames/wall_{k}_{:06}.vtp", self.frame));
                vtk::write_mesh_vtp(&path, &v, &poly, sim.world.time)?;
            }
        }
        if let Some(list) = contacts::contacts(sim) {
            if let Some(a) = self.appender("contacts.dump") {
                let clock = (sim.world.step, sim.world.time);
                contacts::write_local_frame(a.writer(), clock, vtk_bounds(sim), &list)
                    .map_err(|e| Error::io(a.path(), e))?;
                let vtp = format!("frames/contacts_{:06}.vtp", self.frame);
                contacts::write_contacts_vtp(&self.dir.join(vtp), &list, sim.world.time)?;
            }
        }
        if let Some(a) = self.appender("particles.dump") {
            let (clock, periodic) = ((sim.world.step, sim.world.time), &sim.physics.periodic);
            dump::write_dump_frame(
                a.writer(),
                clock,
                vtk_bounds(sim),
                periodic,
                &sim.world.particles,
            )
            .map_err(|e| Error::io(a.path(), e))?;
        }
        self.frame += 1;
        Ok(())
    }

    /// The particle file of snapshot `frame` (`suffix` after its number), relative to the
    /// folder: a `.vtu`, or the `.pvtu` indexing its pieces.
    fn frame_name(&self, frame: usize, suffix: &str) -> String {
        let kind = if self.pieces.is_some() { "pvtu" } else { "vtu" };
        format!("frames/particles_{frame:06}{suffix}.{kind}")
    }

    /// The number of the snapshot due at the current time of `sim` (as [`Outputs::observe`]
    /// would write it), if one is.
    pub fn snapshot_due(&self, sim: &Simulation) -> Option<usize> {
        let t = sim.world.time + 0.5 * sim.physics.dt;
        (t >= self.next_snapshot).then_some(self.frame)
    }

    /// The file and time (s) of the folder's last checkpoint, if one was taken.
    pub fn last_checkpoint(&self) -> Option<(&str, f64)> {
        let m = self.manifest.checkpoints.last()?;
        Some((m.file.as_str(), m.time))
    }

    /// Wall-clock time spent writing so far (s).
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// What [`Outputs::observe`] would write at the current time of `sim`: whether anything,
    /// and whether a checkpoint (a run shared among ranks gathers its grains only then, and
    /// their contact histories only for a checkpoint).
    pub fn due(&self, sim: &Simulation) -> (bool, bool) {
        let t = sim.world.time + 0.5 * sim.physics.dt;
        let next = [self.next_snapshot, self.next_series, self.next_stress];
        let checkpoint = t >= self.next_checkpoint;
        (checkpoint || next.iter().any(|&n| t >= n), checkpoint)
    }

    /// Writes whatever is due at the current time of `sim`.
    pub fn observe(&mut self, sim: &Simulation) -> Result<()> {
        let clock = std::time::Instant::now();
        let r = self.write_due(sim);
        self.seconds += clock.elapsed().as_secs_f64();
        r
    }

    fn write_due(&mut self, sim: &Simulation) -> Result<()> {
        let t = sim.world.time + 0.5 * sim.physics.dt;
        self.overlap_peak = self.overlap_peak.max(sim.stats.max_overlap_ratio);
        if let Some(a) = self.appender("collisions.csv") {
            for r in sim.collision_log() {
                writeln!(a.writer(), "{}", r.row()).map_err(|e| Error::io(a.path(), e))?;
            }
        }
        if t >= self.next_snapshot {
            self.snapshot(sim, "")?;
            self.next_snapshot = next_after(t, sim.scene.output.snapshot_interval);
        }
        if t >= self.next_series {
            let peak = self.overlap_peak;
            if let Some(a) = self.appender("series.csv") {
                series::write_row(a.writer(), sim, peak).map_err(|e| Error::io(a.path(), e))?;
            }
            if let Some(a) = self.appender("walls.csv") {
                wall_forces::write_row(a.writer(), sim).map_err(|e| Error::io(a.path(), e))?;
            }
            if let Some(a) = self.appender("bodies.csv") {
                bodies::write_row(a.writer(), sim).map_err(|e| Error::io(a.path(), e))?;
            }
            self.overlap_peak = 0.0;
            self.next_series = next_after(t, sim.scene.output.series_interval);
        }
        if t >= self.next_stress {
            if let (Some(a), Some(st)) =
                (self.appended[2].as_mut(), sim.scene.output.stress.as_ref())
            {
                writeln!(a.writer(), "{}", stress_row(st, sim))
                    .map_err(|e| Error::io(a.path(), e))?;
            }
            self.next_stress = next_after(t, sim.scene.output.stress.as_ref().map(|s| s.interval));
        }
        if let Some(tallies) = &mut self.tallies {
            let [.., energy, velocity] = &mut self.appended;
            let (energy, velocity) = (energy.as_mut(), velocity.as_mut());
            let path = match (&energy, &velocity) {
                (Some(a), _) | (None, Some(a)) => a.path().to_path_buf(),
                (None, None) => self.dir.clone(),
            };
            tallies
                .observe(
                    sim,
                    energy.map(Appender::writer),
                    velocity.map(Appender::writer),
                )
                .map_err(|e| Error::io(&path, e))?;
        }
        if t >= self.next_checkpoint {
            self.checkpoint(sim, "checkpoint.gfck")?;
            self.next_checkpoint = next_after(t, sim.scene.output.checkpoint_interval);
        }
        Ok(())
    }

    /// Syncs the append-only files and the folders, records the files' lengths and the frame
    /// counter in the manifest, then writes the checkpoint `file` (both whole, through
    /// temporary files). A kill between the two leaves the older checkpoint, which the
    /// manifest still names.
    pub fn checkpoint(&mut self, sim: &Simulation, file: &str) -> Result<()> {
        let mut lengths = BTreeMap::new();
        for (name, a) in APPENDED.iter().zip(&mut self.appended) {
            if let Some(a) = a {
                lengths.insert(name.to_string(), a.sync()?);
            }
        }
        self.manifest.record(Mark {
            file: file.to_string(),
            step: sim.world.step,
            time: sim.world.time,
            frame: self.frame,
            lengths,
            overlap_peak: self.overlap_peak,
            tallies: self.tallies.as_ref().map(tallies::Tallies::state),
        });
        durable::sync_dir(&self.dir.join("frames"))?;
        self.manifest.write(&self.dir)?;
        durable::sync_dir(&self.dir)?;
        sim.checkpoint().write(&self.dir.join(file))?;
        durable::sync_dir(&self.dir)
    }

    /// After a step that failed (an unstable run): writes the last good state `good` (the step
    /// before, [`Outputs::last_good`]) and the state as the failure left it as the next two
    /// frames, `frames/particles_NNNNNN_last_good.vtu` and `…_failure.vtu`, each with its PVD
    /// entry and dump frame, for inspection, and syncs the append-only files. No checkpoint is
    /// taken: the folder's last checkpoint stays the one to resume from (a resumed run writes
    /// its frames from that checkpoint's number on). Returns the frames' paths, relative to
    /// the folder; none when the scene writes no frames.
    pub fn failed(&mut self, sim: &Simulation, good: Option<&Simulation>) -> Result<Vec<String>> {
        // The states are whole (a shared run's gathered on rank 0): one file each, even where
        // the snapshots come in pieces.
        let pieces = self.pieces.take();
        let written = self.failure_frames(sim, good);
        self.pieces = pieces;
        let written = written?;
        for a in self.appended.iter_mut().flatten() {
            a.sync()?;
        }
        Ok(written)
    }

    /// The frames of [`Outputs::failed`], each as one file.
    fn failure_frames(
        &mut self,
        sim: &Simulation,
        good: Option<&Simulation>,
    ) -> Result<Vec<String>> {
        let mut written = Vec::new();
        if sim.scene.output.snapshot_interval.is_some() {
            for (state, suffix) in [(good, "_last_good"), (Some(sim), "_failure")] {
                if let Some(state) = state {
                    written.push(self.frame_name(self.frame, suffix));
                    self.snapshot(state, suffix)?;
                }
            }
        }
        Ok(written)
    }

    /// The last good state of a run whose step from `step` failed: the run again from the
    /// folder's last checkpoint (or from the start, without one) to `step`, bit for bit as it
    /// went (a resume continues bit for bit); `base` is the folder the scene's files are read
    /// from. None when the scene writes no frames.
    pub fn last_good(
        &self,
        sim: &Simulation,
        base: &Path,
        step: u64,
    ) -> Result<Option<Simulation>> {
        if sim.scene.output.snapshot_interval.is_none() {
            return Ok(None);
        }
        let mut good = match self.manifest.checkpoints.last() {
            Some(c) => {
                let ckpt = checkpoint::Checkpoint::read(&self.dir.join(&c.file))?;
                Simulation::resume(sim.scene.clone(), base, ckpt)?
            }
            None => Simulation::new(sim.scene.clone(), base)?,
        };
        while good.world.step < step {
            good.step()?;
        }
        Ok(Some(good))
    }

    /// Writes the tallies and the final checkpoint `final.gfck`, with the files synced.
    pub fn finish(&mut self, sim: &Simulation) -> Result<()> {
        if let Some(tallies) = &self.tallies {
            tallies.finish()?;
        }
        self.checkpoint(sim, "final.gfck")
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
