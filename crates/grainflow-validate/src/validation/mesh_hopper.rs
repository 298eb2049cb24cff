//! `mesh-hopper`: the conical hopper of `scenes/hopper_mesh.toml` read from its STL file
//! against the same hopper built from the analytic walls (`scenes/hopper_cone.toml`: a `cone`
//! cut to the funnel under a `cylinder` of its top radius), each run with several seeds of the
//! insertion. The discharge rate of a run is the number of grains the absorbing floor takes
//! between two counts over the time it takes them; the mesh's mean rate must lie within twice
//! the pooled standard error of the two means, √(s_m²/k + s_c²/k) (k seeds each, s the
//! sample standard deviations), of the cone's: a two-sample test at about 95 %. The mesh's
//! 32 facets round make its orifice 0.64 % smaller in area than the circle (a regular
//! 32-gon inscribed), so Beverloo's law W ∝ (D − k d)^{5/2} (Nedderman, *Statics and
//! Kinematics of Granular Materials*, 1992, eq 10.10) puts its rate about 1 % lower: within
//! the spread, not a defect. A plane lid closes both at the rim (z = 80 mm): the glass beads
//! are lively (e = 0.97 between beads), and one poured onto the funnel now and then bounced
//! over the rim, to fall outside the mesh's sheet or into the analytic cone's solid side.
//!
//! Quick form: 300 beads of radius 1.0–1.2 mm (D/d ≈ 5.5, so no arches) and Young's modulus
//! 10 MPa (for a step 2.2 times longer) poured into the hopper and discharged, 3 seeds each;
//! rate from the 40th to the 190th grain taken. Full form
//! (`--full`): the shipped scenes as they are (2 400 beads of 3 mm, D/d = 4), 3 seeds each;
//! rate from the 100th to the 400th grain.

use std::path::Path;

use super::Metric;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::walls::trimesh::make::{binary_stl, hopper_mm};
use grainflow::{Error, Result};

const CASE: &str = "mesh-hopper";

/// The hopper as a mesh wall (wall 0 of the scene), as in `scenes/hopper_mesh.toml`.
pub const MESH_WALL: &str = r#"[[walls]]                 # 0: the hopper, a mesh in millimetres
type = "mesh"
material = "wall"
path = "meshes/hopper.stl"
scale = 0.001             # mm to m"#;

/// The hopper from analytic walls, as in `scenes/hopper_cone.toml`.
pub const CONE_WALL: &str = r#"[[walls]]                 # 0: the hopper: a cone under a cylinder
type = "union"
material = "wall"
members = [
    # radius 6 mm + (19/30) z from z = 0 to 30 mm, where it is 25 mm
    { type = "cone", origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0], slope = 0.6333333333333333, radius0 = 0.006, range = [0.0, 0.03] },
    # radius 25 mm from z = 30 mm to 80 mm, a thin tube as the mesh's is a sheet
    { type = "cylinder", origin = [0.0, 0.0, 0.055], axis = [0.0, 0.0, 1.0], radius = 0.025, length = 0.05 },
]"#;

/// What differs between the quick and the full form.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    /// Seeds of the insertion, each run once with each hopper.
    pub seeds: &'static [u64],
    /// Grains poured (at 8000 per second).
    pub grains: usize,
    /// Smallest and largest bead radius (m).
    pub radius: (f64, f64),
    /// Young's modulus of beads and walls (Pa).
    pub youngs_modulus: f64,
    /// Height of the middle of the region the beads are poured from (m).
    pub pour_at: f64,
    /// When the door slides away (s).
    pub door: f64,
    /// Length of a run (s).
    pub duration: f64,
    /// The counts of grains taken by the floor between which the rate is measured.
    pub window: (u64, u64),
}

/// The quick form (cargo test).
pub const QUICK: Form = Form {
    seeds: &[1, 2, 3],
    grains: 300,
    radius: (1.0e-3, 1.2e-3),
    youngs_modulus: 1e7,
    pour_at: 0.05,
    door: 0.12,
    duration: 0.45,
    window: (40, 190),
};

/// The full form: the shipped scenes.
pub const FULL: Form = Form {
    seeds: &[3, 4, 5],
    grains: 2400,
    radius: (1.35e-3, 1.65e-3),
    youngs_modulus: 70e6,
    pour_at: 0.11,
    door: 0.5,
    duration: 2.0,
    window: (100, 400),
};

/// Runs the case, quick or `full`.
pub fn mesh_hopper(full: bool) -> Result<Vec<Metric>> {
    let dir =
        std::env::temp_dir().join(format!("grainflow-validate-hopper-{}", std::process::id()));
    let meshes = dir.join("meshes");
    std::fs::create_dir_all(&meshes).map_err(|e| Error::io(&meshes, e))?;
    let stl = meshes.join("hopper.stl");
    std::fs::write(
        &stl,
        binary_stl(&hopper_mm(), "grainflow hopper_mm(): conical hopper, mm"),
    )
    .map_err(|e| Error::io(&stl, e))?;
    let out = compare(&dir, if full { FULL } else { QUICK });
    std::fs::remove_dir_all(&dir).ok();
    out
}

