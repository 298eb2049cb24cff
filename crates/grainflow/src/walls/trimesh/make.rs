//! Triangle meshes of simple shapes, for the validation against the analytic walls and the
//! example scenes' STL files, and STL writers.

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

/// The rotating drum of `scenes/drum-lifters.toml` in millimetres: a closed cylinder of radius
/// 40 mm about the z axis from z = −10 to 10 mm, 60 segments round, its ends as fans from the
/// axis, with six lifters: radial fins 6 mm high along the whole length, every 60° from the
/// x axis, each on a corner line of the mantle (252 triangles).
pub fn drum_mm() -> Vec<Corners> {
    let (r, half, n) = (40.0, 10.0, 60);
    let mut tris = frustum(r, r, -half, half, n, 1);
    let rim = |i: usize, z: f64| {
        let a = std::f64::consts::TAU * i as f64 / n as f64;
        DVec3::new(r * a.cos(), r * a.sin(), z)
    };
    for i in 0..n {
        let k = (i + 1) % n;
        tris.push([DVec3::new(0.0, 0.0, -half), rim(k, -half), rim(i, -half)]);
        tris.push([DVec3::new(0.0, 0.0, half), rim(i, half), rim(k, half)]);
    }
    for lifter in 0..6 {
        let i = lifter * n / 6;
        let inner = |z: f64| rim(i, z) * DVec3::new(34.0 / r, 34.0 / r, 1.0);
        tris.push([inner(-half), rim(i, -half), rim(i, half)]);
        tris.push([inner(-half), rim(i, half), inner(half)]);
    }
    tris
}

