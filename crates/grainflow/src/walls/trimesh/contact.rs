//! A sphere against a triangle mesh: the closest point of each nearby triangle and its
//! feature (face, edge or vertex; Ericson, Real-Time Collision Detection §5.1.5), one contact
//! per flat face (coplanar neighbours act as one surface), then the contacts the mesh's other
//! faces already make dropped: a shared edge or vertex counts once, and a face contact covers
//! the edges and vertices of its face, an edge contact its two vertices. What is left is one
//! contact per distinct place the sphere meets the mesh, each with the wall member of its
//! face, so its history is kept under (wall, member) and follows the grain across a face
//! however many triangles make it.

use glam::DVec3;

use super::topology::NONE;
use super::{MeshPart, TriMesh};
use crate::contact::Touch;

/// An edge or corner point closer than this fraction of the radius to the foot of the
/// perpendicular from the centre is touched with the face's normal.
const FOOT: f64 = 1e-9;

/// Most distinct flat faces one sphere's contacts are gathered from (the deepest are kept).
pub const MOST: usize = 16;

/// Where on a triangle its closest point to a sphere lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Inside the face.
    Face,
    /// On edge k (corner k to k + 1) of triangle `tri`.
    Edge {
        /// The triangle.
        tri: u32,
        /// Its edge.
        k: u8,
    },
    /// At a vertex (index into the mesh's vertices).
    Vertex(u32),
}

/// A sphere's contact with one flat face of a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    /// The flat face.
    pub face: u32,
    /// Where on it.
    pub feature: Feature,
    /// Distance from the centre (m).
    pub dist: f64,
    /// Normal and overlap.
    pub touch: Touch,
}

impl Found {
    /// Whether `self` is a better contact of one flat face than `other`: a face contact
    /// before an edge or vertex one (the sphere is over the face), then the nearer.
    fn beats(&self, other: &Found) -> bool {
        let face = |f: &Found| f.feature == Feature::Face;
        match (face(self), face(other)) {
            (true, false) => true,
            (false, true) => false,
            _ => self.dist < other.dist,
        }
    }
}

