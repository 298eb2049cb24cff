//! pkdgrav's `ss` particle files (the format of Richardson et al. 2011, seed 000, and of the
//! rubble-pile tools around pkdgrav), read as a particle source and written as an output.
//!
//! Layout, as pkdgrav's `ssio.h` defines it (public source): a 16-byte header — time (f64),
//! particle count (i32), magic number (i32: −1 standard, −10101 reduced) — then one record per
//! particle. A standard record is 96 bytes: mass, radius, position, velocity, spin (11 f64),
//! colour and original index (2 i32). A reduced record is 28 bytes: mass, radius, position as
//! f32, colour and original index as i32; it has no velocity or spin. Everything is XDR, that is
//! big-endian; builds of pkdgrav that write through MPI I/O write the machine's own (little-endian)
//! order, which is recognised by the magic number read backwards.
//!
//! Units: pkdgrav's are G = 1 with length 1 AU, mass 1 M☉ and time 1 yr/2π (its `ss.h`:
//! AU = 1.495978707e11 m, M☉ = 1.9884e30 kg, sidereal year 3.15581497635e7 s). [`SsUnits`]
//! converts them to SI or keeps the numbers as they are (the scene's own units and its G).

use std::path::Path;

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::particles::Particles;
use crate::{Error, Result};

/// Magic number of the standard format.
pub const MAGIC_STANDARD: i32 = -1;
/// Magic number of the reduced format.
pub const MAGIC_REDUCED: i32 = -10101;
/// Bytes of the header.
pub const HEADER_BYTES: usize = 16;
/// Bytes of one standard record.
pub const STANDARD_BYTES: usize = 96;
/// Bytes of one reduced record.
pub const REDUCED_BYTES: usize = 28;

/// One astronomical unit (m), pkdgrav's length unit.
pub const AU: f64 = 1.495978707e11;
/// One solar mass (kg), pkdgrav's mass unit.
pub const M_SUN: f64 = 1.9884e30;
/// pkdgrav's time unit (s): one sidereal year (3.15581497635e7 s) over 2π.
pub const T_UNIT: f64 = 3.15581497635e7 / std::f64::consts::TAU;

/// Standard (96-byte records, f64) or reduced (28-byte records, f32, no velocities).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsFormat {
    /// Magic −1: every value as f64.
    #[default]
    Standard,
    /// Magic −10101: mass, radius and position as f32; no velocity or spin.
    Reduced,
}

impl SsFormat {
    fn record_bytes(self) -> usize {
        match self {
            SsFormat::Standard => STANDARD_BYTES,
            SsFormat::Reduced => REDUCED_BYTES,
        }
    }

    fn magic(self) -> i32 {
        match self {
            SsFormat::Standard => MAGIC_STANDARD,
            SsFormat::Reduced => MAGIC_REDUCED,
        }
    }
}

/// How the numbers of a file relate to the scene's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsUnits {
    /// pkdgrav's units (AU, M☉, yr/2π; G = 1), converted to and from SI.
    #[default]
    Pkdgrav,
    /// The numbers as they are, in the scene's units (a scene in pkdgrav units sets G = 1).
    Scene,
}

impl SsUnits {
    /// Length, mass and time units (in the scene's units).
    fn scales(self) -> (f64, f64, f64) {
        match self {
            SsUnits::Pkdgrav => (AU, M_SUN, T_UNIT),
            SsUnits::Scene => (1.0, 1.0, 1.0),
        }
    }

    /// The time unit (s): an `ss` header's time times this is the scene's time.
    pub fn time_unit(self) -> f64 {
        self.scales().2
    }
}

/// One particle of an `ss` file, in the file's units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsRecord {
    /// Mass.
    pub mass: f64,
    /// Radius.
    pub radius: f64,
    /// Position of the centre.
    pub pos: DVec3,
    /// Velocity (zero in a reduced file).
    pub vel: DVec3,
    /// Spin, angular velocity (zero in a reduced file).
    pub spin: DVec3,
    /// pkdgrav's colour; grainflow carries it as the particle type (material index + 1).
    pub colour: i32,
    /// Original index.
    pub index: i32,
}

impl SsRecord {
    /// The record with every value converted from `units` to the scene's (SI) units.
    pub fn to_scene(&self, units: SsUnits) -> SsRecord {
        let (l, m, t) = units.scales();
        SsRecord {
            mass: self.mass * m,
            radius: self.radius * l,
            pos: self.pos * l,
            vel: self.vel * (l / t),
            spin: self.spin / t,
            ..*self
        }
    }

