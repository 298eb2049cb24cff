//! Body forces from gravity fields. A scene may combine any of them; each adds m·g(x).
//!
//! * uniform gravity of any direction and magnitude (micro-g regolith to many-g centrifuges);
//! * a central body: a point mass M at a position, g = −G M (x − X)/|x − X|³ (an asteroid seen
//!   from its surface, 003 eq 34);
//! * self-gravity of the grains, by direct summation ([`direct`], the exact reference), by a
//!   Barnes–Hut octree with quadrupole moments (`tree.rs`), or by the static grid of CELLS of
//!   Sánchez & Scheeres (003 §4, eq 40–60, [`grid`]).
//!
//! G is a scene parameter (`constant`, SI by default) so pkdgrav/REBOUND-style runs with G = 1
//! work unchanged. Self-gravity is computed per particle, each sum in a fixed order, so results
//! are bit-identical for any number of threads.

pub mod direct;
pub mod grid;
pub(crate) mod tree;

use glam::DVec3;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::Error;

/// Newton's constant in SI units (m³ kg⁻¹ s⁻²), CODATA 2018.
pub const G_SI: f64 = 6.6743e-11;

fn default_constant() -> f64 {
    G_SI
}

/// The gravity fields of a scene (the `[gravity]` table).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gravity {
    /// Uniform acceleration g (m/s²), e.g. [0, 0, -9.81].
    #[serde(default, deserialize_with = "crate::units::acceleration")]
    pub uniform: Option<DVec3>,
    /// Gravitational constant G (m³ kg⁻¹ s⁻²) of the central body and of self-gravity.
    #[serde(
        default = "default_constant",
        deserialize_with = "crate::units::gravitational_constant"
    )]
    pub constant: f64,
    /// A point mass attracting every grain.
    #[serde(default)]
    pub central: Option<CentralBody>,
    /// Mutual attraction of the grains.
    #[serde(default)]
    pub self_gravity: Option<SelfGravity>,
}

impl Default for Gravity {
    fn default() -> Self {
        Gravity {
            uniform: None,
            constant: G_SI,
            central: None,
            self_gravity: None,
        }
    }
}

/// A point mass M (kg) at `position` (m).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CentralBody {
    /// Mass M (kg).
    #[serde(deserialize_with = "crate::units::mass")]
    pub mass: f64,
    /// Position of its centre (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub position: DVec3,
}

/// Self-gravity of the grains: a method and a Plummer softening length.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfGravity {
    /// How the sum over all pairs is computed.
    pub method: SelfGravityMethod,
    /// Plummer softening ε (m): pair forces use r/(r² + ε²)^{3/2}. 0 = none.
    #[serde(default, deserialize_with = "crate::units::length")]
    pub softening: f64,
}

/// How self-gravity is summed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SelfGravityMethod {
    /// Every pair, O(N²): the exact reference.
    Direct,
    /// Barnes–Hut octree with monopole + quadrupole cells and opening angle θ.
    Tree {
        /// Opening angle θ (−): a cell of side s is opened when its distance is below s/θ.
        theta: f64,
    },
    /// The static grid of cubic CELLS of 003 §4 with the first-order correction of eq 52.
    Grid(grid::GridSpec),
}

/// Buffers of the self-gravity methods, kept in the world and reused between steps.
#[derive(Clone, Debug, Default)]
pub struct GravityWork {
    /// Octree, rebuilt every evaluation.
    pub tree: tree::Octree,
    /// Grid with its distance tables (built once).
    pub grid: Option<grid::Grid>,
    /// Every grain's self-gravity, for a rank of a run shared among processes.
    all: Vec<DVec3>,
}

/// Every grain of a run shared among processes as one process holds it, for the
/// self-gravity of the grains one rank holds ([`Gravity::accelerations_among`]).
pub struct Everyone<'a> {
    /// Every grain's position (m), in the order of one process.
    pub pos: &'a [DVec3],
    /// Every grain's mass (kg), in the same order.
    pub mass: &'a [f64],
    /// Whether the rank needs each grain's acceleration (its own grains), in the same order.
    pub wanted: &'a [bool],
    /// For each grain the rank holds, its index in one process.
    pub index: &'a [u64],
}

