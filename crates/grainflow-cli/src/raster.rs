//! Drawing spheres into an RGB image without a graphics library: an orthographic view, each
//! sphere's disc shaded as a lit ball (Lambert plus ambient light) and kept or hidden pixel by
//! pixel by its true depth (a z-buffer of spheres, so intersecting grains cut each other
//! correctly), and wall outlines as depth-tested lines.

use glam::DVec3;

/// Where the viewer looks from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum View {
    /// Along −x, from +x: y to the right, z up.
    X,
    /// Along +y, from −y: x to the right, z up (a side view).
    Y,
    /// Along −z, from +z: x to the right, y up (a top view).
    Z,
    /// From (1, −1, 1): x and y receding, z up.
    Iso,
}

impl View {
    /// Unit vectors of the screen's right, its up and towards the viewer.
    pub fn basis(self) -> [DVec3; 3] {
        match self {
            View::X => [DVec3::Y, DVec3::Z, DVec3::X],
            View::Y => [DVec3::X, DVec3::Z, DVec3::NEG_Y],
            View::Z => [DVec3::X, DVec3::Y, DVec3::Z],
            View::Iso => {
                let toward = DVec3::new(1.0, -1.0, 1.0).normalize();
                let right = DVec3::Z.cross(toward).normalize();
                [right, toward.cross(right), toward]
            }
        }
    }
}

/// A sphere to draw, its colour already chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    /// Centre (m).
    pub pos: DVec3,
    /// Radius (m).
    pub radius: f64,
    /// Colour (RGB, 0–255).
    pub rgb: [u8; 3],
}

/// An RGB image with its depth buffer and the mapping from the world.
pub struct Canvas {
    /// Width and height (pixels).
    pub size: (usize, usize),
    /// Row-major RGB bytes, top row first.
    pub rgb: Vec<u8>,
    depth: Vec<f32>,
    basis: [DVec3; 3],
    /// World point at the image's centre (m), pixels per metre.
    centre: DVec3,
    scale: f64,
}

/// Direction of the light (unit), towards the viewer's upper left, in screen coordinates.
const LIGHT: DVec3 = DVec3::new(-0.4, 0.5, 0.768_114_574_786_860_8);
/// Share of ambient light.
const AMBIENT: f64 = 0.3;

impl Canvas {
    /// A white canvas of `size` pixels looking along `view` at the box `lo..hi`, which fills
    /// the image less a margin of `margin` pixels on each side.
    pub fn new(size: (usize, usize), view: View, (lo, hi): (DVec3, DVec3), margin: f64) -> Self {
        let basis = view.basis();
        let corners = (0..8).map(|k| {
            let pick = |bit: usize, a: f64, b: f64| if k >> bit & 1 == 0 { a } else { b };
            DVec3::new(
                pick(0, lo.x, hi.x),
                pick(1, lo.y, hi.y),
                pick(2, lo.z, hi.z),
            )
        });
        let (mut min, mut max) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for c in corners {
            for a in 0..2 {
                let s = c.dot(basis[a]);
                min[a] = min[a].min(s);
                max[a] = max[a].max(s);
            }
        }
        let span = [max[0] - min[0], max[1] - min[1]];
        let room = [size.0 as f64 - 2.0 * margin, size.1 as f64 - 2.0 * margin];
        let scale = (room[0] / span[0]).min(room[1] / span[1]);
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        let centre = 0.5 * (lo + hi);
        Canvas {
            size,
            rgb: vec![255; 3 * size.0 * size.1],
            depth: vec![f32::NEG_INFINITY; size.0 * size.1],
            basis,
            centre,
            scale,
        }
    }

    /// Screen position (pixels, y down) and depth (pixels towards the viewer) of `p`.
    pub fn project(&self, p: DVec3) -> (f64, f64, f64) {
        let d = p - self.centre;
        let [r, u, t] = self.basis;
        (
            0.5 * self.size.0 as f64 + d.dot(r) * self.scale,
            0.5 * self.size.1 as f64 - d.dot(u) * self.scale,
            d.dot(t) * self.scale,
        )
    }

