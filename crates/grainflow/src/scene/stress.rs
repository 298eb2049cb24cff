//! The `[output.stress]` table: where a run writes the stress from contact forces; how it is
//! computed is [`crate::analysis::stress`].

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::boundary::Periodic;
use crate::Error;

/// The `[output.stress]` table: a CSV time series (`stress.csv`) of the stress on planes normal
/// to one axis and of the volume-averaged tensor in boxes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StressOutput {
    /// Time between rows (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub interval: f64,
    /// Axis the planes are normal to: 0 = x, 1 = y, 2 = z.
    #[serde(default = "default_axis")]
    pub axis: usize,
    /// Plane positions along the axis (m).
    #[serde(default, deserialize_with = "crate::units::length")]
    pub planes: Vec<f64>,
    /// Plane area (m²); the product of the two other axes' periods when absent.
    #[serde(default, deserialize_with = "crate::units::area")]
    pub area: Option<f64>,
    /// Boxes [[x, y, z], [x, y, z]] (m) for volume-averaged tensors.
    #[serde(default, deserialize_with = "crate::units::length")]
    pub regions: Vec<[DVec3; 2]>,
}

fn default_axis() -> usize {
    1
}

impl StressOutput {
    /// The plane area (m²): given, or from the periodic lengths of the two other axes.
    pub fn plane_area(&self, boundary: &Periodic) -> Option<f64> {
        let l = boundary.lengths();
        let other = [(self.axis + 1) % 3, (self.axis + 2) % 3];
        self.area.or_else(|| {
            let a = l[other[0]] * l[other[1]];
            (a > 0.0).then_some(a)
        })
    }

    /// Everything a run would refuse, with field paths.
    pub fn problems(&self, boundary: &Periodic) -> Vec<Error> {
        let f = |n: &str| format!("output.stress.{n}");
        let mut p = Vec::new();
        if !(self.interval.is_finite() && self.interval > 0.0) {
            p.push(Error::scene(
                f("interval"),
                format!("must be a finite number > 0, got {}", self.interval),
            ));
        }
        if self.axis > 2 {
            p.push(Error::scene(
                f("axis"),
                format!("must be 0 (x), 1 (y) or 2 (z), got {}", self.axis),
            ));
        } else if !self.planes.is_empty()
            && !self
                .plane_area(boundary)
                .is_some_and(|a| a.is_finite() && a > 0.0)
        {
            p.push(Error::scene(
                f("area"),
                "must be given (> 0) unless the two other axes are periodic",
            ));
        }
        for (k, [lo, hi]) in self.regions.iter().enumerate() {
            if !(lo.is_finite() && hi.is_finite() && lo.cmplt(*hi).all()) {
                p.push(Error::scene(
                    format!("output.stress.regions[{k}]"),
                    format!("must be [lo, hi] with lo < hi on every axis, got {lo:?}, {hi:?}"),
                ));
            }
        }
        p
    }

    /// CSV header: time, then σ_k{x,y,z} per plane, then the nine components per region.
    pub fn header(&self) -> String {
        let k = ["x", "y", "z"][self.axis.min(2)];
        let mut h = String::from("time");
        for c in &self.planes {
            for l in ["x", "y", "z"] {
                h.push_str(&format!(",s{k}{l}@{c}"));
            }
        }
        for r in 0..self.regions.len() {
            for a in ["x", "y", "z"] {
                for b in ["x", "y", "z"] {
                    h.push_str(&format!(",region{r}_s{a}{b}"));
                }
            }
        }
        h
    }
}
