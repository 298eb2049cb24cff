//! Angles of repose from grain positions (002 §5.3 and §6.3).
//!
//! Positions are flattened into the plane normal to the drum (or box) axis, with `up` opposite
//! to gravity and x̂ = up × axis. The free surface is sampled by bins one grain diameter wide
//! along x: in each bin the highest grain that touches another (so grains in flight are not
//! taken for the surface). A least-squares line through these points gives the angle.
//! * Drum (002 §6.3): only surface points within `window` of the drum centre (D/4, i.e. a
//!   circle of diameter D/2 about the centre) are fitted, which excludes the steep tails of
//!   the S-shaped surface.
//! * Pile (002 §5.3): left and right flanks are fitted separately with the tails and the
//!   centre excluded, here the points below 20 % and above 80 % of the pile's height above
//!   the floor; the angle is the mean of the two and its error half their difference.

use glam::DVec3;

/// Plane of the analysis: centre, unit axis and unit up (⟂ axis).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrumFrame {
    /// Centre of the drum, or any point of the box's mid-plane (m).
    pub center: DVec3,
    /// Unit axis (the drum's rotation axis, or the box's thin direction).
    pub axis: DVec3,
    /// Unit up, opposite to gravity, perpendicular to the axis.
    pub up: DVec3,
}

impl DrumFrame {
    /// A frame with `up` = −gravity made perpendicular to the axis.
    pub fn new(center: DVec3, axis: DVec3, gravity: DVec3) -> DrumFrame {
        let axis = axis.normalize();
        let up = -gravity;
        let up = (up - up.dot(axis) * axis).normalize();
        DrumFrame { center, axis, up }
    }

    /// Horizontal unit vector x̂ = up × axis.
    pub fn x_hat(&self) -> DVec3 {
        self.up.cross(self.axis)
    }

    /// In-plane coordinates (x, y) of a point (m).
    pub fn flatten(&self, p: DVec3) -> (f64, f64) {
        let d = p - self.center;
        (d.dot(self.x_hat()), d.dot(self.up))
    }
}

/// A straight line y = intercept + slope x fitted through `n` points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineFit {
    /// Slope dy/dx (−).
    pub slope: f64,
    /// Intercept at x = 0 (m).
    pub intercept: f64,
    /// Points used.
    pub n: usize,
}

impl LineFit {
    /// Least-squares line through `(x, y)` points; `None` for fewer than 3 or no x spread.
    pub fn through(points: &[(f64, f64)]) -> Option<LineFit> {
        let n = points.len();
        if n < 3 {
            return None;
        }
        let nf = n as f64;
        let mx = points.iter().map(|p| p.0).sum::<f64>() / nf;
        let my = points.iter().map(|p| p.1).sum::<f64>() / nf;
        let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        if sxx <= 0.0 {
            return None;
        }
        let slope = sxy / sxx;
        Some(LineFit {
            slope,
            intercept: my - slope * mx,
            n,
        })
    }

    /// Angle of the line from the horizontal (degrees, signed like the slope).
    pub fn angle_deg(&self) -> f64 {
        self.slope.atan().to_degrees()
    }
}

/// Surface points: per bin of width `bin` along x, the highest of `pts` (x, y) with another
/// point within `contact` of it. `pts` carries the radius-free flattened centres.
fn surface_points(pts: &[(f64, f64)], bin: f64, contact: f64) -> Vec<(f64, f64)> {
    if pts.is_empty() {
        return Vec::new();
    }
    let x0 = pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x1 = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let nbins = (((x1 - x0) / bin).floor() as usize + 1).min(100_000);
    let mut bins: Vec<Vec<usize>> = vec![Vec::new(); nbins];
    for (k, p) in pts.iter().enumerate() {
        let b = (((p.0 - x0) / bin) as usize).min(nbins - 1);
        bins[b].push(k);
    }
    let c2 = contact * contact;
    let mut out = Vec::new();
    for b in 0..nbins {
        let mut cand = bins[b].clone();
        cand.sort_by(|&i, &j| pts[j].1.total_cmp(&pts[i].1));
        let near = |i: usize| {
            let lo = b.saturating_sub(1);
            let hi = (b + 1).min(nbins - 1);
            (lo..=hi).flat_map(|q| bins[q].iter()).any(|&j| {
                j != i && {
                    let (dx, dy) = (pts[j].0 - pts[i].0, pts[j].1 - pts[i].1);
                    dx * dx + dy * dy <= c2
                }
            })
        };
        if let Some(&top) = cand.iter().find(|&&i| near(i)) {
            out.push(pts[top]);
        }
    }
    out
}

