//! The quick `tumbler` validation (002 §6): angle of repose against Table 3 and rising with
//! the Froude number, the same angle when Fr is reached by lowering g, centrifuging at Fr = 2.

use grainflow::validation;

#[test]
fn tumbler_quick_form_passes() {
    let case = validation::find("tumbler").expect("case exists");
    let metrics = (case.run)(false).expect("runs");
    assert_eq!(metrics.len(), 7);
    let failed: Vec<_> = metrics.iter().filter(|m| !m.pass).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
