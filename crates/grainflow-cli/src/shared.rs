//! `mpirun -np N grainflow run SCENE`: a soft-sphere run shared among N processes (the `mpi`
//! feature). Rank 0 makes the scene's grains (or reads the checkpoint a run resumes from) and
//! sends each rank its share; rank 0 writes the outputs from the run
//! gathered when they are due, prints the progress and the one error that stops every rank
//! (its rank, particle, time and cause).

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use grainflow::domain::{refusal, Shared, Transport};
use grainflow::io::checkpoint::Checkpoint;
use grainflow::io::{Outputs, Start};
use grainflow::scene::{BalanceBy, Scene};
use grainflow::sim::Simulation;

use crate::stop::Stop;

/// What rank 0 tells every rank before each step: go on, stop for an error of its own, or
/// stop for a signal (this plus its number).
const GO: u8 = 0;
const FAILED: u8 = 1;
const SIGNAL: u8 = 64;
/// ... and after each step: whether outputs are due, whether a checkpoint, whether a snapshot.
const DUE: u8 = 1;
const CHECKPOINT: u8 = 2;
const SNAPSHOT: u8 = 4;

/// MPI's world when the process was started by mpirun with more than one rank; its messages
/// cut into pieces of `GRAINFLOW_MPI_PIECE` bytes when that is set (tests of the rounds that
/// runs of 10⁷ grains need; docs/parallel.md).
#[cfg(feature = "mpi")]
pub fn ranks() -> Result<Option<Box<dyn Transport>>> {
    let Some(mut mpi) = grainflow::domain::mpi::Mpi::init() else {
        return Ok(None);
    };
    if let Ok(v) = std::env::var(PIECE) {
        let bytes = v.parse::<usize>().ok().filter(|&b| b > 0);
        let bytes = bytes
            .ok_or_else(|| anyhow::anyhow!("{PIECE} = {v:?}: not a positive number of bytes"))?;
        mpi = mpi.with_piece(bytes);
    }
    Ok((mpi.size() > 1).then(|| Box::new(mpi) as Box<dyn Transport>))
}

/// The environment variable that cuts MPI's messages into smaller pieces.
#[cfg(feature = "mpi")]
const PIECE: &str = "GRAINFLOW_MPI_PIECE";

/// Without the `mpi` feature every run is one process.
#[cfg(not(feature = "mpi"))]
pub fn ranks() -> Result<Option<Box<dyn Transport>>> {
    Ok(None)
}

/// A benchmark other than a tiled one started by mpirun on several ranks: every rank would
/// time its own copy while the others contend for the cores, so it is refused (rank 0 says
/// why). The exit code; None in one process.
pub fn refuse_untiled(name: &str) -> Result<Option<ExitCode>> {
    let Some(mut transport) = ranks()? else {
        return Ok(None);
    };
    let e = anyhow::anyhow!(
        "bench {name} on {} ranks: only `bench NAME --tile NX,NY` shares a benchmark among \
         mpirun's ranks; without it every rank runs its own copy (add --tile 1,1, or run it \
         without mpirun)",
        transport.size()
    );
    let rank = transport.rank();
    Ok(Some(fail_together(e, rank, || transport.any(true))))
}

