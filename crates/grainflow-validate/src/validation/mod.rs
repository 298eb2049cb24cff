//! Validation cases: each runs real scenes and compares metrics with analytic or published
//! numbers at stated tolerances (VALIDATION.md). The CLI's `validate` and the test suite call
//! the same functions.

pub mod atmosphere;
pub mod couette;
pub mod hard_tumbler;
pub mod hard_two_body;
pub mod hard_walls;
pub mod mesh;
pub mod mesh_hard;
pub mod mesh_hopper;
pub mod pebbles;
pub mod pebbles_friction;
pub mod pile;
pub mod restitution_dt;
pub mod self_gravity;
pub mod spin_up;
pub mod tumbler;
pub mod two_body;
pub mod wall_contacts;

use serde::Serialize;

use grainflow::material::Material;

use grainflow::Result;

/// Glass beads of 002 Table 2 (ρ = 2500 kg/m³, ν = 0.24, no spinning friction or cohesion)
/// with the given restitution, sliding friction, Young's modulus (Pa) and rolling friction;
/// the drum and the piling box use them for grains and, with Table 2's wall values, for walls.
pub(crate) fn glass_beads(name: &str, e: f64, mu: f64, youngs_modulus: f64, mu_r: f64) -> Material {
    Material {
        name: name.into(),
        density: Some(2500.0),
        youngs_modulus,
        poisson_ratio: 0.24,
        restitution: e,
        sliding_friction: mu,
        rolling_friction: mu_r,
        twisting_friction: 0.0,
        cohesion: 0.0,
        core: None,
        tangential_restitution: 1.0,
    }
}

/// How a metric's value and expected value compare (`comparison` in the JSON output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Comparison {
    /// |value − expected| ≤ tolerance.
    Within,
    /// value ≥ expected (a published least value).
    AtLeast,
    /// value ≤ expected (a required largest value).
    AtMost,
    /// Printed beside a published value for comparison, not checked.
    Report,
}

/// One compared number.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metric {
    /// Validation case name.
    pub case: String,
    /// Contact model or variant the metric belongs to.
    pub model: String,
    /// What is measured.
    pub metric: String,
    /// Measured value.
    pub value: f64,
    /// Expected value (analytic or published).
    pub expected: f64,
    /// Allowed |value − expected|.
    pub tolerance: f64,
    /// How value and expected compare.
    pub comparison: Comparison,
    /// Whether the comparison holds.
    pub pass: bool,
}

impl Metric {
    /// A metric that passes when |value − expected| ≤ tolerance.
    pub fn new(
        case: &str,
        model: &str,
        metric: impl Into<String>,
        value: f64,
        expected: f64,
        tolerance: f64,
    ) -> Metric {
        Metric {
            case: case.into(),
            model: model.into(),
            metric: metric.into(),
            value,
            expected,
            tolerance,
            comparison: Comparison::Within,
            pass: (value - expected).abs() <= tolerance,
        }
    }

    /// A metric that passes when value ≥ bound (a published least value).
    pub fn at_least(
        case: &str,
        model: &str,
        metric: impl Into<String>,
        value: f64,
        bound: f64,
    ) -> Metric {
        Metric {
            comparison: Comparison::AtLeast,
            pass: value >= bound,
            ..Metric::new(case, model, metric, value, bound, 0.0)
        }
    }

    /// A metric that passes when value ≤ bound (a required largest value).
    pub fn at_most(
        case: &str,
        model: &str,
        metric: impl Into<String>,
        value: f64,
        bound: f64,
    ) -> Metric {
        Metric {
            comparison: Comparison::AtMost,
            pass: value <= bound,
            ..Metric::new(case, model, metric, value, bound, 0.0)
        }
    }

    /// A value printed beside a published one for comparison and not checked: for a
    /// reproduction that differs from the paper for a stated reason (see the case's docs).
    pub fn report(
        case: &str,
        model: &str,
        metric: impl Into<String>,
        value: f64,
        published: f64,
    ) -> Metric {
        Metric {
            comparison: Comparison::Report,
            pass: true,
            ..Metric::new(case, model, metric, value, published, 0.0)
        }
    }
}

/// A named validation case.
pub struct Case {
    /// Name used on the command line.
    pub name: &'static str,
    /// One line on what it checks and where the numbers come from.
    pub about: &'static str,
    /// Runs the case; `full` selects the full-size version where there is one.
    pub run: fn(full: bool) -> Result<Vec<Metric>>,
}

