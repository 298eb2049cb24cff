//! PEBBLES physics (001 chapter 3): integrators against the damped oscillator, core/shell
//! pebbles, the static-friction validation, and the scene checks that go with them.

use std::path::Path;

use grainflow::scene::{Integrator, Method, Scene, SoftOptions, TimeStep};
use grainflow::sim::Simulation;
use grainflow_validate::validation;
use grainflow_validate::validation::pebbles_friction::incline_scene;

/// A pebble (r = 0.02 m, 1000 kg/m³) pressed into the floor by gravity and released from
/// `amplitude` below its static overlap, rotation locked, with the PEBBLES normal force
/// h = 1e6 N/m, C⊥ = 20 N s/m; returns its height after 2 ms with `integrator` and `dt`.
fn oscillator(integrator: &str, dt: f64) -> (f64, f64) {
    let (h, c, r, rho, g) = (1e6_f64, 20.0_f64, 0.02_f64, 1000.0_f64, 9.81_f64);
    let m = 4.0 / 3.0 * std::f64::consts::PI * r.powi(3) * rho;
    let d_eq = m * g / h;
    let amplitude = 0.5 * d_eq;
    let text = format!(
        r#"
[simulation]
duration = 2e-3
dt = {dt:e}
method = {{ soft = {{ integrator = "{integrator}" }} }}

[contact]
normal = {{ pebbles = {{ hooke = {h:e}, vessel_hooke = {h:e}, dash_pot = {c:e} }} }}
tangential = "none"
rolling = "none"
twisting = "none"

[gravity]
uniform = [0, 0, -9.81]

[[materials]]
name = "pebble"
density = {rho:e}
youngs_modulus = 1e9
poisson_ratio = 0.3
restitution = 0.5
sliding_friction = 0.6

[[walls]]
type = "plane"
material = "pebble"
point = [0, 0, 0]
normal = [0, 0, 1]

[[particles]]
type = "list"
material = "pebble"
spheres = [{{ pos = [0, 0, {z:e}], radius = {r:e}, mobility = "no_rotation" }}]
"#,
        z = r - d_eq - amplitude
    );
    let scene = Scene::from_toml(&text, "oscillator").expect("parses");
    let mut sim = Simulation::new(scene, Path::new(".")).expect("builds");
    sim.run_until(2e-3, |_| Ok(())).expect("runs");
    let t = sim.world.time;
    // u = δ − δ_eq obeys m ü = −h u − C u̇ (001 eq 3.7): u = A e^{−γt}(cos ω t + γ/ω sin ω t).
    let gamma = c / (2.0 * m);
    let w = (h / m - gamma * gamma).sqrt();
    let u = amplitude * (-gamma * t).exp() * ((w * t).cos() + gamma / w * (w * t).sin());
    let exact = r - d_eq - u;
    (sim.world.particles.pos[0].z, exact)
}

#[test]
fn integrators_converge_at_their_order() {
    // Error at 2 ms for dt and dt/2: the ratio is 2^p with p = 1 (Euler, 001 eq 3.17),
    // 4 (Runge–Kutta, Adams–Bashforth, Adams–Moulton), within ±0.35; and 1 for velocity
    // Verlet here, whose dashpot sees the half-step velocity (soft.rs), first order in C⊥.
    for (name, p, dt) in [
        ("euler", 1.0, 1e-6),
        ("velocity_verlet", 1.0, 2e-5),
        ("runge_kutta", 4.0, 4e-5),
        ("adams_bashforth", 4.0, 2e-5),
        ("adams_moulton", 4.0, 2e-5),
    ] {
        let err = |dt: f64| {
            let (z, exact) = oscillator(name, dt);
            (z - exact).abs()
        };
        let (e1, e2) = (err(dt), err(0.5 * dt));
        let order = (e1 / e2).log2();
        assert!(
            (order - p).abs() < 0.35,
            "{name}: errors {e1:e}, {e2:e}, order {order}"
        );
    }
}

