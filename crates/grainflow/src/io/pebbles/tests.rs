//! Parser tests: every directive of the table parses with its values, every stated default
//! reads back, and bad decks are refused with their line and the nearest name.

use super::directives::{Kind, Section, DIRECTIVES};
use super::*;

/// A value line for `spec` whose k-th number is 1.5 + k (counts: 3 + k; lists: 2 numbers).
fn sample(spec: &directives::Spec) -> (String, Vec<Arg>) {
    let mut words = vec![spec.name.to_string()];
    let mut args = Vec::new();
    for (k, (_, kind)) in spec.params.iter().enumerate() {
        match kind {
            Kind::Num => {
                let v = 1.5 + k as f64;
                words.push(format!("{v}"));
                args.push(Arg::Num(v));
            }
            Kind::Count => {
                let v = 3 + k;
                words.push(format!("{v}"));
                args.push(Arg::Num(v as f64));
            }
            Kind::Word => {
                words.push(format!("file{k}"));
                args.push(Arg::Word(format!("file{k}")));
            }
            Kind::CountedList => {
                words.push("2 0.25 -45.0".into());
                args.push(Arg::List(vec![0.25, -45.0]));
            }
        }
    }
    (words.join(" "), args)
}

/// Lines that open the section `s` and those that close it.
fn frame(s: Section) -> (&'static str, &'static str) {
    match s {
        Section::Top => ("", ""),
        Section::Geometry => ("start_geometry\n", "end_geometry\n"),
        Section::Union => ("start_geometry\nstart_union\n", "end_union\nend_geometry\n"),
        Section::Indentation => (
            "start_geometry\nstart_indentation\nstart_pattern\nplane 1 0 0 0\nend_pattern\n",
            "end_indentation\nend_geometry\n",
        ),
        Section::Pattern => (
            "start_geometry\nstart_indentation\nstart_pattern\n",
            "end_pattern\nend_indentation\nend_geometry\n",
        ),
        Section::Row => (
            "start_geometry\nstart_indentation\nstart_pattern\nplane 1 0 0 0\nend_pattern\nmin_max 0 1\nstart_row\n",
            "end_row\nend_indentation\nend_geometry\n",
        ),
    }
}

#[test]
fn every_directive_parses_with_its_values() {
    for spec in DIRECTIVES {
        if matches!(spec.name, "done" | "rem")
            || spec.name.starts_with("end_")
            || spec.name.starts_with("start_")
        {
            continue;
        }
        let (line, args) = sample(spec);
        let (open, close) = frame(spec.sections[0]);
        let text = format!("rem a deck\n{open}{line}\n{close}done\n");
        let deck = Deck::parse(&text, "t.inp").unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        let g = &deck.geometry;
        match spec.name {
            "inlet" => assert_eq!(
                g.inlets,
                vec![Inlet {
                    pos: DVec3::new(1.5, 2.5, 3.5),
                    vel: DVec3::new(4.5, 5.5, 6.5)
                }]
            ),
            "block" => assert_eq!(
                g.unions[0].1,
                vec![Solid::Block {
                    min: DVec3::new(1.5, 2.5, 3.5),
                    max: DVec3::new(4.5, 5.5, 6.5)
                }]
            ),
            "cylinder" => assert_eq!(
                g.unions[0].1,
                vec![Solid::Cylinder {
                    radius: 1.5,
                    center: [2.5, 3.5],
                    z: [4.5, 5.5]
                }]
            ),
            "plane" => assert_eq!(g.unions[0].1, vec![Solid::Plane([1.5, 2.5, 3.5, 4.5])]),
            "min_max" => assert_eq!(g.indentations[0].min_max, Some([1.5, 2.5])),
            "row_min" => assert_eq!(g.indentations[0].rows[0].min, 1.5),
            "angle" => assert_eq!(g.indentations[0].rows[0].angles, vec![1.5]),
            "angles" => assert_eq!(g.indentations[0].rows[0].angles, vec![0.25, -45.0]),
            name => {
                let d = deck.last(name).unwrap_or_else(|| panic!("{name} not kept"));
                assert_eq!(d.args, args, "{name}");
                assert_eq!(d.line, 2, "{name}");
            }
        }
    }
}

