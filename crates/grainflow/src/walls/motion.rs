//! Wall motion, separate from geometry: every motion is a function of time giving the wall's
//! displacement from its placement in the scene, its translational velocity, and a rotation
//! (angle and angular velocity about an axis). Nothing is integrated, so a run resumed from a
//! checkpoint puts its walls exactly where a continuous run would.
//!
//! * translation at constant velocity V from a start time (000 §2.2.1);
//! * oscillation A sin(Ω t) along a direction, velocity A Ω cos(Ω t) (000 §2.2.1);
//! * rotation about an axis at Ω, optionally ramped linearly from rest over `ramp` seconds
//!   (a sudden start disturbs the bed, 000 §3.2);
//! * earthquakes as a sum of sine waves, d = Σ D [sin((t − S) 2π/p + c) + o] and
//!   m = Σ 2π D/p cos((t − S) 2π/p + c) while S ≤ t ≤ E (001 eq 7.1–7.2);
//! * a table of displacements T_k every δ seconds from a start time, interpolated,
//!   d = (1 − o) T_k + o T_{k+1}, m = (T_{k+1} − T_k)/δ (001 eq 7.3–7.4).
//!
//! A material point of the wall that sat at x₀ in the scene is at
//! c + D(t) + R(θ(t)) (x₀ − c) and moves at V(t) + ω(t) â × (x − c − D(t)).

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};

/// One sine wave of an earthquake (001 §4.6 `earthquake_sine_wave_offset`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wave {
    /// Start time S (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub start: f64,
    /// End time E (s); the wave contributes nothing outside [S, E].
    #[serde(deserialize_with = "crate::units::time")]
    pub end: f64,
    /// Displacement amplitude D (m, a vector).
    #[serde(deserialize_with = "crate::units::length")]
    pub displacement: DVec3,
    /// Period p (s).
    #[serde(deserialize_with = "crate::units::time")]
    pub period: f64,
    /// Initial cycle c (rad), where in the sine the wave starts.
    #[serde(default, deserialize_with = "crate::units::angle")]
    pub phase: f64,
    /// Offset o (−): 0 swings ±D, 1 swings between 2D and 0.
    #[serde(default)]
    pub offset: f64,
}

/// How a wall moves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Motion {
    /// At rest.
    #[default]
    Fixed,
    /// Constant velocity from `start`.
    Translate {
        /// Velocity V (m/s).
        #[serde(deserialize_with = "crate::units::velocity")]
        velocity: DVec3,
        /// Time the motion starts (s).
        #[serde(default, deserialize_with = "crate::units::time")]
        start: f64,
    },
    /// A sin(Ω t) along `direction` (000 §2.2.1).
    Oscillate {
        /// Amplitude A (m).
        #[serde(deserialize_with = "crate::units::length")]
        amplitude: f64,
        /// Angular frequency Ω (rad/s).
        #[serde(deserialize_with = "crate::units::angular_velocity")]
        frequency: f64,
        /// Direction of the oscillation (normalised on load), usually the wall's normal.
        direction: DVec3,
    },
    /// Rotation about the axis through `center`.
    Rotate {
        /// A point of the rotation axis (m).
        #[serde(deserialize_with = "crate::units::length")]
        center: DVec3,
        /// Rotation axis (normalised on load); positive Ω turns counter-clockwise about it.
        axis: DVec3,
        /// Final angular velocity Ω (rad/s).
        #[serde(deserialize_with = "crate::units::angular_velocity")]
        omega: f64,
        /// Time the rotation starts (s).
        #[serde(default, deserialize_with = "crate::units::time")]
        start: f64,
        /// Duration of the linear ramp from rest to Ω (s); 0 starts at once.
        #[serde(default, deserialize_with = "crate::units::time")]
        ramp: f64,
    },
    /// Sum of sine waves moving the whole wall (001 eq 7.1–7.2).
    Earthquake {
        /// The waves.
        waves: Vec<Wave>,
    },
    /// Displacements sampled every `interval` seconds from `start` (001 eq 7.3–7.4).
    Table {
        /// Time of the first sample (s).
        #[serde(deserialize_with = "crate::units::time")]
        start: f64,
        /// Time between samples δ (s).
        #[serde(deserialize_with = "crate::units::time")]
        interval: f64,
        /// Displacements T_k (m); the wall is at T_0 before `start` and at the last one after.
        #[serde(deserialize_with = "crate::units::length")]
        displacements: Vec<DVec3>,
    },
}

