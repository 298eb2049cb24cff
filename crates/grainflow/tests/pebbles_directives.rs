//! The effect of every PEBBLES directive (001 chapter 4; issue 7): each row of [`rows`]
//! translates a small deck without and with one directive and checks what the directive
//! changes in the translated run, with the value the directive gave or the default and
//! formula chapter 4 (or the equation it names) states. The last
//! assertion asks for a row for every name of `DIRECTIVES`. Translation only (and
//! `Simulation::new` for the few effects seen in the made pebbles): the file runs in a second.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use grainflow::contact::pebbles::{PebblesFriction, StaticFriction};
use grainflow::contact::{Normal, Tangential, Touch};
use grainflow::io::pebbles::directives::DIRECTIVES;
use grainflow::io::pebbles::translate::DeckRun;
use grainflow::io::pebbles::Deck;
use grainflow::scene::{Cadence, ForceSpec, ProbabilitySpec, TalliesSpec, WearSpec};
use grainflow::scene::{
    Chute, Inlet, Integrator, ListSource, Method, PackSource, Packing, ParticleSource,
    Recirculation, TimeStep,
};
use grainflow::scene::{Motion, ShapeSpec, Side};
use grainflow::sim::Simulation;
use grainflow::DVec3;

#[path = "pebbles_directives/parameters.rs"]
mod parameters;
#[path = "pebbles_directives/setup.rs"]
mod setup;

type Run = grainflow::Result<DeckRun>;

/// One directive, two decks (the lines before `done`), and the checks on (without, with).
struct Row {
    name: &'static str,
    without: &'static str,
    with: &'static str,
    effect: fn(&Run, &Run),
}

fn row(name: &'static str, without: &'static str, with: &'static str, f: fn(&Run, &Run)) -> Row {
    Row {
        name,
        without,
        with,
        effect: f,
    }
}

/// The indentation example of 001 §4.7.2 (with `angles` for two of its angles).
const INDENTATION: &str = "vessel_radius 0.0 0.15
start_geometry
start_indentation
start_pattern
plane -1.0 0.0 0.0 0.25
plane 1.0 0.0 0.0 0.25
plane 0.0 -1.0 0.0 0.05
plane 0.0 1.0 0.0 0.05
plane 0.0 0.0 -1.0 0.5
plane 0.0 0.0 1.0 0.0
end_pattern
min_max 0.4 2.0
start_row
row_min 0.4
angle 0.0
end_row
start_row
row_min 1.0
angle 90.0
angles 2 -45.0 180.0
end_row
end_indentation
end_geometry";

/// Points (m) inside the example's pockets: row 1 at 0°, row 2 at 90°, 180° and −45°; and
/// one beyond the wall at 45° in row 2, where there is none. (The example's pattern,
/// x ∈ [−0.25, 0.25] in a vessel of radius 0.15, is a slot through both sides: the pocket at
/// 180° also opens at 0°.)
const POCKET_0: DVec3 = DVec3::new(0.2, 0.0, 0.6);
const POCKET_90: DVec3 = DVec3::new(0.0, 0.2, 1.2);
const POCKET_180: DVec3 = DVec3::new(-0.2, 0.0, 1.2);
const POCKET_M45: DVec3 = DVec3::new(0.141, -0.141, 1.2);
const NO_POCKET: DVec3 = DVec3::new(0.141, 0.141, 1.2);

/// Whether a pebble of radius 0.01 m at `pos` touches a wall of the run (or is behind one).
fn walled(r: &Run, pos: DVec3) -> bool {
    ok(r)
        .scene
        .walls
        .iter()
        .any(|w| w.shape.build().contact(pos, 0.01).is_some())
}

/// A block directive of the indentation example: without it the vessel is the plain
/// cylinder, with it pebbles fit in the pockets at each row's heights and angles.
fn indented(name: &'static str) -> Row {
    row(name, "vessel_radius 0.0 0.15", INDENTATION, |a, b| {
        let pockets = [POCKET_0, POCKET_90, POCKET_180, POCKET_M45];
        assert!(pockets.iter().all(|&p| walled(a, p)));
        assert!(pockets.iter().all(|&p| !walled(b, p)));
        assert!(walled(b, NO_POCKET));
        assert!(shapes(b).iter().any(|s| matches!(
            s,
            ShapeSpec::IndentedCylinder { radius, indentations } if *radius == 0.15 && indentations.len() == 1
        )));
    })
}

