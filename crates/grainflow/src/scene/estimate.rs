//! What a scene will cost, known before anything is built: the grains each source makes (from
//! its fields, or from a file's header or lines, never by making them), the memory they take
//! ([`BYTES_PER_GRAIN`]), and the memory there is ([`memory_limit`]). A run refuses a scene
//! past the limit in a fraction of a second instead of failing an allocation minutes in.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use glam::DVec3;

use super::particles::ParticleSource;
use super::Scene;
use crate::contact::{Extra, Formed, Slip};
use crate::io::input::MAX_INPUT_BYTES;
use crate::particles::Mobility;

/// Listed pairs per grain in the Verlet half list: half the 12 touching neighbours of a
/// close-packed grain (the densest packing; a looser pack lists fewer, the skin adds some).
pub const SLOTS_PER_GRAIN: usize = 6;

/// Bytes of one grain in the particle store (`particles.rs`): id, position, velocity, spin,
/// force, torque, radius, mass, 1/m, I, 1/I, material, mobility, passes.
const STORE: usize = 8
    + 5 * size_of::<DVec3>()
    + 5 * size_of::<f64>()
    + size_of::<u16>()
    + size_of::<Mobility>()
    + size_of::<u32>();

/// Bytes per grain beside the store: the neighbour list's row start, build position and
/// reverse-row start, the soft stepper's packed centre and shift (four f64 each), and the
/// grain's list of wall contacts.
const PER_GRAIN: usize = size_of::<usize>()
    + size_of::<DVec3>()
    + size_of::<usize>()
    + 2 * size_of::<[f64; 4]>()
    + size_of::<Vec<u8>>();

/// Bytes per listed pair (`neighbor/mod.rs`, `neighbor/links.rs`): partner, partner grain,
/// owner, the contact history in its three parts (slip, constants, boxed extras), the reverse
/// row and crossing place, and the pair as the cell search returns it, (u32, u32), which the
/// rows are made from.
const PER_SLOT: usize = 3 * size_of::<u32>()
    + size_of::<Slip>()
    + size_of::<Formed>()
    + size_of::<Option<Box<Extra>>>()
    + 2 * size_of::<u32>()
    + 2 * size_of::<u32>();

/// Vectors filled by pushing grow by doubling, so each holds between one and two times its
/// length: 1.5 on average over sizes.
const GROWTH: f64 = 1.5;

/// Bytes the running program takes whatever the scene (code, thread stacks, buffers).
pub const BASE_BYTES: f64 = 16e6;

/// Estimated peak bytes per grain of a soft-sphere run: (175 bytes of store + 128 per grain
/// beside it + [`SLOTS_PER_GRAIN`] × 100 per listed pair) × [`GROWTH`] = 1 354 bytes on
/// x86-64. Measured (`/usr/bin/time -f %M`, HCP packs of touching grains): 1 507 bytes per
/// grain between 86 256 and 705 618 grains, so the figure is 10 % low for a dense pack, and
/// twice too high for a loose one (a lattice with gaps took 620 bytes per grain).
pub const BYTES_PER_GRAIN: f64 = ((STORE + PER_GRAIN + SLOTS_PER_GRAIN * PER_SLOT) as f64) * GROWTH;

/// The grains one part of a scene makes: a particle source, or the grains an insert adds.
#[derive(Clone, Debug, PartialEq)]
pub struct Grains {
    /// The field that sets the number (`particles[0].count`, `inserts[1].rate`).
    pub field: String,
    /// How many (an estimate for lattices, layers, annuli and inserts).
    pub count: f64,
}

/// A scene's cost, estimated before anything is made.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The grains of each source and insert, in the scene's order.
    pub parts: Vec<Grains>,
    /// Bytes of the largest input file, read whole while its particles are made.
    pub input_bytes: f64,
}

impl Estimate {
    /// Grains in all.
    pub fn grains(&self) -> f64 {
        self.parts.iter().map(|g| g.count).sum()
    }

    /// Peak bytes of the run: [`BASE_BYTES`], every grain at [`BYTES_PER_GRAIN`], and the
    /// largest input file.
    pub fn bytes(&self) -> f64 {
        BASE_BYTES + self.grains() * BYTES_PER_GRAIN + self.input_bytes
    }

    /// The part that makes the most grains, to name in a refusal.
    pub fn largest(&self) -> Option<&Grains> {
        self.parts.iter().max_by(|a, b| a.count.total_cmp(&b.count))
    }
}