/// Where a wall is at one time, and how its material moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Displacement D from the scene placement (m).
    pub offset: DVec3,
    /// Translational velocity V (m/s).
    pub velocity: DVec3,
    /// Point of the rotation axis in the scene placement (m).
    pub center: DVec3,
    /// Rotation from the scene placement.
    pub rotation: DQuat,
    /// Angular velocity vector ω â (rad/s).
    pub omega: DVec3,
}

impl Default for Pose {
    fn default() -> Self {
        Pose {
            offset: DVec3::ZERO,
            velocity: DVec3::ZERO,
            center: DVec3::ZERO,
            rotation: DQuat::IDENTITY,
            omega: DVec3::ZERO,
        }
    }
}

impl Pose {
    /// True when the wall is where the scene put it.
    pub fn is_identity(&self) -> bool {
        self.offset == DVec3::ZERO && self.rotation == DQuat::IDENTITY
    }

    /// A world point expressed in the scene placement of the wall.
    #[inline]
    pub fn to_local(&self, x: DVec3) -> DVec3 {
        self.rotation.inverse() * (x - self.offset - self.center) + self.center
    }

    /// A scene-placement point carried to where the wall is now.
    #[inline]
    pub fn to_world(&self, x: DVec3) -> DVec3 {
        self.rotation * (x - self.center) + self.center + self.offset
    }

    /// Velocity (m/s) of the wall's material at world point `x`.
    #[inline]
    pub fn velocity_at(&self, x: DVec3) -> DVec3 {
        self.velocity + self.omega.cross(x - self.center - self.offset)
    }
}

impl Motion {
    /// Whether `shape` stays where the scene put it under this motion: at rest, or turning
    /// about an axis it is symmetric about (a drum's cylinder and end plates). Its surface then
    /// moves only along itself, so contacts are found without transforming the grain.
    pub fn keeps_in_place(&self, shape: &super::Shape) -> bool {
        match self {
            Motion::Fixed => true,
            Motion::Rotate { center, axis, .. } => shape.symmetric_about(*center, *axis),
            _ => false,
        }
    }

    /// Whether the wall never turns (it stays in place or only moves along): its pose is an
    /// offset alone, so the distance from a grain to it changes by no more than the offset.
    pub fn translates(&self) -> bool {
        !matches!(self, Motion::Rotate { .. })
    }

