//! Reading LAMMPS text dumps (`dump atom`/`custom` of LAMMPS and LIGGGHTS, and our own
//! `particles.dump`), plain or gzip-compressed, mapping the ATOMS columns by name.
//!
//! Items read per frame: `TIME` (optional, LAMMPS writes it before `TIMESTEP` with
//! `dump_modify time yes`), `TIMESTEP`, `NUMBER OF ATOMS`, `BOX BOUNDS` (with its boundary flags;
//! the tilt factors of a triclinic box are refused) and `ATOMS` with its column names. Other
//! items (`UNITS`, …) are skipped. Only the frame asked for is parsed number by number.

use std::path::Path;

use glam::DVec3;

use crate::{Error, Result};

/// One frame of a dump, its atoms as the rows of named columns.
#[derive(Clone, Debug, PartialEq)]
pub struct DumpFrame {
    /// The `TIMESTEP` item.
    pub timestep: u64,
    /// The `TIME` item (s), where the dump has it.
    pub time: Option<f64>,
    /// Boundary flags of the three axes (`pp`, `ff`, `fm`, …).
    pub flags: [String; 3],
    /// Box corners (lo, hi) per axis.
    pub bounds: [[f64; 2]; 3],
    /// Names of the ATOMS columns.
    pub columns: Vec<String>,
    /// One row of values per atom, in file order.
    pub rows: Vec<Vec<f64>>,
}

/// One atom as the usual columns give it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DumpAtom {
    /// `id` (the row number from 1 without that column).
    pub id: u64,
    /// `type` (1 without that column).
    pub kind: i64,
    /// `radius`, or half of `diameter`.
    pub radius: f64,
    /// `mass`, where given.
    pub mass: Option<f64>,
    /// `x y z`, `xu yu zu`, or the scaled `xs ys zs` mapped into the box.
    pub pos: DVec3,
    /// `vx vy vz`, zero without them.
    pub vel: DVec3,
    /// `omegax omegay omegaz`, zero without them.
    pub omega: DVec3,
}

/// A frame found in the text, its ATOMS lines not yet parsed.
struct RawFrame<'a> {
    head: DumpFrame,
    /// The `NUMBER OF ATOMS` item.
    count: usize,
    lines: Vec<(usize, &'a str)>,
}

/// Reads the whole text of a dump; `.gz` files are decompressed.
pub fn read_dump_text(path: &Path) -> Result<String> {
    let text = super::input::read_text(path)?;
    Ok(text)
}

/// The frame at `timestep` of the dump at `path`, or its last frame.
pub fn read_dump(path: &Path, timestep: Option<u64>) -> Result<DumpFrame> {
    let format = |reason| Error::Format {
        path: path.to_path_buf(),
        reason,
    };
    let text = read_dump_text(path)?;
    let frames = scan(&text).map_err(format)?;
    let raw = match timestep {
        None => frames.into_iter().last(),
        Some(t) => frames.into_iter().find(|f| f.head.timestep == t),
    };
    let raw = raw.ok_or_else(|| {
        format(match timestep {
            None => "has no frame (no \"ITEM: TIMESTEP\")".into(),
            Some(t) => format!("has no frame at timestep {t}"),
        })
    })?;
    raw.parse().map_err(format)
}

/// Every frame of a dump text, parsed.
pub fn parse_dump(text: &str) -> Result<Vec<DumpFrame>, String> {
    scan(text)?.into_iter().map(RawFrame::parse).collect()
}

/// `n` numbers of line `lineno` (from 1), named `what` in a refusal.
fn numbers(line: &str, lineno: usize, what: &str) -> Result<Vec<f64>, String> {
    line.split_whitespace()
        .map(|t| {
            t.parse::<f64>()
                .map_err(|_| format!("line {lineno}: {what}: \"{t}\" is not a number"))
        })
        .collect()
}

