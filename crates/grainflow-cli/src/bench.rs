//! `grainflow bench`: the peers' benchmark scenes (shared/peers/RESULTS.md), timed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use serde_json::json;

/// A built-in benchmark: its scene and the folder its data files are read from.
struct Bench {
    name: &'static str,
    about: &'static str,
    toml: &'static str,
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
fn data_dir() -> PathBuf {
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
}

/// Runs benchmark `name` for `steps` steps (the scene's own count when `None`).
pub fn run(name: &str, steps: Option<u64>, json: bool) -> Result<()> {
    let Some(b) = BENCHES.iter().find(|b| b.name == name) else {
        bail!("no benchmark named {name}; `grainflow bench` lists them");
    };
    let scene = Scene::from_toml(b.toml, b.name)?;
    let mut sim = Simulation::new(scene, &data_dir()).context("building the benchmark scene")?;
    let steps = steps.unwrap_or_else(|| sim.total_steps());
    let n = sim.world.particles.len();
    let e0 = sim.energies();
    let start = Instant::now();
    let mut max_overlap: f64 = 0.0;
    for _ in 0..steps {
        sim.step()?;
        max_overlap = max_overlap.max(sim.stats.max_overlap_ratio);
    }
    let wall = start.elapsed().as_secs_f64();
    let threads = rayon::current_num_threads();
    let pair_contacts = sim.world.neighbors.touching();
    let per_step = (n as f64) * steps as f64;
    let e = sim.energies();
    let t = sim.world.timers;
    let t_sim = sim.world.time;
    let hard = json!({
        "collisions": sim.world.collisions,
        "collisions_per_wall_s": sim.world.collisions as f64 / wall,
        "collisions_per_particle_per_time": 2.0 * sim.world.collisions as f64 / (n as f64 * t_sim),
        "max_overlap_ratio": max_overlap,
        "relative_energy_change": (e.translational + e.rotational) / (e0.translational + e0.rotational) - 1.0,
    });
    let mut report = json!({
        "scene": b.name,
        "particles": n,
        "steps": steps,
        "threads": threads,
        "wall_s": wall,
        "particle_steps_per_s": per_step / wall,
        "ns_per_particle_step_core": wall * threads as f64 / per_step * 1e9,
        "contacts_per_particle": 2.0 * pair_contacts as f64 / n as f64,
        "peak_rss_mib": peak_rss_mib(),
        "kinetic_translational_j": e.translational,
        "kinetic_rotational_j": e.rotational,
        "neighbor_builds": sim.world.neighbors.builds,
        "listed_pairs": sim.world.neighbors.len(),
        "stage_s": t,
    });
    if sim.world.collisions > 0 {
        report["hard_spheres"] = hard.clone();
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!(
            "{}: {n} particles, {steps} steps, {threads} threads: {wall:.2} s, {:.3e} particle-steps/s, {:.1} ns·core per particle-step",
            b.name,
            per_step / wall,
            wall * threads as f64 / per_step * 1e9
        );
        outln!(
            "  contacts/particle {:.3}, KE {:.3e} + {:.3e} J, peak RSS {:.1} MiB, {} neighbour builds",
            2.0 * pair_contacts as f64 / n as f64,
            e.translational,
            e.rotational,
            peak_rss_mib(),
            sim.world.neighbors.builds
        );
        outln!("  stages: {t}");
        if sim.world.collisions > 0 {
            outln!("  hard spheres: {hard}");
        }
    }
    Ok(())
}
