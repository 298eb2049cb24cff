//! Reading LAMMPS data files (atom_style sphere), plain or gzip-compressed: how users bring
//! beds from LAMMPS and LIGGGHTS, and how grainflow starts from the peers' settled bed S1.
//!
//! Sections read: the header counts, `Atoms # sphere` (id type diameter density x y z
//! [ix iy iz]) and `Velocities` (id vx vy vz wx wy wz). Other sections are skipped.
//! Atoms come back sorted by id, so the particle order does not depend on the file's order.

use std::collections::HashMap;
use std::path::Path;

use glam::DVec3;

use crate::{Error, Result};

/// One atom of a data file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataAtom {
    /// LAMMPS atom id.
    pub id: u64,
    /// Atom type (from 1).
    pub kind: u32,
    /// Radius (m): half the file's diameter.
    pub radius: f64,
    /// Density (kg/m³).
    pub density: f64,
    /// Position (m).
    pub pos: DVec3,
    /// Velocity (m/s), zero when the file has no Velocities section.
    pub vel: DVec3,
    /// Angular velocity (rad/s).
    pub omega: DVec3,
}

/// Reads the atoms of a LAMMPS data file; `.gz` files are decompressed.
pub fn read_lammps_data(path: &Path) -> Result<Vec<DataAtom>> {
    let mut parser = Parser::default();
    super::input::for_each_line(path, |number, line| parser.line(number, line))?;
    parser.finish().map_err(|reason| Error::Format {
        path: path.to_path_buf(),
        reason,
    })
}

/// Section the parser is in.
#[derive(Default, PartialEq)]
enum Section {
    #[default]
    Header,
    Atoms,
    Velocities,
    Other,
}

fn numbers(line: &str, n: usize, lineno: usize, what: &str) -> Result<Vec<f64>, String> {
    let v: Vec<f64> = line
        .split_whitespace()
        .take(n)
        .map(|t| {
            t.parse::<f64>()
                .map_err(|_| format!("line {lineno}: {what}: \"{t}\" is not a number"))
        })
        .collect::<Result<_, _>>()?;
    if v.len() < n {
        return Err(format!(
            "line {lineno}: {what}: expected {n} columns, got {}",
            v.len()
        ));
    }
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(format!("line {lineno}: {what}: {x} is not finite"));
    }
    Ok(v)
}

/// Parses the text of a LAMMPS data file (what [`read_lammps_data`] reads).
pub fn parse_lammps_data(text: &str) -> Result<Vec<DataAtom>, String> {
    let mut parser = Parser::default();
    for (k, line) in text.lines().enumerate() {
        parser.line(k + 1, line)?;
    }
    parser.finish()
}

/// The parse of a data file so far, line by line.
#[derive(Default)]
struct Parser {
    /// The header's atom count, once read.
    count: Option<usize>,
    section: Section,
    atoms: Vec<DataAtom>,
    velocities: HashMap<u64, (DVec3, DVec3)>,
}