#[test]
fn core_shell_pebble_mass_enters_the_simulation() {
    // 001 eq 3.5–3.6 with the §8 sample pebble: m = 0.012 π kg, I = 8/15 π 3.3e-6 kg m².
    let scene = incline_scene(0.0, Integrator::Euler, 1e-4, 0.1).expect("scene");
    let sim = Simulation::new(scene, Path::new(".")).expect("builds");
    let p = &sim.world.particles;
    let pi = std::f64::consts::PI;
    assert!((p.mass[0] / (0.012 * pi) - 1.0).abs() < 1e-14);
    assert!((p.inertia[0] / (8.0 / 15.0 * pi * 3.3e-6) - 1.0).abs() < 1e-14);
}

#[test]
fn scene_refuses_bad_pebbles_settings() {
    // A core as large as the pebble, and Runge–Kutta with the spring slot, are named.
    let mut scene = incline_scene(0.0, Integrator::Euler, 1e-4, 0.1).expect("scene");
    scene.materials[0].core.as_mut().expect("core").radius = 0.02;
    let e = Simulation::new(scene, Path::new("."))
        .expect_err("refused")
        .to_string();
    assert!(
        e.starts_with("materials[0].core.radius: 0.02 m is not below"),
        "{e}"
    );
    let mut scene = incline_scene(0.0, Integrator::RungeKutta, 1e-4, 0.1).expect("scene");
    scene.contact.tangential = grainflow::contact::Tangential::Spring;
    let msgs: Vec<String> = scene.problems().iter().map(|e| e.to_string()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("simulation.method.soft.integrator: runge_kutta and adams_*")),
        "{msgs:?}"
    );
    // The samples' alpha = 1e-4 s is about t_c/6: refused by the default accuracy rule.
    let mut scene = incline_scene(0.0, Integrator::Euler, 1e-4, 0.1).expect("scene");
    scene.simulation.dt_limit = Default::default();
    scene.simulation.dt = TimeStep::Fixed(1e-4);
    let e = Simulation::new(scene, Path::new("."))
        .expect_err("refused")
        .to_string();
    assert!(
        e.starts_with("simulation.dt: 1.000e-4 s is above t_c/10"),
        "{e}"
    );
}

#[test]
fn euler_and_runge_kutta_resume_bit_for_bit() {
    // A sliding pebble (θ = 40°) with static friction history: 0.1 s straight, or 0.05 s,
    // checkpoint, resume, 0.05 s, give identical bits.
    for integrator in [Integrator::Euler, Integrator::RungeKutta] {
        let scene = incline_scene(40f64.to_radians(), integrator, 1e-4, 0.1).expect("scene");
        let mut straight = Simulation::new(scene.clone(), Path::new(".")).expect("builds");
        straight.run_until(0.1, |_| Ok(())).expect("runs");
        let mut first = Simulation::new(scene.clone(), Path::new(".")).expect("builds");
        first.run_until(0.05, |_| Ok(())).expect("runs");
        let mut resumed =
            Simulation::resume(scene, Path::new("."), first.checkpoint()).expect("resumes");
        resumed.run_until(0.1, |_| Ok(())).expect("runs");
        let (a, b) = (&straight.world.particles, &resumed.world.particles);
        assert_eq!(
            a.pos[0].to_array().map(f64::to_bits),
            b.pos[0].to_array().map(f64::to_bits)
        );
        assert_eq!(
            a.vel[0].to_array().map(f64::to_bits),
            b.vel[0].to_array().map(f64::to_bits)
        );
    }
}

