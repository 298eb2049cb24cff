//! Analysis of granular states, for the validation cases and `grainflow analyze`:
//! dimensionless numbers of a drum (002 eq 31–33), the dynamic angle of repose of a drum's
//! free surface and the angle of a pile (002 §5.3, §6.3), and the streamwise velocity profile
//! with the flowing-layer thickness (002 §6.3), and stress tensors on planes and in boxes
//! (003 eq 36). The functions read the state and never change a simulation.

pub mod couette;
pub mod numbers;
pub mod packing;
pub mod profile;
pub mod repose;
pub mod stress;

pub use numbers::{bond_number, froude_number, omega_for_froude};
pub use profile::{velocity_profile, Profile};
pub use repose::{drum_angle, pile_angle, DrumFrame, LineFit, PileAngle};

/// Mean and standard deviation of the mean of `values` (002 §6.3 error bars); (NaN, NaN) when
/// empty, and a zero error for a single value.
pub fn mean_and_error(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_standard_error() {
        // 1, 2, 3: mean 2, sample variance 1, error 1/√3.
        let (m, e) = mean_and_error(&[1.0, 2.0, 3.0]);
        assert!((m - 2.0).abs() < 1e-15 && (e - 1.0 / 3f64.sqrt()).abs() < 1e-15);
    }
}
