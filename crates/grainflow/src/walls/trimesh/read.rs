//! Reading triangle meshes: ASCII and binary STL and Wavefront OBJ, in f64. Our own readers:
//! `stl_io` keeps f32 and refuses a bare `solid` first line, and neither it nor `tobj` names
//! the line of a fault. Every refusal names the triangle (STL, counting from 1) or the line
//! (ASCII STL, OBJ) and the reason; no file makes them panic.

use std::path::Path;

use glam::DVec3;

use crate::{Error, Result};

/// A triangle's three corners as read (m, before scale, rotation and translation).
pub type Corners = [DVec3; 3];

/// Bytes of a binary STL before its triangles: an 80-byte header and the count.
const STL_HEADER: usize = 84;
/// Bytes per triangle of a binary STL: normal, three corners (f32) and an attribute word.
const STL_RECORD: usize = 50;

/// The triangles of the STL or OBJ file at `path` (by its extension: `.stl` or `.obj`,
/// either case), in the file's order.
pub fn read_triangles(path: &Path) -> Result<Vec<Corners>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let fail = |reason: String| Error::Format {
        path: path.to_path_buf(),
        reason,
    };
    match ext.as_deref() {
        Some("stl") => read_stl(&bytes).map_err(fail),
        Some("obj") => {
            let text =
                std::str::from_utf8(&bytes).map_err(|e| fail(format!("not UTF-8 text: {e}")))?;
            read_obj(text).map_err(fail)
        }
        _ => Err(fail(
            "a mesh file must end in .stl or .obj (STL ASCII or binary, Wavefront OBJ)".into(),
        )),
    }
}

/// An STL file's triangles: binary when its length is that of the count its header gives,
/// else ASCII when it is text beginning with `solid`, else a binary file of the wrong length.
pub fn read_stl(bytes: &[u8]) -> std::result::Result<Vec<Corners>, String> {
    let count = bytes
        .get(80..STL_HEADER)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize);
    let binary_length = count.and_then(|n| n.checked_mul(STL_RECORD)?.checked_add(STL_HEADER));
    if binary_length == Some(bytes.len()) {
        return read_binary_stl(&bytes[STL_HEADER..]);
    }
    let text = std::str::from_utf8(bytes)
        .ok()
        .filter(|t| !t.contains('\0'));
    if let Some(text) = text.filter(|t| t.trim_start().starts_with("solid")) {
        return read_ascii_stl(text);
    }
    match count {
        None => Err(format!(
            "{} bytes: too short for a binary STL (84-byte header) and not ASCII STL (no \"solid\")",
            bytes.len()
        )),
        Some(n) => Err(format!(
            "binary STL whose header counts {n} triangles ({} bytes) but the file has {} bytes (truncated or not STL)",
            binary_length.map_or("too many".into(), |b| b.to_string()),
            bytes.len()
        )),
    }
}

/// The records of a binary STL after its header, each 50 bytes (checked by the caller).
fn read_binary_stl(records: &[u8]) -> std::result::Result<Vec<Corners>, String> {
    let f = |b: &[u8], k: usize| {
        f64::from(f32::from_le_bytes([
            b[4 * k],
            b[4 * k + 1],
            b[4 * k + 2],
            b[4 * k + 3],
        ]))
    };
    records
        .chunks_exact(STL_RECORD)
        .enumerate()
        .map(|(t, rec)| {
            let corner =
                |c: usize| DVec3::new(f(rec, 3 + 3 * c), f(rec, 4 + 3 * c), f(rec, 5 + 3 * c));
            let tri = [corner(0), corner(1), corner(2)];
            match tri.iter().all(|v| v.is_finite()) {
                true => Ok(tri),
                false => Err(format!("triangle {}: a corner is not finite", t + 1)),
            }
        })
        .collect()
}

/// An ASCII STL: `solid [name]`, then per facet `facet normal nx ny nz`, `outer loop`, three
/// `vertex x y z`, `endloop`, `endfacet`; `endsolid [name]`. The normals written are not used
/// (the corners' order gives the face); several solids may follow each other.
pub fn read_ascii_stl(text: &str) -> std::result::Result<Vec<Corners>, String> {
    let mut tris = Vec::new();
    let mut corners: Vec<DVec3> = Vec::with_capacity(3);
    let mut in_facet = false;
    for (n, line) in text.lines().enumerate() {
        let at = |reason: String| format!("line {}: {reason}", n + 1);
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else { continue };
        match key {
            "solid" | "endsolid" | "outer" | "endloop" => {}
            "facet" => {
                if in_facet {
                    return Err(at("\"facet\" before the last facet's \"endfacet\"".into()));
                }
                in_facet = true;
                corners.clear();
            }
            "vertex" => {
                if !in_facet || corners.len() == 3 {
                    return Err(at("\"vertex\" outside a facet, or a fourth one".into()));
                }
                corners.push(three_numbers(words).map_err(at)?);
            }
            "endfacet" => {
                if corners.len() != 3 {
                    return Err(at(format!("facet with {} corners, not 3", corners.len())));
                }
                tris.push([corners[0], corners[1], corners[2]]);
                in_facet = false;
            }
            other => return Err(at(format!("unknown keyword \"{other}\""))),
        }
    }
    if in_facet {
        return Err("the last facet has no \"endfacet\" (truncated?)".into());
    }
    Ok(tris)
}

