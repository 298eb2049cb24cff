//! `grainflow bench gravity`: scene S3 of the peers' figures (`bench/peers/RESULTS.md`,
//! REBOUND self-gravity), speed and force accuracy of direct, tree and grid gravity.

use std::process::ExitCode;

use anyhow::Result;
use grainflow::gravity::SelfGravityMethod;
use grainflow_validate::bench::gravity::{
    self, GravityBench, REBOUND_TREE_1E5_S_PER_STEP, REBOUND_TREE_MEDIAN_ERROR,
};

/// Opening angle the tree uses for speed in S3: the largest θ whose median error stays below
/// REBOUND's at θ = 0.5 (our cells carry quadrupoles and use Barnes' offset criterion).
const FAST_THETA: f64 = 1.0;
/// CELLS per axis of the grid over REBOUND's root box [−2, 2]³.
const GRID_CELLS: u32 = 32;

/// Scene S3 (REBOUND self-gravity): direct, tree and grid at N = 1e4 and 1e5.
pub fn gravity_s3(json: bool) -> Result<ExitCode> {
    let runs = [
        (SelfGravityMethod::Direct, 10_000, 3),
        (SelfGravityMethod::Tree { theta: 0.5 }, 10_000, 20),
        (SelfGravityMethod::Tree { theta: FAST_THETA }, 10_000, 20),
        (gravity::s3_grid(GRID_CELLS, false), 10_000, 20),
        (gravity::s3_grid(GRID_CELLS, true), 10_000, 20),
        (SelfGravityMethod::Tree { theta: 0.5 }, 100_000, 5),
        (SelfGravityMethod::Tree { theta: FAST_THETA }, 100_000, 5),
        (gravity::s3_grid(GRID_CELLS, false), 100_000, 5),
        (gravity::s3_grid(GRID_CELLS, true), 100_000, 5),
    ];
    let mut rows: Vec<GravityBench> = Vec::new();
    for (method, n, steps) in runs {
        let row = gravity::run(method, n, steps);
        if !json {
            eprintln!(
                "{:<6} {:>5} N = {:>6}: {:.4} s/step, median error {:.2e} (p90 {:.2e}, max {:.2e}, over {} particles), {} threads",
                row.method, row.parameter, row.n, row.seconds_per_step, row.median_rel_err,
                row.p90_rel_err, row.max_rel_err, row.error_sample, row.threads
            );
        }
        rows.push(row);
    }
    let target = REBOUND_TREE_1E5_S_PER_STEP / 5.0;
    let best = rows
        .iter()
        .filter(|r| {
            r.method == "tree" && r.n == 100_000 && r.median_rel_err <= REBOUND_TREE_MEDIAN_ERROR
        })
        .map(|r| r.seconds_per_step)
        .fold(f64::INFINITY, f64::min);
    let pass = best <= target;
    let summary = serde_json::json!({
        "scene": "S3",
        "rebound_tree_1e5_s_per_step": REBOUND_TREE_1E5_S_PER_STEP,
        "rebound_tree_median_rel_err": REBOUND_TREE_MEDIAN_ERROR,
        "target_s_per_step": target,
        "best_tree_1e5_s_per_step_within_error": best,
        "speedup_vs_rebound": REBOUND_TREE_1E5_S_PER_STEP / best,
        "pass": pass,
        "runs": rows,
    });
    if json {
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        outln!(
            "S3 tree at N = 1e5: {best:.3} s/step within REBOUND's error ({:.1}× faster than REBOUND's {REBOUND_TREE_1E5_S_PER_STEP} s; target ≥ 5×): {}",
            REBOUND_TREE_1E5_S_PER_STEP / best,
            if pass { "pass" } else { "NO" }
        );
    }
    Ok(if pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
