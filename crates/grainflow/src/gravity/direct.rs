//! Self-gravity by direct summation over every pair, O(N²): the exact reference (003 eq 41).
//!
//! a_i = Σ_{j≠i} G m_j (x_j − x_i) / (|x_j − x_i|² + ε²)^{3/2} with Plummer softening ε.
//! Each particle's sum runs over j in ascending order on one thread, so the result does not
//! depend on the thread count; x_j − x_i = −(x_i − x_j) exactly in floating point, so each pair
//! acts with equal and opposite forces and only the summation order rounds.

use glam::DVec3;
use rayon::prelude::*;

/// Pair acceleration kernel: G m_j d / (|d|² + ε²)^{3/2} for the offset d = x_j − x_i (m).
#[inline(always)]
pub fn pair(g_mj: f64, d: DVec3, eps2: f64) -> DVec3 {
    let r2 = d.length_squared() + eps2;
    if r2 == 0.0 {
        return DVec3::ZERO;
    }
    let inv = 1.0 / r2.sqrt();
    d * (g_mj * inv * inv * inv)
}

/// Adds the exact self-gravity (m/s²) of every particle to `acc`.
pub fn accelerations(g: f64, softening: f64, pos: &[DVec3], mass: &[f64], acc: &mut [DVec3]) {
    accelerations_of(g, softening, (pos, mass), None, acc);
}

/// [`accelerations`] for the particles `wanted` only (all when None); the others keep `acc`.
pub fn accelerations_of(
    g: f64,
    softening: f64,
    (pos, mass): (&[DVec3], &[f64]),
    wanted: Option<&[bool]>,
    acc: &mut [DVec3],
) {
    let eps2 = softening * softening;
    acc.par_iter_mut()
        .enumerate()
        .with_min_len(64)
        .filter(|(i, _)| wanted.is_none_or(|w| w[*i]))
        .for_each(|(i, a)| *a += acceleration_at(g, eps2, pos, mass, i));
}

/// The exact self-gravity (m/s²) on particle `i` from all others.
pub fn acceleration_at(g: f64, eps2: f64, pos: &[DVec3], mass: &[f64], i: usize) -> DVec3 {
    let xi = pos[i];
    let mut a = DVec3::ZERO;
    for (j, (&xj, &mj)) in pos.iter().zip(mass).enumerate() {
        if j != i {
            a += pair(g * mj, xj - xi, eps2);
        }
    }
    a
}

/// Potential energy −Σ_{i<j} G m_i m_j / √(r² + ε²) (J), rows summed in order.
pub fn potential(g: f64, softening: f64, pos: &[DVec3], mass: &[f64]) -> f64 {
    let eps2 = softening * softening;
    let rows: Vec<f64> = (0..pos.len())
        .into_par_iter()
        .with_min_len(64)
        .map(|i| {
            let mut u = 0.0;
            for j in i + 1..pos.len() {
                let r2 = (pos[j] - pos[i]).length_squared() + eps2;
                if r2 > 0.0 {
                    u -= g * mass[i] * mass[j] / r2.sqrt();
                }
            }
            u
        })
        .collect();
    rows.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_bodies_attract_by_newtons_law_and_conserve_momentum() {
        // G = 1, masses 2 and 3 kg at distance 2 m: |a_0| = 3/4, |a_1| = 2/4, opposite forces.
        let pos = [DVec3::ZERO, DVec3::new(0.0, 2.0, 0.0)];
        let mass = [2.0, 3.0];
        let mut acc = vec![DVec3::ZERO; 2];
        accelerations(1.0, 0.0, &pos, &mass, &mut acc);
        assert_eq!(acc[0], DVec3::new(0.0, 0.75, 0.0));
        assert_eq!(acc[1], DVec3::new(0.0, -0.5, 0.0));
        assert_eq!(acc[0] * mass[0] + acc[1] * mass[1], DVec3::ZERO);
        assert_eq!(potential(1.0, 0.0, &pos, &mass), -3.0);
    }
}
