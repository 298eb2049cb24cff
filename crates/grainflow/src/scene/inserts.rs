//! `[[inserts]]`: grains poured in during a run at a rate (LIGGGHTS's `insert/stream`,
//! LAMMPS's `fix pour`), as written in a scene and checked; the run side is
//! [`crate::drive::insert`].
//!
//! ```toml
//! [[inserts]]
//! materials = [{ name = "glass", fraction = 0.7 }, { name = "steel", fraction = 0.3 }]
//! region = { box = { min = [-0.02, -0.02, 0.2], max = [0.02, 0.02, 0.25] } }
//! rate = 2000                  # grains/s (or mass_rate in kg/s)
//! start = 0.0                  # s
//! end = 0.5                    # s (default: the end of the run)
//! velocity = [0, 0, -0.5]      # m/s
//! velocity_spread = 0.05       # m/s, each component uniform in ± this
//! size = { log_normal = { median = 1e-3, sigma = 0.1 } }
//! ```

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::{finite, nonzero, positive, Scene};
use crate::Error;

/// Largest fill fraction of the grains in an insertion region at once (their volume over the
/// region's) that random placement reaches without long searches; random sequential addition
/// of spheres jams near 0.38.
pub const MAX_FILL: f64 = 0.25;

/// One `[[inserts]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InsertSpec {
    /// Materials with their fractions by number (normalised on load).
    pub materials: Vec<MaterialShare>,
    /// Where grains are placed, each wholly inside.
    pub region: Region,
    /// Grains per second.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::rate"
    )]
    pub rate: Option<f64>,
    /// Kilograms per second.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::damping"
    )]
    pub mass_rate: Option<f64>,
    /// When insertion starts (s).
    #[serde(default, deserialize_with = "crate::units::time")]
    pub start: f64,
    /// When it ends (s); the end of the run when absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::time"
    )]
    pub end: Option<f64>,
    /// Time between insertions (s); every step when absent. Grains due in between wait for
    /// the next insertion, so the count is the rate's whatever the interval.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::time"
    )]
    pub interval: Option<f64>,
    /// Initial velocity (m/s).
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity: DVec3,
    /// Each velocity component gets a uniform random addition in ± this (m/s).
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity_spread: f64,
    /// Radii of the grains.
    pub size: SizeDistribution,
}

/// A material and its share by number of the inserted grains.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialShare {
    /// Material name.
    pub name: String,
    /// Fraction by number (> 0; the fractions are normalised to sum to 1).
    pub fraction: f64,
}

/// Where inserted grains are placed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Region {
    /// Axis-aligned box.
    Box {
        /// Lower corner (m).
        #[serde(deserialize_with = "crate::units::length")]
        min: DVec3,
        /// Upper corner (m).
        #[serde(deserialize_with = "crate::units::length")]
        max: DVec3,
    },
    /// Cylinder of `radius` and `length` centred on `center` along `axis`.
    Cylinder {
        /// Centre (m).
        #[serde(deserialize_with = "crate::units::length")]
        center: DVec3,
        /// Axis (normalised on load).
        axis: DVec3,
        /// Radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        radius: f64,
        /// Length (m).
        #[serde(deserialize_with = "crate::units::length")]
        length: f64,
    },
}

/// Radii of grains: fixed, uniform, normal or log-normal (both cut at 3 standard deviations),
/// or a sieve table of radii with their fractions by mass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDistribution {
    /// One radius (m).
    Fixed(#[serde(deserialize_with = "crate::units::length")] f64),
    /// Uniform in [min, max] (m).
    Uniform {
        /// Smallest radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        min: f64,
        /// Largest radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        max: f64,
    },
    /// Normal of `mean` and `std` (m), cut to mean ± 3 std.
    Normal {
        /// Mean radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        mean: f64,
        /// Standard deviation (m).
        #[serde(deserialize_with = "crate::units::length")]
        std: f64,
    },
    /// ln r normal about ln `median` with standard deviation `sigma`, cut to ± 3 sigma.
    LogNormal {
        /// Median radius (m).
        #[serde(deserialize_with = "crate::units::length")]
        median: f64,
        /// Standard deviation of ln r (−).
        sigma: f64,
    },
    /// Rows [radius (m), fraction by mass]: a sieve analysis (fractions normalised on load).
    Table(Vec<[f64; 2]>),
}

impl SizeDistribution {
    /// Smallest and largest radius it can give (m).
    pub fn range(&self) -> [f64; 2] {
        match self {
            SizeDistribution::Fixed(r) => [*r, *r],
            SizeDistribution::Uniform { min, max } => [*min, *max],
            SizeDistribution::Normal { mean, std } => [mean - 3.0 * std, mean + 3.0 * std],
            SizeDistribution::LogNormal { median, sigma } => {
                [median * (-3.0 * sigma).exp(), median * (3.0 * sigma).exp()]
            }
            SizeDistribution::Table(rows) => rows
                .iter()
                .fold([f64::INFINITY, 0.0], |[a, b], r| [a.min(r[0]), b.max(r[0])]),
        }
    }

