//! Shortened copies of the PEBBLES sample decks (001 chapter 8) run through the deck reader:
//! recirculation keeps the pebble count and adds one pass per discharge; the save that
//! pack_and_recirc writes loads into earthquake.inp with its pass counts and slips, and the
//! vessel then moves with the deck's earthquake (001 eq 7.1).

use std::path::Path;

use grainflow::io::pebbles::save::Save;
use grainflow::io::pebbles::Deck;
use grainflow::scene::Method;
use grainflow::sim::Simulation;
use grainflow::walls::Motion;
use grainflow_validate::validation::pebbles::{shorten, PACK_AND_RECIRC};

const EARTHQUAKE: &str = include_str!("../../../scenes/pebbles/earthquake.inp");

fn recirculated() -> Simulation {
    let text = shorten(
        PACK_AND_RECIRC,
        &[
            ("number_of_pebbles", "number_of_pebbles 150"),
            ("runs", "runs 8000"),
            ("recirculate_params", "recirculate_params 1.6 0.05 0.3"),
        ],
    );
    run_deck(&text)
}

#[test]
fn recirculation_conserves_pebbles_and_counts_passes_then_the_save_loads_into_the_earthquake_deck()
{
    let sim = recirculated();
    assert_recirculated(&sim, 150);
    let d = sim.world.doors;
    // Doors open at most once per door_closed_time after first_door_open_time.
    assert!(
        d.first_discharge >= 0.3 && d.discharge_rate() <= 1.0 / 0.05 + 1e-9,
        "{d:?}"
    );

    // Save, as `get_run … | get_save_info` would, and load it into earthquake.inp.
    let dir = std::env::temp_dir().join(format!("grainflow-pebbles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let save = Save::of(&sim);
    save.write(&dir.join("pack_and_recirc_save"))
        .expect("writes");
    assert_eq!(
        Save::read(&dir.join("pack_and_recirc_save")).expect("reads"),
        save
    );
    let text = shorten(
        EARTHQUAKE,
        &[
            ("number_of_pebbles", "number_of_pebbles 150"),
            ("runs", "runs 300"),
        ],
    );
    let run = Deck::parse(&text, "earthquake.inp")
        .and_then(|deck| deck.translate(Path::new("."), std::slice::from_ref(&dir)))
        .expect("translates");
    assert!(run.restore.is_some());
    assert!(run
        .scene
        .walls
        .iter()
        .all(|w| matches!(&w.motion, Motion::Earthquake { waves } if waves.len() == 1 && waves[0].offset == 1.0)));
    let mut eq = Simulation::new(run.scene, Path::new(".")).expect("builds");
    run.restore
        .as_ref()
        .expect("save")
        .restore(&mut eq)
        .expect("restores");
    let again = Save::of(&eq);
    // Same pebbles (ids renumbered in save order), same passes, same slips.
    assert_eq!(again.pebbles.len(), save.pebbles.len());
    for (a, b) in again.pebbles.iter().zip(&save.pebbles) {
        assert_eq!(
            (a.pos, a.vel, a.omega, a.passes),
            (b.pos, b.vel, b.omega, b.passes)
        );
    }
    assert!(!save.slips.is_empty() && !save.surface_slips.is_empty());
    assert_eq!(again.slips, save.slips);
    assert_eq!(again.surface_slips, save.surface_slips);
    for _ in 0..eq.total_steps() {
        eq.step().expect("stable");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn loose_fill_drops_and_the_positions_dump_round_trips() {
    // pack_and_recirc.inp has no packing directive: initial_packing 0.10 (drop and compact).
    let text = shorten(
        PACK_AND_RECIRC,
        &[
            ("number_of_pebbles", "number_of_pebbles 100"),
            ("runs", "runs 10"),
        ],
    );
    let run = Deck::parse(&text, "t.inp")
        .and_then(|d| d.translate(Path::new("."), &[]))
        .expect("ok");
    let sim = Simulation::new(run.scene, Path::new(".")).expect("builds");
    let dir = std::env::temp_dir().join(format!("grainflow-positions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    grainflow::io::pebbles::save::write_positions(&dir.join("pos"), &sim, 100.0).expect("writes");
    let deck = shorten(
        PACK_AND_RECIRC,
        &[
            ("number_of_pebbles", "number_of_pebbles 100"),
            ("load_positions_divide", "load_positions_divide pos 100.0"),
        ],
    );
    let run = Deck::parse(&deck, "l.inp")
        .and_then(|d| d.translate(&dir, &[]))
        .expect("ok");
    let loaded = Simulation::new(run.scene, &dir).expect("builds");
    let mut a: Vec<_> = sim.world.particles.pos.clone();
    let mut b: Vec<_> = loaded.world.particles.pos.clone();
    a.sort_by(|x, y| x.z.total_cmp(&y.z));
    b.sort_by(|x, y| x.z.total_cmp(&y.z));
    for (x, y) in a.iter().zip(&b) {
        assert!((*x - *y).length() < 1e-12 * x.length().max(1.0));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dump_frequency_writes_the_overlaps_of_touching_pairs() {
    // 001 §4.3 dump_frequency: a dump of the overlaps every n steps and always at the end.
    let text = shorten(
        grainflow_validate::validation::pebbles::PACKING,
        &[
            ("vessel_radius", "vessel_radius 0.0 0.15"),
            ("number_of_pebbles", "number_of_pebbles 120"),
            ("runs", "runs 250"),
            ("dump_frequency", "dump_frequency 100"),
        ],
    );
    let run = Deck::parse(&text, "d.inp")
        .and_then(|d| d.translate(Path::new("."), &[]))
        .expect("translates");
    let mut sim = Simulation::new(run.scene.clone(), Path::new(".")).expect("builds");
    let dir = std::env::temp_dir().join(format!("grainflow-overlaps-{}", std::process::id()));
    let mut out = grainflow::io::pebbles::output::DeckOutput::new(&dir, &run, &sim).expect("opens");
    for _ in 0..sim.total_steps() {
        sim.step().expect("stable");
        out.observe(&sim).expect("writes");
    }
    out.finish(&sim).expect("finishes");
    let text = std::fs::read_to_string(dir.join("d.out")).expect("reads");
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("overlaps "))
        .collect();
    // Steps 100 and 200, and the end at 250.
    let steps: Vec<&str> = heads
        .iter()
        .map(|h| h.split(' ').nth(2).unwrap_or(""))
        .collect();
    assert_eq!(steps, ["100", "200", "250"], "{heads:?}");
    // The last dump lists exactly the overlapping pairs of the final state.
    let p = &sim.world.particles;
    let mut want = 0;
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            want += usize::from(p.pos[i].distance(p.pos[j]) < p.radius[i] + p.radius[j]);
        }
    }
    assert!(want > 10, "a settling bed touches: {want}");
    assert!(heads[2].ends_with(&format!("count {want}")), "{}", heads[2]);
    let last = text.rsplit("overlaps step 250").next().unwrap_or("");
    for line in last.lines().skip(1).take_while(|l| *l != "end_overlaps") {
        let l: f64 = line
            .split(' ')
            .nth(2)
            .and_then(|x| x.parse().ok())
            .expect("l");
        assert!(l > 0.0 && l < 0.3 * 0.02, "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pebble_rests_on_the_floor_at_mg_over_the_vessel_hooke_with_its_core_shell_mass() {
    // 001 eq 3.7 at rest: h_v l = m g, with m from eq 3.5 (pebble_radius, pebble_density) and
    // h_v = pebble_vessel_hooke (pebble_pebble_hooke plays no part against the floor). The
    // dashpot keeps forward Euler stable on the floor contact: |1 + λ alpha| < 1.
    use grainflow::io::pebbles::translate::STANDARD_GRAVITY;
    for (hooke, core_density) in [(1.0e5, 2000.0), (2.0e5, 0.0)] {
        let deck = format!(
            "vessel_radius 0.0 0.1\npebble_radius 0.01 0.02\nnumber_of_pebbles 1\n\
             pebble_density {core_density} 1000.0\npebble_vessel_hooke {hooke}\n\
             pebble_pebble_hooke 1.0e6\ndash_pot2 60.0 60.0\nkinetic_friction 0.4\n\
             alpha 0.0001\nruns 5000\nuse_simple_integrator\nrandom_packing_method 10\n\
             floor_location 0.0\ndone\n"
        );
        let run = Deck::parse(&deck, "rest.inp")
            .and_then(|d| d.translate(Path::new("."), &[]))
            .expect("translates");
        let mut sim = Simulation::new(run.scene, Path::new(".")).expect("builds");
        for _ in 0..sim.total_steps() {
            sim.step().expect("stable");
        }
        let overlap = 0.02 - sim.world.particles.pos[0].z;
        // eq 3.5: m = 4/3 π [ρ_c r_c³ + ρ_o (r_o³ − r_c³)] with r_c = 0.01 m, r_o = 0.02 m.
        let mass = 4.0 / 3.0
            * std::f64::consts::PI
            * (core_density * 0.01f64.powi(3) + 1000.0 * (0.02f64.powi(3) - 0.01f64.powi(3)));
        let want = mass * STANDARD_GRAVITY / hooke;
        assert!(
            (overlap / want - 1.0).abs() < 1e-3,
            "h = {hooke}: overlap {overlap} vs m g / h = {want}"
        );
    }
}

#[test]
fn euler_decks_take_each_alpha_in_as_many_steps_as_keep_a_contact_from_growing() {
    // The samples' pebbles (001 §8; eq 3.5–3.6: m = 0.0377 kg, I = 5.53e-6 kg m², r = 0.02 m)
    // with C∥ = 200 N s/m: a pair's tangential mode has γ = 2 C∥ (1/m + r²/I) = 39 500 /s,
    // γ alpha = 3.95 at alpha = 1e-4 s, past Euler's bound of 2; at alpha/2 it is 1.98 and
    // every mode of an isolated contact decays (integrator::euler_substeps).
    let translate = |text: &str| {
        Deck::parse(text, "pack_and_recirc.inp")
            .and_then(|d| d.translate(Path::new("."), &[]))
            .expect("translates")
    };
    let run = translate(PACK_AND_RECIRC);
    let substeps = |r: &grainflow::io::pebbles::translate::DeckRun| match r.scene.simulation.method
    {
        Method::Soft(o) => o.substeps,
        other => panic!("a deck runs soft spheres, got {other:?}"),
    };
    assert_eq!(substeps(&run), 2);
    assert!(
        run.notes.iter().any(|n| n.contains("2 Euler steps")),
        "{:?}",
        run.notes
    );
    let half = translate(&shorten(PACK_AND_RECIRC, &[("alpha", "alpha 0.00005")]));
    assert_eq!(substeps(&half), 1);
    assert!(half.notes.iter().all(|n| !n.contains("Euler steps")));
}

const CONES: &str = include_str!("../../../scenes/pebbles/cones.inp");
const INDENTED: &str = include_str!("../../../scenes/pebbles/indented.inp");

/// A recirculating run kept its `count` pebbles and discharged at least three, each adding one
/// pass to the pebble that left.
fn assert_recirculated(sim: &Simulation, count: usize) {
    let p = &sim.world.particles;
    let d = sim.world.doors;
    assert_eq!(p.len(), count);
    assert!(d.discharged >= 3, "{d:?}");
    let passes: u64 = p.passes.iter().map(|&n| u64::from(n)).sum();
    assert_eq!(passes, d.discharged);
}

/// Translates and runs a deck (files relative to the working directory) to its end.
fn run_deck(text: &str) -> Simulation {
    let run = Deck::parse(text, "t.inp")
        .and_then(|d| d.translate(Path::new("."), &[]))
        .expect("translates");
    let mut sim = Simulation::new(run.scene, Path::new(".")).expect("builds");
    for _ in 0..sim.total_steps() {
        sim.step().expect("stable");
    }
    sim
}

#[test]
fn three_outlet_cones_discharge_in_turn_and_keep_every_pebble() {
    // cones.inp shortened: pebbles fall through the base's three holes and cones to the doors;
    // the doors open in turn (chute k for the k-th discharge, 001 chapter 6), so three or more
    // discharges mean every cone passed pebbles. Every pebble stays in the vessel (R = 0.3 m),
    // above the doors.
    let sim = run_deck(&shorten(
        CONES,
        &[
            ("number_of_pebbles", "number_of_pebbles 150"),
            ("runs", "runs 8000"),
            ("recirculate_params", "recirculate_params 1.0 0.05 0.3"),
        ],
    ));
    assert_recirculated(&sim, 150);
    let p = &sim.world.particles;
    let door = sim.scene.recirculation.as_ref().expect("r").chutes[0].door;
    for (k, x) in p.pos.iter().enumerate() {
        assert!(
            x.truncate().length() < 0.3 && x.z > door,
            "pebble {k} at {x:?}"
        );
    }
}

#[test]
fn pebbles_settle_in_an_indented_vessel_without_leaving_it() {
    // indented.inp shortened: a bed 0.65 m deep settles against a wall with slots 0.1 m wide
    // through it (x ∈ [−0.25, 0.25] turned to 0° for z ∈ [0.4, 0.9]; to 90°, −45° and 180° for
    // z ∈ [1.0, 1.5]). Every pebble stays in the cylinder or a slot (to an overlap of 1 mm).
    let sim = run_deck(&shorten(
        INDENTED,
        &[
            ("number_of_pebbles", "number_of_pebbles 800"),
            ("runs", "runs 3000"),
        ],
    ));
    let p = &sim.world.particles;
    assert_eq!(p.len(), 800);
    let slots = [(0.0f64, 0.4), (90.0, 1.0), (-45.0, 1.0), (180.0, 1.0)];
    for (k, x) in p.pos.iter().enumerate() {
        let inside = x.truncate().length() < 0.15 + 1e-3
            || slots.iter().any(|&(a, z0)| {
                let (s, c) = a.to_radians().sin_cos();
                let (u, w) = (c * x.x + s * x.y, -s * x.x + c * x.y);
                u.abs() < 0.25
                    && w.abs() < 0.05 + 1e-3
                    && (z0 - 1e-3..z0 + 0.5 + 1e-3).contains(&x.z)
            });
        assert!(inside && x.z > 0.0, "pebble {k} at {x:?}");
    }
}