#[test]
fn pebbles_friction_validation_passes() {
    // 001 §3.5: creep < 1e-6 m in 1 s below the friction angle, a = g (sin θ − μ_k cos θ)
    // above it (Verlet and the samples' Euler), and the pile angle rises with μ.
    let metrics = validation::pebbles_friction::pebbles_friction(false).expect("runs");
    assert_eq!(metrics.len(), 7);
    let failed: Vec<_> = metrics.iter().filter(|m| !m.pass).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn wear_of_a_sliding_pebble_is_normal_force_to_the_exponent_times_distance() {
    // 001 §4.3: wear = Σ |F⊥|^e |v∥| dt. A pebble sliding down a 40° incline (rotation locked)
    // presses with |F⊥| = m g cos θ, so its wall wear is (m g cos θ)^e × the distance slid
    // (within 1e-3: the normal force settles from the start); no pebble–pebble wear; the
    // sliding speed stays below 1 m/s in 0.3 s, so everything is in the first speed bin.
    let theta = 40f64.to_radians();
    let mut scene = incline_scene(theta, Integrator::Euler, 1e-4, 0.3).expect("scene");
    scene.output.tallies = Some(grainflow::io::tallies::TalliesSpec {
        energy_interval: Some(0.1),
        velocity: Some(grainflow::io::tallies::Cadence {
            start: 0.0,
            interval: 0.1,
        }),
        wear: Some(grainflow::io::tallies::WearSpec {
            exponent: 2.0 / 3.0,
            velocity_bins: vec![1.0, 2.0],
        }),
        force: Some(Default::default()),
        probability: Some(grainflow::io::tallies::ProbabilitySpec {
            start: 0.0,
            interval: 0.1,
            cell: 0.04,
        }),
    });
    let dir = std::env::temp_dir().join(format!("grainflow-wear-{}", std::process::id()));
    let mut sim = Simulation::new(scene, Path::new(".")).expect("builds");
    let x0 = sim.world.particles.pos[0].x;
    let mut out = grainflow::io::Outputs::new(&dir, &sim).expect("outputs");
    sim.run_until(0.3, |s| out.observe(s)).expect("runs");
    out.finish(&sim).expect("writes");
    let slid = sim.world.particles.pos[0].x - x0;
    let m = sim.world.particles.mass[0];
    let expected = (m * 9.81 * theta.cos()).powf(2.0 / 3.0) * slid;
    let wear = std::fs::read_to_string(dir.join("wear.csv")).expect("wear.csv");
    let rows: Vec<Vec<String>> = wear
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    assert_eq!(rows.len(), 6, "{wear}");
    let value = |r: &Vec<String>| r[3].parse::<f64>().expect("number");
    assert!(
        (value(&rows[3]) / expected - 1.0).abs() < 1e-3,
        "{wear} vs {expected}"
    );
    assert_eq!(value(&rows[0]) + value(&rows[4]) + value(&rows[5]), 0.0);
    // Energy rows at 0.1, 0.2, 0.3 s. The force tally's last cell (reached once sliding faster
    // than v_max) holds the contact force: normal m g cos θ and kinetic friction μ_k m g cos θ.
    let energy = std::fs::read_to_string(dir.join("energy.csv")).expect("energy.csv");
    assert_eq!(energy.lines().count(), 4, "{energy}");
    let force = std::fs::read_to_string(dir.join("force_tally.csv")).expect("force_tally.csv");
    let f: f64 = force
        .lines()
        .last()
        .expect("row")
        .split(',')
        .nth(5)
        .expect("col")
        .parse()
        .expect("number");
    let contact = m * 9.81 * theta.cos() * (1.0f64 + 0.16).sqrt();
    assert!((f / contact - 1.0).abs() < 1e-3, "{force} vs {contact}");
    // Probability table: tallies at 0, 0.1, 0.2, 0.3 s; the pebble accelerates at
    // g (sin θ − μ_s cos θ) = 1.80 m/s² up to v_max = 0.1 m/s, then at 3.30 m/s², so it is at
    // x ≈ 0.010, 0.051, 0.126 m: cells 0 → 0 → 1 → 3 of 0.04 m, three moves.
    let table = std::fs::read_to_string(dir.join("probability_table.csv")).expect("table");
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(rows[0].starts_with("0,0,0,0,0,0,1,0.500000"), "{table}");
    assert!(rows[1].starts_with("0,0,0,1,0,0,1,0.500000"), "{table}");
    assert!(rows[2].starts_with("1,0,0,3,0,0,1,1.000000"), "{table}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn pebble_bed_scene_builds_with_sample_pebbles() {
    // scenes/pebble-bed.toml: 400 pebbles of the 001 §8 samples, m = 0.012 π kg (eq 3.5),
    // Euler at alpha = 1e-4 s accepted under dt_limit = "contact_time".
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/pebble-bed.toml");
    let scene = Scene::load(&path).expect("parses");
    assert_eq!(
        scene.simulation.method,
        Method::Soft(SoftOptions {
            integrator: Integrator::Euler,
            substeps: 2
        })
    );
    let sim = Simulation::new(scene, Path::new(".")).expect("builds");
    assert_eq!(sim.world.particles.len(), 400);
    let m = sim.world.particles.mass[0];
    assert!((m / (0.012 * std::f64::consts::PI) - 1.0).abs() < 1e-14);
    assert!(sim.physics.dt < sim.physics.contact_time);
}
