//! Part of `mesh`: hard spheres (000) against meshes and the analytic walls they tessellate,
//! the same scene run twice, step by step.
//!
//! 1. **Floor.** Twenty-five glass beads (r = 1 cm, e = 0.8, e_t = 0.9) 15 cm apart thrown down
//!    and sideways (up to 0.1 m/s) onto the plane z = 0 and onto the same plane as 2 000
//!    triangles (1 m square, 50 × 20 squares; 20 000 in the full run): they bounce across
//!    shared edges and vertices, which a flat face hides (`walls::trimesh::sweep`). Every
//!    bead's position agrees to 1e-9 of the bead's radius at every step over 0.6 s, and both
//!    runs count the same collisions. The beads do not meet one another: collisions between
//!    beads would amplify the round-off in which the two walls' arithmetic differs.
//! 2. **Box.** A bead thrown about a 10 cm box under gravity for 0.5 s, the box as six
//!    half-spaces (`block`, `side = "inside"`, which the hard method takes as planes) and as a
//!    12-triangle mesh: positions to 1e-9 of the box's size at every step, through eleven
//!    bounces off its faces, and the same collisions.

use std::path::Path;

use glam::DVec3;
use rand::{RngExt, SeedableRng};

use super::Metric;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::Result;

const CASE: &str = "mesh";
/// Bead radius (m).
const R: f64 = 0.01;
/// Agreement asked of mesh and analytic runs.
const TOL: f64 = 1e-9;

/// Both parts; `floor` (with its number of triangles) and `cube` are the mesh walls' `type` and
/// `path` lines (files in `dir`).
pub fn hard(dir: &Path, (floor, n): (String, usize), cube: &str) -> Result<Vec<Metric>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut beads = Vec::new();
    for (i, j) in (0..25).map(|k| (k % 5, k / 5)) {
        let x = DVec3::new(0.15 * (i as f64 - 2.0), 0.15 * (j as f64 - 2.0), 0.03);
        let u = DVec3::new(rng.random(), rng.random(), rng.random()) * 2.0 - 1.0;
        let v = DVec3::new(0.1 * u.x, 0.1 * u.y, -0.5 - 0.5 * u.z.abs());
        beads.push(bead(x + 0.05 * u.z.abs() * DVec3::Z, v));
    }
    let plane = "type = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 0, 1]";
    let (dx, wide, hits) = lockstep(dir, [plane, &floor], &beads.join(", "), 0.6)?;
    let model = format!("hard spheres, plane as {n} triangles");
    let mut out = vec![
        Metric::at_most(CASE, &model, "largest position difference / r", dx / R, TOL),
        Metric::new(CASE, &model, "collisions", hits[1], hits[0], 0.0),
        // The comparison holds over the mesh only: every bead stays within its rim.
        Metric::at_most(
            CASE,
            &model,
            "farthest bead from the middle (m)",
            wide,
            0.5 - R,
        ),
    ];
    let side = 0.1;
    let one = bead(DVec3::new(0.03, 0.04, 0.05), DVec3::new(1.7, -1.3, 0.9));
    let block = "type = \"block\"\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\nside = \"inside\"";
    let (dx, _, hits) = lockstep(dir, [block, cube], &one, 0.5)?;
    let model = "hard spheres, box as 12 triangles";
    out.push(Metric::at_most(
        CASE,
        model,
        "largest position difference / box size",
        dx / side,
        TOL,
    ));
    out.push(Metric::new(
        CASE,
        model,
        "collisions",
        hits[1],
        hits[0],
        0.0,
    ));
    Ok(out)
}

/// A bead of radius [`R`] at `x` moving at `v`, as TOML.
fn bead(x: DVec3, v: DVec3) -> String {
    format!(
        "{{ radius = {R}, pos = [{}, {}, {}], vel = [{}, {}, {}] }}",
        x.x, x.y, x.z, v.x, v.y, v.z
    )
}

/// A hard-sphere scene of the beads `spheres` (TOML) and one wall of `wall` lines, under
/// gravity, lasting `duration` (s).
fn scene(wall: &str, spheres: &str, duration: f64) -> Result<Scene> {
    let toml = format!(
        r#"
[simulation]
duration = {duration}
dt = 1e-4
[simulation.method.hard]
[contact]
normal = "hertz"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 1e9
poisson_ratio = 0.3
restitution = 0.8
tangential_restitution = 0.9
sliding_friction = 0.3
[gravity]
uniform = [0, 0, -9.81]
[[particles]]
type = "list"
material = "glass"
spheres = [{spheres}]
[[walls]]
material = "glass"
{wall}
"#
    );
    Scene::from_toml(&toml, CASE)
}

/// Runs the scene with each of `walls` side by side to `until` (s): the largest distance
/// between a bead's positions in the two runs at any step, the largest |x| or |y| of a bead in
/// the first, and each run's collisions.
fn lockstep(
    dir: &Path,
    walls: [&str; 2],
    spheres: &str,
    until: f64,
) -> Result<(f64, f64, [f64; 2])> {
    let [a, b] = walls.map(|w| scene(w, spheres, until).and_then(|s| Simulation::new(s, dir)));
    let mut runs = [a?, b?];
    let (mut dx, mut wide) = (0.0f64, 0.0f64);
    while runs[0].world.time < until {
        for run in runs.iter_mut() {
            run.step()?;
        }
        let [a, b] = [&runs[0].world.particles, &runs[1].world.particles];
        for (x, y) in a.pos.iter().zip(&b.pos) {
            dx = dx.max(x.distance(*y));
            wide = wide.max(x.x.abs()).max(x.y.abs());
        }
    }
    Ok((dx, wide, runs.each_ref().map(|r| r.world.collisions as f64)))
}
