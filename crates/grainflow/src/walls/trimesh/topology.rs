//! A triangle soup made into a mesh: corners welded within a tolerance, degenerate triangles
//! refused, each edge's neighbours found (open and non-manifold edges counted), and the
//! triangles grouped into flat faces: edge-connected sets of coplanar triangles that act as
//! one surface in contact.

use std::collections::HashMap;

use glam::DVec3;

use super::read::Corners;

/// Corners closer than this fraction of the mesh's bounding-box diagonal are one vertex.
pub const WELD: f64 = 1e-9;
/// Neighbours whose normals differ by less than this angle (rad, as its sine) lie in one face.
pub const COPLANAR: f64 = 1e-6;
/// A triangle whose doubled area is below this fraction of its longest edge squared is
/// degenerate (a sliver whose normal round-off decides).
pub const SLIVER: f64 = 1e-12;
/// No neighbour across an edge (an open edge).
pub const NONE: u32 = u32::MAX;

/// Welded vertices and triangles, with what contact needs to know about their neighbours.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// Vertices (m).
    pub vertices: Vec<DVec3>,
    /// Corners of each triangle (indices into `vertices`).
    pub triangles: Vec<[u32; 3]>,
    /// Unit normal of each triangle, by the right-hand rule over its corners.
    pub normals: Vec<DVec3>,
    /// Per triangle and edge k (from corner k to corner k + 1), the triangle across it.
    pub across: Vec<[u32; 3]>,
    /// The flat face each triangle belongs to.
    pub face: Vec<u32>,
    /// Number of flat faces.
    pub faces: usize,
    /// Per vertex, its first entry in `vertex_faces`; one more at the end.
    pub vertex_start: Vec<u32>,
    /// The flat faces around each vertex, ascending.
    pub vertex_faces: Vec<u32>,
    /// Edges with one triangle.
    pub open_edges: usize,
    /// Edges with more than two triangles.
    pub non_manifold_edges: usize,
}

impl Topology {
    /// The mesh of the triangles `tris` (already placed); a refusal names the triangle
    /// (counting from 1) and the reason.
    pub fn new(tris: &[Corners]) -> Result<Topology, String> {
        if tris.is_empty() {
            return Err("no triangles".into());
        }
        let (vertices, triangles) = weld(tris);
        let mut normals = Vec::with_capacity(triangles.len());
        for (t, c) in triangles.iter().enumerate() {
            let [a, b, d] = c.map(|k| vertices[k as usize]);
            let n = (b - a).cross(d - a);
            let longest = (b - a)
                .length_squared()
                .max((d - b).length_squared())
                .max((a - d).length_squared());
            if c[0] == c[1] || c[1] == c[2] || c[2] == c[0] || n.length() <= SLIVER * longest {
                return Err(format!(
                    "triangle {}: degenerate (its corners coincide or lie on a line after welding within {WELD:e} of the mesh's size)",
                    t + 1
                ));
            }
            // Divided, not multiplied by the inverse: an axis-aligned normal is then exact.
            normals.push(n / n.length());
        }
        let mut topo = Topology {
            vertices,
            triangles,
            normals,
            ..Topology::default()
        };
        topo.link_edges();
        topo.group_faces();
        topo.list_vertex_faces();
        Ok(topo)
    }

