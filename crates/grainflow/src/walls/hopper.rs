//! Flat floor with circular holes, each the top of an outlet cone (001 §4.8: `cone` with
//! `number_of_cones`): grains above the floor and inside the cones.
//!
//! Like [`super::indent`], the wall is a union of parts, each touching only inside its normal
//! prism, so a grain feels the nearest surface points of the whole:
//! * the **floor** where the centre's foot on it lies in no hole;
//! * each **cone** where the foot on its generator lies below the floor (eq 3.27, z_c at most
//!   the floor's height; below the cone's cut the cut edge touches, as for [`Cone`]);
//! * each hole's **rim**, the convex edge where the floor meets a cone: where the centre's
//!   foot on the floor lies in that hole and its foot on the cone lies above the floor;
//! * each cone's **chute tube** of length `tube` below its cut (001 §4.8 `hole_depth`): its
//!   inner face at the heights of the tube. The cone's cut edge, the lip where cone and tube
//!   meet, touches only above the tube's top, so the lip is counted once.

use std::sync::Arc;

use glam::{DVec2, DVec3};

use super::{Cone, Touch};

/// Floor at height `height` with one hole per cone; each cone has axis +z and is cut to
/// [bottom, `height`], where its radius is the hole's; a tube `tube` long below each cut.
#[derive(Clone, Debug, PartialEq)]
pub struct Hopper {
    /// Height of the floor (m).
    pub height: f64,
    /// The outlet cones.
    pub cones: Vec<Cone>,
    /// Length of the chute tube below each cone (m), 0 for none.
    pub tube: f64,
}

/// Which part of a [`Hopper`] a member is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The floor outside the holes.
    Floor,
    /// Cone `k` below the floor.
    Cone(usize),
    /// Rim of hole `k`.
    Rim(usize),
    /// Chute tube below cone `k`.
    Tube(usize),
}

/// One part of a hopper: a union member.
#[derive(Clone, Debug, PartialEq)]
pub struct HopperPart {
    /// The whole wall, shared by its parts.
    pub hopper: Arc<Hopper>,
    /// This member.
    pub part: Part,
}

impl Hopper {
    /// The members: the floor, then each cone, its rim and its tube (if any).
    pub fn parts(self) -> Vec<HopperPart> {
        let hopper = Arc::new(self);
        let tubes = hopper.tube > 0.0;
        std::iter::once(Part::Floor)
            .chain((0..hopper.cones.len()).flat_map(|k| {
                [Part::Cone(k), Part::Rim(k)]
                    .into_iter()
                    .chain(tubes.then_some(Part::Tube(k)))
            }))
            .map(|part| HopperPart {
                hopper: hopper.clone(),
                part,
            })
            .collect()
    }

    /// Centre (x, y) and radius (m) of hole `k`.
    pub fn hole(&self, k: usize) -> (DVec2, f64) {
        let c = &self.cones[k];
        let z = self.height - c.origin.z;
        (c.origin.truncate(), c.slope * z + c.radius0)
    }

    /// Height (m) where cone `k` is cut, and its radius there (m): the top of its tube.
    pub fn cut(&self, k: usize) -> (f64, f64) {
        let c = &self.cones[k];
        let lo = c.range.map_or(0.0, |r| r[0]);
        (c.origin.z + lo, c.slope * lo + c.radius0)
    }

    fn in_hole(&self, k: usize, xy: DVec2) -> bool {
        let (c, r) = self.hole(k);
        xy.distance_squared(c) < r * r
    }

    fn floor(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let s = pos.z - self.height;
        if s >= r || s <= -r || (0..self.cones.len()).any(|k| self.in_hole(k, pos.truncate())) {
            return None;
        }
        Some(Touch {
            normal: DVec3::NEG_Z,
            overlap: r - s,
        })
    }

    /// Whether the foot of `pos` on cone `k`'s generator lies above the floor.
    fn above_cone(&self, k: usize, pos: DVec3) -> bool {
        let c = &self.cones[k];
        c.foot_z(pos).is_some_and(|z| z > self.height - c.origin.z)
    }

