//! Self-gravity validation on the collapse aggregate of 003 §4.4 (`scenes/collapse.toml`:
//! 3680 grains of 8–9 m, ρ = 3200 kg/m³, 20³ CELLS of 20 m).
//!
//! * gravity-accuracy: forces of the grid (CELL) method and of the tree against direct
//!   summation, as in 003 Figure 13: the fraction of grains whose relative magnitude error
//!   |Δf|/|f_d| is below 5 % (paper: ≈ 70 %) and whose direction error is below 3° (≈ 90 %);
//!   the tree at θ = 0.5 must have a median relative error below 1e-3 (issue 5). The scene's
//!   grid sums the CELLS next to a grain's own exactly: with the paper's local term alone
//!   (its own CELL) eq 52's first-order expansion fails for grains near a CELL face, whose
//!   neighbours across it are closer than the CELL size, and only about 61 % / 78 % of the
//!   grains pass; that variant is shown beside the paper's numbers as `grid-003`.
//! * collapse: the aggregate collapses under its own gravity with and without initial spin;
//!   the centre of mass must stay put and the angular momentum be conserved.

use std::path::Path;
use std::time::Instant;

use glam::DVec3;

use super::Metric;
use grainflow::gravity::grid::GridSpec;
use grainflow::gravity::{force_errors, GravityWork, SelfGravity, SelfGravityMethod};
use grainflow::particles::Mobility;
use grainflow::scene::{ParticleSource, Scene, SphereSpec, TimeStep};
use grainflow::sim::Simulation;
use grainflow::Result;

/// The collapse scene of 003 §4.4.
pub const COLLAPSE_SCENE: &str = include_str!("../../../../scenes/collapse.toml");

fn collapse_scene() -> Result<Scene> {
    Scene::from_toml(COLLAPSE_SCENE, "scenes/collapse.toml")
}

