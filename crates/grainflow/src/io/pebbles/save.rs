//! PEBBLES save files and position files (001 §4.5).
//!
//! A save holds every pebble (id, position, velocity, angular velocity, radius, passes), the
//! static-friction slips of touching pebble pairs and the surface slips of pebble–wall
//! contacts, in text with every number written in its shortest exact form, so a run loaded
//! from a save continues from the same numbers:
//!
//! ```text
//! pebbles_save 1
//! step 510000
//! time 5.1e1
//! pebbles 2000
//! 0 x y z vx vy vz wx wy wz radius passes
//! …
//! slips 5321
//! 0 17 sx sy sz            (ids of the pair, slip in m)
//! …
//! surface_slips 312
//! 4 513 sx sy sz           (pebble id, wall key, slip in m)
//! …
//! end_save
//! ```
//!
//! The full displays of a run's `<stem>.out` are save blocks, so `grainflow analyze get-run`
//! cuts a save out of a run as `get_run | get_save_info` does (001 chapter 9). Position files
//! are lines of `x y z` in metres (commas allowed).

use std::io::Write;
use std::path::Path;

use glam::DVec3;

use crate::contact::{normal, ContactState};
use crate::material::{effective_mass, effective_radius};
use crate::scene::{ListSource, ParticleSource, SphereSpec};
use crate::sim::Simulation;
use crate::walls::history::WallMember;
use crate::{Error, Result};

/// One pebble of a save.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedPebble {
    /// Id in the run that wrote it.
    pub id: u64,
    /// Position (m).
    pub pos: DVec3,
    /// Velocity (m/s).
    pub vel: DVec3,
    /// Angular velocity (rad/s).
    pub omega: DVec3,
    /// Radius (m).
    pub radius: f64,
    /// Passes through the vessel.
    pub passes: u32,
}

/// A save: pebbles, pair slips and surface slips.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Save {
    /// Step it was written at.
    pub step: u64,
    /// Simulated time it was written at (s).
    pub time: f64,
    /// The pebbles, by rising id.
    pub pebbles: Vec<SavedPebble>,
    /// Slips of touching pairs: (id_i, id_j, slip m).
    pub slips: Vec<(u64, u64, DVec3)>,
    /// Slips of touching wall contacts: (pebble id, wall key, slip m).
    pub surface_slips: Vec<(u64, u32, DVec3)>,
}

fn v3(v: DVec3) -> String {
    format!("{:e} {:e} {:e}", v.x, v.y, v.z)
}

impl Save {
    /// The state of `sim` now.
    pub fn of(sim: &Simulation) -> Save {
        let w = &sim.world;
        let p = &w.particles;
        let mut order: Vec<usize> = (0..p.len()).collect();
        order.sort_by_key(|&k| p.id[k]);
        let pebbles = order
            .iter()
            .map(|&k| SavedPebble {
                id: p.id[k],
                pos: p.pos[k],
                vel: p.vel[k],
                omega: p.omega[k],
                radius: p.radius[k],
                passes: p.passes[k],
            })
            .collect();
        let nl = &w.neighbors;
        let mut slips: Vec<(u64, u64, DVec3)> = (0..nl.len())
            .filter(|&s| nl.slip[s].touching())
            .map(|s| {
                (
                    p.id[nl.owner(s)],
                    p.id[nl.partner_grain[s] as usize],
                    nl.slip[s].displacement(),
                )
            })
            .map(|(a, b, s)| if a < b { (a, b, s) } else { (b, a, -s) })
            .collect();
        slips.sort_by_key(|&(a, b, _)| (a, b));
        let mut surface_slips: Vec<(u64, u32, DVec3)> = w
            .wall_history
            .iter()
            .filter(|(_, _, s)| s.touching)
            .map(|(k, member, s)| (p.id[k], member.to_bits(), s.slip))
            .collect();
        surface_slips.sort_by_key(|&(a, key, _)| (a, key));
        Save {
            step: w.step,
            time: w.time,
            pebbles,
            slips,
            surface_slips,
        }
    }

