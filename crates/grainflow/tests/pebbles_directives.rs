//! The effect of every PEBBLES directive (001 chapter 4; issue 7): each row of [`rows`]
//! translates a small deck without and with one directive and checks what the directive
//! changes in the translated run, with the value the directive gave or the default and
//! formula chapter 4 (or the equation it names) states. Directives refused on purpose
//! (indentations, more than one cone) are checked to be refused at their line. The last
//! assertion asks for a row for every name of `DIRECTIVES`. Translation only (and
//! `Simulation::new` for the few effects seen in the made pebbles): the file runs in a second.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use grainflow::contact::pebbles::{PebblesFriction, StaticFriction};
use grainflow::contact::{Normal, Tangential};
use grainflow::drive::{Chute, Inlet, Recirculation};
use grainflow::fill::prime::Packing;
use grainflow::integrator::Integrator;
use grainflow::io::pebbles::directives::DIRECTIVES;
use grainflow::io::pebbles::translate::DeckRun;
use grainflow::io::pebbles::Deck;
use grainflow::io::tallies::{Cadence, ForceSpec, ProbabilitySpec, TalliesSpec, WearSpec};
use grainflow::scene::{ParticleSource, TimeStep};
use grainflow::sim::Simulation;
use grainflow::walls::{Motion, ShapeSpec, Side};
use grainflow::DVec3;

type Run = grainflow::Result<DeckRun>;

