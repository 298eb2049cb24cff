//! Self-gravity on a static grid of cubic CELLS (Sánchez & Scheeres 2011, 003 §4).
//!
//! Space is divided once into G_nx × G_ny × G_nz cubic CELLS of side h. Particles in the same
//! CELL attract each other exactly (the "local term" of 003 §4.1, with Plummer softening).
//! Every other occupied CELL B acts on particle j of CELL A as a virtual particle of mass M_B
//! at its centre of mass, to first order in the offsets from the CELL centres (003 eq 40–52;
//! the extraction lost the equations, this is the form restored in `seeds/README.md`):
//!
//!   a_j ≈ G M_B [R + Δ − 3 (R̂·Δ) R̂] / |R|³,   Δ = ρ_B − ρ_j,
//!
//! with R the vector between the CELL centres, ρ_B the centre of mass of B and ρ_j particle j,
//! both relative to their CELL's centre. Since R = h (a, b, c) with integers a, b, c, |R|² = h² n
//! with n = a² + b² + c² ≤ (G_nx−1)² + (G_ny−1)² + (G_nz−1)² (003 eq 54–60), so 1/|R|² and
//! 1/|R|³ — all eq 52 needs in this form — are tabulated once by n. Summed over the particles of
//! A, the correction is antisymmetric in A and B (003 eq 53), so the total momentum is
//! conserved and the centre of mass stays fixed. The far field ignores softening (R ≥ h).
//! Each particle's sum runs in a fixed order, so results do not depend on the thread count.

use glam::DVec3;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::direct::pair;
use crate::Error;

/// The grid of CELLS (`method = { grid = { min = [..], cell_size = .., cells = [..] } }`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Lower corner of the gridded space (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub min: DVec3,
    /// Side h of a cubic CELL (m).
    #[serde(deserialize_with = "crate::units::length")]
    pub cell_size: f64,
    /// Number of CELLS along x, y, z (G_nx, G_ny, G_nz).
    pub cells: [u32; 3],
    /// Also sum the 26 CELLS around a particle's own CELL exactly (an extension of 003, whose
    /// local term covers the own CELL only); eq 52 then serves only CELLS two or more apart.
    #[serde(default)]
    pub exact_neighbors: bool,
}

/// Most CELLS a grid may have.
const MAX_CELLS: f64 = 1e8;

impl GridSpec {
    /// Upper corner of the gridded space (m).
    pub fn max(&self) -> DVec3 {
        self.min
            + self.cell_size
                * DVec3::new(
                    self.cells[0] as f64,
                    self.cells[1] as f64,
                    self.cells[2] as f64,
                )
    }

    /// Everything a run would refuse, with field paths.
    pub fn problems(&self) -> Vec<Error> {
        let f = |name: &str| format!("gravity.self_gravity.method.grid.{name}");
        let mut p = Vec::new();
        if !self.min.is_finite() {
            p.push(Error::scene(
                f("min"),
                format!("must be finite, got {:?}", self.min),
            ));
        }
        if !(self.cell_size.is_finite() && self.cell_size > 0.0) {
            p.push(Error::scene(
                f("cell_size"),
                format!("must be a finite number > 0, got {}", self.cell_size),
            ));
        }
        let total: f64 = self.cells.iter().map(|&c| c as f64).product();
        if self.cells.contains(&0) || total > MAX_CELLS {
            p.push(Error::scene(
                f("cells"),
                format!(
                    "must be ≥ 1 each and at most {MAX_CELLS:.0e} in all, got {:?}",
                    self.cells
                ),
            ));
        }
        p
    }
}

fn as_vec(ijk: [i64; 3]) -> DVec3 {
    DVec3::new(ijk[0] as f64, ijk[1] as f64, ijk[2] as f64)
}

/// An occupied CELL of the current evaluation.
#[derive(Clone, Copy, Debug)]
struct Occupied {
    /// Integer coordinates of the CELL.
    ijk: [i64; 3],
    /// Range of its particles in the permutation.
    start: usize,
    end: usize,
    /// Total mass M_B (kg).
    mass: f64,
    /// Centre of mass relative to the CELL centre, ρ_B (m).
    rho: DVec3,
}