    /// Finds the triangle across each edge, and counts open and non-manifold edges (of a
    /// non-manifold edge, each triangle sees the next one round the list).
    fn link_edges(&mut self) {
        let mut edges: HashMap<(u32, u32), Vec<(u32, usize)>> = HashMap::new();
        for (t, c) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (c[k], c[(k + 1) % 3]);
                edges
                    .entry((a.min(b), a.max(b)))
                    .or_default()
                    .push((t as u32, k));
            }
        }
        self.across = vec![[NONE; 3]; self.triangles.len()];
        for list in edges.values() {
            match list.len() {
                1 => self.open_edges += 1,
                2 => {}
                _ => self.non_manifold_edges += 1,
            }
            if list.len() >= 2 {
                for (i, &(t, k)) in list.iter().enumerate() {
                    self.across[t as usize][k] = list[(i + 1) % list.len()].0;
                }
            }
        }
    }

    /// Whether triangles `t` and `u`, sharing their edge `k` of `t`, are coplanar and lie on
    /// either side of it (not folded onto each other), whatever their corners' order.
    fn coplanar(&self, t: usize, k: usize, u: usize) -> bool {
        if self.normals[t].cross(self.normals[u]).length() > COPLANAR {
            return false;
        }
        let c = self.triangles[t];
        let (a, b) = (c[k], c[(k + 1) % 3]);
        let far = |tri: [u32; 3]| {
            let v = tri.into_iter().find(|&v| v != a && v != b).unwrap_or(a);
            self.vertices[v as usize] - self.vertices[a as usize]
        };
        let edge = self.vertices[b as usize] - self.vertices[a as usize];
        let side = |d: DVec3| d - edge * (d.dot(edge) / edge.length_squared());
        side(far(c)).dot(side(far(self.triangles[u]))) < 0.0
    }

    /// Numbers the flat faces: each triangle's face is that of the first triangle (in file
    /// order) reached from it across coplanar edges.
    fn group_faces(&mut self) {
        let n = self.triangles.len();
        self.face = vec![NONE; n];
        let mut stack = Vec::new();
        for seed in 0..n {
            if self.face[seed] != NONE {
                continue;
            }
            let id = self.faces as u32;
            self.faces += 1;
            self.face[seed] = id;
            stack.push(seed);
            while let Some(t) = stack.pop() {
                for k in 0..3 {
                    let u = self.across[t][k];
                    if u != NONE && self.face[u as usize] == NONE && self.coplanar(t, k, u as usize)
                    {
                        self.face[u as usize] = id;
                        stack.push(u as usize);
                    }
                }
            }
        }
    }

    /// Lists the flat faces around each vertex.
    fn list_vertex_faces(&mut self) {
        let mut around: Vec<Vec<u32>> = vec![Vec::new(); self.vertices.len()];
        for (t, c) in self.triangles.iter().enumerate() {
            for &v in c {
                around[v as usize].push(self.face[t]);
            }
        }
        self.vertex_start = Vec::with_capacity(around.len() + 1);
        self.vertex_start.push(0);
        for mut list in around {
            list.sort_unstable();
            list.dedup();
            self.vertex_faces.extend(list);
            self.vertex_start.push(self.vertex_faces.len() as u32);
        }
    }

    /// The flat faces around vertex `v`.
    #[inline]
    pub fn faces_at(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.vertex_faces[self.vertex_start[v] as usize..self.vertex_start[v + 1] as usize]
    }

    /// The wall member of each flat face, and how many members: face f is member f when
    /// there are at most `most`; else faces take members so that faces sharing a vertex differ
    /// (face f the first free one from f mod `most` on), so that two faces touching one grain
    /// keep their own contact histories.
    pub fn members(&self, most: usize) -> (Vec<u8>, usize) {
        if self.faces <= most {
            return ((0..self.faces).map(|f| f as u8).collect(), self.faces);
        }
        // Faces sharing a vertex with each face.
        let mut near: Vec<Vec<u32>> = vec![Vec::new(); self.faces];
        for v in 0..self.vertices.len() as u32 {
            let fs = self.faces_at(v);
            for &f in fs {
                near[f as usize].extend(fs.iter().filter(|&&g| g != f));
            }
        }
        let mut member = vec![u8::MAX; self.faces];
        let mut used = vec![false; most];
        for f in 0..self.faces {
            used.fill(false);
            for &g in &near[f] {
                if (g as usize) < f {
                    used[member[g as usize] as usize] = true;
                }
            }
            let first = (0..most)
                .map(|k| (f + k) % most)
                .find(|&m| !used[m])
                .unwrap_or(f % most);
            member[f] = first as u8;
        }
        (member, most)
    }
}

