//! `mesh`: triangle-mesh walls against the analytic walls they tessellate, the same scene run
//! twice, once with each, step by step.
//!
//! 1. **Plane.** A glass bead (r = 1 cm, Hertz, e = 0.5, μ = 0.3) on the plane z = 0, on the
//!    same plane as 2 triangles and as 2 000 (50 × 20 squares; 20 000 in the full run): it
//!    bounces (restitution, no gravity), slides without turning to rest (distance, also
//!    against v₀²/(2 μ g) of 002 §4.1.5 to 1 %) and rolls with rolling friction μ_r = 0.1
//!    (deceleration, also against 5/7 μ_r g of 002 §4.1.6 to 1 %). Mesh and plane agree to
//!    1e-9 relative. Rolling runs along y = 0, a line of shared edges through shared vertices
//!    every 2 cm, and along y = 1.23 cm, across shared edges: the largest difference of the
//!    velocity (and r ω) from the plane's at any step is below 1e-9 of v₀, so crossing an edge
//!    or a vertex gives no kick.
//! 2. **Box.** A bead thrown about a 10 cm box under gravity, the box as six half-spaces
//!    (`block`, `side = "inside"`) and as a 12-triangle mesh: the trajectories agree to 1e-9
//!    of the box's size at every step over 0.3 s, through contacts with one, two and three
//!    faces at once.
//! 3. **Cylinder.** A bead at rest inside a horizontal cylinder of radius R_c = 5 cm, gravity
//!    towards the middle of one facet of an N-sided mesh of it (N = 256; 1 024 in the full
//!    run): the facet lies R_c (1 − cos π/N) closer to the axis than the cylinder (its
//!    sagitta, the tessellation's error), and the bead rests that much closer, with the same
//!    overlap, to 1e-9 of R_c.

use std::path::{Path, PathBuf};

use glam::DVec3;

use super::Metric;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::walls::trimesh::make::{ascii_stl, cuboid, frustum, rectangle};
use grainflow::walls::trimesh::read::Corners;
use grainflow::{Error, Result};

const CASE: &str = "mesh";
/// Bead radius (m).
const R: f64 = 0.01;
/// Gravity (m/s²).
const G: f64 = 9.81;
/// Sliding friction.
const MU: f64 = 0.3;
/// Agreement asked of mesh and analytic runs.
const TOL: f64 = 1e-9;