/// Runs `scene` (named `name`, files from `base`) shared among the ranks of `transport`,
/// outputs into `out`; resumed from the checkpoint `resume` when given.
pub fn run(
    (scene, base, name): (Scene, &Path, &str),
    out: &Path,
    resume: Option<&Path>,
    overwrite: bool,
    transport: Box<dyn Transport>,
) -> Result<ExitCode> {
    let (rank, size) = (transport.rank(), transport.size());
    let mut transport = transport;
    let end = scene.simulation.start_time + scene.simulation.duration;
    // Every rank meets the same refusals from the same inputs: each stops, rank 0 says why.
    let built = match (refusal(&scene), resume) {
        (Some(e), _) => Err(e.into()),
        (None, Some(path)) => {
            Shared::resumed(scene, base, || Checkpoint::read(path), transport.as_mut())
                .map(|part| (part, Start::Resume))
                .map_err(anyhow::Error::from)
        }
        // The message names the scene's file, as one process's does.
        (None, None) => Shared::unstarted(scene, base, transport.as_mut())
            .map(|part| (part, Start::Fresh { overwrite }))
            .map_err(|e| anyhow::anyhow!("{name}: {e}")),
    };
    let (part, start) = match built {
        Ok(b) => b,
        Err(e) => return Ok(fail_together(e, rank, || transport.any(true))),
    };
    // Refusals were met above, so every rank takes its share.
    let mut shared = Shared::share(part, transport);
    // A fresh run's first forces (a resumed run's are the checkpoint's), and what one process
    // refuses at its start, met on any rank.
    if matches!(start, Start::Fresh { .. }) {
        if let Err(e) = shared.start() {
            let e = anyhow::anyhow!("{name}: {e}");
            return Ok(fail_together(e, rank, || shared.agree(FAILED)));
        }
    }
    let mut view = (rank == 0).then(|| shared.sim.clone());
    shared.gather_into(view.as_mut(), true);
    let first =
        matches!(start, Start::Fresh { .. }) && shared.sim.scene.output.snapshot_interval.is_some();
    let opened = (view.as_ref()).map(|v| Outputs::open_in_pieces(out, v, start, Some(size)));
    let (outputs, failed) = match opened {
        Some(Ok(o)) => (Some(o), GO),
        Some(Err(e)) => {
            eprintln!("error: {e}");
            (None, FAILED)
        }
        None => (None, GO),
    };
    if shared.agree(failed) != GO {
        return Ok(ExitCode::FAILURE);
    }
    if let Some(code) = pieces(&mut shared, out, first.then_some(0)) {
        return Ok(code);
    }
    if let Some(v) = &view {
        let by_time = v.scene.simulation.balance_by == BalanceBy::Time;
        eprintln!(
            "grainflow: {name}: {} particles on {size} ranks ({}{}), {} walls, dt = {:.3e} s, {} threads per rank, output in {}",
            v.world.particles.len(),
            shared.domain.bricks.layout,
            if by_time { " weighed by time" } else { "" },
            v.world.walls.len(),
            v.physics.dt,
            rayon::current_num_threads(),
            out.display()
        );
    }
    let stop = Stop::install()?;
    let clock = Instant::now();
    let first = shared.sim.world.step;
    let dt = shared.sim.physics.dt;
    let mut next_line = 0.1;
    let mut rank0 = Rank0 {
        view,
        outputs,
        dir: out.to_path_buf(),
    };
    while shared.sim.world.time + 0.5 * dt < end {
        if let Some(code) = step(&mut shared, &mut rank0, &stop)? {
            return Ok(code);
        }
        if let Some(v) = &rank0.view {
            let fraction = v.world.time / end;
            if fraction >= next_line {
                let rate = (v.world.step - first) as f64 / clock.elapsed().as_secs_f64().max(1e-9);
                eprintln!(
                    "grainflow: {:3.0} % t = {} s, {rate:.0} steps/s",
                    100.0 * fraction,
                    crate::show::seconds(v.world.time)
                );
                next_line += 0.1;
            }
        }
    }
    if shared.agree(GO) == FAILED {
        return Ok(ExitCode::FAILURE);
    }
    shared.gather_into(rank0.view.as_mut(), true);
    let counts = report(&mut shared);
    if let (Some(o), Some(v)) = (rank0.outputs.as_mut(), rank0.view.as_ref()) {
        o.finish(v)?;
        let steps = (v.world.step - first).max(1);
        eprintln!(
            "grainflow: done: t = {} s, {} steps in {:.1} s on {size} ranks; {} grains; copies {:.1} % of the grains, {:.1} bytes sent per particle-step, load imbalance {:.3} (most grains on a rank over the mean)",
            crate::show::seconds(v.world.time),
            v.world.step - first,
            clock.elapsed().as_secs_f64(),
            v.world.particles.len(),
            100.0 * counts.copies,
            counts.bytes / (steps as f64 * v.world.particles.len().max(1) as f64),
            counts.imbalance
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What rank 0 keeps besides its share: the whole run as one process holds it, gathered for
/// the outputs, and the outputs (None on the other ranks).
struct Rank0 {
    view: Option<Simulation>,
    outputs: Option<Outputs>,
    /// The output folder (every rank writes its pieces of the snapshots there).
    dir: std::path::PathBuf,
}

/// One step of every rank: rank 0's word first (go on, or stop for its error or a signal,
/// with a checkpoint), then the step, then the outputs when due, gathered. The exit code when
/// the run stops here.
fn step(shared: &mut Shared, r0: &mut Rank0, stop: &Stop) -> Result<Option<ExitCode>> {
    let rank = shared.counts().0;
    let before = match (rank, stop.signal()) {
        (0, Some(s)) => SIGNAL + s as u8,
        _ => GO,
    };
    match shared.agree(before) {
        GO => {}
        FAILED => return Ok(Some(ExitCode::FAILURE)),
        signal => {
            shared.gather_into(r0.view.as_mut(), true);
            if let (Some(o), Some(v)) = (r0.outputs.as_mut(), r0.view.as_ref()) {
                o.checkpoint(v, "checkpoint.gfck")?;
                eprintln!(
                    "grainflow: stopped by signal {} at t = {:e} s (step {}); checkpoint.gfck written; --resume it to go on",
                    signal - SIGNAL,
                    v.world.time,
                    v.world.step
                );
            }
            return Ok(Some(ExitCode::from(128u8.saturating_add(signal - SIGNAL))));
        }
    }
    if let Err(e) = shared.step() {
        // Every rank failed together, so the state at the failure can be gathered and written
        // as one process writes it (the last good state is not run again here: that is one
        // process's work since the last checkpoint, which the ranks would wait for).
        shared.gather_into(r0.view.as_mut(), false);
        let e = match (r0.outputs.as_mut(), r0.view.as_mut()) {
            (Some(o), Some(v)) => {
                (v.world.time, v.world.step) = (shared.sim.world.time, shared.sim.world.step);
                crate::stop::failed(v, o, e, (None, v.world.step))
            }
            _ => e.into(),
        };
        return Ok(Some(fail_together(e, rank, || shared.agree(FAILED))));
    }
    let (due, frame) = match (r0.outputs.as_ref(), r0.view.as_mut()) {
        (Some(o), Some(v)) => {
            (v.world.time, v.world.step) = (shared.sim.world.time, shared.sim.world.step);
            let (any, checkpoint) = o.due(v);
            let frame = o.snapshot_due(v);
            let flags = (u8::from(any) * DUE) | (u8::from(checkpoint) * CHECKPOINT);
            (flags | (u8::from(frame.is_some()) * SNAPSHOT), frame)
        }
        _ => (0, None),
    };
    let overlap = shared.sim.stats.max_overlap_ratio;
    let (due, overlap) = shared.agree_max(due, overlap);
    if due & DUE != 0 {
        shared.gather_into(r0.view.as_mut(), due & CHECKPOINT != 0);
    }
    if due & SNAPSHOT != 0 {
        if let Some(code) = pieces(shared, &r0.dir, frame) {
            return Ok(Some(code));
        }
    }
    if let (Some(o), Some(v)) = (r0.outputs.as_mut(), r0.view.as_mut()) {
        // Every step, as one process does, so that the series keeps the largest overlap
        // between its rows; it writes only when something is due, the run gathered then.
        v.stats.max_overlap_ratio = overlap;
        if let Err(e) = o.observe(v) {
            // The other ranks learn it before the next step.
            eprintln!("error: {e}");
            shared.agree(FAILED);
            return Ok(Some(ExitCode::FAILURE));
        }
    }
    Ok(None)
}

/// Every rank writes its own grains as its piece of snapshot `frame` (rank 0's word: the
/// others pass None) into the folder `out`; rank 0 writes the `.pvtu` indexing them. The exit
/// code when a rank failed to write (rank 0 prints its message). Every rank calls it together.
fn pieces(shared: &mut Shared, out: &Path, frame: Option<usize>) -> Option<ExitCode> {
    let word = frame.map_or(u64::MAX, |f| f as u64).to_le_bytes().to_vec();
    let got = shared.all_gather(word);
    let frame = u64::from_le_bytes(got[0][..8].try_into().expect("eight bytes"));
    if frame == u64::MAX {
        return None;
    }
    let rank = shared.counts().0;
    let path = out.join(grainflow::io::piece_name(frame as usize, rank));
    let time = shared.sim.world.time;
    let written = grainflow::io::vtk::write_particles_vtu(&path, &shared.own_grains(), time);
    let message = written.err().map(|e| format!("rank {rank}: {e}"));
    let got = shared.all_gather(message.unwrap_or_default().into_bytes());
    let failed = got.iter().find(|m| !m.is_empty())?;
    if rank == 0 {
        eprintln!("error: {}", String::from_utf8_lossy(failed));
    }
    Some(ExitCode::FAILURE)
}

/// Ends this rank for an error every rank met: rank 0 prints it, then all ranks `meet` once,
/// because mpirun ends the job as soon as one rank exits with an error and would otherwise
/// cut rank 0's line off.
fn fail_together<T>(e: anyhow::Error, rank: usize, meet: impl FnOnce() -> T) -> ExitCode {
    if rank == 0 {
        eprintln!("error: {e:#}");
    }
    meet();
    ExitCode::FAILURE
}

/// The ranks' counts together: copies over own grains, bytes sent in all, the most own
/// grains of a rank over the mean.
pub struct Counts {
    pub copies: f64,
    pub bytes: f64,
    pub imbalance: f64,
}

/// Every rank's counts, on every rank.
pub fn report(shared: &mut Shared) -> Counts {
    let (_, own, copies, bytes) = shared.counts();
    let mut m = Vec::new();
    for v in [own as u64, copies as u64, bytes] {
        m.extend_from_slice(&v.to_le_bytes());
    }
    let got = shared.all_gather(m);
    let at = |m: &[u8], k: usize| {
        u64::from_le_bytes(m[8 * k..8 * k + 8].try_into().expect("eight bytes")) as f64
    };
    let sum = |k: usize| got.iter().map(|m| at(m, k)).sum::<f64>();
    let most = got.iter().map(|m| at(m, 0)).fold(0.0, f64::max);
    let n = got.len() as f64;
    Counts {
        copies: sum(1) / sum(0).max(1.0),
        bytes: sum(2),
        imbalance: most / (sum(0) / n).max(1.0),
    }
}