/// The folder with the files the load and table directives read.
fn files() -> PathBuf {
    std::env::temp_dir().join(format!("grainflow-directives-{}", std::process::id()))
}

/// Three positions (m), highest first; `pos.txt` holds them (one line with commas).
const POSITIONS: [[f64; 3]; 3] = [[0.1, 0.2, 0.9], [0.3, -0.2, 0.5], [0.0, 0.0, 0.2]];

/// Two pebbles, one pair slip and one surface slip.
const SAVE: &str = "pebbles_save 1\nstep 10\ntime 1e-3\npebbles 2\n\
    7 0 0 0.2 0 0 0.5 0 0 0 0.1 3\n\
    9 0 0 0.4 0 0 0 0 1 0 0.1 0\n\
    slips 1\n7 9 1e-5 0 0\nsurface_slips 1\n7 0 0 2e-5 0\nend_save\n";

/// Four displacement rows (m); the deck reads the first three.
const TABLE: [[f64; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [0.01, 0.0, 0.0],
    [0.03, 0.0, 0.02],
    [9.0, 9.0, 9.0],
];

fn write_files(dir: &Path) {
    std::fs::create_dir_all(dir).expect("temp dir");
    let p = POSITIONS;
    let text = format!(
        "{} {} {}\n{}, {}, {}\n{} {} {}\n",
        p[0][0], p[0][1], p[0][2], p[1][0], p[1][1], p[1][2], p[2][0], p[2][1], p[2][2]
    );
    std::fs::write(dir.join("pos.txt"), text).expect("writes");
    std::fs::write(dir.join("s.save"), SAVE).expect("writes");
    let table: String = TABLE
        .iter()
        .map(|r| format!("{} {} {}\n", r[0], r[1], r[2]))
        .collect();
    std::fs::write(dir.join("table.txt"), table).expect("writes");
}

/// The deck `lines` + `done`, translated with files from `dir`.
fn translate_in(lines: &str, dir: &Path) -> Run {
    let text = if lines.is_empty() {
        "done\n".to_string()
    } else {
        format!("{lines}\ndone\n")
    };
    Deck::parse(&text, "t.inp").and_then(|d| d.translate(dir, &[]))
}

/// The same, for decks that read no file.
fn translate(lines: &str) -> Run {
    translate_in(lines, Path::new("."))
}

fn ok(r: &Run) -> &DeckRun {
    match r {
        Ok(run) => run,
        Err(e) => panic!("the deck should translate: {e}"),
    }
}

/// The integrator of a translated deck (always the soft method).
fn integrator(r: &Run) -> Integrator {
    match ok(r).scene.simulation.method {
        Method::Soft(o) => o.integrator,
        other => panic!("a deck runs soft spheres, got {other:?}"),
    }
}

fn err(r: &Run) -> String {
    match r {
        Ok(_) => panic!("the deck should be refused"),
        Err(e) => e.to_string(),
    }
}

/// Two runs alike in every field.
fn assert_same(a: &DeckRun, b: &DeckRun) {
    assert_eq!(a.scene, b.scene);
    assert_eq!(a.restore, b.restore);
    assert_eq!(a.dump_positions, b.dump_positions);
    assert_eq!(a.cadence, b.cadence);
    assert_eq!(a.notes, b.notes);
}

fn friction(r: &Run) -> PebblesFriction {
    match &ok(r).scene.contact.tangential {
        Tangential::Pebbles(f) => *f,
        other => panic!("not the PEBBLES law: {other:?}"),
    }
}

fn static_friction(r: &Run) -> Option<StaticFriction> {
    friction(r).static_friction
}

/// (h, h_vessel, C⊥) of the normal law.
fn normal(r: &Run) -> [f64; 3] {
    match ok(r).scene.contact.normal {
        Normal::Pebbles {
            hooke,
            vessel_hooke,
            dash_pot,
        } => [hooke, vessel_hooke, dash_pot],
        ref other => panic!("not the PEBBLES law: {other:?}"),
    }
}

/// (pebble–pebble, pebble–vessel) sliding friction of the materials and their pair override.
fn sliding(r: &Run) -> [f64; 3] {
    let s = &ok(r).scene;
    [
        s.materials[0].sliding_friction,
        s.materials[1].sliding_friction,
        s.pairs[0].sliding_friction.expect("pair override"),
    ]
}

fn tallies(r: &Run) -> TalliesSpec {
    ok(r).scene.output.tallies.clone().expect("tallies")
}

/// (count, radius, packing, min, max, profile, inner radius) of a packed fill.
type Pack = (usize, f64, Packing, DVec3, DVec3, Vec<[f64; 2]>, f64);

fn pack(r: &Run) -> Pack {
    match &ok(r).scene.particles[..] {
        [ParticleSource::Pack(PackSource {
            count,
            radius,
            packing,
            min,
            max,
            profile,
            inner_radius,
            ..
        })] => (
            *count,
            *radius,
            *packing,
            *min,
            *max,
            profile.clone(),
            *inner_radius,
        ),
        other => panic!("not a pack: {other:?}"),
    }
}

/// (position, radius, velocity, angular velocity) of a listed fill.
fn listed(r: &Run) -> Vec<(DVec3, f64, DVec3, DVec3)> {
    match &ok(r).scene.particles[..] {
        [ParticleSource::List(ListSource { spheres, .. })] => spheres
            .iter()
            .map(|s| (s.pos, s.radius, s.vel, s.omega))
            .collect(),
        other => panic!("not a list: {other:?}"),
    }
}

fn shapes(r: &Run) -> Vec<ShapeSpec> {
    ok(r).scene.walls.iter().map(|w| w.shape.clone()).collect()
}

/// The walls of `b` that `a` does not have.
fn added(a: &Run, b: &Run) -> Vec<ShapeSpec> {
    let old = shapes(a);
    shapes(b).into_iter().filter(|s| !old.contains(s)).collect()
}

fn motions(r: &Run) -> Vec<Motion> {
    ok(r).scene.walls.iter().map(|w| w.motion.clone()).collect()
}

/// The one motion every wall shares.
fn motion(r: &Run) -> Motion {
    let m = motions(r);
    assert!(m.iter().all(|x| *x == m[0]), "walls move alike");
    m[0].clone()
}

fn recirculation(r: &Run) -> Option<Recirculation> {
    ok(r).scene.recirculation.clone()
}

fn v(a: [f64; 3]) -> DVec3 {
    DVec3::from_array(a)
}

/// Mass of a core/shell pebble, 001 eq 3.5.
fn mass_eq_3_5(r_c: f64, r_o: f64, rho_c: f64, rho_o: f64) -> f64 {
    4.0 / 3.0 * PI * (rho_c * r_c.powi(3) + rho_o * (r_o.powi(3) - r_c.powi(3)))
}

/// Moment of inertia of a core/shell pebble, 001 eq 3.6.
fn inertia_eq_3_6(r_c: f64, r_o: f64, rho_c: f64, rho_o: f64) -> f64 {
    8.0 / 15.0 * PI * (rho_c * r_c.powi(5) + rho_o * (r_o.powi(5) - r_c.powi(5)))
}

/// Every made pebble has mass and inertia of eq 3.5 and 3.6 (relative 1e-12).
fn assert_pebbles(r: &Run, [r_c, r_o, rho_c, rho_o]: [f64; 4]) {
    let sim = Simulation::new(ok(r).scene.clone(), Path::new(".")).expect("builds");
    let p = &sim.world.particles;
    let (m, i) = (
        mass_eq_3_5(r_c, r_o, rho_c, rho_o),
        inertia_eq_3_6(r_c, r_o, rho_c, rho_o),
    );
    assert!(p.len() == 5);
    for k in 0..p.len() {
        assert_eq!(p.radius[k], r_o);
        assert!((p.mass[k] - m).abs() < 1e-12 * m, "{} vs {m}", p.mass[k]);
        assert!(
            (p.inertia[k] - i).abs() < 1e-12 * i,
            "{} vs {i}",
            p.inertia[k]
        );
    }
}

/// A deck with an outlet cone (R = 1 at z = 0.5, slope 1: radius = z + 0.5) above a low floor.
const CONE: &str = "floor_location -8.0\ncone 0.5 1.0";
/// The same with an exit chute: hole radius 2.5 × 0.1 = 0.25 m, 0.1 m deep.
const CHUTE: &str = "floor_location -8.0\ncone 0.5 1.0\nexit_chute 2.5 0.1";
/// The same, recirculating.
const RECIRC: &str =
    "floor_location -8.0\ncone 0.5 1.0\nexit_chute 2.5 0.1\nrecirculate_params 2.0 0.05 0.3";

/// The walls an exit chute of hole radius r_h and depth `depth` adds under the cone of
/// [`CONE`]: the cone cut where m z + b = r_h with a tube below it, as a hopper of one hole as
/// wide as the vessel (so the lip is one edge), and a door (001 §4.8).
fn assert_chute(a: &Run, b: &Run, r_h: f64, depth: f64) {
    let (m, b0) = (1.0, 0.5);
    let z_cut = (r_h - b0) / m;
    let door = z_cut - depth;
    let new = added(a, b);
    assert!(new.contains(&ShapeSpec::Hopper {
        height: 0.5,
        centers: vec![[0.0, 0.0]],
        radius: 1.0,
        slope: m,
        bottom: z_cut,
        tube: depth,
    }));
    assert!(new.iter().any(|s| matches!(s,
        ShapeSpec::Disk { center, normal, radius, .. }
            if *center == DVec3::new(0.0, 0.0, door) && *normal == DVec3::Z && *radius >= r_h)));
    assert_eq!(new.len(), 2, "{new:?}");
}

/// The walls a deck builds, as the run sees them.
fn vessel_of(lines: &str) -> Simulation {
    Simulation::new(ok(&translate(lines)).scene.clone(), Path::new(".")).expect("builds")
}

/// Every wall member of `sim` touching a sphere of radius `r` at `pos`.
fn wall_touches(sim: &Simulation, pos: DVec3, r: f64) -> Vec<Touch> {
    sim.world
        .walls
        .iter()
        .flat_map(|w| w.shape.members())
        .filter_map(|m| m.contact(pos, r))
        .collect()
}

#[test]
fn a_pebble_over_the_chute_lip_feels_the_vessel_once() {
    // The deck of CHUTE: cone radius z + 0.5 cut at z = −0.25 (radius 0.25), tube and door
    // at −0.35, so a pebble's centre stays above −0.25.
    // A pebble of radius 0.1 moved down the cone, over the lip and into the tube touches one
    // wall member at a time (the lip is a convex edge: one contact), and the overlap summed
    // over the members moves by at most a few steps' length per step (no part missed). A lip
    // counted by the cone's cut edge and by the tube's rim would give two.
    let sim = vessel_of(CHUTE);
    let r = 0.1;
    for (from, to) in [
        (DVec3::new(0.3, 0.01, 0.0), DVec3::new(0.16, 0.0, -0.245)),
        (DVec3::new(0.28, 0.0, -0.05), DVec3::new(0.155, 0.02, -0.24)),
    ] {
        let steps = 100_000;
        let step = from.distance(to) / steps as f64;
        let (mut last, mut lip) = (None::<f64>, 0);
        for i in 0..=steps {
            let pos = from.lerp(to, i as f64 / steps as f64);
            let touching: Vec<f64> = wall_touches(&sim, pos, r)
                .iter()
                .map(|t| t.overlap)
                .collect();
            assert!(touching.len() <= 1, "{touching:?} at {pos:?}");
            let sum: f64 = touching.iter().sum();
            if let Some(prev) = last {
                assert!((sum - prev).abs() <= 3.0 * step + 1e-12, "jump at {pos:?}");
            }
            last = Some(sum);
            // Nearest the lip circle (ρ = 0.25, z = −0.25), above the tube and below the
            // cone's cut along its generator: the lip alone can touch there.
            let (rho, dz) = (pos.truncate().length() - 0.25, pos.z + 0.25);
            if dz > 0.0 && rho + dz < 0.0 && rho.hypot(dz) < r {
                assert_eq!(touching.len(), 1, "the lip at {pos:?}");
                lip += 1;
            }
        }
        assert!(
            lip > 1000,
            "the path touches the lip at {lip} of {steps} steps"
        );
    }
}

#[test]
fn a_pebble_in_a_vat_corner_rests_on_the_base_around_the_cone() {
    // A vat of half-widths 1 with the cone of CONE (radius z + 0.5, 1 at z = 0.5): a pebble of
    // radius 0.1 in a corner (ρ = 1.20, outside the cone's top) 0.05 above z = 0.5 touches one
    // wall member, the hopper's base, overlapping by 0.05 and pushed up. (With the bare cone
    // wall of before it touched nothing there, fell, and met the cone from behind near
    // z = 0.3 with an overlap of about four radii.) Below the base nothing touches it.
    let sim = vessel_of(&format!("rectangular_vat 1.0 1.0\n{CONE}"));
    let on_base = wall_touches(&sim, DVec3::new(0.85, 0.85, 0.55), 0.1);
    assert_eq!(on_base.len(), 1, "{on_base:?}");
    assert_eq!(on_base[0].normal, DVec3::NEG_Z);
    assert!((on_base[0].overlap - 0.05).abs() < 1e-12, "{on_base:?}");
    assert!(wall_touches(&sim, DVec3::new(0.85, 0.85, 0.298), 0.1).is_empty());
}

/// `block -0.3 -0.2 0.0 0.1 0.2 0.5` as a union member.
fn block() -> ShapeSpec {
    ShapeSpec::Block {
        min: DVec3::new(-0.3, -0.2, 0.0),
        max: DVec3::new(0.1, 0.2, 0.5),
        side: None,
    }
}

/// `cylinder 0.2 0.5 0.1 -1.0 2.0` as union members: a solid finite cylinder, its mantle and two end disks.
fn cylinder() -> Vec<ShapeSpec> {
    let disk = |z: f64| ShapeSpec::Disk {
        center: DVec3::new(0.5, 0.1, z),
        normal: DVec3::Z,
        radius: 0.2,
        inner_radius: 0.0,
    };
    vec![
        ShapeSpec::Cylinder {
            origin: DVec3::new(0.5, 0.1, 0.5),
            axis: DVec3::Z,
            radius: 0.2,
            side: Side::Both,
            length: Some(3.0),
        },
        disk(-1.0),
        disk(2.0),
    ]
}

/// The members of every union wall of a run.
fn unions(r: &Run) -> Vec<Vec<ShapeSpec>> {
    shapes(r)
        .into_iter()
        .filter_map(|s| match s {
            ShapeSpec::Union { members } => Some(members),
            _ => None,
        })
        .collect()
}

/// Displacement and wall velocity of one wave at time t, 001 eq 7.1–7.2.
fn wave_eq_7_1(t: f64, w: [f64; 8]) -> (DVec3, DVec3) {
    let [s, _, dx, dy, dz, p, c, o] = w;
    let d = DVec3::new(dx, dy, dz);
    let arg = (t - s) * 2.0 * PI / p + c;
    (d * (arg.sin() + o), 2.0 * PI * d / p * arg.cos())
}

fn assert_close(a: DVec3, b: DVec3) {
    assert!(
        (a - b).length() <= 1e-12 * b.length().max(1e-3),
        "{a} vs {b}"
    );
}

/// Every row: the parameters and tallies of 001 §4.1–4.3, then packing, loading, earthquakes
/// and geometry (§4.4–4.8).
fn rows() -> Vec<Row> {
    let mut rows = parameters::rows();
    rows.extend(setup::rows());
    rows
}

#[test]
fn every_directive_has_its_effect_on_the_translated_run() {
    let dir = files();
    write_files(&dir);
    let rows = rows();
    for r in &rows {
        eprintln!("row {}", r.name);
        let (a, b) = (translate_in(r.without, &dir), translate_in(r.with, &dir));
        let line = r
            .with
            .lines()
            .position(|l| l.split_whitespace().next() == Some(r.name));
        assert!(line.is_some(), "{}: the deck with it must name it", r.name);
        (r.effect)(&a, &b);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let missing: Vec<&str> = DIRECTIVES
        .iter()
        .map(|s| s.name)
        .filter(|n| rows.iter().all(|r| r.name != *n))
        .collect();
    assert!(
        missing.is_empty(),
        "directives without an effect row: {missing:?}"
    );
    for r in &rows {
        assert_eq!(
            rows.iter().filter(|o| o.name == r.name).count(),
            1,
            "{}",
            r.name
        );
    }
}

#[test]
fn dump_positions_names_a_file_in_out_never_a_path_out_of_it() {
    for name in ["../../x.txt", "/tmp/x.txt", "sub/x.txt", "..", "."] {
        let e = err(&translate(&format!("dump_positions {name}")));
        assert!(
            e.starts_with("t.inp:1: dump_positions: ")
                && e.ends_with("must be a plain file name: the file is written into --out"),
            "{e}"
        );
    }
    assert!(ok(&translate("dump_positions_mult x.txt 2"))
        .dump_positions
        .is_some());
}

#[test]
fn a_deck_of_more_pebbles_than_the_limit_is_refused_before_it_packs() {
    let e = err(&translate("number_of_pebbles 1000000000"));
    assert!(
        e.contains("number_of_pebbles") && e.ends_with("1e9 is more than the limit 1e8"),
        "{e}"
    );
}
