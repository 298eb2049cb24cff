//! A layer of grains lining the inside of a cylinder: the glued grains that make a drum's wall
//! rough (002 §6.2: "a frictional wall condition is modelled by creating the drum's inner
//! cylinder out of particles"; 000 §3.2: particles stuck to the cylinder wall).
//!
//! Rings of touching spheres of radius r, every 2r along the axis over the length, each ring
//! at distance R − r (1 − 10⁻⁶) from the axis so that it just touches a wall of radius R (a
//! sticky wall then holds it from the first step). A ring holds n = ⌊π / asin(r/ρ)⌋ spheres,
//! the most whose chords 2ρ sin(π/n) are at least 2r; alternate rings turn by half a step.

use glam::DVec3;

use super::Sphere;
use crate::walls::plate::any_perpendicular;

/// Spheres of radius `r` lining a cylinder of radius `radius` about `axis` (unit) through
/// `center`, over `length` along the axis (m). Empty when the cylinder is narrower than 2r.
pub fn cylinder_layer(center: DVec3, axis: DVec3, radius: f64, length: f64, r: f64) -> Vec<Sphere> {
    let rho = radius - r * (1.0 - 1e-6);
    if !(r > 0.0 && rho > r && length.is_finite() && length >= 0.0) {
        return Vec::new();
    }
    let n = (std::f64::consts::PI / (r / rho).asin()).floor() as usize;
    let rings = ((length / (2.0 * r)).floor() as usize).max(1);
    let e1 = any_perpendicular(axis);
    let e2 = axis.cross(e1);
    let mut out = Vec::with_capacity(n * rings);
    for ring in 0..rings {
        let h = (ring as f64 - 0.5 * (rings - 1) as f64) * 2.0 * r;
        let shift = if ring % 2 == 1 { 0.5 } else { 0.0 };
        for k in 0..n {
            let a = std::f64::consts::TAU * (k as f64 + shift) / n as f64;
            out.push(Sphere {
                pos: center + h * axis + rho * (a.cos() * e1 + a.sin() * e2),
                radius: r,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_of_touching_spheres_just_inside_the_wall() {
        // R = 31 mm, r = 0.5 mm: ρ = 30.5 mm, n = ⌊π / asin(0.5/30.5)⌋ = 191; L = 5 mm → 5 rings.
        let s = cylinder_layer(DVec3::ZERO, DVec3::Z, 0.031, 0.005, 0.0005);
        assert_eq!(s.len(), 5 * 191);
        for a in &s {
            let rho = a.pos.truncate().length();
            assert!((rho + a.radius - 0.031) > 0.0 && (rho + a.radius - 0.031) < 1e-9);
        }
        let gap = (s[1].pos - s[0].pos).length();
        assert!((0.001 - 1e-12..0.00101).contains(&gap));
    }
}
