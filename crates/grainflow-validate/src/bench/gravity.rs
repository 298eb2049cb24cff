//! Scene S3 of the peer benchmarks (docs/performance.md, "self-gravity", REBOUND): N equal point masses of
//! total mass 1, G = 1, uniform in the unit ball, at rest, Plummer softening ε = 1e-3,
//! leapfrog (drift–kick–drift) with dt = 1e-3. One warm-up step, then timed steps; force errors
//! are |a − a_direct|/|a_direct| per particle on the initial snapshot.
//!
//! REBOUND draws the points with Python's `random.Random(42 + N)`; here they come from
//! ChaCha8 seeded with 42 + N (the same distribution, not the same points).

use std::time::Instant;

use glam::DVec3;
use rayon::prelude::*;
use serde::Serialize;

use grainflow::fill::random::uniform_ball;
use grainflow::gravity::grid::GridSpec;
use grainflow::gravity::{
    direct, force_errors, Gravity, GravityWork, SelfGravity, SelfGravityMethod,
};

/// Softening of S3.
pub const SOFTENING: f64 = 1e-3;
/// Time step of S3.
pub const DT: f64 = 1e-3;
/// REBOUND's figures for S3 (RESULTS.md): tree θ = 0.5 at N = 1e5, s/step and median error.
pub const REBOUND_TREE_1E5_S_PER_STEP: f64 = 2.28;
/// REBOUND's median relative force error of the tree at θ = 0.5, N = 1e4.
pub const REBOUND_TREE_MEDIAN_ERROR: f64 = 5.26e-3;
/// Particles whose exact force is summed directly to measure errors when N is large.
pub const ERROR_SAMPLE: usize = 2000;

/// One measured configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GravityBench {
    /// "direct", "tree", "grid" (003 §4) or "grid+nb" (with exact neighbouring CELLS).
    pub method: String,
    /// Opening angle (tree) or CELLS per axis over the root box [−2, 2]³ (grid); 0 for direct.
    pub parameter: f64,
    /// Number of particles.
    pub n: usize,
    /// Timed steps.
    pub steps: usize,
    /// Worker threads.
    pub threads: usize,
    /// Wall seconds per step.
    pub seconds_per_step: f64,
    /// Median relative force error against direct summation.
    pub median_rel_err: f64,
    /// 90th percentile of the relative error.
    pub p90_rel_err: f64,
    /// Largest relative error.
    pub max_rel_err: f64,
    /// Particles the error statistics are over (all, or an evenly spaced sample).
    pub error_sample: usize,
}

/// The gravity of S3 with the given method (G = 1, ε = 1e-3).
pub fn s3_gravity(method: SelfGravityMethod) -> Gravity {
    Gravity {
        constant: 1.0,
        self_gravity: Some(SelfGravity {
            method,
            softening: SOFTENING,
        }),
        ..Default::default()
    }
}

/// A grid of `cells`³ CELLS over REBOUND's root box [−2, 2]³, optionally with the 26
/// neighbouring CELLS summed exactly.
pub fn s3_grid(cells: u32, exact_neighbors: bool) -> SelfGravityMethod {
    SelfGravityMethod::Grid(GridSpec {
        min: DVec3::splat(-2.0),
        cell_size: 4.0 / cells as f64,
        cells: [cells; 3],
        exact_neighbors,
    })
}

/// Runs S3 for one method: `steps` timed leapfrog steps after one warm-up step, and the force
/// error of the first evaluation against direct summation (all particles up to 10 000, an
/// evenly spaced sample of [`ERROR_SAMPLE`] above).
pub fn run(method: SelfGravityMethod, n: usize, steps: usize) -> GravityBench {
    let gravity = s3_gravity(method);
    let mut pos = uniform_ball(n, 42 + n as u64);
    let mass = vec![1.0 / n as f64; n];
    let mut vel = vec![DVec3::ZERO; n];
    let mut work = GravityWork::default();
    let mut acc = Vec::new();
    gravity.accelerations(&pos, &mass, &mut work, &mut acc);
    let (sample, exact) = exact_sample(&pos, &mass);
    let approx: Vec<DVec3> = sample.iter().map(|&k| acc[k]).collect();
    let (mut rel, _) = force_errors(&approx, &exact);
    rel.sort_by(f64::total_cmp);
    let mut step = |pos: &mut Vec<DVec3>, vel: &mut Vec<DVec3>| {
        pos.par_iter_mut()
            .zip(vel.par_iter())
            .for_each(|(x, v)| *x += 0.5 * DT * *v);
        gravity.accelerations(pos, &mass, &mut work, &mut acc);
        vel.par_iter_mut()
            .zip(acc.par_iter())
            .for_each(|(v, a)| *v += DT * *a);
        pos.par_iter_mut()
            .zip(vel.par_iter())
            .for_each(|(x, v)| *x += 0.5 * DT * *v);
    };
    step(&mut pos, &mut vel);
    let start = Instant::now();
    for _ in 0..steps {
        step(&mut pos, &mut vel);
    }
    let seconds = start.elapsed().as_secs_f64();
    let (name, parameter) = match method {
        SelfGravityMethod::Direct => ("direct", 0.0),
        SelfGravityMethod::Tree { theta } => ("tree", theta),
        SelfGravityMethod::Grid(g) if g.exact_neighbors => ("grid+nb", g.cells[0] as f64),
        SelfGravityMethod::Grid(g) => ("grid", g.cells[0] as f64),
    };
    GravityBench {
        method: name.into(),
        parameter,
        n,
        steps,
        threads: rayon::current_num_threads(),
        seconds_per_step: seconds / steps as f64,
        median_rel_err: rel[rel.len() / 2],
        p90_rel_err: rel[rel.len() * 9 / 10],
        max_rel_err: rel[rel.len() - 1],
        error_sample: rel.len(),
    }
}

/// Indices of the particles whose errors are measured and their exact accelerations.
fn exact_sample(pos: &[DVec3], mass: &[f64]) -> (Vec<usize>, Vec<DVec3>) {
    let stride = if pos.len() <= 10_000 {
        1
    } else {
        pos.len() / ERROR_SAMPLE
    };
    let sample: Vec<usize> = (0..pos.len()).step_by(stride).collect();
    let eps2 = SOFTENING * SOFTENING;
    let exact = sample
        .par_iter()
        .map(|&k| direct::acceleration_at(1.0, eps2, pos, mass, k))
        .collect();
    (sample, exact)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_ball_fills_the_ball_uniformly() {
        // The mean of r³ over a uniform ball is 1/2 (r³ is uniform on [0, 1]); 4000 points give
        // a standard error of 1/√(12·4000) ≈ 0.0046, so 0.02 is over four of them.
        let p = uniform_ball(4000, 42 + 4000);
        assert!(p.iter().all(|x| x.length() < 1.0));
        let mean: f64 = p.iter().map(|x| x.length().powi(3)).sum::<f64>() / 4000.0;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
    }

    #[test]
    fn small_s3_tree_error_is_below_rebounds() {
        // N = 2000, θ = 0.5: median relative error below REBOUND's 5.26e-3 at the same θ.
        let r = run(SelfGravityMethod::Tree { theta: 0.5 }, 2000, 1);
        assert!(r.median_rel_err < REBOUND_TREE_MEDIAN_ERROR, "{r:?}");
        assert_eq!(r.error_sample, 2000);
    }
}
