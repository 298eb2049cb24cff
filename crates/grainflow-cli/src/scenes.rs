//! Built-in scenes: the TOML files of the repository's `scenes/` folder, compiled in.

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
        toml: include_str!("../../../scenes/pour.toml"),
    },
    BuiltIn {
        name: "hcp-settle",
        about: "an HCP lattice with ±20 % radii settling under the linear spring–dashpot of 003",
        toml: include_str!("../../../scenes/hcp-settle.toml"),
    },
];

/// The built-in scene called `name`.
pub fn find(name: &str) -> Option<&'static BuiltIn> {
    BUILT_IN.iter().find(|s| s.name == name)
}