    /// Writes the save block to `w`.
    pub fn write_to(&self, w: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            w,
            "pebbles_save 1\nstep {}\ntime {:e}\npebbles {}",
            self.step,
            self.time,
            self.pebbles.len()
        )?;
        for b in &self.pebbles {
            writeln!(
                w,
                "{} {} {} {} {:e} {}",
                b.id,
                v3(b.pos),
                v3(b.vel),
                v3(b.omega),
                b.radius,
                b.passes
            )?;
        }
        writeln!(w, "slips {}", self.slips.len())?;
        for (a, b, s) in &self.slips {
            writeln!(w, "{a} {b} {}", v3(*s))?;
        }
        writeln!(w, "surface_slips {}", self.surface_slips.len())?;
        for (a, key, s) in &self.surface_slips {
            writeln!(w, "{a} {key} {}", v3(*s))?;
        }
        writeln!(w, "end_save")
    }

    /// Writes the save to a file, whole ([`crate::io::durable::write_whole`]).
    pub fn write(&self, path: &Path) -> Result<()> {
        crate::io::durable::write_whole(path, |w| self.write_to(w))
    }

    /// Reads a save file (the first save block in it).
    pub fn read(path: &Path) -> Result<Save> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Save::parse(&text).map_err(|(line, reason)| Error::Format {
            path: path.to_path_buf(),
            reason: format!("line {line}: {reason}"),
        })
    }

    /// Parses the first save block of `text`; errors carry the line number.
    pub fn parse(text: &str) -> std::result::Result<Save, (usize, String)> {
        let mut lines = text
            .lines()
            .enumerate()
            .skip_while(|(_, l)| !l.starts_with("pebbles_save"));
        let mut next = |what: &str| -> std::result::Result<(usize, Vec<&str>), (usize, String)> {
            lines
                .next()
                .map(|(k, l)| (k + 1, l.split_whitespace().collect()))
                .ok_or((0, format!("the file ends before {what}")))
        };
        let (line, head) = next("the save header")?;
        if head != ["pebbles_save", "1"] {
            return Err((line, "not a save (expected 'pebbles_save 1')".into()));
        }
        let num = |line: usize, w: &str| {
            w.parse::<f64>()
                .map_err(|_| (line, format!("'{w}' is not a number")))
        };
        let int = |line: usize, w: &str| {
            w.parse::<u64>()
                .map_err(|_| (line, format!("'{w}' is not a whole number")))
        };
        type Next<'n> =
            dyn FnMut(&str) -> std::result::Result<(usize, Vec<&'n str>), (usize, String)> + 'n;
        let keyed =
            |next: &mut Next, key: &str| -> std::result::Result<(usize, String), (usize, String)> {
                let (line, w) = next(key)?;
                match w[..] {
                    [k, v] if k == key => Ok((line, v.to_string())),
                    _ => Err((line, format!("expected '{key} VALUE'"))),
                }
            };
        let (l, s) = keyed(&mut next, "step")?;
        let step = int(l, &s)?;
        let (l, s) = keyed(&mut next, "time")?;
        let time = num(l, &s)?;
        let (l, s) = keyed(&mut next, "pebbles")?;
        let n = int(l, &s)? as usize;
        let mut save = Save {
            step,
            time,
            ..Save::default()
        };
        let vec = |line: usize, w: &[&str]| -> std::result::Result<DVec3, (usize, String)> {
            Ok(DVec3::new(
                num(line, w[0])?,
                num(line, w[1])?,
                num(line, w[2])?,
            ))
        };
        for _ in 0..n {
            let (l, w) = next("the pebbles")?;
            if w.len() != 12 {
                return Err((l, format!("a pebble line has 12 values, found {}", w.len())));
            }
            save.pebbles.push(SavedPebble {
                id: int(l, w[0])?,
                pos: vec(l, &w[1..4])?,
                vel: vec(l, &w[4..7])?,
                omega: vec(l, &w[7..10])?,
                radius: num(l, w[10])?,
                passes: int(l, w[11])? as u32,
            });
        }
        let (l, s) = keyed(&mut next, "slips")?;
        for _ in 0..int(l, &s)? {
            let (l, w) = next("the slips")?;
            if w.len() != 5 {
                return Err((l, "a slip line is 'id id sx sy sz'".into()));
            }
            save.slips
                .push((int(l, w[0])?, int(l, w[1])?, vec(l, &w[2..5])?));
        }
        let (l, s) = keyed(&mut next, "surface_slips")?;
        for _ in 0..int(l, &s)? {
            let (l, w) = next("the surface slips")?;
            if w.len() != 5 {
                return Err((l, "a surface slip line is 'id wall sx sy sz'".into()));
            }
            save.surface_slips
                .push((int(l, w[0])?, int(l, w[1])? as u32, vec(l, &w[2..5])?));
        }
        let (l, w) = next("end_save")?;
        if w != ["end_save"] {
            return Err((l, "expected end_save".into()));
        }
        Ok(save)
    }

    /// The pebbles as an explicit particle list of `material`; the k-th pebble gets id k.
    pub fn source(&self, material: &str) -> ParticleSource {
        ParticleSource::List(ListSource {
            material: material.into(),
            spheres: self
                .pebbles
                .iter()
                .map(|b| SphereSpec {
                    pos: b.pos,
                    radius: b.radius,
                    vel: b.vel,
                    omega: b.omega,
                    mobility: Default::default(),
                })
                .collect(),
        })
    }

    /// Puts back pass counts, slips and surface slips into `sim`, built from [`Save::source`],
    /// and evaluates the forces with them.
    pub fn restore(&self, sim: &mut Simulation) -> Result<()> {
        let order: std::collections::HashMap<u64, u64> = self
            .pebbles
            .iter()
            .enumerate()
            .map(|(k, b)| (b.id, k as u64))
            .collect();
        let w = &mut sim.world;
        let index = w.particles.index_map();
        let at = |id: u64| order.get(&id).and_then(|k| index.get(k)).copied();
        for (b, k) in self.pebbles.iter().zip(0u64..) {
            if let Some(&i) = index.get(&k) {
                w.particles.passes[i] = b.passes;
            }
        }
        let ph = &sim.physics;
        let p = &w.particles;
        let state = |i: usize, j: Option<usize>, slip: DVec3| {
            let r_j = j.map(|j| p.radius[j]);
            let inv_j = j.map_or(0.0, |j| p.inv_mass[j]);
            let mat_j = j.map_or(1, |j| p.material[j] as usize);
            let v_c = ph.model.characteristic_velocity;
            ContactState {
                slip,
                stiffness: normal::stiffness(
                    &ph.model.normal,
                    ph.table.get(p.material[i] as usize, mat_j),
                    effective_radius(p.radius[i], r_j),
                    effective_mass(p.inv_mass[i], inv_j),
                    v_c,
                    v_c,
                    j.is_none(),
                ),
                touching: true,
                ..ContactState::default()
            }
        };
        let mut entries = Vec::new();
        for &(a, b, s) in &self.slips {
            if let (Some(i), Some(j)) = (at(a), at(b)) {
                // The list stores each pair once, owner i < j; the slip belongs to the owner.
                let (lo, hi, s) = if i < j { (i, j, s) } else { (j, i, -s) };
                entries.push((lo, hi, None, state(lo, Some(hi), s)));
            }
        }
        let mut walls = Vec::new();
        for &(a, key, s) in &self.surface_slips {
            let member = WallMember::from_bits(key);
            let wall = member.wall();
            if wall >= w.walls.len() {
                return Err(Error::scene(
                    "load_pebble_save",
                    format!(
                        "a surface slip names wall {wall} but the deck builds {} walls",
                        w.walls.len()
                    ),
                ));
            }
            if let Some(i) = at(a) {
                walls.push((i, member, state(i, None, s)));
            }
        }
        w.rebuild_neighbors(&ph.periodic);
        let put_back = |w: &mut crate::world::World| {
            w.neighbors.set_history(&entries);
            // The save lists every touching wall contact: it replaces what the build found.
            let n = w.particles.len();
            w.wall_history.restore(n, walls.iter().cloned(), &w.walls);
        };
        put_back(w);
        // Forces with the saved slips; the evaluation may rescale a slip at the Coulomb cap,
        // so the saved slips are put back after it, exactly as written.
        sim.evaluate_forces();
        put_back(&mut sim.world);
        Ok(())
    }
}

/// Reads a file of `x y z` lines (spaces or commas) in metres.
pub fn read_vectors(path: &Path) -> Result<Vec<DVec3>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let w: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .collect();
        if w.is_empty() {
            continue;
        }
        let v: Option<Vec<f64>> = w
            .iter()
            .map(|s| s.parse().ok().filter(|x: &f64| x.is_finite()))
            .collect();
        match v.as_deref() {
            Some([x, y, z]) => out.push(DVec3::new(*x, *y, *z)),
            _ => {
                return Err(Error::Format {
                    path: path.to_path_buf(),
                    reason: format!("line {}: expected three numbers x y z, got '{line}'", k + 1),
                })
            }
        }
    }
    Ok(out)
}

/// Writes the positions of `sim`'s pebbles, by rising id, times `mult` (001 `dump_positions_mult`).
pub fn write_positions(path: &Path, sim: &Simulation, mult: f64) -> Result<()> {
    let p = &sim.world.particles;
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by_key(|&k| p.id[k]);
    let mut text = String::new();
    for k in order {
        text.push_str(&v3(p.pos[k] * mult));
        text.push('\n');
    }
    crate::io::durable::write_text(path, &text)
}
