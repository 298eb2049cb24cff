//! Body forces from gravity fields. A scene may combine fields; each one adds m·g(x).
//!
//! Uniform gravity of any direction and magnitude (micro-g regolith to many-g centrifuges).

use glam::DVec3;
use serde::{Deserialize, Serialize};

/// The gravity fields of a scene.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gravity {
    /// Uniform acceleration g (m/s²), e.g. [0, 0, -9.81].
    #[serde(default)]
    pub uniform: Option<DVec3>,
}

impl Gravity {
    /// Acceleration at a point (m/s²).
    #[inline]
    pub fn acceleration(&self, _pos: DVec3) -> DVec3 {
        self.uniform.unwrap_or(DVec3::ZERO)
    }

    /// Potential energy of a mass m (kg) at `pos` (m), zero at the origin: −m g·x (J).
    pub fn potential(&self, mass: f64, pos: DVec3) -> f64 {
        -mass * self.uniform.unwrap_or(DVec3::ZERO).dot(pos)
    }
}
