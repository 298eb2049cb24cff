//! Ghost particles: periodic images of the owned grains, listed after them.
//!
//! Index `k < n_owned` is an owned grain (the particle store); index `n_owned + g` is ghost
//! `g`, the image of `owner[g]` shifted by `image[g]` whole periods along each axis. A ghost
//! holds no state of its own: it is its owner, moved by image · L, read when needed (the
//! hard-sphere drift advances grains lazily, so a copied position would be stale at once).
//! Every image within `reach` of the box is made, several per axis when the reach exceeds a
//! period, edges and corners included, so a pair is seen at every image a drift can reach
//! (LAMMPS's `borders()` in comm_brick does the same one axis after another).
//!
//! Positions still wrap into the box after every drift, so a resumed run wraps at the same
//! steps as an uninterrupted one. The whole periods w each owned grain was wrapped by since the
//! ghosts were made are counted at each wrap by the hard-sphere methods (`wraps`; a drift may
//! go far), and found from the position at the build by the soft-sphere method (a grain moves
//! less than half the skin between builds, so w is the minimum image of its move). A pair's
//! separation is (x_k − x_i) + (s + w_k − w_i) · L for the image s of k: the image is a sum of
//! integers, so the separation does not depend on when the ghosts were made, and with image 0
//! nothing is added (the same bits as the plain difference).

use glam::DVec3;

use crate::boundary::Periodic;

/// Whole periods along x, y and z.
pub type Image = [i32; 3];

/// The periodic images of the owned grains within reach of the box.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ghosts {
    /// Owned grains, the indices before the first ghost.
    pub n_owned: usize,
    /// The owned grain each ghost is an image of, ascending.
    pub owner: Vec<u32>,
    /// Each ghost's image of its owner.
    pub image: Vec<Image>,
    /// The ghosts of owned grain k are `start[k]..start[k + 1]` (ghost numbers, from 0).
    pub start: Vec<usize>,
    /// Whole periods each owned grain was wrapped by since the ghosts were made, when they are
    /// counted (`counted`; else empty).
    pub wraps: Vec<Image>,
    /// Whether the wraps are counted at each wrap (the hard-sphere methods); else they are
    /// found from the positions at the build when needed ([`Ghosts::found_wrap`]).
    pub counted: bool,
}

impl Ghosts {
    /// Every image of the grains at `pos` that lies within `reach` (m) of the periodic box
    /// [lo − reach, hi + reach) along every periodic axis, the grain itself excepted; in
    /// order of owner, then image (z, y, x ascending).
    pub fn new(pos: &[DVec3], periodic: &Periodic, reach: f64, counted: bool) -> Ghosts {
        let axes = periodic
            .axes()
            .map(|a| a.map(|ends| Reach::new(ends, reach)));
        let mut g = Ghosts {
            counted,
            n_owned: pos.len(),
            start: Vec::with_capacity(pos.len() + 1),
            wraps: if counted {
                vec![[0; 3]; pos.len()]
            } else {
                Vec::new()
            },
            ..Ghosts::default()
        };
        g.start.push(0);
        for (k, x) in pos.iter().enumerate() {
            let [nx, ny, nz] = std::array::from_fn(|a| axes[a].map_or(0..=0, |r| r.images(x[a])));
            // Each range holds 0: one of a single number is 0 alone, no ghost along it.
            if [&nx, &ny, &nz].iter().all(|r| r.start() == r.end()) {
                g.start.push(g.owner.len());
                continue;
            }
            for z in nz.clone() {
                for y in ny.clone() {
                    for x in nx.clone() {
                        if [x, y, z] != [0; 3] {
                            g.owner.push(k as u32);
                            g.image.push([x, y, z]);
                        }
                    }
                }
            }
            g.start.push(g.owner.len());
        }
        g
    }

    /// No ghosts yet, with wraps counted at each wrap (the hard-sphere methods) or not.
    pub fn empty(counted: bool) -> Ghosts {
        Ghosts {
            counted,
            ..Ghosts::default()
        }
    }

    /// The whole periods a grain was wrapped by since the build, found from its move `moved`
    /// (m, its position now less its position then, both in the box) by minimum image, for
    /// periods `l` (0 on open axes): +1 below −L/2, −1 above L/2. Right while the grain moved
    /// less than half a period, as a soft-sphere grain does between builds.
    #[inline]
    pub fn found_wrap(moved: DVec3, l: DVec3) -> Image {
        std::array::from_fn(|a| {
            let (d, half) = (moved[a], 0.5 * l[a]);
            i32::from(l[a] > 0.0) * (i32::from(d < -half) - i32::from(d > half))
        })
    }

