//! Triangle meshes of simple shapes, for the validation against the analytic walls and the
//! example scenes' STL files, and an ASCII STL writer.

use std::fmt::Write as _;

use glam::DVec3;

use super::read::Corners;

/// The rectangle from `lo` to `hi` in the plane z = `z`, as `nx` × `ny` squares of two
/// triangles each, normals along +z.
pub fn rectangle(lo: [f64; 2], hi: [f64; 2], z: f64, nx: usize, ny: usize) -> Vec<Corners> {
    let p = |i: usize, j: usize| {
        DVec3::new(
            lo[0] + (hi[0] - lo[0]) * i as f64 / nx as f64,
            lo[1] + (hi[1] - lo[1]) * j as f64 / ny as f64,
            z,
        )
    };
    let mut tris = Vec::with_capacity(2 * nx * ny);
    for i in 0..nx {
        for j in 0..ny {
            tris.push([p(i, j), p(i + 1, j), p(i + 1, j + 1)]);
            tris.push([p(i, j), p(i + 1, j + 1), p(i, j + 1)]);
        }
    }
    tris
}

/// The surface of the box from `lo` to `hi`: two triangles per face, normals outwards.
pub fn cuboid(lo: DVec3, hi: DVec3) -> Vec<Corners> {
    let c = |k: usize| {
        DVec3::new(
            if k & 1 == 0 { lo.x } else { hi.x },
            if k & 2 == 0 { lo.y } else { hi.y },
            if k & 4 == 0 { lo.z } else { hi.z },
        )
    };
    // Each face's corners counter-clockwise seen from outside.
    let faces = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    faces
        .iter()
        .flat_map(|f| [[c(f[0]), c(f[1]), c(f[2])], [c(f[0]), c(f[2]), c(f[3])]])
        .collect()
}

/// The side of the frustum about the z axis from radius `r0` at z = `z0` to `r1` at `z1`,
/// open at both ends, as `n` segments round (each a quad of two triangles) and `m` along;
/// its corners lie on the exact surface.
pub fn frustum(r0: f64, r1: f64, z0: f64, z1: f64, n: usize, m: usize) -> Vec<Corners> {
    let p = |i: usize, j: usize| {
        let a = std::f64::consts::TAU * i as f64 / n as f64;
        let s = j as f64 / m as f64;
        let r = r0 + (r1 - r0) * s;
        DVec3::new(r * a.cos(), r * a.sin(), z0 + (z1 - z0) * s)
    };
    let mut tris = Vec::with_capacity(2 * n * m);
    for j in 0..m {
        for i in 0..n {
            let k = (i + 1) % n;
            tris.push([p(i, j), p(k, j), p(k, j + 1)]);
            tris.push([p(i, j), p(k, j + 1), p(i, j + 1)]);
        }
    }
    tris
}

/// The triangles `tris` as an ASCII STL solid named `name` (each corner to 17 significant
/// digits, so it reads back to the bit).
pub fn ascii_stl(tris: &[Corners], name: &str) -> String {
    let mut s = format!("solid {name}\n");
    for t in tris {
        let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
        let _ = writeln!(
            s,
            "  facet normal {:e} {:e} {:e}\n    outer loop",
            n.x, n.y, n.z
        );
        for v in t {
            let _ = writeln!(s, "      vertex {:e} {:e} {:e}", v.x, v.y, v.z);
        }
        s.push_str("    endloop\n  endfacet\n");
    }
    let _ = writeln!(s, "endsolid {name}");
    s
}
