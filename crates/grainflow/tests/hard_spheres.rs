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
    assert_eq!(run("hard-two-body"), 3 * 6 + 4);
}

#[test]
fn hard_gas() {
    assert_eq!(run("hard-gas"), 2);
}