/// The static grid with its distance tables and per-evaluation buffers.
#[derive(Clone, Debug)]
pub struct Grid {
    /// The CELLS.
    pub spec: GridSpec,
    /// 1/|R|² (1/m²) by n = |R|²/h².
    inv_r2: Vec<f64>,
    /// 1/|R|³ (1/m³) by n.
    inv_r3: Vec<f64>,
    keyed: Vec<(u64, u32)>,
    occupied: Vec<Occupied>,
    sorted_acc: Vec<DVec3>,
}

impl Grid {
    /// The grid of `spec` with its distance tables (003 eq 54–60).
    pub fn new(spec: GridSpec) -> Grid {
        let n_max: u64 = spec.cells.iter().map(|&c| (c as u64 - 1).pow(2)).sum();
        let h = spec.cell_size;
        let (inv_r2, inv_r3) = (0..=n_max)
            .map(|n| {
                let r = h * (n as f64).sqrt();
                if n == 0 {
                    (0.0, 0.0)
                } else {
                    (1.0 / (r * r), 1.0 / (r * r * r))
                }
            })
            .unzip();
        Grid {
            spec,
            inv_r2,
            inv_r3,
            keyed: Vec::new(),
            occupied: Vec::new(),
            sorted_acc: Vec::new(),
        }
    }

    /// Number of tabulated distances.
    pub fn table_len(&self) -> usize {
        self.inv_r3.len()
    }

    /// Integer CELL coordinates of a point, clamped to the grid (a grain outside it is stopped
    /// by the domain check the scene must then have, see `Scene::problems`).
    fn cell_of(&self, x: DVec3) -> [i64; 3] {
        let s = (x - self.spec.min) / self.spec.cell_size;
        let c = self.spec.cells;
        [
            (s.x.floor() as i64).clamp(0, c[0] as i64 - 1),
            (s.y.floor() as i64).clamp(0, c[1] as i64 - 1),
            (s.z.floor() as i64).clamp(0, c[2] as i64 - 1),
        ]
    }

    fn centre_of(&self, ijk: [i64; 3]) -> DVec3 {
        self.spec.min + self.spec.cell_size * (as_vec(ijk) + 0.5)
    }

    /// Number of occupied CELLS at the last evaluation.
    pub fn occupied(&self) -> usize {
        self.occupied.len()
    }

