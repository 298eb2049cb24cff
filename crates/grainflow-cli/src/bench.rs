//! `grainflow bench`: the peers' benchmark scenes (bench/peers/RESULTS.md), timed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::stats::StageTimes;
use serde_json::json;

/// A built-in benchmark: its scene and the folder its data files are read from.
pub(crate) struct Bench {
    pub(crate) name: &'static str,
    about: &'static str,
    pub(crate) toml: &'static str,
}

const BENCHES: &[Bench] = &[
    Bench {
        name: "s1",
        about: "20 000 Hertz–Mindlin spheres, settled bed, periodic x y, 10 000 steps of 1 µs",
        toml: include_str!("../../../scenes/bench/s1.toml"),
    },
    Bench {
        name: "s2",
        about: "S1 with a linear spring–dashpot (LAMMPS gran/hooke/history)",
        toml: include_str!("../../../scenes/bench/s2.toml"),
    },
    Bench {
        name: "hard-gas",
        about: "S4: 10 000 elastic hard spheres, volume fraction 0.05, periodic cube, 2000 steps",
        toml: include_str!("../../../scenes/bench/s4.toml"),
    },
];

/// Where the benchmark data files are: `scenes/bench` under the current folder, else in the
/// source tree the binary was built from.
pub(crate) fn data_dir() -> PathBuf {
    let here = Path::new("scenes/bench");
    if here.join("s1_settled.data.gz").exists() {
        here.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/bench")
    }
}

/// Peak resident memory of this process (MiB), from /proc/self/status; 0 where unavailable.
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

/// Lists the benchmarks.
pub fn list() {
    for b in BENCHES {
        outln!("{:<6} {}", b.name, b.about);
    }
    outln!(
        "{:<6} S3: self-gravity of 1e4 and 1e5 point masses (REBOUND), direct, tree and grid",
        "gravity"
    );
    outln!(
        "{:<6} 004: approx_hard vs soft on the same dense 2-D Couette flow, wall time per simulated second",
        "couette"
    );
    outln!(
        "{:<6} 1e4 grains resting on a floor of 1e5 triangles against the analytic plane, CPU per particle-step (goal <= 1.30x)",
        "mesh"
    );
}

/// Runs benchmark `name` for `steps` steps (the scene's own count when `None`).
pub fn run(name: &str, steps: Option<u64>, json: bool) -> Result<()> {
    let (report, stages) = time(find(name)?, steps)?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&report, stages);
    }
    Ok(())
}

/// Runs benchmark `name` on one thread and on `threads`, alternately, `repeat` times, and
/// prints each run, the speed-up of each round (the one-thread run's wall time over the next
/// run's), the parallel overhead of each round (the CPU time of all threads over the one
/// thread's: what a virtual machine's placement of the cores cannot flatter) and whether every
/// run ended with the same bits (kinetic energies and contacts).
/// Alternating keeps a slow spell of a shared machine from favouring one thread count. Each
/// run is a process of its own (`grainflow bench NAME --threads T --json`), as a user's run
/// is: its memory, its threads and its peak memory are its own, not left by the runs before.
pub fn scaling(
    name: &str,
    steps: Option<u64>,
    threads: usize,
    repeat: usize,
    json: bool,
) -> Result<()> {
    if threads < 2 {
        bail!("--scaling {threads}: compare one thread with two or more");
    }
    if repeat == 0 {
        bail!("--repeat 0: run at least one round");
    }
    if matches!(name, "gravity" | "couette") {
        bail!("--scaling {threads}: `{name}` compares methods, not thread counts; take s1, s2 or hard-gas");
    }
    let b = find(name)?;
    let (mut runs, mut speedups, mut handoffs) = (Vec::new(), Vec::new(), Vec::new());
    let mut cpu_ratios = Vec::new();
    for _ in 0..repeat {
        let (mut walls, mut cpus) = ([0.0; 2], [0.0; 2]);
        for (k, t) in [1, threads].into_iter().enumerate() {
            // Read around the runs on several threads only: Some(reading) for those.
            let before = (t > 1).then(handoff_ns);
            let report = run_apart(b.name, steps, t)?;
            if let Some(before) = before {
                let after = handoff_ns();
                if !json {
                    let ns = |h: Option<f64>| {
                        h.map_or("not measured".into(), |ns| format!("{ns:.0} ns"))
                    };
                    outln!(
                        "hand-off between two threads (one way) around the {t}-thread run: {} before, {} after",
                        ns(before),
                        ns(after)
                    );
                }
                handoffs.push([before, after]);
            }
            if !json {
                let stages = serde_json::from_value(report["stage_s"].clone())
                    .context("reading the run's stage times")?;
                print(&report, stages);
            }
            walls[k] = report["wall_s"].as_f64().unwrap_or(f64::NAN);
            cpus[k] = report["cpu_s"].as_f64().unwrap_or(f64::NAN);
            runs.push(report);
        }
        speedups.push(walls[0] / walls[1]);
        cpu_ratios.push(cpus[1] / cpus[0]);
    }
    let result = |r: &serde_json::Value| {
        [
            "kinetic_translational_j",
            "kinetic_rotational_j",
            "contacts_per_particle",
        ]
        .map(|k| r[k].as_f64().map(f64::to_bits))
    };
    let identical = runs.iter().all(|r| result(r) == result(&runs[0]));
    let (median, cpu_median) = (median(&speedups), median(&cpu_ratios));
    if json {
        let summary = json!({
            "scene": b.name,
            "threads": threads,
            "runs": runs,
            "speedups": speedups,
            "median_speedup": median,
            "cpu_ratios": cpu_ratios,
            "median_cpu_ratio": cpu_median,
            "bit_identical": identical,
            "handoff_ns": handoffs,
        });
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        let each = |v: &[f64]| v.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>();
        outln!(
            "{}: {threads} threads against one: {}× (median {median:.2}×); results {}",
            b.name,
            each(&speedups).join(", "),
            if identical { "bit-identical" } else { "DIFFER" }
        );
        outln!(
            "{}: CPU time (user + system, all threads) on {threads} threads over one: {}× (median {cpu_median:.3}×), the parallel overhead",
            b.name,
            each(&cpu_ratios).join(", "),
        );
    }
    if identical {
        Ok(())
    } else {
        bail!(
            "{}: the runs on 1 and {threads} threads ended with different results",
            b.name
        )
    }
}