/// Welds the corners of `tris` closer than [`WELD`] times the bounding-box diagonal (each
/// vertex where its first corner is): the vertices and each triangle's corner indices.
fn weld(tris: &[Corners]) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let (lo, hi) = tris.iter().flatten().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), &v| (lo.min(v), hi.max(v)),
    );
    let tol = WELD * (hi - lo).length();
    let inv = if tol > 0.0 { 1.0 / tol } else { 0.0 };
    let cell = |v: DVec3| ((v - lo) * inv).floor().as_i64vec3().to_array();
    let mut cells: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    let mut vertices: Vec<DVec3> = Vec::new();
    let mut index = |v: DVec3| -> u32 {
        let c = cell(v);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let key = [c[0] + dx, c[1] + dy, c[2] + dz];
                    if let Some(list) = cells.get(&key) {
                        if let Some(&k) = list
                            .iter()
                            .find(|&&k| (vertices[k as usize] - v).length() <= tol)
                        {
                            return k;
                        }
                    }
                }
            }
        }
        let k = vertices.len() as u32;
        vertices.push(v);
        cells.entry(c).or_default().push(k);
        k
    };
    let triangles = tris.iter().map(|t| t.map(&mut index)).collect();
    (vertices, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The square [0, 1]² at z = 0 as two triangles, and a third folded up along x = 1.
    fn square_and_wing() -> Vec<Corners> {
        let p = |x: f64, y: f64, z: f64| DVec3::new(x, y, z);
        vec![
            [p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(1.0, 1.0, 0.0)],
            // Written with its corners a hair apart and in the other order: still welded
            // and still in the same flat face.
            [p(0.0, 0.0, 0.0), p(0.0, 1.0, 0.0), p(1.0, 1.0, 1e-12)],
            [p(1.0, 0.0, 0.0), p(1.0, 0.0, 1.0), p(1.0, 1.0, 0.0)],
        ]
    }

    #[test]
    fn welded_corners_coplanar_faces_and_open_edges() {
        let t = Topology::new(&square_and_wing()).expect("builds");
        assert_eq!(t.vertices.len(), 5);
        assert_eq!(t.face, vec![0, 0, 1]);
        assert_eq!(t.faces, 2);
        // Open: three sides of the square and the wing's two free edges; the diagonal and
        // the hinge are shared.
        assert_eq!((t.open_edges, t.non_manifold_edges), (5, 0));
        assert_eq!(t.faces_at(0), &[0]);
        assert_eq!(t.faces_at(1), &[0, 1]);
        let (member, n) = t.members(256);
        assert_eq!((member, n), (vec![0, 1], 2));
    }

    #[test]
    fn degenerate_triangles_are_named() {
        let mut tris = square_and_wing();
        tris.push([DVec3::ZERO, DVec3::X, DVec3::new(2.0, 0.0, 0.0)]);
        let e = Topology::new(&tris).expect_err("a line");
        assert!(e.starts_with("triangle 4: degenerate"), "{e}");
        tris[3] = [DVec3::ZERO, DVec3::ZERO, DVec3::Y];
        assert!(Topology::new(&tris)
            .expect_err("coincide")
            .starts_with("triangle 4"));
    }

    #[test]
    fn faces_beyond_the_members_share_them_but_not_with_a_neighbour() {
        // A zigzag strip of 12 flat faces (each two triangles, tilted up and down in turn),
        // face k sharing vertices with faces k ± 1 only: with 4 members, neighbours differ.
        let p = |k: usize, y: f64| DVec3::new(k as f64, y, 0.3 * (k % 2) as f64);
        let tris: Vec<Corners> = (0..12)
            .flat_map(|k| {
                [
                    [p(k, 0.0), p(k + 1, 0.0), p(k + 1, 1.0)],
                    [p(k, 0.0), p(k + 1, 1.0), p(k, 1.0)],
                ]
            })
            .collect();
        let t = Topology::new(&tris).expect("builds");
        assert_eq!(t.faces, 12);
        let (member, n) = t.members(4);
        assert_eq!(n, 4);
        for k in 0..11 {
            assert_ne!(member[k], member[k + 1], "faces {k} and {}", k + 1);
        }
    }
}
