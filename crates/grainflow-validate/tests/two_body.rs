//! The seven two-body tests of 002 §4 at the tolerances of VALIDATION.md, as in
//! `grainflow validate normal-stack cohesion restitution oblique-impact sliding rolling spinning`.

use grainflow_validate::validation::{find, Metric};

fn run(name: &str) -> Vec<Metric> {
    let case = find(name).expect("case exists");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    let metrics = pool.install(|| (case.run)(false)).expect("case runs");
    assert!(!metrics.is_empty());
    for m in &metrics {
        assert!(
            m.pass,
            "{} {} {}: {} vs {} ± {}",
            m.case, m.model, m.metric, m.value, m.expected, m.tolerance
        );
    }
    metrics
}

#[test]
fn normal_stack() {
    assert_eq!(run("normal-stack").len(), 12);
}

#[test]
fn cohesion() {
    assert_eq!(run("cohesion").len(), 9);
}

#[test]
fn restitution() {
    // 21 values each for Hooke and Hertz, e ≥ 0.05 for Flores (it refuses 0).
    assert_eq!(run("restitution").len(), 21 + 21 + 20);
}

#[test]
fn restitution_dt() {
    // Four models at e = 0.1 … 0.9: every run equals the step's map, the mean of 16 phases is
    // within 2 % of e, the lowest and highest shown; Flores also within 0.2 % at every phase.
    let metrics = run("restitution-dt");
    assert_eq!(metrics.len(), 4 * 5 * 4 + 5);
    let means = metrics.iter().filter(|m| m.metric.contains("mean e'"));
    assert_eq!(means.filter(|m| m.expected == 0.02).count(), 4 * 5);
    let flores = metrics.iter().filter(|m| m.model == "flores");
    assert_eq!(flores.filter(|m| m.metric.contains("worst")).count(), 5);
}

#[test]
fn oblique_impact() {
    // Angles 66°…88° past φ_th = 64.54°, two metrics each, three models.
    assert_eq!(run("oblique-impact").len(), 3 * 2 * 12);
}

#[test]
fn sliding() {
    assert_eq!(run("sliding").len(), 3);
}

#[test]
fn rolling() {
    assert_eq!(run("rolling").len(), 12);
}

#[test]
fn spinning() {
    assert_eq!(run("spinning").len(), 6);
}