/// Splits the text into frames, reading each header.
fn scan(text: &str) -> Result<Vec<RawFrame<'_>>, String> {
    let mut lines = text.lines().enumerate().map(|(k, l)| (k + 1, l.trim()));
    let mut frames: Vec<RawFrame> = Vec::new();
    let mut time = None;
    let mut next = |what: &str, after: usize| {
        lines
            .next()
            .ok_or_else(|| format!("line {after}: the file ends before the {what}"))
    };
    let mut at = 0;
    while let Ok((k, line)) = next("next item", at) {
        at = k;
        let Some(item) = line.strip_prefix("ITEM:").map(str::trim) else {
            if line.is_empty() {
                continue;
            }
            return Err(format!("line {k}: expected an ITEM line, got \"{line}\""));
        };
        if item == "TIME" {
            let (k, l) = next("time", k)?;
            time = Some(numbers(l, k, "TIME")?.first().copied().unwrap_or(f64::NAN));
        } else if item == "TIMESTEP" {
            let (k, l) = next("timestep", k)?;
            let step = l
                .parse::<u64>()
                .map_err(|_| format!("line {k}: TIMESTEP \"{l}\" is not a whole number"))?;
            frames.push(RawFrame {
                head: DumpFrame {
                    timestep: step,
                    time: time.take(),
                    flags: ["pp".into(), "pp".into(), "pp".into()],
                    bounds: [[0.0; 2]; 3],
                    columns: Vec::new(),
                    rows: Vec::new(),
                },
                count: 0,
                lines: Vec::new(),
            });
        } else {
            let Some(frame) = frames.last_mut() else {
                return Err(format!("line {k}: ITEM: {item} before any ITEM: TIMESTEP"));
            };
            if item == "NUMBER OF ATOMS" {
                let (k, l) = next("atom count", k)?;
                let n = l
                    .parse::<usize>()
                    .map_err(|_| format!("line {k}: NUMBER OF ATOMS \"{l}\" is not a count"))?;
                frame.count = n;
            } else if let Some(flags) = item.strip_prefix("BOX BOUNDS") {
                let flags: Vec<&str> = flags.split_whitespace().collect();
                if flags.iter().any(|f| ["xy", "xz", "yz"].contains(f)) {
                    return Err(format!("line {k}: a triclinic box is not read"));
                }
                for (axis, f) in flags.iter().take(3).enumerate() {
                    frame.head.flags[axis] = (*f).to_string();
                }
                for axis in 0..3 {
                    let (k, l) = next("box bounds", k)?;
                    let b = numbers(l, k, "BOX BOUNDS")?;
                    if b.len() < 2 {
                        return Err(format!("line {k}: BOX BOUNDS needs lo and hi"));
                    }
                    frame.head.bounds[axis] = [b[0], b[1]];
                }
            } else if let Some(columns) = item.strip_prefix("ATOMS") {
                frame.head.columns = columns.split_whitespace().map(String::from).collect();
                for _ in 0..frame.count {
                    frame.lines.push(next("atoms the header counts", k)?);
                }
                at = frame.lines.last().map_or(k, |l| l.0);
            }
        }
    }
    Ok(frames)
}

impl RawFrame<'_> {
    /// The frame with its ATOMS rows parsed; every row must have a value per column.
    fn parse(self) -> Result<DumpFrame, String> {
        let mut frame = self.head;
        frame.rows.reserve(self.lines.len());
        let width = frame.columns.len();
        for (k, line) in self.lines {
            let row = numbers(line, k, "ATOMS")?;
            if row.len() != width {
                return Err(format!(
                    "line {k}: {} values for the {width} ATOMS columns {}",
                    row.len(),
                    frame.columns.join(" ")
                ));
            }
            frame.rows.push(row);
        }
        Ok(frame)
    }
}

impl DumpFrame {
    /// Index of the column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// The first of the column triples `names` the frame has all three of.
    fn triple(&self, names: &[[&str; 3]]) -> Option<[usize; 3]> {
        names
            .iter()
            .find_map(|t| Some([self.column(t[0])?, self.column(t[1])?, self.column(t[2])?]))
    }