/// What a row expects of the deck with its directive.
enum Effect {
    /// Checks on (without, with).
    Check(fn(&Run, &Run)),
    /// `with` is refused by a message `t.inp:LINE: NAME…` at the first line naming `NAME`.
    Refused(&'static str),
}

/// One directive, two decks (the lines before `done`), and the effect.
struct Row {
    name: &'static str,
    without: &'static str,
    with: &'static str,
    effect: Effect,
}

fn row(name: &'static str, without: &'static str, with: &'static str, f: fn(&Run, &Run)) -> Row {
    Row {
        name,
        without,
        with,
        effect: Effect::Check(f),
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

fn refused(name: &'static str) -> Row {
    Row {
        name,
        without: "vessel_radius 0.0 0.15",
        with: INDENTATION,
        effect: Effect::Refused("start_indentation"),
    }
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
        [ParticleSource::Pack {
            count,
            radius,
            packing,
            min,
            max,
            profile,
            inner_radius,
            ..
        }] => (
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
        [ParticleSource::List { spheres, .. }] => spheres
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
/// [`CONE`]: the cone cut where m z + b = r_h, a tube below it and a door (001 §4.8).
fn assert_chute(a: &Run, b: &Run, r_h: f64, depth: f64) {
    let (m, b0) = (1.0, 0.5);
    let z_cut = (r_h - b0) / m;
    let door = z_cut - depth;
    let new = added(a, b);
    assert!(new.contains(&ShapeSpec::Cone {
        origin: DVec3::ZERO,
        axis: DVec3::Z,
        slope: m,
        radius0: b0,
        range: Some([z_cut, 0.5]),
    }));
    assert!(new.contains(&ShapeSpec::Cylinder {
        origin: DVec3::new(0.0, 0.0, z_cut - 0.5 * depth),
        axis: DVec3::Z,
        radius: r_h,
        side: Side::Inside,
        length: Some(depth),
    }));
    assert!(new.iter().any(|s| matches!(s,
        ShapeSpec::Disk { center, normal, radius }
            if *center == DVec3::new(0.0, 0.0, door) && *normal == DVec3::Z && *radius >= r_h)));
    assert_eq!(new.len(), 3, "{new:?}");
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

fn rows() -> Vec<Row> {
    vec![
        // 4.1
        row("done", "", "done\nkinetic_friction 0.3\nno_such_directive", |a, b| {
            // Lines after the first done are not read; a second done changes nothing.
            assert_same(ok(a), ok(b));
        }),
        row("rem", "", "rem kinetic_friction 0.3", |a, b| assert_same(ok(a), ok(b))),
        // 4.2
        row("runs", "", "runs 500", |a, b| {
            // runs × alpha is the simulated time.
            assert_eq!(ok(a).scene.simulation.duration, 10000.0 * 0.0001);
            assert_eq!(ok(b).scene.simulation.duration, 500.0 * 0.0001);
        }),
        row("number_of_pebbles", "", "number_of_pebbles 7", |a, b| {
            assert_eq!((pack(a).0, pack(b).0), (1000, 7));
        }),
        row("initial_time", "", "initial_time 2.5", |a, b| {
            assert_eq!(ok(a).scene.simulation.start_time, 0.0);
            assert_eq!(ok(b).scene.simulation.start_time, 2.5);
        }),
        row("kinetic_friction", "", "kinetic_friction 0.3", |a, b| {
            assert_eq!(friction(a).kinetic_friction, 0.1);
            assert_eq!(friction(b).kinetic_friction, 0.3);
            assert_eq!(friction(b).static_friction, None);
            assert_eq!(sliding(b), [0.3; 3]);
        }),
        row(
            "static_friction_new",
            "",
            "static_friction_new 0.5 2.0e5 0.04",
            |a, b| {
                assert_eq!(static_friction(a), None);
                let s = static_friction(b).expect("static friction");
                // One μ and one h_s for pebbles and surfaces.
                assert_eq!(
                    (s.friction, s.hooke, s.surface_friction, s.surface_hooke),
                    (0.5, 2.0e5, Some(0.5), Some(2.0e5))
                );
                assert_eq!(s.velocity_max_sqr, 0.04);
                assert_eq!(friction(b).kinetic_friction, 0.1);
                assert_eq!(sliding(b), [0.5; 3]);
            },
        ),
        row(
            "static_friction_new2",
            "",
            "static_friction_new2 0.5 2.0e5 3.0e5 0.04",
            |a, b| {
                assert_eq!(static_friction(a), None);
                let s = static_friction(b).expect("static friction");
                assert_eq!(
                    (s.friction, s.hooke, s.surface_friction, s.surface_hooke),
                    (0.5, 2.0e5, Some(0.5), Some(3.0e5))
                );
                assert_eq!(s.velocity_max_sqr, 0.04);
            },
        ),
        row(
            "static_friction_new3",
            "",
            "static_friction_new3 0.5 2.0e5 0.7 3.0e5 0.04",
            |a, b| {
                assert_eq!(static_friction(a), None);
                let s = static_friction(b).expect("static friction");
                assert_eq!(
                    (s.friction, s.hooke, s.surface_friction, s.surface_hooke),
                    (0.5, 2.0e5, Some(0.7), Some(3.0e5))
                );
                assert_eq!(s.velocity_max_sqr, 0.04);
                assert_eq!(sliding(b), [0.5, 0.7, 0.7]);
            },
        ),
        row("alpha", "", "alpha 2e-5", |a, b| {
            let (sa, sb) = (&ok(a).scene.simulation, &ok(b).scene.simulation);
            assert_eq!(sa.dt, TimeStep::Fixed(0.0001));
            assert_eq!(sb.dt, TimeStep::Fixed(2e-5));
            assert_eq!(sb.duration, 10000.0 * 2e-5);
        }),
        row("dash_pot", "", "dash_pot 7.0", |a, b| {
            assert_eq!((normal(a)[2], friction(a).dash_pot), (2.0, 2.0));
            assert_eq!((normal(b)[2], friction(b).dash_pot), (7.0, 7.0));
        }),
        row("dash_pot2", "", "dash_pot2 3.0 5.0", |a, b| {
            assert_eq!((normal(a)[2], friction(a).dash_pot), (2.0, 2.0));
            assert_eq!((normal(b)[2], friction(b).dash_pot), (3.0, 5.0));
        }),
        row(
            "seed",
            "number_of_pebbles 30",
            "number_of_pebbles 30\nseed 7",
            |a, b| {
                assert_eq!(ok(a).scene.simulation.seed, 256);
                assert_eq!(ok(b).scene.simulation.seed, 7);
                // Another seed, other initial positions; the same seed, the same ones.
                let pos = |r: &Run| {
                    let sim = Simulation::new(ok(r).scene.clone(), Path::new(".")).expect("builds");
                    let mut p = sim.world.particles.pos.clone();
                    p.sort_by(|x, y| x.z.total_cmp(&y.z));
                    p
                };
                let (pa, pb) = (pos(a), pos(b));
                assert_eq!(pa.len(), 30);
                assert_eq!(pa, pos(a));
                assert!(pa.iter().zip(&pb).all(|(x, y)| x != y));
            },
        ),
        row("pebble_pebble_hooke", "", "pebble_pebble_hooke 2.0e5", |a, b| {
            assert_eq!(normal(a), [1.0e4, 1.0e4, 2.0]);
            assert_eq!(normal(b), [2.0e5, 1.0e4, 2.0]);
        }),
        row("pebble_vessel_hooke", "", "pebble_vessel_hooke 3.0e5", |a, b| {
            assert_eq!(normal(a), [1.0e4, 1.0e4, 2.0]);
            assert_eq!(normal(b), [1.0e4, 3.0e5, 2.0]);
        }),
        row(
            "pebble_radius",
            "number_of_pebbles 5\npebble_density 2000.0 1000.0",
            "number_of_pebbles 5\npebble_density 2000.0 1000.0\npebble_radius 0.01 0.02",
            |a, b| {
                // Default 0.0 0.1: a uniform pebble (the core density does not count).
                assert_eq!(pack(a).1, 0.1);
                assert_eq!(ok(a).scene.materials[0].core, None);
                assert_pebbles(a, [0.0, 0.1, 0.0, 1000.0]);
                assert_eq!(pack(b).1, 0.02);
                let core = ok(b).scene.materials[0].core.expect("core");
                assert_eq!((core.radius, core.density), (0.01, 2000.0));
                assert_pebbles(b, [0.01, 0.02, 2000.0, 1000.0]);
            },
        ),
        row(
            "pebble_density",
            "number_of_pebbles 5\npebble_radius 0.01 0.02",
            "number_of_pebbles 5\npebble_radius 0.01 0.02\npebble_density 2000.0 1000.0",
            |a, b| {
                assert_pebbles(a, [0.01, 0.02, 0.0, 2.0]);
                assert_eq!(ok(b).scene.materials[0].density, Some(1000.0));
                assert_pebbles(b, [0.01, 0.02, 2000.0, 1000.0]);
            },
        ),
        row(
            "recirculate",
            CONE,
            "floor_location -8.0\ncone 0.5 1.0\nrecirculate 2.0 0.05 0.3 2.5 0.1",
            |a, b| {
                assert_eq!(recirculation(a), None);
                assert_chute(a, b, 2.5 * 0.1, 0.1);
                // The door of an exit chute 2.5 0.1 (001 §4.8: recirculate sets its parameters).
                assert_eq!(shapes(b), shapes(&translate(CHUTE)));
                let r_h = 2.5 * 0.1;
                let z_door = (r_h - 0.5) - 0.1;
                assert_eq!(
                    recirculation(b),
                    Some(Recirculation {
                        height: 2.0,
                        door_closed_time: 0.05,
                        first_door_open_time: 0.3,
                        chutes: vec![Chute {
                            center: [0.0, 0.0],
                            radius: r_h,
                            door: z_door
                        }],
                        inlets: Vec::new(),
                        drop_offset: [0.0, 0.0],
                    })
                );
            },
        ),
        row("recirculate_params", CHUTE, RECIRC, |a, b| {
            assert_eq!(recirculation(a), None);
            assert_eq!(shapes(a), shapes(b));
            let r = recirculation(b).expect("recirculation");
            assert_eq!(
                (r.height, r.door_closed_time, r.first_door_open_time),
                (2.0, 0.05, 0.3)
            );
            assert_eq!(r.chutes.len(), 1);
            assert_eq!(r.chutes[0].radius, 2.5 * 0.1);
        }),
        row("ppf_filename", "", "ppf_filename abcdefgh00", |a, b| {
            // Ignored by the single-processor program (001 §4.2): a note, nothing else.
            assert!(ok(a).notes.is_empty());
            let notes = &ok(b).notes;
            assert_eq!(notes.len(), 1);
            assert!(
                notes[0].starts_with("t.inp:1: ppf_filename"),
                "{}",
                notes[0]
            );
            assert_eq!(ok(a).scene, ok(b).scene);
            assert_eq!(ok(a).cadence, ok(b).cadence);
        }),
        row(
            "linear_static_friction_cutoff",
            "static_friction_new 0.5 1.0e5 0.01",
            "static_friction_new 0.5 1.0e5 0.01\nlinear_static_friction_cutoff",
            |a, b| {
                assert!(!static_friction(a).expect("static").linear_cutoff);
                assert!(static_friction(b).expect("static").linear_cutoff);
            },
        ),
        row(
            "no_linear_static_friction_cutoff",
            "static_friction_new 0.5 1.0e5 0.01\nlinear_static_friction_cutoff",
            "static_friction_new 0.5 1.0e5 0.01\nlinear_static_friction_cutoff\n\
             no_linear_static_friction_cutoff",
            |a, b| {
                assert!(static_friction(a).expect("static").linear_cutoff);
                assert!(!static_friction(b).expect("static").linear_cutoff);
            },
        ),
        row(
            "sort_pebbles",
            "load_positions pos.txt",
            "load_positions pos.txt\nsort_pebbles",
            |a, b| {
                // Loaded pebbles are sorted by height (ids follow the list order).
                let z = |r: &Run| listed(r).iter().map(|s| s.0.z).collect::<Vec<_>>();
                assert_eq!(z(a), [0.9, 0.5, 0.2]);
                assert_eq!(z(b), [0.2, 0.5, 0.9]);
            },
        ),
        row(
            "zero_long_slips_mult",
            "static_friction_new 0.5 1.0e5 0.01",
            "static_friction_new 0.5 1.0e5 0.01\nzero_long_slips_mult 1.5",
            |a, b| {
                assert_eq!(static_friction(a).expect("static").zero_long_slips, None);
                assert_eq!(
                    static_friction(b).expect("static").zero_long_slips,
                    Some(1.5)
                );
            },
        ),
        row(
            "decrease_long_slips",
            "static_friction_new 0.5 1.0e5 0.01",
            "static_friction_new 0.5 1.0e5 0.01\ndecrease_long_slips 1.1 1.0",
            |a, b| {
                assert_eq!(static_friction(a).expect("s").decrease_long_slips, None);
                assert_eq!(
                    static_friction(b).expect("s").decrease_long_slips,
                    Some([1.1, 1.0])
                );
            },
        ),
        row(
            "integration_method",
            "",
            "integration_method runge_kutta",
            |a, b| {
                assert_eq!(
                    ok(a).scene.simulation.integrator,
                    Integrator::VelocityVerlet
                );
                assert_eq!(ok(b).scene.simulation.integrator, Integrator::RungeKutta);
                for (word, method) in [
                    ("euler", Integrator::Euler),
                    ("adams_bashforth", Integrator::AdamsBashforth),
                    ("adams_moulton", Integrator::AdamsMoulton),
                ] {
                    let r = translate(&format!("integration_method {word}"));
                    assert_eq!(ok(&r).scene.simulation.integrator, method);
                }
            },
        ),
        row("use_simple_integrator", "", "use_simple_integrator", |a, b| {
            assert_eq!(
                ok(a).scene.simulation.integrator,
                Integrator::VelocityVerlet
            );
            assert_eq!(ok(b).scene.simulation.integrator, Integrator::Euler);
        }),
        // 4.3
        row("dump_frequency", "", "dump_frequency 7", |a, b| {
            assert_eq!((ok(a).cadence.dump, ok(b).cadence.dump), (100000, 7));
        }),
        row("display_frequency", "", "display_frequency 7", |a, b| {
            assert_eq!((ok(a).cadence.display, ok(b).cadence.display), (1000, 7));
        }),
        row(
            "position_display_frequency",
            "",
            "position_display_frequency 7",
            |a, b| {
                assert_eq!(
                    (ok(a).cadence.positions, ok(b).cadence.positions),
                    (100000000, 7)
                );
            },
        ),
        row(
            "energy_display_frequency",
            "",
            "energy_display_frequency 7",
            |a, b| {
                assert_eq!((ok(a).cadence.energy, ok(b).cadence.energy), (100, 7));
            },
        ),
        row("velocity_tally", "", "velocity_tally 1.0 100", |a, b| {
            assert_eq!(tallies(a).velocity, None);
            // frequency in steps of alpha.
            assert_eq!(
                tallies(b).velocity,
                Some(Cadence {
                    start: 1.0,
                    interval: 100.0 * 0.0001
                })
            );
        }),
        row(
            "probability_table",
            "",
            "probability_table 2.0 50 0.05",
            |a, b| {
                assert_eq!(tallies(a).probability, None);
                assert_eq!(
                    tallies(b).probability,
                    Some(ProbabilitySpec {
                        start: 2.0,
                        interval: 50.0 * 0.0001,
                        cell: 0.05
                    })
                );
            },
        ),
        row("calculate_pebble_wear", "", "calculate_pebble_wear", |a, b| {
            assert_eq!(tallies(a).wear, None);
            assert_eq!(
                tallies(b).wear,
                Some(WearSpec {
                    exponent: 2.0 / 3.0,
                    velocity_bins: Vec::new()
                })
            );
        }),
        row(
            "normal_force_wear_exponent",
            "calculate_pebble_wear",
            "calculate_pebble_wear\nnormal_force_wear_exponent 0.5",
            |a, b| {
                assert_eq!(tallies(a).wear.expect("wear").exponent, 2.0 / 3.0);
                assert_eq!(tallies(b).wear.expect("wear").exponent, 0.5);
            },
        ),
        row(
            "wear_velocity_bins",
            "calculate_pebble_wear",
            "calculate_pebble_wear\nwear_velocity_bins 2 1.0 2.0",
            |a, b| {
                assert!(tallies(a).wear.expect("wear").velocity_bins.is_empty());
                assert_eq!(tallies(b).wear.expect("wear").velocity_bins, [1.0, 2.0]);
            },
        ),
        row("calculate_force_tally", "", "calculate_force_tally", |a, b| {
            assert_eq!(tallies(a).force, None);
            assert_eq!(tallies(b).force, Some(ForceSpec { cell: None }));
        }),
        // 4.4
        row("initial_packing", "", "initial_packing 0.2", |a, b| {
            assert_eq!(pack(a).2, Packing::Loose { fraction: 0.10 });
            assert_eq!(pack(b).2, Packing::Loose { fraction: 0.2 });
        }),
        row(
            "random_packing_method",
            "",
            "random_packing_method 500",
            |a, b| {
                assert_eq!(pack(a).2, Packing::Loose { fraction: 0.10 });
                assert_eq!(
                    pack(b).2,
                    Packing::Prime {
                        extra_candidates: 500
                    }
                );
            },
        ),
        row("cone_packing", "", "cone_packing 0.3 1.5", |a, b| {
            // A 45° cone (slope 1) whose opening at its bottom, z = 1.5, has radius 0.3;
            // the pebbles start above it.
            let new = added(a, b);
            assert_eq!(new.len(), 1, "{new:?}");
            let ShapeSpec::Cone {
                slope,
                radius0,
                range: Some(range),
                ..
            } = new[0]
            else {
                panic!("{new:?}")
            };
            assert_eq!(slope, 1.0);
            assert!((radius0 + slope * 1.5 - 0.3).abs() < 1e-12);
            assert_eq!(range[0], 1.5);
            assert_eq!((pack(a).3.z, pack(b).3.z), (0.0, 1.5));
        }),
        row(
            "cone_packing_chute",
            "cone_packing 0.3 1.5",
            "cone_packing_chute 0.3 1.5 0.4",
            |a, b| {
                // The cone of cone_packing and a tube of the opening's radius from 1.5 down 0.4.
                assert_eq!(
                    added(a, b),
                    [ShapeSpec::Cylinder {
                        origin: DVec3::new(0.0, 0.0, 1.5 - 0.2),
                        axis: DVec3::Z,
                        radius: 0.3,
                        side: Side::Both,
                        length: Some(0.4),
                    }]
                );
                assert_eq!(pack(b).3.z, 1.5);
            },
        ),
        // 4.5
        row("dump_positions", "", "dump_positions out.txt", |a, b| {
            assert_eq!(ok(a).dump_positions, None);
            assert_eq!(ok(b).dump_positions, Some(("out.txt".into(), 1.0)));
        }),
        row(
            "dump_positions_mult",
            "",
            "dump_positions_mult out.txt 100.0",
            |a, b| {
                assert_eq!(ok(a).dump_positions, None);
                assert_eq!(ok(b).dump_positions, Some(("out.txt".into(), 100.0)));
            },
        ),
        row("load_positions", "", "load_positions pos.txt", |a, b| {
            assert_eq!(pack(a).0, 1000);
            let got = listed(b);
            let want: Vec<_> = POSITIONS
                .iter()
                .map(|p| (v(*p), 0.1, DVec3::ZERO, DVec3::ZERO))
                .collect();
            assert_eq!(got, want);
            assert!(ok(b).restore.is_none());
        }),
        row(
            "load_positions_divide",
            "",
            "load_positions_divide pos.txt 100.0",
            |_, b| {
                let got: Vec<DVec3> = listed(b).iter().map(|s| s.0).collect();
                let want: Vec<DVec3> = POSITIONS.iter().map(|p| v(*p) / 100.0).collect();
                assert_eq!(got, want);
            },
        ),
        row("load_pebble_info", "", "load_pebble_info s.save", |a, b| {
            assert!(ok(a).restore.is_none());
            // Positions, velocities, spins and radii of the file; passes restored; no slips.
            assert_eq!(
                listed(b),
                [
                    (
                        DVec3::new(0.0, 0.0, 0.2),
                        0.1,
                        DVec3::new(0.0, 0.0, 0.5),
                        DVec3::ZERO
                    ),
                    (
                        DVec3::new(0.0, 0.0, 0.4),
                        0.1,
                        DVec3::ZERO,
                        DVec3::new(0.0, 1.0, 0.0)
                    ),
                ]
            );
            let s = ok(b).restore.clone().expect("restore");
            assert_eq!(s.pebbles.iter().map(|p| p.passes).collect::<Vec<_>>(), [3, 0]);
            assert!(s.slips.is_empty() && s.surface_slips.is_empty());
        }),
        row(
            "load_pebble_slips",
            "load_pebble_info s.save",
            "load_pebble_info s.save\nload_pebble_slips",
            |a, b| {
                let (sa, sb) = (ok(a).restore.clone(), ok(b).restore.clone());
                assert!(sa.expect("restore").slips.is_empty());
                let sb = sb.expect("restore");
                assert_eq!(sb.slips, [(7, 9, DVec3::new(1e-5, 0.0, 0.0))]);
                assert!(sb.surface_slips.is_empty());
                // Ignored without load_pebble_info.
                assert_same(ok(&translate("")), ok(&translate("load_pebble_slips")));
            },
        ),
        row(
            "load_pebble_surface_slips",
            "load_pebble_info s.save",
            "load_pebble_info s.save\nload_pebble_surface_slips",
            |a, b| {
                let (sa, sb) = (ok(a).restore.clone(), ok(b).restore.clone());
                assert!(sa.expect("restore").surface_slips.is_empty());
                let sb = sb.expect("restore");
                assert_eq!(sb.surface_slips, [(7, 0, DVec3::new(0.0, 2e-5, 0.0))]);
                assert!(sb.slips.is_empty());
                assert_same(
                    ok(&translate("")),
                    ok(&translate("load_pebble_surface_slips")),
                );
            },
        ),
        row("load_pebble_save", "", "load_pebble_save s.save", |a, b| {
            assert!(ok(a).restore.is_none());
            let s = ok(b).restore.clone().expect("restore");
            assert_eq!(s.slips, [(7, 9, DVec3::new(1e-5, 0.0, 0.0))]);
            assert_eq!(s.surface_slips, [(7, 0, DVec3::new(0.0, 2e-5, 0.0))]);
            assert_eq!(listed(b).len(), 2);
        }),
        // 4.6
        row(
            "earthquake_enable",
            "earthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5",
            "earthquake_enable 1\nearthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5",
            |a, b| {
                // Default 0: no wave allowed; 1 allows one, and a second is refused.
                assert!(err(a).starts_with("t.inp:1: earthquake_sine_wave"), "{}", err(a));
                assert!(matches!(motion(b), Motion::Earthquake { waves } if waves.len() == 1));
                let two = translate(
                    "earthquake_enable 1\nearthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5\n\
                     earthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5",
                );
                assert!(err(&two).starts_with("t.inp:3: earthquake_sine_wave"));
            },
        ),
        row(
            "earthquake_sine_wave",
            "earthquake_enable 1",
            "earthquake_enable 1\nearthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5",
            |a, b| {
                assert_eq!(motion(a), Motion::Fixed);
                let m = motion(b);
                let w = [0.5, 3.0, 0.01, 0.0, 0.02, 0.25, 0.5, 0.0];
                for t in [0.6, 0.77, 2.9] {
                    let (d, vel) = wave_eq_7_1(t, w);
                    let pose = m.pose(t);
                    assert_close(pose.offset, d);
                    assert_close(pose.velocity, vel);
                }
                // Nothing outside [start, end].
                assert_eq!(m.pose(0.4).offset, DVec3::ZERO);
                assert_eq!(m.pose(3.1).offset, DVec3::ZERO);
            },
        ),
        row(
            "earthquake_sine_wave_offset",
            "earthquake_enable 1",
            "earthquake_enable 1\nearthquake_sine_wave_offset 0.0 8.0 0.25 0.0 0.0 1.0 0.0 1.0",
            |a, b| {
                assert_eq!(motion(a), Motion::Fixed);
                let m = motion(b);
                // Offset 1: the displacement runs from 2 D (t = p/4) to 0 (t = 3p/4).
                assert_close(m.pose(0.25).offset, DVec3::new(0.5, 0.0, 0.0));
                assert!(m.pose(0.75).offset.length() < 1e-15);
                let w = [0.0, 8.0, 0.25, 0.0, 0.0, 1.0, 0.0, 1.0];
                let (d, vel) = wave_eq_7_1(1.3, w);
                assert_close(m.pose(1.3).offset, d);
                assert_close(m.pose(1.3).velocity, vel);
            },
        ),
        row(
            "tabular_earthquake",
            "",
            "tabular_earthquake 1.0 0.1 3 table.txt",
            |a, b| {
                assert_eq!(motion(a), Motion::Fixed);
                let m = motion(b);
                assert_eq!(
                    m,
                    Motion::Table {
                        start: 1.0,
                        interval: 0.1,
                        displacements: TABLE[..3].iter().map(|r| v(*r)).collect(),
                    }
                );
                // Between T_1 and T_2 at o = 0.25: d = (1 − o) T_1 + o T_2, m = (T_2 − T_1)/δ.
                let (t1, t2) = (v(TABLE[1]), v(TABLE[2]));
                let pose = m.pose(1.0 + 1.25 * 0.1);
                assert_close(pose.offset, 0.75 * t1 + 0.25 * t2);
                assert_close(pose.velocity, (t2 - t1) / 0.1);
            },
        ),
        // 4.7
        row(
            "start_geometry",
            "",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            |a, b| {
                assert!(unions(a).is_empty());
                assert_eq!(unions(b), [vec![block()]]);
            },
        ),
        row("end_geometry", "start_geometry", "start_geometry\nend_geometry", |a, b| {
            assert!(err(a).contains("inside the geometry section"), "{}", err(a));
            assert_same(ok(b), ok(&translate("")));
        }),
        row(
            "inlet",
            RECIRC,
            "floor_location -8.0\ncone 0.5 1.0\nexit_chute 2.5 0.1\nrecirculate_params 2.0 0.05 0.3\n\
             start_geometry\ninlet 0.1 0.2 3.0 0.0 -0.1 0.0\nend_geometry",
            |a, b| {
                assert!(recirculation(a).expect("r").inlets.is_empty());
                assert_eq!(
                    recirculation(b).expect("r").inlets,
                    [Inlet {
                        pos: DVec3::new(0.1, 0.2, 3.0),
                        vel: DVec3::new(0.0, -0.1, 0.0)
                    }]
                );
            },
        ),
        row(
            "start_union",
            "start_geometry\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            |a, b| {
                assert!(unions(a).is_empty());
                assert_eq!(unions(b), [vec![block()]]);
                assert_eq!(added(a, b).len(), 1);
            },
        ),
        row(
            "end_union",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            |a, b| {
                assert!(err(a).starts_with("t.inp:4: 'end_geometry' cannot appear here"));
                assert_eq!(unions(b), [vec![block()]]);
            },
        ),
        row(
            "block",
            "start_geometry\nstart_union\ncylinder 0.2 0.5 0.1 -1.0 2.0\nend_union\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\n\
             cylinder 0.2 0.5 0.1 -1.0 2.0\nend_union\nend_geometry",
            |a, b| {
                assert_eq!(unions(a), [cylinder()]);
                let mut both = vec![block()];
                both.extend(cylinder());
                assert_eq!(unions(b), [both]);
            },
        ),
        row(
            "cylinder",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\n\
             cylinder 0.2 0.5 0.1 -1.0 2.0\nend_union\nend_geometry",
            |a, b| {
                assert_eq!(unions(a), [vec![block()]]);
                assert_eq!(unions(b)[0][1..], cylinder()[..]);
            },
        ),
        row(
            "plane",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\n\
             plane 0.0 0.0 -0.5 4.0\nend_union\nend_geometry",
            |a, b| {
                assert_eq!(unions(a), [vec![block()]]);
                // 001 §4.7.1: 0 0 −0.5 4 is a ceiling at z = 8, pebbles below it.
                let plane = unions(b)[0][1].clone();
                let ShapeSpec::Plane {
                    equation: Some(e), ..
                } = plane
                else {
                    panic!("{plane:?}")
                };
                assert_eq!(e, [0.0, 0.0, -0.5, 4.0]);
                assert_eq!(e[2] * 8.0 + e[3], 0.0);
                assert!(e[2] * 7.0 + e[3] > 0.0);
            },
        ),
        refused("start_indentation"),
        refused("end_indentation"),
        refused("start_pattern"),
        refused("end_pattern"),
        refused("min_max"),
        refused("start_row"),
        refused("end_row"),
        refused("row_min"),
        refused("angle"),
        refused("angles"),
        // 4.8
        row("vessel_radius", "", "vessel_radius 0.2 0.5", |a, b| {
            let cylinders = |r: &Run| {
                shapes(r)
                    .into_iter()
                    .filter_map(|s| match s {
                        ShapeSpec::Cylinder { radius, side, .. } => Some((radius, side)),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(cylinders(a), [(1.0, Side::Inside)]);
            assert_eq!(cylinders(b), [(0.5, Side::Inside), (0.2, Side::Outside)]);
            // The fill goes between the two radii.
            let p = pack(b);
            assert_eq!((p.5, p.6), (vec![[0.0, 0.5]], 0.2));
            assert_eq!((pack(a).5, pack(a).6), (vec![[0.0, 1.0]], 0.0));
        }),
        row("rectangular_vat", "", "rectangular_vat 0.3 0.4", |_, b| {
            let planes: Vec<(DVec3, DVec3)> = shapes(b)
                .into_iter()
                .filter_map(|s| match s {
                    ShapeSpec::Plane {
                        point: Some(p),
                        normal: Some(n),
                        ..
                    } => Some((p, n)),
                    _ => None,
                })
                .collect();
            // The floor and four walls x = ±0.3, y = ±0.4 facing inward; no cylinder.
            assert_eq!(
                planes,
                [
                    (DVec3::ZERO, DVec3::Z),
                    (DVec3::new(-0.3, 0.0, 0.0), DVec3::X),
                    (DVec3::new(0.3, 0.0, 0.0), DVec3::NEG_X),
                    (DVec3::new(0.0, -0.4, 0.0), DVec3::Y),
                    (DVec3::new(0.0, 0.4, 0.0), DVec3::NEG_Y),
                ]
            );
            assert_eq!(shapes(b).len(), 5);
            let p = pack(b);
            assert_eq!((p.3.x, p.3.y, p.4.x, p.4.y), (-0.3, -0.4, 0.3, 0.4));
            assert!(p.5.is_empty());
        }),
        row("floor_location", "", "floor_location -1.0", |a, b| {
            let floor = |z: f64| ShapeSpec::Plane {
                point: Some(DVec3::new(0.0, 0.0, z)),
                normal: Some(DVec3::Z),
                equation: None,
                both: false,
            };
            assert_eq!(shapes(a)[0], floor(0.0));
            assert_eq!(shapes(b)[0], floor(-1.0));
            assert_eq!((pack(a).3.z, pack(b).3.z), (0.0, -1.0));
        }),
        row("cone", "floor_location -8.0", CONE, |a, b| {
            // radius = m z + b equal to the vessel radius 1 at z = 0.5: b = 0.5; no hole, so
            // the cone closes at its apex z = −b/m.
            assert_eq!(
                added(a, b),
                [ShapeSpec::Cone {
                    origin: DVec3::ZERO,
                    axis: DVec3::Z,
                    slope: 1.0,
                    radius0: 0.5,
                    range: Some([-0.5, 0.5]),
                }]
            );
            assert_eq!(pack(b).5, [[-0.5, 0.0], [0.5, 1.0]]);
            assert_eq!(pack(b).3.z, -0.5);
        }),
        Row {
            name: "number_of_cones",
            without: "number_of_cones 1",
            with: "floor_location -8.0\ncone 0.5 1.0\nnumber_of_cones 2",
            effect: Effect::Refused("number_of_cones"),
        },
        row(
            "offset_inlet_holes",
            RECIRC,
            "floor_location -8.0\ncone 0.5 1.0\nexit_chute 2.5 0.1\n\
             recirculate_params 2.0 0.05 0.3\noffset_inlet_holes",
            |a, b| {
                // Drops move R/2 off the hole's axis (our reading, docs/pebbles-decks.md), and
                // so does the packing cone.
                assert_eq!(recirculation(a).expect("r").drop_offset, [0.0, 0.0]);
                assert_eq!(recirculation(b).expect("r").drop_offset, [0.5, 0.0]);
                let cone_at = |lines: &str| {
                    let r = translate(lines);
                    let c = added(&translate(""), &r);
                    match c[..] {
                        [ShapeSpec::Cone { origin, .. }] => origin,
                        _ => panic!("{c:?}"),
                    }
                };
                assert_eq!(cone_at("cone_packing 0.3 1.5"), DVec3::ZERO);
                assert_eq!(
                    cone_at("cone_packing 0.3 1.5\noffset_inlet_holes"),
                    DVec3::new(0.5, 0.0, 0.0)
                );
            },
        ),
        row("exit_chute", CONE, CHUTE, |a, b| {
            // The door's hole has radius pebble_radius × hole_size (001 §4.8).
            assert_chute(a, b, 0.1 * 2.5, 0.1);
            assert_eq!(recirculation(b), None);
        }),
    ]
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
        match r.effect {
            Effect::Check(check) => check(&a, &b),
            Effect::Refused(at) => {
                ok(&a);
                let k = r
                    .with
                    .lines()
                    .position(|l| l.split_whitespace().next() == Some(at))
                    .expect("the refused directive is in the deck")
                    + 1;
                let e = err(&b);
                assert!(
                    e.starts_with(&format!("t.inp:{k}: {at}: ")),
                    "{}: {e}",
                    r.name
                );
            }
        }
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