/// Runs the case: quick, or `full` with the finer meshes.
pub fn mesh(full: bool) -> Result<Vec<Metric>> {
    let dir = std::env::temp_dir().join(format!("grainflow-validate-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let out = all(&dir, full);
    std::fs::remove_dir_all(&dir).ok();
    out
}

/// Every part of the case, with its meshes written under `dir`.
fn all(dir: &Path, full: bool) -> Result<Vec<Metric>> {
    let fine = if full { (100, 100) } else { (50, 20) };
    let floors = [(1, 1), fine];
    let mut out = Vec::new();
    let plane = "type = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 0, 1]".to_string();
    let mut floor_mesh = (String::new(), 0);
    for (nx, ny) in floors {
        let tris = rectangle([-0.5; 2], [0.5; 2], 0.0, nx, ny);
        let model = format!("plane as {} triangles", tris.len());
        let mesh = write(dir, &format!("floor{}.stl", tris.len()), &tris)?;
        out.extend(floor(dir, &plane, &mesh, &model)?);
        floor_mesh = (mesh, tris.len());
    }
    let box_mesh = write(dir, "box.stl", &cuboid(DVec3::ZERO, DVec3::splat(0.1)))?;
    out.extend(cube(dir, &box_mesh)?);
    out.extend(super::mesh_hard::hard(dir, floor_mesh, &box_mesh)?);
    out.extend(cylinder(dir, if full { 1024 } else { 256 })?);
    Ok(out)
}

/// Writes `tris` as the ASCII STL `name` in `dir`; the wall's `type` and `path` lines.
fn write(dir: &Path, name: &str, tris: &[Corners]) -> Result<String> {
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, ascii_stl(tris, name)).map_err(|e| Error::io(&path, e))?;
    Ok(format!("type = \"mesh\"\npath = \"{name}\""))
}

/// A scene of one bead of radius [`R`] with the keys `sphere` (TOML), one wall of `wall` lines, gravity
/// `g` and rolling friction `mu_r`, lasting `duration` (s).
fn scene(wall: &str, sphere: &str, g: DVec3, mu_r: f64, duration: f64) -> Result<Scene> {
    let toml = format!(
        r#"
[simulation]
duration = {duration}
dt = "auto"
[contact]
normal = "hertz"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 1e7
poisson_ratio = 0.3
restitution = 0.5
sliding_friction = {MU}
rolling_friction = {mu_r}
[gravity]
uniform = [{}, {}, {}]
[[particles]]
type = "list"
material = "glass"
spheres = [{{ radius = {R}, {sphere} }}]
[[walls]]
material = "glass"
{wall}
"#,
        g.x, g.y, g.z
    );
    Scene::from_toml(&toml, CASE)
}

/// The analytic run and the mesh run of one scene (`wall` and `mesh` its walls, read from
/// `dir`), with the same time step.
fn pair(
    dir: &Path,
    walls: [&str; 2],
    sphere: &str,
    g: DVec3,
    mu_r: f64,
    duration: f64,
) -> Result<[Simulation; 2]> {
    let [a, b] =
        walls.map(|w| scene(w, sphere, g, mu_r, duration).and_then(|s| Simulation::new(s, dir)));
    let (a, b) = (a?, b?);
    if a.physics.dt != b.physics.dt {
        return Err(Error::scene(
            "walls",
            "mesh and analytic runs took different steps",
        ));
    }
    Ok([a, b])
}

/// Steps both runs to `until` (s): the largest difference of the bead's velocity, or of
/// r ω, between them at any step, and of its position.
fn lockstep(runs: &mut [Simulation; 2], until: f64) -> Result<(f64, f64)> {
    let (mut dv, mut dx) = (0.0f64, 0.0f64);
    while runs[0].world.time < until {
        for s in runs.iter_mut() {
            s.step()?;
        }
        let [a, b] = [&runs[0].world.particles, &runs[1].world.particles];
        dv = dv
            .max((a.vel[0] - b.vel[0]).length())
            .max(R * (a.omega[0] - b.omega[0]).length());
        dx = dx.max((a.pos[0] - b.pos[0]).length());
    }
    Ok((dv, dx))
}

/// Bounce, slide and roll on the plane (`plane`) and on the `mesh` of it (`model`).
fn floor(dir: &Path, plane: &str, mesh: &str, model: &str) -> Result<Vec<Metric>> {
    let mut out = Vec::new();
    let down = DVec3::new(0.0, 0.0, -G);
    let walls = [plane, mesh];
    // Bounce: 0.5 m/s onto the floor, no gravity.
    let v0 = 0.5;
    let drop = format!(
        "pos = [0.0123, 0.0456, {}], vel = [0, 0, {}]",
        R + 1e-4,
        -v0
    );
    let mut runs = pair(dir, walls, &drop, DVec3::ZERO, 0.0, 0.02)?;
    lockstep(&mut runs, 0.02)?;
    let e = runs.each_ref().map(|s| s.world.particles.vel[0].z / v0);
    out.push(Metric::new(
        CASE,
        model,
        "restitution",
        e[1],
        e[0],
        TOL * e[0],
    ));
    // Slide without turning: distance.
    let x0 = -0.2;
    let slide = format!("pos = [{x0}, 0.0123, {R}], vel = [1, 0, 0], mobility = \"no_rotation\"");
    let mut runs = pair(dir, walls, &slide, down, 0.0, 0.5)?;
    lockstep(&mut runs, 0.5)?;
    let d = runs.each_ref().map(|s| s.world.particles.pos[0].x - x0);
    out.push(Metric::new(
        CASE,
        model,
        "sliding distance (m)",
        d[1],
        d[0],
        TOL * d[0],
    ));
    let theory = 1.0 / (2.0 * MU * G);
    out.push(Metric::new(
        CASE,
        model,
        "sliding distance vs v0^2/(2 mu g) (m)",
        d[1],
        theory,
        0.01 * theory,
    ));
    for (path, y) in [
        ("along shared edges and over vertices", 0.0),
        ("across shared edges", 0.0123),
    ] {
        out.extend(roll(dir, walls, model, path, y)?);
    }
    Ok(out)
}

/// Rolls a bead at 0.5 m/s along x at height `y` (named `path`) on both floors `walls`:
/// the deceleration while rolling, and the largest difference between the runs.
fn roll(dir: &Path, walls: [&str; 2], model: &str, path: &str, y: f64) -> Result<Vec<Metric>> {
    let (v0, mu_r) = (0.5, 0.1);
    let t1 = v0 / (G * (MU + 2.5 * (MU - mu_r)));
    let v1 = v0 - MU * G * t1;
    let a2 = 5.0 / 7.0 * mu_r * G;
    let t_stop = t1 + v1 / a2;
    let (ta, tb) = (t1 + 0.25 * (t_stop - t1), t1 + 0.75 * (t_stop - t1));
    let bead = format!("pos = [-0.2, {y}, {R}], vel = [{v0}, 0, 0]");
    let down = DVec3::new(0.0, 0.0, -G);
    let mut runs = pair(dir, walls, &bead, down, mu_r, tb)?;
    let (dv_a, _) = lockstep(&mut runs, ta)?;
    let va = runs.each_ref().map(|s| s.world.particles.vel[0].x);
    let (dv_b, _) = lockstep(&mut runs, tb)?;
    let vb = runs.each_ref().map(|s| s.world.particles.vel[0].x);
    let decel = [0, 1].map(|k| (va[k] - vb[k]) / (tb - ta));
    let m = |what: &str| format!("rolling {path}: {what}");
    Ok(vec![
        Metric::new(
            CASE,
            model,
            m("deceleration (m/s^2)"),
            decel[1],
            decel[0],
            TOL * decel[0],
        ),
        Metric::new(
            CASE,
            model,
            m("deceleration vs 5/7 mu_r g (m/s^2)"),
            decel[1],
            a2,
            0.01 * a2,
        ),
        Metric::at_most(
            CASE,
            model,
            m("largest velocity difference / v0"),
            dv_a.max(dv_b) / v0,
            TOL,
        ),
    ])
}

/// A bead thrown about the box [0, 0.1]³ as six half-spaces and as the 12-triangle `mesh`.
fn cube(dir: &Path, mesh: &str) -> Result<Vec<Metric>> {
    let side = 0.1;
    let block = "type = \"block\"\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\nside = \"inside\"";
    let bead = "pos = [0.03, 0.04, 0.05], vel = [0.7, -0.5, 0.3], omega = [3, 1, -2]";
    let down = DVec3::new(0.0, 0.0, -G);
    let mut runs = pair(dir, [block, mesh], bead, down, 0.05, 0.3)?;
    let (_, dx) = lockstep(&mut runs, 0.3)?;
    let model = "box as 12 triangles";
    Ok(vec![Metric::at_most(
        CASE,
        model,
        "largest position difference / box size",
        dx / side,
        TOL,
    )])
}

/// A bead at rest inside a horizontal cylinder (axis x) and inside an `n`-sided mesh of it,
/// gravity towards the middle of one facet.
fn cylinder(dir: &Path, n: usize) -> Result<Vec<Metric>> {
    let rc = 0.05;
    // The frustum's axis z turned onto x (a quarter turn about y): the facet between angles
    // 0 and 2π/n then faces (0, sin π/n, −cos π/n) from the axis.
    let tris = frustum(rc, rc, -0.1, 0.1, n, 1);
    let mesh = format!(
        "{}\nrotate = [0, {}, 0]",
        write(dir, "cylinder.stl", &tris)?,
        std::f64::consts::FRAC_PI_2
    );
    let analytic =
        format!("type = \"cylinder\"\norigin = [0, 0, 0]\naxis = [1, 0, 0]\nradius = {rc}");
    let a = std::f64::consts::PI / n as f64;
    let dir_out = DVec3::new(0.0, a.sin(), -a.cos());
    let at = dir_out * (rc - R);
    let bead = format!("pos = [{}, {}, {}]", at.x, at.y, at.z);
    let mut runs = pair(dir, [&analytic, &mesh], &bead, dir_out * G, 0.0, 0.3)?;
    lockstep(&mut runs, 0.3)?;
    let from_axis = runs.each_ref().map(|s| {
        let p = s.world.particles.pos[0];
        (p.y * p.y + p.z * p.z).sqrt()
    });
    let sagitta = rc * (1.0 - a.cos());
    let model = format!("cylinder as {} triangles", tris.len());
    Ok(vec![Metric::new(
        CASE,
        &model,
        "rest closer to the axis by the sagitta R_c (1 - cos pi/N) (m)",
        from_axis[0] - from_axis[1],
        sagitta,
        TOL * rc,
    )])
}