    /// Draws `ball`: every pixel of its disc whose point on the sphere is nearer the viewer
    /// than what is there.
    pub fn ball(&mut self, ball: &Ball) {
        let (cx, cy, cz) = self.project(ball.pos);
        let r = ball.radius * self.scale;
        let (w, h) = (self.size.0 as i64, self.size.1 as i64);
        let x0 = ((cx - r).floor() as i64).max(0);
        let x1 = ((cx + r).ceil() as i64).min(w - 1);
        let y0 = ((cy - r).floor() as i64).max(0);
        let y1 = ((cy + r).ceil() as i64).min(h - 1);
        let (r2, inv) = (r * r, 1.0 / r.max(1e-12));
        let base = ball.rgb.map(f64::from);
        for y in y0..=y1 {
            let dy = y as f64 + 0.5 - cy;
            for x in x0..=x1 {
                let dx = x as f64 + 0.5 - cx;
                let q = r2 - dx * dx - dy * dy;
                if q < 0.0 {
                    continue;
                }
                let dz = q.sqrt();
                let k = (y * w + x) as usize;
                let z = (cz + dz) as f32;
                if z <= self.depth[k] {
                    continue;
                }
                self.depth[k] = z;
                let normal = DVec3::new(dx * inv, -dy * inv, dz * inv);
                let light = AMBIENT + (1.0 - AMBIENT) * normal.dot(LIGHT).max(0.0);
                for (c, b) in base.iter().enumerate() {
                    self.rgb[3 * k + c] = (b * light).round().clamp(0.0, 255.0) as u8;
                }
            }
        }
    }

    /// Draws the segment a–b in `rgb`, hidden where a sphere is nearer the viewer.
    pub fn line(&mut self, a: DVec3, b: DVec3, rgb: [u8; 3]) {
        let (pa, pb) = (self.project(a), self.project(b));
        let steps = (pb.0 - pa.0).abs().max((pb.1 - pa.1).abs()).ceil().max(1.0) as usize;
        if steps > 1 << 16 {
            return;
        }
        for s in 0..=steps {
            let t = s as f64 / steps as f64;
            let (x, y) = (pa.0 + t * (pb.0 - pa.0), pa.1 + t * (pb.1 - pa.1));
            let z = (pa.2 + t * (pb.2 - pa.2)) as f32;
            let (x, y) = (x.floor() as i64, y.floor() as i64);
            if x < 0 || y < 0 || x >= self.size.0 as i64 || y >= self.size.1 as i64 {
                continue;
            }
            let k = y as usize * self.size.0 + x as usize;
            if z + 0.5 >= self.depth[k] {
                self.rgb[3 * k..3 * k + 3].copy_from_slice(&rgb);
            }
        }
    }
}

/// Viridis (matplotlib's default map, perceptually uniform), at eight stops.
const VIRIDIS: [[u8; 3]; 8] = [
    [68, 1, 84],
    [70, 50, 127],
    [54, 92, 141],
    [39, 127, 142],
    [31, 161, 135],
    [74, 194, 109],
    [159, 218, 58],
    [253, 231, 37],
];