#[test]
fn stated_defaults_read_back_when_absent() {
    let deck = Deck::parse("done\n", "t.inp").expect("parses");
    // 001 chapter 4, in the order the chapter states them.
    let expected: &[(&str, &[f64])] = &[
        ("runs", &[10000.0]),
        ("number_of_pebbles", &[1000.0]),
        ("initial_time", &[0.0]),
        ("kinetic_friction", &[0.1]),
        ("alpha", &[0.0001]),
        ("dash_pot", &[2.0]),
        ("dash_pot2", &[2.0, 2.0]),
        ("seed", &[256.0]),
        ("pebble_pebble_hooke", &[10000.0]),
        ("pebble_vessel_hooke", &[10000.0]),
        ("pebble_radius", &[0.0, 0.1]),
        ("pebble_density", &[0.0, 2.0]),
        ("dump_frequency", &[100000.0]),
        ("display_frequency", &[1000.0]),
        ("position_display_frequency", &[100000000.0]),
        ("energy_display_frequency", &[100.0]),
        ("normal_force_wear_exponent", &[2.0 / 3.0]),
        ("initial_packing", &[0.10]),
        ("earthquake_enable", &[0.0]),
        ("vessel_radius", &[0.0, 1.0]),
        ("floor_location", &[0.0]),
    ];
    for (name, v) in expected {
        assert_eq!(deck.nums(name).as_deref(), Some(*v), "{name}");
    }
    let with_default = DIRECTIVES.iter().filter(|s| s.default.is_some()).count();
    assert_eq!(with_default, expected.len());
    // Later lines override earlier ones.
    let deck = Deck::parse("alpha 1e-3\nalpha 2e-4\ndone\n", "t.inp").expect("parses");
    assert_eq!(deck.num("alpha"), 2e-4);
}

fn refused(text: &str) -> String {
    Deck::parse(text, "deck.inp")
        .expect_err("refused")
        .to_string()
}

#[test]
fn unknown_directives_name_the_line_and_the_nearest_name() {
    let text = "rem\nvessel_radius 0 1\n\n\n\n\nkinetic_fricton 0.4\ndone\n";
    assert_eq!(
        refused(text),
        "deck.inp:7: unknown directive 'kinetic_fricton' (did you mean 'kinetic_friction'?)"
    );
    assert_eq!(
        refused("frobnicate 1\ndone\n"),
        "deck.inp:1: unknown directive 'frobnicate'"
    );
}

#[test]
fn malformed_values_are_refused_with_the_usage() {
    assert_eq!(
        refused("pebble_radius 0.01\ndone\n"),
        "deck.inp:1: pebble_radius: missing outside_radius; usage: pebble_radius center_radius outside_radius"
    );
    assert!(refused("alpha fast\ndone\n")
        .starts_with("deck.inp:1: alpha: time_step must be a number, got 'fast'"));
    assert!(
        refused("runs 10.5\ndone\n").starts_with("deck.inp:1: runs: number must be a whole number")
    );
    assert!(refused("seed 1 2\ndone\n").starts_with("deck.inp:1: seed: unexpected value '2'"));
    assert!(refused("sort_pebbles now\ndone\n").contains("'sort_pebbles' takes no values"));
    assert!(refused("alpha nan\ndone\n").contains("must be a number"));
    assert!(refused("angles 3 1 2\ndone\n").contains("cannot appear here"));
    assert!(refused("start_geometry\nstart_row\n")
        .contains("deck.inp:2: 'start_row' cannot appear here"));
    assert!(refused("start_geometry\nstart_union\nblock 1 0 0 0 1 1\n")
        .contains("minimum values must be less"));
    assert!(refused("start_geometry\nstart_union\nend_union\n")
        .contains("the input ends inside the geometry section"));
    assert!(refused("alpha 1e-4\n").contains("no 'done' line"));
    assert!(refused("start_geometry\nend_geometry\nstart_geometry\n")
        .contains("only one geometry section"));
}

