//! Grains over the inside of a flat face: what the near-list build keeps for each, so that a
//! step finds its contact from numbers read in the order the wall pass walks the grains.
//!
//! A grain listed where every grid cell within its radius plus the skin is inner
//! ([`super::grid::Grid::mark_faces`]) meets one flat face until the next build, by its
//! plane: the plane of the first triangle of the cell of the upper corner of the grain's box
//! (what the whole search takes, [`super::TriMesh::contacts`]), when the foot of the
//! perpendicular lies in an inner cell. Read from the grid at every step, that cell's entry and the foot's
//! inner flag are misses one after the other, scattered over a large mesh. The build copies
//! the entry of the cell the corner is in then, and the box the foot may lie in to be in a
//! cell it found inner, into an [`InnerHint`] beside the near lists; a step takes the copy
//! while the corner stays in that cell and the foot in that box (a grain at rest: always),
//! else reads the grid as before. The same numbers, so the same bits.

use glam::DVec3;

use super::MeshPart;
use crate::contact::Touch;

/// What a grain listed among the inner cells of a mesh needs at each step until the next
/// build ([`MeshPart::inner_hint`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InnerHint {
    /// The unit normal of the first triangle of cell `cell` (no component above 1 in size).
    normal: DVec3,
    /// That triangle's first corner (m).
    point: DVec3,
    /// The lower corner of the box (m) whose points lie in the grid, in cells found inner.
    lo: DVec3,
    /// Its upper corner (m).
    hi: DVec3,
    /// The cell (its index) the upper corner of the grain's box was in at the build.
    cell: u32,
    /// Whether that triangle's flat face belongs to the member the grain is listed with.
    mine: bool,
}

impl MeshPart {
    /// What a grain of radius `r` at `p`, moving less than `skin` relative to the mesh until
    /// the next build, needs from the grid at each step to meet this member, when every cell
    /// within `r + skin` of `p` is inner; `None` otherwise (its contact is then searched for).
    pub fn inner_hint(&self, p: DVec3, r: f64, skin: f64) -> Option<InnerHint> {
        let g = &self.mesh.grid;
        let reach = DVec3::splat(r + skin);
        if !g.all_inner(p - reach, p + reach) {
            return None;
        }
        let corner = p + DVec3::splat(r);
        let lead = g.lead_at(corner)?;
        // |n_i| ≤ 1 keeps the foot of a touching grain within its box (`contact_inner`).
        if lead.normal.abs().max_element() > 1.0 {
            return None;
        }
        // The cells from that of p − reach to that of p + reach are inner (the cell of a
        // point grows with it); `holds` also wants a point below the grid's top.
        let top = DVec3::from_array(g.top().to_array().map(f64::next_down));
        Some(InnerHint {
            normal: lead.normal,
            point: lead.point,
            lo: (p - reach).max(g.bottom()),
            hi: (p + reach).min(top),
            cell: g.index(corner) as u32,
            mine: self.mesh.member[lead.face as usize] as usize == self.member,
        })
    }

    /// [`MeshPart::contact`] of a sphere at `pos` of radius `r` whose box lies in cells that
    /// are all inner (found with `hint` where it was listed, [`MeshPart::inner_hint`], with a
    /// reach of r plus at least its move since), with the same bits, without scanning the
    /// cells: they hold one flat face, so the scan's last cell, that of the box's upper
    /// corner, gives its triangle, whose plane gives the contact when the foot of the
    /// perpendicular lies in an inner cell ([`super::TriMesh::face_contact`]). While the
    /// corner is in the cell of the build and the foot in the hint's box, the hint has all
    /// of it.
    ///
    /// There the test that the sphere's box meets the grid ([`Self::contact_in_grid`]) is
    /// not needed: a foot closer than r lies within the box (|n_i d| ≤ |d| < r, and rounding
    /// keeps the order), so the box meets the grid where the foot lies in it; a foot at r or
    /// more is no contact either way.
    #[inline]
    pub fn contact_inner(&self, pos: DVec3, r: f64, hint: &InnerHint) -> Option<Touch> {
        let grid = &self.mesh.grid;
        if grid.index(pos + DVec3::splat(r)) == hint.cell as usize {
            let (n, d) = (hint.normal, (pos - hint.point).dot(hint.normal));
            let foot = pos - n * d;
            if foot.cmpge(hint.lo).all() && foot.cmple(hint.hi).all() {
                return (hint.mine && d.abs() < r).then(|| Touch {
                    normal: if d < 0.0 { n } else { -n },
                    overlap: r - d.abs(),
                });
            }
        }
        self.contact_in_grid(pos, r)
    }

