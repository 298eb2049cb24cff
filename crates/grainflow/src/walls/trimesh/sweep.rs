//! Hard spheres against a mesh: when a sphere moving in a straight line first touches the
//! triangles of one wall member, and the nearest point of that member now (the normal a
//! collision is resolved with, 000 eq 6–8).
//!
//! A triangle is touched first on its face, its plane met at a point on it (000 eq 9), or on
//! an edge, a segment whose ends are the corners (000 §2.2.4: a cylinder of radius 0, its ends
//! points, eq 3 with s₁ = 0). Edges inside a flat face (both triangles in it) are not tried: a
//! sphere touching one touches the face's plane no later, at a point of the face, so a flat
//! face made of many triangles acts as one plate, and a sphere rolling on it grazes nothing.
//! Only the triangles listed in the grid cells that the sphere's path sweeps over the horizon
//! are tried.

use glam::DVec3;

use super::topology::NONE;
use super::{MeshPart, TriMesh};
use crate::hard::predict::{earliest, plane_collision_time};
use crate::walls::line::Line;

/// A foot of the perpendicular within this fraction of the radius of a triangle is on it.
const ON: f64 = 1e-12;

impl TriMesh {
    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s), touches
    /// triangle `t`: the earliest of its face and its three edges; t ≤ 0 when it touches or
    /// overlaps it now and approaches (000 §2.3).
    fn triangle_time(&self, t: usize, pos: DVec3, vel: DVec3, s: f64) -> Option<f64> {
        let corners = self.topo.triangles[t].map(|k| self.topo.vertices[k as usize]);
        let n = self.topo.normals[t];
        let face = plane_collision_time((pos - corners[0]).dot(n), vel.dot(n), s).filter(|&at| {
            let x = pos + vel * at.max(0.0);
            let foot = x - (x - corners[0]).dot(n) * n;
            // On the triangle, its edges included (round-off of a foot on a shared edge).
            self.closest(t, foot).0.distance(foot) <= ON * s
        });
        let (faces, across) = (&self.topo.face, self.topo.across[t]);
        let inner = |k: usize| across[k] != NONE && faces[across[k] as usize] == faces[t];
        (0..3).filter(|&k| !inner(k)).fold(face, |best, k| {
            let (a, b) = (corners[k], corners[(k + 1) % 3]);
            let length = a.distance(b);
            let edge = Line {
                point: 0.5 * (a + b),
                axis: (b - a) / length,
                length: Some(length),
            };
            earliest(best, edge.collision_time(pos, vel, s))
        })
    }
}

impl MeshPart {
    /// Whether triangle `t` belongs to this part's member.
    fn owns(&self, t: usize) -> bool {
        let m = &self.mesh;
        m.member[m.topo.face[t] as usize] as usize == self.member
    }

    /// Time at which a sphere of radius `s` at `pos` (m), moving at `vel` (m/s) relative to
    /// the mesh, first touches one of the part's triangles, among those within `s` of its
    /// path over the next `horizon` (s): a touch later than the horizon may be missed.
    pub fn collision_time(&self, pos: DVec3, vel: DVec3, s: f64, horizon: f64) -> Option<f64> {
        let end = pos + vel * horizon.max(0.0);
        let pad = DVec3::splat(s);
        let mut best = None;
        self.mesh
            .grid
            .near(pos.min(end) - pad, pos.max(end) + pad, |t| {
                let t = t as usize;
                if self.owns(t) {
                    best = earliest(best, self.mesh.triangle_time(t, pos, vel, s));
                }
            });
        best
    }