/// The median of `v` (NaN when empty).
fn median(v: &[f64]) -> f64 {
    let mut sorted = v.to_vec();
    sorted.sort_by(f64::total_cmp);
    let half = sorted.len() / 2;
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[half],
        _ => 0.5 * (sorted[half - 1] + sorted[half]),
    }
}

/// The time (ns) a write of one thread takes to reach another, one way: two threads take
/// turns to bump one counter, each waiting for the other's bump. Where two cores share a
/// cache it is tens of ns; where a virtual machine's host places them far apart, about 200,
/// and threads that share data then gain less from the second core
/// (docs/performance.md#distant-spells). None with a single core, or when the turns outlast
/// a second (the cores are busy with other work). `--scaling` reads it right before and right
/// after each run on several threads: the host can move the cores within a round.
fn handoff_ns() -> Option<f64> {
    use std::sync::atomic::{AtomicU64, Ordering};
    /// A counter alone on its cache lines.
    #[repr(align(128))]
    struct Line(AtomicU64);
    const TURNS: u64 = 100_000;
    const STOP: u64 = u64::MAX;
    if std::thread::available_parallelism().map_or(1, usize::from) < 2 {
        return None;
    }
    let line = Line(AtomicU64::new(0));
    let start = Instant::now();
    // Waits until the counter reads `want`; false when it reads STOP, or after a second.
    let wait = |want: u64| {
        let mut spins = 0u32;
        loop {
            match line.0.load(Ordering::Acquire) {
                v if v == want => return true,
                STOP => return false,
                _ => std::hint::spin_loop(),
            }
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(4096) && start.elapsed().as_secs_f64() > 1.0 {
                line.0.store(STOP, Ordering::Release);
                return false;
            }
        }
    };
    let took = std::thread::scope(|s| {
        s.spawn(|| {
            for k in 0..TURNS {
                if !wait(2 * k + 1) {
                    return;
                }
                line.0.store(2 * k + 2, Ordering::Release);
            }
        });
        let turn = |k: u64| {
            line.0.store(2 * k + 1, Ordering::Release);
            wait(2 * k + 2)
        };
        // The first half settles the two threads on their cores; the second is timed.
        let settled = (0..TURNS / 2).all(turn);
        let timed = Instant::now();
        (settled && (TURNS / 2..TURNS).all(turn)).then(|| timed.elapsed())
    });
    took.map(|t| t.as_secs_f64() * 1e9 / TURNS as f64)
}