    /// Mean of r³ over grains (m³), for fill fractions: exact for fixed, uniform and table;
    /// for normal and log-normal that of the uncut distribution (mean³ + 3 mean std², and
    /// median³ e^{9σ²/2}).
    pub fn mean_cube(&self) -> f64 {
        match self {
            SizeDistribution::Fixed(r) => r.powi(3),
            SizeDistribution::Uniform { min, max } if max > min => {
                (max.powi(4) - min.powi(4)) / (4.0 * (max - min))
            }
            SizeDistribution::Uniform { min, .. } => min.powi(3),
            SizeDistribution::Normal { mean, std } => mean.powi(3) + 3.0 * mean * std * std,
            SizeDistribution::LogNormal { median, sigma } => {
                median.powi(3) * (4.5 * sigma * sigma).exp()
            }
            // Grains per unit mass of class i ∝ w_i / r_i³: E[r³] = Σ w_i / Σ (w_i / r_i³).
            SizeDistribution::Table(rows) => {
                let w: f64 = rows.iter().map(|r| r[1]).sum();
                w / rows.iter().map(|r| r[1] / r[0].powi(3)).sum::<f64>()
            }
        }
    }

    /// Problems at field path `at`.
    fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let bad = |p: &mut Vec<Error>, why: String| p.push(Error::scene(at.to_string(), why));
        match self {
            SizeDistribution::Table(rows) => {
                if rows.is_empty() {
                    bad(p, "the table needs at least one row".into());
                }
                if let Some(r) = rows
                    .iter()
                    .find(|r| !(r[0].is_finite() && r[0] > 0.0 && r[1].is_finite() && r[1] >= 0.0))
                {
                    bad(
                        p,
                        format!("rows must be [radius > 0, mass fraction ≥ 0], got {r:?}"),
                    );
                }
                if rows.iter().all(|r| r[1] <= 0.0) {
                    bad(p, "the mass fractions must not all be 0".into());
                }
            }
            SizeDistribution::LogNormal { sigma, .. } if !(sigma.is_finite() && *sigma >= 0.0) => {
                bad(p, format!("sigma must be ≥ 0, got {sigma}"))
            }
            _ => {
                let [lo, hi] = self.range();
                if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo) {
                    bad(
                        p,
                        format!("radii must be finite and > 0, from {lo:e} to {hi:e} m here (normal sizes are cut at mean ± 3 std)"),
                    );
                }
            }
        }
    }
}

impl Region {
    /// Volume (m³).
    pub fn volume(&self) -> f64 {
        match self {
            Region::Box { min, max } => (*max - *min).max(DVec3::ZERO).element_product(),
            Region::Cylinder { radius, length, .. } => {
                std::f64::consts::PI * radius * radius * length
            }
        }
    }

    /// Extent along the unit direction `d` (m), for how long a grain stays inside.
    fn extent_along(&self, d: DVec3) -> f64 {
        match self {
            Region::Box { min, max } => (*max - *min).abs().dot(d.abs()),
            Region::Cylinder {
                axis,
                radius,
                length,
                ..
            } => {
                let c = axis.normalize().dot(d).abs();
                length * c + 2.0 * radius * (1.0 - c * c).max(0.0).sqrt()
            }
        }
    }

    fn problems(&self, at: &str, p: &mut Vec<Error>) {
        let f = |name: &str| format!("{at}.{name}");
        match self {
            Region::Box { min, max } => super::box_corners(p, &f("box"), *min, *max),
            Region::Cylinder {
                center,
                axis,
                radius,
                length,
            } => {
                finite(p, f("cylinder.center"), *center);
                nonzero(p, f("cylinder.axis"), *axis);
                positive(p, f("cylinder.radius"), *radius);
                positive(p, f("cylinder.length"), *length);
            }
        }
    }

    /// Whether a sphere of radius `r` fits inside (the smallest extent exceeds its diameter).
    fn holds(&self, r: f64) -> bool {
        match self {
            Region::Box { min, max } => (*max - *min).min_element() > 2.0 * r,
            Region::Cylinder { radius, length, .. } => *radius > r && *length > 2.0 * r,
        }
    }
}

impl InsertSpec {
    /// Grains per second: `rate`, or `mass_rate` over the mean grain mass.
    pub fn grains_per_second(&self, mean_density: f64) -> f64 {
        self.rate.unwrap_or_else(|| {
            let m = 4.0 / 3.0 * std::f64::consts::PI * self.size.mean_cube() * mean_density;
            self.mass_rate.unwrap_or(0.0) / m
        })
    }

