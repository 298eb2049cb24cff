//! Runs shared among ranks (threads of one process here; the same code runs over MPI) give
//! each grain the bits of one process.

use super::*;
use crate::neighbor::BLOCK;

/// 2500 cohesive grains (DMT) with rolling friction, thrown about (σ = 1 m/s) in a box
/// periodic in x and y over a floor, under a lid that oscillates into them: contacts form,
/// last and end, grains wrap through the periodic faces and cross the cuts between bricks.
const BED: &str = r#"
[simulation]
duration = 1.0
dt = 1e-6
max_overlap = 1.0
[boundary]
periodic = { x = [0.0, 0.02], y = [0.0, 0.016] }
[contact]
normal = "hertz"
tangential = "spring"
rolling = "constant"
cohesion = "dmt"
[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 1e7
poisson_ratio = 0.25
restitution = 0.8
sliding_friction = 0.4
rolling_friction = 0.05
cohesion = 0.05
[gravity]
uniform = [0.0, 0.0, -9.81]
[[walls]]
type = "plane"
material = "glass"
point = [0, 0, 0]
normal = [0, 0, 1]
[[walls]]
type = "plane"
material = "glass"
point = [0, 0, 0.0205]
normal = [0, 0, -1]
motion = { type = "oscillate", amplitude = 1e-3, frequency = 2000.0, direction = [0, 0, 1] }
[[particles]]
type = "random"
material = "glass"
count = 2500
radius = 5e-4
spread = 0.1
min = [0.0, 0.0, 0.0]
max = [0.02, 0.016, 0.02]
velocity = [0.3, -0.2, 0.0]
velocity_dispersion = 1.0
"#;

/// The scene `toml`, parsed.
fn scene(toml: &str) -> Scene {
    Scene::from_toml(toml, "shared").expect("parses")
}

/// `steps` steps of `toml` in one process, without any rank.
fn alone(toml: &str, steps: usize) -> Simulation {
    let mut sim = Simulation::new(scene(toml), std::path::Path::new(".")).expect("builds");
    for _ in 0..steps {
        sim.step().expect("stable");
    }
    sim
}

/// What a rank reports after its steps: the pair histories of its own grains, its own grains
/// and copies, and the grains it took in from other ranks.
type Report = (Vec<PairHistory>, usize, usize, u64);

/// `steps` steps of `toml` on `ranks` ranks (threads), then `after` of each rank's share, by
/// rank.
fn on_ranks<T: Send>(
    toml: &str,
    (ranks, steps): (usize, usize),
    after: impl Fn(&mut Shared) -> T + Sync,
) -> Vec<T> {
    let after = &after;
    std::thread::scope(|s| {
        let handles: Vec<_> = threads(ranks)
            .into_iter()
            .map(|t| {
                s.spawn(move || {
                    let base = std::path::Path::new(".");
                    let mut run = Shared::new(scene(toml), base, Box::new(t)).expect("builds");
                    for _ in 0..steps {
                        run.step().expect("stable");
                    }
                    after(&mut run)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("ran"))
            .collect()
    })
}

/// `steps` steps of `toml` on `ranks` ranks (threads): every own grain gathered on rank 0, in
/// the order of one process, and each rank's report.
fn shared(toml: &str, ranks: usize, steps: usize) -> (Particles, Vec<Report>) {
    let runs = on_ranks(toml, (ranks, steps), |run| {
        let w = &run.sim.world;
        let own = &run.domain.own;
        let p = &w.particles;
        let pairs = w.pair_history_by_id(&run.sim.physics.periodic);
        let index = p.index_map();
        let mine = |id: &u64| own[index[id]];
        let pairs = pairs.into_iter().filter(|e| mine(&e.0) || mine(&e.1));
        let (_, n_own, n_copies, _) = run.counts();
        let report = (pairs.collect(), n_own, n_copies, run.domain.migrated);
        (run.gather(), report)
    });
    let mut reports = Vec::new();
    let mut all = None;
    for (gathered, report) in runs {
        all = all.or(gathered);
        reports.push(report);
    }
    (all.expect("rank 0 gathers"), reports)
}

/// The bits of every grain's state and force.
fn bits(p: &Particles) -> Vec<[u64; 15]> {
    (0..p.len())
        .map(|k| {
            let v = [p.pos[k], p.vel[k], p.omega[k], p.force[k], p.torque[k]];
            std::array::from_fn(|c| v[c / 3][c % 3].to_bits())
        })
        .collect()
}

#[test]
fn a_bed_on_one_two_and_three_ranks_keeps_the_bits_of_one_process() {
    let steps = 300;
    let one = alone(BED, steps);
    let p = &one.world.particles;
    assert!(p.len() > 2 * BLOCK && one.world.neighbors.builds > 2);
    assert!(
        one.world.neighbors.touching() > 300,
        "{}",
        one.world.neighbors.touching()
    );
    same_bits(BED, &one, steps, (20, 200));
}

/// Requires `steps` steps of `toml` on 1, 2 and 3 ranks to give every grain the bits of
/// `one` (the same steps in one process), with at least `least` = (grains moved between
/// ranks, copies) on several ranks.
fn same_bits(toml: &str, one: &Simulation, steps: usize, least: (u64, usize)) {
    let p = &one.world.particles;
    for ranks in [1, 2, 3] {
        let (all, reports) = shared(toml, ranks, steps);
        assert_eq!(all.id, p.id, "{ranks} ranks");
        let (a, b) = (bits(&all), bits(p));
        let differ = (0..a.len()).find(|&k| a[k] != b[k]);
        assert_eq!(differ, None, "{ranks} ranks: first grain that differs");
        let moved: u64 = reports.iter().map(|r| r.3).sum();
        let copies: usize = reports.iter().map(|r| r.2).sum();
        eprintln!("{ranks} ranks: {moved} moved, {copies} copies");
        if ranks > 1 {
            assert!(
                moved >= least.0 && copies >= least.1,
                "{ranks} ranks: {moved} moved, {copies} copies"
            );
        }
    }
}

/// 1638 rocks on an HCP lattice, stirred, collapsing under their own gravity by the
/// tree: the scene of `.ci/mpi/aggregate.toml` (see there).
const AGGREGATE: &str = r#"
[simulation]
duration = 3.0
dt = 0.01
seed = 7
[contact]
normal = { linear = { kn = 1e6, damping = 3e4 } }
tangential = "spring"
[[materials]]
name = "rock"
density = 3200.0
youngs_modulus = 1e9
poisson_ratio = 0.25
restitution = 0.5
sliding_friction = 0.6
[gravity]
constant = 1e-6
self_gravity = { method = { tree = { theta = 0.7 } }, softening = 0.0 }
[[particles]]
type = "lattice"
material = "rock"
kind = "hcp"
radius = 1.0
spread = 0.2
spacing = 2.4
min = [-13.5, -13.5, -13.5]
max = [13.5, 13.5, 13.5]
velocity_dispersion = 0.1
"#;

/// The grains' mean radial velocity (m/s) about their centre of mass: negative while they
/// fall together.
fn infall(p: &Particles) -> f64 {
    let n = p.len() as f64;
    let c = p.pos.iter().sum::<DVec3>() / n;
    let v = p.vel.iter().sum::<DVec3>() / n;
    let radial = |k: usize| (p.vel[k] - v).dot((p.pos[k] - c).normalize_or_zero());
    (0..p.len()).map(radial).sum::<f64>() / n
}

#[test]
fn a_tree_gravity_aggregate_on_one_two_and_three_ranks_keeps_the_bits_of_one_process() {
    // The cube falls together: after 300 steps (3 s) a grain at a face (13.5 m out, under
    // G M/R² ≈ 1e-6 × 2.3e7 kg/(13.5 m)² ≈ 0.13 m/s²) falls inwards at about 0.38 m/s; the
    // mean over all grains, a uniform cube's pull growing linearly outwards, at about half
    // that, less what the collisions take.
    let steps = 300;
    let one = alone(AGGREGATE, steps);
    let p = &one.world.particles;
    let fall = infall(p);
    assert!(
        p.len() > BLOCK && fall < -0.1,
        "{} grains, {fall} m/s",
        p.len()
    );
    assert!(
        one.world.neighbors.touching() > 100,
        "{}",
        one.world.neighbors.touching()
    );
    same_bits(AGGREGATE, &one, steps, (3, 200));
}

#[test]
fn direct_and_grid_self_gravity_on_one_two_and_three_ranks_keep_the_bits_of_one_process() {
    // The aggregate by direct summation and by the grid of CELLS, for fewer steps (the direct
    // sum costs N² pairs a step); the grid needs a domain inside it.
    let grid = "{ grid = { min = [-20.0, -20.0, -20.0], cell_size = 4.0, cells = [10, 10, 10] } }";
    for method in ["\"direct\"", grid] {
        let toml = AGGREGATE
            .replace("{ tree = { theta = 0.7 } }", method)
            .replace(
                "seed = 7",
                "seed = 7\ndomain = [[-20, -20, -20], [20, 20, 20]]",
            );
        let steps = 40;
        let one = alone(&toml, steps);
        assert!(infall(&one.world.particles) < 0.0, "{method}");
        same_bits(&toml, &one, steps, (0, 200));
    }
}

#[test]
fn two_grains_in_contact_keep_their_slip_across_a_cut_and_a_periodic_face() {
    // Two soft grains meeting along y at 0.02 m/s (a contact of about 0.5 ms), sliding past
    // each other along x at 0.2 m/s relative, both drifting at 30 m/s along +x through the
    // cuts between the ranks' bricks and through the periodic face at x = 10 mm. Their
    // tangential slip grows all the way; after 400 steps (12 mm) on one, two and three ranks
    // the pair's history on each rank holding it has the bits of one process, and so has
    // every grain's state.
    let toml = r#"
[simulation]
duration = 1.0
dt = 1e-6
[boundary]
periodic = { x = [0.0, 0.01], y = [0.0, 0.01] }
[contact]
normal = "hertz"
tangential = "spring"
[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 1e6
poisson_ratio = 0.25
restitution = 0.8
sliding_friction = 0.9
[[particles]]
type = "list"
material = "glass"
spheres = [
  { pos = [3.0e-3, 5.0e-3, 1e-3], radius = 5e-4, vel = [30.1, 0.01, 0] },
  { pos = [3.0e-3, 6.0005e-3, 1e-3], radius = 5e-4, vel = [29.9, -0.01, 0] },
]
"#;
    let steps = 400;
    let one = alone(toml, steps);
    let expected = one.world.pair_history_by_id(&one.physics.periodic);
    assert_eq!(expected.len(), 1, "the pair still touches");
    assert!(
        expected[0].3.slip.length() > 1e-7,
        "{:?}",
        expected[0].3.slip
    );
    for ranks in [1, 2, 3] {
        let (all, reports) = shared(toml, ranks, steps);
        assert_eq!(bits(&all), bits(&one.world.particles), "{ranks} ranks");
        let holders: Vec<_> = reports.iter().filter(|r| !r.0.is_empty()).collect();
        assert!(!holders.is_empty());
        for r in holders {
            let (a, b) = (&r.0[0], &expected[0]);
            assert_eq!((a.0, a.1, a.2), (b.0, b.1, b.2));
            assert_eq!(
                a.3.slip.to_array().map(f64::to_bits),
                b.3.slip.to_array().map(f64::to_bits)
            );
        }
        let moved: u64 = reports.iter().map(|r| r.3).sum();
        eprintln!("{ranks} ranks: {moved} moves of the pair");
        if ranks > 1 {
            assert!(moved >= 4, "{ranks} ranks: {moved} moves");
        }
    }
}

/// `steps` steps on `ranks` ranks (threads), each rank starting from its part `part(its
/// transport)` (fresh, then started, or resumed): rank 0's view of the run with its histories
/// (as for a checkpoint).
fn shared_view(
    part: impl Fn(&mut dyn Transport) -> (Part, bool) + Sync,
    ranks: usize,
    steps: usize,
) -> Simulation {
    let part = &part;
    let views: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = threads(ranks)
            .into_iter()
            .map(|t| {
                s.spawn(move || {
                    let mut t = t;
                    let (me, fresh) = part(&mut t);
                    let mut run = Shared::share(me, Box::new(t));
                    if fresh {
                        run.start().expect("starts");
                    }
                    let mut view = (run.counts().0 == 0).then(|| run.sim.clone());
                    for _ in 0..steps {
                        run.step().expect("stable");
                    }
                    run.gather_into(view.as_mut(), true);
                    view
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("ran"))
            .collect()
    });
    views.into_iter().flatten().next().expect("rank 0's view")
}

#[test]
fn a_checkpoint_of_two_ranks_resumes_on_three_with_the_bits_of_one_process() {
    // The bed for 150 steps on two ranks, gathered and checkpointed by rank 0, then resumed
    // for 150 more on three: every grain as in 300 steps of one process, and the gathered
    // contact counts are one process's.
    let base = std::path::Path::new(".");
    let fresh = |t: &mut dyn Transport| {
        let part = Shared::unstarted(scene(BED), base, t);
        (part.expect("builds"), true)
    };
    let one = alone(BED, 150);
    let half = shared_view(fresh, 2, 150);
    assert_eq!(bits(&half.world.particles), bits(&one.world.particles));
    assert_eq!(
        (half.stats.contacts, half.stats.wall_contacts),
        (one.stats.contacts, one.stats.wall_contacts)
    );
    let ckpt = half.checkpoint();
    assert_eq!(ckpt.pairs.len(), one.checkpoint().pairs.len());
    let resumed = |t: &mut dyn Transport| {
        let part = Shared::resumed(scene(BED), base, || Ok(ckpt.clone()), t);
        (part.expect("resumes"), false)
    };
    let end = shared_view(resumed, 3, 150);
    let one = alone(BED, 300);
    assert_eq!(bits(&end.world.particles), bits(&one.world.particles));
}

#[test]
fn the_pieces_of_three_ranks_hold_every_grain_once() {
    // After 100 steps of the bed on three ranks (grains having moved between them), the
    // ranks' own grains — each rank's piece of a snapshot — hold every grain of one process
    // exactly once, with its bits.
    let steps = 100;
    let one = alone(BED, steps);
    let pieces = on_ranks(BED, (3, steps), |run| run.own_grains());
    assert!(
        pieces.iter().all(|p| p.len() > 500),
        "every rank holds a share"
    );
    let mut all: Vec<(u64, [u64; 15])> = Vec::new();
    for p in &pieces {
        all.extend(p.id.iter().copied().zip(bits(p)));
    }
    all.sort_by_key(|g| g.0);
    let p = &one.world.particles;
    let mut expected: Vec<(u64, [u64; 15])> = p.id.iter().copied().zip(bits(p)).collect();
    expected.sort_by_key(|g| g.0);
    assert!(
        all == expected,
        "{} grains in the pieces, {} in one process",
        all.len(),
        expected.len()
    );
}

#[test]
fn a_bed_balanced_at_every_rebuild_keeps_the_bits_of_one_process() {
    // Cut again by the work at the start and at each rebuild: the grains that the moved
    // planes hand to another rank go with their histories, and nothing else changes.
    let toml = BED.replace("max_overlap = 1.0", "max_overlap = 1.0\nbalance_every = 1");
    let steps = 300;
    same_bits(&toml, &alone(&toml, steps), steps, (20, 200));
}

#[test]
fn a_bed_balanced_by_time_keeps_the_bits_of_one_process() {
    // Cut by the work weighed by each rank's measured time: the cuts follow this machine's
    // moment, the bits do not.
    let balance = "max_overlap = 1.0\nbalance_every = 1\nbalance_by = \"time\"";
    let toml = BED.replace("max_overlap = 1.0", balance);
    let steps = 300;
    same_bits(&toml, &alone(&toml, steps), steps, (20, 200));
}

#[test]
fn balanced_bricks_share_a_lopsided_bed_evenly() {
    // 600 of the bed's grains below 4 mm and 100 from 6 to 20 mm: two ranks cut the open z
    // axis (the least face), equal slabs at the middle of the grains' extent, 10 mm, which
    // leaves rank 1 about 70 grains of 700 (imbalance near 1.8). Bisecting the work instead,
    // each rank's share misses half the work by at most a bin's: 1/512 of the 20 mm, about
    // 1/100 of the dense layer's 4 mm, 1 % of the work; an imbalance within 1.02, here
    // required below 1.05.
    let dense = "max = [0.02, 0.016, 0.004]";
    let sparse = "\n[[particles]]\ntype = \"random\"\nmaterial = \"glass\"\ncount = 100\nradius = 5e-4\nmin = [0.0, 0.0, 0.006]\nmax = [0.02, 0.016, 0.02]\n";
    let lopsided = BED
        .replace("max = [0.02, 0.016, 0.02]", dense)
        .replace("count = 2500", "count = 600")
        + sparse;
    for (balance, steps) in [
        ("", 0),
        ("\nbalance_every = 1", 0),
        ("\nbalance_every = 1", 120),
    ] {
        let toml = lopsided.replace("max_overlap = 1.0", &format!("max_overlap = 1.0{balance}"));
        let shares = on_ranks(&toml, (2, steps), |run| {
            let (own, nl) = (&run.domain.own, &run.sim.world.neighbors);
            (0..own.len())
                .filter(|&k| own[k])
                .map(|k| work(nl, k))
                .sum::<u64>()
        });
        let most = *shares.iter().max().expect("two ranks") as f64;
        let imbalance = most / (shares.iter().sum::<u64>() as f64 / 2.0);
        eprintln!(
            "{}, {steps} steps: work {shares:?}, imbalance {imbalance}",
            balance.trim()
        );
        match balance {
            "" => assert!(imbalance > 1.5, "{imbalance}"),
            _ => assert!(imbalance < 1.05, "{imbalance}"),
        }
    }
}

#[test]
fn rank_0s_refusal_of_the_scene_reaches_every_rank_and_each_rank_holds_its_share_alone() {
    // A step above the contact time (002 eq 27) is refused by rank 0, which alone makes the
    // grains it is sized from: every rank stops, rank 0 with one process's error, the others
    // with it as rank 0's. With a step that fits, the grains held on 3 ranks (own and copies)
    // are fewer than the whole run on every rank and the own grains add up to it.
    let base = std::path::Path::new(".");
    let coarse = BED.replace("dt = 1e-6", "dt = 1e-3");
    let one = Simulation::new(scene(&coarse), base).expect_err("refused");
    let said: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (threads(3).into_iter())
            .map(|mut t| {
                let coarse = &coarse;
                s.spawn(move || {
                    let part = Shared::unstarted(scene(coarse), base, &mut t);
                    part.err().expect("refused").to_string()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("ran"))
            .collect()
    });
    assert!(one.to_string().starts_with("simulation.dt: "), "{one}");
    assert_eq!(said[0], one.to_string());
    for s in &said[1..] {
        assert_eq!(*s, format!("rank 0: {one}"));
    }
    let n = alone(BED, 0).world.particles.len();
    let counts = on_ranks(BED, (3, 0), |run| run.counts());
    assert_eq!(counts.iter().map(|c| c.1).sum::<usize>(), n);
    for (rank, own, copies, _) in counts {
        assert!(
            own + copies < n,
            "rank {rank} holds {own} + {copies} of {n}"
        );
    }
}

#[test]
fn rank_0s_refusal_of_a_checkpoint_reaches_every_rank_and_each_rank_resumes_its_share_alone() {
    // A checkpoint of the bed after 20 steps, resumed under another dt: rank 0, which alone
    // reads it, refuses it with one process's error and the other ranks stop with it as rank
    // 0's. Resumed under its own scene on 3 ranks, every rank holds fewer grains than the
    // whole run (its own and its copies) and the own grains add up to it.
    let base = std::path::Path::new(".");
    let ckpt = alone(BED, 20).checkpoint();
    let finer = BED.replace("dt = 1e-6", "dt = 5e-7");
    let one = Simulation::resume(scene(&finer), base, ckpt.clone()).expect_err("refused");
    let n = ckpt.particles.len();
    let resume_on_3 = |toml: &str| -> Vec<Result<(usize, usize, usize)>> {
        std::thread::scope(|s| {
            let handles: Vec<_> = (threads(3).into_iter())
                .map(|mut t| {
                    let ckpt = &ckpt;
                    s.spawn(move || {
                        let part = Shared::resumed(scene(toml), base, || Ok(ckpt.clone()), &mut t)?;
                        let (rank, own, copies, _) = Shared::share(part, Box::new(t)).counts();
                        Ok((rank, own, copies))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("ran"))
                .collect()
        })
    };
    let said: Vec<String> = (resume_on_3(&finer).into_iter())
        .map(|r| r.expect_err("refused").to_string())
        .collect();
    assert!(one.to_string().starts_with("simulation.dt"), "{one}");
    assert_eq!(said[0], one.to_string());
    for s in &said[1..] {
        assert_eq!(*s, format!("rank 0: {one}"));
    }
    let counts: Vec<_> = (resume_on_3(BED).into_iter())
        .map(|r| r.expect("resumes"))
        .collect();
    assert_eq!(counts.iter().map(|c| c.1).sum::<usize>(), n);
    for (rank, own, copies) in counts {
        assert!(
            own + copies < n,
            "rank {rank} holds {own} + {copies} of {n}"
        );
    }
}
