//! `grainflow bench s1 --tile NX,NY`: the S1 (or S2) bed repeated NX × NY times along x and y,
//! in one process or shared among the ranks of `mpirun` (the `mpi` feature), timed by the CPU
//! time of every process: the weak-scaling and million-grain benchmark.

use std::cell::Cell;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use grainflow::domain::{Shared, Transport};
use grainflow::scene::{BalanceBy, ParticleSource, Scene};
use grainflow::sim::Simulation;
use grainflow::stats::StageTimes;
use serde_json::json;

use crate::bench::{data_dir, find};

/// Parses `--tile NX,NY`: two counts ≥ 1.
pub fn parse_tile(s: &str) -> std::result::Result<[u32; 2], String> {
    let counts: Vec<u32> = s
        .split(',')
        .map(|t| t.trim().parse::<u32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| format!("{s}: {e}"))?;
    match counts[..] {
        [nx, ny] if nx >= 1 && ny >= 1 => Ok([nx, ny]),
        _ => Err(format!("{s}: expected two counts ≥ 1, NX,NY")),
    }
}

/// Benchmark `name`'s scene with its bed tiled `tile` times: the periodic box widened that
/// many times along x and y and the data file's grains repeated in it (`tile` of the
/// `lammps_data` source). Only the benchmarks read from a data file (s1, s2) tile.
fn tiled_scene(name: &str, tile: [u32; 2]) -> Result<Scene> {
    let b = find(name)?;
    let mut scene = Scene::from_toml(b.toml, b.name)?;
    let [ParticleSource::LammpsData(source)] = &mut scene.particles[..] else {
        bail!("--tile: {name} is not a bed read from a data file; take s1 or s2");
    };
    source.tile = Some(tile);
    let periodic = &mut scene.boundary.periodic;
    for (axis, n) in [&mut periodic.x, &mut periodic.y].into_iter().zip(tile) {
        let Some([lo, hi]) = axis.as_mut() else {
            bail!("--tile: {name} is not periodic in x and y");
        };
        *hi = *lo + f64::from(n) * (*hi - *lo);
    }
    Ok(scene)
}

/// User plus system CPU time of this process, all its threads (s), and its peak resident
/// memory (KiB), from getrusage(RUSAGE_SELF).
pub(crate) fn usage() -> (f64, f64) {
    // SAFETY: an all-zero rusage is a valid value of the plain C struct, which getrusage
    // overwrites; the pointer is to a local that outlives the call.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return (f64::NAN, f64::NAN);
    }
    let s = |t: libc::timeval| t.tv_sec as f64 + 1e-6 * t.tv_usec as f64;
    (s(u.ru_utime) + s(u.ru_stime), u.ru_maxrss as f64)
}

/// CPU time of the calling thread (s), from clock_gettime(CLOCK_THREAD_CPUTIME_ID).
fn thread_cpu_s() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: the pointer is to a local timespec that outlives the call, which fills it.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return f64::NAN;
    }
    t.tv_sec as f64 + 1e-9 * t.tv_nsec as f64
}

/// A transport that counts the CPU time its calls take on the calling thread: the copying of
/// the messages and the wait for the other ranks, which MPI spends spinning. On a machine
/// whose cores other work shares, a rank that waits for one the system has set aside spins
/// for as long, so this part of the CPU time measures the machine as much as the run.
struct Metered {
    inner: Box<dyn Transport>,
    cpu_s: Rc<Cell<f64>>,
}

impl Transport for Metered {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn exchange(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        self.metered(|t| t.exchange(out))
    }
    fn swap(&mut self, out: Vec<Vec<u8>>, expect: &[usize]) -> Vec<Vec<u8>> {
        self.metered(|t| t.swap(out, expect))
    }
    fn any(&mut self, flag: bool) -> bool {
        self.metered(|t| t.any(flag))
    }
    fn max(&mut self, x: &[f64]) -> Vec<f64> {
        self.metered(|t| t.max(x))
    }
}

impl Metered {
    /// `call` on the transport within, its CPU time counted.
    fn metered<R>(&mut self, call: impl FnOnce(&mut dyn Transport) -> R) -> R {
        let start = thread_cpu_s();
        let got = call(&mut *self.inner);
        self.cpu_s.set(self.cpu_s.get() + (thread_cpu_s() - start));
        got
    }
}

