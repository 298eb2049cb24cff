//! Dimensionless numbers of a rotating drum (002 §6.1).

use std::f64::consts::PI;

/// Froude number Fr = ω² D / (2 g) (002 eq 31; 000 eq 32 with R = D/2): drum angular speed ω
/// (rad/s), diameter D (m), gravity g (m/s²).
pub fn froude_number(omega: f64, diameter: f64, g: f64) -> f64 {
    omega * omega * diameter / (2.0 * g)
}

/// The angular speed (rad/s) giving Froude number `fr` in a drum of `diameter` (m) under `g`.
pub fn omega_for_froude(fr: f64, diameter: f64, g: f64) -> f64 {
    (2.0 * g * fr / diameter).sqrt()
}

/// Granular Bond number of the Perko cohesion model, Bo = C₃ R / (4/3 π r³ ρ g) (002 eq 32–33):
/// cohesion multiplier C₃ (kg/s², i.e. N/m), effective radius R (m), grain radius r (m),
/// density ρ (kg/m³), gravity g (m/s²).
pub fn bond_number(c3: f64, r_eff: f64, r: f64, density: f64, g: f64) -> f64 {
    c3 * r_eff / (4.0 / 3.0 * PI * r.powi(3) * density * g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_3_rows() {
        // 002 Table 3: D = 60 mm at 5.4 rpm and g₀ gives Fr = 0.001; 55 rpm gives 0.1.
        let rpm = |n: f64| n * 2.0 * PI / 60.0;
        assert!((froude_number(rpm(5.4), 0.06, 9.81) - 0.000978).abs() < 1e-5);
        assert!((froude_number(rpm(55.0), 0.06, 9.81) - 0.1015).abs() < 1e-3);
        let w = omega_for_froude(0.01, 0.06, 9.81);
        assert!((froude_number(w, 0.06, 9.81) - 0.01).abs() < 1e-15);
        // C₃ = 51.37 g/s² (0.05137 N/m), 1 mm glass (r = 0.5 mm, R = 0.25 mm), 1 g₀: Bo ≈ 1.
        let bo = bond_number(0.05137, 0.25e-3, 0.5e-3, 2500.0, 9.81);
        assert!((bo - 1.0).abs() < 0.01, "{bo}");
    }
}
