//! Periodic boundaries along any subset of the axes (003 §3 uses them for regolith beds).
//!
//! Positions are wrapped back into [lo, hi) after every drift, whatever the neighbour-list
//! schedule, so a resumed run wraps at the same steps as an uninterrupted one. Pairs across the
//! faces are listed with the periodic images of the grains as ghosts (`ghosts.rs`); the minimum
//! image, d − L round(d / L), measures a grain's move since the build (the rebuild check) and
//! serves lists kept without ghosts.

use glam::DVec3;
use serde::{Deserialize, Serialize};

/// Periodic extent along each axis: `None` for an open axis, `Some([lo, hi])` (m) otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Periodic {
    /// Periodic interval along x (m).
    #[serde(default, deserialize_with = "crate::units::length")]
    pub x: Option<[f64; 2]>,
    /// Periodic interval along y (m).
    #[serde(default, deserialize_with = "crate::units::length")]
    pub y: Option<[f64; 2]>,
    /// Periodic interval along z (m).
    #[serde(default, deserialize_with = "crate::units::length")]
    pub z: Option<[f64; 2]>,
}

impl Periodic {
    /// The intervals as an array over the axes.
    pub fn axes(&self) -> [Option<[f64; 2]>; 3] {
        [self.x, self.y, self.z]
    }

    /// True when no axis is periodic.
    pub fn is_open(&self) -> bool {
        self.axes().iter().all(Option::is_none)
    }

    /// Period L along each axis (m), 0 for open axes.
    pub fn lengths(&self) -> DVec3 {
        let l = self.axes().map(|a| a.map_or(0.0, |[lo, hi]| hi - lo));
        DVec3::from_array(l)
    }

    /// The box's lower and upper corners: [lo, hi) along periodic axes, unbounded along open
    /// ones.
    pub fn bounds(&self) -> [DVec3; 2] {
        let axes = self.axes();
        [
            DVec3::from_array(axes.map(|a| a.map_or(f64::NEG_INFINITY, |[lo, _]| lo))),
            DVec3::from_array(axes.map(|a| a.map_or(f64::INFINITY, |[_, hi]| hi))),
        ]
    }

    /// `pos` wrapped into [lo, hi) along the periodic axes.
    #[inline]
    pub fn wrap(&self, pos: DVec3) -> DVec3 {
        let mut p = pos.to_array();
        for (k, axis) in self.axes().iter().enumerate() {
            if let Some([lo, hi]) = *axis {
                let l = hi - lo;
                if p[k] < lo {
                    p[k] += l * ((lo - p[k]) / l).ceil();
                } else if p[k] >= hi {
                    p[k] -= l * ((p[k] - hi) / l).floor() + l;
                }
                // Round-off can land exactly on hi; keep the half-open interval.
                if p[k] >= hi {
                    p[k] = lo;
                }
            }
        }
        DVec3::from_array(p)
    }

    /// Minimum image of a separation `d` (m) between two wrapped positions (so |d| < L),
    /// given the periods `l` from [`Periodic::lengths`] (0 on open axes, which keep `d`).
    #[inline]
    pub fn minimum_image(d: DVec3, l: DVec3) -> DVec3 {
        MinimumImage::new(l).of(d)
    }
}

/// The minimum image for periods `l` (0 on open axes), with the half periods worked out once
/// for loops that fold many separations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinimumImage {
    l: DVec3,
    /// L/2 on periodic axes, +∞ on open ones (no separation exceeds it, so `d` is kept).
    half: DVec3,
}

impl MinimumImage {
    /// The folding for periods `l` from [`Periodic::lengths`].
    pub fn new(l: DVec3) -> Self {
        let half = DVec3::select(l.cmpeq(DVec3::ZERO), DVec3::INFINITY, 0.5 * l);
        MinimumImage { l, half }
    }

    /// The minimum image of a separation `d` (m) between two wrapped positions.
    #[inline(always)]
    pub fn of(&self, d: DVec3) -> DVec3 {
        DVec3::new(self.fold(d.x, 0), self.fold(d.y, 1), self.fold(d.z, 2))
    }

    /// The periods L (0 on open axes) and L/2 (+∞ on open axes), per axis (m).
    pub fn lengths(&self) -> ([f64; 3], [f64; 3]) {
        (self.l.to_array(), self.half.to_array())
    }

    /// The minimum image of the component `d` (m) of a separation along `axis` (0, 1, 2).
    #[inline(always)]
    pub fn fold(&self, d: f64, axis: usize) -> f64 {
        let (l, half) = (self.l[axis], self.half[axis]);
        if d > half {
            d - l
        } else if d < -half {
            d + l
        } else {
            d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_and_minimum_image() {
        let p = Periodic {
            x: Some([0.0, 2.0]),
            y: None,
            z: Some([-1.0, 1.0]),
        };
        let w = p.wrap(DVec3::new(2.5, 7.0, -1.25));
        assert!((w - DVec3::new(0.5, 7.0, 0.75)).length() < 1e-15);
        assert_eq!(p.wrap(DVec3::new(-4.5, 0.0, 0.0)).x, 1.5);
        let l = p.lengths();
        assert_eq!(l, DVec3::new(2.0, 0.0, 2.0));
        let [lo, hi] = p.bounds();
        assert_eq!(lo, DVec3::new(0.0, f64::NEG_INFINITY, -1.0));
        assert_eq!(hi, DVec3::new(2.0, f64::INFINITY, 1.0));
        // 1.9 apart along x in a box of 2 is 0.1 the other way; y is open.
        let d = Periodic::minimum_image(DVec3::new(1.9, 5.0, -1.5), l);
        assert!((d - DVec3::new(-0.1, 5.0, 0.5)).length() < 1e-15);
    }
}
