//! How a run is driven to its end, or stopped by SIGINT or SIGTERM: after the step under way,
//! with a final checkpoint and its files synced, so that `--resume` continues it.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use grainflow::io::Outputs;
use grainflow::sim::Simulation;

/// The signal that asked the run to stop (its number), if any.
pub struct Stop(Arc<AtomicUsize>);

impl Stop {
    /// Catches SIGINT and SIGTERM from now on: they set the flag instead of ending the process.
    pub fn install() -> Result<Stop> {
        let flag = Arc::new(AtomicUsize::new(0));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register_usize(signal, Arc::clone(&flag), signal as usize)
                .with_context(|| format!("cannot catch signal {signal}"))?;
        }
        Ok(Stop(flag))
    }

    /// The signal received, if one was.
    pub fn signal(&self) -> Option<usize> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s),
        }
    }
}

/// Steps `sim` until `end` (s), letting `outputs` write what is due and `each` report after
/// every step. Stopped by a signal, it writes `checkpoint.gfck` and returns the exit status
/// of a process ended by that signal (128 + its number). Stopped by a failed step, it writes
/// the last good state and the failing one (`base`: where the scene's files are read from,
/// to run the last good state again; `None` where a run from the scene would not give the
/// same state, a deck loaded from a save).
pub fn drive(
    sim: &mut Simulation,
    (end, base): (f64, Option<&Path>),
    outputs: &mut Outputs,
    mut each: impl FnMut(&Simulation) -> Result<()>,
) -> Result<Option<u8>> {
    let stop = Stop::install()?;
    let kill_at = kill_at_step();
    while sim.world.time + 0.5 * sim.physics.dt < end {
        if let Some(signal) = stop.signal() {
            outputs.checkpoint(sim, "checkpoint.gfck")?;
            eprintln!(
                "grainflow: stopped by signal {signal} at t = {:e} s (step {}); checkpoint.gfck written, the files synced; --resume it to go on",
                sim.world.time, sim.world.step
            );
            return Ok(Some(128u8.saturating_add(signal as u8)));
        }
        let before = sim.world.step;
        if let Err(e) = sim.step() {
            return Err(failed(sim, outputs, e, (base, before)));
        }
        outputs.observe(sim)?;
        each(sim)?;
        if kill_at == Some(sim.world.step) {
            // As `kill -KILL` would: no destructor runs, nothing buffered is flushed.
            signal_hook::low_level::raise(signal_hook::consts::SIGKILL)
                .context("cannot raise SIGKILL")?;
        }
    }
    Ok(None)
}

/// The error of a step that failed from step `before`, with where the last good state and the
/// failing one were written and what to resume (`base`: None writes no last good state).
pub fn failed(
    sim: &Simulation,
    outputs: &mut Outputs,
    e: grainflow::Error,
    (base, before): (Option<&Path>, u64),
) -> anyhow::Error {
    let (good, note) = match base.map(|base| outputs.last_good(sim, base, before)) {
        Some(Ok(good)) => (good, String::new()),
        Some(Err(w)) => (
            None,
            format!("; running the last good state again failed: {w}"),
        ),
        None => (None, String::new()),
    };
    let frames = match outputs.failed(sim, good.as_ref()).as_deref() {
        Ok([good, failure]) => {
            format!("; the last good state is {good}, the state at the failure {failure}")
        }
        Ok([failure]) => format!("; the state at the failure is {failure}"),
        Ok(_) => String::new(),
        Err(w) => format!("; writing the state at the failure failed too: {w}"),
    };
    let resume = match outputs.last_checkpoint() {
        Some((file, time)) => format!("; {file} (t = {time:e} s) is the last state to resume from"),
        None => String::new(),
    };
    anyhow::anyhow!("{e}{note}{frames}{resume}")
}

/// The step after which the run kills itself with SIGKILL, from `GRAINFLOW_TEST_KILL_AT_STEP`:
/// the kill test's way to land a kill at a chosen step whatever the machine's load.
fn kill_at_step() -> Option<u64> {
    std::env::var("GRAINFLOW_TEST_KILL_AT_STEP")
        .ok()?
        .parse()
        .ok()
}
