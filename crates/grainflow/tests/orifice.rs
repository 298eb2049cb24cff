//! Floors with holes: a grain over the solid part of an annulus (a `disk` with `inner_radius`)
//! or of a plate with a hole comes to rest on it, and a grain smaller than the hole, dropped
//! over its middle, falls through in free fall, z = z₀ − ½ g t² (velocity Verlet is exact
//! under a constant force, so to round-off).

use std::path::Path;

use grainflow::scene::Scene;
use grainflow::sim::Simulation;

const HEAD: &str = r#"
[simulation]
duration = 0.25
dt = "auto"
[contact]
normal = "hertz"
tangential = "spring"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 1e7
poisson_ratio = 0.24
restitution = 0.3
sliding_friction = 0.5
[gravity]
uniform = [0, 0, -9.81]
[[particles]]
type = "list"
material = "glass"
spheres = [{ pos = [0.004, 0.0, 0.0015], radius = 1e-3 }, { pos = [0.0, 0.0, 0.003], radius = 1e-3 }]
"#;

/// Runs the scene with `floor` for its duration; returns (z of the grain over the floor, its
/// speed, z of the grain over the hole, the time).
fn drop_two(floor: &str) -> (f64, f64, f64, f64) {
    let scene = Scene::from_toml(&format!("{HEAD}{floor}"), "orifice").expect("parses");
    assert!(scene.problems().is_empty(), "{:?}", scene.problems());
    let mut sim = Simulation::new(scene, Path::new(".")).expect("builds");
    // Until the free grain is 2 cm below the floor.
    while sim.world.time < 0.06 {
        sim.step().expect("steps");
    }
    // Grains are stored in an order of their own: find them by position.
    let p = &sim.world.particles;
    let (rest, free) = if p.pos[0].x > 0.002 { (0, 1) } else { (1, 0) };
    (
        p.pos[rest].z,
        p.vel[rest].length(),
        p.pos[free].z,
        sim.world.time,
    )
}

fn check(floor: &str) {
    let (z_rest, speed, z_free, t) = drop_two(floor);
    // Resting on the face: centre one radius above it, less an overlap below 1 % of it.
    assert!(z_rest < 1e-3 && z_rest > 0.99e-3, "rests at z = {z_rest}");
    assert!(speed < 1e-3, "still moving at {speed} m/s");
    let expected = 0.003 - 0.5 * 9.81 * t * t;
    assert!(
        (z_free - expected).abs() < 1e-12,
        "free fall through the hole: z = {z_free}, ½ g t² gives {expected}"
    );
}

#[test]
fn annulus_holds_a_grain_and_lets_one_through() {
    check(
        r#"
[[walls]]
type = "disk"
material = "glass"
center = [0, 0, 0]
normal = [0, 0, 1]
radius = 0.01
inner_radius = 0.0015
"#,
    );
}

#[test]
fn plate_with_a_hole_holds_a_grain_and_lets_one_through() {
    check(
        r#"
[[walls]]
type = "plate"
material = "glass"
center = [0, 0, 0]
normal = [0, 0, 1]
u = [1, 0, 0]
half_size = [0.01, 0.01]
holes = [{ at = [0, 0], radius = 0.0015 }]
"#,
    );
}

#[test]
fn holes_outside_the_plate_or_too_wide_are_refused() {
    let bad = format!(
        "{HEAD}[[walls]]\ntype = \"plate\"\nmaterial = \"glass\"\ncenter = [0, 0, 0]\nnormal = [0, 0, 1]\nu = [1, 0, 0]\nhalf_size = [0.01, 0.01]\nholes = [{{ at = [0.009, 0], radius = 0.002 }}]\n[[walls]]\ntype = \"disk\"\nmaterial = \"glass\"\ncenter = [0, 0, 0]\nnormal = [0, 0, 1]\nradius = 0.01\ninner_radius = 0.01\n"
    );
    let s = Scene::from_toml(&bad, "t").expect("parses");
    let msgs: Vec<String> = s.problems().iter().map(|e| e.to_string()).collect();
    assert!(
        msgs.iter().any(|m| m.starts_with("walls[0].holes[0].at:")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.starts_with("walls[1].inner_radius:")),
        "{msgs:?}"
    );
}
