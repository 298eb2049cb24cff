//! A uniform grid of cells over a mesh's triangles (in its scene placement), so that the
//! triangles near a sphere are found by looking in the few cells its box covers: a mesh of
//! 10⁵ triangles costs a grain about what a few triangles do.

use glam::DVec3;

/// Most cells per triangle the grid may have (it coarsens to stay below).
const CELLS_PER_TRIANGLE: usize = 4;

/// Triangles listed by the cells their bounding boxes cover.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    /// Lower corner of the grid (m).
    lo: DVec3,
    /// Upper corner of the grid, `lo` plus the cells' extent (m).
    top: DVec3,
    /// Cells per metre.
    inv_h: f64,
    /// Cells along x, y, z.
    dims: [usize; 3],
    /// The last cell's index along x, y, z, as a number.
    last: DVec3,
    /// Per cell, its first entry in `items`; one more at the end.
    start: Vec<u32>,
    /// The triangles of each cell.
    items: Vec<u32>,
    /// Per triangle, the lowest cell its box covers.
    first_cell: Vec<[u32; 3]>,
    /// Per cell, the one flat face all its triangles belong to, [`EMPTY`] when it has none,
    /// [`MIXED`] when they belong to several ([`Grid::mark_faces`]).
    face: Vec<u32>,
    /// Per cell, its entry in `leads` when the plane of its one flat face is that face
    /// wherever it crosses the cell (it is **inner**, [`Grid::mark_faces`]), else
    /// [`NOT_INNER`].
    inner: Vec<u32>,
    /// The first triangle of each inner cell, by its plane: what a grain over the cell needs,
    /// in one place ([`Grid::lead_at`]).
    leads: Vec<Lead>,
}

/// The plane of the first triangle listed in an inner cell, and its flat face.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lead {
    /// The triangle's unit normal.
    pub normal: DVec3,
    /// Its first corner (m).
    pub point: DVec3,
    /// Its flat face.
    pub face: u32,
}

/// A cell that is not inner.
const NOT_INNER: u32 = u32::MAX;

/// A cell without triangles.
const EMPTY: u32 = u32::MAX;
/// A cell with triangles of more than one flat face.
const MIXED: u32 = u32::MAX - 1;