    /// Fill fraction of the region while grains pour through it: grains inserted per second
    /// times the time one stays inside (the region's extent along its fall, at the initial
    /// speed under uniform gravity `g`), times its mean volume, over the region's volume.
    pub fn fill_fraction(&self, mean_density: f64, g: DVec3) -> f64 {
        let v0 = self.velocity;
        let dir = if g != DVec3::ZERO {
            (v0 + g * 1e-3).normalize_or_zero()
        } else {
            v0.normalize_or_zero()
        };
        let stay = if dir == DVec3::ZERO {
            f64::INFINITY
        } else {
            // h = u t + ½ a t² along the fall, solved for t.
            let (h, u, a) = (
                self.region.extent_along(dir),
                v0.dot(dir).max(0.0),
                g.dot(dir).max(0.0),
            );
            if a > 0.0 {
                ((u * u + 2.0 * a * h).sqrt() - u) / a
            } else if u > 0.0 {
                h / u
            } else {
                f64::INFINITY
            }
        };
        // Grains due at once when inserted every `interval` stay at least that long together.
        let stay = stay.max(self.interval.unwrap_or(0.0));
        let volume = 4.0 / 3.0 * std::f64::consts::PI * self.size.mean_cube();
        self.grains_per_second(mean_density) * stay * volume / self.region.volume()
    }
}

impl Scene {
    /// The problems of every `[[inserts]]` entry, each with its field path.
    pub(super) fn insert_problems(&self, p: &mut Vec<Error>) {
        for (k, ins) in self.inserts.iter().enumerate() {
            let at = format!("inserts[{k}]");
            let f = |name: &str| format!("{at}.{name}");
            if !matches!(self.simulation.method, super::Method::Soft(_))
                || self.simulation.dimensions != 3
            {
                p.push(Error::scene(
                    at.clone(),
                    "inserts run with the soft-sphere method in 3-D only",
                ));
            }
            if ins.materials.is_empty() {
                p.push(Error::scene(f("materials"), "needs at least one material"));
            }
            for (n, m) in ins.materials.iter().enumerate() {
                let g = format!("{at}.materials[{n}]");
                self.check_material_ref(p, format!("{g}.name"), &m.name);
                if let Some(d) = self
                    .material_index(&m.name)
                    .map(|i| self.materials[i].density)
                {
                    if d.is_none() {
                        p.push(Error::scene(
                            format!("{g}.name"),
                            format!("material \"{}\" has no density", m.name),
                        ));
                    }
                }
                positive(p, format!("{g}.fraction"), m.fraction);
            }
            match (ins.rate, ins.mass_rate) {
                (Some(r), None) | (None, Some(r)) => positive(
                    p,
                    f(if ins.rate.is_some() {
                        "rate"
                    } else {
                        "mass_rate"
                    }),
                    r,
                ),
                _ => p.push(Error::scene(
                    f("rate"),
                    "give exactly one of rate (grains/s) and mass_rate (kg/s)",
                )),
            }
            let end = ins
                .end
                .unwrap_or(self.simulation.start_time + self.simulation.duration);
            if !(ins.start.is_finite() && ins.start >= 0.0 && end >= ins.start) {
                p.push(Error::scene(
                    f("end"),
                    format!(
                        "needs 0 ≤ start ≤ end, got start {} and end {end}",
                        ins.start
                    ),
                ));
            }
            if let Some(i) = ins.interval {
                positive(p, f("interval"), i);
            }
            finite(p, f("velocity"), ins.velocity);
            if !(ins.velocity_spread.is_finite() && ins.velocity_spread >= 0.0) {
                p.push(Error::scene(
                    f("velocity_spread"),
                    format!("must be ≥ 0, got {}", ins.velocity_spread),
                ));
            }
            let before = p.len();
            ins.size.problems(&f("size"), p);
            ins.region.problems(&f("region"), p);
            if p.len() > before {
                continue;
            }
            let r_max = ins.size.range()[1];
            if !ins.region.holds(r_max) {
                p.push(Error::scene(
                    f("region"),
                    format!("is too small to hold a grain of the largest radius {r_max:e} m"),
                ));
                continue;
            }
            self.fill_problem(ins, &f("region"), p);
        }
    }

    /// Refuses a region the grains would crowd: fill fraction above [`MAX_FILL`].
    fn fill_problem(&self, ins: &InsertSpec, at: &str, p: &mut Vec<Error>) {
        let total: f64 = ins.materials.iter().map(|m| m.fraction).sum();
        let density: f64 = ins
            .materials
            .iter()
            .filter_map(|m| {
                Some(m.fraction / total * self.materials[self.material_index(&m.name)?].density?)
            })
            .sum();
        let g = self.gravity.uniform.unwrap_or(DVec3::ZERO);
        let fill = ins.fill_fraction(density, g);
        if fill > MAX_FILL {
            p.push(Error::scene(
                at.to_string(),
                format!(
                    "is too small for the rate: grains would fill {:.0} % of it while they pour through (at most {:.0} %); enlarge it along the fall, lower the rate or give a larger initial velocity",
                    100.0 * fill,
                    100.0 * MAX_FILL
                ),
            ));
        }
    }
}