/// An icosahedron of `radius` about `center` with each triangle split in four `levels`
/// times, the new vertices pushed out onto the sphere: inscribed, with icosahedral symmetry.
pub fn icosphere(center: DVec3, radius: f64, levels: usize) -> Vec<[DVec3; 3]> {
    let p = (1.0 + 5f64.sqrt()) / 2.0;
    let v = [
        (-1.0, p, 0.0),
        (1.0, p, 0.0),
        (-1.0, -p, 0.0),
        (1.0, -p, 0.0),
        (0.0, -1.0, p),
        (0.0, 1.0, p),
        (0.0, -1.0, -p),
        (0.0, 1.0, -p),
        (p, 0.0, -1.0),
        (p, 0.0, 1.0),
        (-p, 0.0, -1.0),
        (-p, 0.0, 1.0),
    ]
    .map(|(x, y, z)| DVec3::new(x, y, z).normalize());
    let faces = [
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    let mut tris: Vec<[DVec3; 3]> = faces.iter().map(|f| f.map(|i| v[i])).collect();
    // (a + b) is (b + a) to the bit: both triangles along an edge make the same midpoint.
    let mid = |a: DVec3, b: DVec3| (a + b).normalize();
    for _ in 0..levels {
        tris = tris
            .iter()
            .flat_map(|&[a, b, c]| {
                let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
                [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
            })
            .collect();
    }
    tris.iter()
        .map(|t| t.map(|x| center + x * radius))
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

/// A closed disk-shaped pad about the z axis: a cylinder of `radius` from z = `z0` to `z1`,
/// `n` segments round, its side as quads of two triangles and each end as a fan from its
/// centre; every triangle counter-clockwise seen from outside, so it encloses its volume
/// (that of the inscribed n-gon prism, (n/2) r² sin(2π/n) (z1 − z0)).
pub fn pad(radius: f64, z0: f64, z1: f64, n: usize) -> Vec<Corners> {
    let p = |i: usize, z: f64| {
        let a = std::f64::consts::TAU * (i % n) as f64 / n as f64;
        DVec3::new(radius * a.cos(), radius * a.sin(), z)
    };
    let (bottom, top) = (DVec3::new(0.0, 0.0, z0), DVec3::new(0.0, 0.0, z1));
    let mut tris = Vec::with_capacity(4 * n);
    for i in 0..n {
        tris.push([p(i, z0), p(i + 1, z0), p(i + 1, z1)]);
        tris.push([p(i, z0), p(i + 1, z1), p(i, z1)]);
        tris.push([top, p(i, z1), p(i + 1, z1)]);
        tris.push([bottom, p(i + 1, z0), p(i, z0)]);
    }
    tris
}

/// The footpad of `scenes/footpad.toml` in millimetres: a pad of radius 40 mm, 10 mm thick,
/// its sole at z = 0, 48 segments round (192 triangles).
pub fn footpad_mm() -> Vec<Corners> {
    pad(40.0, 0.0, 10.0, 48)
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

/// The triangles `tris` as a binary STL (corners rounded to f32, as the format holds them),
/// its 80-byte header beginning with `header`.
pub fn binary_stl(tris: &[Corners], header: &str) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    let n = header.len().min(80);
    b[..n].copy_from_slice(&header.as_bytes()[..n]);
    b.extend((tris.len() as u32).to_le_bytes());
    for t in tris {
        let normal = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
        for v in std::iter::once(normal).chain(t.iter().copied()) {
            for x in v.to_array() {
                b.extend((x as f32).to_le_bytes());
            }
        }
        b.extend([0u8; 2]);
    }
    b
}

/// The conical hopper of `scenes/hopper_mesh.toml` in millimetres: a cone from an orifice of
/// radius 6 mm at z = 0 to 25 mm at z = 30 mm under a cylinder of radius 25 mm up to
/// z = 80 mm, 32 segments round, open at both ends (128 triangles).
pub fn hopper_mm() -> Vec<Corners> {
    let mut tris = frustum(6.0, 25.0, 0.0, 30.0, 32, 1);
    tris.extend(frustum(25.0, 25.0, 30.0, 80.0, 32, 1));
    tris
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_footpad_is_footpad_mm_closed_with_the_prisms_volume() {
        // GRAINFLOW_BLESS=1 writes it again.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenes/meshes/footpad.stl"
        );
        let made = ascii_stl(&footpad_mm(), "footpad");
        if std::env::var_os("GRAINFLOW_BLESS").is_some() {
            std::fs::write(path, &made).expect("writes");
        }
        assert_eq!(std::fs::read_to_string(path).expect("shipped"), made);
        let back = super::super::read::read_stl(made.as_bytes()).expect("reads");
        assert_eq!(back, footpad_mm());
        let m = crate::rigid::MassProperties::of_mesh(&back, 1.0).expect("closed");
        let n = 48.0;
        let volume = 0.5 * n * 40f64.powi(2) * (std::f64::consts::TAU / n).sin() * 10.0;
        assert!(
            (m.mass / volume - 1.0).abs() <= 1e-12,
            "{} {volume}",
            m.mass
        );
        assert!((m.center - DVec3::new(0.0, 0.0, 5.0)).length() <= 1e-12);
    }

    #[test]
    fn the_shipped_hopper_mesh_is_hopper_mm_and_reads_back() {
        // GRAINFLOW_BLESS=1 writes it again.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenes/meshes/hopper.stl"
        );
        let made = binary_stl(&hopper_mm(), "grainflow hopper_mm(): conical hopper, mm");
        if std::env::var_os("GRAINFLOW_BLESS").is_some() {
            std::fs::write(path, &made).expect("writes");
        }
        let shipped = std::fs::read(path).expect("shipped");
        assert_eq!(shipped, made);
        let back = super::super::read::read_stl(&shipped).expect("reads");
        assert_eq!(back.len(), 128);
        let place = super::super::Placement {
            scale: 1e-3,
            rotate: DVec3::ZERO,
            translate: DVec3::ZERO,
        };
        let mesh = super::super::TriMesh::new(&back, &place).expect("builds");
        // Each quad of the cone and of the cylinder is one flat face; the rims are open.
        assert_eq!(mesh.topo.faces, 64);
        assert_eq!(
            (mesh.topo.open_edges, mesh.topo.non_manifold_edges),
            (64, 0)
        );
    }

    #[test]
    fn the_shipped_drum_is_drum_mm_with_its_lifters() {
        // GRAINFLOW_BLESS=1 writes it again.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenes/meshes/drum_lifters.stl"
        );
        let made = binary_stl(&drum_mm(), "grainflow drum_mm(): drum with six lifters, mm");
        if std::env::var_os("GRAINFLOW_BLESS").is_some() {
            std::fs::write(path, &made).expect("writes");
        }
        let shipped = std::fs::read(path).expect("shipped");
        assert_eq!(shipped, made);
        let back = super::super::read::read_stl(&shipped).expect("reads");
        let place = super::super::Placement {
            scale: 1e-3,
            rotate: DVec3::ZERO,
            translate: DVec3::ZERO,
        };
        let mesh = super::super::TriMesh::new(&back, &place).expect("builds");
        // 60 mantle quads, 2 end fans and 6 fins, each one flat face; each fin's outer edge is
        // a corner line of the mantle (three triangles meet there), its three others open.
        assert_eq!(
            mesh.summary(),
            "252 triangles, 134 vertices, 68 flat faces, 18 open edges, 6 non-manifold edges"
        );
    }
}