    /// The wall's pose at time `t` (s).
    pub fn pose(&self, t: f64) -> Pose {
        match self {
            Motion::Fixed => Pose::default(),
            Motion::Translate { velocity, start } => {
                let s = (t - start).max(0.0);
                Pose {
                    offset: *velocity * s,
                    velocity: if t >= *start { *velocity } else { DVec3::ZERO },
                    ..Pose::default()
                }
            }
            Motion::Oscillate {
                amplitude,
                frequency,
                direction,
            } => Pose {
                offset: *direction * (amplitude * (frequency * t).sin()),
                velocity: *direction * (amplitude * frequency * (frequency * t).cos()),
                ..Pose::default()
            },
            Motion::Rotate {
                center,
                axis,
                omega,
                start,
                ramp,
            } => {
                let s = (t - start).max(0.0);
                let (angle, rate) = if s < *ramp {
                    (0.5 * omega * s * s / ramp, omega * s / ramp)
                } else {
                    (omega * (s - 0.5 * ramp), *omega)
                };
                Pose {
                    center: *center,
                    rotation: DQuat::from_axis_angle(*axis, angle),
                    omega: *axis * rate,
                    ..Pose::default()
                }
            }
            Motion::Earthquake { waves } => {
                let mut pose = Pose::default();
                for w in waves.iter().filter(|w| t >= w.start && t <= w.end) {
                    let k = std::f64::consts::TAU / w.period;
                    let arg = (t - w.start) * k + w.phase;
                    pose.offset += w.displacement * (arg.sin() + w.offset);
                    pose.velocity += w.displacement * (k * arg.cos());
                }
                pose
            }
            Motion::Table {
                start,
                interval,
                displacements,
            } => {
                let n = displacements.len();
                let x = (t - start) / interval;
                if n == 0 {
                    return Pose::default();
                }
                if x <= 0.0 || n == 1 {
                    return Pose {
                        offset: displacements[0],
                        ..Pose::default()
                    };
                }
                let k = x.floor() as usize;
                if k + 1 >= n {
                    return Pose {
                        offset: displacements[n - 1],
                        ..Pose::default()
                    };
                }
                let o = x - k as f64;
                let (a, b) = (displacements[k], displacements[k + 1]);
                Pose {
                    offset: a * (1.0 - o) + b * o,
                    velocity: (b - a) / *interval,
                    ..Pose::default()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walls::{Cylinder, Plane, Shape, Side};

    #[test]
    fn a_drum_turning_about_its_axis_stays_in_place_and_nothing_else_does() {
        // Every point of a shape that stays in place is carried onto the shape by the pose:
        // checked on the drum of 002 §6 (cylinder + end plates about z) at a quarter turn.
        let turn = Motion::Rotate {
            center: DVec3::new(0.1, -0.2, 0.0),
            axis: DVec3::Z,
            omega: 2.0,
            start: 0.0,
            ramp: 0.0,
        };
        let cylinder = |origin: DVec3| {
            Shape::Cylinder(Cylinder {
                origin,
                axis: DVec3::Z,
                radius: 0.03,
                side: Side::Inside,
                length: Some(0.005),
            })
        };
        let plane = |normal: DVec3| {
            Shape::Plane(Plane {
                point: DVec3::new(0.0, 0.0, -0.0025),
                normal,
                both: false,
            })
        };
        let drum = Shape::Union(vec![
            cylinder(DVec3::new(0.1, -0.2, -0.0025)),
            plane(DVec3::Z),
            plane(DVec3::NEG_Z),
        ]);
        assert!(turn.keeps_in_place(&drum));
        assert!(Motion::Fixed.keeps_in_place(&drum));
        // Off the axis, tilted, or translated: the surface moves.
        assert!(!turn.keeps_in_place(&cylinder(DVec3::new(0.1, -0.19, 0.0))));
        assert!(!turn.keeps_in_place(&plane(DVec3::new(0.0, 0.6, 0.8))));
        let slide = Motion::Translate {
            velocity: DVec3::X,
            start: 0.0,
        };
        assert!(!slide.keeps_in_place(&plane(DVec3::Z)));
        // The contact of a grain with the turned drum equals the contact with the drum as placed.
        let pose = turn.pose(std::f64::consts::FRAC_PI_4);
        for x in [DVec3::new(0.125, -0.2, 0.0), DVec3::new(0.1, -0.17, 0.002)] {
            let moved = drum
                .contact(pose.to_local(x), 0.001)
                .expect("touches")
                .overlap;
            let placed = drum.contact(x, 0.001).expect("touches").overlap;
            assert!((moved - placed).abs() < 1e-15, "{moved} vs {placed}");
        }
    }

    /// Central difference of the offset against the reported velocity.
    fn velocity_matches_displacement(m: &Motion, times: &[f64], tol: f64) {
        let h = 1e-6;
        for &t in times {
            let fd = (m.pose(t + h).offset - m.pose(t - h).offset) / (2.0 * h);
            let v = m.pose(t).velocity;
            assert!(
                (fd - v).length() <= tol,
                "{m:?} at t = {t}: {fd:?} vs {v:?}"
            );
        }
    }

    #[test]
    fn oscillation_is_a_sin_omega_t() {
        // 000 §2.2.1: displacement A sin(Ω T) N̂, velocity Ω A cos(Ω T) N̂.
        let m = Motion::Oscillate {
            amplitude: 1e-3,
            frequency: 2.0 * std::f64::consts::PI * 50.0,
            direction: DVec3::Z,
        };
        let p = m.pose(0.005);
        assert!((p.offset.z - 1e-3).abs() < 1e-15 && p.velocity.z.abs() < 1e-15);
        velocity_matches_displacement(&m, &[0.001, 0.0123, 0.3], 1e-6);
    }

    #[test]
    fn earthquake_sum_of_sines_and_table_follow_eq_7() {
        // 001 §8.4: earthquake_sine_wave_offset 2 8 0.248 0 0 1 −π/2 1: starts at rest at 0,
        // swings to 2 D = 0.496 m half a period later (eq 7.1).
        let m = Motion::Earthquake {
            waves: vec![Wave {
                start: 2.0,
                end: 8.0,
                displacement: DVec3::new(0.248, 0.0, 0.0),
                period: 1.0,
                phase: -std::f64::consts::FRAC_PI_2,
                offset: 1.0,
            }],
        };
        assert!(m.pose(2.0).offset.x.abs() < 1e-15);
        assert!((m.pose(2.5).offset.x - 0.496).abs() < 1e-12);
        assert_eq!(m.pose(1.0).offset, DVec3::ZERO);
        velocity_matches_displacement(&m, &[2.1, 3.77, 7.9], 1e-6);
        // eq 7.3–7.4: linear between samples, velocity the difference over δ.
        let t = Motion::Table {
            start: 1.0,
            interval: 0.5,
            displacements: vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 2.0, 0.0)],
        };
        let p = t.pose(1.75);
        assert!((p.offset - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-15);
        assert!((p.velocity - DVec3::new(0.0, 4.0, 0.0)).length() < 1e-15);
        assert_eq!(t.pose(9.0).offset, DVec3::new(1.0, 2.0, 0.0));
        assert_eq!(t.pose(9.0).velocity, DVec3::ZERO);
    }

    #[test]
    fn ramped_rotation_angle_is_the_integral_of_the_rate() {
        let m = Motion::Rotate {
            center: DVec3::new(1.0, 0.0, 0.0),
            axis: DVec3::Z,
            omega: 2.0,
            start: 0.5,
            ramp: 1.0,
        };
        // During the ramp θ = ½ Ω s²/T; after it θ = Ω (s − T/2).
        let angle = |t: f64| m.pose(t).rotation.to_axis_angle().1;
        assert!((angle(1.0) - 0.25).abs() < 1e-12);
        assert!((angle(2.0) - 2.0).abs() < 1e-12);
        assert!((m.pose(1.0).omega.z - 1.0).abs() < 1e-15);
        // A material point moves at ω × (x − c): the point (2, 0, 0) at Ω = 2 moves at 2 ŷ.
        let p = m.pose(3.0);
        let x = p.to_world(DVec3::new(2.0, 0.0, 0.0));
        assert!(((p.velocity_at(x)).length() - 2.0).abs() < 1e-12);
        assert!((p.to_local(x) - DVec3::new(2.0, 0.0, 0.0)).length() < 1e-14);
    }

    #[test]
    fn translation_starts_on_time() {
        let m = Motion::Translate {
            velocity: DVec3::new(-0.1, 0.0, 0.0),
            start: 1.0,
        };
        assert_eq!(m.pose(0.5).offset, DVec3::ZERO);
        assert_eq!(m.pose(0.5).velocity, DVec3::ZERO);
        assert!((m.pose(1.5).offset.x + 0.05).abs() < 1e-15);
    }
}
