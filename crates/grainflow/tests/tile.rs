//! `tile = [nx, ny]` on a `lammps_data` source: the S1 bed (20 000 grains settled periodic in
//! a 55 × 44 mm box) tiled 2 × 1 is the same bed twice. A settled periodic bed tiled in a box
//! widened to match is periodic again with the same contacts across every face, so each
//! grain of each tile must touch the copies of exactly its original's partners, and move as
//! its original does to round-off.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use grainflow::scene::{ParticleSource, Scene};
use grainflow::sim::Simulation;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/bench")
}

/// S1 with its bed tiled `tile` and its periodic box widened `widen` times along x and y.
fn s1(tile: Option<[u32; 2]>, widen: [f64; 2]) -> Scene {
    let toml = std::fs::read_to_string(dir().join("s1.toml")).expect("reads s1.toml");
    let mut scene = Scene::from_toml(&toml, "s1").expect("parses");
    let ParticleSource::LammpsData(source) = &mut scene.particles[0] else {
        panic!("s1 reads a LAMMPS data file");
    };
    source.tile = tile;
    let p = &mut scene.boundary.periodic;
    for (axis, w) in [&mut p.x, &mut p.y].into_iter().zip(widen) {
        let [lo, hi] = axis.as_mut().expect("s1 is periodic in x and y");
        *hi = *lo + w * (*hi - *lo);
    }
    scene
}

/// The touching pairs after the last step, as pairs of ids reduced modulo `n` (a copy's id
/// is its original's plus n per tile), smaller first, with how often each occurs.
fn touching_pairs(sim: &Simulation, n: u64) -> HashMap<(u64, u64), u32> {
    let nl = &sim.world.neighbors;
    let id = &sim.world.particles.id;
    let mut pairs = HashMap::new();
    for s in (0..nl.len()).filter(|&s| nl.slip[s].touching()) {
        let a = id[nl.owner(s)] % n;
        let b = id[nl.partner_grain[s] as usize] % n;
        *pairs.entry((a.min(b), a.max(b))).or_insert(0) += 1;
    }
    pairs
}

#[test]
fn a_tiled_bed_is_its_tile_repeated_with_the_same_contacts_and_motion() {
    const STEPS: usize = 5;
    let mut one = Simulation::new(s1(None, [1.0, 1.0]), &dir()).expect("builds S1");
    let mut two = Simulation::new(s1(Some([2, 1]), [2.0, 1.0]), &dir()).expect("builds 2×1");
    let n = one.world.particles.len() as u64;
    assert_eq!(n, 20_000);
    // Twice the grains, ids 0..2n each once, in a box twice as wide in x and as deep in y.
    let mut ids = two.world.particles.id.clone();
    ids.sort_unstable();
    assert_eq!(ids, (0..2 * n).collect::<Vec<_>>());
    let (p1, p2) = (&one.physics.periodic, &two.physics.periodic);
    assert_eq!(p2.x.map(|[lo, hi]| hi - lo), Some(0.11));
    assert_eq!(p2.y, p1.y);
    for _ in 0..STEPS {
        one.step().expect("S1 steps");
        two.step().expect("tiled S1 steps");
    }
    // Every touching pair of S1 occurs exactly twice in the tiled bed (once per tile, or as
    // the two pairs across the tiles' two faces), and no other pair touches there.
    let (pairs1, pairs2) = (touching_pairs(&one, n), touching_pairs(&two, n));
    assert!(pairs1.values().all(|&c| c == 1));
    assert_eq!(pairs1.len(), pairs2.len());
    assert!(pairs2
        .iter()
        .all(|(k, &c)| c == 2 && pairs1.contains_key(k)));
    // Each grain, and its copy one period on, moves as in S1 to round-off: the forces are
    // summed in another order (other blocks), so the bits differ, by ~1e-16 relative per
    // step: allowed are 1e-12 m (2e-9 of a radius) and 1e-6 of the fastest grain's speed.
    let index = |sim: &Simulation| -> HashMap<u64, usize> {
        (sim.world.particles.id.iter().enumerate())
            .map(|(k, &id)| (id, k))
            .collect()
    };
    let (at1, at2) = (index(&one), index(&two));
    let (a, b) = (&one.world.particles, &two.world.particles);
    let v_max = a.vel.iter().map(|v| v.length()).fold(0.0, f64::max);
    let period = 0.055;
    for id in 0..2 * n {
        let (i, k) = (at1[&(id % n)], at2[&id]);
        let mut d = b.pos[k] - a.pos[i];
        d.x -= period * (d.x / period).round();
        assert!(d.length() < 1e-12, "grain {id}: {d} m from its original");
        let dv = (b.vel[k] - a.vel[i]).length();
        assert!(
            dv <= 1e-6 * v_max,
            "grain {id}: speed {dv} m/s from its original's"
        );
    }
}

#[test]
fn a_tiled_bed_in_a_box_not_widened_is_refused_naming_the_tile() {
    // The box is S1's own: the file's grains fill all of it, not its first half.
    let Err(e) = Simulation::new(s1(Some([2, 1]), [1.0, 1.0]), &dir()) else {
        panic!("a 2 × 1 tiling in S1's own box was not refused");
    };
    let message = e.to_string();
    assert!(
        message.contains("particles[0].tile") && message.contains("outside the first"),
        "{message}"
    );
    // Tiles along y made open, and a count of zero: refused by the checks.
    let mut scene = s1(Some([0, 1]), [1.0, 1.0]);
    scene.boundary.periodic.y = None;
    if let ParticleSource::LammpsData(s) = &mut scene.particles[0] {
        s.tile = Some([0, 2]);
    }
    let problems: Vec<String> = scene.problems().iter().map(|e| e.to_string()).collect();
    assert!(
        problems
            .iter()
            .any(|m| m.contains("particles[0].tile") && m.contains("along x must be ≥ 1")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|m| m.contains("particles[0].tile") && m.contains("need a periodic y")),
        "{problems:?}"
    );
}
