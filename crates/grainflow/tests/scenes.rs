//! Every scene shipped in `scenes/` (and the benchmark scenes and PEBBLES decks beside them)
//! loads, has no problems, builds, and runs a few steps once made small: particle counts are
//! cut, so that the whole folder takes seconds.

use std::path::{Path, PathBuf};
use std::time::Instant;

use grainflow::io::pebbles::Deck;
use grainflow::scene::{ParticleSource, Scene};
use grainflow::sim::Simulation;
use grainflow::DVec3;

/// Steps each shortened scene runs.
const STEPS: usize = 3;

/// Most particles a shortened random or packed source makes.
const FEW: usize = 200;

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

/// The files in `dir` whose name ends in `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("scenes folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// The scene with few particles: random and packed sources make at most [`FEW`], a lattice
/// keeps a box of about [`FEW`] sites at its lower corner.
fn shortened(mut scene: Scene) -> Scene {
    for src in scene.particles.iter_mut() {
        match src {
            ParticleSource::Random { count, .. } | ParticleSource::Pack { count, .. } => {
                *count = (*count).min(FEW);
            }
            ParticleSource::Lattice {
                min,
                max,
                radius,
                spread,
                spacing,
                ..
            } => {
                let d = spacing.unwrap_or(2.0 * *radius * (1.0 + *spread));
                let side = d * (FEW as f64).cbrt();
                *max = max.min(*min + DVec3::splat(side));
            }
            _ => {}
        }
    }
    scene
}

/// Builds `scene` (files read from `base`) and runs it [`STEPS`] steps.
fn run(scene: Scene, base: &Path, name: &str) {
    let start = Instant::now();
    let mut sim = Simulation::new(scene, base).unwrap_or_else(|e| panic!("{name}: {e}"));
    for _ in 0..STEPS {
        sim.step().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    eprintln!(
        "{name}: {} particles, {STEPS} steps in {:.2} s",
        sim.world.particles.len(),
        start.elapsed().as_secs_f64()
    );
}

#[test]
fn every_scene_loads_checks_and_runs_shortened() {
    let dir = scenes_dir();
    let mut seen = 0;
    for sub in [dir.clone(), dir.join("bench")] {
        for path in files(&sub, "toml") {
            let name = path
                .strip_prefix(&dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let problems: Vec<String> = scene.problems().iter().map(|e| e.to_string()).collect();
            assert!(problems.is_empty(), "{name}: {problems:?}");
            run(shortened(scene), &sub, &name);
            seen += 1;
        }
    }
    assert!(seen >= 15, "only {seen} scenes found in {}", dir.display());
}

/// A deck with `directive`'s line replaced by `line` (dropped when empty).
fn with_line(deck: &str, directive: &str, line: &str) -> String {
    deck.lines()
        .filter_map(|l| match l.split_whitespace().next() {
            Some(d) if d == directive => (!line.is_empty()).then_some(line),
            _ => Some(l),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_pebbles_deck_translates_checks_and_runs_shortened() {
    let dir = scenes_dir().join("pebbles");
    let decks = files(&dir, "inp");
    assert!(decks.len() >= 6, "only {} decks found", decks.len());
    for path in decks {
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&path).expect("reads");
        // Few pebbles; the save earthquake.inp loads is written by a run of pack_and_recirc,
        // so here it packs its own.
        let text = with_line(&text, "number_of_pebbles", "number_of_pebbles 50");
        let text = with_line(&text, "load_pebble_save", "");
        let deck = Deck::parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        let run = deck
            .translate(&dir, &[])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let problems: Vec<String> = run.scene.problems().iter().map(|e| e.to_string()).collect();
        assert!(problems.is_empty(), "{name}: {problems:?}");
        self::run(run.scene, &dir, &name);
    }
}
