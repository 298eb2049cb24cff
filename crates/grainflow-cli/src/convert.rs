//! `grainflow convert IN OUT`: particles between pkdgrav `ss`, LAMMPS dump and data files, CSV
//! and VTU, chosen by extension; and the reading of frames that `render` shares.
//!
//! Every format is read into dump frames (named columns: `id type x y z vx vy vz omegax omegay
//! omegaz radius mass`, SI), and written from them. Columns a format lacks are zero (velocities,
//! spins) or absent (mass, which a data file, an `ss` file and a VTU need).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use glam::DVec3;
use grainflow::io::dump_read::{parse_dump, read_dump_text, DumpFrame};
use grainflow::io::ss::{encode_ss, read_ss, SsFile, SsFormat, SsUnits};
use grainflow::particles::{Mobility, ParticleSpec, Particles};

/// The columns every converted frame has (mass where known).
const COLUMNS: [&str; 13] = [
    "id", "type", "x", "y", "z", "vx", "vy", "vz", "omegax", "omegay", "omegaz", "radius", "mass",
];

/// File kinds, by extension (a `.gz` ending looks through to the one before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ss,
    Dump,
    Data,
    Csv,
    Vtu,
}

fn kind(path: &Path) -> Result<Kind> {
    let name = path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    Ok(match ext {
        "ss" | "r" => Kind::Ss,
        "dump" | "lammpstrj" => Kind::Dump,
        "data" => Kind::Data,
        "csv" => Kind::Csv,
        "vtu" => Kind::Vtu,
        _ => bail!(
            "{}: unknown extension \"{ext}\" (ss, dump, lammpstrj, data, csv, vtu; .gz for dump and data)",
            path.display()
        ),
    })
}

/// One frame with the standard columns, from per-particle values.
fn frame(timestep: u64, time: Option<f64>, rows: Vec<Vec<f64>>) -> DumpFrame {
    let mut f = DumpFrame {
        timestep,
        time,
        flags: ["ff".into(), "ff".into(), "ff".into()],
        bounds: [[0.0; 2]; 3],
        columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
        rows,
    };
    f.bounds = bounding_box(&f);
    f
}

/// The particles' bounding box padded by the largest radius, per axis.
fn bounding_box(f: &DumpFrame) -> [[f64; 2]; 3] {
    let Ok(atoms) = f.atoms() else {
        return [[0.0; 2]; 3];
    };
    let mut b = [[f64::INFINITY, f64::NEG_INFINITY]; 3];
    for a in &atoms {
        for (axis, x) in a.pos.to_array().into_iter().enumerate() {
            b[axis] = [b[axis][0].min(x - a.radius), b[axis][1].max(x + a.radius)];
        }
    }
    if atoms.is_empty() {
        [[0.0; 2]; 3]
    } else {
        b
    }
}

/// The row of the standard columns.
fn row(id: u64, kind: i64, [p, v, w]: [DVec3; 3], radius: f64, mass: f64) -> Vec<f64> {
    let mut r = vec![id as f64, kind as f64];
    for x in [p, v, w] {
        r.extend(x.to_array());
    }
    r.extend([radius, mass]);
    r
}

/// Every frame of the file at `path` (a dump has several, the others one); `ss` numbers are in
/// `ss_units`.
pub fn read_frames(path: &Path, ss_units: SsUnits) -> Result<Vec<DumpFrame>> {
    let shown = path.display();
    Ok(match kind(path)? {
        Kind::Dump => {
            let text = read_dump_text(path)?;
            parse_dump(&text).map_err(|e| anyhow!("{shown}: {e}"))?
        }
        Kind::Ss => {
            let file = read_ss(path)?;
            let t = ss_units.time_unit();
            let rows = file.records.iter().enumerate().map(|(k, r)| {
                let r = r.to_scene(ss_units);
                // The original index is the id where it can be one.
                row(
                    u64::try_from(r.index).unwrap_or(k as u64 + 1),
                    i64::from(r.colour),
                    [r.pos, r.vel, r.spin],
                    r.radius,
                    r.mass,
                )
            });
            vec![frame(0, Some(file.time * t), rows.collect())]
        }
        Kind::Data => {
            let atoms = grainflow::io::lammps_data::read_lammps_data(path)?;
            let rows = atoms.iter().map(|a| {
                let mass = grainflow::particles::sphere_mass(a.radius, a.density);
                row(
                    a.id,
                    i64::from(a.kind),
                    [a.pos, a.vel, a.omega],
                    a.radius,
                    mass,
                )
            });
            vec![frame(0, None, rows.collect())]
        }
        Kind::Csv => {
            let spheres = grainflow::fill::file::read_particle_file(path)?;
            let rows = spheres.iter().enumerate().map(|(k, s)| {
                row(
                    k as u64 + 1,
                    1,
                    [s.pos, s.vel, DVec3::ZERO],
                    s.radius,
                    f64::NAN,
                )
            });
            vec![frame(0, None, rows.collect())]
        }
        Kind::Vtu => bail!("{shown}: VTU is written, not read; convert from the run's dump"),
    })
}