    /// Owned grains and ghosts together.
    pub fn total(&self) -> usize {
        self.n_owned + self.owner.len()
    }

    /// Positions of the ghosts of the owned grains at `pos`, for periods `l`.
    pub fn positions(&self, pos: &[DVec3], l: DVec3) -> Vec<DVec3> {
        let ghosts = self.owner.iter().zip(&self.image);
        ghosts
            .map(|(&k, s)| pos[k as usize] + periods(*s, l))
            .collect()
    }

    /// Whether a build lists the pair (i, j > i) of indices: i is an owned grain, and a pair
    /// with a ghost j, image s of grain k, counts once, from the lower grain: (i, 0) < (k, s),
    /// so k above i, or k = i and s above 0 (a grain and its own image).
    #[inline]
    pub fn lists(&self, i: u32, j: u32) -> bool {
        let (i, j) = (i as usize, j as usize);
        match j.checked_sub(self.n_owned) {
            _ if i >= self.n_owned => false,
            None => true,
            Some(g) => {
                let k = self.owner[g] as usize;
                k > i || (k == i && self.image[g] > [0; 3])
            }
        }
    }

    /// The owned grain and image of index `j` (owned or ghost).
    #[inline]
    pub fn resolve(&self, j: usize) -> (usize, Image) {
        match j.checked_sub(self.n_owned) {
            None => (j, [0; 3]),
            Some(g) => (self.owner[g] as usize, self.image[g]),
        }
    }

    /// The indices of owned grain k's ghosts.
    pub fn of(&self, k: usize) -> std::ops::Range<usize> {
        self.n_owned + self.start[k]..self.n_owned + self.start[k + 1]
    }

    /// The shift (m), for periods `l`, that brings owned grain k's image `s` beside grain i as
    /// the ghosts were made, now that both may have wrapped since: (s + w_k − w_i) · L, or
    /// `None` when that is no shift at all.
    #[inline]
    pub fn shift(&self, i: usize, k: usize, s: Image, l: DVec3) -> Option<DVec3> {
        let n = self.image_now(i, k, s);
        (n != [0; 3]).then(|| periods(n, l))
    }

    /// Owned grain k's image `s` beside grain i, as whole periods from where both are now:
    /// s + w_k − w_i.
    #[inline]
    pub fn image_now(&self, i: usize, k: usize, s: Image) -> Image {
        let (wi, wk) = (self.wraps[i], self.wraps[k]);
        std::array::from_fn(|a| s[a] + wk[a] - wi[a])
    }

    /// Grain k's unwrapped move since the ghosts were made, from `moved` = its position now
    /// less its position then (m), for periods `l`.
    #[inline]
    pub fn unwrapped(&self, k: usize, moved: DVec3, l: DVec3) -> DVec3 {
        moved + periods(self.wraps[k], l)
    }

    /// Counts the wrap of grain k from `raw` to `wrapped` (m), for periods `l` (0 on open
    /// axes, which never wrap).
    #[inline]
    pub fn count_wrap(&mut self, k: usize, raw: DVec3, wrapped: DVec3, l: DVec3) {
        count_wrap(&mut self.wraps[k], raw, wrapped, l);
    }

    /// The separation `d` (m) from grain i to grain k, as the plain difference of their
    /// positions, carried to k's image `s` ([`Ghosts::shift`]).
    #[inline]
    pub fn separation(&self, i: usize, (k, s): (usize, Image), d: DVec3, l: DVec3) -> DVec3 {
        match self.shift(i, k, s, l) {
            Some(shift) => d + shift,
            None => d,
        }
    }
}

/// Adds to `w` the whole periods a grain was wrapped by, from `raw` to `wrapped` (m), for
/// periods `l` (0 on open axes, which never wrap).
#[inline]
pub fn count_wrap(w: &mut Image, raw: DVec3, wrapped: DVec3, l: DVec3) {
    for a in 0..3 {
        if raw[a] != wrapped[a] {
            w[a] += ((raw[a] - wrapped[a]) / l[a]).round() as i32;
        }
    }
}

