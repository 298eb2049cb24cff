//! Walls from CAD: triangle meshes read from STL or OBJ files (`read.rs`), welded and sorted
//! into flat faces (`topology.rs`), indexed by a cell grid (`grid.rs`), touched by spheres at
//! their closest face, edge or vertex without counting a shared one twice (`contact.rs`).
//!
//! A mesh is kept in its scene placement (the file's coordinates scaled, turned and moved
//! once on load); its motion moves it as a body, and a grain is placed in that frame as for
//! every wall ([`crate::walls::interact::WallRuntime::placed`]), so a mesh that a later force
//! law moves needs only a pose. A mesh wall is a union of [`MeshPart`]s, one per wall member:
//! each flat face is a member (faces share members beyond [`MAX_UNION_MEMBERS`]), so each
//! distinct contact of a grain with the mesh keeps its own history, and a grain rolling over
//! a flat face made of many triangles keeps one.

pub mod contact;
pub mod grid;
pub mod inner;
pub mod make;
pub mod read;
pub mod sweep;
pub mod topology;

use std::path::Path;
use std::sync::Arc;

use glam::{DQuat, DVec3};

use super::{Shape, MAX_UNION_MEMBERS};
use crate::{Error, Result};
use grid::Grid;
use topology::Topology;

/// How a mesh file is placed in the scene: scaled about the file's origin, turned about the
/// x, then y, then z axis, then moved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Factor from the file's units to metres.
    pub scale: f64,
    /// Angles about x, y and z (rad), applied in that order.
    pub rotate: DVec3,
    /// Translation (m).
    pub translate: DVec3,
}

impl Placement {
    /// Where the file's point `x` goes.
    pub fn apply(&self, x: DVec3) -> DVec3 {
        let turn = DQuat::from_rotation_z(self.rotate.z)
            * DQuat::from_rotation_y(self.rotate.y)
            * DQuat::from_rotation_x(self.rotate.x);
        turn * (self.scale * x) + self.translate
    }
}

/// A triangle mesh in its scene placement, with its topology and grid.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    /// Vertices, triangles, normals, neighbours and flat faces.
    pub topo: Topology,
    /// The wall member of each flat face.
    pub member: Vec<u8>,
    /// Number of members.
    pub members: usize,
    /// The cell grid over the triangles.
    grid: Grid,
}

/// One member of a mesh wall: the flat faces of `mesh` with member index `member`.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshPart {
    /// The whole mesh (shared by its parts).
    pub mesh: Arc<TriMesh>,
    /// Which member this part is.
    pub member: usize,
}

impl TriMesh {
    /// The mesh of the triangles `tris`, placed by `place`; a refusal names the triangle.
    pub fn new(tris: &[read::Corners], place: &Placement) -> std::result::Result<Self, String> {
        let placed: Vec<read::Corners> = tris.iter().map(|t| t.map(|x| place.apply(x))).collect();
        let topo = Topology::new(&placed)?;
        let boxes: Vec<(DVec3, DVec3)> = topo
            .triangles
            .iter()
            .map(|c| {
                let [a, b, d] = c.map(|k| topo.vertices[k as usize]);
                (a.min(b).min(d), a.max(b).max(d))
            })
            .collect();
        let mut grid = Grid::new(&boxes);
        // A triangle inside its flat face: a neighbour of the face across each edge, and no
        // larger than a cell.
        let inside: Vec<bool> = (0..topo.triangles.len())
            .map(|t| {
                let f = topo.face[t];
                let across = topo.across[t]
                    .iter()
                    .all(|&a| a != topology::NONE && topo.face[a as usize] == f);
                across && (boxes[t].1 - boxes[t].0).max_element() <= grid.cell_size()
            })
            .collect();
        grid.mark_faces(&topo.face, &inside, |t| {
            let corner = topo.triangles[t as usize][0] as usize;
            (topo.normals[t as usize], topo.vertices[corner])
        });
        let (member, members) = topo.members(MAX_UNION_MEMBERS);
        Ok(TriMesh {
            topo,
            member,
            members,
            grid,
        })
    }