/// The frame's particles (mass NaN where the frame has none; type t is material t − 1).
fn particles(f: &DumpFrame) -> Result<Particles> {
    let atoms = f.atoms().map_err(|e| anyhow!(e))?;
    let mut p = Particles::default();
    for a in &atoms {
        let material = usize::try_from(a.kind - 1)
            .ok()
            .filter(|&m| m <= usize::from(u16::MAX))
            .ok_or_else(|| anyhow!("atom {}: type {} is not in 1..=65536", a.id, a.kind))?;
        let spec = ParticleSpec {
            pos: a.pos,
            vel: a.vel,
            omega: a.omega,
            radius: a.radius,
            material,
            mobility: Mobility::Free,
        };
        p.push(a.id, &spec, a.mass.unwrap_or(f64::NAN));
    }
    Ok(p)
}

/// Refuses particles without a finite mass (`what` names the format that needs it).
fn need_mass(p: &Particles, what: &str) -> Result<()> {
    if let Some(k) = (0..p.len()).find(|&k| !p.mass[k].is_finite()) {
        bail!(
            "{what} needs masses, and particle {} has none (the input has no mass column)",
            p.id[k]
        );
    }
    Ok(())
}

/// A LAMMPS data file (atom_style sphere) of the particles, the box `bounds`.
fn data_text(p: &Particles, bounds: &[[f64; 2]; 3]) -> String {
    let types = p
        .material
        .iter()
        .copied()
        .max()
        .map_or(1, |m| u32::from(m) + 1);
    let mut s = format!(
        "LAMMPS data file written by grainflow convert\n\n{} atoms\n{types} atom types\n\n",
        p.len()
    );
    for (axis, name) in ["x", "y", "z"].iter().enumerate() {
        let _ = writeln!(
            s,
            "{:e} {:e} {name}lo {name}hi",
            bounds[axis][0], bounds[axis][1]
        );
    }
    s.push_str("\nAtoms # sphere\n\n");
    for k in 0..p.len() {
        let r = p.radius[k];
        let density = p.mass[k] / (4.0 / 3.0 * std::f64::consts::PI * r * r * r);
        let x = p.pos[k];
        let _ = writeln!(
            s,
            "{} {} {:e} {:e} {:e} {:e} {:e}",
            p.id[k],
            p.material[k] + 1,
            2.0 * r,
            density,
            x.x,
            x.y,
            x.z
        );
    }
    s.push_str("\nVelocities\n\n");
    for k in 0..p.len() {
        let (v, w) = (p.vel[k], p.omega[k]);
        let _ = writeln!(
            s,
            "{} {:e} {:e} {:e} {:e} {:e} {:e}",
            p.id[k], v.x, v.y, v.z, w.x, w.y, w.z
        );
    }
    s
}