/// The whole periods `n` as a shift (m), for periods `l`.
#[inline]
pub fn periods(n: Image, l: DVec3) -> DVec3 {
    DVec3::new(
        f64::from(n[0]) * l.x,
        f64::from(n[1]) * l.y,
        f64::from(n[2]) * l.z,
    )
}

/// A periodic interval [lo, hi) (m) and the reach (m) its images are made within.
#[derive(Clone, Copy)]
struct Reach {
    lo: f64,
    hi: f64,
    reach: f64,
    /// The reach, and a margin far above the round-off of the sums in [`Reach::images`].
    margin: f64,
}

impl Reach {
    fn new([lo, hi]: [f64; 2], reach: f64) -> Reach {
        let margin = reach + 1e-9 * (lo.abs() + hi.abs() + reach);
        Reach {
            lo,
            hi,
            reach,
            margin,
        }
    }

    /// The images n (0 included) of coordinate `x` (m) that lie within the reach of the
    /// interval, x + nL in [lo − reach, hi + reach).
    #[inline]
    fn images(&self, x: f64) -> std::ops::RangeInclusive<i32> {
        let Reach { lo, hi, reach, .. } = *self;
        // Farther than the margin from both faces (most grains): no image but 0, as the
        // sums below would find.
        if x - lo > self.margin && hi - x > self.margin {
            return 0..=0;
        }
        let l = hi - lo;
        let first = ((lo - reach - x) / l).ceil() as i32;
        let mut last = ((hi + reach - x) / l).floor() as i32;
        if x + f64::from(last) * l >= hi + reach {
            last -= 1; // the interval is open above
        }
        first.min(0)..=last.max(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_cover_the_reach_of_every_face_edge_and_corner() {
        // Unit box periodic in x and y, open in z; reach 0.3.
        let periodic = Periodic {
            x: Some([0.0, 1.0]),
            y: Some([0.0, 1.0]),
            z: None,
        };
        let pos = [
            DVec3::new(0.5, 0.5, 0.0),  // far from every face: no ghost
            DVec3::new(0.1, 0.5, 7.0),  // near x = 0: one image at x = 1.1
            DVec3::new(0.9, 0.95, 0.0), // near the corner x = 1, y = 1: three images
        ];
        let g = Ghosts::new(&pos, &periodic, 0.3, true);
        assert_eq!(g.owner, [1, 2, 2, 2]);
        assert_eq!(g.image, [[1, 0, 0], [-1, -1, 0], [0, -1, 0], [-1, 0, 0]]);
        assert_eq!(g.of(2), 4..7);
        assert_eq!(g.resolve(4), (2, [-1, -1, 0]));
        assert_eq!(g.resolve(1), (1, [0; 3]));
        let ghost_pos = g.positions(&pos, periodic.lengths());
        assert_eq!(ghost_pos[0], DVec3::new(1.1, 0.5, 7.0));
        assert_eq!(g.total(), 7);
        // A reach beyond a period: images two periods away.
        let far = Ghosts::new(&pos[..1], &periodic, 1.6, true);
        assert!(far.image.contains(&[2, -2, 0]) && !far.image.contains(&[3, 0, 0]));
    }

    #[test]
    fn a_shift_counts_the_wraps_since_the_ghosts_were_made() {
        let periodic = Periodic {
            x: Some([0.0, 2.0]),
            ..Periodic::default()
        };
        let l = periodic.lengths();
        let pos = [DVec3::new(1.9, 0.0, 0.0), DVec3::new(0.1, 0.0, 0.0)];
        let mut g = Ghosts::new(&pos, &periodic, 0.5, true);
        assert_eq!(g.shift(0, 1, [1, 0, 0], l), Some(DVec3::new(2.0, 0.0, 0.0)));
        assert_eq!(g.shift(0, 1, [0; 3], l), None);
        // Grain 0 crosses x = 2 and wraps to 0.05: its partner's image is now the plain one.
        let raw = DVec3::new(2.05, 0.0, 0.0);
        g.count_wrap(0, raw, periodic.wrap(raw), l);
        assert_eq!(g.wraps[0], [1, 0, 0]);
        assert_eq!(g.shift(0, 1, [1, 0, 0], l), None);
        assert_eq!(g.image_now(0, 1, [1, 0, 0]), [0; 3]);
        let moved = periodic.wrap(raw) - pos[0];
        assert!((g.unwrapped(0, moved, l).x - 0.15).abs() < 1e-12);
    }
}