/// The scene of `form` with hopper `wall` ([`MESH_WALL`] or [`CONE_WALL`]) and `seed`.
pub fn scene(wall: &str, form: &Form, seed: u64) -> Result<Scene> {
    let Form {
        grains,
        radius: (r_min, r_max),
        youngs_modulus,
        pour_at,
        door,
        duration,
        ..
    } = *form;
    let end = grains as f64 / 8000.0;
    let toml = format!(
        r#"
[simulation]
duration = {duration}
dt = "auto"
seed = {seed}
domain = [[-0.05, -0.05, -0.06], [0.05, 0.05, 0.2]]
[contact]
normal = "hertz"
tangential = "spring"
rolling = "constant"
characteristic_velocity = 1.0
[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = {youngs_modulus:e}
poisson_ratio = 0.24
restitution = 0.97
sliding_friction = 0.16
rolling_friction = 0.09
[[materials]]
name = "wall"
youngs_modulus = {youngs_modulus:e}
poisson_ratio = 0.24
restitution = 0.82
sliding_friction = 0.45
rolling_friction = 0.09
[[pairs]]
materials = ["glass", "wall"]
restitution = 0.82
sliding_friction = 0.45
[gravity]
uniform = [0.0, 0.0, -9.81]
{wall}
[[walls]]
type = "disk"
material = "wall"
center = [0.0, 0.0, -0.0002]
normal = [0.0, 0.0, 1.0]
radius = 0.01
motion = {{ type = "translate", velocity = [2.0, 0.0, 0.0], start = {door} }}
[[walls]]
type = "plane"
material = "wall"
point = [0.0, 0.0, -0.04]
normal = [0.0, 0.0, 1.0]
surface = "absorbing"
[[walls]]
type = "plane"
material = "wall"
point = [0.0, 0.0, 0.08]
normal = [0.0, 0.0, -1.0]
[[inserts]]
materials = [{{ name = "glass", fraction = 1.0 }}]
region = {{ cylinder = {{ center = [0.0, 0.0, {pour_at}], axis = [0.0, 0.0, 1.0], radius = 0.02, length = 0.04 }} }}
rate = 8000
start = 0.0
end = {end}
velocity = [0.0, 0.0, -1.0]
velocity_spread = 0.05
size = {{ uniform = {{ min = {r_min}, max = {r_max} }} }}
"#
    );
    Scene::from_toml(&toml, CASE)
}

/// One run: the discharge rate (grains/s) between the counts of `form.window`.
fn rate(dir: &Path, wall: &str, form: &Form, seed: u64) -> Result<f64> {
    let mut sim = Simulation::new(scene(wall, form, seed)?, dir)?;
    let (n0, n1) = form.window;
    let mut at = [None; 2];
    while sim.world.time < form.duration && at[1].is_none() {
        sim.step()?;
        let taken = sim.world.wall_runtime.absorbed[2];
        for (t, n) in at.iter_mut().zip([n0, n1]) {
            if t.is_none() && taken >= n {
                *t = Some(sim.world.time);
            }
        }
    }
    match at {
        [Some(t0), Some(t1)] => Ok((n1 - n0) as f64 / (t1 - t0)),
        _ => Err(Error::scene(
            "simulation.duration",
            format!(
                "seed {seed}: the floor took fewer than {n1} grains in {} s",
                form.duration
            ),
        )),
    }
}

/// Mean and sample standard deviation of `x`.
pub fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// Beverloo's rate through the orifice of diameter D = 12 mm, W = C ρ_b √g (D − k d)^{5/2}
/// (Beverloo, Leniger & van de Velde, Chem. Eng. Sci. 15, 260, 1961; Nedderman eq 10.10) with
/// C = 0.58, k = 1.5, ρ_b = 0.6 ρ_s, in grains per second of the form's mean grain mass: the
/// size of the rate, for a flat-bottomed bin (a cone discharges somewhat faster).
fn beverloo(form: &Form) -> f64 {
    let (a, b) = form.radius;
    let mean_r = 0.5 * (a + b);
    let mean_r3 = (b.powi(4) - a.powi(4)) / (4.0 * (b - a));
    let grain = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * mean_r3;
    let w = 0.58 * 0.6 * 2500.0 * 9.81f64.sqrt() * (0.012 - 1.5 * 2.0 * mean_r).powf(2.5);
    w / grain
}

/// Both hoppers with each seed of `form`, the meshes read from `dir`.
fn compare(dir: &Path, form: Form) -> Result<Vec<Metric>> {
    let mut out = Vec::new();
    let mut stats = Vec::new();
    for (model, wall) in [("mesh", MESH_WALL), ("cone", CONE_WALL)] {
        let rates = form
            .seeds
            .iter()
            .map(|&s| rate(dir, wall, &form, s))
            .collect::<Result<Vec<f64>>>()?;
        let (mean, sd) = mean_sd(&rates);
        for (s, r) in form.seeds.iter().zip(&rates) {
            let what = format!("discharge rate, seed {s}, beside the mean (grains/s)");
            out.push(Metric::report(CASE, model, what, *r, mean));
        }
        let what = "mean discharge rate, beside Beverloo's flat-bottomed rate (grains/s)";
        out.push(Metric::report(CASE, model, what, mean, beverloo(&form)));
        let what = "standard deviation of the rate between seeds (grains/s)";
        out.push(Metric::report(CASE, model, what, sd, 0.0));
        stats.push((mean, sd * sd / rates.len() as f64));
    }
    let pooled = (stats[0].1 + stats[1].1).sqrt();
    out.push(Metric::new(
        CASE,
        "mesh vs cone",
        "mean rate of the mesh hopper minus the cone's, within 2 pooled standard errors (grains/s)",
        stats[0].0 - stats[1].0,
        0.0,
        2.0 * pooled,
    ));
    Ok(out)
}
