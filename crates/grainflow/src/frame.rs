//! A reference frame rotating with angular velocity ω(t) about a fixed axis (003 §3.2).
//!
//! In the frame attached to a spinning asteroid, a grain at r (measured from a point on the
//! axis) with velocity v feels, besides gravity and contacts (003 eq 31–33, restored in
//! `seeds/README.md` from the standard rotating-frame equations):
//!
//!   a = −2 Ω × v − Ω × (Ω × r),   Ω = ω(t) â,
//!
//! the Coriolis and centrifugal accelerations. ω may follow a schedule, e.g. "raise ω by
//! 0.1 ω_c every 10 s" (003 §3.2). As in 003, a step in ω is applied without the Euler
//! acceleration −Ω̇ × r: the grains keep their frame velocities across the step (in the
//! paper's set-up, a real Euler kick at 8 km from the axis would be a tangential jolt of
//! Δω R_A ≈ 0.6 m/s, which the paper's quasi-static spin-up does not have).

use glam::DVec3;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::Error;

/// The `[frame]` table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frame {
    /// Direction of the rotation axis (normalised on use).
    pub axis: DVec3,
    /// A point on the axis (m), e.g. the asteroid's centre.
    #[serde(default, deserialize_with = "crate::units::length")]
    pub origin: DVec3,
    /// Angular velocity at t = 0 (rad/s).
    #[serde(default, deserialize_with = "crate::units::angular_velocity")]
    pub omega: f64,
    /// Steps of ω in time; constant ω when absent.
    #[serde(default)]
    pub schedule: Option<SpinSchedule>,
}

/// ω(t) = ω₀ + step · k for t in [start + k·every, start + (k+1)·every), k ≥ 0 … up to `steps`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpinSchedule {
    /// Increase of ω at each step (rad/s).
    #[serde(deserialize_with = "crate::units::angular_velocity")]
    pub step: f64,
    /// Time between steps (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub every: f64,
    /// Time of the first interval (s); ω = ω₀ before `start + every`.
    #[serde(default, deserialize_with = "crate::units::time")]
    pub start: f64,
    /// Number of increases after which ω stays constant.
    pub steps: u32,
}

impl Frame {
    /// ω (rad/s) at time t (s).
    pub fn omega_at(&self, t: f64) -> f64 {
        match self.schedule {
            None => self.omega,
            Some(s) => {
                let k = ((t - s.start) / s.every).floor().clamp(0.0, s.steps as f64);
                self.omega + s.step * k
            }
        }
    }

    /// Angular velocity vector Ω = ω(t) â (rad/s).
    pub fn angular_velocity(&self, t: f64) -> DVec3 {
        self.omega_at(t) * self.axis.normalize()
    }

    /// Coriolis + centrifugal acceleration (m/s²) at position x (m) with frame velocity v (m/s).
    #[inline]
    pub fn acceleration(w: DVec3, origin: DVec3, x: DVec3, v: DVec3) -> DVec3 {
        -2.0 * w.cross(v) - w.cross(w.cross(x - origin))
    }

    /// Adds the frame accelerations at time t to `acc` (same length as `pos` and `vel`).
    pub fn add_accelerations(&self, t: f64, pos: &[DVec3], vel: &[DVec3], acc: &mut [DVec3]) {
        let w = self.angular_velocity(t);
        let origin = self.origin;
        acc.par_iter_mut()
            .zip(pos.par_iter().zip(vel.par_iter()))
            .with_min_len(crate::particles::MIN_LEN)
            .for_each(|(a, (&x, &v))| *a += Frame::acceleration(w, origin, x, v));
    }

    /// Centrifugal potential energy −½ m |Ω × r|² (J) of a mass m (kg) at x (m), time t (s).
    pub fn potential(&self, t: f64, mass: f64, x: DVec3) -> f64 {
        -0.5 * mass
            * self
                .angular_velocity(t)
                .cross(x - self.origin)
                .length_squared()
    }

    /// Everything a run would refuse in the `[frame]` table, with field paths.
    pub fn problems(&self) -> Vec<Error> {
        let mut p = Vec::new();
        if !(self.axis.is_finite() && self.axis.length_squared() > 0.0) {
            p.push(Error::scene(
                "frame.axis",
                format!("must be a finite non-zero vector, got {:?}", self.axis),
            ));
        }
        if !self.origin.is_finite() {
            p.push(Error::scene(
                "frame.origin",
                format!("must be finite, got {:?}", self.origin),
            ));
        }
        if !self.omega.is_finite() {
            p.push(Error::scene(
                "frame.omega",
                format!("must be finite, got {}", self.omega),
            ));
        }
        if let Some(s) = self.schedule {
            if !s.step.is_finite() {
                p.push(Error::scene(
                    "frame.schedule.step",
                    format!("must be finite, got {}", s.step),
                ));
            }
            if !(s.every.is_finite() && s.every > 0.0) {
                p.push(Error::scene(
                    "frame.schedule.every",
                    format!("must be a finite number > 0, got {}", s.every),
                ));
            }
            if !s.start.is_finite() {
                p.push(Error::scene(
                    "frame.schedule.start",
                    format!("must be finite, got {}", s.start),
                ));
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_raises_omega_by_tenths_of_the_critical_rate() {
        // 003 §3.2: ω_c = 7.4453e-4 rad/s, raised by 0.1 ω_c every 10 s, ten times.
        let wc = 7.4453e-4;
        let f = Frame {
            axis: DVec3::Z,
            origin: DVec3::new(0.0, -8000.0, 0.0),
            omega: 0.0,
            schedule: Some(SpinSchedule {
                step: 0.1 * wc,
                every: 10.0,
                start: 0.0,
                steps: 10,
            }),
        };
        assert_eq!(f.omega_at(9.99), 0.0);
        assert!((f.omega_at(10.0) - 0.1 * wc).abs() < 1e-18);
        assert!((f.omega_at(45.0) - 0.4 * wc).abs() < 1e-18);
        assert!((f.omega_at(500.0) - wc).abs() < 1e-18);
    }

    #[test]
    fn centrifugal_and_coriolis_match_closed_form() {
        // At 8 km from the axis on the +y side: centrifugal ω² R outward (+y); a grain moving
        // up at v ŷ feels −2 ω ẑ × v ŷ = +2 ω v x̂.
        let (w, r, v) = (1e-3, 8000.0, 0.5);
        let a = Frame::acceleration(
            DVec3::new(0.0, 0.0, w),
            DVec3::ZERO,
            DVec3::new(0.0, r, 0.0),
            DVec3::new(0.0, v, 0.0),
        );
        assert!((a - DVec3::new(2.0 * w * v, w * w * r, 0.0)).length() < 1e-15);
    }
}
