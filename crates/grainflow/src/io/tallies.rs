//! The tallies of PEBBLES (001 §4.3) as observers: energy display, velocity tally, probability
//! table, wear and force tally, each written to a CSV file in the run's output folder. They
//! read the world and never change it. Chapter 4 names the tallies but says little about their
//! content; what each file holds is our reading, written in docs/pebbles-contact.md:
//!
//! * `energy.csv` (`energy_display_frequency`): time, step, translational, rotational and
//!   potential energy and their sum (J), every `energy_interval` s;
//! * `velocity_tally.csv` (`velocity_tally start frequency`): from `start`, every `interval` s,
//!   the mean velocity (m/s) and the mean, root-mean-square and largest speed of the grains;
//! * `probability_table.csv` (`probability_table start frequency delta`): how grains move
//!   between cubic cells of side `cell` from one tally to the next: for each (from, to) pair
//!   of cells the count and its share of the grains that started in `from`;
//! * `wear.csv` (`calculate_pebble_wear`, `normal_force_wear_exponent`, `wear_velocity_bins`):
//!   Σ |F⊥|^e |v∥| dt over every step and every touching contact, pebble–pebble and
//!   pebble–wall, in bins of the sliding speed |v∥| (adhesive wear, Archard);
//! * `force_tally.csv` (`calculate_force_tally`): the mean magnitude of the contact force on
//!   the grains whose centres lie in each (ρ, z) cell of side `cell` about the z axis, over
//!   every step.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::contact::normal::{normal_force, Stiffness};
use crate::scene::{TalliesSpec, WearSpec};
use crate::sim::Simulation;
use crate::Result;

/// The running tallies of one run.
pub struct Tallies {
    dir: PathBuf,
    spec: TalliesSpec,
    next_energy: f64,
    next_velocity: f64,
    next_probability: f64,
    /// Cell of each grain (by id) at the last probability tally.
    last_cell: BTreeMap<u64, [i64; 3]>,
    /// Moves (from, to) → count.
    moves: BTreeMap<([i64; 3], [i64; 3]), u64>,
    /// Wear per speed bin: pebble–pebble, pebble–wall.
    wear: [Vec<f64>; 2],
    /// Force tally: (ρ cell, z cell) → (samples, Σ |F|).
    force: BTreeMap<(i64, i64), (u64, f64)>,
    force_cell: f64,
}

/// What the tallies have gathered at a checkpoint, which a resumed run goes on from (the
/// manifest keeps it; the rows of `energy.csv` and `velocity_tally.csv` are in those files).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TallyState {
    /// Times of the next energy, velocity and probability tallies (s); none when off.
    next: [Option<f64>; 3],
    /// Cell of each grain (by id) at the last probability tally.
    last_cell: Vec<(u64, [i64; 3])>,
    /// Moves between cells: from, to, count.
    moves: Vec<([i64; 3], [i64; 3], u64)>,
    /// Wear per speed bin: pebble–pebble, pebble–wall.
    wear: [Vec<f64>; 2],
    /// Force tally: ρ cell, z cell, samples, Σ |F|.
    force: Vec<(i64, i64, u64, f64)>,
}

/// The header of `energy.csv`.
pub const ENERGY_HEADER: &str = "time,step,translational,rotational,potential,total";
/// The header of `velocity_tally.csv`.
pub const VELOCITY_HEADER: &str =
    "time,count,mean_vx,mean_vy,mean_vz,mean_speed,rms_speed,max_speed";

/// One row of `velocity_tally.csv`: the mean velocity and the mean, root-mean-square and
/// largest speed of the grains.
fn velocity_row(w: &mut impl Write, sim: &Simulation) -> std::io::Result<()> {
    let p = &sim.world.particles;
    let n = p.len().max(1) as f64;
    let mean = p.vel.iter().copied().sum::<DVec3>() / n;
    let speeds = p.vel.iter().map(|v| v.length());
    let (sum, sum2, max) = speeds.fold((0.0, 0.0, 0.0f64), |(a, b, m), s| {
        (a + s, b + s * s, m.max(s))
    });
    writeln!(
        w,
        "{:e},{},{:e},{:e},{:e},{:e},{:e},{:e}",
        sim.world.time,
        p.len(),
        mean.x,
        mean.y,
        mean.z,
        sum / n,
        (sum2 / n).sqrt(),
        max
    )
}

/// The first tally time at or after `now` of a cadence starting at `start`.
fn first_at(now: f64, start: f64) -> f64 {
    start.max(now)
}

/// A tally time as the manifest keeps it: none for ∞ (a tally that is off).
fn finite(t: f64) -> Option<f64> {
    t.is_finite().then_some(t)
}