/// The colour of `t` in [0, 1] on viridis, linearly between the stops; clamped outside.
pub fn viridis(t: f64) -> [u8; 3] {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let k = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - k as f64;
    let (a, b) = (VIRIDIS[k], VIRIDIS[k + 1]);
    [0, 1, 2].map(|c| (f64::from(a[c]) + f * (f64::from(b[c]) - f64::from(a[c]))).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Canvas {
        /// The colour of pixel (x, y).
        fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
            let k = 3 * (y * self.size.0 + x);
            [self.rgb[k], self.rgb[k + 1], self.rgb[k + 2]]
        }
    }

    fn canvas(view: View) -> Canvas {
        // A 2 m cube seen in 100 × 100 pixels without margin: 50 pixels per metre.
        Canvas::new(
            (100, 100),
            view,
            (DVec3::splat(-1.0), DVec3::splat(1.0)),
            0.0,
        )
    }

    #[test]
    fn a_ball_covers_its_disc_and_nothing_else() {
        let mut c = canvas(View::Z);
        let red = [200, 0, 0];
        c.ball(&Ball {
            pos: DVec3::new(0.5, 0.5, 0.0),
            radius: 0.2,
            rgb: red,
        });
        // Centre at pixel (75, 25), radius 10 pixels.
        assert_ne!(c.pixel(75, 25), [255; 3]);
        assert_eq!(c.pixel(75, 25)[1], 0, "shaded red");
        assert_ne!(c.pixel(75 + 8, 25), [255; 3]);
        assert_eq!(c.pixel(75 + 11, 25), [255; 3]);
        assert_eq!(c.pixel(75, 25 + 11), [255; 3]);
        assert_eq!(c.pixel(25, 75), [255; 3]);
        // Lambert: the pixel centre (75.5, 25.5) is 0.5 px right and below the disc's centre,
        // so n̂ = (0.05, −0.05, √0.995) and the light is 0.3 + 0.7 n̂·l of 200.
        let n = DVec3::new(0.05, -0.05, 0.995f64.sqrt());
        let want = (200.0 * (AMBIENT + (1.0 - AMBIENT) * n.dot(LIGHT))).round() as u8;
        assert_eq!(c.pixel(75, 25)[0], want);
        assert!((LIGHT.length() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn the_nearer_of_two_overlapping_balls_hides_the_other() {
        for order in [false, true] {
            let mut c = canvas(View::Y);
            let near = Ball {
                pos: DVec3::new(0.0, -0.5, 0.0),
                radius: 0.3,
                rgb: [0, 0, 200],
            };
            let far = Ball {
                pos: DVec3::new(0.1, 0.5, 0.0),
                radius: 0.3,
                rgb: [0, 200, 0],
            };
            // Drawn in either order, the ball at y = −0.5 (nearer a viewer at −y) is in front.
            let balls = if order { [near, far] } else { [far, near] };
            for b in &balls {
                c.ball(b);
            }
            let p = c.pixel(52, 50);
            assert!(p[2] > 0 && p[1] == 0, "order {order}: {p:?}");
            // Where only the far one reaches, it shows.
            let q = c.pixel(50 + 19, 50);
            assert!(q[1] > 0 && q[2] == 0, "{q:?}");
        }
    }

    #[test]
    fn intersecting_balls_cut_each_other_by_true_depth() {
        // Two equal balls side by side in x, the left one 0.2 m nearer the viewer at +z: on
        // the seam the nearer surface wins pixel by pixel.
        let mut c = canvas(View::Z);
        c.ball(&Ball {
            pos: DVec3::new(-0.15, 0.0, 0.2),
            radius: 0.3,
            rgb: [200, 0, 0],
        });
        c.ball(&Ball {
            pos: DVec3::new(0.15, 0.0, 0.0),
            radius: 0.3,
            rgb: [0, 0, 200],
        });
        // At x = 0 the left ball's surface is at 0.2 + √(0.09 − 0.0225) > the right's.
        assert!(c.pixel(50, 50)[0] > 0, "{:?}", c.pixel(50, 50));
        assert!(c.pixel(50 + 12, 50)[2] > 0);
    }

    #[test]
    fn viridis_ends_and_middle() {
        assert_eq!(viridis(0.0), [68, 1, 84]);
        assert_eq!(viridis(1.0), [253, 231, 37]);
        assert_eq!(viridis(2.0), viridis(1.0));
        assert_eq!(viridis(0.5), [35, 144, 139]);
    }
}