impl Grid {
    /// The grid over `boxes`, the bounding boxes (lower, upper corner) of the triangles, with
    /// cells 1.5 times the size of the average triangle.
    pub fn new(boxes: &[(DVec3, DVec3)]) -> Grid {
        let (lo, hi) = boxes.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), b| (lo.min(b.0), hi.max(b.1)),
        );
        let size = hi - lo;
        let mean = boxes.iter().map(|b| (b.1 - b.0).max_element()).sum::<f64>()
            / boxes.len().max(1) as f64;
        // 1.5 × the mean: the usual triangle then fits in a cell, as inner cells need.
        let mut h = (1.5 * mean)
            .max(1e-6 * size.max_element())
            .max(f64::MIN_POSITIVE);
        let most = CELLS_PER_TRIANGLE * boxes.len() + 64;
        let dims = loop {
            let d = size
                .to_array()
                .map(|s| ((s / h).floor() as usize).saturating_add(1));
            let cells = d.iter().fold(1usize, |a, &b| a.saturating_mul(b));
            if cells <= most {
                break d;
            }
            h *= (cells as f64 / most as f64).cbrt().max(1.01);
        };
        let inv_h = 1.0 / h;
        let mut grid = Grid {
            lo,
            top: lo + DVec3::from_array(dims.map(|d| d as f64)) / inv_h,
            inv_h,
            dims,
            last: DVec3::from_array(dims.map(|d| (d - 1) as f64)),
            ..Grid::default()
        };
        grid.fill(boxes);
        grid
    }

    /// Lists each triangle of `boxes` in every cell its box covers.
    fn fill(&mut self, boxes: &[(DVec3, DVec3)]) {
        let ranges: Vec<([usize; 3], [usize; 3])> = boxes
            .iter()
            .map(|b| (self.cell(b.0), self.cell(b.1)))
            .collect();
        let cells = self.dims.iter().product::<usize>();
        let mut count = vec![0u32; cells + 1];
        for (a, b) in &ranges {
            each_cell(self.dims, *a, *b, |c| count[c + 1] += 1);
        }
        for c in 0..cells {
            count[c + 1] += count[c];
        }
        self.start = count.clone();
        self.items = vec![0; count[cells] as usize];
        for (t, (a, b)) in ranges.iter().enumerate() {
            each_cell(self.dims, *a, *b, |c| {
                self.items[count[c] as usize] = t as u32;
                count[c] += 1;
            });
        }
        self.first_cell = ranges.iter().map(|(a, _)| a.map(|x| x as u32)).collect();
    }

    /// The cell holding `x`, clamped to the grid.
    #[inline(always)]
    fn cell(&self, x: DVec3) -> [usize; 3] {
        // Clamped before it is cut to a whole number (the floor of a number ≥ 0), so that
        // it converts without the checks of an unbounded number (a NaN goes to cell 0).
        let s = ((x - self.lo) * self.inv_h).max(DVec3::ZERO).min(self.last);
        s.to_array().map(|c| c as u32 as usize)
    }

    /// Notes for each cell the flat face of its triangles, `face[t]` that of triangle t, when
    /// they have one: a sphere whose box covers only such cells of one face meets that face
    /// alone ([`Grid::one_face`]).
    ///
    /// A cell is **inner** when it and its 26 neighbours (those in the grid) hold triangles of
    /// its face only, each `inside` (no rim of the face along its edges, and no larger than a
    /// cell). Then no rim of the face crosses the neighbours (a rim's triangle would be listed
    /// where its box meets them), each triangle in the cell lies within them, so the plane
    /// crosses the neighbours inside the face: where the foot of a sphere's perpendicular lies
    /// in an inner cell, the sphere is over the face. `plane` gives a triangle's unit normal
    /// and first corner, kept for the first triangle of each inner cell ([`Lead`]).
    pub fn mark_faces(
        &mut self,
        face: &[u32],
        inside: &[bool],
        plane: impl Fn(u32) -> (DVec3, DVec3),
    ) {
        let cells = self.start.len() - 1;
        let items = |c: usize| &self.items[self.start[c] as usize..self.start[c + 1] as usize];
        let mut clean = vec![false; cells];
        self.face = (0..cells)
            .map(|c| {
                let first = items(c).first().map_or(EMPTY, |&t| face[t as usize]);
                clean[c] = first != EMPTY && items(c).iter().all(|&t| inside[t as usize]);
                if items(c).iter().all(|&t| face[t as usize] == first) {
                    first
                } else {
                    clean[c] = false;
                    MIXED
                }
            })
            .collect();
        let [nx, ny, nz] = self.dims;
        let mut inner = vec![false; cells];
        for (c, inner) in inner.iter_mut().enumerate() {
            let (x, y, z) = (c % nx, (c / nx) % ny, c / (nx * ny));
            let lo = [x, y, z].map(|i| i.saturating_sub(1));
            let hi = [
                (x + 1).min(nx - 1),
                (y + 1).min(ny - 1),
                (z + 1).min(nz - 1),
            ];
            let mut all = clean[c];
            each_cell(self.dims, lo, hi, |n| {
                all &= clean[n] && self.face[n] == self.face[c];
            });
            *inner = all;
        }
        self.leads.clear();
        self.inner = inner
            .iter()
            .enumerate()
            .map(|(c, &inner)| {
                if !inner {
                    return NOT_INNER;
                }
                let t = self.items[self.start[c] as usize];
                let (normal, point) = plane(t);
                self.leads.push(Lead {
                    normal,
                    point,
                    face: face[t as usize],
                });
                self.leads.len() as u32 - 1
            })
            .collect();
    }

    /// Whether the cell holding `x` (which must lie in the grid) is inner.
    #[inline(always)]
    pub fn inner_at(&self, x: DVec3) -> bool {
        self.holds(x) && self.inner[self.index(x)] != NOT_INNER
    }

    /// Whether `x` lies in the grid (not clamped to it).
    #[inline(always)]
    pub fn holds(&self, x: DVec3) -> bool {
        !(x.cmplt(self.lo).any() || x.cmpge(self.top).any())
    }

    /// The grid's lower corner (m): a point [`Grid::holds`] is at or above it.
    pub fn bottom(&self) -> DVec3 {
        self.lo
    }

    /// The grid's upper corner (m): a point [`Grid::holds`] is below it.
    pub fn top(&self) -> DVec3 {
        self.top
    }

    /// The index of the cell holding `x` (clamped to the grid).
    #[inline(always)]
    pub fn index(&self, x: DVec3) -> usize {
        let [i, j, k] = self.cell(x);
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// The first triangle of the cell holding `x` (clamped to the grid) by its plane, when the
    /// cell is inner.
    #[inline(always)]
    pub fn lead_at(&self, x: DVec3) -> Option<&Lead> {
        let at = *self.inner.get(self.index(x))?;
        self.leads.get(at as usize)
    }

    /// The side of a cell (m).
    pub fn cell_size(&self) -> f64 {
        1.0 / self.inv_h
    }

    /// The one flat face every triangle listed in the cells the box from `lo` to `hi` covers
    /// belongs to, if there is one (and the box meets the grid), with one of its triangles.
    #[inline]
    pub fn one_face(&self, lo: DVec3, hi: DVec3) -> Option<(u32, u32)> {
        if self.face.is_empty() || !self.meets(lo, hi) {
            return None;
        }
        let (a, b) = (self.cell(lo), self.cell(hi));
        let [nx, ny, _] = self.dims;
        let (mut one, mut tri) = (EMPTY, 0);
        for z in a[2]..=b[2] {
            for y in a[1]..=b[1] {
                for x in a[0]..=b[0] {
                    let c = x + nx * (y + ny * z);
                    match self.face[c] {
                        EMPTY => {}
                        f if f == MIXED || (one != EMPTY && f != one) => return None,
                        f => {
                            one = f;
                            tri = self.items[self.start[c] as usize];
                        }
                    }
                }
            }
        }
        (one != EMPTY).then_some((one, tri))
    }

    /// The triangles listed in the cell holding `x` (clamped to the grid).
    #[inline(always)]
    pub fn at(&self, x: DVec3) -> &[u32] {
        let [i, j, k] = self.cell(x);
        let c = i + self.dims[0] * (j + self.dims[1] * k);
        &self.items[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// Whether the box from `lo` to `hi` meets the grid.
    #[inline(always)]
    pub fn meets(&self, lo: DVec3, hi: DVec3) -> bool {
        !(lo.cmpgt(self.top).any() || hi.cmplt(self.lo).any())
    }

    /// Whether every cell the box from `lo` to `hi` covers (clamped to the grid) is inner
    /// ([`Grid::mark_faces`]): then they all belong to one flat face, and so does every
    /// cell a smaller box inside it covers.
    pub fn all_inner(&self, lo: DVec3, hi: DVec3) -> bool {
        if self.inner.is_empty() {
            return false;
        }
        let mut all = true;
        each_cell(self.dims, self.cell(lo), self.cell(hi), |c| {
            all &= self.inner[c] != NOT_INNER;
        });
        all
    }

    /// Calls `f` once with every triangle listed in a cell that the box from `lo` to `hi`
    /// covers (each where the box and the triangle's cells first meet); nothing when the box
    /// misses the grid.
    #[inline]
    pub fn near(&self, lo: DVec3, hi: DVec3, mut f: impl FnMut(u32)) {
        if !self.meets(lo, hi) {
            return;
        }
        let (a, b) = (self.cell(lo), self.cell(hi));
        let [nx, ny, _] = self.dims;
        for z in a[2]..=b[2] {
            for y in a[1]..=b[1] {
                for x in a[0]..=b[0] {
                    let c = x + nx * (y + ny * z);
                    let here = [x, y, z];
                    for &t in &self.items[self.start[c] as usize..self.start[c + 1] as usize] {
                        let first = self.first_cell[t as usize];
                        if (0..3).all(|k| here[k] == a[k].max(first[k] as usize)) {
                            f(t);
                        }
                    }
                }
            }
        }
    }
}

/// Calls `f` with the index of every cell from `a` to `b` (inclusive) of a grid of `dims`
/// cells, x fastest.
fn each_cell(dims: [usize; 3], a: [usize; 3], b: [usize; 3], mut f: impl FnMut(usize)) {
    let [nx, ny, _] = dims;
    for z in a[2]..=b[2] {
        for y in a[1]..=b[1] {
            for x in a[0]..=b[0] {
                f(x + nx * (y + ny * z));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_triangle_whose_box_meets_the_query_is_found_once() {
        // 1000 unit boxes on a line along x, each overlapping the next by half: a query box
        // from x = 10.2 to 13.9 meets the boxes starting at 9.5 (k = 19) through 13.5 (27).
        let boxes: Vec<_> = (0..1000)
            .map(|k| {
                let x = 0.5 * k as f64;
                (DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 0.1, 0.0))
            })
            .collect();
        let g = Grid::new(&boxes);
        let mut seen = Vec::new();
        g.near(
            DVec3::new(10.2, -1.0, -1.0),
            DVec3::new(13.9, 1.0, 1.0),
            |t| seen.push(t),
        );
        seen.sort_unstable();
        let want: Vec<u32> = (19..=27).collect();
        // The grid may also hand over boxes in a shared cell that the query misses by less
        // than a cell; every box that meets it must be there, once.
        for t in &want {
            assert_eq!(seen.iter().filter(|&s| s == t).count(), 1, "box {t}");
        }
        let mut dedup = seen.clone();
        dedup.dedup();
        assert_eq!(dedup, seen);
        let mut none = 0;
        g.near(DVec3::splat(600.0), DVec3::splat(601.0), |_| none += 1);
        assert_eq!(none, 0);
    }
}