impl Tallies {
    /// Starts the tallies of `spec` for `sim`, writing into `dir`; a resumed run goes on
    /// from `state`, what they had gathered at its checkpoint.
    pub fn new(
        dir: &Path,
        sim: &Simulation,
        spec: &TalliesSpec,
        state: Option<&TallyState>,
    ) -> Tallies {
        let t = sim.world.time;
        let bins = spec.wear.as_ref().map_or(0, |w| w.velocity_bins.len() + 1);
        let mut tallies = Tallies {
            dir: dir.to_path_buf(),
            spec: spec.clone(),
            next_energy: t + spec.energy_interval.unwrap_or(f64::INFINITY),
            next_velocity: spec
                .velocity
                .map_or(f64::INFINITY, |c| first_at(t, c.start)),
            next_probability: spec
                .probability
                .map_or(f64::INFINITY, |c| first_at(t, c.start)),
            last_cell: BTreeMap::new(),
            moves: BTreeMap::new(),
            wear: [vec![0.0; bins], vec![0.0; bins]],
            force: BTreeMap::new(),
            force_cell: spec
                .force
                .and_then(|f| f.cell)
                .unwrap_or(2.0 * sim.world.particles.max_radius()),
        };
        if let Some(s) = state {
            tallies.restore(s);
        }
        tallies
    }

    /// Goes on from `s` (a wear table of another binning is left at zero).
    fn restore(&mut self, s: &TallyState) {
        let next = [
            &mut self.next_energy,
            &mut self.next_velocity,
            &mut self.next_probability,
        ];
        for (t, saved) in next.into_iter().zip(s.next) {
            if t.is_finite() {
                *t = saved.unwrap_or(*t);
            }
        }
        self.last_cell = s.last_cell.iter().copied().collect();
        self.moves = s.moves.iter().map(|&(a, b, n)| ((a, b), n)).collect();
        for (mine, saved) in self.wear.iter_mut().zip(&s.wear) {
            if mine.len() == saved.len() {
                mine.clone_from(saved);
            }
        }
        self.force = s
            .force
            .iter()
            .map(|&(i, j, n, f)| ((i, j), (n, f)))
            .collect();
    }

    /// What the tallies have gathered, for a checkpoint.
    pub fn state(&self) -> TallyState {
        TallyState {
            next: [
                finite(self.next_energy),
                finite(self.next_velocity),
                finite(self.next_probability),
            ],
            last_cell: self.last_cell.iter().map(|(&id, &c)| (id, c)).collect(),
            moves: self.moves.iter().map(|(&(a, b), &n)| (a, b, n)).collect(),
            wear: self.wear.clone(),
            force: self
                .force
                .iter()
                .map(|(&(i, j), &(n, f))| (i, j, n, f))
                .collect(),
        }
    }

    /// Takes whatever is due after a step of `sim`, the rows of the energy and velocity
    /// tallies into `energy` and `velocity` (the files' appenders).
    pub fn observe(
        &mut self,
        sim: &Simulation,
        energy: Option<&mut impl Write>,
        velocity: Option<&mut impl Write>,
    ) -> std::io::Result<()> {
        let t = sim.world.time + 0.5 * sim.physics.dt;
        if t >= self.next_energy {
            if let Some(w) = energy {
                let e = sim.energies();
                writeln!(
                    w,
                    "{:e},{},{:e},{:e},{:e},{:e}",
                    sim.world.time,
                    sim.world.step,
                    e.translational,
                    e.rotational,
                    e.potential,
                    e.translational + e.rotational + e.potential
                )?;
            }
            self.next_energy += self.spec.energy_interval.unwrap_or(f64::INFINITY);
        }
        if let Some(c) = self.spec.velocity {
            if t >= self.next_velocity {
                if let Some(w) = velocity {
                    velocity_row(w, sim)?;
                }
                self.next_velocity += c.interval;
            }
        }
        if let Some(c) = self.spec.probability {
            if t >= self.next_probability {
                self.probability_tally(sim, c.cell);
                self.next_probability += c.interval;
            }
        }
        if let Some(w) = &self.spec.wear {
            let w = w.clone();
            self.wear_step(sim, &w);
        }
        if self.spec.force.is_some() {
            self.force_step(sim);
        }
        Ok(())
    }

    fn probability_tally(&mut self, sim: &Simulation, cell: f64) {
        let p = &sim.world.particles;
        for k in 0..p.len() {
            let c = (p.pos[k] / cell).floor().as_i64vec3().to_array();
            if let Some(from) = self.last_cell.insert(p.id[k], c) {
                *self.moves.entry((from, c)).or_insert(0) += 1;
            }
        }
    }

    /// Bin of a sliding speed.
    fn bin(edges: &[f64], speed: f64) -> usize {
        edges.partition_point(|&e| e <= speed)
    }

