//! Built-in scenes: TOML files of the repository's `scenes/` folder, compiled in, which the
//! command line (`grainflow scenes`, `grainflow run NAME`) and the Python module
//! (`grainflow.scene(NAME)`) offer by name.

/// A built-in scene.
pub struct BuiltIn {
    /// Name on the command line.
    pub name: &'static str,
    /// One line on what it shows.
    pub about: &'static str,
    /// The scene file.
    pub toml: &'static str,
}

/// The scene `grainflow run` runs without arguments.
pub const DEFAULT: &str = "pour";

/// Every built-in scene.
pub const BUILT_IN: &[BuiltIn] = &[
    BuiltIn {
        name: "pour",
        about: "about 2000 glass beads (002 Table 2) poured into a box; the default scene",
        toml: include_str!("../../../../scenes/pour.toml"),
    },
    BuiltIn {
        name: "hcp-settle",
        about: "an HCP lattice with ±20 % radii settling under the linear spring–dashpot of 003",
        toml: include_str!("../../../../scenes/hcp-settle.toml"),
    },
    BuiltIn {
        name: "collapse",
        about: "3680 grains of 8–9 m collapsing into an aggregate under grid self-gravity (003 §4.4)",
        toml: include_str!("../../../../scenes/collapse.toml"),
    },
    BuiltIn {
        name: "spin-up",
        about: "regolith bed on an 8 km asteroid spun past the critical rate in a periodic box (003 §3.2)",
        toml: include_str!("../../../../scenes/spin-up.toml"),
    },
    BuiltIn {
        name: "sound-wave",
        about: "periodic bed of 0.5 mm glass grains for the P-wave test, linear model L1 (003 §3.1)",
        toml: include_str!("../../../../scenes/sound-wave.toml"),
    },
    BuiltIn {
        name: "couette",
        about: "2-D Couette flow of ~370 discs between a turning and a fixed cylinder, approx_hard (004 §II)",
        toml: include_str!("../../../../scenes/couette.toml"),
    },
    BuiltIn {
        name: "hard-tumbler",
        about: "the hard-sphere tumbler of 000 §3.2 (glued lining, ε_n = 0.64, ε_t = 0.8) at Fr = 0.1",
        toml: include_str!("../../../../scenes/hard-tumbler.toml"),
    },
    BuiltIn {
        name: "rubble-pile",
        about: "20 580 grains assembling into a rubble-pile asteroid under tree self-gravity",
        toml: include_str!("../../../../scenes/rubble-pile.toml"),
    },
    BuiltIn {
        name: "pebble-bed",
        about: "400 core/shell pebbles dropped into a cylinder with the PEBBLES contact law and Euler (001 §3, §8)",
        toml: include_str!("../../../../scenes/pebble-bed.toml"),
    },
];

/// The built-in scene called `name`.
pub fn find(name: &str) -> Option<&'static BuiltIn> {
    BUILT_IN.iter().find(|s| s.name == name)
}