impl Parser {
    /// Takes line `lineno` (from 1; the first, the file's title, is skipped).
    fn line(&mut self, lineno: usize, raw: &str) -> Result<(), String> {
        let line = raw.split('#').next().unwrap_or("").trim();
        if lineno == 1 || line.is_empty() {
            return Ok(());
        }
        let first = line.split_whitespace().next().unwrap_or("");
        if first
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        {
            self.section = match first {
                "Atoms" => {
                    let style = raw.split('#').nth(1).map(str::trim).unwrap_or("sphere");
                    if style != "sphere" {
                        return Err(format!(
                            "line {lineno}: Atoms # {style}: only atom_style sphere is read"
                        ));
                    }
                    Section::Atoms
                }
                "Velocities" => Section::Velocities,
                _ => Section::Other,
            };
            return Ok(());
        }
        match self.section {
            Section::Header if line.ends_with("atoms") => {
                self.count = Some(numbers(line, 1, lineno, "atom count")?[0] as usize);
            }
            Section::Atoms => {
                let v = numbers(line, 7, lineno, "Atoms (id type diameter density x y z)")?;
                if v[2] <= 0.0 || v[3] <= 0.0 {
                    return Err(format!(
                        "line {lineno}: diameter and density must be > 0, got {} and {}",
                        v[2], v[3]
                    ));
                }
                self.atoms.push(DataAtom {
                    id: v[0] as u64,
                    kind: v[1] as u32,
                    radius: 0.5 * v[2],
                    density: v[3],
                    pos: DVec3::new(v[4], v[5], v[6]),
                    vel: DVec3::ZERO,
                    omega: DVec3::ZERO,
                });
            }
            Section::Velocities => {
                let v = numbers(line, 7, lineno, "Velocities (id vx vy vz wx wy wz)")?;
                let pair = (DVec3::new(v[1], v[2], v[3]), DVec3::new(v[4], v[5], v[6]));
                self.velocities.insert(v[0] as u64, pair);
            }
            Section::Header | Section::Other => {}
        }
        Ok(())
    }

    /// The atoms, sorted by id, with their velocities; checked against the header's count.
    fn finish(mut self) -> Result<Vec<DataAtom>, String> {
        if let Some(n) = self.count {
            if n != self.atoms.len() {
                return Err(format!(
                    "the header says {n} atoms, the Atoms section has {}",
                    self.atoms.len()
                ));
            }
        }
        self.atoms.sort_by_key(|a| a.id);
        for a in self.atoms.iter_mut() {
            if let Some(&(v, w)) = self.velocities.get(&a.id) {
                a.vel = v;
                a.omega = w;
            }
        }
        Ok(self.atoms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str =
        "LAMMPS data file\n\n2 atoms\n1 atom types\n\n0 1 xlo xhi\n\nAtoms # sphere\n\n\
        7 1 0.002 2500 0.1 0.2 0.3 0 0 0\n3 1 0.001 2500 0.4 0.5 0.6 0 0 0\n\nVelocities\n\n\
        3 1 2 3 4 5 6\n7 -1 0 0 0 0 0\n";

    #[test]
    fn reads_atoms_sorted_by_id_with_velocities() {
        let atoms = parse_lammps_data(DATA).expect("parses");
        assert_eq!(atoms.len(), 2);
        assert_eq!((atoms[0].id, atoms[0].radius), (3, 0.0005));
        assert_eq!(atoms[0].vel, DVec3::new(1.0, 2.0, 3.0));
        assert_eq!(atoms[0].omega, DVec3::new(4.0, 5.0, 6.0));
        assert_eq!(atoms[1].pos, DVec3::new(0.1, 0.2, 0.3));
        assert_eq!(atoms[1].vel.x, -1.0);
    }

    #[test]
    fn malformed_lines_are_named() {
        let bad = DATA.replace("0.4 0.5 0.6", "0.4 x 0.6");
        assert_eq!(
            parse_lammps_data(&bad).expect_err("refused"),
            "line 11: Atoms (id type diameter density x y z): \"x\" is not a number"
        );
        let short = DATA.replace("2 atoms", "3 atoms");
        assert!(parse_lammps_data(&short)
            .expect_err("refused")
            .contains("header says 3 atoms"));
    }

    #[test]
    fn reads_the_shipped_settled_bed() {
        // The peers' S1 start state: 20 000 spheres of d = 1 mm, ρ = 2500, resting on z = 0.
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/bench/s1_settled.data.gz");
        let atoms = read_lammps_data(&path).expect("reads");
        assert_eq!(atoms.len(), 20000);
        assert!(atoms
            .iter()
            .all(|a| a.radius == 0.0005 && a.density == 2500.0));
        let lowest = atoms.iter().map(|a| a.pos.z).fold(f64::INFINITY, f64::min);
        assert!(lowest > 0.49e-3 && lowest < 0.5e-3, "{lowest}");
    }
}