impl Scene {
    /// The grains of every source and insert; files are found from `base`. A file that
    /// cannot be read counts none here (making its particles will say why).
    pub fn estimate(&self, base: &Path) -> Estimate {
        let mut input_bytes = 0.0_f64;
        let mut parts: Vec<Grains> = self
            .particles
            .iter()
            .enumerate()
            .map(|(k, src)| {
                let (field, count, bytes) = source_grains(src, base);
                input_bytes = input_bytes.max(bytes);
                Grains {
                    field: format!("particles[{k}].{field}"),
                    count,
                }
            })
            .collect();
        let end = self.simulation.start_time + self.simulation.duration;
        for (k, ins) in self.inserts.iter().enumerate() {
            let density = ins
                .materials
                .iter()
                .find_map(|m| self.materials.get(self.material_index(&m.name)?)?.density)
                .unwrap_or(f64::NAN);
            let time = (ins.end.unwrap_or(end).min(end) - ins.start).max(0.0);
            let count = ins.grains_per_second(density) * time;
            let field = if ins.rate.is_some() {
                "rate"
            } else {
                "mass_rate"
            };
            parts.push(Grains {
                field: format!("inserts[{k}].{field}"),
                count: if count.is_finite() { count } else { 0.0 },
            });
        }
        Estimate { parts, input_bytes }
    }
}

/// The field that sets a source's number of grains, the number, and the bytes of the file
/// it reads.
fn source_grains(src: &ParticleSource, base: &Path) -> (&'static str, f64, f64) {
    let size = |p: &Path| {
        std::fs::metadata(base.join(p))
            .map_or(0.0, |m| (m.len() as f64).min(MAX_INPUT_BYTES as f64))
    };
    match src {
        ParticleSource::List(s) => ("spheres", s.spheres.len() as f64, 0.0),
        ParticleSource::Random(s) => ("count", s.count as f64, 0.0),
        ParticleSource::Pack(s) => ("count", s.count as f64, 0.0),
        ParticleSource::Lattice(s) => {
            // One site per (2 R_max)³ or per spacing³, √2 more in a close packing (HCP).
            let d = s
                .spacing
                .unwrap_or(0.0)
                .max(2.0 * s.radius * (1.0 + s.spread));
            let cells = ((s.max - s.min) / d).max(DVec3::ZERO).element_product();
            let per_cell = match s.kind {
                crate::fill::lattice::LatticeKind::Cubic => 1.0,
                crate::fill::lattice::LatticeKind::Hcp => std::f64::consts::SQRT_2,
            };
            ("radius", cells * per_cell, 0.0)
        }
        ParticleSource::CylinderLayer(s) => {
            // Rings of ⌊π / asin(r/ρ)⌋ grains every 2r (fill/layer.rs).
            let r = s.sphere_radius;
            let rho = s.radius - r * (1.0 - 1e-6);
            let ring = (std::f64::consts::PI / (r / rho).clamp(-1.0, 1.0).asin()).floor();
            let rings = (s.length / (2.0 * r)).floor().max(1.0);
            ("sphere_radius", ring * rings, 0.0)
        }
        ParticleSource::Annulus(s) => {
            // The fraction of the area over the mean disc area, ⟨r²⟩ of r uniform in [a, b].
            let (a, b) = (s.radius_min, s.radius_max);
            let area = s.outer_radius.powi(2) - s.inner_radius.powi(2);
            let mean_r2 = (a * a + a * b + b * b) / 3.0;
            ("packing_fraction", s.packing_fraction * area / mean_r2, 0.0)
        }
        ParticleSource::File(s) => {
            let rows = scan_text(&base.join(&s.path), |lines| lines.count() as f64);
            ("path", (rows - 1.0).max(0.0), size(&s.path))
        }
        ParticleSource::LammpsData(s) => {
            let atoms = scan_text(&base.join(&s.path), |lines| {
                lines
                    .take(1000)
                    .find_map(|l| header_count(&l, "atoms"))
                    .unwrap_or(0.0)
            });
            ("path", atoms, size(&s.path))
        }
        ParticleSource::LammpsDump(s) => {
            let atoms = scan_text(&base.join(&s.path), largest_frame);
            ("path", atoms, size(&s.path))
        }
        ParticleSource::Ss(s) => ("path", ss_records(&base.join(&s.path)), size(&s.path)),
    }
}

/// `f` over the lines of the file at `path` (decompressed when it ends in `.gz`), at most
/// [`MAX_INPUT_BYTES`] of them, read as they come; 0 when the file cannot be opened.
fn scan_text(path: &Path, f: impl FnOnce(&mut dyn Iterator<Item = String>) -> f64) -> f64 {
    let Ok(file) = std::fs::File::open(path) else {
        return 0.0;
    };
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut lines = BufReader::new(reader.take(MAX_INPUT_BYTES))
        .split(b'\n')
        .map_while(|l| l.ok())
        .map(|l| String::from_utf8_lossy(&l).into_owned());
    f(&mut lines)
}

/// The number of a LAMMPS header line `N word` (`1000 atoms`).
fn header_count(line: &str, word: &str) -> Option<f64> {
    let mut it = line.split_whitespace();
    let n = it.next()?.parse::<f64>().ok()?;
    (it.next()? == word).then_some(n)
}

