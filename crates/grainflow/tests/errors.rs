//! Bad input is refused with a message naming the field; a run that blows up stops with a
//! message naming the particle, the time and the likely cause.

use std::path::Path;

use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::Error;

const SCENE: &str = r#"
[simulation]
duration = 0.1
dt = "auto"

[contact]
normal = "hooke"

[[materials]]
name = "glass"
density = 2500
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3

[[particles]]
type = "list"
material = "glass"
spheres = [
  { pos = [0, 0, 0], radius = 1e-3, vel = [1, 0, 0] },
  { pos = [3e-3, 0, 0], radius = 1e-3, vel = [-1, 0, 0] },
]
"#;

fn build(text: &str) -> grainflow::Result<Simulation> {
    Simulation::new(Scene::from_toml(text, "scene.toml")?, Path::new("."))
}

/// The message that refuses the test scene with `from` replaced by `to`.
fn refusal(from: &str, to: &str) -> String {
    build(&SCENE.replace(from, to))
        .expect_err("refused")
        .to_string()
}

#[test]
fn misspelt_key_is_named_with_its_line() {
    let e = refusal("sliding_friction", "sliding_fricton");
    assert!(
        e.starts_with(
            "scene.toml:15:1: materials[0].sliding_fricton: unknown field `sliding_fricton`"
        ),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
}

#[test]
fn negative_radius_is_named() {
    let e = build(&SCENE.replace("radius = 1e-3, vel = [-1", "radius = -1e-3, vel = [-1"))
        .expect_err("refused");
    assert_eq!(
        e.to_string(),
        "particles[0].spheres[1].radius: must be a finite number > 0, got -0.001"
    );
}

#[test]
fn dt_above_contact_time_limit_is_refused_with_numbers() {
    let sim = build(SCENE).expect("builds");
    let t_c = sim.physics.contact_time;
    let e = build(&SCENE.replace("dt = \"auto\"", &format!("dt = {}", 0.2 * t_c)))
        .expect_err("refused");
    let msg = e.to_string();
    assert!(
        msg.starts_with("simulation.dt: ") && msg.contains("above t_c/10"),
        "{msg}"
    );
    assert!(msg.contains(&format!("{t_c:.3e}")), "{msg}");
    // Exactly t_c/10 is allowed.
    assert!(build(&SCENE.replace("dt = \"auto\"", &format!("dt = {}", 0.1 * t_c))).is_ok());
    // The limit is on the integrator's step: 0.2 t_c in two sub-steps of 0.1 t_c is allowed,
    // 0.3 t_c in two of 0.15 t_c is not; "auto" gives substeps × t_c/15.
    let sub = |dt: &str, n: u32| {
        SCENE.replace(
            "dt = \"auto\"",
            &format!("dt = {dt}\nmethod = {{ soft = {{ substeps = {n} }} }}"),
        )
    };
    assert!(build(&sub(&format!("{}", 0.2 * t_c), 2)).is_ok());
    let msg = build(&sub(&format!("{}", 0.3 * t_c), 2))
        .expect_err("refused")
        .to_string();
    assert!(msg.contains("in 2 sub-steps of"), "{msg}");
    let auto = build(&sub("\"auto\"", 3)).expect("builds");
    assert!((auto.physics.dt / (3.0 * t_c / 15.0) - 1.0).abs() < 1e-12);
}

#[test]
fn blow_up_stops_with_particle_time_and_cause() {
    // Impact at 400 m/s against a stiffness set for 1 m/s: the overlap passes max_overlap.
    let text = SCENE
        .replace("vel = [1, 0, 0]", "vel = [200, 0, 0]")
        .replace("vel = [-1, 0, 0]", "vel = [-200, 0, 0]");
    let mut sim = build(&text).expect("builds");
    let err = loop {
        if let Err(e) = sim.step() {
            break e;
        }
        assert!(sim.world.time < 1e-3, "should have stopped");
    };
    match &err {
        Error::Unstable {
            id, time, reason, ..
        } => {
            assert_eq!(*id, 0);
            assert!(*time > 0.0 && *time < 1e-4);
            assert!(
                reason.contains("overlap") && reason.contains("characteristic_velocity"),
                "{reason}"
            );
        }
        other => panic!("expected Unstable, got {other}"),
    }
    // Nothing non-finite was left in the state.
    assert!(sim.world.particles.pos.iter().all(|p| p.is_finite()));
}

#[test]
fn fixed_spheres_touching_each_other_and_a_wall_are_inert() {
    // Two fixed spheres overlapping each other and the floor: infinite effective mass, no
    // force to integrate; a free sphere resting on them still feels them.
    let text = SCENE
        .replace(
            "  { pos = [0, 0, 0], radius = 1e-3, vel = [1, 0, 0] },\n  { pos = [3e-3, 0, 0], radius = 1e-3, vel = [-1, 0, 0] },",
            "  { pos = [0, 0, 0.9e-3], radius = 1e-3, mobility = \"fixed\" },\n  { pos = [1.9e-3, 0, 0.9e-3], radius = 1e-3, mobility = \"fixed\" },\n  { pos = [0.95e-3, 0, 2.8e-3], radius = 1e-3 },",
        )
        .replace("[[particles]]", "[gravity]\nuniform = [0, 0, -9.81]\n\n[[walls]]\ntype = \"plane\"\nmaterial = \"glass\"\npoint = [0, 0, 0]\nnormal = [0, 0, 1]\n\n[[particles]]");
    let mut sim = build(&text).expect("builds");
    for _ in 0..2000 {
        sim.step().expect("stable");
    }
    let p = &sim.world.particles;
    let (fixed, free) = (p.index_of(0).expect("id 0"), p.index_of(2).expect("id 2"));
    assert_eq!(p.pos[fixed], glam::DVec3::new(0.0, 0.0, 0.9e-3));
    // The free sphere rests on the two fixed ones: supported, so below its start but above them.
    let z = p.pos[free].z;
    assert!(z < 2.8e-3 && z > 2.0e-3, "{z}");
}

#[test]
fn a_fixed_sphere_with_a_velocity_is_refused() {
    let text = SCENE.replace(
        "vel = [1, 0, 0] }",
        "vel = [1, 0, 0], mobility = \"fixed\" }",
    );
    let e = build(&text).expect_err("refused").to_string();
    assert_eq!(
        e,
        "particles[0].spheres[0].vel: a fixed sphere is held in place; give it no velocity or spin"
    );
}

#[test]
fn lattice_velocity_dispersion_is_applied() {
    // A cubic lattice with σ = 0.5 m/s per component: the sample spread of the ~1000 velocity
    // components is σ within 10 % (statistical error ≈ σ/√(2·1000) ≈ 2 %), the mean is zero.
    let text = SCENE.replace(
        "[[particles]]\ntype = \"list\"",
        "[[particles]]\ntype = \"lattice\"\nkind = \"cubic\"\nmaterial = \"glass\"\nradius = 1e-3\nmin = [0.0, 0.0, 0.1]\nmax = [0.014, 0.014, 0.114]\nvelocity_dispersion = 0.5\n\n[[particles]]\ntype = \"list\"",
    );
    let sim = build(&text).expect("builds");
    let p = &sim.world.particles;
    let v: Vec<f64> = (0..p.len())
        .filter(|&k| p.pos[k].z > 0.05)
        .flat_map(|k| p.vel[k].to_array())
        .collect();
    assert_eq!(v.len(), 3 * 343);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
    assert!(mean.abs() < 1e-12, "{mean}");
    assert!((sd - 0.5).abs() < 0.05, "{sd}");
}

#[test]
fn zero_substeps_are_refused_by_name() {
    let e = refusal(
        "dt = \"auto\"",
        "dt = \"auto\"\nmethod = { soft = { substeps = 0 } }",
    );
    assert!(
        e.contains("simulation.method.soft.substeps: must be at least 1"),
        "{e}"
    );
}

#[test]
fn sorting_every_zero_steps_or_for_hard_spheres_is_refused_by_name() {
    let e = refusal("dt = \"auto\"", "dt = \"auto\"\nsort_every = 0");
    assert!(
        e.contains("simulation.sort_every: must be at least 1"),
        "{e}"
    );
    let e = refusal(
        "dt = \"auto\"",
        "dt = 1e-4\nmethod = \"hard\"\nsort_every = 100",
    );
    assert!(
        e.contains("simulation.sort_every: applies to method = \"soft\" only"),
        "{e}"
    );
}

#[test]
fn balancing_by_time_without_balance_every_is_refused_by_name() {
    let e = refusal("dt = \"auto\"", "dt = \"auto\"\nbalance_by = \"time\"");
    assert!(
        e.contains("simulation.balance_by: needs simulation.balance_every"),
        "{e}"
    );
}

#[test]
fn a_skin_for_hard_spheres_is_refused() {
    // The hard-sphere method sizes the skin from the speeds; a set one would be ignored.
    let e = refusal("dt = \"auto\"", "dt = 1e-4\nmethod = \"hard\"\nskin = 1e-4");
    assert!(
        e.contains("simulation.skin: is sized by the hard-sphere method itself"),
        "{e}"
    );
}

#[test]
fn an_automatic_skin_for_approx_hard_and_a_negative_skin_are_refused() {
    // approx_hard widens its own skin; "auto" sizes the skin of soft spheres only.
    let e = refusal(
        "dt = \"auto\"",
        "dt = 1e-4\nmethod = \"approx_hard\"\nskin = \"auto\"",
    );
    assert!(
        e.contains("simulation.skin: \"auto\" sizes the skin of soft spheres"),
        "{e}"
    );
    let e = refusal("dt = \"auto\"", "dt = \"auto\"\nskin = -1e-4");
    assert!(e.contains("simulation.skin"), "{e}");
    // A word other than "auto" is named with its key and what the field takes.
    let e = refusal("dt = \"auto\"", "dt = \"auto\"\nskin = \"fast\"");
    assert!(
        e.contains("simulation.skin: invalid value: string \"fast\", expected a skin in metres (a number or a string with a unit) or \"auto\""),
        "{e}"
    );
}

#[test]
fn options_of_another_method_cannot_be_written() {
    // Each method takes its own options only: slide_limit is not an option of soft spheres.
    let e = refusal(
        "dt = \"auto\"",
        "dt = \"auto\"\nmethod = { soft = { slide_limit = 0.01 } }",
    );
    assert!(
        e.starts_with("scene.toml:5:21: simulation.method.soft.slide_limit: unknown field `slide_limit`, expected `integrator` or `substeps`"),
        "{e}"
    );
    let e = refusal("dt = \"auto\"", "dt = \"auto\"\nmethod = \"hadr\"");
    assert!(
        e.contains("simulation.method: unknown variant `hadr`, expected one of `soft`, `hard`, `approx_hard`"),
        "{e}"
    );
    let e = refusal(
        "dt = \"auto\"",
        "dt = 1e-4\n[simulation.method.approx_hard]\npasses = 0",
    );
    assert!(
        e.contains("simulation.method.approx_hard.passes: must be at least 1"),
        "{e}"
    );
}

#[test]
fn the_old_spelling_of_method_options_is_refused_with_the_new_one() {
    // Each old key, on one line that names the file, the line, the field and the new spelling.
    for (old, field, new) in [
        (
            "method = \"hard\"\nslide_limit = 0.01",
            "simulation.slide_limit",
            "method = { hard = { slide_limit = 0.01 } }",
        ),
        (
            "integrator = \"euler\"\nsubsteps = 2",
            "simulation.integrator",
            "method = { soft = { integrator = \"euler\", substeps = 2 } }",
        ),
        (
            "substeps = 2",
            "simulation.substeps",
            "method = { soft = { substeps = 2 } }",
        ),
        (
            "method = \"approx_hard\"\n[simulation.approx_hard]\npasses = 3",
            "simulation.approx_hard",
            "method = { approx_hard = { passes = 3 } }",
        ),
        (
            "[output]\ncollision_log = true\n[simulation.method.hard]",
            "output.collision_log",
            "method = { hard = { collision_log = true } }",
        ),
    ] {
        let e = Scene::from_toml(
            &SCENE.replace("dt = \"auto\"\n", &format!("dt = 1e-4\n{old}\n")),
            "scene.toml",
        )
        .expect_err("refused")
        .to_string();
        assert!(e.starts_with("scene.toml:"), "{e}");
        assert!(
            e.contains(&format!(
                ": {field}: is now an option of the method; write `{new}`"
            )),
            "{e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
    }
    // An option of another method than the scene's is shown under its own method.
    let e = refusal(
        "dt = \"auto\"",
        "dt = 1e-4\nmethod = \"approx_hard\"\nslide_limit = 0.01",
    );
    assert!(
        e.contains("write `method = { hard = { slide_limit = 0.01 } }`"),
        "{e}"
    );
}

#[test]
fn substeps_split_the_step_and_keep_its_count_and_time() {
    // Two grains in head-on contact: one step of dt in two sub-steps reaches the same time as
    // two steps of dt/2 and counts one step; velocity Verlet's two halves are the same
    // arithmetic, so the states agree bit for bit.
    let one = |text: &str, steps: usize| {
        let mut sim = build(text).expect("builds");
        for _ in 0..steps {
            sim.step().expect("stable");
        }
        sim
    };
    let a = one(
        &SCENE.replace(
            "dt = \"auto\"",
            "dt = 2e-7\nmethod = { soft = { substeps = 2 } }",
        ),
        50,
    );
    let b = one(&SCENE.replace("dt = \"auto\"", "dt = 1e-7"), 100);
    assert_eq!(a.world.step, 50);
    assert_eq!(b.world.step, 100);
    assert_eq!(a.world.particles.pos, b.world.particles.pos);
    assert_eq!(a.world.particles.vel, b.world.particles.vel);
    assert!((a.world.time - b.world.time).abs() < 1e-18);
}

#[test]
fn pebbles_contact_values_are_checked_by_name() {
    let pebbles = r#"normal = { pebbles = { hooke = 1.0e6, vessel_hooke = 1.0e6, dash_pot = 200.0 } }

[contact.tangential.pebbles]
kinetic_friction = 0.4
dash_pot = C_T

[contact.tangential.pebbles.static_friction]
friction = MU_S
hooke = 1.0e6
velocity_max_sqr = 0.01
"#;
    let with = |ct: &str, mu: &str| {
        let contact = pebbles.replace("C_T", ct).replace("MU_S", mu);
        refusal("normal = \"hooke\"\n", &contact)
    };
    assert_eq!(
        with("-200.0", "0.6"),
        "contact.tangential.pebbles.dash_pot: must be a finite number ≥ 0, got -200"
    );
    assert_eq!(
        with("200.0", "nan"),
        "contact.tangential.pebbles.static_friction.friction: must be a finite number ≥ 0, got NaN"
    );
}

/// What the first step of `run` refuses, building (and so `check`) refuses with the same words.
#[test]
fn an_initial_overlap_or_a_grain_outside_the_domain_is_refused_before_the_run() {
    // Radii 1 mm at 1.15 mm apart: the overlap is 0.85 mm, 0.85 of a radius.
    let e = refusal("pos = [3e-3, 0, 0]", "pos = [1.15e-3, 0, 0]");
    assert!(
        e.contains("overlap is 0.850 of its radius (limit simulation.max_overlap"),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
    let e = refusal(
        "dt = \"auto\"\n",
        "dt = \"auto\"\ndomain = [[-1e-2, -1e-2, -1e-2], [2e-3, 1e-2, 1e-2]]\n",
    );
    assert!(e.contains("left the domain at"), "{e}");
    let e = refusal("pos = [3e-3, 0, 0]", "pos = [0, 0, 0]");
    assert_eq!(
        e,
        "particles: particle ids 0 and 1 are at the same centre DVec3(0.0, 0.0, 0.0); a contact there has no normal"
    );
}

#[test]
fn an_absurd_velocity_or_step_count_is_refused() {
    let e = refusal("vel = [1, 0, 0]", "vel = [1e307, 0, 0]");
    assert!(
        e.starts_with("particles: particle id 0 has velocity DVec3(1e307, 0.0, 0.0) m/s"),
        "{e}"
    );
    assert!(e.ends_with("below the speed of light 299792458 m/s"), "{e}");
    let e = refusal("duration = 0.1", "duration = 1e308");
    assert!(
        e.starts_with("simulation.duration: 1e308 s at dt = ")
            && e.ends_with("steps, more than the limit 1e12"),
        "{e}"
    );
}

#[test]
fn a_source_of_too_many_grains_is_refused_before_it_allocates() {
    let random = r#"[[particles]]
type = "random"
material = "glass"
count = 1000000000
radius = 1e-3
min = [-1, -1, -1]
max = [1, 1, 1]
"#;
    let e = refusal("[[particles]]\n", &format!("{random}\n[[particles]]\n"));
    assert_eq!(
        e,
        "particles[0].count: makes about 1.000e9 grains, more than the limit 1e8"
    );
    let layer = r#"[[particles]]
type = "cylinder_layer"
material = "glass"
center = [0, 0, 0]
axis = [0, 0, 1]
radius = 1e308
length = 1e-2
sphere_radius = 1e-3
"#;
    let e = refusal("[[particles]]\n", &format!("{layer}\n[[particles]]\n"));
    assert!(
        e.starts_with("particles[0].sphere_radius: makes about "),
        "{e}"
    );
}
