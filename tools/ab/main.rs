//! Two commits' soft-sphere steppers in one process: the base's library and the working
//! tree's, each stepping its own copy of a benchmark scene, in alternate turns of a few steps,
//! each turn timed by the process's CPU clock. Whatever else the machine does then slows both
//! alike, so the ratio holds on a loaded host where runs of two programs one after the other
//! spread by several per cent. `tools/ab.sh` builds it against a base commit and samples
//! memory layouts; see docs/performance.md ("Comparing two commits").

use std::path::Path;

#[cfg(feature = "huge")]
mod huge_pages;

/// CPU seconds of this process so far (all threads).
fn cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + 1e-9 * t.tv_nsec as f64
}

/// The argument at `i`, parsed, or `default`.
fn arg<T: std::str::FromStr>(args: &[String], i: usize, default: T) -> T {
    args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!(
            "usage: ab BASE_SCENES NEW_SCENES SCENE [TURNS] [STEPS_PER_TURN] [PAD_SMALL] [PAD_BIG]"
        );
        std::process::exit(2);
    }
    let (base_dir, new_dir, name) = (Path::new(&args[1]), Path::new(&args[2]), &args[3]);
    let (turns, k): (usize, usize) = (arg(&args, 4, 200), arg(&args, 5, 10));
    // A memory layout of its own: blocks made before the scenes move where theirs land.
    std::mem::forget(vec![1u8; arg(&args, 6, 0)]);
    std::mem::forget(vec![1u8; arg(&args, 7, 0)]);
    let read = |dir: &Path| {
        let file = dir.join(format!("{name}.toml"));
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    };
    let (toml_base, toml_new) = (read(base_dir), read(new_dir));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("one thread");
    pool.install(|| {
        let scene = grainflow_base::scene::Scene::from_toml(&toml_base, name).expect("base scene");
        let mut b = grainflow_base::sim::Simulation::new(scene, base_dir).expect("base run");
        let scene = grainflow::scene::Scene::from_toml(&toml_new, name).expect("new scene");
        let mut n = grainflow::sim::Simulation::new(scene, new_dir).expect("new run");
        let (mut t_base, mut t_new) = (0.0, 0.0);
        for turn in 0..turns {
            // Base first in even turns, new first in odd ones.
            for new in [turn % 2 == 1, turn % 2 == 0] {
                let t0 = cpu();
                for _ in 0..k {
                    match new {
                        true => n.step().expect("new step"),
                        false => b.step().expect("base step"),
                    }
                }
                *(if new { &mut t_new } else { &mut t_base }) += cpu() - t0;
            }
        }
        let per = 1e9 / (n.world.particles.len() * turns * k) as f64;
        println!(
            "{name} base_ns {:.3} new_ns {:.3} ratio {:.4} contacts {} {}",
            t_base * per,
            t_new * per,
            t_new / t_base,
            b.world.neighbors.touching(),
            n.world.neighbors.touching()
        );
    });
}
