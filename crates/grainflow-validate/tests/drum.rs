//! Quick forms of the `tumbler` (002 §6: angle of repose against Table 3 and rising with the
//! Froude number, the same angle when Fr is reached by lowering g, centrifuging at Fr = 2)
//! and `pile` (002 §5) validations.

use grainflow_validate::validation;

#[test]
fn tumbler_quick_form_passes() {
    let case = validation::find("tumbler").expect("case exists");
    let metrics = (case.run)(false).expect("runs");
    assert_eq!(metrics.len(), 7);
    let failed: Vec<_> = metrics.iter().filter(|m| !m.pass).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn pile_quick_form_passes() {
    // 002 §5: the pile angle rises with rolling friction (μ_r 0 → 0.09 → 0.2), and at 0.09 it
    // is 002's 25.3° within 8°.
    let case = validation::find("pile").expect("case exists");
    let metrics = (case.run)(false).expect("runs");
    assert_eq!(metrics.len(), 3);
    let failed: Vec<_> = metrics.iter().filter(|m| !m.pass).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