    /// The atoms, their columns mapped by name; refuses a frame without positions or radii.
    pub fn atoms(&self) -> Result<Vec<DumpAtom>, String> {
        let cols = self.columns.join(" ");
        let (pos, scaled) = match self.triple(&[["x", "y", "z"], ["xu", "yu", "zu"]]) {
            Some(p) => (p, false),
            None => (
                self.triple(&[["xs", "ys", "zs"]]).ok_or_else(|| {
                    format!("timestep {}: no position columns (x y z, xu yu zu or xs ys zs) in \"{cols}\"", self.timestep)
                })?,
                true,
            ),
        };
        let (radius, scale) = match (self.column("radius"), self.column("diameter")) {
            (Some(r), _) => (r, 1.0),
            (None, Some(d)) => (d, 0.5),
            _ => {
                return Err(format!(
                    "timestep {}: no radius or diameter column in \"{cols}\"",
                    self.timestep
                ))
            }
        };
        let vel = self.triple(&[["vx", "vy", "vz"]]);
        let omega = self.triple(&[["omegax", "omegay", "omegaz"]]);
        let (id, kind, mass) = (self.column("id"), self.column("type"), self.column("mass"));
        let lo = DVec3::from_array(self.bounds.map(|b| b[0]));
        let size = DVec3::from_array(self.bounds.map(|b| b[1] - b[0]));
        let v3 = |row: &[f64], c: Option<[usize; 3]>| {
            c.map_or(DVec3::ZERO, |c| DVec3::from_array(c.map(|k| row[k])))
        };
        Ok(self
            .rows
            .iter()
            .enumerate()
            .map(|(k, row)| {
                let p = v3(row, Some(pos));
                DumpAtom {
                    id: id.map_or(k as u64 + 1, |c| row[c] as u64),
                    kind: kind.map_or(1, |c| row[c] as i64),
                    radius: scale * row[radius],
                    mass: mass.map(|c| row[c]),
                    pos: if scaled { lo + p * size } else { p },
                    vel: v3(row, vel),
                    omega: v3(row, omega),
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp ff\n\
        0 1\n0 2\n-1 1\nITEM: ATOMS id type x y z diameter\n5 2 0.1 0.2 0.3 0.01\n4 1 0.4 0.5 0.6 0.02\n\
        ITEM: TIME\n0.5\nITEM: TIMESTEP\n100\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS ff ff ff\n\
        0 1\n0 1\n0 1\nITEM: ATOMS type xs ys zs radius vx vy vz\n3 0.5 0.25 1 0.1 1 2 3\n";

    #[test]
    fn frames_headers_and_columns_by_name() {
        let frames = parse_dump(DUMP).unwrap();
        assert_eq!(frames.len(), 2);
        assert_eq!((frames[0].timestep, frames[0].time), (0, None));
        assert_eq!(frames[0].flags, ["pp", "pp", "ff"]);
        assert_eq!(frames[0].bounds[2], [-1.0, 1.0]);
        let a = frames[0].atoms().unwrap();
        assert_eq!((a[0].id, a[0].kind, a[0].radius), (5, 2, 0.005));
        assert_eq!(a[1].pos, DVec3::new(0.4, 0.5, 0.6));
        assert_eq!((frames[1].timestep, frames[1].time), (100, Some(0.5)));
        let b = frames[1].atoms().unwrap();
        // Scaled positions map into the box; no id column numbers the rows from 1.
        assert_eq!(b[0].pos, DVec3::new(0.5, 0.25, 1.0));
        assert_eq!((b[0].id, b[0].kind, b[0].mass), (1, 3, None));
        assert_eq!(b[0].vel, DVec3::new(1.0, 2.0, 3.0));
    }

    #[test]
    fn bad_dumps_are_refused_with_the_line() {
        let short = DUMP.replace("4 1 0.4 0.5 0.6 0.02\n", "4 1 0.4 0.5 0.6\n");
        assert_eq!(
            parse_dump(&short).unwrap_err(),
            "line 11: 5 values for the 6 ATOMS columns id type x y z diameter"
        );
        let cut = &DUMP[..DUMP.find("4 1 0.4").unwrap()];
        assert!(parse_dump(cut)
            .unwrap_err()
            .contains("the file ends before the atoms the header counts"));
        let nox = DUMP.replace("id type x y z diameter", "id type a b c diameter");
        assert!(parse_dump(&nox).unwrap()[0]
            .atoms()
            .unwrap_err()
            .contains("no position columns"));
    }
}
