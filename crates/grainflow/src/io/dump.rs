//! LAMMPS-style text dumps, which OVITO opens and maps column by column by itself.
//!
//! The ATOMS columns use the names OVITO (and LAMMPS tools) recognise: `id`, `type`, `x y z`,
//! `vx vy vz`, `omegax omegay omegaz`, `radius`, `mass`. Floats are written in `{:e}` form, the
//! shortest text that parses back to the same f64. Frames are appended to one file by the caller.

use std::io::{self, Write};

use glam::DVec3;

use crate::boundary::Periodic;
use crate::particles::Particles;

/// Writes one frame at `step` and `time` (s) with the box `bounds` (lo, hi corners, m) to `w`.
///
/// `type` is the material index + 1, since LAMMPS types start at 1. `ITEM: TIME` comes first,
/// as LAMMPS writes it with `dump_modify time yes`. A periodic axis is flagged `pp` and bounded
/// by its period, an open one `ff` and bounded by `bounds`.
pub fn write_dump_frame(
    w: &mut impl Write,
    (step, time): (u64, f64),
    bounds: (DVec3, DVec3),
    periodic: &Periodic,
    particles: &Particles,
) -> io::Result<()> {
    let p = particles;
    let (lo, hi) = bounds;
    writeln!(w, "ITEM: TIME\n{time:e}")?;
    writeln!(w, "ITEM: TIMESTEP\n{step}")?;
    writeln!(w, "ITEM: NUMBER OF ATOMS\n{}", p.len())?;
    let axes = periodic.axes();
    let flags = axes.map(|a| if a.is_some() { "pp" } else { "ff" });
    writeln!(w, "ITEM: BOX BOUNDS {}", flags.join(" "))?;
    for (axis, period) in axes.iter().enumerate() {
        let [a, b] = period.unwrap_or([lo[axis], hi[axis]]);
        writeln!(w, "{a:e} {b:e}")?;
    }
    writeln!(
        w,
        "ITEM: ATOMS id type x y z vx vy vz omegax omegay omegaz radius mass"
    )?;
    for k in 0..p.len() {
        let (x, v, o) = (p.pos[k], p.vel[k], p.omega[k]);
        writeln!(
            w,
            "{} {} {:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e}",
            p.id[k],
            u32::from(p.material[k]) + 1,
            x.x,
            x.y,
            x.z,
            v.x,
            v.y,
            v.z,
            o.x,
            o.y,
            o.z,
            p.radius[k],
            p.mass[k]
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::particles::{Mobility, ParticleSpec};

    fn particles() -> Particles {
        let mut p = Particles::default();
        for (k, (radius, material)) in [(0.005, 0), (1.0 / 3.0, 4), (2e-3, 65535)]
            .into_iter()
            .enumerate()
        {
            let spec = ParticleSpec {
                pos: DVec3::new(0.1 * k as f64, -1.0 / 7.0, 1e-9),
                vel: DVec3::new(1.5, -0.0, k as f64),
                omega: DVec3::new(0.0, 2.0, -3.25),
                radius,
                material,
                mobility: Mobility::Free,
            };
            p.push(100 + k as u64, &spec, 0.1 + 0.2 * k as f64);
        }
        p
    }

    #[test]
    fn frame_header_and_atoms_parse_back() {
        let p = particles();
        let bounds = (DVec3::new(-0.5, 0.0, -1.0 / 3.0), DVec3::new(0.5, 2.0, 1e3));
        let mut out = Vec::new();
        let periodic = Periodic {
            y: Some([-2.0, 2.5]),
            ..Periodic::default()
        };
        write_dump_frame(&mut out, (42, 0.1), bounds, &Periodic::default(), &p).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2 + 9 + 3);
        assert_eq!(
            lines[..7],
            [
                "ITEM: TIME",
                "1e-1",
                "ITEM: TIMESTEP",
                "42",
                "ITEM: NUMBER OF ATOMS",
                "3",
                "ITEM: BOX BOUNDS ff ff ff"
            ]
        );
        let lines = &lines[2..];
        // A box periodic in y is flagged there and bounded by the period.
        let mut out = Vec::new();
        write_dump_frame(&mut out, (42, 0.1), bounds, &periodic, &p).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("ITEM: BOX BOUNDS ff pp ff\n-5e-1 5e-1\n-2e0 2.5e0\n"),
            "{text}"
        );
        for axis in 0..3 {
            let b: Vec<f64> = lines[5 + axis]
                .split(' ')
                .map(|s| s.parse().unwrap())
                .collect();
            assert_eq!(b, [bounds.0[axis], bounds.1[axis]]);
        }
        assert_eq!(
            lines[8],
            "ITEM: ATOMS id type x y z vx vy vz omegax omegay omegaz radius mass"
        );
        for (k, line) in lines[9..].iter().enumerate() {
            let cols: Vec<&str> = line.split(' ').collect();
            assert_eq!(cols.len(), 13, "{line}");
            assert_eq!(cols[0].parse::<u64>().unwrap(), p.id[k]);
            assert_eq!(
                cols[1].parse::<u32>().unwrap(),
                u32::from(p.material[k]) + 1
            );
            let f: Vec<f64> = cols[2..].iter().map(|s| s.parse().unwrap()).collect();
            let want = [
                p.pos[k].to_array(),
                p.vel[k].to_array(),
                p.omega[k].to_array(),
            ]
            .concat();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&f[..9]), bits(&want), "{line}");
            assert_eq!(f[9].to_bits(), p.radius[k].to_bits());
            assert_eq!(f[10].to_bits(), p.mass[k].to_bits());
        }
        // Material 65535 does not overflow into type 0.
        assert!(lines[11].starts_with("102 65536 "));
    }

    #[test]
    fn frames_append_and_write_errors_propagate() {
        let p = particles();
        let mut out = Vec::new();
        let open = Periodic::default();
        write_dump_frame(&mut out, (0, 0.0), (DVec3::ZERO, DVec3::ONE), &open, &p).unwrap();
        let none = Particles::default();
        write_dump_frame(
            &mut out,
            (10, 1e-3),
            (DVec3::ZERO, DVec3::ONE),
            &open,
            &none,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("ITEM: TIMESTEP").count(), 2);
        assert!(text.ends_with("ITEM: TIME\n1e-3\nITEM: TIMESTEP\n10\nITEM: NUMBER OF ATOMS\n0\nITEM: BOX BOUNDS ff ff ff\n0e0 1e0\n0e0 1e0\n0e0 1e0\nITEM: ATOMS id type x y z vx vy vz omegax omegay omegaz radius mass\n"));

        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let err = write_dump_frame(&mut Full, (0, 0.0), (DVec3::ZERO, DVec3::ONE), &open, &p)
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
    }
}
