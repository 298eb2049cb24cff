//! The scene's parsing and checks: defaults, typos, refusals, round trips.

use super::*;

#[test]
fn simulation_spec_new_has_the_defaults_of_a_scene_file() {
    let parsed: SimulationSpec = toml::from_str("duration = 2.0\ndt = 1e-5").expect("parses");
    assert_eq!(parsed, SimulationSpec::new(2.0, TimeStep::Fixed(1e-5)));
}

const MINIMAL: &str = r#"
[simulation]
duration = 0.1
dt = "auto"

[contact]
normal = "hertz"

[[materials]]
name = "glass"
density = 2500
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.97
sliding_friction = 0.16

[[walls]]
type = "plane"
material = "glass"
point = [0, 0, 0]
normal = [0, 0, 1]

[[particles]]
type = "list"
material = "glass"
spheres = [{ pos = [0, 0, 1e-3], radius = 5e-4 }]
"#;

#[test]
fn minimal_scene_parses_and_has_no_problems() {
    let s = Scene::from_toml(MINIMAL, "test").expect("parses");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    assert_eq!(s.simulation.dt, TimeStep::Auto(Auto::Auto));
    assert_eq!(s.contact.tangential, crate::contact::Tangential::Spring);
}

#[test]
fn misspelt_key_is_refused_with_its_name() {
    let text = MINIMAL.replace("poisson_ratio", "poisson_ration");
    let e = Scene::from_toml(&text, "test")
        .expect_err("refused")
        .to_string();
    assert!(e.contains("poisson_ration"), "{e}");
}

#[test]
fn misspelt_key_of_a_particle_source_is_refused_with_its_name() {
    let text = MINIMAL.replace("type = \"list\"", "type = \"list\"\ncolour = \"red\"");
    let e = Scene::from_toml(&text, "test")
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("particles[0]") && e.contains("unknown field `colour`"),
        "{e}"
    );
}

#[test]
fn negative_radius_names_the_field() {
    let text = MINIMAL.replace("radius = 5e-4", "radius = -1");
    let s = Scene::from_toml(&text, "test").expect("parses");
    let p = s.problems();
    assert_eq!(p.len(), 1);
    assert_eq!(
        p[0].to_string(),
        "particles[0].spheres[0].radius: must be a finite number > 0, got -1"
    );
}

#[test]
fn units_are_converted_and_a_wrong_dimension_is_refused_naming_the_field() {
    let text = MINIMAL
        .replace(
            "radius = 5e-4",
            "radius = \"0.5 mm\", vel = [\"1 cm/s\", 0, 0]",
        )
        .replace("density = 2500", "density = \"2.5 g/cm^3\"")
        .replace("youngs_modulus = 70e6", "youngs_modulus = \"70 MPa\"")
        .replace("duration = 0.1", "duration = \"100 ms\"");
    let s = Scene::from_toml(&text, "scene.toml").expect("parses");
    assert_eq!(s, {
        let mut plain = Scene::from_toml(MINIMAL, "scene.toml").expect("parses");
        if let ParticleSource::List(l) = &mut plain.particles[0] {
            l.spheres[0].vel = DVec3::new(0.01, 0.0, 0.0);
        }
        plain
    });
    let e = Scene::from_toml(
        &MINIMAL.replace("radius = 5e-4", "radius = \"3 kg\""),
        "scene.toml",
    )
    .expect_err("refused")
    .to_string();
    assert!(!e.contains('\n'), "{e}");
    assert!(
        e.starts_with("scene.toml:")
            && e.contains(
                "particles[0].spheres[0].radius: expected a length (m), got \"3 kg\", a mass (kg)"
            ),
        "{e}"
    );
    // The time step and the skin take units beside "auto".
    let s = Scene::from_toml(
        &MINIMAL.replace("dt = \"auto\"", "dt = \"20 µs\"\nskin = \"0.1 mm\""),
        "scene.toml",
    )
    .expect("parses");
    assert_eq!(s.simulation.dt, TimeStep::Fixed(2e-5));
    assert_eq!(s.simulation.skin, Some(Skin::Fixed(1e-4)));
    let e = Scene::from_toml(
        &MINIMAL.replace("dt = \"auto\"", "dt = \"2 m\""),
        "scene.toml",
    )
    .expect_err("refused")
    .to_string();
    assert!(
        e.contains("simulation.dt: expected a time (s), got \"2 m\", a length (m)"),
        "{e}"
    );
    let e = Scene::from_toml(&MINIMAL.replace("0, 0, 1]", "\"0 m\", 0, 1]"), "scene.toml")
        .expect_err("a wall normal is a direction, no unit")
        .to_string();
    assert!(e.contains("walls[0]"), "{e}");
}

#[test]
fn flores_needs_positive_restitution_and_unknown_material_is_named() {
    let text = MINIMAL
        .replace("\"hertz\"", "\"flores\"")
        .replace("restitution = 0.97", "restitution = 0")
        .replace("material = \"glass\"\npoint", "material = \"steel\"\npoint");
    let s = Scene::from_toml(&text, "test").expect("parses");
    let msgs: Vec<String> = s.problems().iter().map(|e| e.to_string()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("materials[0].restitution: must be > 0")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("walls[0].material: no material named \"steel\"")),
        "{msgs:?}"
    );
}

#[test]
fn method_options_round_trip_and_old_checkpoint_scenes_are_read() {
    let hard = MINIMAL.replace(
        "dt = \"auto\"",
        "dt = 1e-4\nmethod = { hard = { slide_limit = 0.01, collision_log = true } }",
    );
    let s = Scene::from_toml(&hard, "test").expect("parses");
    let text = s.to_toml().expect("writes");
    assert_eq!(s, Scene::from_toml(&text, "again").expect("re-parses"));
    // A checkpoint written before the options moved holds them beside `method`, and the
    // approx_hard table and integrator at their defaults whatever the method.
    let old = MINIMAL
        .replace(
            "dt = \"auto\"",
            "dt = 1e-4\nmethod = \"hard\"\nintegrator = \"velocity_verlet\"\nslide_limit = 0.01\n[simulation.approx_hard]\npasses = 1",
        )
        .replace("[contact]", "[output]\ncollision_log = true\n[contact]");
    assert!(Scene::from_toml(&old, "old").is_err());
    assert_eq!(Scene::from_checkpoint_toml(&old).expect("upgrades"), s);
    assert_eq!(
        Scene::from_checkpoint_toml(&text).expect("reads the new spelling"),
        s
    );
}

#[test]
fn template_round_trips() {
    let s = Scene::from_toml(MINIMAL, "test").expect("parses");
    let again = Scene::from_toml(&s.to_toml().expect("writes"), "again").expect("re-parses");
    assert_eq!(s, again);
}
