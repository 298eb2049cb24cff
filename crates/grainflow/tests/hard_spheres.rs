//! Hard spheres (000 §2): pairs and a plane against eq 1–9, and an elastic gas against Enskog,
//! as in `grainflow validate hard-two-body hard-gas`.

use grainflow::validation::find;

fn run(name: &str) -> usize {
    let case = find(name).expect("case exists");
    let metrics = (case.run)(false).expect("case runs");
    for m in &metrics {
        assert!(
            m.pass,
            "{} {} {}: {} vs {} ± {}",
            m.case, m.model, m.metric, m.value, m.expected, m.tolerance
        );
    }
    metrics.len()
}

#[test]
fn hard_two_body() {
    // Pairs and a plane, 16 walls with six metrics, a sticky wall with four, an absorbing one
    // with three.
    assert_eq!(run("hard-two-body"), 3 * 6 + 4 + 16 * 6 + 4 + 3);
}

#[test]
fn hard_gas() {
    assert_eq!(run("hard-gas"), 2);
}

/// What the hard-sphere method cannot do is refused with the field and the reason.
#[test]
fn unsupported_walls_are_refused() {
    let base = r#"
[simulation]
method = "METHOD"
duration = 1.0
dt = 1e-3
[contact]
normal = "hertz"
[[materials]]
name = "m"
density = 1.0
youngs_modulus = 1e9
poisson_ratio = 0.3
restitution = 1.0
sliding_friction = 0.0
[[walls]]
material = "m"
WALL
[output]
collision_log = true
"#;
    let problems = |method: &str, wall: &str| {
        let text = base.replace("METHOD", method).replace("WALL", wall);
        grainflow::scene::Scene::from_toml(&text, "t")
            .expect("parses")
            .problems()
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    };
    let cone = r#"type = "cone"
origin = [0, 0, 0]
axis = [0, 0, 1]
slope = 0.5
radius0 = 0.1"#;
    let p = problems("hard", cone);
    assert!(p.len() == 1 && p[0].contains("walls[0].type"), "{p:?}");
    // A plate turning about an axis in its plane moves its shape: refused.
    let plate = r#"type = "plate"
center = [0, 0, 0]
normal = [0, 0, 1]
u = [1, 0, 0]
half_size = [1, 1]
motion = { type = "rotate", center = [0, 0, 0], axis = [1, 0, 0], omega = 1.0 }"#;
    let p = problems("hard", plate);
    assert!(
        p.len() == 1 && p[0].contains("walls[0].motion.axis"),
        "{p:?}"
    );
    // A cylinder spinning about its own axis is fine.
    let drum = r#"type = "cylinder"
origin = [0, 1, 0]
axis = [0, 0, 1]
radius = 1.0
motion = { type = "rotate", center = [0, 1, 5], axis = [0, 0, 2], omega = 1.0 }"#;
    assert!(problems("hard", drum).is_empty());
    // The collision log belongs to hard spheres.
    let p = problems("soft", drum);
    assert!(
        p.len() == 1 && p[0].contains("output.collision_log"),
        "{p:?}"
    );
}