/// Three finite numbers from `words`.
fn three_numbers<'a>(
    mut words: impl Iterator<Item = &'a str>,
) -> std::result::Result<DVec3, String> {
    let mut v = [0.0; 3];
    for x in &mut v {
        let w = words.next().ok_or("fewer than 3 coordinates")?;
        *x = w
            .parse::<f64>()
            .map_err(|_| format!("\"{w}\" is not a number"))?;
        if !x.is_finite() {
            return Err(format!("coordinate {w} is not finite"));
        }
    }
    Ok(DVec3::from_array(v))
}

/// A Wavefront OBJ's faces: `v x y z [w]` vertices and `f` faces of three or more corners
/// (`i`, `i/t`, `i//n` or `i/t/n`; negative indices count back from the last vertex), a
/// polygon split into a fan of triangles from its first corner. Every other statement
/// (normals, texture coordinates, groups, materials, lines) is skipped.
pub fn read_obj(text: &str) -> std::result::Result<Vec<Corners>, String> {
    let mut verts: Vec<DVec3> = Vec::new();
    let mut tris = Vec::new();
    let mut face = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |reason: String| format!("line {}: {reason}", n + 1);
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => verts.push(three_numbers(words).map_err(at)?),
            Some("f") => {
                face.clear();
                for w in words {
                    face.push(obj_index(w, verts.len()).map_err(at)?);
                }
                if face.len() < 3 {
                    return Err(at(format!("a face needs 3 corners, got {}", face.len())));
                }
                for k in 1..face.len() - 1 {
                    tris.push([verts[face[0]], verts[face[k]], verts[face[k + 1]]]);
                }
            }
            _ => {}
        }
    }
    Ok(tris)
}

/// The vertex a face corner `word` names among the `n` vertices read so far (from 1, or
/// negative from the last).
fn obj_index(word: &str, n: usize) -> std::result::Result<usize, String> {
    let head = word.split('/').next().unwrap_or_default();
    let i: i64 = head
        .parse()
        .map_err(|_| format!("face corner \"{word}\" is not a vertex index"))?;
    let k = if i > 0 { i - 1 } else { n as i64 + i };
    if i == 0 || k < 0 || k >= n as i64 {
        return Err(format!("face corner {i} names no vertex ({n} read so far)"));
    }
    Ok(k as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::make::binary_stl as binary;

    const UNIT: Corners = [DVec3::ZERO, DVec3::X, DVec3::Y];

    #[test]
    fn ascii_stl_with_a_bare_solid_line_reads_in_f64() {
        let text = "solid\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0.1000000000000001 1 0\n  endloop\n endfacet\nendsolid\n";
        let t = read_stl(text.as_bytes()).expect("reads");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0][2].x, 0.1000000000000001);
    }

    #[test]
    fn binary_stl_even_with_a_solid_header_reads_and_truncation_is_refused() {
        let b = binary(&[UNIT, UNIT], "solid made by some CAD tool");
        assert_eq!(read_stl(&b).expect("reads"), vec![UNIT, UNIT]);
        let e = read_stl(&b[..b.len() - 7]).expect_err("truncated");
        assert!(
            e.contains("counts 2 triangles") && e.contains("177 bytes"),
            "{e}"
        );
        // A count far beyond the file is bounded by the file's size, not allocated.
        let mut huge = b.clone();
        huge[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(read_stl(&huge).expect_err("huge").contains("4294967295"));
        assert!(read_stl(&[1, 2, 3])
            .expect_err("short")
            .contains("too short"));
        let mut nan = b;
        nan[84 + 12..84 + 16].copy_from_slice(&f32::NAN.to_le_bytes());
        assert_eq!(
            read_stl(&nan).expect_err("nan"),
            "triangle 1: a corner is not finite"
        );
    }

    #[test]
    fn ascii_faults_name_their_line() {
        let bad = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 nan\n";
        assert_eq!(
            read_ascii_stl(bad).expect_err("nan"),
            "line 4: coordinate nan is not finite"
        );
        let short = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\n";
        assert_eq!(
            read_ascii_stl(short).expect_err("two corners"),
            "line 7: facet with 2 corners, not 3"
        );
        assert!(read_ascii_stl("solid\nfacet\n")
            .expect_err("open")
            .contains("truncated"));
    }

    #[test]
    fn obj_polygons_become_fans_and_bad_indices_are_named() {
        let text =
            "# a square\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 -1//1\n";
        let t = read_obj(text).expect("reads");
        assert_eq!(t.len(), 2);
        assert_eq!(t[1], [DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0), DVec3::Y]);
        assert_eq!(
            read_obj("v 0 0 0\nf 1 2 3\n").expect_err("index"),
            "line 2: face corner 2 names no vertex (1 read so far)"
        );
    }
}