/// Dynamic angle of repose of a drum: the line through the surface points within `window`
/// (m) of the centre; `positions` are the free grains, `diameter` their mean diameter (m).
pub fn drum_angle(
    frame: &DrumFrame,
    positions: &[DVec3],
    diameter: f64,
    window: f64,
) -> Option<LineFit> {
    let pts: Vec<(f64, f64)> = positions.iter().map(|p| frame.flatten(*p)).collect();
    let surface: Vec<(f64, f64)> = surface_points(&pts, diameter, 1.2 * diameter)
        .into_iter()
        .filter(|(x, y)| x * x + y * y <= window * window)
        .collect();
    LineFit::through(&surface)
}

/// Angle of a pile from its two flanks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PileAngle {
    /// Line through the left flank (x below the peak).
    pub left: LineFit,
    /// Line through the right flank.
    pub right: LineFit,
}

impl PileAngle {
    /// Mean of the two flank angles (degrees, positive).
    pub fn angle_deg(&self) -> f64 {
        0.5 * (self.left.angle_deg().abs() + self.right.angle_deg().abs())
    }

    /// Half the difference of the two flank angles (degrees): the standard deviation of the
    /// mean of two measurements (002 Fig. 7 error bars).
    pub fn error_deg(&self) -> f64 {
        0.5 * (self.left.angle_deg().abs() - self.right.angle_deg().abs()).abs()
    }
}

/// Angle of repose of a pile resting on a floor at height `floor` (m, in the frame's y):
/// surface points of the grains between 20 % and 80 % of the pile's height, each flank fitted.
pub fn pile_angle(
    frame: &DrumFrame,
    positions: &[DVec3],
    diameter: f64,
    floor: f64,
) -> Option<PileAngle> {
    let pts: Vec<(f64, f64)> = positions.iter().map(|p| frame.flatten(*p)).collect();
    let surface = surface_points(&pts, diameter, 1.2 * diameter);
    let peak = surface
        .iter()
        .copied()
        .fold(None, |a: Option<(f64, f64)>, p| match a {
            Some(b) if b.1 >= p.1 => Some(b),
            _ => Some(p),
        })?;
    let h = peak.1 - floor;
    let band = |p: &&(f64, f64)| p.1 >= floor + 0.2 * h && p.1 <= floor + 0.8 * h;
    let left: Vec<_> = surface
        .iter()
        .filter(|p| p.0 < peak.0)
        .filter(band)
        .copied()
        .collect();
    let right: Vec<_> = surface
        .iter()
        .filter(|p| p.0 > peak.0)
        .filter(band)
        .copied()
        .collect();
    Some(PileAngle {
        left: LineFit::through(&left)?,
        right: LineFit::through(&right)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Grains of diameter 1 on a square lattice filling y ≤ tan(θ) x within radius 20.
    fn tilted_bed(theta_deg: f64) -> Vec<DVec3> {
        let t = theta_deg.to_radians().tan();
        let mut v = Vec::new();
        for i in -20..=20 {
            for j in -20..=20 {
                let (x, y) = (i as f64, j as f64 * 0.999);
                if y <= t * x && x * x + y * y <= 400.0 {
                    v.push(DVec3::new(x, y, 0.0));
                }
            }
        }
        v
    }

    #[test]
    fn drum_angle_of_a_tilted_lattice_bed() {
        // The top of each column of a staircase with slope tan 30° lies within one grain of
        // the plane, so the fitted angle is 30° within the staircase's resolution (±3°).
        let f = DrumFrame::new(DVec3::ZERO, DVec3::Z, DVec3::new(0.0, -9.81, 0.0));
        let fit = drum_angle(&f, &tilted_bed(30.0), 1.0, 10.0).expect("fit");
        assert!((fit.angle_deg() - 30.0).abs() < 3.0, "{}", fit.angle_deg());
        // A grain in flight above the surface is ignored.
        let mut bed = tilted_bed(30.0);
        bed.push(DVec3::new(0.2, 6.0, 0.0));
        let fit2 = drum_angle(&f, &bed, 1.0, 10.0).expect("fit");
        assert_eq!(fit, fit2);
    }

    #[test]
    fn pile_angle_of_a_triangle() {
        // A symmetric triangular heap of slope 0.5 (26.57°) on the floor y = 0.
        let mut v = Vec::new();
        for i in -40..=40 {
            let top = (20.0 - 0.5 * (i as f64).abs()).floor() as i32;
            for j in 0..=top {
                v.push(DVec3::new(i as f64, j as f64, 0.0));
            }
        }
        let f = DrumFrame::new(DVec3::ZERO, DVec3::Z, DVec3::new(0.0, -1.0, 0.0));
        let a = pile_angle(&f, &v, 1.0, 0.0).expect("fit");
        assert!((a.angle_deg() - 26.57).abs() < 1.5, "{}", a.angle_deg());
        assert!(a.error_deg() < 0.5);
    }
}
