//! Determinism: a checkpointed and resumed run equals an uninterrupted one bit for bit, and
//! the result does not depend on the number of threads.

use std::path::{Path, PathBuf};

use grainflow::io::checkpoint::Checkpoint;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;

/// About 1500 frictional, rolling-resistant, cohesive Hertz grains settling at 20 g: enough particles and
/// pairs for the parallel loops to split across threads.
const SCENE: &str = r#"
[simulation]
duration = 1.0
dt = "auto"
seed = 11

[contact]
normal = "hertz"
cohesion = "dmt"

[[materials]]
name = "grain"
density = 2500
youngs_modulus = 5e7
poisson_ratio = 0.25
restitution = 0.6
sliding_friction = 0.5
rolling_friction = 0.1
twisting_friction = 0.05
cohesion = 1e-3

[gravity]
uniform = [3.0, 0.0, -196.2]

[[walls]]
type = "plane"
material = "grain"
point = [0, 0, 0]
normal = [0, 0, 1]

[[walls]]
type = "plate"
material = "grain"
center = [0.0215, 0.0, 0.01]
normal = [1, 0, 0.2]
u = [0, 1, 0]
half_size = [0.02, 0.01]

[[particles]]
type = "lattice"
kind = "hcp"
material = "grain"
radius = 1e-3
spread = 0.2
min = [-0.02, -0.02, 0.0]
max = [0.02, 0.02, 0.012]
velocity = [0.0, 0.05, -0.2]
"#;

fn build() -> Simulation {
    Simulation::new(
        Scene::from_toml(SCENE, "determinism").expect("parses"),
        Path::new("."),
    )
    .expect("builds")
}

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("pool")
}

fn steps(sim: &mut Simulation, n: usize) {
    for _ in 0..n {
        sim.step().expect("stable");
    }
}

fn assert_bit_identical(a: &Simulation, b: &Simulation) {
    let (p, q) = (&a.world.particles, &b.world.particles);
    assert_eq!(p.len(), q.len());
    let bits = |v: &[glam::DVec3]| {
        v.iter()
            .flat_map(|x| x.to_array().map(f64::to_bits))
            .collect::<Vec<_>>()
    };
    assert!(bits(&p.pos) == bits(&q.pos), "positions differ");
    assert!(bits(&p.vel) == bits(&q.vel), "velocities differ");
    assert!(
        bits(&p.omega) == bits(&q.omega),
        "angular velocities differ"
    );
    assert!(bits(&p.force) == bits(&q.force), "forces differ");
    assert_eq!(a.world.time.to_bits(), b.world.time.to_bits());
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grainflow-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn run_2n_equals_run_n_checkpoint_resume_n() {
    pool(2).install(|| {
        let n = 400;
        let mut straight = build();
        steps(&mut straight, 2 * n);
        assert!(
            straight.stats.contacts > 1000,
            "the scene must be in contact: {}",
            straight.stats.contacts
        );

        let mut first = build();
        steps(&mut first, n);
        let path = temp("ckpt").join("half.gfck");
        first.checkpoint().write(&path).expect("writes");
        let scene = Scene::from_toml(SCENE, "determinism").expect("parses");
        let mut resumed = Simulation::resume(
            scene,
            Path::new("."),
            Checkpoint::read(&path).expect("reads"),
        )
        .expect("resumes");
        steps(&mut resumed, n);
        assert_bit_identical(&straight, &resumed);
    });
}

#[test]
fn one_thread_equals_two_threads() {
    let run = |threads| {
        pool(threads).install(|| {
            let mut sim = build();
            steps(&mut sim, 600);
            sim
        })
    };
    let (one, two) = (run(1), run(2));
    assert!(one.stats.contacts > 1000);
    assert_bit_identical(&one, &two);
}

#[test]
fn resume_refuses_a_different_scene() {
    let sim = build();
    let path = temp("other").join("c.gfck");
    sim.checkpoint().write(&path).expect("writes");
    let other = Scene::from_toml(
        &SCENE.replace("restitution = 0.6", "restitution = 0.7"),
        "x",
    )
    .expect("parses");
    let err = Simulation::resume(
        other,
        Path::new("."),
        Checkpoint::read(&path).expect("reads"),
    )
    .expect_err("refused");
    assert!(
        err.to_string()
            .starts_with("scene: differs from the scene the checkpoint"),
        "{err}"
    );
}
