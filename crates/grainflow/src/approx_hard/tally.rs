//! Proxy stress from collision impulses (seed 004 §II.1, eq 3–4).
//!
//! The stress of a granular assembly is σ_kl = (1/V) Σ_contacts f_k l_l (004 eq 3, Radjai et al.
//! 1996). With instantaneous collisions the forces are replaced by the impulses J summed over an
//! interval T: σ_kl ≈ (1/(V T)) Σ_collisions J_k l_l (004 eq 4, as restored in
//! `seeds/README.md`). Per grain, with J the impulse the grain receives and l the lever from
//! its centre to the contact point, σ_i = (1/(V_i T)) Σ J ⊗ l; summed over the two grains of a
//! pair this is −J ⊗ (x_j − x_i), J on j, so a region's stress is the sum of its grains'
//! tallies over V T. Compression is negative, as in [`crate::analysis::stress`] (003's sign).
//! Beside the tensor, each grain keeps Σ|J_n| and Σ|J_t|, the seed's "magnitude of normal and
//! tangential momentum transfer", and each wall the impulses it receives.
//!
//! The proxy is the trace of the stress for flows of brief collisions; in lasting contacts the
//! number of collisions depends on dt, so there it only measures the stress up to a factor
//! (004 §II.1).

use glam::{DMat3, DVec3};

/// Impulses since the last [`ImpulseTally::reset`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImpulseTally {
    /// Simulated time of the last reset (s).
    pub since: f64,
    /// Per grain: Σ J ⊗ l (N s m), J received, l from the centre to the contact point.
    pub moment: Vec<DMat3>,
    /// Per grain: Σ |J·n̂| (N s).
    pub normal: Vec<f64>,
    /// Per grain: Σ |J − (J·n̂) n̂| (N s).
    pub tangential: Vec<f64>,
    /// Per wall: Σ J received (N s).
    pub wall_impulse: Vec<DVec3>,
    /// Per wall: Σ |J·n̂| (N s).
    pub wall_normal: Vec<f64>,
    /// Collisions counted.
    pub collisions: u64,
}

impl ImpulseTally {
    /// Starts a new interval at time `now` (s).
    pub fn reset(&mut self, now: f64) {
        let (n, w) = (self.moment.len(), self.wall_normal.len());
        *self = ImpulseTally::default();
        self.resize(n, w, now);
    }

    /// Sizes the tallies for `n` grains and `walls` walls; a change of size (grains removed)
    /// starts a new interval at `now`.
    pub fn resize(&mut self, n: usize, walls: usize, now: f64) {
        if self.moment.len() != n || self.wall_normal.len() != walls {
            *self = ImpulseTally {
                since: now,
                moment: vec![DMat3::ZERO; n],
                normal: vec![0.0; n],
                tangential: vec![0.0; n],
                wall_impulse: vec![DVec3::ZERO; walls],
                wall_normal: vec![0.0; walls],
                collisions: 0,
            };
        }
    }

    /// Grain k received impulse `j` at lever `l` (m) from its centre; n̂ is the contact normal.
    pub fn add_grain(&mut self, k: usize, j: DVec3, l: DVec3, n: DVec3) {
        self.moment[k] += outer(j, l);
        let jn = j.dot(n);
        self.normal[k] += jn.abs();
        self.tangential[k] += (j - jn * n).length();
    }

    /// Wall w received impulse `j` at a contact of normal n̂.
    pub fn add_wall(&mut self, w: usize, j: DVec3, n: DVec3) {
        self.wall_impulse[w] += j;
        self.wall_normal[w] += j.dot(n).abs();
    }

    /// Proxy stress σ = (1/(V T)) Σ_{k selected} Σ J ⊗ l (004 eq 4) of the grains with
    /// `select(k)` over a region of volume `volume` (m³; in 2-D an area, m²) at time `now` (s).
    pub fn stress(&self, select: impl Fn(usize) -> bool, volume: f64, now: f64) -> DMat3 {
        let t = now - self.since;
        let sum = (0..self.moment.len())
            .filter(|&k| select(k))
            .fold(DMat3::ZERO, |a, k| a + self.moment[k]);
        sum * (1.0 / (volume * t))
    }

    /// Mean normal force on wall w (N): Σ |J_n| / T.
    pub fn wall_force(&self, w: usize, now: f64) -> f64 {
        self.wall_normal[w] / (now - self.since)
    }
}

/// The dyadic a ⊗ b: (a ⊗ b)_kl = a_k b_l (columns are a b_l).
pub fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_grains_pressed_along_x_give_negative_sigma_xx() {
        // Grains at x = 0 and 2 (radius 1) collide: J = 3 x̂ on j, −J on i, n̂ = x̂. In T = 2 s
        // over V = 6 m³: σ_xx = −J (x_j − x_i)/(V T) = −3·2/12 = −0.5 Pa, other terms zero.
        let mut t = ImpulseTally::default();
        t.resize(2, 0, 1.0);
        let (n, j) = (DVec3::X, DVec3::new(3.0, 0.0, 0.0));
        t.add_grain(0, -j, n, n);
        t.add_grain(1, j, -n, n);
        let s = t.stress(|_| true, 6.0, 3.0);
        assert!((s.x_axis.x + 0.5).abs() < 1e-15);
        assert!(s.x_axis.y == 0.0 && s.y_axis.y == 0.0 && s.z_axis.z == 0.0);
        assert_eq!(t.normal, vec![3.0, 3.0]);
        t.reset(3.0);
        assert_eq!(t.since, 3.0);
        assert_eq!(t.moment[1], DMat3::ZERO);
    }
}
