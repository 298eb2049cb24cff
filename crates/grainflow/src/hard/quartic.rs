//! Roots of a polynomial of low degree by Laguerre's method (000 §2.2.5: the ring's quartic,
//! eq 13, is solved this way; Press et al. 2007 §9.5).
//!
//! Laguerre's iteration converges to some root from any start without bracketing; each root
//! found is divided out (deflation) and, once all are known, polished against the undeflated
//! polynomial so that deflation errors do not accumulate. Complex arithmetic is needed even
//! for real coefficients (a real quartic may have two complex pairs); a small type suffices.

use std::ops::{Add, Div, Mul, Sub};

/// A complex number.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complex {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

impl Complex {
    /// re + i im.
    pub const fn new(re: f64, im: f64) -> Complex {
        Complex { re, im }
    }

    /// |z|, without overflow for large parts.
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }

    /// The principal square root (non-negative real part).
    pub fn sqrt(self) -> Complex {
        let r = self.abs();
        if r == 0.0 {
            return Complex::default();
        }
        let a = (0.5 * (r + self.re.abs())).sqrt();
        let b = 0.5 * self.im / a;
        if self.re >= 0.0 {
            Complex::new(a, b)
        } else if self.im >= 0.0 {
            Complex::new(b.abs(), a)
        } else {
            Complex::new(b.abs(), -a)
        }
    }

    fn scale(self, k: f64) -> Complex {
        Complex::new(k * self.re, k * self.im)
    }
}

impl Add for Complex {
    type Output = Complex;
    fn add(self, o: Complex) -> Complex {
        Complex::new(self.re + o.re, self.im + o.im)
    }
}

impl Sub for Complex {
    type Output = Complex;
    fn sub(self, o: Complex) -> Complex {
        Complex::new(self.re - o.re, self.im - o.im)
    }
}

