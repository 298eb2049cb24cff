//! Streamwise velocity profile of a drum's flowing layer and its thickness (002 §6.3).
//!
//! With the surface line of [`super::drum_angle`], x′ runs along the surface (downhill) and y′
//! into the bed. Grains within `window` of the centre along x′ are binned by depth below the
//! surface in layers `layer` thick (002: about two diameters); the mean v·x̂′ of each layer
//! forms the profile. The flowing-layer thickness y′_fl is the depth where the profile first
//! crosses zero (the flow reverses into the bed's solid-body rotation), interpolated linearly.

use glam::DVec3;

use super::repose::{DrumFrame, LineFit};

/// Mean streamwise velocity by depth.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Depth of each layer's middle below the surface (m).
    pub depth: Vec<f64>,
    /// Mean velocity along the surface, downhill positive (m/s).
    pub velocity: Vec<f64>,
    /// Grains in each layer.
    pub count: Vec<usize>,
    /// Depth where the velocity first turns negative (m), if it does.
    pub flowing_layer: Option<f64>,
}

/// Velocity profile of grains at `positions` with `velocities` under the surface `line`.
pub fn velocity_profile(
    frame: &DrumFrame,
    line: &LineFit,
    positions: &[DVec3],
    velocities: &[DVec3],
    window: f64,
    layer: f64,
    layers: usize,
) -> Profile {
    let norm = (1.0 + line.slope * line.slope).sqrt();
    // Downhill along the surface: towards decreasing y.
    let dir = if line.slope > 0.0 { -1.0 } else { 1.0 };
    let (tx, ty) = (dir / norm, dir * line.slope / norm);
    let x_hat = frame.x_hat();
    let along = tx * x_hat + ty * frame.up;
    // The point of the line nearest to the centre.
    let (x0, y0) = {
        let t = -line.intercept * line.slope / (norm * norm);
        (t, line.intercept + line.slope * t)
    };
    let mut sum = vec![0.0; layers];
    let mut count = vec![0usize; layers];
    for (p, v) in positions.iter().zip(velocities) {
        let (x, y) = frame.flatten(*p);
        let s = (x - x0) * tx + (y - y0) * ty;
        if s.abs() > window {
            continue;
        }
        let depth = (line.intercept + line.slope * x - y) / norm;
        if depth < 0.0 {
            continue;
        }
        let k = (depth / layer) as usize;
        if k < layers {
            sum[k] += v.dot(along);
            count[k] += 1;
        }
    }
    let depth: Vec<f64> = (0..layers).map(|k| (k as f64 + 0.5) * layer).collect();
    let velocity: Vec<f64> = sum
        .iter()
        .zip(&count)
        .map(|(s, &c)| if c > 0 { s / c as f64 } else { f64::NAN })
        .collect();
    let mut flowing_layer = None;
    for k in 1..layers {
        let (a, b) = (velocity[k - 1], velocity[k]);
        if a.is_finite() && b.is_finite() && a > 0.0 && b <= 0.0 {
            flowing_layer = Some(depth[k - 1] + layer * a / (a - b));
            break;
        }
    }
    Profile {
        depth,
        velocity,
        count,
        flowing_layer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_shear_profile_reverses_at_its_zero() {
        // Flat surface y = 0; grains at depth h move downhill... here along −x̂ (x̂ = up × axis
        // = ŷ × ẑ = x̂, slope 0 → downhill is +x̂) with u(h) = 1 − h/3: zero at h = 3.
        let f = DrumFrame::new(DVec3::ZERO, DVec3::Z, DVec3::new(0.0, -1.0, 0.0));
        let line = LineFit {
            slope: 0.0,
            intercept: 0.0,
            n: 3,
        };
        let mut pos = Vec::new();
        let mut vel = Vec::new();
        for k in 0..100 {
            let h = 0.05 + 0.1 * k as f64;
            pos.push(DVec3::new(0.0, -h, 0.0));
            vel.push(DVec3::new(1.0 - h / 3.0, 0.0, 0.0));
        }
        let p = velocity_profile(&f, &line, &pos, &vel, 1.0, 0.5, 12);
        let fl = p.flowing_layer.expect("reverses");
        assert!((fl - 3.0).abs() < 1e-9, "{fl}");
    }
}