    /// The record with every value converted from the scene's (SI) units to `units`.
    pub fn from_scene(&self, units: SsUnits) -> SsRecord {
        let (l, m, t) = units.scales();
        SsRecord {
            mass: self.mass / m,
            radius: self.radius / l,
            pos: self.pos / l,
            vel: self.vel / (l / t),
            spin: self.spin * t,
            ..*self
        }
    }
}

/// The content of an `ss` file: its time and its particles.
#[derive(Clone, Debug, PartialEq)]
pub struct SsFile {
    /// Time of the snapshot, in the file's units.
    pub time: f64,
    /// The particles, in file order.
    pub records: Vec<SsRecord>,
}

/// Byte order of a file: XDR's big-endian, or the little-endian of MPI-I/O builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteOrder {
    /// XDR, the standard.
    Big,
    /// Native order of x86 machines.
    Little,
}

/// A cursor over the bytes of a file in one byte order.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    order: ByteOrder,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0; N];
        b.copy_from_slice(&self.bytes[self.at..self.at + N]);
        self.at += N;
        b
    }
    fn f64(&mut self) -> f64 {
        let b = self.take::<8>();
        match self.order {
            ByteOrder::Big => f64::from_be_bytes(b),
            ByteOrder::Little => f64::from_le_bytes(b),
        }
    }
    fn f32(&mut self) -> f64 {
        let b = self.take::<4>();
        f64::from(match self.order {
            ByteOrder::Big => f32::from_be_bytes(b),
            ByteOrder::Little => f32::from_le_bytes(b),
        })
    }
    fn i32(&mut self) -> i32 {
        let b = self.take::<4>();
        match self.order {
            ByteOrder::Big => i32::from_be_bytes(b),
            ByteOrder::Little => i32::from_le_bytes(b),
        }
    }
    fn vec3(&mut self, single: bool) -> DVec3 {
        let mut v = [0.0; 3];
        for x in v.iter_mut() {
            *x = if single { self.f32() } else { self.f64() };
        }
        DVec3::from_array(v)
    }
}

/// The formats and byte orders a magic number read at bytes 12..16 may name, big-endian first:
/// −1 reads the same both ways, so the count decides between them.
fn recognise(magic: [u8; 4]) -> Vec<(SsFormat, ByteOrder)> {
    let format = |m: i32| match m {
        MAGIC_STANDARD => Some(SsFormat::Standard),
        MAGIC_REDUCED => Some(SsFormat::Reduced),
        _ => None,
    };
    let big = format(i32::from_be_bytes(magic)).map(|f| (f, ByteOrder::Big));
    let little = format(i32::from_le_bytes(magic)).map(|f| (f, ByteOrder::Little));
    big.into_iter().chain(little).collect()
}

/// Parses the bytes of an `ss` file; the reason of a refusal names the size found and expected.
pub fn parse_ss(bytes: &[u8]) -> Result<(SsFile, SsFormat, ByteOrder), String> {
    let n_bytes = bytes.len();
    if n_bytes < HEADER_BYTES {
        return Err(format!(
            "{n_bytes} bytes: an ss file starts with a {HEADER_BYTES}-byte header (time, count, magic number)"
        ));
    }
    let magic: [u8; 4] = [bytes[12], bytes[13], bytes[14], bytes[15]];
    let candidates = recognise(magic);
    let count_in = |order| {
        let mut c = Cursor {
            bytes,
            at: 8,
            order,
        };
        c.i32()
    };
    let size = |(format, order): (SsFormat, ByteOrder)| {
        let n = i64::from(count_in(order));
        HEADER_BYTES as i64 + n * format.record_bytes() as i64
    };
    let Some(&first) = candidates.first() else {
        return Err(format!(
            "magic number {} (bytes {magic:02x?}) is neither {MAGIC_STANDARD} (standard) nor {MAGIC_REDUCED} (reduced) in either byte order: not an ss file",
            i32::from_be_bytes(magic)
        ));
    };
    let fits = |&&c: &&(SsFormat, ByteOrder)| count_in(c.1) >= 0 && size(c) == n_bytes as i64;
    let (format, order) = *candidates.iter().find(fits).ok_or_else(|| {
        let (format, order) = first;
        let name = match format {
            SsFormat::Standard => "standard",
            SsFormat::Reduced => "reduced",
        };
        let count = count_in(order);
        format!(
            "{n_bytes} bytes, but a {name} ss file of {count} particles has {HEADER_BYTES} + {count} × {} = {} bytes",
            format.record_bytes(),
            size(first)
        )
    })?;
    let mut c = Cursor {
        bytes,
        at: 0,
        order,
    };
    let time = c.f64();
    let count = c.i32();
    c.at = HEADER_BYTES;
    let mut records = Vec::with_capacity(count as usize);
    for k in 0..count as usize {
        let single = format == SsFormat::Reduced;
        let (mass, radius) = if single {
            (c.f32(), c.f32())
        } else {
            (c.f64(), c.f64())
        };
        let pos = c.vec3(single);
        let (vel, spin) = if single {
            (DVec3::ZERO, DVec3::ZERO)
        } else {
            (c.vec3(false), c.vec3(false))
        };
        let (colour, index) = (c.i32(), c.i32());
        let r = SsRecord {
            mass,
            radius,
            pos,
            vel,
            spin,
            colour,
            index,
        };
        let finite = [mass, radius].iter().all(|x| x.is_finite())
            && pos.is_finite()
            && vel.is_finite()
            && spin.is_finite();
        if !finite {
            return Err(format!(
                "particle {k} (original index {index}) has a value that is not finite: {r:?}"
            ));
        }
        records.push(r);
    }
    Ok((SsFile { time, records }, format, order))
}

