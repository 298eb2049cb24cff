//! Mesh walls: the quick `mesh` validation — a plane as 2 and 2 000 triangles, a meshed box
//! and a meshed cylinder against the analytic walls, run side by side, with soft spheres and
//! (plane and box) with hard ones.

use grainflow_validate::validation;

#[test]
fn mesh_quick_form_passes() {
    let case = validation::find("mesh").expect("case exists");
    let metrics = (case.run)(false).expect("runs");
    assert_eq!(metrics.len(), 2 * 9 + 2 + 5);
    let failed: Vec<_> = metrics.iter().filter(|m| !m.pass).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
