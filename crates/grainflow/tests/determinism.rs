//! Determinism: a checkpointed and resumed run equals an uninterrupted one bit for bit, the
//! result does not depend on the number of threads, and sorting the grains in memory keeps
//! every grain and contact.

use std::path::{Path, PathBuf};

use grainflow::contact::ContactState;
use grainflow::io::checkpoint::Checkpoint;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

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

/// Every grain's state, and every pair's and wall contact's history, keyed by ids: pairs as
/// (lower id, higher id) with the history seen from the lower id's grain.
type ById = (
    Vec<(u64, [u64; 15])>,
    Vec<(u64, u64, Option<[i32; 3]>, ContactState)>,
    Vec<(u64, u32, ContactState)>,
);

fn by_id(sim: &Simulation) -> ById {
    let c = sim.checkpoint();
    let p = &c.particles;
    let bits = |v: glam::DVec3| v.to_array().map(f64::to_bits);
    let mut grains: Vec<_> = (0..p.len())
        .map(|k| {
            let v = [p.pos[k], p.vel[k], p.omega[k], p.force[k], p.torque[k]].map(bits);
            (p.id[k], v.concat().try_into().expect("15 numbers"))
        })
        .collect();
    grains.sort_by_key(|g| g.0);
    let mut pairs: Vec<_> = c
        .pairs
        .into_iter()
        .map(|(a, b, image, s)| {
            if a <= b {
                (a, b, image, s)
            } else {
                (b, a, image.map(|n| n.map(|x| -x)), s.swapped())
            }
        })
        .collect();
    pairs.sort_by_key(|p| (p.0, p.1, p.2));
    let mut walls = c.walls;
    walls.sort_by_key(|w| (w.0, w.1));
    (grains, pairs, walls)
}

#[test]
fn sorting_keeps_every_grain_and_contact_and_the_run_goes_on_alike() {
    // The settling grains after 3000 steps (2000 touching pairs, 400 wall contacts),
    // shuffled and then sorted along the Morton curve again: each reordering must keep every
    // grain's state and every contact's history, keyed by ids, to the bit. A shuffled copy
    // sorted every 10 steps must then be along the curve (but for grains that crossed a cell
    // since the last sort) after the 100 steps that follow, have a reaction on every touching
    // pair for stress output, and follow the unsorted run to round-off (its sums are taken in
    // another order): positions within 1e-12 of a radius.
    let mut a = build();
    steps(&mut a, 3000);
    let before = by_id(&a);
    assert!(
        before.1.len() > 1000 && before.2.len() > 100,
        "contacts to keep"
    );
    let periodic = a.physics.periodic;
    let mut b = a.clone();
    let n = b.world.particles.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(3));
    b.world.reorder(&order, &periodic);
    assert_ne!(b.world.particles.id, a.world.particles.id);
    assert!(
        by_id(&b) == before,
        "shuffling changed a grain or a contact"
    );
    let mut c = b.clone();
    c.sort_along_curve();
    assert!(by_id(&c) == before, "sorting changed a grain or a contact");
    assert_eq!(out_of_curve(&c), 0, "sorted, not along the curve");
    assert!(out_of_curve(&b) > n / 3, "shuffled, yet along the curve");
    b.physics.sort_every = Some(10);
    b.keep_reactions();
    steps(&mut a, 100);
    steps(&mut b, 100);
    // (46 of 1500 neighbours out of order ten steps after the last sort, half when shuffled)
    assert!(out_of_curve(&b) < n / 10, "sort_every did not sort");
    // Every sort leaves the reactions of the new order to the next evaluation: none may be
    // missing when a step that ends on a multiple of 10 returns.
    let nl = &b.world.neighbors;
    let touching: Vec<usize> = (0..nl.len()).filter(|&s| nl.slip[s].touching()).collect();
    assert!(touching.len() > 1000, "{} touching pairs", touching.len());
    assert!(
        touching
            .iter()
            .all(|&s| b.reactions().expect("kept")[s].0 != glam::DVec3::ZERO),
        "a touching pair without its reaction"
    );
    let pos =
        |g: &(u64, [u64; 15])| glam::DVec3::from_array([0, 1, 2].map(|c| f64::from_bits(g.1[c])));
    let worst = by_id(&a)
        .0
        .iter()
        .zip(&by_id(&b).0)
        .map(|(x, y)| (pos(x) - pos(y)).length())
        .fold(0.0, f64::max);
    let r = a.world.particles.min_radius();
    assert!(worst < 1e-12 * r, "largest difference {worst:e} m");
}

/// How many neighbours in memory lie out of the order of their Morton keys, cells of one
/// largest diameter from the lowest corner (bits of x, y and z interleaved, x lowest).
fn out_of_curve(sim: &Simulation) -> usize {
    let p = &sim.world.particles;
    let cell = 2.0 * p.max_radius();
    let lo = p.pos.iter().fold(glam::DVec3::INFINITY, |m, &x| m.min(x));
    let key = |x: glam::DVec3| {
        let c = ((x - lo) / cell).as_uvec3();
        (0..21).rev().fold(0u64, |k, bit| {
            let b = |v: u32| u64::from((v >> bit) & 1);
            k << 3 | b(c.z) << 2 | b(c.y) << 1 | b(c.x)
        })
    };
    p.pos.windows(2).filter(|w| key(w[0]) > key(w[1])).count()
}