    /// Unit vector from the part's point nearest to `pos` to `pos` (the triangle's normal
    /// towards `pos` where `pos` lies on it) and their distance, among the triangles within
    /// `reach` (m) of `pos`; none within reach: (ẑ, ∞).
    pub fn away(&self, pos: DVec3, reach: f64) -> (DVec3, f64) {
        let pad = DVec3::splat(reach);
        let mut best = (DVec3::Z, f64::INFINITY);
        self.mesh.grid.near(pos - pad, pos + pad, |t| {
            let t = t as usize;
            if !self.owns(t) {
                return;
            }
            let (q, _) = self.mesh.closest(t, pos);
            let d = pos.distance(q);
            if d < best.1 {
                let n = self.mesh.topo.normals[t];
                let side = if (pos - q).dot(n) < 0.0 { -n } else { n };
                best = (if d > 0.0 { (pos - q) / d } else { side }, d);
            }
        });
        if best.1 > reach {
            return (DVec3::Z, f64::INFINITY);
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::super::{make, Placement};
    use super::*;

    /// The unit square z = 0 as `n` × `n` cells of two triangles each, one member.
    fn square(n: usize) -> MeshPart {
        let tris = make::rectangle([0.0; 2], [1.0; 2], 0.0, n, n);
        let place = Placement {
            scale: 1.0,
            rotate: DVec3::ZERO,
            translate: DVec3::ZERO,
        };
        let mesh = std::sync::Arc::new(TriMesh::new(&tris, &place).expect("a square"));
        MeshPart { mesh, member: 0 }
    }

    /// Spheres falling on the square at random places and slants meet it when their lowest
    /// point reaches z = 0 inside it (000 eq 9), to 1e-12 of the fall: a face, whatever the
    /// triangles; past its rim, at the rim's edge (the segment time of the closest edge);
    /// missing it, never.
    #[test]
    fn a_meshed_square_is_met_as_its_plane_inside_and_its_rim_outside() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let part = square(8);
        for _ in 0..2000 {
            let s = 0.01 + 0.1 * rng.random::<f64>();
            let pos = DVec3::new(rng.random(), rng.random(), 0.5 + rng.random::<f64>());
            let slant = 0.3 * DVec3::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5, 0.0);
            let vel = slant - DVec3::Z;
            let plane = (pos.z - s) / 1.0;
            let at = pos + vel * plane;
            let got = part.collision_time(pos, vel, s, 2.0);
            if (0.0..=1.0).contains(&at.x) && (0.0..=1.0).contains(&at.y) {
                let t = got.expect("hits the face");
                assert!((t - plane).abs() < 1e-12 * plane, "{t} vs {plane}");
                let (n, d) = part.away(pos + vel * t, 2.0 * s);
                assert!((d - s).abs() < 1e-12 && (n - DVec3::Z).length() < 1e-12);
            } else if let Some(t) = got {
                // Off the square: at the rim, later than the plane, the centre within s of it.
                let x = pos + vel * t;
                let (_, d) = part.away(x, 2.0 * s);
                assert!(
                    t > plane && (d - s).abs() < 1e-12 * s,
                    "t {t}, distance {d}"
                );
            }
        }
        // Rising, or level and above: never.
        let pos = DVec3::new(0.5, 0.5, 0.5);
        assert_eq!(part.collision_time(pos, DVec3::Z, 0.1, 2.0), None);
        assert_eq!(part.collision_time(pos, DVec3::X, 0.1, 2.0), None);
        // Overlapping and approaching: at once (t ≤ 0, 000 §2.3).
        let t = part.collision_time(DVec3::new(0.5, 0.5, 0.05), -DVec3::Z, 0.1, 2.0);
        assert!(t.expect("overlaps") <= 0.0);
    }

    /// A sphere rolling on the square along its shared edges, or across them, meets nothing
    /// until it reaches the rim (x = 1, which a centre s above it touches there); one far
    /// from any triangle finds none within reach.
    #[test]
    fn shared_edges_of_a_flat_face_are_not_met_by_a_sphere_on_it() {
        let part = square(4);
        let pos = DVec3::new(0.1, 0.25, 0.1);
        assert_eq!(part.collision_time(pos, DVec3::X, 0.1, 0.5), None);
        assert_eq!(
            part.collision_time(pos, DVec3::new(1.0, 1.0, 0.0), 0.1, 0.5),
            None
        );
        let rim = part
            .collision_time(pos, DVec3::X, 0.1, 1.0)
            .expect("the rim");
        assert!((rim - 0.9).abs() < 1e-12, "{rim}");
        assert_eq!(
            part.away(DVec3::new(0.5, 0.5, 3.0), 1.0),
            (DVec3::Z, f64::INFINITY)
        );
    }
}