/// Reads an `ss` file (either byte order, either format).
pub fn read_ss(path: &Path) -> Result<SsFile> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_ss(&bytes)
        .map(|(file, ..)| file)
        .map_err(|reason| Error::Format {
            path: path.to_path_buf(),
            reason,
        })
}

/// The bytes of `file` in XDR (big-endian) order, in `format`; a reduced file keeps f32 values.
pub fn encode_ss(file: &SsFile, format: SsFormat) -> Vec<u8> {
    let n = file.records.len();
    let mut out = Vec::with_capacity(HEADER_BYTES + n * format.record_bytes());
    out.extend(file.time.to_be_bytes());
    out.extend((n as i32).to_be_bytes());
    out.extend(format.magic().to_be_bytes());
    for r in &file.records {
        match format {
            SsFormat::Standard => {
                let values = [r.mass, r.radius]
                    .into_iter()
                    .chain(r.pos.to_array())
                    .chain(r.vel.to_array())
                    .chain(r.spin.to_array());
                for x in values {
                    out.extend(x.to_be_bytes());
                }
            }
            SsFormat::Reduced => {
                for x in [r.mass, r.radius].into_iter().chain(r.pos.to_array()) {
                    out.extend((x as f32).to_be_bytes());
                }
            }
        }
        out.extend(r.colour.to_be_bytes());
        out.extend(r.index.to_be_bytes());
    }
    out
}

/// The particles as an `ss` file at `time` (s), converted to `units`: colour is the material
/// index + 1 (the dump's type), the original index the particle id. Refuses an id or a count
/// beyond an i32.
pub fn ss_from_particles(p: &Particles, time: f64, units: SsUnits) -> Result<SsFile, String> {
    if i32::try_from(p.len()).is_err() {
        return Err(format!(
            "{} particles do not fit an ss file's i32 count",
            p.len()
        ));
    }
    let mut records = Vec::with_capacity(p.len());
    for k in 0..p.len() {
        let index = i32::try_from(p.id[k]).map_err(|_| {
            format!(
                "particle id {} does not fit an ss file's i32 index",
                p.id[k]
            )
        })?;
        let r = SsRecord {
            mass: p.mass[k],
            radius: p.radius[k],
            pos: p.pos[k],
            vel: p.vel[k],
            spin: p.omega[k],
            colour: i32::from(p.material[k]) + 1,
            index,
        };
        records.push(r.from_scene(units));
    }
    let (_, _, t) = units.scales();
    Ok(SsFile {
        time: time / t,
        records,
    })
}