/// Writes `frames` to `path` in the format of its extension: a dump keeps every frame, the
/// other formats take the last.
pub fn write_frames(path: &Path, frames: &[DumpFrame], ss_units: SsUnits) -> Result<()> {
    let last = frames
        .last()
        .ok_or_else(|| anyhow!("the input has no frame"))?;
    let p = particles(last)?;
    let time = last.time.unwrap_or(0.0);
    let write = |bytes: &[u8]| {
        std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
    };
    match kind(path)? {
        Kind::Dump => {
            let mut out = Vec::new();
            for f in frames {
                let (lo, hi) = (
                    DVec3::from_array(f.bounds.map(|b| b[0])),
                    DVec3::from_array(f.bounds.map(|b| b[1])),
                );
                let periodic = grainflow::boundary::Periodic::default();
                let clock = (f.timestep, f.time.unwrap_or(0.0));
                grainflow::io::dump::write_dump_frame(
                    &mut out,
                    clock,
                    (lo, hi),
                    &periodic,
                    &particles(f)?,
                )?;
            }
            if path.extension().is_some_and(|e| e == "gz") {
                bail!(
                    "{}: write the dump plain and compress it with gzip",
                    path.display()
                );
            }
            write(&out)
        }
        Kind::Ss => {
            need_mass(&p, "an ss file")?;
            let file: SsFile =
                grainflow::io::ss::ss_from_particles(&p, time, ss_units).map_err(|e| anyhow!(e))?;
            write(&encode_ss(&file, SsFormat::Standard))
        }
        Kind::Data => {
            need_mass(&p, "a LAMMPS data file")?;
            write(data_text(&p, &last.bounds).as_bytes())
        }
        Kind::Csv => {
            let mut s = String::from("x,y,z,radius,vx,vy,vz\n");
            for k in 0..p.len() {
                let (x, v) = (p.pos[k], p.vel[k]);
                let _ = writeln!(
                    s,
                    "{:e},{:e},{:e},{:e},{:e},{:e},{:e}",
                    x.x, x.y, x.z, p.radius[k], v.x, v.y, v.z
                );
            }
            write(s.as_bytes())
        }
        Kind::Vtu => {
            need_mass(&p, "a VTU")?;
            Ok(grainflow::io::vtk::write_particles_vtu(path, &p, time)?)
        }
    }
}

/// `grainflow convert IN OUT`.
pub fn convert(input: &Path, output: &Path, ss_units: SsUnits) -> Result<String> {
    let frames = read_frames(input, ss_units)?;
    write_frames(output, &frames, ss_units)?;
    let n = frames.last().map_or(0, |f| f.rows.len());
    Ok(format!(
        "{} → {}: {n} particles, {} frame(s) read",
        input.display(),
        output.display(),
        frames.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grainflow::io::ss::SsRecord;

    #[test]
    fn ss_to_dump_to_data_to_ss_keeps_the_particles() {
        let dir = std::env::temp_dir().join("grainflow-convert-test");
        std::fs::create_dir_all(&dir).unwrap();
        let rec = |k: i32| SsRecord {
            mass: grainflow::particles::sphere_mass(0.01, 2500.0),
            radius: 0.01,
            pos: DVec3::new(0.1 * f64::from(k), 1.0 / 3.0, -2e-3),
            vel: DVec3::new(1.5, 0.0, -0.25),
            spin: DVec3::new(0.0, 7.0, 0.0),
            colour: 2,
            index: k,
        };
        let file = SsFile {
            time: 0.5,
            records: (0..3).map(rec).collect(),
        };
        let units = SsUnits::Scene;
        std::fs::write(dir.join("a.ss"), encode_ss(&file, SsFormat::Standard)).unwrap();
        convert(&dir.join("a.ss"), &dir.join("b.dump"), units).unwrap();
        convert(&dir.join("b.dump"), &dir.join("c.data"), units).unwrap();
        convert(&dir.join("c.data"), &dir.join("d.ss"), units).unwrap();
        convert(&dir.join("d.ss"), &dir.join("e.vtu"), units).unwrap();
        let back = read_ss(&dir.join("d.ss")).unwrap();
        for (a, b) in back.records.iter().zip(&file.records) {
            // Text keeps every bit; the data file's density ρ = m / (4/3 π r³) and back is
            // within an ulp or two of the mass.
            assert_eq!(
                (a.pos, a.vel, a.spin, a.radius, a.colour),
                (b.pos, b.vel, b.spin, b.radius, b.colour)
            );
            assert_eq!(a.index, b.index);
            assert!((a.mass - b.mass).abs() <= 4.0 * f64::EPSILON * b.mass);
        }
        let e = convert(&dir.join("a.ss"), &dir.join("x.txt"), units).unwrap_err();
        assert!(e.to_string().contains("unknown extension \"txt\""), "{e}");
        convert(&dir.join("c.data"), &dir.join("f.csv"), units).unwrap();
        let e = convert(&dir.join("f.csv"), &dir.join("g.ss"), units).unwrap_err();
        assert!(e.to_string().starts_with("an ss file needs masses"), "{e}");
    }
}
