//! `[[inserts]]`: grains poured in at a rate. The count inserted is exactly the rate's
//! (⌊rate × time⌋ grains, or whole grains within mass_rate × time), no grain overlaps another
//! or a wall when it enters, and a run resumed from a checkpoint, or run on another number of
//! threads, inserts the same grains to the bit.

use std::path::Path;

use grainflow::io::checkpoint::Checkpoint;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;

/// A box 2 cm wide with a floor, filled from a region above it.
fn scene(insert: &str) -> Scene {
    let text = format!(
        r#"
[simulation]
duration = 0.03
dt = "auto"
seed = 11
[contact]
normal = "hertz"
tangential = "spring"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 1e7
poisson_ratio = 0.24
restitution = 0.5
sliding_friction = 0.3
[[materials]]
name = "steel"
density = 7800
youngs_modulus = 1e7
poisson_ratio = 0.3
restitution = 0.5
sliding_friction = 0.3
[gravity]
uniform = [0, 0, -9.81]
[[walls]]
type = "block"
material = "glass"
min = [-0.01, -0.01, 0.0]
max = [0.01, 0.01, 0.2]
side = "inside"
[[inserts]]
materials = [{{ name = "glass", fraction = 0.75 }}, {{ name = "steel", fraction = 0.25 }}]
region = {{ box = {{ min = [-0.01, -0.01, 0.02], max = [0.01, 0.01, 0.05] }} }}
start = 0.002
end = 0.022
velocity = [0, 0, -0.5]
velocity_spread = 0.05
{insert}
"#
    );
    let s = Scene::from_toml(&text, "inserts").expect("parses");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    s
}

fn run_to(sim: &mut Simulation, t: f64) {
    while sim.world.time + 0.5 * sim.physics.dt < t {
        sim.step().expect("steps");
    }
}

/// No two grains overlap and none overlaps a wall (the tolerance is round-off).
fn nothing_overlaps_at_entry(sim: &Simulation, newest: &[usize]) {
    let p = &sim.world.particles;
    for &k in newest {
        for j in 0..p.len() {
            if j != k {
                let d = p.pos[j].distance(p.pos[k]);
                assert!(d >= p.radius[j] + p.radius[k], "grains {j} and {k} overlap");
            }
        }
        for w in &sim.world.walls {
            assert!(
                w.contact(p.pos[k], p.radius[k]).is_none(),
                "grain {k} in a wall"
            );
        }
    }
}

#[test]
fn inserts_exactly_the_rate_in_grains() {
    for interval in ["", "interval = 0.003"] {
        let mut sim = Simulation::new(
            scene(&format!(
                "rate = 5000\nsize = {{ uniform = {{ min = 4e-4, max = 6e-4 }} }}\n{interval}"
            )),
            Path::new("."),
        )
        .expect("builds");
        assert_eq!(sim.world.particles.len(), 0);
        let mut seen = 0;
        while sim.world.time < 0.03 {
            sim.step().expect("steps");
            let n = sim.world.particles.len();
            if n > seen {
                let ids = sim.world.inserts.next_id;
                let newest: Vec<usize> = (0..n)
                    .filter(|&k| sim.world.particles.id[k] + (n - seen) as u64 >= ids)
                    .collect();
                nothing_overlaps_at_entry(&sim, &newest);
                seen = n;
            }
            let t = sim.world.time;
            let owed = (5000.0 * (t.min(0.022) - 0.002)).max(0.0);
            let (req, done) = sim.world.inserts.requested(&sim.physics.inserts, t)[0];
            // ⌊rate × elapsed⌋, the product taken as the whole count it is meant to be.
            assert_eq!(req, (owed + 1e-9).floor(), "requested at t = {t}");
            assert!(done <= req);
        }
        // ⌊5000 × 0.02⌋ = 100 grains, all of them in.
        let (req, done) = sim
            .world
            .inserts
            .requested(&sim.physics.inserts, sim.world.time)[0];
        assert_eq!((req, done), (100.0, 100.0), "{interval}");
        assert_eq!(sim.world.particles.len(), 100);
        let steel = sim
            .world
            .particles
            .material
            .iter()
            .filter(|&&m| m == 1)
            .count();
        // 25 % by number: binomial spread √(100 · 0.25 · 0.75) ≈ 4.3; within 3 of it.
        assert!((12..=38).contains(&steel), "{steel} steel grains of 100");
    }
}

