//! The contact network: every touching grain pair of the last force evaluation with its
//! contact point, normal, overlap, normal and tangential force, and rolling and twisting
//! torque, as a LAMMPS `dump local` text file (`contacts.dump`, which OVITO loads as bonds:
//! force chains) and as VTP lines between the two centres for ParaView.
//!
//! Everything is read from the per-slot reactions the soft-sphere step keeps
//! ([`Simulation::reactions`]): the force F and torque T on grain j of each pair. With n̂ the
//! unit vector from i to j, overlap δ = r_i + r_j − |x_j − x_i| and lever arms a = r − δ/2 (the
//! contact law's, `contact/law.rs`), the contact point is c = x_i + a_i n̂, the normal force
//! F·n̂ (> 0 pushes the grains apart), the tangential force F − (F·n̂) n̂, and the couple on j,
//! T − (c − x_j) × F, splits into twisting (along n̂) and rolling (across n̂). Nothing is
//! evaluated again.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use glam::DVec3;

use crate::boundary::Periodic;
use crate::sim::Simulation;
use crate::Result;

/// One touching pair, as its reaction on j gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Ids of grains i and j.
    pub ids: (u64, u64),
    /// Centre of i and the image of j's centre nearest it (m).
    pub centres: (DVec3, DVec3),
    /// Contact point (m).
    pub point: DVec3,
    /// Unit normal from i to j.
    pub normal: DVec3,
    /// Overlap (m).
    pub overlap: f64,
    /// Normal force on j along the normal (N), > 0 when repulsive.
    pub normal_force: f64,
    /// Tangential force on j (N).
    pub tangential_force: DVec3,
    /// Rolling couple on j (N m), across the normal.
    pub rolling: DVec3,
    /// Twisting couple on j along the normal (N m).
    pub twisting: f64,
}

/// The touching pairs of the last evaluation; `None` unless the step keeps reactions.
pub fn contacts(sim: &Simulation) -> Option<Vec<Contact>> {
    let reaction = sim.reactions()?;
    let (nl, p) = (&sim.world.neighbors, &sim.world.particles);
    let period = sim.physics.periodic.lengths();
    let n = p.len();
    let mut out = Vec::new();
    for i in 0..n {
        let slots = nl.start[i]..nl.start[i + 1];
        for (s, &(force, torque)) in slots.clone().zip(&reaction[slots]) {
            let j = nl.partner[s] as usize;
            if !nl.slip[s].touching() || j >= n {
                continue;
            }
            let l = Periodic::minimum_image(p.pos[j] - p.pos[i], period);
            let dist = l.length();
            if dist == 0.0 {
                continue;
            }
            let normal = l / dist;
            let overlap = p.radius[i] + p.radius[j] - dist;
            let (arm_i, arm_j) = (p.radius[i] - 0.5 * overlap, p.radius[j] - 0.5 * overlap);
            let fn_ = force.dot(normal);
            let ft = force - fn_ * normal;
            let couple = torque - (-arm_j * normal).cross(force);
            let twisting = couple.dot(normal);
            out.push(Contact {
                ids: (p.id[i], p.id[j]),
                centres: (p.pos[i], p.pos[i] + l),
                point: p.pos[i] + arm_i * normal,
                normal,
                overlap,
                normal_force: fn_,
                tangential_force: ft,
                rolling: couple - twisting * normal,
                twisting,
            });
        }
    }
    Some(out)
}

/// Columns of the `ENTRIES` item.
pub const COLUMNS: &str = "id1 id2 cx cy cz nx ny nz overlap fn ftx fty ftz mrx mry mrz mtw";

/// Appends one `dump local` frame of `contacts` at `step` and `time` (s) in the box `bounds`.
pub fn write_local_frame(
    w: &mut impl Write,
    (step, time): (u64, f64),
    (lo, hi): (DVec3, DVec3),
    contacts: &[Contact],
) -> io::Result<()> {
    writeln!(w, "ITEM: TIME\n{time:e}\nITEM: TIMESTEP\n{step}")?;
    writeln!(w, "ITEM: NUMBER OF ENTRIES\n{}", contacts.len())?;
    writeln!(w, "ITEM: BOX BOUNDS ff ff ff")?;
    for axis in 0..3 {
        writeln!(w, "{:e} {:e}", lo[axis], hi[axis])?;
    }
    writeln!(w, "ITEM: ENTRIES {COLUMNS}")?;
    for c in contacts {
        let mut line = format!("{} {}", c.ids.0, c.ids.1);
        let values = c
            .point
            .to_array()
            .into_iter()
            .chain(c.normal.to_array())
            .chain([c.overlap, c.normal_force])
            .chain(c.tangential_force.to_array())
            .chain(c.rolling.to_array())
            .chain([c.twisting]);
        for v in values {
            let _ = write!(line, " {v:e}");
        }
        writeln!(w, "{line}")?;
    }
    Ok(())
}

