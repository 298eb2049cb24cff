//! Periodic images as ghosts: every image a drift can reach is seen.

/// Two spheres of radius 0.02 in a unit periodic cube, 0.48 apart along x and moving apart at
/// 2 m/s each, with `method`, in steps of `dt` (s).
fn two_spheres(method: &str, dt: f64) -> grainflow::sim::Simulation {
    let head = format!(
        "[simulation]\nmethod = {method}\nduration = 0.6\ndt = {dt:e}\n[boundary]\n\
         periodic = {{ x = [0.0, 1.0], y = [0.0, 1.0], z = [0.0, 1.0] }}"
    );
    two_hertz_spheres(
        &head,
        [1.0, 1e9],
        [
            "pos = [0.26, 0.5, 0.5], radius = 0.02, vel = [-2, 0, 0]",
            "pos = [0.74, 0.5, 0.5], radius = 0.02, vel = [2, 0, 0]",
        ],
    )
}

/// The simulation of two Hertz spheres, of one elastic frictionless material of density and
/// Young's modulus `material` (kg/m³, Pa; ν = 0.3), each given by its entry of `spheres`,
/// after the `[simulation]` and `[boundary]` tables `head`.
fn two_hertz_spheres(
    head: &str,
    material: [f64; 2],
    spheres: [&str; 2],
) -> grainflow::sim::Simulation {
    let [density, young] = material;
    let [a, b] = spheres;
    let text = format!(
        r#"{head}
[contact]
normal = "hertz"
[[materials]]
name = "m"
density = {density:e}
youngs_modulus = {young:e}
poisson_ratio = 0.3
restitution = 1.0
sliding_friction = 0.0
[[particles]]
type = "list"
material = "m"
spheres = [{{ {a} }}, {{ {b} }}]
"#
    );
    let scene = grainflow::scene::Scene::from_toml(&text, "ghosts").expect("parses");
    assert!(scene.problems().is_empty(), "{:?}", scene.problems());
    grainflow::sim::Simulation::new(scene, std::path::Path::new(".")).expect("builds")
}

/// The meeting times (s) of the two hard spheres over 0.6 s in steps of `dt` (s).
fn meetings(dt: f64) -> Vec<f64> {
    let mut sim = two_spheres("{ hard = { collision_log = true } }", dt);
    let mut times = Vec::new();
    while sim.world.time < 0.6 - 1e-9 {
        sim.step().expect("steps");
        times.extend(sim.collision_log().iter().map(|c| c.time));
    }
    times
}

/// They meet across the x face at t = 0.12 (the gap of 0.52 − 0.04 closes at 4 m/s), bounce
/// back (elastic, equal masses: they swap velocities) and meet inside the box at 0.35 (a gap
/// of 0.96 − 0.04), then across the face again at 0.58: at every dt, a step of 0.2 or 0.3 s
/// (a drift of more than half the box) as well as a small one.
#[test]
fn two_spheres_meet_across_the_face_and_inside_at_any_dt() {
    for dt in [0.3, 0.2, 0.05, 1e-3] {
        let times = meetings(dt);
        assert_eq!(times.len(), 3, "dt = {dt}: {times:?}");
        for (t, expected) in times.iter().zip([0.12, 0.35, 0.58]) {
            assert!((t - expected).abs() < 1e-12, "dt = {dt}: {times:?}");
        }
    }
}

/// The approximate hard spheres see the meeting across the face too: by t = 0.2 s (before they
/// could meet inside the box) they have collided once and swapped velocities.
#[test]
fn approximate_hard_spheres_meet_across_the_face() {
    for dt in [0.1, 0.01] {
        let mut sim = two_spheres("\"approx_hard\"", dt);
        while sim.world.time < 0.2 - 1e-9 {
            sim.step().expect("steps");
        }
        assert_eq!(sim.world.collisions, 1, "dt = {dt}");
        let v = &sim.world.particles.vel;
        assert!(
            (v[0].x - 2.0).abs() < 1e-12 && (v[1].x + 2.0).abs() < 1e-12,
            "dt = {dt}: {v:?}"
        );
    }
}

/// Two soft spheres of radius r = 0.01 m on the x axis of a box periodic along x only, of
/// period L = 0.036 m (1.8 diameters: under two neighbour cells of 2r + skin), the second
/// L/2 + e from the first with e = 0.001 m. It touches the first directly, d₁ = L/2 + e, and
/// through the face, d₂ = L/2 − e, so each feels two Hertz contacts (002 eq A6),
/// F = 4/3 E* √R* δ^{3/2} with δ = 2r − d, E* = E / (2 (1 − ν²)), R* = r/2, pushing the first
/// grain by F(δ₂) − F(δ₁) along +x (a minimum image would see the nearer contact only).
#[test]
fn soft_spheres_touch_at_both_images_in_a_short_periodic_box() {
    let (r, l, e): (f64, f64, f64) = (0.01, 0.036, 0.001);
    let (young, nu): (f64, f64) = (1e7, 0.3);
    let x0 = 0.005;
    let head = format!(
        "[simulation]\nduration = 1e-3\ndt = 1e-6\nmax_overlap = 1.0\n[boundary]\nperiodic = {{ x = [0.0, {l}] }}"
    );
    let sim = two_hertz_spheres(
        &head,
        [1000.0, young],
        [
            &format!("pos = [{x0}, 0.0, 0.0], radius = {r}"),
            &format!("pos = [{}, 0.0, 0.0], radius = {r}", x0 + 0.5 * l + e),
        ],
    );
    let e_star = young / (2.0 * (1.0 - nu * nu));
    let kn = 4.0 / 3.0 * e_star * (0.5 * r).sqrt();
    let hertz = |d: f64| kn * (2.0 * r - d).powf(1.5);
    let expected = hertz(0.5 * l - e) - hertz(0.5 * l + e);
    let f = &sim.world.particles.force;
    assert_eq!(sim.world.neighbors.touching(), 2);
    assert!(
        (f[0].x - expected).abs() < 1e-9 * expected,
        "{} against {expected}",
        f[0].x
    );
    assert!(f[0].y.abs() + f[0].z.abs() < 1e-12 * expected);
    assert!((f[1] + f[0]).length() < 1e-12 * expected, "{f:?}");
}