#[test]
fn inserts_whole_grains_within_the_mass_rate() {
    let mut sim = Simulation::new(
        scene("mass_rate = 0.01\nsize = { table = [[4e-4, 0.5], [6e-4, 0.5]] }"),
        Path::new("."),
    )
    .expect("builds");
    run_to(&mut sim, 0.03);
    let (req, done) = sim
        .world
        .inserts
        .requested(&sim.physics.inserts, sim.world.time)[0];
    let heaviest = 4.0 / 3.0 * std::f64::consts::PI * 6e-4f64.powi(3) * 7800.0;
    assert!((req - 2e-4).abs() < 1e-15, "requested {req} kg");
    assert!(
        done <= req && req - done < heaviest,
        "inserted {done} of {req} kg"
    );
    let total: f64 = sim.world.particles.mass.iter().sum();
    assert!((total - done).abs() < 1e-15);
}

#[test]
fn a_resumed_run_inserts_the_same_grains_to_the_bit() {
    let make = || {
        Simulation::new(
            scene("rate = 4000\nsize = { log_normal = { median = 5e-4, sigma = 0.1 } }"),
            Path::new("."),
        )
        .expect("builds")
    };
    let mut straight = make();
    run_to(&mut straight, 0.025);
    let mut first = make();
    run_to(&mut first, 0.011);
    let path = std::env::temp_dir().join(format!("grainflow-inserts-{}.gfck", std::process::id()));
    first.checkpoint().write(&path).expect("writes");
    let ckpt = Checkpoint::read(&path).expect("reads");
    let _ = std::fs::remove_file(&path);
    let mut resumed = Simulation::resume(make().scene, Path::new("."), ckpt).expect("resumes");
    run_to(&mut resumed, 0.025);
    let (a, b) = (&straight.world.particles, &resumed.world.particles);
    assert_eq!(a.id, b.id);
    let bits = |v: &[grainflow::DVec3]| {
        v.iter()
            .flat_map(|x| x.to_array())
            .map(f64::to_bits)
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&a.pos), bits(&b.pos));
    assert_eq!(bits(&a.vel), bits(&b.vel));
    assert_eq!(straight.world.inserts, resumed.world.inserts);
}

#[test]
fn the_same_grains_on_one_thread_and_on_two() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut sim = Simulation::new(
                scene("rate = 4000\nsize = { normal = { mean = 5e-4, std = 3e-5 } }"),
                Path::new("."),
            )
            .expect("builds");
            run_to(&mut sim, 0.02);
            sim.world
                .particles
                .pos
                .iter()
                .flat_map(|x| x.to_array())
                .map(f64::to_bits)
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn a_region_too_small_for_the_rate_is_refused_with_its_fill_fraction() {
    let text = scene("rate = 5000\nsize = { fixed = 5e-4 }")
        .to_toml()
        .expect("writes");
    let crowded = text.replace("rate = 5000", "rate = 5000000");
    let s = Scene::from_toml(&crowded, "t").expect("parses");
    let msgs: Vec<String> = s.problems().iter().map(|e| e.to_string()).collect();
    assert!(
        msgs.iter()
            .any(|m| m
                .starts_with("inserts[0].region: is too small for the rate: grains would fill")),
        "{msgs:?}"
    );
}

/// The silo of `scenes/silo.toml`, poured for 0.04 s (320 grains) just above its floor and
/// opened at 0.1 s: every grain requested is inserted, every grain inserted is either in the
/// silo or counted by the absorbing floor, and series.csv says so in its columns.
#[test]
fn the_silo_fills_at_its_rate_and_discharges_into_its_series() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/silo.toml");
    let text = std::fs::read_to_string(&path)
        .expect("scene")
        .replace("end = 0.3 ", "end = 0.04 ")
        .replace("center = [0.0, 0.0, 0.1]", "center = [0.0, 0.0, 0.035]")
        .replace("length = 0.04 }", "length = 0.03 }")
        .replace("start = 0.5 }", "start = 0.1 }");
    let scene = Scene::from_toml(&text, "silo").expect("parses");
    let mut sim = Simulation::new(scene, Path::new(".")).expect("builds");
    run_to(&mut sim, 0.25);
    let w = &sim.world;
    let (req, done) = w.inserts.requested(&sim.physics.inserts, w.time)[0];
    assert_eq!((req, done), (320.0, 320.0));
    let removed = w.wall_runtime.absorbed[3];
    assert!(removed > 0, "nothing discharged");
    assert_eq!(w.particles.len() as u64 + removed, 320);
    let mut csv = Vec::new();
    grainflow::io::series::write_row(&mut csv, &sim, 0.0).expect("row");
    let header = grainflow::io::series::header(&sim);
    let row = String::from_utf8(csv).expect("utf-8");
    let column = |name: &str| {
        let k = header.split(',').position(|c| c == name).expect(name);
        row.trim().split(',').nth(k).expect("value").to_string()
    };
    assert_eq!(column("removed_wall_3"), removed.to_string());
    assert_eq!(column("inserted"), "320");
    assert_eq!(column("particles"), w.particles.len().to_string());
}
