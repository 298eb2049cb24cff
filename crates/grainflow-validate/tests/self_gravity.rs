//! Self-gravity validation (003 §4.4), quick forms: forces of the grid and tree against direct
//! summation on the collapse aggregate, and a collapse that conserves momentum and angular
//! momentum. The same functions run with `grainflow validate NAME [--full]`.

use grainflow_validate::validation::{self_gravity, Comparison, Metric};

fn assert_all_pass(metrics: &[Metric], skip: impl Fn(&Metric) -> bool) {
    let failed: Vec<&Metric> = metrics.iter().filter(|m| !m.pass && !skip(m)).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn grid_and_tree_meet_the_papers_accuracy() {
    // 003 §4.4: ≥ 70 % of grains below 5 % magnitude error, ≥ 90 % below 3°; tree median < 1e-3.
    // The scene's grid sums the neighbour CELLS exactly; the paper's own local term (`grid-003`)
    // reaches 61 % and 78 % on our aggregate and is shown beside the paper's numbers.
    let m = self_gravity::gravity_accuracy(false).expect("runs");
    // Costs are wall times: speed is measured by `grainflow bench`, never asserted in tests.
    let cost = |m: &Metric| m.metric.starts_with("cost");
    assert_all_pass(&m, cost);
    let checked = |m: &&Metric| !cost(m) && m.comparison != Comparison::Report;
    assert_eq!(m.iter().filter(checked).count(), 5);
    // The paper's grid stays within 0.15 of its published fractions (0.70 and 0.90).
    for row in m.iter().filter(|m| m.model == "grid-003" && !cost(m)) {
        assert!((row.value - row.expected).abs() < 0.15, "{row:?}");
    }
}

#[test]
fn collapse_conserves_momentum_and_angular_momentum() {
    let m = self_gravity::collapse(false).expect("runs");
    assert_all_pass(&m, |_| false);
    assert_eq!(m.len(), 12);
}