impl Gravity {
    /// Acceleration from the external fields (uniform and central body) at a point (m/s²).
    #[inline]
    pub fn acceleration(&self, pos: DVec3) -> DVec3 {
        let mut a = self.uniform.unwrap_or(DVec3::ZERO);
        if let Some(c) = self.central {
            a += central_acceleration(self.constant, c.mass, pos - c.position);
        }
        a
    }

    /// Potential energy of a mass m (kg) at `pos` (m) in the external fields (J): −m g·x for
    /// the uniform field (zero at the origin) and −G M m/|x − X| for the central body.
    pub fn potential(&self, mass: f64, pos: DVec3) -> f64 {
        let mut u = -mass * self.uniform.unwrap_or(DVec3::ZERO).dot(pos);
        if let Some(c) = self.central {
            u -= self.constant * c.mass * mass / (pos - c.position).length();
        }
        u
    }

    /// Writes the gravitational acceleration (m/s²) of every particle into `acc`: external
    /// fields plus self-gravity. `pos` (m) and `mass` (kg) cover all particles.
    pub fn accelerations(
        &self,
        pos: &[DVec3],
        mass: &[f64],
        work: &mut GravityWork,
        acc: &mut Vec<DVec3>,
    ) {
        acc.clear();
        acc.resize(pos.len(), DVec3::ZERO);
        if let Some(s) = self.self_gravity {
            self_gravity(&s, self.constant, (pos, mass), None, work, acc);
        }
        self.add_external(pos, acc);
    }

    /// [`Gravity::accelerations`] of the grains at `pos` that one rank of a run shared among
    /// processes holds, with self-gravity from `everyone`: each wanted grain's sum is the one
    /// one process makes over the same grains in the same order (the tree built alike), so it
    /// has its bits. The others (copies) get the external fields alone.
    pub fn accelerations_among(
        &self,
        pos: &[DVec3],
        everyone: &Everyone,
        work: &mut GravityWork,
        acc: &mut Vec<DVec3>,
    ) {
        acc.clear();
        acc.resize(pos.len(), DVec3::ZERO);
        if let Some(s) = self.self_gravity {
            let mut all = std::mem::take(&mut work.all);
            all.clear();
            all.resize(everyone.pos.len(), DVec3::ZERO);
            let grains = (everyone.pos, everyone.mass);
            self_gravity(
                &s,
                self.constant,
                grains,
                Some(everyone.wanted),
                work,
                &mut all,
            );
            for (a, &k) in acc.iter_mut().zip(everyone.index) {
                if everyone.wanted[k as usize] {
                    *a = all[k as usize];
                }
            }
            work.all = all;
        }
        self.add_external(pos, acc);
    }

    /// Adds the external fields (uniform, central body) at `pos` to `acc`.
    fn add_external(&self, pos: &[DVec3], acc: &mut [DVec3]) {
        if self.uniform.is_some() || self.central.is_some() {
            acc.par_iter_mut()
                .zip(pos.par_iter())
                .with_min_len(crate::particles::MIN_LEN)
                .for_each(|(a, &x)| *a += self.acceleration(x));
        }
    }

    /// Self-gravitational potential energy −Σ_{i<j} G m_i m_j / √(r² + ε²) (J), summed in a
    /// fixed order: by the tree with its θ for the tree method (O(N log N)), exactly by direct
    /// summation otherwise.
    pub fn self_potential(&self, pos: &[DVec3], mass: &[f64]) -> f64 {
        match self.self_gravity {
            Some(SelfGravity {
                method: SelfGravityMethod::Tree { theta },
                softening,
            }) => {
                let mut tree = tree::Octree::default();
                tree.build(pos, mass);
                tree.potential(self.constant, softening, theta, pos, mass)
            }
            Some(s) => direct::potential(self.constant, s.softening, pos, mass),
            None => 0.0,
        }
    }