    /// Cone `k` where the foot is below the floor, for a centre inside it or less than `r`
    /// behind its surface (a centre in another cone is far outside this one).
    fn cone(&self, k: usize, pos: DVec3, r: f64) -> Option<Touch> {
        let c = &self.cones[k];
        let f = c.foot(pos)?;
        if f.z_c > self.height - c.origin.z {
            return None;
        }
        let (foot, inside) = c.closest_at(&f);
        if !inside && foot.distance(pos) >= r {
            return None;
        }
        // Below the cut and beside the tube, the tube's face is the nearer part.
        let below_cut = c.range.is_some_and(|[lo, _]| f.z_c < lo);
        if self.tube > 0.0 && below_cut && pos.z < self.cut(k).0 {
            return None;
        }
        c.contact_at(pos, r, &f, (foot, inside))
    }

    /// Inner face of tube `k` at the tube's heights, for a centre inside it or less than `r`
    /// behind it.
    fn tube(&self, k: usize, pos: DVec3, r: f64) -> Option<Touch> {
        let (top, radius) = self.cut(k);
        // Below the top only: at the top's height the lip touches (see `cone`).
        if pos.z >= top || pos.z < top - self.tube {
            return None;
        }
        let d = pos.truncate() - self.hole(k).0;
        let rho = d.length();
        let overlap = rho + r - radius;
        (rho > 0.0 && overlap > 0.0 && rho - radius < r).then(|| Touch {
            normal: (d / rho).extend(0.0),
            overlap,
        })
    }

    fn rim(&self, k: usize, pos: DVec3, r: f64) -> Option<Touch> {
        let (c, radius) = self.hole(k);
        let d = pos.truncate() - c;
        if !self.in_hole(k, pos.truncate()) || !self.above_cone(k, pos) || d == DVec2::ZERO {
            return None;
        }
        let edge = (c + radius * d.normalize()).extend(self.height);
        super::touch(pos, r, edge)
    }
}

impl HopperPart {
    /// Whether a sphere at `pos` of radius `reach` may touch this part: a bound (the floor's
    /// height, the cone's bounding cylinder) for lists of walls near each grain, where the
    /// contact itself would not do, since a part's contact switches on where its region meets
    /// the next one's.
    pub fn may_touch(&self, pos: DVec3, reach: f64) -> bool {
        let h = &*self.hopper;
        match self.part {
            Part::Floor => (pos.z - h.height).abs() < reach,
            Part::Cone(k) | Part::Rim(k) => {
                let c = &h.cones[k];
                let (centre, radius) = h.hole(k);
                let low = c.origin.z + c.range.map_or(f64::NEG_INFINITY, |r| r[0]);
                pos.z > low - reach
                    && pos.z < h.height + reach
                    && pos.truncate().distance(centre) < radius + reach
            }
            Part::Tube(k) => {
                let (top, radius) = h.cut(k);
                pos.z > top - h.tube - reach
                    && pos.z < top + reach
                    && pos.truncate().distance(h.hole(k).0) < radius + reach
            }
        }
    }

