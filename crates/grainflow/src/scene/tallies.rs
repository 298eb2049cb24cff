//! The `[output.tallies]` table: which PEBBLES tallies (001 §4.3) a run writes and how often;
//! what each file holds is in [`crate::io::tallies`].

use serde::{Deserialize, Serialize};

use crate::Error;

/// The `[output.tallies]` table (intervals and times in simulated seconds).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TalliesSpec {
    /// Interval of `energy.csv` rows (s).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::time"
    )]
    pub energy_interval: Option<f64>,
    /// Velocity tally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<Cadence>,
    /// Probability table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<ProbabilitySpec>,
    /// Wear tally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wear: Option<WearSpec>,
    /// Force tally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<ForceSpec>,
}

/// A tally taken from `start` every `interval` (s).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cadence {
    /// First tally (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub start: f64,
    /// Time between tallies (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub interval: f64,
}

/// The probability table: a cadence and the side of its cubic cells (m).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbabilitySpec {
    /// First tally (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub start: f64,
    /// Time between tallies (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub interval: f64,
    /// Cell side (m), `delta_size`.
    #[serde(deserialize_with = "crate::units::length")]
    pub cell: f64,
}

/// The wear tally.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WearSpec {
    /// Exponent e of |F⊥| (−); 2/3, PEBBLES's default.
    #[serde(default = "two_thirds")]
    pub exponent: f64,
    /// Upper edges of the sliding-speed bins (m/s), increasing; one more bin above the last.
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity_bins: Vec<f64>,
}

fn two_thirds() -> f64 {
    2.0 / 3.0
}

/// The force tally: the side of its (ρ, z) cells (m); the largest grain diameter when absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForceSpec {
    /// Cell side (m).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::length"
    )]
    pub cell: Option<f64>,
}

impl TalliesSpec {
    /// What a run would refuse, with field paths under `output.tallies`.
    pub fn problems(&self) -> Vec<Error> {
        let mut p = Vec::new();
        let f = |name: &str| format!("output.tallies.{name}");
        let mut positive = |name: String, v: f64| {
            if !(v.is_finite() && v > 0.0) {
                p.push(Error::scene(
                    name,
                    format!("must be a finite number > 0, got {v}"),
                ));
            }
        };
        if let Some(v) = self.energy_interval {
            positive(f("energy_interval"), v);
        }
        if let Some(c) = self.velocity {
            positive(f("velocity.interval"), c.interval);
        }
        if let Some(c) = self.probability {
            positive(f("probability.interval"), c.interval);
            positive(f("probability.cell"), c.cell);
        }
        if let Some(c) = self.force.and_then(|c| c.cell) {
            positive(f("force.cell"), c);
        }
        if let Some(w) = &self.wear {
            if !(w.exponent.is_finite() && w.exponent >= 0.0) {
                p.push(Error::scene(
                    f("wear.exponent"),
                    format!("must be ≥ 0, got {}", w.exponent),
                ));
            }
            if !w.velocity_bins.windows(2).all(|e| e[0] < e[1])
                || w.velocity_bins.iter().any(|v| !(v.is_finite() && *v > 0.0))
            {
                p.push(Error::scene(
                    f("wear.velocity_bins"),
                    format!("must be positive and increasing, got {:?}", w.velocity_bins),
                ));
            }
        }
        for (name, c) in [
            ("velocity.start", self.velocity.map(|c| c.start)),
            ("probability.start", self.probability.map(|c| c.start)),
        ] {
            if let Some(v) = c {
                if !v.is_finite() {
                    p.push(Error::scene(f(name), format!("must be finite, got {v}")));
                }
            }
        }
        p
    }
}