/// What a run measured, summed over the ranks.
struct Measured {
    ranks: usize,
    particles: usize,
    steps: u64,
    wall_s: f64,
    /// CPU time of the steps (s), every rank's; of it, in the transport's calls.
    cpu_s: f64,
    transport_cpu_s: f64,
    /// Peak resident memory of every rank together (KiB).
    peak_kib: f64,
    /// Copies over own grains; bytes sent in all; most own grains on a rank over the mean.
    copies: f64,
    bytes: f64,
    imbalance: f64,
    /// The most CPU time a rank spent outside the transport's calls over the mean: the
    /// imbalance the ranks wait for.
    busy_imbalance: f64,
    /// Contacts per particle and the kinetic energy (J), in one process only.
    contacts: Option<f64>,
    kinetic: Option<[f64; 2]>,
    /// Time per stage of the step (wall time; under MPI rank 0's, its waits included).
    stages: Option<StageTimes>,
}

/// Runs benchmark `name` tiled `tile` for `steps` steps (the scene's own count when `None`),
/// its bricks balanced as `balance` asks (every so many rebuilds, by what), in one process,
/// or shared among the ranks when started by mpirun with several; rank 0 prints the report.
pub fn run(
    name: &str,
    tile: [u32; 2],
    balance: Option<(u64, BalanceBy)>,
    steps: Option<u64>,
    json: bool,
) -> Result<ExitCode> {
    let mut scene = tiled_scene(name, tile)?;
    if let Some((every, by)) = balance {
        scene.simulation.balance_every = Some(every);
        scene.simulation.balance_by = by;
    }
    let m = match crate::shared::ranks()? {
        None => alone(scene, steps)?,
        Some(transport) => {
            let rank = transport.rank();
            match shared(scene, steps, transport) {
                Ok(m) if rank == 0 => m,
                Ok(_) => return Ok(ExitCode::SUCCESS),
                // Every rank met the same error (refusals, an unstable step): rank 0 says it.
                Err(e) if rank == 0 => return Err(e),
                Err(_) => return Ok(ExitCode::FAILURE),
            }
        }
    };
    report(name, tile, &m, json)?;
    Ok(ExitCode::SUCCESS)
}

/// The tiled run in this process alone.
fn alone(scene: Scene, steps: Option<u64>) -> Result<Measured> {
    let mut sim = Simulation::new(scene, &data_dir()).context("building the tiled bed")?;
    let steps = steps.unwrap_or_else(|| sim.total_steps());
    let (cpu0, _) = usage();
    let (start, set_up) = (Instant::now(), sim.timers());
    for _ in 0..steps {
        sim.step()?;
    }
    let wall_s = start.elapsed().as_secs_f64();
    let (cpu1, peak_kib) = usage();
    let n = sim.world.particles.len();
    let e = sim.energies();
    Ok(Measured {
        ranks: 1,
        particles: n,
        steps,
        wall_s,
        cpu_s: cpu1 - cpu0,
        transport_cpu_s: 0.0,
        peak_kib,
        copies: 0.0,
        bytes: 0.0,
        imbalance: 1.0,
        busy_imbalance: 1.0,
        contacts: Some(2.0 * sim.world.neighbors.touching() as f64 / n as f64),
        kinetic: Some([e.translational, e.rotational]),
        stages: Some(sim.timers().since(set_up)),
    })
}