/// Benchmark `name` for `steps` steps on `threads` threads, run by this program in a process
/// of its own: its `--json` report.
fn run_apart(name: &str, steps: Option<u64>, threads: usize) -> Result<serde_json::Value> {
    let exe = std::env::current_exe().context("finding this program to run the benchmark")?;
    let mut command = std::process::Command::new(exe);
    command.args(["--threads", &threads.to_string(), "bench", name, "--json"]);
    if let Some(steps) = steps {
        command.args(["--steps", &steps.to_string()]);
    }
    let out = command
        .output()
        .context("starting a benchmark run of its own")?;
    if !out.status.success() {
        bail!(
            "the run of {name} on {threads} threads failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    serde_json::from_slice(&out.stdout).context("reading a benchmark run's report")
}

/// The built-in benchmark called `name`.
pub(crate) fn find(name: &str) -> Result<&'static Bench> {
    BENCHES
        .iter()
        .find(|b| b.name == name)
        .with_context(|| format!("no benchmark named {name}; `grainflow bench` lists them"))
}

/// One timed run of benchmark `b` for `steps` steps (the scene's own count when `None`) on
/// the current thread pool: the report `--json` prints, and the time per stage.
fn time(b: &Bench, steps: Option<u64>) -> Result<(serde_json::Value, StageTimes)> {
    let scene = Scene::from_toml(b.toml, b.name)?;
    let mut sim = Simulation::new(scene, &data_dir()).context("building the benchmark scene")?;
    let steps = steps.unwrap_or_else(|| sim.total_steps());
    let n = sim.world.particles.len();
    let e0 = sim.energies();
    let (start, cpu) = (Instant::now(), crate::bench_tile::usage().0);
    let set_up = sim.timers();
    let mut max_overlap: f64 = 0.0;
    for _ in 0..steps {
        sim.step()?;
        max_overlap = max_overlap.max(sim.stats.max_overlap_ratio);
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = crate::bench_tile::usage().0 - cpu;
    let threads = rayon::current_num_threads();
    let pair_contacts = sim.world.neighbors.touching();
    let per_step = (n as f64) * steps as f64;
    let e = sim.energies();
    let t_sim = sim.world.time;
    let mut report = json!({
        "scene": b.name,
        "particles": n,
        "steps": steps,
        "threads": threads,
        "wall_s": wall,
        "cpu_s": cpu,
        "particle_steps_per_s": per_step / wall,
        "ns_per_particle_step_core": wall * threads as f64 / per_step * 1e9,
        "contacts_per_particle": 2.0 * pair_contacts as f64 / n as f64,
        "peak_rss_mib": peak_rss_mib(),
        "kinetic_translational_j": e.translational,
        "kinetic_rotational_j": e.rotational,
        "neighbor_builds": sim.world.neighbors.builds,
        "listed_pairs": sim.world.neighbors.len(),
        "stage_s": sim.timers().since(set_up),
    });
    if sim.world.collisions > 0 {
        report["hard_spheres"] = json!({
            "collisions": sim.world.collisions,
            "collisions_per_wall_s": sim.world.collisions as f64 / wall,
            "collisions_per_particle_per_time": 2.0 * sim.world.collisions as f64 / (n as f64 * t_sim),
            "max_overlap_ratio": max_overlap,
            "relative_energy_change": (e.translational + e.rotational) / (e0.translational + e0.rotational) - 1.0,
        });
    }
    Ok((report, sim.timers().since(set_up)))
}

/// A run's report, with its time per stage, as text.
fn print(r: &serde_json::Value, stages: StageTimes) {
    let num = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
    outln!(
        "{}: {} particles, {} steps, {} threads: {:.2} s ({:.2} s CPU), {:.3e} particle-steps/s, {:.1} ns·core per particle-step",
        r["scene"].as_str().unwrap_or("?"),
        r["particles"],
        r["steps"],
        r["threads"],
        num("wall_s"),
        num("cpu_s"),
        num("particle_steps_per_s"),
        num("ns_per_particle_step_core")
    );
    outln!(
        "  contacts/particle {:.3}, KE {:.3e} + {:.3e} J, peak RSS {:.1} MiB, {} neighbour builds",
        num("contacts_per_particle"),
        num("kinetic_translational_j"),
        num("kinetic_rotational_j"),
        num("peak_rss_mib"),
        r["neighbor_builds"]
    );
    outln!("  stages: {stages}");
    if let Some(hard) = r.get("hard_spheres") {
        outln!("  hard spheres: {hard}");
    }
}
