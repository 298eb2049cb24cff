//! Micro-benchmarks of the hot kernels: `cargo bench -p grainflow`.
//! The pair-force kernel (one Hertz–Mindlin contact, and four at once in the lanes the pair loop
//! uses, also with rolling and twisting resistance and DMT cohesion, and with the PEBBLES law),
//! a neighbour-list build, the integrator's half kick and drift, and one soft-sphere step of
//! the peers' settled bed S1 (20 000 spheres), on one thread.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use grainflow::contact::pebbles::{PebblesFriction, StaticFriction};
use grainflow::contact::{
    Body, Cohesion, ContactModel, ContactState, Normal, Rolling, Tangential, Touch, Twisting,
};
use grainflow::kernels::{Contacts, Lanes, F, LANES, V3};
use grainflow::material::PairParams;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;
use grainflow::DVec3;

fn s1() -> Simulation {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/bench");
    let text = std::fs::read_to_string(dir.join("s1.toml")).expect("s1.toml");
    Simulation::new(Scene::from_toml(&text, "s1").expect("parses"), &dir).expect("builds")
}

/// A pool of one thread: the benchmarks measure per-core cost.
fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool")
}

fn pair_kernel(c: &mut Criterion) {
    let model = ContactModel {
        normal: Normal::Hertz,
        tangential: Tangential::Spring,
        rolling: Rolling::None,
        twisting: Twisting::None,
        cohesion: Cohesion::None,
        characteristic_velocity: 1.0,
        step_correction: true,
    };
    let p = PairParams::new(3.7139e7, 1.5e7, 0.9, [0.5, 0.09, 0.05], 0.02);
    let body = |v: DVec3, w: DVec3| Body {
        vel: v,
        omega: w,
        radius: Some(5e-4),
        inv_mass: 1.0 / 1.309e-6,
        inv_inertia: 1.0 / 1.309e-13,
    };
    let (i, j) = (
        body(DVec3::new(1e-3, 0.0, 0.0), DVec3::Y),
        body(DVec3::ZERO, DVec3::X),
    );
    let touch = Touch {
        normal: DVec3::new(0.6, 0.0, 0.8),
        overlap: 1e-6,
    };
    let mut state = ContactState::default();
    c.bench_function("pair force, Hertz–Mindlin", |b| {
        b.iter(|| model.force(black_box(&p), black_box(touch), &i, &j, &mut state, 1e-6))
    });
    // The same contact, established, in every lane, for three models.
    let pebbles = ContactModel {
        normal: Normal::Pebbles {
            hooke: 600.0,
            vessel_hooke: 600.0,
            dash_pot: 0.01,
        },
        tangential: Tangential::Pebbles(PebblesFriction {
            kinetic_friction: 0.4,
            dash_pot: 0.01,
            static_friction: Some(StaticFriction {
                friction: 0.6,
                hooke: 600.0,
                surface_friction: None,
                surface_hooke: None,
                velocity_max_sqr: 0.01,
                linear_cutoff: false,
                zero_long_slips: None,
                decrease_long_slips: Some([1.1, 1.0]),
            }),
        }),
        ..model
    };
    let resisted = ContactModel {
        rolling: Rolling::Constant,
        twisting: Twisting::Constant,
        cohesion: Cohesion::Dmt,
        ..model
    };
    let all = F::splat;
    let all3 = |v: DVec3| V3 {
        x: all(v.x),
        y: all(v.y),
        z: all(v.z),
    };
    for (name, model) in [
        ("Hertz–Mindlin", model),
        ("Hertz–Mindlin, rolling, twisting, DMT cohesion", resisted),
        ("PEBBLES", pebbles),
    ] {
        let lanes = Lanes::covers(&model, 1e-6).expect("the lanes cover every model");
        // The contact's history after its first step, as the pair loop holds it.
        let mut state = ContactState::default();
        model.force(&p, touch, &i, &j, &mut state, 1e-6);
        let k = state.stiffness;
        let four = Contacts {
            // Centres 1e-3 − δ apart along the normal, as the pair loop finds them.
            d: all3(touch.normal * (1e-3 - touch.overlap)),
            d2: all((touch.normal * (1e-3 - touch.overlap)).length_squared()),
            r_i: all(5e-4),
            r_j: all(5e-4),
            dv: all3(i.vel - j.vel),
            w_i: all3(i.omega),
            w_j: all3(j.omega),
            slip: all3(state.slip),
            kn: all(k.kn),
            kt: all(k.kt),
            gn: all(k.gn),
            gt: all(k.gt),
            mu: all(p.mu_s),
            mu_r: all(p.mu_r),
            mu_t: all(p.mu_t),
            cohesion: all(p.cohesion),
            ii_i: all(i.inv_inertia),
            ii_j: all(j.inv_inertia),
        };
        c.bench_function(
            &format!("pair force, {name}, {LANES} contacts in lanes"),
            |b| {
                b.iter(|| {
                    let four = black_box(&four);
                    lanes.force(four, &four.touches(), 1e-6)
                })
            },
        );
    }
}

fn neighbor_build(c: &mut Criterion) {
    let pool = one_thread();
    let mut sim = s1();
    let periodic = sim.physics.periodic;
    c.bench_function("neighbour build, S1 (20 000 spheres)", |b| {
        b.iter(|| pool.install(|| sim.world.rebuild_neighbors(&periodic)))
    });
}

fn integrator(c: &mut Criterion) {
    let pool = one_thread();
    let mut sim = s1();
    let dt = sim.physics.dt;
    let mut group = c.benchmark_group("integrator, S1 (20 000 spheres)");
    group.bench_function("half kick of v and ω", |b| {
        b.iter(|| pool.install(|| grainflow::kernels::half_kick(&mut sim.world, black_box(dt))))
    });
    let mut packed = grainflow::kernels::Packed::default();
    group.bench_function("half kick, drift, periodic wrap and packing", |b| {
        b.iter(|| {
            pool.install(|| {
                grainflow::kernels::kick_drift_pack(&mut sim.world, &mut packed, &sim.physics, dt)
            })
        })
    });
    group.finish();
}

fn step(c: &mut Criterion) {
    let pool = one_thread();
    let mut sim = s1();
    let mut group = c.benchmark_group("soft step");
    group.sample_size(20);
    group.bench_function("S1 (20 000 spheres), one thread", |b| {
        b.iter(|| pool.install(|| sim.step().expect("stable")))
    });
    group.finish();
}

criterion_group!(benches, pair_kernel, neighbor_build, integrator, step);
criterion_main!(benches);