impl TriMesh {
    /// The closest point of triangle `t` to `p` and its feature (Ericson §5.1.5: the Voronoi
    /// regions of the corners, then of the edges, else the face).
    pub fn closest(&self, t: usize, p: DVec3) -> (DVec3, Feature) {
        let c = self.topo.triangles[t];
        let [a, b, d] = c.map(|k| self.topo.vertices[k as usize]);
        let edge = |k: u8| Feature::Edge { tri: t as u32, k };
        let (ab, ac, ap) = (b - a, d - a, p - a);
        let (d1, d2) = (ab.dot(ap), ac.dot(ap));
        if d1 <= 0.0 && d2 <= 0.0 {
            return (a, Feature::Vertex(c[0]));
        }
        let bp = p - b;
        let (d3, d4) = (ab.dot(bp), ac.dot(bp));
        if d3 >= 0.0 && d4 <= d3 {
            return (b, Feature::Vertex(c[1]));
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            return (a + ab * (d1 / (d1 - d3)), edge(0));
        }
        let cp = p - d;
        let (d5, d6) = (ab.dot(cp), ac.dot(cp));
        if d6 >= 0.0 && d5 <= d6 {
            return (d, Feature::Vertex(c[2]));
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            return (a + ac * (d2 / (d2 - d6)), edge(2));
        }
        let va = d3 * d6 - d5 * d4;
        if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
            let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            return (b + (d - b) * w, edge(1));
        }
        let denom = 1.0 / (va + vb + vc);
        (a + ab * (vb * denom) + ac * (vc * denom), Feature::Face)
    }

    /// The contact of a sphere at `p` of radius `r` with triangle `t`, if they touch. On the
    /// face, the normal is the triangle's towards the side the centre is on and the overlap
    /// r − |d| (a sheet touchable from both sides, as a plate); at an edge or vertex, towards
    /// the closest point, unless that is the foot of the perpendicular ([`FOOT`]).
    #[inline]
    fn candidate(&self, t: usize, p: DVec3, r: f64) -> Option<Found> {
        let n = self.topo.normals[t];
        let a = self.topo.vertices[self.topo.triangles[t][0] as usize];
        let d = (p - a).dot(n);
        if d.abs() >= r {
            return None;
        }
        let (q, feature) = self.closest(t, p);
        let face = self.topo.face[t];
        // On the face, or at an edge or corner right below the centre (where two triangles
        // of a flat face meet): the face's normal, not round-off's.
        if feature == Feature::Face || (p - q - d * n).length() <= FOOT * r {
            let normal = if d < 0.0 { n } else { -n };
            let touch = Touch {
                normal,
                overlap: r - d.abs(),
            };
            return Some(Found {
                face,
                feature,
                dist: d.abs(),
                touch,
            });
        }
        let touch = super::super::touch(p, r, q)?;
        Some(Found {
            face,
            feature,
            dist: r - touch.overlap,
            touch,
        })
    }

    /// The distinct contacts of a sphere at `p` (in the mesh's placement) of radius `r` into
    /// `out`, how many: the best of each flat face ([`Found::beats`]; at most [`MOST`] faces,
    /// the nearest), less those another face covers (see the module's doc).
    pub fn contacts(&self, p: DVec3, r: f64, out: &mut [Found; MOST]) -> usize {
        let mut n = 0;
        let reach = DVec3::splat(r);
        // Within one flat face (a floor, a chute's side, away from its rims) the face contact
        // is the only one: found among the triangles of the cell holding the foot of the
        // perpendicular, without visiting the others.
        match self.flat_contact(p, r) {
            Some(Some(f)) => {
                out[0] = f;
                return 1;
            }
            Some(None) => return 0,
            None => {}
        }
        self.grid.near(p - reach, p + reach, |t| {
            let Some(f) = self.candidate(t as usize, p, r) else {
                return;
            };
            if let Some(e) = out[..n].iter_mut().find(|e| e.face == f.face) {
                if f.beats(e) {
                    *e = f;
                }
            } else if n < MOST {
                out[n] = f;
                n += 1;
            } else if let Some(worst) = out.iter_mut().max_by(|a, b| a.dist.total_cmp(&b.dist)) {
                if f.dist < worst.dist {
                    *worst = f;
                }
            }
        });
        self.drop_covered(out, n)
    }

    /// The contact of a sphere at `p` of radius `r` when one flat face alone is within its
    /// reach ([`TriMesh::face_contact`]); `None` when the whole search must decide.
    #[inline]
    fn flat_contact(&self, p: DVec3, r: f64) -> Option<Option<Found>> {
        let reach = DVec3::splat(r);
        let (face, t) = self.grid.one_face(p - reach, p + reach)?;
        self.face_contact(face, t as usize, p, r)
    }

    /// The contact of a sphere at `p` of radius `r` with flat face `face` (of which `t0` is
    /// a triangle), the only face within its reach: `Some` when decided (the face's plane
    /// contact, or none, when the foot of the perpendicular lies in an inner cell; a face
    /// contact on a triangle listed in the foot's cell), `None` when the whole search must
    /// decide (near a rim).
    #[inline(always)]
    fn face_contact(&self, face: u32, t0: usize, p: DVec3, r: f64) -> Option<Option<Found>> {
        let n = self.topo.normals[t0];
        let a = self.topo.vertices[self.topo.triangles[t0][0] as usize];
        let d = (p - a).dot(n);
        let foot = p - n * d;
        if self.grid.inner_at(foot) {
            // Over the face where no rim is near: the plane's contact, without a triangle.
            return Some((d.abs() < r).then_some(Found {
                face,
                feature: Feature::Face,
                dist: d.abs(),
                touch: Touch {
                    normal: if d < 0.0 { n } else { -n },
                    overlap: r - d.abs(),
                },
            }));
        }
        self.foot_contact(face, foot, p, r)
    }

    /// The face contact of a sphere at `p` of radius `r` with flat face `face` on a triangle
    /// listed in the cell of `foot` ([`TriMesh::face_contact`] where the foot's cell is not
    /// inner); `None` when there is none.
    #[inline(never)]
    fn foot_contact(&self, face: u32, foot: DVec3, p: DVec3, r: f64) -> Option<Option<Found>> {
        self.grid
            .at(foot)
            .iter()
            .filter(|&&t| self.topo.face[t as usize] == face)
            .find_map(|&t| {
                self.candidate(t as usize, p, r)
                    .filter(|f| f.feature == Feature::Face)
            })
            .map(Some)
    }

    /// Removes from the first `n` of `found` the contacts another face covers, keeping the
    /// others in order; how many are left.
    fn drop_covered(&self, found: &mut [Found; MOST], n: usize) -> usize {
        let topo = &self.topo;
        let touched = |face: u32| {
            found[..n]
                .iter()
                .any(|f| f.face == face && f.feature == Feature::Face)
        };
        let mut keep = [true; MOST];
        for i in 0..n {
            keep[i] = match found[i].feature {
                Feature::Face => true,
                Feature::Edge { tri, k } => {
                    let across = topo.across[tri as usize][k as usize];
                    let shared = found[..i].iter().zip(&keep).any(|(g, &kept)| {
                        kept && matches!(g.feature, Feature::Edge { .. })
                            && self.edge_key(g.feature) == self.edge_key(found[i].feature)
                    });
                    !shared && (across == NONE || !touched(topo.face[across as usize]))
                }
                Feature::Vertex(_) => true,
            };
        }
        for i in 0..n {
            let Feature::Vertex(v) = found[i].feature else {
                continue;
            };
            let by_face = topo.faces_at(v).iter().any(|&f| touched(f));
            let by_edge = (0..n).any(|j| {
                keep[j]
                    && self
                        .edge_key(found[j].feature)
                        .is_some_and(|(a, b)| a == v || b == v)
            });
            let twice = (0..i).any(|j| keep[j] && found[j].feature == found[i].feature);
            keep[i] = !(by_face || by_edge || twice);
        }
        let mut m = 0;
        for i in 0..n {
            if keep[i] {
                found[m] = found[i];
                m += 1;
            }
        }
        m
    }

    /// The vertices of an edge feature, lower first.
    fn edge_key(&self, f: Feature) -> Option<(u32, u32)> {
        let Feature::Edge { tri, k } = f else {
            return None;
        };
        let c = self.topo.triangles[tri as usize];
        let (a, b) = (c[k as usize], c[(k as usize + 1) % 3]);
        Some((a.min(b), a.max(b)))
    }

    /// Whether some triangle of wall member `member` lies closer than `reach` to `p`.
    pub fn member_within(&self, member: usize, p: DVec3, reach: f64) -> bool {
        let mut near = false;
        let box_ = DVec3::splat(reach);
        self.grid.near(p - box_, p + box_, |t| {
            let t = t as usize;
            if near || self.member[self.topo.face[t] as usize] as usize != member {
                return;
            }
            let (q, _) = self.closest(t, p);
            near = (q - p).length_squared() < reach * reach;
        });
        near
    }
}