    /// [`Self::contact_inner`] from the grid: the triangle of the cell of the box's upper
    /// corner, kept with the cell ([`super::grid::Lead`]), and the foot's inner flag. Where
    /// the box misses the grid the sphere touches no triangle.
    #[inline(never)]
    fn contact_in_grid(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let grid = &self.mesh.grid;
        let reach = DVec3::splat(r);
        if !grid.meets(pos - reach, pos + reach) {
            return None;
        }
        let Some(lead) = grid.lead_at(pos + reach) else {
            return self.contact(pos, r);
        };
        let (n, d) = (lead.normal, (pos - lead.point).dot(lead.normal));
        if !grid.inner_at(pos - n * d) {
            // Near a rim after all: the foot's triangles decide.
            return self.contact(pos, r);
        }
        let mine = self.mesh.member[lead.face as usize] as usize == self.member;
        (mine && d.abs() < r).then(|| Touch {
            normal: if d < 0.0 { n } else { -n },
            overlap: r - d.abs(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::make::rectangle;
    use super::super::{Placement, TriMesh};
    use super::*;
    use crate::walls::Plane;

    #[test]
    fn where_the_cells_around_a_grain_are_inner_its_contact_takes_their_corner_alone() {
        // A square of 2 × 40 × 40 triangles stood up as a wall y ≈ 0.2 (turned by a quarter
        // turn about x, so that its corners' y differ in their last bits, and so do its
        // triangles' planes) and the plane it tessellates: a grain listed where every cell
        // within r + skin is inner (the grid is one cell thick), then moved by less than the
        // skin, touches the mesh exactly as the whole search finds (the same bits), and the
        // plane to 1e-12 of r.
        let place = Placement {
            scale: 1.0,
            rotate: DVec3::new(std::f64::consts::FRAC_PI_2, 0.0, 0.0),
            translate: DVec3::new(0.1, 0.2, 0.3),
        };
        let mesh = TriMesh::new(&rectangle([-1.0; 2], [1.0; 2], 0.0, 40, 40), &place).expect("ok");
        let n = place.apply(DVec3::Z) - place.apply(DVec3::ZERO);
        let plane = Plane {
            point: place.apply(DVec3::ZERO),
            normal: n,
            both: true,
        };
        let part = MeshPart {
            mesh: std::sync::Arc::new(mesh),
            member: 0,
        };
        let normals = &part.mesh.topo.normals;
        assert!(
            normals.iter().any(|&m| m != normals[0]),
            "normals differ in the last bits"
        );
        let (r, skin) = (0.03, 0.01);
        let (mut inner, mut rim, mut fast, mut same) = (0, 0, 0, 0);
        for k in 0..2000 {
            // A grain over the square or near its rim, above or below it, then moved.
            let u = |j: u32| ((k * 7919 + j * 104_729) % 1000) as f64 / 1000.0;
            let at = DVec3::new(2.2 * u(1) - 1.1, 2.2 * u(2) - 1.1, 0.05 * u(3) - 0.025);
            let build = place.apply(at);
            let Some(hint) = part.inner_hint(build, r, skin) else {
                rim += 1;
                continue;
            };
            inner += 1;
            let moved = build + 0.99 * skin * (DVec3::new(u(4), u(5), u(6)) - 0.5);
            let want = part.contact(moved, r);
            assert_eq!(part.contact_inner(moved, r, &hint), want, "at {moved}");
            // Whatever the move, the hint gives what the grid gives.
            let far = build + 3.0 * skin * (DVec3::new(u(6), u(4), u(5)) - 0.5);
            let grid = part.contact_in_grid(far, r);
            assert_eq!(part.contact_inner(far, r, &hint), grid, "at {far}");
            let reach = DVec3::splat(r);
            let lead = part
                .mesh
                .grid
                .lead_at(moved + reach)
                .expect("an inner cell");
            let foot = moved - lead.normal * (moved - lead.point).dot(lead.normal);
            fast += usize::from(part.mesh.grid.inner_at(foot));
            let in_box = foot.cmpge(hint.lo).all() && foot.cmple(hint.hi).all();
            same +=
                usize::from(part.mesh.grid.index(moved + reach) == hint.cell as usize && in_box);
            let analytic = plane.contact(moved, r);
            assert_eq!(want.is_some(), analytic.is_some(), "at {moved}");
            if let (Some(a), Some(b)) = (want, analytic) {
                assert!((a.overlap - b.overlap).abs() < 1e-12 * r, "{a:?} {b:?}");
                assert!((a.normal - b.normal).length() < 1e-12, "{a:?} {b:?}");
            }
        }
        assert!(
            inner > 500 && rim > 500,
            "{inner} inner, {rim} near the rim"
        );
        assert!(fast == inner, "{fast} of {inner} found without a search");
        // The hint alone and the grid both decide some.
        assert!(
            same > inner / 2 && same < inner,
            "{same} of {inner} from the hint alone"
        );
    }
}