    /// Everything a run would refuse in the `[gravity]` table, with field paths.
    pub fn problems(&self) -> Vec<Error> {
        let mut p = Vec::new();
        if let Some(g) = self.uniform {
            if !g.is_finite() {
                p.push(Error::scene(
                    "gravity.uniform",
                    format!("must be finite, got {g:?}"),
                ));
            }
        }
        if !(self.constant.is_finite() && self.constant > 0.0) {
            p.push(Error::scene(
                "gravity.constant",
                format!("must be a finite number > 0, got {}", self.constant),
            ));
        }
        if let Some(c) = self.central {
            if !(c.mass.is_finite() && c.mass > 0.0) {
                p.push(Error::scene(
                    "gravity.central.mass",
                    format!("must be a finite number > 0, got {}", c.mass),
                ));
            }
            if !c.position.is_finite() {
                p.push(Error::scene(
                    "gravity.central.position",
                    format!("must be finite, got {:?}", c.position),
                ));
            }
        }
        if let Some(s) = self.self_gravity {
            if !(s.softening.is_finite() && s.softening >= 0.0) {
                p.push(Error::scene(
                    "gravity.self_gravity.softening",
                    format!("must be ≥ 0, got {}", s.softening),
                ));
            }
            match s.method {
                SelfGravityMethod::Direct => {}
                SelfGravityMethod::Tree { theta } => {
                    if !(theta.is_finite() && theta > 0.0 && theta <= 1.5) {
                        p.push(Error::scene(
                            "gravity.self_gravity.method.tree.theta",
                            format!("must be in (0, 1.5], got {theta}"),
                        ));
                    }
                }
                SelfGravityMethod::Grid(g) => p.extend(g.problems()),
            }
        }
        p
    }
}

/// Acceleration −G M d/|d|³ (m/s²) of a point mass M (kg) at offset `d` = x − X (m);
/// zero at the mass itself.
#[inline]
pub fn central_acceleration(g: f64, m: f64, d: DVec3) -> DVec3 {
    let r2 = d.length_squared();
    if r2 == 0.0 {
        return DVec3::ZERO;
    }
    -(g * m / (r2 * r2.sqrt())) * d
}

/// Adds the self-gravity of the method chosen to `acc`, for the grains `wanted` at least
/// (all when None).
fn self_gravity(
    s: &SelfGravity,
    g: f64,
    (pos, mass): (&[DVec3], &[f64]),
    wanted: Option<&[bool]>,
    work: &mut GravityWork,
    acc: &mut [DVec3],
) {
    match s.method {
        SelfGravityMethod::Direct => {
            direct::accelerations_of(g, s.softening, (pos, mass), wanted, acc)
        }
        SelfGravityMethod::Tree { theta } => {
            work.tree.build(pos, mass);
            (work.tree).accelerations_of(g, s.softening, theta, (pos, mass), wanted, acc);
        }
        SelfGravityMethod::Grid(spec) => {
            let grid = match &mut work.grid {
                Some(grid) if grid.spec == spec => grid,
                slot => slot.insert(grid::Grid::new(spec)),
            };
            grid.accelerations(g, s.softening, pos, mass, acc);
        }
    }
}

/// Relative error |a − a_ref|/|a_ref| and angle (degrees) between a and a_ref, per particle:
/// the two measures of 003 §4.4 (Figure 13).
pub fn force_errors(approx: &[DVec3], exact: &[DVec3]) -> (Vec<f64>, Vec<f64>) {
    approx
        .iter()
        .zip(exact)
        .map(|(a, e)| {
            let rel = (*a - *e).length() / e.length();
            let cos = (a.dot(*e) / (a.length() * e.length())).clamp(-1.0, 1.0);
            (rel, cos.acos().to_degrees())
        })
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn central_body_gives_surface_gravity_of_the_spin_up_asteroid() {
        // 003 §3.2: R_A = 8 km, M_A = 4.26e15 kg: g = G M / R² ≈ 0.0044 m/s² (as the text says).
        let g = Gravity {
            central: Some(CentralBody {
                mass: 4.26e15,
                position: DVec3::new(0.0, -8000.0, 0.0),
            }),
            ..Default::default()
        };
        let a = g.acceleration(DVec3::ZERO);
        assert!((a.y + G_SI * 4.26e15 / 64e6).abs() < 1e-15);
        assert!((a.y + 0.0044).abs() < 0.0001, "{a:?}");
        assert_eq!((a.x, a.z), (0.0, 0.0));
    }

    #[test]
    fn bad_values_are_named() {
        let g = Gravity {
            constant: -1.0,
            self_gravity: Some(SelfGravity {
                method: SelfGravityMethod::Tree { theta: 0.0 },
                softening: -2.0,
            }),
            ..Default::default()
        };
        let msgs: Vec<String> = g.problems().iter().map(|e| e.to_string()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs[0].starts_with("gravity.constant: must be"));
        assert!(msgs[1].starts_with("gravity.self_gravity.softening"));
        assert!(msgs[2].starts_with("gravity.self_gravity.method.tree.theta"));
    }
}
