//! VTK XML writers for ParaView: particle snapshots (`.vtu`), wall meshes (`.vtp`) and the
//! `.pvd` collection that strings snapshots into a time series.
//!
//! Arrays are written `format="binary"`: inline base64 of the raw little-endian bytes behind a
//! UInt64 byte count: under half the size of full-precision ASCII, and every f64 comes
//! back bit for bit. The format is small enough to write by hand; no VTK crate is needed.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use glam::DVec3;

use crate::particles::Particles;
use crate::{Error, Result};

/// VTK cell type of a single point.
const VTK_VERTEX: u8 = 1;

/// Writes one snapshot of `particles` at `time` (s) as an UnstructuredGrid: a point and a
/// VTK_VERTEX cell per particle, `TimeValue` field data, and the point arrays `id`, `material`,
/// `radius`, `diameter`, `mass`, `velocity`, `omega`, `force` and `passes` (recirculations).
pub fn write_particles_vtu(path: &Path, particles: &Particles, time: f64) -> Result<()> {
    let p = particles;
    let n = p.len();
    // VTK has Int64, and ids past i64::MAX would come back negative: refuse rather than wrap.
    let ids =
        p.id.iter()
            .map(|&id| i64::try_from(id))
            .collect::<std::result::Result<Vec<i64>, _>>()
            .map_err(|_| Error::Format {
                path: path.to_path_buf(),
                reason: "a particle id does not fit VTK's Int64".into(),
            })?;
    let material: Vec<i32> = p.material.iter().map(|&m| i32::from(m)).collect();
    let passes: Vec<i64> = p.passes.iter().map(|&n| i64::from(n)).collect();
    let diameter: Vec<f64> = p.radius.iter().map(|r| 2.0 * r).collect();
    let cells: Vec<i64> = (0..n as i64).collect();
    let offsets: Vec<i64> = (1..=n as i64).collect();
    super::durable::write_whole(path, |w| {
        open(w, "UnstructuredGrid", time)?;
        writeln!(w, r#"<Piece NumberOfPoints="{n}" NumberOfCells="{n}">"#)?;
        writeln!(w, r#"<PointData Scalars="radius" Vectors="velocity">"#)?;
        data_array(w, "id", 1, &ids)?;
        data_array(w, "material", 1, &material)?;
        data_array(w, "radius", 1, &p.radius)?;
        data_array(w, "diameter", 1, &diameter)?;
        data_array(w, "mass", 1, &p.mass)?;
        data_array(w, "velocity", 3, &flat(&p.vel))?;
        data_array(w, "omega", 3, &flat(&p.omega))?;
        data_array(w, "force", 3, &flat(&p.force))?;
        data_array(w, "passes", 1, &passes)?;
        writeln!(w, "</PointData>\n<Points>")?;
        data_array(w, "Points", 3, &flat(&p.pos))?;
        writeln!(w, "</Points>\n<Cells>")?;
        data_array(w, "connectivity", 1, &cells)?;
        data_array(w, "offsets", 1, &offsets)?;
        data_array(w, "types", 1, &vec![VTK_VERTEX; n])?;
        writeln!(w, "</Cells>\n</Piece>")?;
        close(w, "UnstructuredGrid")
    })
}

/// Writes the index of a snapshot written in pieces (one `.vtu` per rank of a run shared among
/// processes, each as [`write_particles_vtu`] writes it) at `time` (s): a
/// PUnstructuredGrid naming the pieces `pieces` (relative to the index's folder) and declaring
/// their arrays, which ParaView reads as one dataset.
pub fn write_particles_pvtu(path: &Path, pieces: &[String], time: f64) -> Result<()> {
    let arrays = [
        ("Int64", "id", 1),
        ("Int32", "material", 1),
        ("Float64", "radius", 1),
        ("Float64", "diameter", 1),
        ("Float64", "mass", 1),
        ("Float64", "velocity", 3),
        ("Float64", "omega", 3),
        ("Float64", "force", 3),
        ("Int64", "passes", 1),
    ];
    super::durable::write_whole(path, |w| {
        writeln!(w, r#"<?xml version="1.0"?>"#)?;
        writeln!(
            w,
            r#"<VTKFile type="PUnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
        )?;
        writeln!(w, r#"<PUnstructuredGrid GhostLevel="0">"#)?;
        writeln!(w, "<FieldData>")?;
        data_array(w, "TimeValue", 1, &[time])?;
        writeln!(w, "</FieldData>")?;
        writeln!(w, r#"<PPointData Scalars="radius" Vectors="velocity">"#)?;
        for (ty, name, comps) in arrays {
            writeln!(
                w,
                r#"<PDataArray type="{ty}" Name="{name}" NumberOfComponents="{comps}"/>"#
            )?;
        }
        writeln!(w, "</PPointData>\n<PPoints>")?;
        writeln!(w, r#"<PDataArray type="Float64" NumberOfComponents="3"/>"#)?;
        writeln!(w, "</PPoints>")?;
        for piece in pieces {
            writeln!(w, r#"<Piece Source="{}"/>"#, escape(piece))?;
        }
        writeln!(w, "</PUnstructuredGrid>\n</VTKFile>")
    })
}

/// Writes a wall mesh at `time` (s) as PolyData: `vertices` and `polygons`, each polygon a list
/// of vertex indices. Its vertices carry a zero `radius` array, so a pipeline (or checker) that
/// expects `radius` on every dataset of a run reads wall meshes too.
pub fn write_mesh_vtp(
    path: &Path,
    vertices: &[DVec3],
    polygons: &[Vec<usize>],
    time: f64,
) -> Result<()> {
    // An index past the vertices would make a file that VTK rejects: say which one instead.
    for (k, poly) in polygons.iter().enumerate() {
        if let Some(&v) = poly.iter().find(|&&v| v >= vertices.len()) {
            return Err(Error::Format {
                path: path.to_path_buf(),
                reason: format!(
                    "polygon {k} uses vertex {v}, but there are {}",
                    vertices.len()
                ),
            });
        }
    }
    let connectivity: Vec<i64> = polygons.iter().flatten().map(|&v| v as i64).collect();
    let offsets: Vec<i64> = polygons
        .iter()
        .scan(0i64, |end, poly| {
            *end += poly.len() as i64;
            Some(*end)
        })
        .collect();
    super::durable::write_whole(path, |w| {
        open(w, "PolyData", time)?;
        writeln!(
            w,
            r#"<Piece NumberOfPoints="{}" NumberOfVerts="0" NumberOfLines="0" NumberOfStrips="0" NumberOfPolys="{}">"#,
            vertices.len(),
            polygons.len()
        )?;
        writeln!(w, "<Points>")?;
        data_array(w, "Points", 3, &flat(vertices))?;
        writeln!(w, "</Points>\n<PointData>")?;
        data_array(w, "radius", 1, &vec![0.0f64; vertices.len()])?;
        writeln!(w, "</PointData>\n<Polys>")?;
        data_array(w, "connectivity", 1, &connectivity)?;
        data_array(w, "offsets", 1, &offsets)?;
        writeln!(w, "</Polys>\n</Piece>")?;
        close(w, "PolyData")
    })
}

/// A ParaView collection (`.pvd`): the time series of snapshot files, kept in time order.
///
/// Every [`push`](Self::push) rewrites the whole file (through a temporary file and a rename),
/// so a run stopped midway leaves a complete, viewable index of what it wrote.
#[derive(Clone, Debug)]
pub struct PvdIndex {
    path: PathBuf,
    entries: Vec<(f64, String)>,
}

impl PvdIndex {
    /// An empty index to be written at `path`; nothing is written until the first push.
    pub fn new(path: PathBuf) -> Self {
        PvdIndex {
            path,
            entries: Vec::new(),
        }
    }

    /// The index already at `path` (written by [`PvdIndex::push`]), keeping only the entries
    /// before `until` (s): how a resumed run continues its series. Missing file: empty index.
    pub fn resume(path: PathBuf, until: f64) -> Self {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let attr = |line: &str, key: &str| -> Option<String> {
            let start = line.find(&format!("{key}=\""))? + key.len() + 2;
            let len = line[start..].find('"')?;
            Some(line[start..start + len].to_string())
        };
        let entries = text
            .lines()
            .filter(|l| l.contains("<DataSet"))
            .filter_map(|l| Some((attr(l, "timestep")?.parse::<f64>().ok()?, attr(l, "file")?)))
            .filter(|(t, _)| *t < until)
            .collect();
        PvdIndex { path, entries }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the index has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records `file` (relative to the `.pvd`'s folder) at `time` (s) and rewrites the index.
    /// Entries stay sorted by time; a non-finite time is refused.
    pub fn push(&mut self, time: f64, file: &str) -> Result<()> {
        if !time.is_finite() {
            return Err(Error::Format {
                path: self.path.clone(),
                reason: format!("time {time} of {file} is not finite"),
            });
        }
        let at = self.entries.partition_point(|(t, _)| *t <= time);
        self.entries.insert(at, (time, file.to_owned()));
        super::durable::write_whole(&self.path, |w| {
            writeln!(w, r#"<?xml version="1.0"?>"#)?;
            writeln!(
                w,
                r#"<VTKFile type="Collection" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
            )?;
            writeln!(w, "<Collection>")?;
            for (t, f) in &self.entries {
                // `{:e}` is the shortest form that parses back to the same f64.
                let f = escape(f);
                writeln!(
                    w,
                    r#"<DataSet timestep="{t:e}" group="" part="0" file="{f}"/>"#
                )?;
            }
            writeln!(w, "</Collection>\n</VTKFile>")
        })
    }
}

/// The XML prolog, the dataset element and its `TimeValue` field data (which ParaView reads as
/// the snapshot's time when a file is opened on its own).
fn open(w: &mut impl Write, kind: &str, time: f64) -> io::Result<()> {
    writeln!(w, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        w,
        r#"<VTKFile type="{kind}" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    )?;
    writeln!(w, "<{kind}>\n<FieldData>")?;
    data_array(w, "TimeValue", 1, &[time])?;
    writeln!(w, "</FieldData>")
}

fn close(w: &mut impl Write, kind: &str) -> io::Result<()> {
    writeln!(w, "</{kind}>\n</VTKFile>")
}

/// Numbers that go into a binary DataArray: their VTK type name and little-endian bytes.
trait VtkScalar: Copy {
    const TYPE: &'static str;
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! vtk_scalar {
    ($($t:ty => $name:literal),*) => {$(
        impl VtkScalar for $t {
            const TYPE: &'static str = $name;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
vtk_scalar!(f64 => "Float64", i64 => "Int64", i32 => "Int32", u8 => "UInt8");

/// One `format="binary"` DataArray: base64 of (UInt64 byte count, then the values).
fn data_array<T: VtkScalar>(
    w: &mut impl Write,
    name: &str,
    comps: usize,
    values: &[T],
) -> io::Result<()> {
    let size = std::mem::size_of_val(values);
    let mut bytes = Vec::with_capacity(8 + size);
    bytes.extend_from_slice(&(size as u64).to_le_bytes());
    values.iter().for_each(|v| v.put(&mut bytes));
    let tuples = values.len() / comps;
    write!(
        w,
        r#"<DataArray type="{}" Name="{name}" NumberOfComponents="{comps}" NumberOfTuples="{tuples}" format="binary">"#,
        T::TYPE
    )?;
    // Blocks of a multiple of 3 bytes encode to the same text as the whole, without padding.
    for block in bytes.chunks(3 * 4096) {
        w.write_all(base64(block).as_bytes())?;
    }
    writeln!(w, "</DataArray>")
}

fn flat(v: &[DVec3]) -> Vec<f64> {
    v.iter().flat_map(|p| p.to_array()).collect()
}

/// Escapes the characters that would end or break an XML attribute value.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Standard base64 (RFC 4648, with `=` padding).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let mut b = [0u8; 3];
        b[..chunk.len()].copy_from_slice(chunk);
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::particles::{Mobility, ParticleSpec};

    /// A fresh folder under the system temp dir, unique to this process and test.
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("grainflow_vtk_{}_{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn decode_base64(s: &str) -> Vec<u8> {
        let (mut acc, mut bits, mut out) = (0u32, 0, Vec::new());
        for c in s.bytes().take_while(|&c| c != b'=') {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => panic!("not base64: {c:?}"),
            };
            acc = acc << 6 | u32::from(v);
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
            }
        }
        out
    }

    /// The decoded bytes of the DataArray called `name`, after checking its type and its
    /// UInt64 byte-count header.
    fn array(xml: &str, name: &str, ty: &str) -> Vec<u8> {
        let start = xml.find(&format!(r#"Name="{name}""#)).expect(name);
        let tag_start = xml[..start].rfind('<').unwrap();
        let body = start + xml[start..].find('>').unwrap() + 1;
        let end = body + xml[body..].find("</DataArray>").unwrap();
        assert!(
            xml[tag_start..body].contains(&format!(r#"type="{ty}""#)),
            "{name} not {ty}"
        );
        assert!(xml[tag_start..body].contains(r#"format="binary""#));
        let bytes = decode_base64(&xml[body..end]);
        let size = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        assert_eq!(size as usize, bytes.len() - 8, "{name}: byte-count header");
        bytes[8..].to_vec()
    }

    fn f64s(b: &[u8]) -> Vec<u64> {
        b.chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()).to_bits())
            .collect()
    }

    fn i64s(b: &[u8]) -> Vec<i64> {
        b.chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in vectors {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain:?}");
            assert_eq!(decode_base64(encoded), plain.as_bytes());
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode_base64(&base64(&all)), all);
    }

    #[test]
    fn long_arrays_encode_across_blocks_exactly() {
        // 10 000 f64s = 80 008 bytes with the header, several 12 288-byte blocks.
        let values: Vec<f64> = (0..10_000).map(|k| (k as f64).sqrt() / 7.0).collect();
        let mut xml = Vec::new();
        data_array(&mut xml, "x", 1, &values).unwrap();
        let xml = String::from_utf8(xml).unwrap();
        assert!(xml.contains(r#"NumberOfTuples="10000""#));
        assert_eq!(f64s(&array(&xml, "x", "Float64")), bits(&values));
    }

    fn three_particles() -> Particles {
        let mut p = Particles::default();
        let specs = [
            (DVec3::new(0.1, -0.0, 1.0 / 3.0), 0.005, 0),
            (DVec3::new(1e-300, 2.5, -7.25), 1.0 / 7.0, 2),
            (DVec3::new(-1.5, 1e10, 0.3), 0.02, 1),
        ];
        for (k, &(pos, radius, material)) in specs.iter().enumerate() {
            let spec = ParticleSpec {
                pos,
                vel: DVec3::new(k as f64, 0.1, -2.0),
                omega: DVec3::new(0.0, 3.0 + k as f64, 0.7),
                radius,
                material,
                mobility: Mobility::Free,
            };
            p.push(10 + 5 * k as u64, &spec, 1.0 / 3.0 + k as f64);
            p.force[k] = DVec3::new(-9.81 * k as f64, 0.0, 1e-12);
        }
        p
    }

    #[test]
    fn vtu_round_trips_points_and_arrays_bit_for_bit() {
        let dir = scratch("vtu");
        let path = dir.join("p.vtu");
        let p = three_particles();
        let time = 0.1 + 0.2;
        write_particles_vtu(&path, &p, time).unwrap();
        let xml = std::fs::read_to_string(&path).unwrap();

        assert!(xml.contains(r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#));
        assert!(xml.contains(r#"<Piece NumberOfPoints="3" NumberOfCells="3">"#));
        assert_eq!(f64s(&array(&xml, "TimeValue", "Float64")), bits(&[time]));
        assert_eq!(f64s(&array(&xml, "Points", "Float64")), bits(&flat(&p.pos)));
        assert_eq!(f64s(&array(&xml, "radius", "Float64")), bits(&p.radius));
        let diameter = [0.01, 2.0 / 7.0, 0.04];
        assert_eq!(f64s(&array(&xml, "diameter", "Float64")), bits(&diameter));
        assert_eq!(f64s(&array(&xml, "mass", "Float64")), bits(&p.mass));
        assert_eq!(
            f64s(&array(&xml, "velocity", "Float64")),
            bits(&flat(&p.vel))
        );
        assert_eq!(
            f64s(&array(&xml, "omega", "Float64")),
            bits(&flat(&p.omega))
        );
        assert_eq!(
            f64s(&array(&xml, "force", "Float64")),
            bits(&flat(&p.force))
        );
        assert_eq!(i64s(&array(&xml, "id", "Int64")), vec![10, 15, 20]);
        let material = array(&xml, "material", "Int32");
        let material: Vec<i32> = material
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(material, vec![0, 2, 1]);
        assert_eq!(i64s(&array(&xml, "connectivity", "Int64")), vec![0, 1, 2]);
        assert_eq!(i64s(&array(&xml, "offsets", "Int64")), vec![1, 2, 3]);
        assert_eq!(array(&xml, "types", "UInt8"), vec![1, 1, 1]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn pvtu_names_its_pieces_and_declares_the_arrays_of_a_piece() {
        // A reader takes the arrays' types from the index: they must be the piece's, in order.
        let dir = scratch("pvtu");
        write_particles_vtu(&dir.join("p_0.vtu"), &three_particles(), 0.5).unwrap();
        let pieces = ["p_0.vtu".to_string(), "p_1.vtu".to_string()];
        write_particles_pvtu(&dir.join("p.pvtu"), &pieces, 0.5).unwrap();
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        let (vtu, pvtu) = (read("p_0.vtu"), read("p.pvtu"));
        let declared = |xml: &str, tag: &str| -> Vec<String> {
            xml.lines()
                .filter(|l| l.starts_with(tag) && l.contains("NumberOfComponents"))
                .map(|l| l[tag.len()..].split(" format").next().unwrap().to_string())
                .map(|l| {
                    l.split(" NumberOfTuples")
                        .next()
                        .unwrap()
                        .trim_end_matches("/>")
                        .into()
                })
                .collect()
        };
        // The piece: TimeValue, the nine point arrays, Points, the three cell arrays; the
        // index: the nine point arrays and the points' type.
        let (piece, index) = (declared(&vtu, "<DataArray"), declared(&pvtu, "<PDataArray"));
        assert_eq!((piece.len(), index.len()), (14, 10), "{piece:?} {index:?}");
        assert_eq!(index[..9], piece[1..10]);
        assert!(pvtu.contains(r#"<Piece Source="p_0.vtu"/>"#));
        assert!(pvtu.contains(r#"<Piece Source="p_1.vtu"/>"#));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn vtu_refuses_ids_past_int64() {
        let dir = scratch("bigid");
        let mut p = three_particles();
        p.id[1] = u64::MAX;
        let err = write_particles_vtu(&dir.join("p.vtu"), &p, 0.0).unwrap_err();
        assert!(matches!(err, Error::Format { .. }), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn vtp_writes_polygons_as_connectivity_and_offsets() {
        let dir = scratch("vtp");
        let path = dir.join("walls.vtp");
        let v = [
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::Y,
            DVec3::new(0.5, 0.5, 1.0 / 3.0),
        ];
        let polys = vec![vec![0, 1, 2, 3], vec![0, 1, 4]];
        write_mesh_vtp(&path, &v, &polys, 2.0).unwrap();
        let xml = std::fs::read_to_string(&path).unwrap();
        assert!(xml.contains(r#"<VTKFile type="PolyData""#));
        assert!(xml.contains(r#"NumberOfPoints="5""#) && xml.contains(r#"NumberOfPolys="2""#));
        assert_eq!(f64s(&array(&xml, "Points", "Float64")), bits(&flat(&v)));
        assert_eq!(
            i64s(&array(&xml, "connectivity", "Int64")),
            vec![0, 1, 2, 3, 0, 1, 4]
        );
        assert_eq!(i64s(&array(&xml, "offsets", "Int64")), vec![4, 7]);
        assert_eq!(f64s(&array(&xml, "TimeValue", "Float64")), bits(&[2.0]));

        let bad = dir.join("bad.vtp");
        let err = write_mesh_vtp(&bad, &v, &[vec![0, 5, 1]], 0.0).unwrap_err();
        assert!(err.to_string().contains("polygon 0 uses vertex 5"), "{err}");
        assert!(!bad.exists());
        let _ = std::fs::remove_dir_all(dir);
    }

    /// (timestep, file) of every DataSet line of a .pvd.
    fn pvd_entries(path: &Path) -> Vec<(f64, String)> {
        let text = std::fs::read_to_string(path).unwrap();
        let attr = |line: &str, key: &str| {
            let start = line.find(&format!(r#"{key}=""#)).unwrap() + key.len() + 2;
            line[start..start + line[start..].find('"').unwrap()].to_string()
        };
        text.lines()
            .filter(|l| l.starts_with("<DataSet"))
            .map(|l| (attr(l, "timestep").parse().unwrap(), attr(l, "file")))
            .collect()
    }

    #[test]
    fn pvd_lists_entries_in_time_order_with_exact_times() {
        let dir = scratch("pvd");
        let path = dir.join("particles.pvd");
        let mut pvd = PvdIndex::new(path.clone());
        pvd.push(0.0, "frames/p_0.vtu").unwrap();
        // Rewritten on every push: complete after the first one already.
        assert_eq!(
            pvd_entries(&path),
            vec![(0.0, "frames/p_0.vtu".to_string())]
        );
        let third = 1.0 / 3.0;
        pvd.push(third, "frames/p_2.vtu").unwrap();
        pvd.push(0.1 + 0.2, "frames/p_1.vtu").unwrap();
        pvd.push(2.5e-7, "a&b.vtu").unwrap();
        let got = pvd_entries(&path);
        let times: Vec<f64> = got.iter().map(|e| e.0).collect();
        assert_eq!(bits(&times), bits(&[0.0, 2.5e-7, 0.1 + 0.2, third]));
        let files: Vec<&str> = got.iter().map(|e| e.1.as_str()).collect();
        assert_eq!(
            files,
            [
                "frames/p_0.vtu",
                "a&amp;b.vtu",
                "frames/p_1.vtu",
                "frames/p_2.vtu"
            ]
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(r#"<VTKFile type="Collection""#));
        assert!(text.contains(r#"group="" part="0""#));
        assert!(!dir.join("particles.pvd.tmp").exists());

        assert!(matches!(
            pvd.push(f64::NAN, "x.vtu"),
            Err(Error::Format { .. })
        ));
        assert_eq!(pvd_entries(&path).len(), 4);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn io_errors_name_the_path() {
        let dir = scratch("ioerr");
        let path = dir.join("missing_folder").join("p.vtu");
        match write_particles_vtu(&path, &three_particles(), 0.0) {
            Err(Error::Io { path: p, .. }) => assert_eq!(p, path),
            other => panic!("expected Error::Io, got {other:?}"),
        }
        let pvd_path = dir.join("missing_folder").join("p.pvd");
        let err = PvdIndex::new(pvd_path.clone())
            .push(0.0, "p.vtu")
            .unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
