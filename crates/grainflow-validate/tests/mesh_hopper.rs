//! The conical hopper read from its STL file discharges at the rate of the same hopper built
//! from the analytic cone and cylinder, within the spread between seeds (`mesh-hopper`,
//! quick form), and the full form's scenes are the shipped ones.

use std::path::Path;

use grainflow::scene::Scene;
use grainflow_validate::validation::{self, mesh_hopper};

#[test]
fn the_full_forms_scenes_are_the_shipped_hoppers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    for (file, wall) in [
        ("hopper_mesh.toml", mesh_hopper::MESH_WALL),
        ("hopper_cone.toml", mesh_hopper::CONE_WALL),
    ] {
        let shipped = Scene::load(&dir.join(file)).expect("loads");
        let made = mesh_hopper::scene(wall, &mesh_hopper::FULL, 3).expect("parses");
        assert_eq!(made.walls, shipped.walls, "{file}");
        assert_eq!(made.inserts, shipped.inserts, "{file}");
        assert_eq!(made.materials, shipped.materials, "{file}");
        assert_eq!(made.simulation, shipped.simulation, "{file}");
    }
}

#[test]
fn the_mesh_hopper_discharges_at_the_cones_rate_within_the_spread() {
    let start = std::time::Instant::now();
    let case = validation::find("mesh-hopper").expect("case exists");
    let metrics = (case.run)(false).expect("runs");
    for m in &metrics {
        eprintln!(
            "{} {}: {:.1} ({:.1})",
            m.model, m.metric, m.value, m.expected
        );
    }
    eprintln!("{:.1} s", start.elapsed().as_secs_f64());
    assert_eq!(metrics.len(), 2 * 5 + 1);
    let failed: Vec<_> = metrics.iter().filter(|m| !m.pass).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