#[test]
fn done_ends_the_input_and_rem_is_ignored() {
    let deck = Deck::parse(
        "rem kinetic_fricton is ignored here\nseed 5\ndone\nnot a directive\n",
        "t",
    )
    .expect("parses");
    assert_eq!(deck.num("seed"), 5.0);
    assert_eq!(deck.directives.len(), 1);
}

#[test]
fn the_indentation_example_of_the_manual_parses() {
    // 001 §4.7.2, verbatim.
    let text = "vessel_radius 0.0 0.15\nstart_geometry\nstart_indentation\nstart_pattern\nplane -1.0 0.0 0.0 0.25\nplane 1.0 0.0 0.0 0.25\nplane 0.0 -1.0 0.0 0.05\nplane 0.0 1.0 0.0 0.05\nplane 0.0 0.0 -1.0 0.5\nplane 0.0 0.0 1.0 0.0\nend_pattern\nmin_max 0.4 2.0\nstart_row\nrow_min 0.4\nangle 0.0\nend_row\nstart_row\nrow_min 1.0\nangle 90.0\nangle -45.0\nangle 180.0\nend_row\nend_indentation\nend_geometry\ndone\n";
    let deck = Deck::parse(text, "t").expect("parses");
    let i = &deck.geometry.indentations[0];
    assert_eq!(i.pattern.len(), 6);
    assert_eq!(i.min_max, Some([0.4, 2.0]));
    assert_eq!(i.rows.len(), 2);
    assert_eq!(i.rows[1].angles, vec![90.0, -45.0, 180.0]);
    assert_eq!(i.rows[1].min, 1.0);
}

#[test]
fn decks_are_recognised_by_extension_or_first_line() {
    let p = Path::new("x.inp");
    assert!(is_deck(p, ""));
    assert!(is_deck(Path::new("deck"), "rem hello\nruns 5\ndone\n"));
    assert!(!is_deck(
        Path::new("scene.toml"),
        "[simulation]\nduration = 1\n"
    ));
    assert!(!is_deck(Path::new("scene"), "runs = 5\n"));
}

#[test]
fn the_four_sample_decks_parse() {
    for name in ["packing", "extended", "pack_and_recirc", "earthquake"] {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenes/pebbles/{name}.inp"));
        let deck = Deck::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(deck.has("static_friction_new3"), "{name}");
    }
}

#[test]
fn the_directive_table_of_the_docs_lists_every_directive() {
    let doc = include_str!("../../../../../docs/pebbles-decks.md");
    for s in DIRECTIVES {
        assert!(doc.contains(&format!("| `{}` |", s.name)), "{}", s.name);
    }
}

#[test]
fn a_pebble_wider_than_the_vessel_is_refused_before_packing() {
    // Packing once searched the vessel's whole height for minutes before saying so.
    for (vessel, pebble) in [("0.0 0.01", "0.0 0.02"), ("0.1 0.12", "0.0 0.011")] {
        let text = format!(
            "number_of_pebbles 10\nvessel_radius {vessel}\npebble_radius {pebble}\nrandom_packing_method 100000\ndone\n"
        );
        let clock = std::time::Instant::now();
        let translated = Deck::parse(&text, "deck.inp")
            .and_then(|d| d.translate(std::path::Path::new("."), &[]));
        let Err(err) = translated.map(|_| ()) else {
            panic!("{vessel}, {pebble}: not refused");
        };
        let err = err.to_string();
        assert!(err.starts_with("deck.inp:2: vessel_radius"), "{err}");
        assert!(err.contains("no pebble fits"), "{err}");
        assert!(clock.elapsed().as_secs() < 5, "took {:?}", clock.elapsed());
    }
}