/// Every validation case, in the order `validate --list` shows them.
pub const CASES: &[Case] = &[
    Case {
        name: "normal-stack",
        about: "002 §4.1.1: five spheres dropped in a column come to rest stacked, no lateral motion or spin",
        run: two_body::normal_stack,
    },
    Case {
        name: "cohesion",
        about: "002 §4.1.2: a sphere hanging under a fixed one with 10 N cohesion holds at m g = 8 N, separates at 10 N",
        run: two_body::cohesion,
    },
    Case {
        name: "restitution",
        about: "002 §4.1.3: head-on pairs for e = 0 … 1; measured e' = e for Hooke, Hertz and Flores",
        run: two_body::restitution,
    },
    Case {
        name: "restitution-dt",
        about: "002 §4.1.3 at dt = \"auto\" (t_c/15): head-on pairs for Hooke, Hertz, Flores and linear at e = 0.1 … 0.9, first touch at 16 phases of a step; each run equals the step's discrete map; the mean of the phases within 2 % of e for every model (damping corrected for the step), one collision's lowest and highest shown; Flores within 0.2 % at every phase",
        run: restitution_dt::restitution_dt,
    },
    Case {
        name: "oblique-impact",
        about: "002 §4.1.4: sphere on a plate at 2°–88°; past φ_th = 64.54° (eq 23) spin and tangential restitution follow eq 24–25",
        run: two_body::oblique_impact,
    },
    Case {
        name: "sliding",
        about: "002 §4.1.5: a non-rotating sphere at 5 m/s stops after v²/(2 μ g) = 2.5484 m",
        run: two_body::sliding,
    },
    Case {
        name: "rolling",
        about: "002 §4.1.6: a sphere at 1 m/s slides, rolls with constant resistance torque, stops where rigid-body theory says",
        run: two_body::rolling,
    },
    Case {
        name: "spinning",
        about: "002 §4.1.7: a sphere spinning about the normal feels a constant torque μ_t r_c F_n and stops",
        run: two_body::spinning,
    },
    Case {
        name: "hard-two-body",
        about: "000 §2.1–2.2: hard-sphere pairs (head-on, oblique, spinning) and spheres on every wall primitive, moving, sticky and absorbing walls vs eq 1–25 to 1e-12",
        run: hard_two_body::hard_two_body,
    },
    Case {
        name: "hard-gas",
        about: "000/S4: elastic hard-sphere gas, φ = 0.05: Enskog collision rate within 5 %, energy to 1e-12",
        run: hard_two_body::hard_gas,
    },
    Case {
        name: "atmosphere",
        about: "000 §3.1: elastic hard spheres of masses 1, 3, 10 dropped into a cylinder: energy to 1e-4, mean heights k_BT/(m g) (quick 10 %, full 000's error bars), K–S probabilities",
        run: atmosphere::atmosphere,
    },
    Case {
        name: "hard-tumbler",
        about: "000 §3.2: hard-sphere tumbler (ε_n = 0.64, ε_t = 0.8, glued grains on a sticky spinning cylinder); angle of repose rises with Fr = Ω² R/g",
        run: hard_tumbler::hard_tumbler,
    },
    Case {
        name: "wall-contacts",
        about: "000 §2.2, 001 §3.4: every wall primitive vs an independent closest point (1e-12), a sphere resting on each face (Hertz static overlap), a moving floor (v = 2/7 V)",
        run: wall_contacts::wall_contacts,
    },
    Case {
        name: "mesh",
        about: "triangle-mesh walls vs the analytic ones, run side by side: bounce, slide and roll on a plane as 2 and 2000 triangles (1e-9; no kick over shared edges and vertices), a meshed box (1e-9), hard spheres on the meshed plane and in the meshed box (1e-9, the same collisions), a meshed cylinder (rests closer by the sagitta R_c (1 - cos pi/N), 1e-9)",
        run: mesh::mesh,
    },
    Case {
        name: "mesh-hopper",
        about: "the conical hopper read from its STL file against the same hopper from an analytic cone and cylinder, 3 seeds each: mean discharge rates within 2 pooled standard errors (full: the shipped scenes)",
        run: mesh_hopper::mesh_hopper,
    },
    Case {
        name: "tumbler",
        about: "002 §6, 000 §3.2: rotating drum; angle of repose rises with Fr (Table 3), same angle by lowering g, centrifuging at Fr ≥ 1",
        run: tumbler::tumbler,
    },
    Case {
        name: "pile",
        about: "002 §5: grains poured from a hopper through a slot form a pile whose angle of repose rises with rolling friction",
        run: pile::pile,
    },
    Case {
        name: "pebbles",
        about: "001 ch. 3, 5–6, 8–9: PRIME packing of packing.inp ≥ 0.5 before compaction, compacts as KE decays; static friction on an incline and in a pile; recirculation keeps the count, passes = discharges, rate reported; chapter-9 fractions = Monte Carlo to 1e-3",
        run: pebbles::pebbles,
    },
    Case {
        name: "gravity-accuracy",
        about: "003 §4.4: grid (CELL) and tree forces vs direct summation on the collapse aggregate; ≥ 70 % below 5 %, ≥ 90 % below 3°; tree median < 1e-3",
        run: self_gravity::gravity_accuracy,
    },
    Case {
        name: "collapse",
        about: "003 §4.4: self-gravitating collapse with and without spin; centre of mass fixed, angular momentum conserved (direct and tree)",
        run: self_gravity::collapse,
    },
    Case {
        name: "couette",
        about: "004 §II: 2-D Couette flow, approx_hard: no overlap > 1e-9 r after any step, outer-wall proxy stress rises by orders of magnitude (full: transition at phi_c = 0.776 in a 19-diameter cell), exponential shear band, dt halving within the spread of independent packs",
        run: couette::couette,
    },
    Case {
        name: "spin-up",
        about: "003 §3.2: regolith bed on a spinning 8 km asteroid (periodic box, rotating frame); bottom σ_yy = −ρ φ g_eff h′ within 5 % up to 0.9 ω_c, zero past ω_c",
        run: spin_up::spin_up,
    },
];

/// The case called `name`.
pub fn find(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|c| c.name == name)
}
