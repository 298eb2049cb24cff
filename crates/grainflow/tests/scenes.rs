//! Every scene shipped in `scenes/` (and the benchmark scenes and PEBBLES decks beside them)
//! loads, has no problems, builds, and runs a few steps once made small: particle counts are
//! cut, so that the whole folder takes seconds.

use std::path::{Path, PathBuf};
use std::time::Instant;

use grainflow::io::pebbles::Deck;
use grainflow::scene::{LatticeSource, PackSource, ParticleSource, RandomSource, Scene};
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
            ParticleSource::Random(RandomSource { count, .. })
            | ParticleSource::Pack(PackSource { count, .. }) => {
                *count = (*count).min(FEW);
            }
            ParticleSource::Lattice(LatticeSource {
                min,
                max,
                radius,
                spread,
                spacing,
                ..
            }) => {
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
fn run(scene: Scene, base: &Path, name: &str) -> Simulation {
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
    sim
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
            run(shortened(scene.clone()), &sub, &name);
            let text = std::fs::read_to_string(&path).expect("reads");
            same_bits_with_units(&scene, &text, &sub, &name);
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
        let text = run.scene.to_toml().expect("writes");
        same_bits_with_units(&run.scene, &text, &dir, &name);
        self::run(run.scene, &dir, &name);
    }
}

/// The SI unit of each key a scene may give a number for, `None` for plain numbers and
/// directions; a number under a key not listed stops the test, so that a new field is
/// classified here.
fn si_unit(key: &str) -> Option<&'static str> {
    const UNITS: &[(&str, &str)] = &[
        ("s", "duration dt start_time snapshot_interval series_interval checkpoint_interval interval start end every period ramp door_closed_time first_door_open_time energy_interval"),
        ("m", "scale skin domain radius pos point center origin min max half_size at inner_radius outer_radius radius_min radius_max radius0 range length sphere_radius spacing height centers bottom tube min_max profile planes regions cell cell_size softening separation door drop_offset displacement displacements amplitude position mean std median fixed x y z translate"),
        ("m/s", "vel velocity velocity_dispersion velocity_spread velocity_bins characteristic_velocity slide_limit"),
        ("rad/s", "omega frequency step spin"),
        ("rad", "phase rotate"),
        ("m/s^2", "uniform"),
        ("m^3 kg^-1 s^-2", "constant"),
        ("kg", "mass"),
        ("kg/m^3", "density"),
        ("Pa", "youngs_modulus"),
        ("N/m", "kn kt hooke vessel_hooke surface_hooke"),
        ("N s/m", "damping tangential_damping dash_pot"),
        ("J", "hamaker"),
        ("m^2/s^2", "velocity_max_sqr"),
        ("1/s", "rate"),
        ("kg/s", "mass_rate"),
        ("m^2", "area"),
        ("kg m^2", "inertia"),
    ];
    const PLAIN: &str = "count seed dimensions restitution tangential_restitution poisson_ratio sliding_friction rolling_friction twisting_friction cohesion max_overlap spread packing_fraction fraction theta cells passes overlap_tolerance max_sweeps over_relaxation substeps sort_every steps axis normal u direction slope offset exponent kinetic_friction friction zero_long_slips decrease_long_slips extra_candidates sigma equation pattern angles table timestep surface_friction";
    if let Some((unit, _)) = UNITS
        .iter()
        .find(|(_, keys)| keys.split(' ').any(|k| k == key))
    {
        return Some(unit);
    }
    assert!(
        PLAIN.split(' ').any(|k| k == key),
        "a number under `{key}`: give it its unit in si_unit"
    );
    None
}

/// `v` with every number written as a string with its SI unit (`0.001` → `"0.001 m"`).
fn with_si_units(key: &str, v: &mut toml::Value) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t.iter_mut() {
                with_si_units(k, x);
            }
        }
        toml::Value::Array(a) => a.iter_mut().for_each(|x| with_si_units(key, x)),
        toml::Value::Float(x) => {
            if let Some(u) = si_unit(key) {
                *v = toml::Value::String(format!("{x:?} {u}"));
            }
        }
        toml::Value::Integer(i) => {
            if let Some(u) = si_unit(key) {
                *v = toml::Value::String(format!("{i} {u}"));
            }
        }
        _ => {}
    }
}

/// `text` (the scene `scene` was read from) with every number given its SI unit reads as the
/// same scene, and a few steps of both give the same bits.
fn same_bits_with_units(scene: &Scene, text: &str, base: &Path, name: &str) {
    let mut doc: toml::Value = text.parse::<toml::Table>().expect("toml").into();
    with_si_units("", &mut doc);
    let united = toml::to_string(&doc).expect("writes");
    assert!(united.contains(" m\""), "{name}: no unit written");
    let read = Scene::from_toml(&united, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        read.to_toml().expect("writes"),
        scene.to_toml().expect("writes"),
        "{name}"
    );
    let (a, b) = (
        run(shortened(scene.clone()), base, name),
        run(shortened(read), base, name),
    );
    let bits = |s: &Simulation| {
        let p = &s.world.particles;
        let v: Vec<u64> = [&p.pos, &p.vel, &p.omega]
            .iter()
            .flat_map(|a| a.iter().flat_map(|x| x.to_array().map(f64::to_bits)))
            .collect();
        v
    };
    assert_eq!(bits(&a), bits(&b), "{name}: the state differs with units");
}
