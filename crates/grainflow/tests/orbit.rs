//! A scene without contacts: two grains in a circular orbit about each other under their own
//! gravity, written with no `[contact]` table and no elastic constants, at `dt = "auto"`.
//! The step is η √(3 / (4π G ρ)) (`timestep::orbital_step`), and the period over 100 orbits
//! is Kepler's, T = 2π √(a³ / G (m₁ + m₂)), to 1e-4.

use std::path::Path;

use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::timestep::ORBIT_FRACTION;

/// Radius (m) and density (kg/m³) of the grains: mass 1 kg each with G = 1.
const R: f64 = 0.1;
const RHO: f64 = 1.0 / (4.0 / 3.0 * std::f64::consts::PI * R * R * R);

/// Two grains of 1 kg `a` apart, each at `speed` × ½ √(G M / a) about their centre.
fn binary(duration: f64, a: f64, speed: f64) -> Scene {
    let v = 0.5 * speed * (2.0f64 / a).sqrt();
    let text = format!(
        r#"
[simulation]
duration = {duration}
dt = "auto"
[[materials]]
name = "rock"
density = {RHO}
[gravity]
constant = 1.0
self_gravity = {{ method = "direct" }}
[[particles]]
type = "list"
material = "rock"
spheres = [{{ pos = [{x}, 0, 0], radius = {R}, vel = [0, {v}, 0] }}, {{ pos = [{mx}, 0, 0], radius = {R}, vel = [0, {mv}, 0] }}]
"#,
        x = 0.5 * a,
        mx = -0.5 * a,
        mv = -v
    );
    let s = Scene::from_toml(&text, "binary").expect("parses");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    s
}

#[test]
fn a_binary_keeps_keplers_period_over_100_orbits_at_the_automatic_step() {
    // a = 0.5 m: 2.5 times the distance at which they would touch.
    let a: f64 = 0.5;
    let period = std::f64::consts::TAU * (a.powi(3) / 2.0).sqrt();
    let mut sim = Simulation::new(binary(100.5 * period, a, 1.0), Path::new(".")).expect("builds");
    let expected_dt = ORBIT_FRACTION * (3.0 / (4.0 * std::f64::consts::PI * RHO)).sqrt();
    assert!(
        (sim.physics.dt - expected_dt).abs() < 1e-15 * expected_dt,
        "dt = {}",
        sim.physics.dt
    );
    // The angle of the separation, unwrapped, until it has turned 100 times.
    let angle = |s: &Simulation| {
        let p = &s.world.particles;
        let k = if p.id[0] == 0 { [0, 1] } else { [1, 0] };
        let d = p.pos[k[0]] - p.pos[k[1]];
        d.y.atan2(d.x)
    };
    let (mut turned, mut last, mut t_last) = (0.0, angle(&sim), 0.0);
    let goal = 100.0 * std::f64::consts::TAU;
    let t100 = loop {
        sim.step().expect("steps");
        let now = angle(&sim);
        let mut d = now - last;
        if d < -std::f64::consts::PI {
            d += std::f64::consts::TAU;
        }
        if turned + d >= goal {
            break t_last + (goal - turned) / d * (sim.world.time - t_last);
        }
        turned += d;
        last = now;
        t_last = sim.world.time;
    };
    let error = (t100 / 100.0 - period).abs() / period;
    eprintln!(
        "period over 100 orbits {:.9} s, Kepler {period:.9} s, relative error {error:.2e}",
        t100 / 100.0
    );
    assert!(
        error < 1e-4,
        "period {:.9} s against Kepler's {period:.9} s: {error:.2e}",
        t100 / 100.0
    );
}

#[test]
fn grains_that_touch_without_a_contact_law_stop_the_run() {
    // Released at rest 0.3 m apart, they fall together and touch within a free-fall time.
    let mut sim = Simulation::new(binary(5.0, 0.3, 0.0), Path::new(".")).expect("builds");
    let e = loop {
        if let Err(e) = sim.step() {
            break e.to_string();
        }
        assert!(sim.world.time < 5.0, "never touched");
    };
    assert!(e.contains("no contact law"), "{e}");
}

#[test]
fn a_contact_law_needs_the_elastic_constants() {
    let text = binary(1.0, 1.0, 1.0).to_toml().expect("writes");
    assert!(text.contains("normal = \"none\""), "{text}");
    let with_contact = text.replace("normal = \"none\"", "normal = \"hertz\"");
    let s = Scene::from_toml(&with_contact, "t").expect("parses");
    let msgs: Vec<String> = s.problems().iter().map(|e| e.to_string()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("materials[0].youngs_modulus: is needed by the contact law")),
        "{msgs:?}"
    );
}