/// Fraction of `values` strictly below `limit`.
fn fraction_below(values: &[f64], limit: f64) -> f64 {
    values.iter().filter(|&&v| v < limit).count() as f64 / values.len() as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The collapse scene with its grains packed into a ball: the `n` sites of an HCP lattice with
/// the scene's spacing (2.2 × the largest radius) nearest to the centre of the box, with the
/// scene's radii — the compact aggregate the collapse forms (003 Figure 12).
fn ball_scene(scene: &Scene, n: usize) -> Result<Scene> {
    let mut cube = scene.clone();
    let Some(ParticleSource::Lattice {
        min, max, material, ..
    }) = cube.particles.first_mut()
    else {
        return Err(grainflow::Error::scene(
            "particles[0]",
            "the collapse scene must start from a lattice",
        ));
    };
    let material = material.clone();
    *min = DVec3::splat(-120.0);
    *max = DVec3::splat(120.0);
    let sim = Simulation::new(cube, Path::new("."))?;
    let p = &sim.world.particles;
    let mut by_distance: Vec<usize> = (0..p.len()).collect();
    by_distance.sort_by(|&a, &b| {
        p.pos[a]
            .length()
            .total_cmp(&p.pos[b].length())
            .then(a.cmp(&b))
    });
    by_distance.truncate(n);
    by_distance.sort_unstable();
    let spheres = by_distance
        .iter()
        .map(|&k| SphereSpec {
            pos: p.pos[k],
            radius: p.radius[k],
            vel: DVec3::ZERO,
            omega: DVec3::ZERO,
            mobility: Mobility::Free,
        })
        .collect();
    let mut ball = scene.clone();
    ball.particles = vec![ParticleSource::List { material, spheres }];
    Ok(ball)
}

/// gravity-accuracy: grid (CELL) and tree forces against direct summation on the collapse
/// aggregate; each prints its cost relative to direct summation. The same configuration
/// serves the quick and the full run (it takes a fraction of a second).
pub fn gravity_accuracy(_full: bool) -> Result<Vec<Metric>> {
    let scene = collapse_scene()?;
    let n = Simulation::new(scene.clone(), Path::new("."))?
        .world
        .particles
        .len();
    let sim = Simulation::new(ball_scene(&scene, n)?, Path::new("."))?;
    let (pos, mass) = (&sim.world.particles.pos, &sim.world.particles.mass);
    let gravity = scene.gravity;
    let Some(SelfGravity {
        method: grid_method,
        softening,
    }) = gravity.self_gravity
    else {
        return Err(grainflow::Error::scene(
            "gravity.self_gravity",
            "the collapse scene must have self-gravity",
        ));
    };
    let evaluate = |method: SelfGravityMethod| {
        let g = grainflow::gravity::Gravity {
            self_gravity: Some(SelfGravity { method, softening }),
            ..gravity
        };
        let mut work = GravityWork::default();
        let mut acc = Vec::new();
        // The first evaluation builds the grid's distance table; the cost is the fastest of
        // the next five (the machine may be shared).
        g.accelerations(pos, mass, &mut work, &mut acc);
        let fastest = (0..5)
            .map(|_| {
                let start = Instant::now();
                g.accelerations(pos, mass, &mut work, &mut acc);
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        (acc, fastest)
    };
    let (exact, t_direct) = evaluate(SelfGravityMethod::Direct);
    let mut out = Vec::new();
    let case = "gravity-accuracy";
    // The paper's own local term (the grain's CELL only) is shown beside 003 Figure 13's
    // figures, not checked; the scene's grid and the tree are checked against them.
    let mut models = Vec::new();
    if let SelfGravityMethod::Grid(g) = grid_method {
        let plain = GridSpec {
            exact_neighbors: false,
            ..g
        };
        models.push(("grid-003", SelfGravityMethod::Grid(plain), false));
    }
    models.push(("grid", grid_method, true));
    models.push(("tree", SelfGravityMethod::Tree { theta: 0.5 }, true));
    for (model, method, checked) in models {
        let (acc, t) = evaluate(method);
        let (rel, angle) = force_errors(&acc, &exact);
        let at_least = |metric: &str, value: f64, bound: f64| {
            if checked {
                Metric::at_least(case, model, metric, value, bound)
            } else {
                Metric::report(case, model, metric, value, bound)
            }
        };
        // 003 §4.4: ≈ 70 % of the grains below 5 % magnitude error and ≈ 90 % below 3°.
        out.push(at_least(
            "fraction |Δf|/|f| < 5 %",
            fraction_below(&rel, 0.05),
            0.70,
        ));
        out.push(at_least(
            "fraction angle < 3°",
            fraction_below(&angle, 3.0),
            0.90,
        ));
        if model == "tree" {
            let med = median(rel);
            out.push(Metric::at_most(case, model, "median |Δf|/|f|", med, 1e-3));
        }
        // Cost relative to direct summation (wall time of one evaluation): must be cheaper.
        let cost = t / t_direct;
        out.push(if checked {
            Metric::at_most(case, model, "cost / direct summation", cost, 1.0)
        } else {
            Metric::report(case, model, "cost / direct summation", cost, 1.0)
        });
    }
    Ok(out)
}

/// Angular momentum Σ m x × v + I ω about the origin (kg m²/s), summed in index order.
pub fn angular_momentum(sim: &Simulation) -> DVec3 {
    let p = &sim.world.particles;
    (0..p.len())
        .map(|k| p.mass[k] * p.pos[k].cross(p.vel[k]) + p.inertia[k] * p.omega[k])
        .fold(DVec3::ZERO, |a, b| a + b)
}

/// Centre of mass (m).
pub fn centre_of_mass(sim: &Simulation) -> DVec3 {
    let p = &sim.world.particles;
    let m: f64 = p.mass.iter().sum();
    (0..p.len()).fold(DVec3::ZERO, |a, k| a + p.mass[k] * p.pos[k]) / m
}

/// Initial spin of the spinning collapse (rad/s), about z (the paper does not give its value;
/// at 200 m the centrifugal acceleration is then a third of the aggregate's gravity).
pub const INITIAL_SPIN: f64 = 1e-4;
/// The paper's mean radius of the final aggregate (m), for the angular velocity scale.
const AGGREGATE_RADIUS: f64 = 150.0;

/// collapse: the aggregate collapses with direct and tree gravity, with and without initial
/// spin. Full: the scene's 3680 grains in two layers for 10 000 s (the collapse ends near
/// 9000 s); quick: a loose ball of the 250 grains nearest the centre, which collapses within
/// a few hundred seconds. dt = 0.25 s (t_c/19) instead of the paper's 0.05 s, to keep runs short.
pub fn collapse(full: bool) -> Result<Vec<Metric>> {
    let mut out = Vec::new();
    for (model, method) in [
        ("direct", SelfGravityMethod::Direct),
        ("tree", SelfGravityMethod::Tree { theta: 0.5 }),
    ] {
        for spin in [0.0, INITIAL_SPIN] {
            out.extend(collapse_run(model, method, spin, full)?);
        }
    }
    Ok(out)
}

/// One collapse run; returns its metrics.
pub fn collapse_run(
    model: &str,
    method: SelfGravityMethod,
    spin: f64,
    full: bool,
) -> Result<Vec<Metric>> {
    let mut scene = collapse_scene()?;
    scene.simulation.dt = TimeStep::Fixed(0.25);
    scene.simulation.duration = if full { 10_000.0 } else { 2400.0 };
    scene.output = Default::default();
    if let Some(s) = &mut scene.gravity.self_gravity {
        s.method = method;
    }
    if !full {
        scene = ball_scene(&scene, 250)?;
    }
    let mut sim = Simulation::new(scene, Path::new("."))?;
    let w = DVec3::new(0.0, 0.0, spin);
    let centre = centre_of_mass(&sim);
    for k in 0..sim.world.particles.len() {
        let x = sim.world.particles.pos[k] - centre;
        sim.world.particles.vel[k] = w.cross(x);
    }
    let (l0, c0) = (angular_momentum(&sim), centre_of_mass(&sim));
    let until = sim.scene.simulation.duration;
    sim.run_until(until, |_| Ok(()))?;
    let (l1, c1) = (angular_momentum(&sim), centre_of_mass(&sim));
    let n = sim.world.particles.len();
    let variant = if spin > 0.0 { "spin" } else { "no spin" };
    let case = "collapse";
    let label = format!("{model}, {variant}");
    // Direct summation and contacts act pair by pair with equal and opposite forces and torques
    // that balance (contact-point lever arms): the centre of mass moves and L changes only by
    // round-off, and issue 5 asks |ΔL|/|L0| ≤ 1e-6. The tree's multipole forces are not
    // pairwise antisymmetric, so momentum and L drift with its force error (median 2.5e-4 at
    // θ = 0.5): its bounds are 1e-3 m and 1e-3.
    let exact = matches!(method, SelfGravityMethod::Direct);
    let (cm_bound, l_bound) = if exact { (4e-4, 1e-6) } else { (1e-3, 1e-3) };
    let mut out = vec![Metric::at_most(
        case,
        model,
        format!("{label}: centre-of-mass drift (m), N = {n}"),
        (c1 - c0).length(),
        cm_bound,
    )];
    if spin > 0.0 {
        out.push(Metric::at_most(
            case,
            model,
            format!("{label}: |ΔL|/|L0|"),
            (l1 - l0).length() / l0.length(),
            l_bound,
        ));
    } else {
        // L0 = 0: the drift as an angular velocity of a solid sphere of the paper's 150 m
        // radius (003 Figure 15 shows variations of order 1e-7 rad/s).
        let m: f64 = sim.world.particles.mass.iter().sum();
        let inertia = 0.4 * m * AGGREGATE_RADIUS * AGGREGATE_RADIUS;
        out.push(Metric::at_most(
            case,
            model,
            format!("{label}: |ΔL|/I (rad/s)"),
            (l1 - l0).length() / inertia,
            1e-7,
        ));
    }
    // An aggregate has formed: grains in contact (a random loose packing has ≈ 4–6 each).
    out.push(Metric::at_least(
        case,
        model,
        format!("{label}: contacts per grain at the end"),
        2.0 * sim.stats.contacts as f64 / n as f64,
        1.0,
    ));
    Ok(out)
}