impl Mul for Complex {
    type Output = Complex;
    fn mul(self, o: Complex) -> Complex {
        Complex::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

impl Div for Complex {
    type Output = Complex;
    fn div(self, o: Complex) -> Complex {
        // Smith's algorithm: no overflow when one part of o is much larger than the other.
        if o.re.abs() >= o.im.abs() {
            let r = o.im / o.re;
            let d = o.re + r * o.im;
            Complex::new((self.re + r * self.im) / d, (self.im - r * self.re) / d)
        } else {
            let r = o.re / o.im;
            let d = o.im + r * o.re;
            Complex::new((self.re * r + self.im) / d, (self.im * r - self.re) / d)
        }
    }
}

/// Fractions of a Laguerre step taken every `CYCLE` iterations to break limit cycles.
const BREAK: [f64; 8] = [0.5, 0.25, 0.75, 0.13, 0.38, 0.62, 0.88, 1.0];
const CYCLE: usize = 10;

/// Refines `x` towards a root of Σ a[k] x^k (a[0] is the constant term) by Laguerre's method.
fn laguerre(a: &[Complex], mut x: Complex) -> Complex {
    let m = a.len() - 1;
    let mf = m as f64;
    for iter in 1..=CYCLE * (BREAK.len() + 1) {
        // Horner: value b, first derivative d and half the second derivative f, with a bound
        // on the round-off of b.
        let mut b = a[m];
        let mut err = b.abs();
        let mut d = Complex::default();
        let mut f = Complex::default();
        let abx = x.abs();
        for j in (0..m).rev() {
            f = x * f + d;
            d = x * d + b;
            b = x * b + a[j];
            err = b.abs() + abx * err;
        }
        if b.abs() <= err * f64::EPSILON {
            return x;
        }
        let g = d / b;
        let g2 = g * g;
        let h = g2 - (f / b).scale(2.0);
        let sq = ((h.scale(mf) - g2).scale(mf - 1.0)).sqrt();
        let (gp, gm) = (g + sq, g - sq);
        let denom = if gp.abs() >= gm.abs() { gp } else { gm };
        let dx = if denom.abs() > 0.0 {
            Complex::new(mf, 0.0) / denom
        } else {
            let k = iter as f64;
            Complex::new(k.cos(), k.sin()).scale(1.0 + abx)
        };
        let next = x - dx;
        if next == x {
            return x;
        }
        x = if iter % CYCLE != 0 {
            next
        } else {
            // Past the last fraction (iterations 81–90) the cycle starts again.
            x - dx.scale(BREAK[(iter / CYCLE - 1) % BREAK.len()])
        };
    }
    x
}

/// The four roots of the quartic Σ a\[k\] x^k with real coefficients, a\[0\] the constant term and
/// a\[4\] non-zero, each polished against the full polynomial (no allocation: it runs for every
/// ring and rim prediction).
pub fn quartic_roots(a: &[f64; 5]) -> [Complex; 4] {
    let full = a.map(|c| Complex::new(c, 0.0));
    let mut work = full;
    let mut roots = [Complex::default(); 4];
    for deg in (1..=4).rev() {
        let mut x = laguerre(&work[..=deg], Complex::default());
        // A root with a negligible imaginary part is taken as real.
        if x.im.abs() <= 2.0 * f64::EPSILON * x.re.abs() {
            x.im = 0.0;
        }
        roots[4 - deg] = x;
        // Synthetic division by (t − x): the quotient is work[..deg].
        let mut b = work[deg];
        for j in (0..deg).rev() {
            let c = work[j];
            work[j] = b;
            b = x * b + c;
        }
    }
    roots.map(|x| laguerre(&full, x))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coefficients (constant first) of Π (t − r_k) for real roots r_k.
    fn from_roots(roots: &[f64; 4]) -> [f64; 5] {
        let mut c = vec![1.0];
        for &r in roots {
            let mut next = vec![0.0; c.len() + 1];
            for (k, &ck) in c.iter().enumerate() {
                next[k + 1] += ck;
                next[k] -= r * ck;
            }
            c = next;
        }
        c.try_into().expect("four roots make a quartic")
    }

    #[test]
    fn four_real_roots_are_found() {
        let want = [-3.0, 0.5, 1.25, 7.0];
        let mut got: Vec<f64> = quartic_roots(&from_roots(&want))
            .iter()
            .map(|z| {
                assert!(z.im.abs() < 1e-12, "{z:?}");
                z.re
            })
            .collect();
        got.sort_by(f64::total_cmp);
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12 * w.abs().max(1.0), "{g} vs {w}");
        }
    }

    #[test]
    fn complex_pairs_and_close_roots() {
        // (t² + 1)(t² − 2t + 5): roots ±i and 1 ± 2i.
        let a = [5.0, -2.0, 6.0, -2.0, 1.0];
        let roots = quartic_roots(&a);
        for want in [(0.0, 1.0), (0.0, -1.0), (1.0, 2.0), (1.0, -2.0)] {
            assert!(
                roots
                    .iter()
                    .any(|z| (z.re - want.0).abs() < 1e-12 && (z.im - want.1).abs() < 1e-12),
                "{want:?} not in {roots:?}"
            );
        }
        // Two roots 1e-6 apart stay distinct.
        let want = [1.0, 1.0 + 1e-6, -2.0, 4.0];
        let roots = quartic_roots(&from_roots(&want));
        for w in want {
            assert!(
                roots.iter().any(|z| (z.re - w).abs() < 1e-9),
                "{w} {roots:?}"
            );
        }
    }

    #[test]
    fn complex_square_root_and_division() {
        let z = Complex::new(-3.0, -4.0);
        let r = z.sqrt();
        assert!(((r * r) - z).abs() < 1e-15 && r.re >= 0.0);
        let q = Complex::new(1.0, 2.0) / Complex::new(3.0, -4.0);
        assert!((q - Complex::new(-0.2, 0.4)).abs() < 1e-15);
    }
}
