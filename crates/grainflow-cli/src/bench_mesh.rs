//! `grainflow bench mesh`: what a floor of 10⁵ triangles costs against the analytic plane.
//! 10⁴ glass grains (r = 1 mm) rest side by side in one layer on a floor, each touching it, first the plane
//! z = 0, then the same plane as a mesh of 100 352 triangles (a binary STL written to a
//! temporary folder); the two runs step in turns, so that a slow spell of a shared machine
//! falls on both, and the on-CPU time of every thread of the process (`/proc/self/task/*/
//! schedstat`) is summed over each run's turns. The goal: the mesh at most 1.30 × the plane's
//! cost per particle-step.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::walls::trimesh::make;

/// Squares along each side of the mesh floor (two triangles each): 2 × 224² = 100 352.
const SQUARES: usize = 224;
/// Steps per turn of each run.
const TURN: u64 = 20;

/// The scene: 100 × 100 grains side by side (2 mm apart) on the floor `floor` (a wall table).
fn scene(floor: &str) -> String {
    format!(
        r#"
[simulation]
duration = 1.0
dt = "auto"
domain = [[-0.02, -0.02, -0.01], [0.24, 0.24, 0.02]]
[contact]
normal = "hertz"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 7e7
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3
[gravity]
uniform = [0, 0, -9.81]
[[particles]]
type = "lattice"
kind = "cubic"
material = "glass"
min = [0, 0, 0]
max = [0.2001, 0.2001, 0.0021]
radius = 0.001
{floor}
"#
    )
}

/// Nanoseconds every thread of this process has run on a CPU.
fn cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// [`TURN`] steps of `sim`: a function of its own, so that a profiler can mark each turn
/// (`valgrind --tool=callgrind --dump-after='*bench_mesh*run_turn*'`: the plane's turns, then the
/// mesh's, in turns).
#[inline(never)]
fn run_turn(sim: &mut Simulation) -> Result<()> {
    for _ in 0..TURN {
        sim.step()?;
    }
    Ok(())
}

/// Runs the plane and the mesh floor in `turns` turns of [`TURN`] steps each (after one
/// turn each unmeasured) and prints the cost of each per particle-step and their ratio.
pub fn mesh(turns: u64, json: bool) -> Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("grainflow-bench-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).context("a temporary folder for the mesh")?;
    let floor = make::rectangle([-0.01; 2], [0.23; 2], 0.0, SQUARES, SQUARES);
    std::fs::write(dir.join("floor.stl"), make::binary_stl(&floor, "floor"))?;
    let plane = "[[walls]]\ntype = \"plane\"\nmaterial = \"glass\"\npoint = [0, 0, 0]\nnormal = [0, 0, 1]\n";
    let mesh = "[[walls]]\ntype = \"mesh\"\nmaterial = \"glass\"\npath = \"floor.stl\"\n";
    let build = |floor: &str| -> Result<Simulation> {
        let s = Scene::from_toml(&scene(floor), "bench-mesh")?;
        Ok(Simulation::new(s, Path::new(&dir))?)
    };
    let mut sims = [build(plane)?, build(mesh)?];
    std::fs::remove_dir_all(&dir).ok();
    let n = sims[0].world.particles.len();
    let (mut cpu, mut wall) = ([0u64; 2], [0f64; 2]);
    for turn in 0..=turns {
        for (k, sim) in sims.iter_mut().enumerate() {
            let (c0, w0) = (cpu_ns(), Instant::now());
            run_turn(sim)?;
            if turn > 0 {
                cpu[k] += cpu_ns() - c0;
                wall[k] += w0.elapsed().as_secs_f64();
            }
        }
    }
    let steps = (turns * TURN) as f64;
    let per = |t: f64| t / (n as f64 * steps);
    let contacts = sims.each_ref().map(|s| s.stats.wall_contacts);
    let ratio = cpu[1] as f64 / cpu[0] as f64;
    let report = serde_json::json!({
        "particles": n,
        "triangles": floor.len(),
        "steps": steps,
        "threads": rayon::current_num_threads(),
        "wall_contacts": contacts,
        "cpu_ns_per_particle_step": [per(cpu[0] as f64), per(cpu[1] as f64)],
        "wall_ns_per_particle_step": [per(wall[0] * 1e9), per(wall[1] * 1e9)],
        "ratio_cpu": ratio,
        "ratio_wall": wall[1] / wall[0],
        "goal": 1.30,
        "pass": ratio <= 1.30,
    });
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!(
            "mesh: {n} grains on a floor ({:?} touching it), {} steps in turns of {TURN}, {} threads",
            contacts,
            steps,
            rayon::current_num_threads()
        );
        outln!(
            "  plane:                {:.1} ns CPU per particle-step",
            per(cpu[0] as f64)
        );
        outln!(
            "  mesh of {} triangles: {:.1} ns CPU per particle-step",
            floor.len(),
            per(cpu[1] as f64)
        );
        outln!(
            "  mesh / plane: {ratio:.3} CPU, {:.3} wall (goal ≤ 1.30): {}",
            wall[1] / wall[0],
            if ratio <= 1.30 { "pass" } else { "NO" }
        );
    }
    Ok(if ratio <= 1.30 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