impl TriMesh {
    /// The contact of a sphere at `p` of radius `r` with each member of the mesh it touches,
    /// as (member, touch) in ascending member, how many: for each member what
    /// [`MeshPart::contact`] gives, from one search of the grid instead of one per member (a
    /// free wall tries each grain against all its members).
    pub fn member_contacts(&self, p: DVec3, r: f64) -> ([(usize, Touch); MOST], usize) {
        let mut found = [EMPTY; MOST];
        let n = self.contacts(p, r, &mut found);
        let mut out = [(0, EMPTY.touch); MOST];
        let mut m = 0;
        for f in &found[..n] {
            let member = self.member[f.face as usize] as usize;
            match out[..m].iter_mut().find(|e| e.0 == member) {
                // The last of equal overlaps, as `max_by` keeps.
                Some(e) if f.touch.overlap.total_cmp(&e.1.overlap).is_ge() => e.1 = f.touch,
                Some(_) => {}
                None => {
                    out[m] = (member, f.touch);
                    m += 1;
                }
            }
        }
        out[..m].sort_by_key(|e| e.0);
        (out, m)
    }
}

impl MeshPart {
    /// The contact of a sphere at `pos` of radius `r` with this member of the mesh: the
    /// deepest of the mesh's distinct contacts ([`TriMesh::contacts`]) on its faces.
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        if let Some(one) = self.mesh.flat_contact(pos, r) {
            return one
                .filter(|f| self.mesh.member[f.face as usize] as usize == self.member)
                .map(|f| f.touch);
        }
        let mut found = [EMPTY; MOST];
        let n = self.mesh.contacts(pos, r, &mut found);
        found[..n]
            .iter()
            .filter(|f| self.mesh.member[f.face as usize] as usize == self.member)
            .max_by(|a, b| a.touch.overlap.total_cmp(&b.touch.overlap))
            .map(|f| f.touch)
    }

    /// Whether a sphere at `pos` of radius `reach` may touch this member: some triangle of it
    /// is within `reach` (a bound on [`MeshPart::contact`], which drops covered contacts).
    pub fn may_touch(&self, pos: DVec3, reach: f64) -> bool {
        self.mesh.member_within(self.member, pos, reach)
    }
}

/// A placeholder entry of a contact buffer.
pub const EMPTY: Found = Found {
    face: NONE,
    feature: Feature::Face,
    dist: f64::INFINITY,
    touch: Touch {
        normal: DVec3::ZERO,
        overlap: 0.0,
    },
};

#[cfg(test)]
mod tests {
    use super::super::make::{cuboid, rectangle};
    use super::super::Placement;
    use super::*;
    use crate::walls::{Plane, Shape};

    const HERE: Placement = Placement {
        scale: 1.0,
        rotate: DVec3::ZERO,
        translate: DVec3::ZERO,
    };

    /// Every distinct contact of a sphere at `p` of radius `r` with `mesh`.
    fn all(mesh: &TriMesh, p: DVec3, r: f64) -> Vec<Found> {
        let mut out = [EMPTY; MOST];
        let n = mesh.contacts(p, r, &mut out);
        out[..n].to_vec()
    }