    /// Adds the self-gravity (m/s²) of every particle to `acc`.
    pub fn accelerations(
        &mut self,
        g: f64,
        softening: f64,
        pos: &[DVec3],
        mass: &[f64],
        acc: &mut [DVec3],
    ) {
        let eps2 = softening * softening;
        let c = self.spec.cells;
        let key = |ijk: [i64; 3]| {
            ((ijk[2] as u64 * c[1] as u64) + ijk[1] as u64) * c[0] as u64 + ijk[0] as u64
        };
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(
            pos.iter()
                .enumerate()
                .map(|(k, &x)| (key(self.cell_of(x)), k as u32)),
        );
        keyed.sort_unstable();
        self.occupied.clear();
        let mut s = 0;
        while s < keyed.len() {
            let e = s + keyed[s..].iter().take_while(|k| k.0 == keyed[s].0).count();
            let ijk = self.cell_of(pos[keyed[s].1 as usize]);
            let (mut m, mut mx) = (0.0, DVec3::ZERO);
            for &(_, k) in &keyed[s..e] {
                m += mass[k as usize];
                mx += mass[k as usize] * pos[k as usize];
            }
            let rho = if m > 0.0 {
                mx / m - self.centre_of(ijk)
            } else {
                DVec3::ZERO
            };
            self.occupied.push(Occupied {
                ijk,
                start: s,
                end: e,
                mass: m,
                rho,
            });
            s = e;
        }
        self.keyed = keyed;
        self.sorted_acc.clear();
        self.sorted_acc.resize(pos.len(), DVec3::ZERO);
        let h = self.spec.cell_size;
        let (occupied, keyed) = (&self.occupied, &self.keyed);
        let (inv_r2, inv_r3) = (&self.inv_r2, &self.inv_r3);
        let spec = self.spec;
        let near = i64::from(spec.exact_neighbors);
        let centre_of = |ijk: [i64; 3]| spec.min + h * (as_vec(ijk) + 0.5);
        let mut chunks: Vec<(&Occupied, &mut [DVec3])> = Vec::with_capacity(occupied.len());
        let mut rest: &mut [DVec3] = &mut self.sorted_acc;
        for cell in occupied {
            let (head, tail) = rest.split_at_mut(cell.end - cell.start);
            chunks.push((cell, head));
            rest = tail;
        }
        chunks.par_iter_mut().for_each(|(a_cell, out)| {
            let centre = centre_of(a_cell.ijk);
            let members = &keyed[a_cell.start..a_cell.end];
            for (slot, &(_, j)) in out.iter_mut().zip(members) {
                let xj = pos[j as usize];
                // Local term: exact attraction of the particles of the same CELL.
                let mut local = DVec3::ZERO;
                for &(_, i) in members {
                    if i != j {
                        local += pair(mass[i as usize], pos[i as usize] - xj, eps2);
                    }
                }
                // Far term, 003 eq 52, from every other occupied CELL.
                let rho_j = xj - centre;
                let mut far = DVec3::ZERO;
                for b in occupied {
                    let d = [
                        b.ijk[0] - a_cell.ijk[0],
                        b.ijk[1] - a_cell.ijk[1],
                        b.ijk[2] - a_cell.ijk[2],
                    ];
                    if d.iter().all(|c| c.abs() <= near) {
                        if d != [0, 0, 0] {
                            for &(_, i) in &keyed[b.start..b.end] {
                                local += pair(mass[i as usize], pos[i as usize] - xj, eps2);
                            }
                        }
                        continue;
                    }
                    let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) as usize;
                    let r = h * DVec3::new(d[0] as f64, d[1] as f64, d[2] as f64);
                    let delta = b.rho - rho_j;
                    let i3 = inv_r3[n];
                    far += (b.mass * i3) * (r + delta - (3.0 * r.dot(delta) * inv_r2[n]) * r);
                }
                *slot = g * (local + far);
            }
        });
        for (&(_, k), a) in self.keyed.iter().zip(&self.sorted_acc) {
            acc[k as usize] += *a;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> GridSpec {
        GridSpec {
            min: DVec3::ZERO,
            cell_size: 10.0,
            cells: [4, 3, 2],
            exact_neighbors: false,
        }
    }

    #[test]
    fn distance_table_holds_every_integer_distance() {
        // 003 eq 60: n ≤ 3² + 2² + 1² = 14, so 15 entries including zero; 1/|R|³ at n = 2 is
        // 1/(10 √2)³.
        let g = Grid::new(spec());
        assert_eq!(g.table_len(), 15);
        assert!((g.inv_r3[2] - 1.0 / (10.0 * 2f64.sqrt()).powi(3)).abs() < 1e-18);
    }

    #[test]
    fn two_distant_cells_match_newton_to_second_order() {
        // One grain at the centre of CELL (0,0,0), one offset by Δ = 1 m in CELL (3,0,0), R = 30 m:
        // exact 1/(R + Δ)² = R⁻² (1 − 2x + 3x² − …), x = Δ/R; eq 52 keeps 1 − 2x, so the error
        // is 3x² = 3.3e-3; the uncorrected CELL-centre force would be off by 2x = 6.7 %.
        let pos = [DVec3::new(5.0, 5.0, 5.0), DVec3::new(36.0, 5.0, 5.0)];
        let mass = [1.0, 2.0];
        let mut grid = Grid::new(spec());
        let mut a = vec![DVec3::ZERO; 2];
        grid.accelerations(1.0, 0.0, &pos, &mass, &mut a);
        let exact = 2.0 / 31f64.powi(2);
        let x = 1.0 / 30.0;
        assert!((a[0].x - exact).abs() < 3.5 * x * x * exact, "{:?}", a[0]);
        assert!((a[0] * mass[0] + a[1] * mass[1]).length() < 1e-15);
        assert_eq!(grid.occupied(), 2);
    }
}