/// Writes `contacts` as a VTP of lines between the centres, with the cell arrays `fn`,
/// `ft` (|F_t|), `overlap` and the `normal`, at `time` (s).
pub fn write_contacts_vtp(path: &Path, contacts: &[Contact], time: f64) -> Result<()> {
    let n = contacts.len();
    let mut s = String::new();
    let _ = write!(
        s,
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n\
         <FieldData><DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">{time:e}</DataArray></FieldData>\n\
         <Piece NumberOfPoints=\"{}\" NumberOfVerts=\"0\" NumberOfLines=\"{n}\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n\
         <Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n",
        2 * n
    );
    for c in contacts {
        for x in [c.centres.0, c.centres.1] {
            let _ = writeln!(s, "{:e} {:e} {:e}", x.x, x.y, x.z);
        }
    }
    s.push_str("</DataArray></Points>\n<Lines>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
    for k in 0..n {
        let _ = write!(s, "{} {} ", 2 * k, 2 * k + 1);
    }
    s.push_str("\n</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
    for k in 0..n {
        let _ = write!(s, "{} ", 2 * (k + 1));
    }
    s.push_str("\n</DataArray>\n</Lines>\n<CellData Scalars=\"fn\">\n");
    type Column = (&'static str, fn(&Contact) -> f64);
    let scalars: [Column; 3] = [
        ("fn", |c| c.normal_force),
        ("ft", |c| c.tangential_force.length()),
        ("overlap", |c| c.overlap),
    ];
    for (name, value) in scalars {
        let _ = writeln!(
            s,
            "<DataArray type=\"Float64\" Name=\"{name}\" format=\"ascii\">"
        );
        for c in contacts {
            let _ = write!(s, "{:e} ", value(c));
        }
        s.push_str("\n</DataArray>\n");
    }
    s.push_str(
        "<DataArray type=\"Float64\" Name=\"normal\" NumberOfComponents=\"3\" format=\"ascii\">\n",
    );
    for c in contacts {
        let _ = write!(s, "{:e} {:e} {:e} ", c.normal.x, c.normal.y, c.normal.z);
    }
    s.push_str("\n</DataArray>\n</CellData>\n</Piece>\n</PolyData>\n</VTKFile>\n");
    super::durable::write_text(path, &s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    /// Two grains of radius 1 mm, E = 1e7 Pa, ν = 0.25, 10 µm into each other along x, at rest.
    const SCENE: &str = r#"
[simulation]
duration = 1e-3
dt = 1e-6
[contact]
normal = "hertz"
[[materials]]
name = "m"
density = 2500
youngs_modulus = 1e7
poisson_ratio = 0.25
restitution = 0.9
sliding_friction = 0.3
[[particles]]
type = "list"
material = "m"
spheres = [
  { pos = [0, 0, 0], radius = 1e-3 },
  { pos = [1.99e-3, 0, 0], radius = 1e-3 },
]
[output]
snapshot_interval = 1e-4
contacts = true
"#;

    #[test]
    fn a_pressed_pair_has_the_hertz_force_at_the_middle_of_its_overlap() {
        let sim = Simulation::new(Scene::from_toml(SCENE, "s").unwrap(), Path::new(".")).unwrap();
        let list = contacts(&sim).expect("kept for the contact output");
        assert_eq!(list.len(), 1);
        let c = list[0];
        // Hertz at rest: 4/3 Ē √R δ^{3/2} (002 eq A6), Ē = E / (2 (1 − ν²)), R = r/2.
        let e_bar = 1e7 / (2.0 * (1.0 - 0.25f64 * 0.25));
        let f = 4.0 / 3.0 * e_bar * 0.5e-3f64.sqrt() * 1e-5f64.powf(1.5);
        assert!(
            (c.normal_force - f).abs() <= 1e-9 * f,
            "{} vs {f}",
            c.normal_force
        );
        assert!((c.overlap - 1e-5).abs() < 1e-15);
        let (first, second) = if c.ids.0 == 0 {
            (0.0, 1.99e-3)
        } else {
            (1.99e-3, 0.0)
        };
        assert_eq!(c.centres.0.x, first);
        assert!((c.point.x - 0.995e-3).abs() < 1e-15, "{:?}", c.point);
        assert!((c.normal.x - (second - first).signum()).abs() < 1e-15);
        assert!(c.tangential_force.length() <= 1e-12 * f);
        assert!(c.rolling.length() == 0.0 && c.twisting == 0.0);
        let mut text = Vec::new();
        write_local_frame(&mut text, (7, 0.5), (DVec3::ZERO, DVec3::ONE), &list).unwrap();
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..6],
            [
                "ITEM: TIME",
                "5e-1",
                "ITEM: TIMESTEP",
                "7",
                "ITEM: NUMBER OF ENTRIES",
                "1"
            ]
        );
        assert_eq!(lines[10], format!("ITEM: ENTRIES {COLUMNS}"));
        assert_eq!(lines[11].split(' ').count(), COLUMNS.split(' ').count());
    }

    #[test]
    fn contacts_need_snapshots_of_soft_spheres() {
        let text = SCENE.replace("snapshot_interval = 1e-4\n", "");
        let e = Scene::from_toml(&text, "s").unwrap().problems();
        assert!(
            e.iter()
                .any(|e| e.to_string().starts_with("output.contacts: ")),
            "{e:?}"
        );
    }
}
