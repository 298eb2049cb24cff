//! Every key the scene parser accepts appears in docs/scenes.md or a page it links to.
//!
//! The keys come from the parser itself: a key it does not know makes it answer "unknown
//! field `zzz`, expected one of `a`, `b`, …", so each table of a scene is given an unknown key
//! and the list it answers with is compared with the docs, where a key is written `key` or
//! `key =`.

use std::collections::BTreeSet;
use std::path::Path;

use grainflow::scene::Scene;

const BASE: &str = r#"
[simulation]
duration = 0.1
dt = "auto"
[contact]
normal = "hertz"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3
"#;

/// Where an unknown key is put: a TOML fragment with `@` where it goes, appended to [`BASE`]
/// (or put inside it for its own tables).
const PROBES: &[&str] = &[
    "[simulation]\n@",
    "[contact]\n@",
    "[[materials]]\n@",
    "[[pairs]]\n@",
    "[gravity]\n@",
    "[gravity.self_gravity]\n@",
    "[gravity.central]\n@",
    "[boundary]\n@",
    "[boundary.periodic]\n@",
    "[frame]\n@",
    "[output]\n@",
    "[output.stress]\n@",
    "[output.tallies]\n@",
    "[recirculation]\n@",
    "[[inserts]]\n@",
    "[simulation.method.soft]\n@",
    "[simulation.method.hard]\n@",
    "[simulation.method.approx_hard]\n@",
];

/// Wall and particle types, each probed inside its own table.
const WALLS: &[&str] = &[
    "plane",
    "plate",
    "disk",
    "cylinder",
    "ring",
    "point",
    "line",
    "cone",
    "block",
    "indented_cylinder",
    "hopper",
    "union",
    "mesh",
];
const SOURCES: &[&str] = &[
    "list",
    "file",
    "lammps_data",
    "lattice",
    "cylinder_layer",
    "annulus",
    "random",
    "pack",
];
const MOTIONS: &[&str] = &["translate", "oscillate", "rotate", "earthquake", "table"];

/// The keys the parser lists for the unknown key of `text`.
fn accepted(text: &str) -> Vec<String> {
    let e = match Scene::from_toml(text, "probe") {
        Ok(_) => panic!("an unknown key was accepted:\n{text}"),
        Err(e) => e.to_string(),
    };
    let Some(list) = e
        .split("expected one of ")
        .nth(1)
        .or_else(|| e.split("expected ").nth(1))
    else {
        panic!("no list of keys in: {e}\n{text}");
    };
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The text of docs/scenes.md and of every docs page it links to.
fn docs() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let main = std::fs::read_to_string(dir.join("scenes.md")).expect("scenes.md");
    let mut text = main.clone();
    for link in main.split("](").skip(1) {
        let page = link.split(')').next().unwrap_or("");
        let page = page.split('#').next().unwrap_or("");
        if page.ends_with(".md") && !page.contains('/') {
            text.push_str(&std::fs::read_to_string(dir.join(page)).unwrap_or_default());
        }
    }
    text
}

#[test]
fn every_key_the_parser_accepts_is_in_the_docs() {
    let mut probes: Vec<String> = PROBES
        .iter()
        .map(|p| {
            let head = p.trim_end_matches('@');
            if BASE.contains(&format!("\n{head}")) && !head.starts_with("[[") {
                BASE.replacen(head, &format!("{head}zzz_unknown = 1\n"), 1)
            } else {
                format!("{BASE}{head}zzz_unknown = 1\n")
            }
        })
        .collect();
    for t in WALLS {
        probes.push(format!(
            "{BASE}[[walls]]\nmaterial = \"glass\"\ntype = \"{t}\"\nzzz_unknown = 1\n"
        ));
    }
    for t in SOURCES {
        probes.push(format!(
            "{BASE}[[particles]]\nmaterial = \"glass\"\ntype = \"{t}\"\nzzz_unknown = 1\n"
        ));
    }
    for t in MOTIONS {
        probes.push(format!(
            "{BASE}[[walls]]\nmaterial = \"glass\"\ntype = \"point\"\npos = [0, 0, 0]\nmotion = {{ type = \"{t}\", zzz_unknown = 1 }}\n"
        ));
    }
    // Tables inside values: a plate's holes and the parts of an insert.
    for inner in [
        "[[walls]]\nmaterial = \"glass\"\ntype = \"plate\"\ncenter = [0, 0, 0]\nnormal = [0, 0, 1]\nu = [1, 0, 0]\nhalf_size = [1, 1]\nholes = [{ @ }]",
        "[[inserts]]\nmaterials = [{ @ }]",
        "[[inserts]]\nregion = { box = { @ } }",
        "[[inserts]]\nregion = { cylinder = { @ } }",
        "[[inserts]]\nsize = { uniform = { @ } }",
        "[[inserts]]\nsize = { normal = { @ } }",
        "[[inserts]]\nsize = { log_normal = { @ } }",
    ] {
        probes.push(format!("{BASE}{}\n", inner.replace('@', "zzz_unknown = 1")));
    }
    let docs = docs();
    let mut missing = BTreeSet::new();
    let mut seen = 0;
    for p in &probes {
        let where_ = p
            .lines()
            .take_while(|l| !l.starts_with("zzz_unknown") && !l.contains("zzz_unknown"))
            .filter(|l| l.starts_with('[') || l.starts_with("type"))
            .last()
            .unwrap_or("")
            .to_string();
        for key in accepted(p) {
            seen += 1;
            if !(docs.contains(&format!("`{key}`")) || docs.contains(&format!("{key} ="))) {
                missing.insert(format!("{key} (in {where_})"));
            }
        }
    }
    assert!(seen > 100, "only {seen} keys found");
    assert!(
        missing.is_empty(),
        "keys the docs do not name:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn scenes_md_lists_every_wall_type_and_method() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenes.md"))
            .expect("scenes.md");
    for t in WALLS {
        assert!(
            text.contains(&format!("`\"{t}\"`")) || text.contains(&format!("`{t}`")),
            "wall type {t}"
        );
    }
    for m in ["soft", "hard", "approx_hard"] {
        assert!(text.contains(&format!("\"{m}\"")), "method {m}");
    }
}
