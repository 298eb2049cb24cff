//! 2-D granular Couette flow with approximate hard spheres (004 §II), as in
//! `grainflow validate couette`: overlaps, wall stress rising by an order of magnitude, shear
//! band, proxy stress, velocities from displacements, dt halving against the spread of
//! independent packs. The location of the strengthening transition needs a wide cell and is
//! checked by `grainflow validate couette --full` only (see docs/approx-hard.md).

use grainflow_validate::validation::find;

#[test]
fn couette() {
    let case = find("couette").expect("case exists");
    let metrics = (case.run)(false).expect("case runs");
    for m in &metrics {
        assert!(
            m.pass,
            "{} {} {}: {} vs {} ± {}",
            m.case, m.model, m.metric, m.value, m.expected, m.tolerance
        );
    }
    // Rise, orders of magnitude, decay length and fit, wall cross-check, displacements,
    // dt halving, overlaps.
    assert_eq!(metrics.len(), 2 + 2 + 1 + 1 + 1 + 1);
}

/// About 900 discs (more than one parallel task of the gathering) in a wider cell: the same
/// state after 200 steps with one and with two threads, bit for bit.
#[test]
fn approx_hard_is_bit_identical_for_one_and_two_threads() {
    use grainflow::scene::{AnnulusSource, ParticleSource};
    use grainflow_validate::validation::couette::couette_scene;
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut scene = couette_scene(0.76, 1e-3).expect("scene");
            for w in scene.walls.iter_mut() {
                if let grainflow::scene::ShapeSpec::Cylinder { radius, .. } = &mut w.shape {
                    if *radius > 0.05 {
                        *radius = 0.14;
                    }
                }
            }
            if let ParticleSource::Annulus(AnnulusSource { outer_radius, .. }) =
                &mut scene.particles[0]
            {
                *outer_radius = 0.14;
            }
            scene.simulation.domain = None;
            let mut sim =
                grainflow::sim::Simulation::new(scene, std::path::Path::new(".")).expect("builds");
            for _ in 0..200 {
                sim.step().expect("steps");
            }
            sim
        })
    };
    let (a, b) = (run(1), run(2));
    let (pa, pb) = (&a.world.particles, &b.world.particles);
    assert!(pa.len() > 800, "{}", pa.len());
    assert!(a.world.collisions > 0);
    for k in 0..pa.len() {
        assert_eq!(
            pa.pos[k].to_array().map(f64::to_bits),
            pb.pos[k].to_array().map(f64::to_bits)
        );
        assert_eq!(
            pa.vel[k].to_array().map(f64::to_bits),
            pb.vel[k].to_array().map(f64::to_bits)
        );
    }
}

/// A Couette run of 2N steps equals N steps, a checkpoint, and N steps resumed from it, bit for
/// bit, impulse tallies included (they enter the proxy stress of 004 eq 4).
#[test]
fn approx_hard_resumes_from_a_checkpoint_bit_for_bit() {
    use grainflow::io::checkpoint::Checkpoint;
    use grainflow::sim::Simulation;
    use grainflow_validate::validation::couette::couette_scene;
    let n = 150;
    let build = || {
        Simulation::new(
            couette_scene(0.78, 1e-3).expect("scene"),
            std::path::Path::new("."),
        )
        .expect("builds")
    };
    let steps = |sim: &mut Simulation, k: usize| {
        for _ in 0..k {
            sim.step().expect("steps");
        }
    };
    let mut straight = build();
    steps(&mut straight, 2 * n);
    let mut first = build();
    steps(&mut first, n);
    let dir = std::env::temp_dir().join(format!("grainflow-couette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("half.gfck");
    first.checkpoint().write(&path).expect("writes");
    let ckpt = Checkpoint::read(&path).expect("reads");
    assert_eq!(ckpt.tally, first.world.tally);
    assert_eq!(ckpt.collisions, first.world.collisions);
    let (reread, ckpt_collisions) = (ckpt.clone(), ckpt.collisions);
    let mut resumed = Simulation::resume(
        couette_scene(0.78, 1e-3).expect("scene"),
        std::path::Path::new("."),
        ckpt,
    )
    .expect("resumes");
    steps(&mut resumed, n);
    let (p, q) = (&straight.world.particles, &resumed.world.particles);
    let bits = |v: &[glam::DVec3]| {
        v.iter()
            .flat_map(|x| x.to_array().map(f64::to_bits))
            .collect::<Vec<_>>()
    };
    assert!(straight.world.collisions > 0);
    assert_eq!(straight.world.collisions, resumed.world.collisions);
    assert!(bits(&p.pos) == bits(&q.pos), "positions differ");
    assert!(bits(&p.vel) == bits(&q.vel), "velocities differ");
    assert!(bits(&p.omega) == bits(&q.omega), "spins differ");
    assert_eq!(straight.world.time.to_bits(), resumed.world.time.to_bits());
    assert!(straight.world.tally == resumed.world.tally);
    assert!(straight.world.tally.collisions > 0);
    // A format-4 file (the same bytes without the trailing collision count, from format 6
    // the inserts' next id and count, none here, from format 7 the checksum, from format 8
    // the free bodies' count and from format 9 the resting contacts' count, none here) reads
    // the same state with no collisions so far.
    let mut bytes = std::fs::read(&path).expect("bytes");
    bytes.truncate(bytes.len() - 44);
    bytes[14..18].copy_from_slice(&4u32.to_le_bytes());
    let old = dir.join("format4.gfck");
    std::fs::write(&old, &bytes).expect("writes");
    let four = Checkpoint::read(&old).expect("reads format 4");
    assert_eq!(four.collisions, 0);
    assert_eq!(
        Checkpoint {
            collisions: ckpt_collisions,
            inserts: reread.inserts.clone(),
            bodies: reread.bodies.clone(),
            ..four
        },
        reread
    );
    std::fs::remove_dir_all(&dir).ok();
}