/// The tiled run shared among the ranks of `transport`: rank 0 makes it and sends each rank
/// its share, as `mpirun grainflow run` does; the counts of all ranks on every rank.
fn shared(scene: Scene, steps: Option<u64>, transport: Box<dyn Transport>) -> Result<Measured> {
    let ranks = transport.size();
    let in_transport = Rc::new(Cell::new(0.0));
    let metered = Metered {
        inner: transport,
        cpu_s: in_transport.clone(),
    };
    let mut shared = Shared::new(scene, &data_dir(), Box::new(metered))?;
    let steps = steps.unwrap_or_else(|| shared.sim.total_steps());
    let (cpu0, _) = usage();
    let waited0 = in_transport.get();
    let (start, set_up) = (Instant::now(), shared.sim.timers());
    for _ in 0..steps {
        shared.step()?;
    }
    let wall_s = start.elapsed().as_secs_f64();
    let (cpu1, peak_kib) = usage();
    let waited = in_transport.get() - waited0;
    let counts = crate::shared::report(&mut shared);
    let own = shared.counts().1;
    let mut m = Vec::new();
    for v in [cpu1 - cpu0, peak_kib, own as f64, waited] {
        m.extend_from_slice(&v.to_le_bytes());
    }
    let got = shared.all_gather(m);
    let at = |m: &[u8], k: usize| {
        f64::from_le_bytes(m[8 * k..8 * k + 8].try_into().expect("eight bytes"))
    };
    let sum = |k: usize| -> f64 { got.iter().map(|m| at(m, k)).sum() };
    let busiest = (got.iter()).fold(0.0, |most: f64, m| most.max(at(m, 0) - at(m, 3)));
    Ok(Measured {
        ranks,
        particles: sum(2) as usize,
        steps,
        wall_s: shared.max(wall_s),
        cpu_s: sum(0),
        transport_cpu_s: sum(3),
        peak_kib: sum(1),
        copies: counts.copies,
        bytes: counts.bytes,
        imbalance: counts.imbalance,
        busy_imbalance: busiest / ((sum(0) - sum(3)) / ranks as f64),
        contacts: None,
        kinetic: None,
        stages: Some(shared.sim.timers().since(set_up)),
    })
}

/// Prints a run's report, as text or JSON.
fn report(name: &str, tile: [u32; 2], m: &Measured, json: bool) -> Result<()> {
    let threads = rayon::current_num_threads();
    let particle_steps = m.particles as f64 * m.steps as f64;
    let r = json!({
        "scene": name,
        "tile": tile,
        "ranks": m.ranks,
        "threads": threads,
        "particles": m.particles,
        "steps": m.steps,
        "wall_s": m.wall_s,
        "cpu_s": m.cpu_s,
        "cpu_ns_per_particle_step": m.cpu_s / particle_steps * 1e9,
        "transport_cpu_s": m.transport_cpu_s,
        "cpu_ns_per_particle_step_outside_transport": (m.cpu_s - m.transport_cpu_s) / particle_steps * 1e9,
        "copies_fraction": m.copies,
        "bytes_per_particle_step": m.bytes / particle_steps,
        "load_imbalance": m.imbalance,
        "busy_imbalance": m.busy_imbalance,
        "peak_rss_mib": m.peak_kib / 1024.0,
        "peak_rss_kb_per_grain": m.peak_kib * 1.024 / m.particles as f64,
        "contacts_per_particle": m.contacts,
        "kinetic_translational_j": m.kinetic.map(|k| k[0]),
        "kinetic_rotational_j": m.kinetic.map(|k| k[1]),
        "stage_s": m.stages,
    });
    if json {
        outln!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    outln!(
        "{name} tiled {}×{}: {} particles, {} steps, {} ranks × {threads} threads: {:.2} s wall, {:.2} s CPU, {:.1} ns CPU per particle-step",
        tile[0],
        tile[1],
        m.particles,
        m.steps,
        m.ranks,
        m.wall_s,
        m.cpu_s,
        m.cpu_s / particle_steps * 1e9
    );
    if m.ranks > 1 {
        outln!(
            "  of the CPU time {:.2} s in the transport's calls (copying, waiting): {:.1} ns per particle-step outside them, the busiest rank's {:.3}× the mean",
            m.transport_cpu_s,
            (m.cpu_s - m.transport_cpu_s) / particle_steps * 1e9,
            m.busy_imbalance
        );
    }
    outln!(
        "  copies {:.1} % of the grains, {:.1} bytes sent per particle-step, load imbalance {:.3}, peak RSS {:.1} MiB ({:.2} kB per grain, all ranks)",
        100.0 * m.copies,
        m.bytes / particle_steps,
        m.imbalance,
        m.peak_kib / 1024.0,
        m.peak_kib * 1.024 / m.particles as f64
    );
    if let (Some(c), Some([t, rot])) = (m.contacts, m.kinetic) {
        outln!("  contacts/particle {c:.3}, KE {t:.3e} + {rot:.3e} J");
    }
    if let Some(stages) = m.stages {
        let whose = if m.ranks > 1 { " (rank 0)" } else { "" };
        outln!("  stages{whose}: {stages}");
    }
    Ok(())
}