/// The largest `ITEM: NUMBER OF ATOMS` of a dump's frames.
fn largest_frame(lines: &mut dyn Iterator<Item = String>) -> f64 {
    let mut most = 0.0_f64;
    while let Some(line) = lines.next() {
        if line.trim_end() == "ITEM: NUMBER OF ATOMS" {
            let n = lines.next().and_then(|l| l.trim().parse::<f64>().ok());
            most = most.max(n.unwrap_or(0.0));
        }
    }
    most
}

/// The records of a pkdgrav `ss` file: the header's count in the byte order whose count
/// matches the file's size, else as many reduced records as the size holds.
fn ss_records(path: &Path) -> f64 {
    use crate::io::ss::{HEADER_BYTES, REDUCED_BYTES, STANDARD_BYTES};
    let Ok(mut file) = std::fs::File::open(path) else {
        return 0.0;
    };
    let len = file.metadata().map_or(0, |m| m.len()) as f64;
    let mut head = [0u8; HEADER_BYTES];
    if file.read_exact(&mut head).is_err() {
        return 0.0;
    }
    let count = [head[8], head[9], head[10], head[11]];
    let fits = |n: f64| {
        [STANDARD_BYTES, REDUCED_BYTES]
            .iter()
            .any(|&b| HEADER_BYTES as f64 + n * b as f64 == len)
    };
    [i32::from_be_bytes(count), i32::from_le_bytes(count)]
        .map(f64::from)
        .into_iter()
        .find(|&n| n >= 0.0 && fits(n))
        .unwrap_or(((len - HEADER_BYTES as f64) / REDUCED_BYTES as f64).max(0.0))
}

/// The memory a run may take, and where the figure comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryLimit {
    /// Bytes.
    pub bytes: f64,
    /// Where the limit comes from, to say after the number ("available").
    pub source: &'static str,
}

/// The memory this process may still take: the smaller of the system's available memory
/// (`MemAvailable` of /proc/meminfo) and what the address-space limit (`ulimit -v`) leaves
/// above the process's present size; `None` where neither can be read.
pub fn memory_limit() -> Option<MemoryLimit> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let field = |text: &str, name: &str| -> Option<f64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kib: f64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
        Some(kib * 1024.0)
    };
    let available = read("/proc/meminfo")
        .and_then(|t| field(&t, "MemAvailable:"))
        .map(|bytes| MemoryLimit {
            bytes,
            source: "available",
        });
    let address_space = read("/proc/self/limits").and_then(|t| {
        let line = t.lines().find(|l| l.starts_with("Max address space"))?;
        let soft: f64 = line["Max address space".len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()?;
        let used = read("/proc/self/status")
            .and_then(|s| field(&s, "VmSize:"))
            .unwrap_or(0.0);
        Some(MemoryLimit {
            bytes: (soft - used).max(0.0),
            source: "left under the address-space limit (ulimit -v)",
        })
    });
    match (available, address_space) {
        (Some(a), Some(b)) => Some(if b.bytes < a.bytes { b } else { a }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(particles: &str) -> Scene {
        let text = format!(
            "[simulation]\nduration = 1.0\ndt = 1e-4\n[[materials]]\nname = \"m\"\ndensity = 2500.0\n\
             youngs_modulus = 1e7\npoisson_ratio = 0.3\nrestitution = 0.5\nsliding_friction = 0.5\n{particles}"
        );
        Scene::from_toml(&text, "t.toml").expect("scene")
    }

    #[test]
    fn sources_are_counted_from_their_fields() {
        let s = scene(
            "[[particles]]\ntype = \"random\"\nmaterial = \"m\"\ncount = 30000000\nradius = 1e-3\n\
             min = [0, 0, 0]\nmax = [1, 1, 1]\n\
             [[particles]]\ntype = \"lattice\"\nkind = \"cubic\"\nmaterial = \"m\"\nradius = 0.5e-3\n\
             min = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\n",
        );
        let e = s.estimate(Path::new("."));
        assert_eq!(e.parts[0].field, "particles[0].count");
        assert_eq!(e.parts[0].count, 3e7);
        // (0.1 m / 1 mm)³ = 1e6 cubic sites.
        assert!((e.parts[1].count - 1e6).abs() < 1.0, "{}", e.parts[1].count);
        assert_eq!(
            e.largest().map(|g| g.field.as_str()),
            Some("particles[0].count")
        );
        assert_eq!(
            e.bytes(),
            BASE_BYTES + (3e7 + e.parts[1].count) * BYTES_PER_GRAIN
        );
    }

    #[test]
    fn a_cylinder_layer_is_counted_as_fill_layer_makes_it() {
        // fill/layer.rs's own case: R = 31 mm, r = 0.5 mm, L = 5 mm: 5 rings of 191.
        let s = scene(
            "[[particles]]\ntype = \"cylinder_layer\"\nmaterial = \"m\"\ncenter = [0, 0, 0]\n\
             axis = [0, 0, 1]\nradius = 0.031\nlength = 0.005\nsphere_radius = 0.0005\n",
        );
        assert_eq!(s.estimate(Path::new(".")).parts[0].count, 5.0 * 191.0);
    }
}