    fn wear_step(&mut self, sim: &Simulation, w: &WearSpec) {
        let (world, dt) = (&sim.world, sim.physics.dt);
        let p = &world.particles;
        let model = &sim.physics.model;
        let mut add = |kind: usize, s: &Stiffness, overlap: f64, n: DVec3, rel: DVec3| {
            let approach = rel.dot(n);
            let v_t = (rel - approach * n).length();
            let f = normal_force(&model.normal, s, overlap, approach).force;
            self.wear[kind][Self::bin(&w.velocity_bins, v_t)] +=
                f.abs().powf(w.exponent) * v_t * dt;
        };
        let nl = &world.neighbors;
        let period = sim.physics.periodic.lengths();
        for i in 0..p.len() {
            for slot in nl.start[i]..nl.start[i + 1] {
                if !nl.slip[slot].touching() {
                    continue;
                }
                let s = &nl.formed[slot].0;
                let (j, d) = nl.separation(i, nl.partner[slot] as usize, &p.pos, period);
                let dist = d.length();
                let overlap = p.radius[i] + p.radius[j] - dist;
                if overlap <= 0.0 || dist == 0.0 {
                    continue;
                }
                let n = d / dist;
                let (ai, aj) = (p.radius[i] - 0.5 * overlap, p.radius[j] - 0.5 * overlap);
                let rel = p.vel[i] - p.vel[j] + (ai * p.omega[i] + aj * p.omega[j]).cross(n);
                add(0, s, overlap, n, rel);
            }
            for (member, s) in world.wall_history.contacts(i) {
                let (wi, m) = (member.wall(), member.member());
                let (Some(wall), Some(pose)) =
                    (world.walls.get(wi), world.wall_runtime.pose.get(wi))
                else {
                    continue;
                };
                let Some(shape) = wall.shape.members().get(m) else {
                    continue;
                };
                let Some(c) = shape.contact(pose.to_local(p.pos[i]), p.radius[i]) else {
                    continue;
                };
                let n = pose.rotation * c.normal;
                let rel = p.vel[i] - pose.velocity_at(p.pos[i])
                    + (p.radius[i] * (p.omega[i] - pose.omega)).cross(n);
                add(1, &s.stiffness, c.overlap, n, rel);
            }
        }
    }

    fn force_step(&mut self, sim: &Simulation) {
        let w = &sim.world;
        let p = &w.particles;
        for k in 0..p.len() {
            if p.inv_mass[k] == 0.0 {
                continue;
            }
            let acc = sim
                .stepper
                .body_acc()
                .get(k)
                .copied()
                .unwrap_or(DVec3::ZERO);
            let contact = (p.force[k] - p.mass[k] * acc).length();
            let rho = p.pos[k].truncate().length();
            let cell = (
                (rho / self.force_cell).floor() as i64,
                (p.pos[k].z / self.force_cell).floor() as i64,
            );
            let e = self.force.entry(cell).or_insert((0, 0.0));
            e.0 += 1;
            e.1 += contact;
        }
    }

    /// Writes every tally file.
    pub fn finish(&self) -> Result<()> {
        let write = |name: &str, text: &str| super::durable::write_text(&self.dir.join(name), text);
        if let Some(c) = self.spec.probability {
            let mut out =
                String::from("from_i,from_j,from_k,to_i,to_j,to_k,count,probability,cell\n");
            let mut leaving: BTreeMap<[i64; 3], u64> = BTreeMap::new();
            for ((from, _), n) in &self.moves {
                *leaving.entry(*from).or_insert(0) += n;
            }
            for ((from, to), n) in &self.moves {
                let total = leaving.get(from).copied().unwrap_or(1) as f64;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{n},{:.6},{:e}",
                    from[0],
                    from[1],
                    from[2],
                    to[0],
                    to[1],
                    to[2],
                    *n as f64 / total,
                    c.cell
                );
            }
            write("probability_table.csv", &out)?;
        }
        if let Some(w) = &self.spec.wear {
            let mut out = String::from("contact,speed_lo,speed_hi,wear\n");
            for (kind, name) in ["pebble_pebble", "pebble_wall"].iter().enumerate() {
                for (b, v) in self.wear[kind].iter().enumerate() {
                    let lo = if b == 0 { 0.0 } else { w.velocity_bins[b - 1] };
                    let hi = w.velocity_bins.get(b).copied().unwrap_or(f64::INFINITY);
                    let _ = writeln!(out, "{name},{lo:e},{hi:e},{v:e}");
                }
            }
            write("wear.csv", &out)?;
        }
        if self.spec.force.is_some() {
            let mut out = String::from("rho_lo,rho_hi,z_lo,z_hi,samples,mean_contact_force\n");
            let c = self.force_cell;
            for ((i, j), (n, sum)) in &self.force {
                let _ = writeln!(
                    out,
                    "{:e},{:e},{:e},{:e},{n},{:e}",
                    *i as f64 * c,
                    (*i + 1) as f64 * c,
                    *j as f64 * c,
                    (*j + 1) as f64 * c,
                    sum / *n as f64
                );
            }
            write("force_tally.csv", &out)?;
        }
        Ok(())
    }
}