    #[test]
    fn within_one_flat_face_the_grid_gives_the_face_alone_and_near_a_rim_searches() {
        let mesh = TriMesh::new(&rectangle([0.0; 2], [1.0; 2], 0.0, 50, 50), &HERE).expect("ok");
        let r = 0.03;
        let inside = DVec3::new(0.4137, 0.5521, 0.01);
        let (face, t) = mesh
            .grid
            .one_face(inside - r, inside + r)
            .expect("one face");
        let f = mesh
            .face_contact(face, t as usize, inside, r)
            .flatten()
            .expect("over the face");
        assert!(f.feature == Feature::Face && (f.touch.overlap - (r - 0.01)).abs() <= 1e-15);
        // Near the rim, the cells hold no other face, but the centre is off the face.
        let off = DVec3::new(1.01, 0.5113, 0.0);
        assert!(mesh.grid.one_face(off - r, off + r).is_some());
        let c = all(&mesh, off, r);
        assert!(
            c.len() == 1 && matches!(c[0].feature, Feature::Edge { .. }),
            "{c:?}"
        );
    }

    #[test]
    fn a_plane_of_many_triangles_touches_as_the_plane_does_everywhere() {
        // The square [-1, 1]² at z = 0 as 2 and as 2 × 30 × 30 triangles against the plane
        // z = 0: one contact, the same normal and overlap to the bit, over faces, shared
        // edges and shared vertices alike.
        let plane = Plane {
            point: DVec3::ZERO,
            normal: DVec3::Z,
            both: false,
        };
        for n in [1, 30] {
            let mesh = TriMesh::new(&rectangle([-1.0; 2], [1.0; 2], 0.0, n, n), &HERE).expect("ok");
            assert_eq!(mesh.members, 1);
            let shape = mesh.into_shape();
            for k in 0..400 {
                let x = -0.9 + 1.8 * (k % 20) as f64 / 19.0;
                let y = -0.9 + 1.8 * (k / 20) as f64 / 19.0;
                let p = DVec3::new(x, y, 0.07);
                let want = plane.contact(p, 0.1).expect("touches");
                let got = shape.contact(p, 0.1).expect("touches");
                assert_eq!(got, want, "at {p} with {n}² squares");
            }
        }
    }

    #[test]
    fn a_convex_edge_and_corner_count_once_and_a_concave_corner_three_times() {
        let mesh = TriMesh::new(&cuboid(DVec3::ZERO, DVec3::ONE), &HERE).expect("ok");
        assert_eq!((mesh.members, mesh.topo.open_edges), (6, 0));
        let r = 0.1;
        // Outside, off the edge x = 1, z = 1 by 0.05 along the diagonal: one edge contact.
        let off = 0.05 / 2f64.sqrt();
        let c = all(&mesh, DVec3::new(1.0 + off, 0.5, 1.0 + off), r);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(matches!(c[0].feature, Feature::Edge { .. }));
        assert!((c[0].touch.overlap - 0.05).abs() < 1e-15);
        // Off the corner (1, 1, 1): one vertex contact.
        let c = all(&mesh, DVec3::splat(1.0 + 0.05 / 3f64.sqrt()), r);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(matches!(c[0].feature, Feature::Vertex(_)));
        // Over the top face near the edge: its face contact covers the edge of the side.
        let c = all(&mesh, DVec3::new(0.97, 0.5, 1.05), r);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].touch.normal, DVec3::NEG_Z);
        // Inside, in the corner at (0.05, 0.06, 0.07): three faces, one contact each.
        let c = all(&mesh, DVec3::new(0.05, 0.06, 0.07), r);
        assert_eq!(c.len(), 3, "{c:?}");
        let mut overlaps: Vec<f64> = c.iter().map(|f| f.touch.overlap).collect();
        overlaps.sort_by(f64::total_cmp);
        assert_eq!(overlaps, vec![r - 0.07, r - 0.06, r - 0.05]);
        // Each in its own member.
        let members: std::collections::BTreeSet<_> =
            c.iter().map(|f| mesh.member[f.face as usize]).collect();
        assert_eq!(members.len(), 3);
    }

    #[test]
    fn a_member_is_near_only_where_its_faces_are() {
        let mesh =
            std::sync::Arc::new(TriMesh::new(&cuboid(DVec3::ZERO, DVec3::ONE), &HERE).expect("ok"));
        let p = DVec3::new(0.5, 0.5, 1.2);
        let near: Vec<usize> = (0..6)
            .filter(|&m| {
                MeshPart {
                    mesh: mesh.clone(),
                    member: m,
                }
                .may_touch(p, 0.25)
            })
            .collect();
        assert_eq!(near.len(), 1);
        let top = Shape::Mesh(MeshPart {
            mesh: mesh.clone(),
            member: near[0],
        });
        assert!((top.contact(p, 0.25).expect("touches").overlap - 0.05).abs() < 1e-15);
    }
}