/// Writes `file` to `path` in XDR order and `format`, whole or not at all ([`super::durable::write_whole`]).
pub fn write_ss(path: &Path, file: &SsFile, format: SsFormat) -> Result<()> {
    let bytes = encode_ss(file, format);
    super::durable::write_whole(path, |w| std::io::Write::write_all(w, &bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SsFile {
        let r = |k: i32| SsRecord {
            mass: 1e-12 * f64::from(k + 1) / 3.0,
            radius: 2.5e-9 + 1e-10 * f64::from(k),
            pos: DVec3::new(1.0 / 7.0, -0.25, 1e-3 * f64::from(k)),
            vel: DVec3::new(0.0, -1e-5, 3.0 / 11.0),
            spin: DVec3::new(7.0, -0.0, f64::MIN_POSITIVE),
            colour: 3 + k,
            index: 100 * k,
        };
        SsFile {
            time: 0.125,
            records: (0..3).map(r).collect(),
        }
    }

    #[test]
    fn standard_round_trip_is_bit_identical() {
        let file = sample();
        let bytes = encode_ss(&file, SsFormat::Standard);
        assert_eq!(bytes.len(), HEADER_BYTES + 3 * STANDARD_BYTES);
        let (back, format, order) = parse_ss(&bytes).unwrap();
        assert_eq!((format, order), (SsFormat::Standard, ByteOrder::Big));
        assert_eq!(back.time.to_bits(), file.time.to_bits());
        for (a, b) in back.records.iter().zip(&file.records) {
            let bits = |r: &SsRecord| {
                [r.mass, r.radius]
                    .into_iter()
                    .chain(r.pos.to_array())
                    .chain(r.vel.to_array())
                    .chain(r.spin.to_array())
                    .map(f64::to_bits)
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(a), bits(b));
            assert_eq!((a.colour, a.index), (b.colour, b.index));
        }
    }

    #[test]
    fn reduced_keeps_single_precision_and_drops_velocities() {
        let file = sample();
        let bytes = encode_ss(&file, SsFormat::Reduced);
        assert_eq!(bytes.len(), HEADER_BYTES + 3 * REDUCED_BYTES);
        let (back, format, _) = parse_ss(&bytes).unwrap();
        assert_eq!(format, SsFormat::Reduced);
        for (a, b) in back.records.iter().zip(&file.records) {
            assert_eq!(a.mass, f64::from(b.mass as f32));
            assert_eq!(a.pos.y, -0.25);
            assert_eq!((a.vel, a.spin), (DVec3::ZERO, DVec3::ZERO));
            assert_eq!(a.colour, b.colour);
        }
    }

    #[test]
    fn little_endian_files_are_recognised_by_their_magic() {
        // Byte-swapping every 8- and 4-byte field of a big-endian file gives what an MPI-I/O
        // build writes on x86.
        let file = sample();
        let big = encode_ss(&file, SsFormat::Standard);
        let mut little = Vec::new();
        little.extend(&big[0..8].iter().rev().copied().collect::<Vec<_>>());
        little.extend(big[8..12].iter().rev());
        little.extend(big[12..16].iter().rev());
        for rec in big[16..].chunks(STANDARD_BYTES) {
            for f in rec[..88].chunks(8) {
                little.extend(f.iter().rev());
            }
            for f in rec[88..].chunks(4) {
                little.extend(f.iter().rev());
            }
        }
        let (back, _, order) = parse_ss(&little).unwrap();
        assert_eq!(order, ByteOrder::Little);
        assert_eq!(back, file);
    }

    #[test]
    fn pkdgrav_units_convert_to_si_and_back() {
        // One AU per time unit is Earth's mean orbital speed, 2π AU / sidereal year ≈ 29.78 km/s.
        let r = SsRecord {
            mass: 3.0e-6,
            radius: 1.0,
            pos: DVec3::X,
            vel: DVec3::Y,
            spin: DVec3::Z,
            colour: 1,
            index: 0,
        };
        let si = r.to_scene(SsUnits::Pkdgrav);
        assert!((si.vel.y - 29_785.0).abs() < 5.0, "{}", si.vel.y);
        assert_eq!(si.mass, 3.0e-6 * M_SUN);
        let back = si.from_scene(SsUnits::Pkdgrav);
        assert!((back.vel.y - 1.0).abs() < 1e-15 && (back.spin.z - 1.0).abs() < 1e-15);
        // G M☉ T² / AU³ is 1 to the precision of the constants pkdgrav uses (5 digits of G).
        let g = 6.6743e-11 * M_SUN * T_UNIT * T_UNIT / AU.powi(3);
        assert!((g - 1.0).abs() < 1e-3, "{g}");
        assert_eq!(r.to_scene(SsUnits::Scene), r);
    }

    #[test]
    fn truncated_and_mislabelled_files_are_refused_with_sizes() {
        let bytes = encode_ss(&sample(), SsFormat::Standard);
        let short = parse_ss(&bytes[..bytes.len() - 5]).unwrap_err();
        assert_eq!(
            short,
            "299 bytes, but a standard ss file of 3 particles has 16 + 3 × 96 = 304 bytes"
        );
        // A standard file labelled reduced.
        let mut relabelled = bytes.clone();
        relabelled[12..16].copy_from_slice(&MAGIC_REDUCED.to_be_bytes());
        let e = parse_ss(&relabelled).unwrap_err();
        assert_eq!(
            e,
            "304 bytes, but a reduced ss file of 3 particles has 16 + 3 × 28 = 100 bytes"
        );
        let mut garbage = bytes.clone();
        garbage[12..16].copy_from_slice(&7i32.to_be_bytes());
        assert!(parse_ss(&garbage)
            .unwrap_err()
            .starts_with("magic number 7 "));
        assert!(parse_ss(&bytes[..10])
            .unwrap_err()
            .starts_with("10 bytes: "));
        let mut negative = bytes;
        negative[8..12].copy_from_slice(&(-3i32).to_be_bytes());
        assert!(parse_ss(&negative).unwrap_err().contains("of -3 particles"));
    }
}