    /// The mesh in the STL or OBJ file at `path`, placed by `place`.
    pub fn load(path: &Path, place: &Placement) -> Result<Self> {
        let tris = read::read_triangles(path)?;
        TriMesh::new(&tris, place).map_err(|reason| Error::Format {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// The wall's shape: a union of one [`MeshPart`] per member.
    pub fn into_shape(self) -> Shape {
        let mesh = Arc::new(self);
        Shape::Union(
            (0..mesh.members)
                .map(|member| {
                    Shape::Mesh(MeshPart {
                        mesh: mesh.clone(),
                        member,
                    })
                })
                .collect(),
        )
    }

    /// One line saying what the mesh is: triangles, vertices, flat faces, open and
    /// non-manifold edges.
    pub fn summary(&self) -> String {
        let t = &self.topo;
        format!(
            "{} triangles, {} vertices, {} flat faces, {} open edges, {} non-manifold edges",
            t.triangles.len(),
            t.vertices.len(),
            t.faces,
            t.open_edges,
            t.non_manifold_edges
        )
    }
}

impl MeshPart {
    /// The part's triangles as polygons over the vertices they use (for output).
    pub fn polygons(&self) -> (Vec<DVec3>, Vec<Vec<usize>>) {
        let t = &self.mesh.topo;
        let mut index = vec![usize::MAX; t.vertices.len()];
        let mut verts = Vec::new();
        let mut polys = Vec::new();
        for (k, c) in t.triangles.iter().enumerate() {
            if self.mesh.member[t.face[k] as usize] as usize != self.member {
                continue;
            }
            polys.push(
                c.iter()
                    .map(|&v| {
                        let v = v as usize;
                        if index[v] == usize::MAX {
                            index[v] = verts.len();
                            verts.push(t.vertices[v]);
                        }
                        index[v]
                    })
                    .collect(),
            );
        }
        (verts, polys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    /// A scene of one glass bead above a mesh wall read from `file` (relative to `dir`).
    fn scene(file: &str, extra: &str) -> Scene {
        let toml = format!(
            r#"
[simulation]
duration = 0.01
dt = 1e-6
[contact]
normal = "hertz"
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 7e7
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3
[[particles]]
type = "list"
material = "glass"
spheres = [{{ pos = [0.5, 0.5, 0.0009], radius = 0.001 }}]
[[walls]]
type = "mesh"
material = "glass"
path = "{file}"
{extra}
"#
        );
        Scene::from_toml(&toml, "mesh").expect("parses")
    }

    #[test]
    fn a_scene_reads_its_mesh_relative_to_itself_placed_and_refuses_bad_files_by_name() {
        let dir = std::env::temp_dir().join(format!("grainflow-mesh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        // A millimetre square at z = 10 mm, scaled to metres and turned upside down about x
        // and moved down by 10 mm: the plane z = 0 (its normal now −z, touched either side).
        let square = make::rectangle([0.0; 2], [1000.0; 2], 10.0, 4, 4);
        std::fs::write(dir.join("floor.stl"), make::ascii_stl(&square, "floor")).expect("write");
        let s = scene(
            "floor.stl",
            "scale = 1e-3\nrotate = [3.141592653589793, 0, 0]\ntranslate = [0, 1, 0.01]",
        );
        assert!(s.problems().is_empty(), "{:?}", s.problems());
        // The scale is the length of the file's unit, and takes a unit as every length does.
        let with_units = scene(
            "floor.stl",
            "scale = \"1 mm\"\nrotate = [\"3.141592653589793 rad\", 0, 0]\ntranslate = [0, \"1 m\", \"10 mm\"]",
        );
        assert_eq!(with_units, s);
        let again = Scene::from_toml(&s.to_toml().expect("writes"), "again").expect("re-parses");
        assert_eq!(again, s);
        let sim = crate::sim::Simulation::new(s, &dir).expect("builds");
        let wall = &sim.world.walls[0];
        let Some(Shape::Mesh(part)) = wall.shape.members().first() else {
            panic!("a mesh wall: {:?}", wall.shape);
        };
        assert_eq!(
            part.mesh.summary(),
            "32 triangles, 25 vertices, 1 flat faces, 16 open edges, 0 non-manifold edges"
        );
        let c = wall
            .contact(DVec3::new(0.5, 0.5, 0.0009), 0.001)
            .expect("touches");
        assert!(
            (c.overlap - 1e-4).abs() < 1e-15 && c.normal.z == -1.0,
            "{c:?}"
        );
        // A sliver in the file is refused with the file, the triangle and the reason.
        let mut bad = square.clone();
        bad[7][2] = bad[7][1];
        std::fs::write(dir.join("bad.stl"), make::ascii_stl(&bad, "bad")).expect("write");
        let e = crate::sim::Simulation::new(scene("bad.stl", ""), &dir)
            .expect_err("refused")
            .to_string();
        assert!(e.ends_with("bad.stl: triangle 8: degenerate (its corners coincide or lie on a line after welding within 1e-9 of the mesh's size)"), "{e}");
        let e = crate::sim::Simulation::new(scene("none.obj", ""), &dir)
            .expect_err("refused")
            .to_string();
        assert!(e.contains("none.obj"), "{e}");
        let bad_scale = scene("floor.stl", "scale = -1");
        assert_eq!(
            bad_scale.problems()[0].to_string(),
            "walls[0].scale: must be a finite number > 0, got -1"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn every_kind_of_bad_file_is_refused_naming_the_file_the_triangle_or_line_and_why() {
        let dir = std::env::temp_dir().join(format!("grainflow-bad-mesh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let one = [[DVec3::ZERO, DVec3::X, DVec3::Y]];
        let mut nan_binary = make::binary_stl(&one, "nan");
        nan_binary[84 + 12 + 4..84 + 12 + 8].copy_from_slice(&f32::INFINITY.to_le_bytes());
        let sliver = [DVec3::ZERO, DVec3::X, DVec3::new(2.0, 0.0, 0.0)];
        let cases: [(&str, Vec<u8>, &str); 7] = [
            ("inf.stl", nan_binary, "triangle 1: a corner is not finite"),
            (
                "nan.stl",
                "solid\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 inf 0\n".into(),
                "line 5: coordinate inf is not finite",
            ),
            ("nan.obj", "v 0 0 0\nv NaN 1 0\n".into(), "line 2: coordinate NaN is not finite"),
            (
                "line.stl",
                make::ascii_stl(&[one[0], sliver], "line").into_bytes(),
                "triangle 2: degenerate (its corners coincide or lie on a line after welding within 1e-9 of the mesh's size)",
            ),
            ("bare.stl", "solid\n".into(), "no triangles"),
            (
                "index.obj",
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 -4\n".into(),
                "line 5: face corner -4 names no vertex (3 read so far)",
            ),
            (
                "word.stl",
                "solid part\nfacet normal 0 0 1\nouter loop\nvertx 0 0 0\n".into(),
                "line 4: unknown keyword \"vertx\"",
            ),
        ];
        let place = Placement {
            scale: 1.0,
            rotate: DVec3::ZERO,
            translate: DVec3::ZERO,
        };
        for (name, bytes, reason) in cases {
            let path = dir.join(name);
            std::fs::write(&path, bytes).expect("writes");
            let e = TriMesh::load(&path, &place).expect_err(name).to_string();
            assert_eq!(e, format!("{}: {reason}", path.display()));
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