    /// Sphere contact with this part (see the module's rules).
    pub fn contact(&self, pos: DVec3, r: f64) -> Option<Touch> {
        let h = &*self.hopper;
        match self.part {
            Part::Floor => h.floor(pos, r),
            Part::Cone(k) => h.cone(k, pos, r),
            Part::Rim(k) => h.rim(k, pos, r),
            Part::Tube(k) => h.tube(k, pos, r),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 45° cones (slope 1) under a floor at z = 1: holes of radius 0.5 centred at
    /// x = ±0.6, cones cut at z = 0.6 (radius 0.1 there), tubes from 0.6 down to 0.3.
    fn hopper() -> Vec<HopperPart> {
        let cone = |x: f64| Cone {
            origin: DVec3::new(x, 0.0, 0.0),
            axis: DVec3::Z,
            slope: 1.0,
            radius0: -0.5,
            range: Some([0.6, 1.0]),
        };
        Hopper {
            height: 1.0,
            cones: vec![cone(-0.6), cone(0.6)],
            tube: 0.3,
        }
        .parts()
    }

    fn touches(parts: &[HopperPart], pos: DVec3, r: f64) -> Vec<(Part, Touch)> {
        parts
            .iter()
            .filter_map(|p| p.contact(pos, r).map(|t| (p.part, t)))
            .collect()
    }

    /// The one part touching a sphere of radius `r` at `pos`, and its overlap (m).
    fn only(parts: &[HopperPart], pos: DVec3, r: f64) -> (Part, f64) {
        let t = touches(parts, pos, r);
        assert_eq!(t.len(), 1, "parts touching at {pos}");
        (t[0].0, t[0].1.overlap)
    }

    #[test]
    fn floor_between_holes_cone_inside_rim_at_the_edge() {
        let parts = hopper();
        // Between the holes (|x| < 0.1) a grain rests on the floor.
        let (part, overlap) = only(&parts, DVec3::new(0.0, 0.0, 1.05), 0.1);
        assert_eq!(part, Part::Floor);
        assert!((overlap - 0.05).abs() < 1e-15);
        // Over a hole's centre nothing touches; inside the cone, the cone does: at (0.6 + 0.3,
        // 0, 0.85) the cone's radius is 0.35, the centre 0.05 from it horizontally, 0.05/√2
        // along the normal.
        assert!(touches(&parts, DVec3::new(0.6, 0.0, 1.05), 0.1).is_empty());
        let (part, overlap) = only(&parts, DVec3::new(0.9, 0.0, 0.85), 0.1);
        assert_eq!(part, Part::Cone(1));
        let s = std::f64::consts::FRAC_1_SQRT_2;
        assert!((overlap - (0.1 - 0.05 * s)).abs() < 1e-12);
        // Just inside hole 1's rim and above the floor, the foot on the cone's generator at
        // z_c = (0.45 + 0.5 + 1.08)/2 > 1: the rim circle (x = 0.1 at y = 0). Lower, at
        // z = 1.03, z_c = 0.99 and the cone is nearer than the rim.
        assert_eq!(
            only(&parts, DVec3::new(0.15, 0.0, 1.03), 0.1).0,
            Part::Cone(1)
        );
        let pos = DVec3::new(0.15, 0.0, 1.08);
        let (part, overlap) = only(&parts, pos, 0.1);
        assert_eq!(part, Part::Rim(1));
        let rim = DVec3::new(0.1, 0.0, 1.0);
        assert!((overlap - (0.1 - pos.distance(rim))).abs() < 1e-12);
        // In tube 1 (radius 0.1 about x = 0.6), 0.02 from its wall: the tube alone. Just above
        // its top, beside the wall, the lip circle (x = 0.7, z = 0.6).
        let (part, overlap) = only(&parts, DVec3::new(0.68, 0.0, 0.45), 0.05);
        assert_eq!(part, Part::Tube(1));
        assert!((overlap - 0.03).abs() < 1e-12);
        let pos = DVec3::new(0.68, 0.0, 0.61);
        let (part, overlap) = only(&parts, pos, 0.05);
        assert_eq!(part, Part::Cone(1));
        let lip = DVec3::new(0.7, 0.0, 0.6);
        assert!((overlap - (0.05 - pos.distance(lip))).abs() < 1e-12);
    }

    #[test]
    fn summed_overlap_is_continuous_over_the_rim() {
        // Paths in the open space over and into a hole: the summed overlap moves by at most a
        // few steps' length per step (a part counted twice or missed would jump by ≈ 0.05 m).
        let parts = hopper();
        let r = 0.1;
        for (from, to) in [
            (DVec3::new(0.0, 0.0, 1.08), DVec3::new(0.6, 0.0, 0.9)),
            (DVec3::new(0.0, 0.3, 1.05), DVec3::new(0.45, 0.0, 0.9)),
            (DVec3::new(1.2, 0.1, 1.09), DVec3::new(0.8, 0.0, 0.8)),
            // Down the cone, over the lip and into the tube.
            (DVec3::new(0.62, 0.02, 0.8), DVec3::new(0.63, 0.0, 0.4)),
            (DVec3::new(0.75, 0.0, 0.75), DVec3::new(0.63, 0.01, 0.45)),
        ] {
            let steps = 100_000;
            let step = from.distance(to) / steps as f64;
            let mut last: Option<f64> = None;
            for i in 0..=steps {
                let pos = from.lerp(to, i as f64 / steps as f64);
                let sum: f64 = touches(&parts, pos, r).iter().map(|(_, t)| t.overlap).sum();
                if let Some(prev) = last {
                    assert!((sum - prev).abs() <= 3.0 * step + 1e-12, "jump at {pos:?}");
                }
                last = Some(sum);
            }
        }
    }
}
