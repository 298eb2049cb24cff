//! A free rigid body in six degrees of freedom: centre of mass, velocity, orientation
//! quaternion and angular momentum (space frame), moved by velocity Verlet as the grains are
//! (003 §2.1, eq 3–10): half kick with the last force and torque, drift, new forces, half kick.
//!
//! **Rotation.** The drift of the orientation is the free rigid body's flow over the step,
//! split symmetrically into exact rotations about the principal axes,
//! R₁(dt/2) R₂(dt/2) R₃(dt) R₂(dt/2) R₁(dt/2) (A. Dullweber, B. Leimkuhler & R. McLachlan,
//! "Symplectic splitting methods for rigid body molecular dynamics", J. Chem. Phys. 107, 5840,
//! 1997, §III): Rₖ(h) turns the body about its k-th principal axis by h πₖ/Iₖ, πₖ the body-frame
//! angular momentum, which leaves the space-frame L unchanged and the energy πₖ²/2Iₖ of that
//! axis with it. L is kept in the space frame and only the torque changes it: in free flight it
//! is conserved to the bit, the energy stays bounded (the method is symplectic, second order),
//! and the intermediate-axis flip comes with its period.
//!
//! **Constraints.** Components of the translation along world x, y, z may be held (their
//! velocity and force stay 0), and the rotation may be free, about one world axis only (with
//! the moment of inertia about that axis, which turning about it leaves unchanged), or held.

use glam::{DQuat, DVec3};

use crate::walls::Pose;

/// Which rotations a body may make.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spin {
    /// Any: the free rigid body.
    Free,
    /// About this unit world axis only, with this moment of inertia about it (kg m²).
    Axis(DVec3, f64),
    /// None.
    Held,
}

/// What stays fixed of a rigid body for the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyConstants {
    /// Mass m (kg).
    pub mass: f64,
    /// Principal moments I₁, I₂, I₃ (kg m²).
    pub moments: DVec3,
    /// The principal axes in the scene placement (unit vectors).
    pub axes: [DVec3; 3],
    /// Centre of mass in the scene placement (m).
    pub center: DVec3,
    /// Per world axis x, y, z: whether translation along it is held.
    pub held: [bool; 3],
    /// Which rotations it may make.
    pub spin: Spin,
}

/// A rigid body's state: what a checkpoint stores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Centre of mass (m).
    pub pos: DVec3,
    /// Velocity of the centre of mass (m/s).
    pub vel: DVec3,
    /// Rotation from the scene placement.
    pub turn: DQuat,
    /// Angular momentum about the centre of mass, space frame (kg m²/s).
    pub momentum: DVec3,
    /// Force (N) and torque about the centre of mass (N m) of the last evaluation.
    pub force: DVec3,
    /// See `force`.
    pub torque: DVec3,
}

/// A rigid body: its constants and state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidBody {
    /// Mass, inertia, constraints.
    pub constants: BodyConstants,
    /// Where it is and how it moves.
    pub state: BodyState,
}

impl RigidBody {
    /// A body with `constants` at its scene placement, its centre moving at `vel` (m/s) and
    /// spinning at `spin` (rad/s, world frame), no force yet. Held components of `vel` and
    /// `spin` are the caller's to refuse.
    pub fn new(constants: BodyConstants, vel: DVec3, spin: DVec3) -> Self {
        let mut body = RigidBody {
            constants,
            state: BodyState {
                pos: constants.center,
                vel,
                turn: DQuat::IDENTITY,
                momentum: DVec3::ZERO,
                force: DVec3::ZERO,
                torque: DVec3::ZERO,
            },
        };
        body.state.momentum = match constants.spin {
            Spin::Free => body.inertia_times(spin),
            Spin::Axis(e, i) => e * (i * spin.dot(e)),
            Spin::Held => DVec3::ZERO,
        };
        body
    }

    /// I ω in the world frame at the current orientation: Σₖ aₖ Iₖ (aₖ · ω), aₖ the turned
    /// principal axes.
    pub fn inertia_times(&self, omega: DVec3) -> DVec3 {
        let c = &self.constants;
        (0..3).fold(DVec3::ZERO, |s, k| {
            let a = self.state.turn * c.axes[k];
            s + a * (c.moments[k] * a.dot(omega))
        })
    }

    /// Angular velocity ω = I⁻¹ L (rad/s, world frame).
    pub fn omega(&self) -> DVec3 {
        let (c, s) = (&self.constants, &self.state);
        match c.spin {
            Spin::Free => (0..3).fold(DVec3::ZERO, |sum, k| {
                let a = s.turn * c.axes[k];
                sum + a * (a.dot(s.momentum) / c.moments[k])
            }),
            Spin::Axis(e, i) => e * (s.momentum.dot(e) / i),
            Spin::Held => DVec3::ZERO,
        }
    }

    /// Kinetic energy ½ m v² + ½ ω · L (J).
    pub fn kinetic_energy(&self) -> f64 {
        let s = &self.state;
        0.5 * self.constants.mass * s.vel.length_squared() + 0.5 * self.omega().dot(s.momentum)
    }

    /// Where the body is as a wall pose: its material point that sat at x₀ in the scene is at
    /// turn (x₀ − c₀) + x and moves at v + ω × (x − x_c).
    pub fn pose(&self) -> Pose {
        let s = &self.state;
        Pose {
            offset: s.pos - self.constants.center,
            velocity: s.vel,
            center: self.constants.center,
            rotation: s.turn,
            omega: self.omega(),
        }
    }

    /// Takes the force (N) and torque about the centre of mass (N m) on the body, with the held
    /// components dropped: the next kicks use them.
    pub fn load(&mut self, force: DVec3, torque: DVec3) {
        let c = &self.constants;
        let keep = |held: bool, x: f64| if held { 0.0 } else { x };
        self.state.force = DVec3::new(
            keep(c.held[0], force.x),
            keep(c.held[1], force.y),
            keep(c.held[2], force.z),
        );
        self.state.torque = match c.spin {
            Spin::Free => torque,
            Spin::Axis(e, _) => e * torque.dot(e),
            Spin::Held => DVec3::ZERO,
        };
    }

    /// v += h F/m and L += h τ with the last force and torque (003 eq 3–6, 9–10).
    pub fn kick(&mut self, h: f64) {
        let s = &mut self.state;
        s.vel += s.force * (h / self.constants.mass);
        s.momentum += s.torque * h;
    }

    /// x += dt v, and the orientation carried by the free flow over `dt` (the symmetric
    /// splitting of Dullweber, Leimkuhler & McLachlan: see the module's doc).
    pub fn drift(&mut self, dt: f64) {
        let c = self.constants;
        let s = &mut self.state;
        s.pos += s.vel * dt;
        match c.spin {
            Spin::Free => {
                for (k, h) in [(0, 0.5), (1, 0.5), (2, 1.0), (1, 0.5), (0, 0.5)] {
                    // πₖ = aₖ · (turn⁻¹ L) with aₖ in the scene placement; turning about the
                    // placed axis aₖ on the right turns the body about its own k-th axis.
                    let pi = c.axes[k].dot(s.turn.inverse() * s.momentum);
                    let angle = h * dt * pi / c.moments[k];
                    s.turn *= DQuat::from_axis_angle(c.axes[k], angle);
                }
                s.turn = s.turn.normalize();
            }
            Spin::Axis(e, i) => {
                let angle = dt * s.momentum.dot(e) / i;
                s.turn = (DQuat::from_axis_angle(e, angle) * s.turn).normalize();
            }
            Spin::Held => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A free body of mass 2 kg with principal moments `moments` along axes turned from the
    /// world's by 0.4 rad about (1, 1, 0).
    fn tumbler(moments: DVec3, spin: Spin) -> BodyConstants {
        let q = DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.4);
        BodyConstants {
            mass: 2.0,
            moments,
            axes: [q * DVec3::X, q * DVec3::Y, q * DVec3::Z],
            center: DVec3::new(0.1, 0.2, 0.3),
            held: [false; 3],
            spin,
        }
    }

    #[test]
    fn a_tumbling_asymmetric_body_keeps_its_angular_momentum_and_bounded_energy() {
        let mut b = RigidBody::new(
            tumbler(DVec3::new(1.0, 2.0, 3.5), Spin::Free),
            DVec3::ZERO,
            DVec3::new(0.3, 4.0, -1.0),
        );
        let l0 = b.state.momentum;
        let e0 = b.kinetic_energy();
        let mut worst_e: f64 = 0.0;
        for _ in 0..20_000 {
            let before = b.inertia_times(b.omega());
            b.kick(0.5e-3);
            b.drift(1e-3);
            b.kick(0.5e-3);
            // L = I ω from the new orientation and spin: within 1e-10 of the last step's.
            let after = b.inertia_times(b.omega());
            assert!(
                (after - before).length() <= 1e-10 * l0.length(),
                "{after} vs {before}"
            );
            worst_e = worst_e.max((b.kinetic_energy() / e0 - 1.0).abs());
        }
        assert!((b.inertia_times(b.omega()) - l0).length() <= 1e-10 * l0.length());
        // Second order: the energy error stays O(dt²), bounded over the 20 s.
        assert!(worst_e <= 1e-4, "{worst_e}");
    }

    #[test]
    fn a_body_under_gravity_follows_the_parabola() {
        let g = DVec3::new(0.0, 0.0, -9.81);
        let mut b = RigidBody::new(
            tumbler(DVec3::new(1.0, 2.0, 3.0), Spin::Held),
            DVec3::new(1.5, 0.0, 3.0),
            DVec3::ZERO,
        );
        let x0 = b.state.pos;
        let dt = 1e-3;
        b.load(b.constants.mass * g, DVec3::ZERO);
        for n in 1..=1000 {
            b.kick(0.5 * dt);
            b.drift(dt);
            b.load(b.constants.mass * g, DVec3::ZERO);
            b.kick(0.5 * dt);
            let t = n as f64 * dt;
            // Velocity Verlet is exact for a constant force: x = x₀ + v₀ t + ½ g t².
            let want = x0 + DVec3::new(1.5, 0.0, 3.0) * t + 0.5 * g * t * t;
            assert!(
                (b.state.pos - want).length() <= 1e-12 * want.length(),
                "{n}"
            );
        }
        assert_eq!(b.state.turn, DQuat::IDENTITY);
    }

    /// K(k) = π / (2 AGM(1, √(1 − k²))), the complete elliptic integral of the first kind.
    fn elliptic_k(k2: f64) -> f64 {
        let (mut a, mut b) = (1.0f64, (1.0 - k2).sqrt());
        while (a - b).abs() > 1e-16 * a {
            (a, b) = (0.5 * (a + b), (a * b).sqrt());
        }
        std::f64::consts::PI / (2.0 * a)
    }

    #[test]
    fn the_intermediate_axis_flips_with_the_elliptic_period() {
        // Torque-free, I₁ < I₂ < I₃ (Landau & Lifshitz, Mechanics §37): the body-frame Ω₂ goes
        // as sn τ, τ = λ t, so it changes sign every 2K(k)/λ, with for M² > 2 E I₂
        // λ² = (I₃ − I₂)(M² − 2E I₁)/(I₁I₂I₃), k² = (I₂ − I₁)(2E I₃ − M²)/((I₃ − I₂)(M² − 2E I₁)),
        // and for M² < 2E I₂ the same with I₁ and I₃ exchanged.
        let i = DVec3::new(1.0, 2.0, 3.0);
        let w0 = DVec3::new(0.05, 2.0, 0.08);
        let c = BodyConstants {
            axes: [DVec3::X, DVec3::Y, DVec3::Z],
            ..tumbler(i, Spin::Free)
        };
        let mut b = RigidBody::new(c, DVec3::ZERO, w0);
        let e2 = (i * w0 * w0).element_sum();
        let m2 = (i * w0).length_squared();
        let (i1, i3) = if m2 > e2 * i.y {
            (i.x, i.z)
        } else {
            (i.z, i.x)
        };
        let lambda = ((i3 - i.y) * (m2 - e2 * i1) / (i.x * i.y * i.z)).sqrt();
        let k2 = (i.y - i1) * (e2 * i3 - m2) / ((i3 - i.y) * (m2 - e2 * i1));
        let half = 2.0 * elliptic_k(k2) / lambda;
        // Ω₂ = ŷ · turn⁻¹ ω; its sign changes found by linear interpolation.
        let dt = 1e-4;
        let omega2 = |b: &RigidBody| (b.state.turn.inverse() * b.omega()).y;
        let mut crossings = Vec::new();
        let mut last = omega2(&b);
        for n in 1..=((3.2 * half / dt) as usize) {
            b.drift(dt);
            let now = omega2(&b);
            if now.signum() != last.signum() {
                crossings.push((n as f64 - now / (now - last)) * dt);
            }
            last = now;
        }
        assert!(crossings.len() >= 3, "{crossings:?} (half period {half})");
        for pair in crossings.windows(2) {
            let got = pair[1] - pair[0];
            assert!((got / half - 1.0).abs() <= 1e-5, "{got} vs {half}");
        }
    }

    #[test]
    fn held_translation_and_a_single_axis_keep_to_their_constraints() {
        let axis = DVec3::Z;
        let c = BodyConstants {
            held: [true, true, false],
            ..tumbler(DVec3::new(1.0, 2.0, 3.0), Spin::Axis(axis, 2.5))
        };
        let mut b = RigidBody::new(c, DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.0, 0.0, 2.0));
        b.load(DVec3::new(3.0, -4.0, 2.0), DVec3::new(1.0, 1.0, 5.0));
        for _ in 0..100 {
            b.kick(0.005);
            b.drift(0.01);
            b.kick(0.005);
        }
        // x, y held; z under F_z/m = 1 m/s²; spin about z only, Ω = 2 + 5/2.5 t.
        let s = b.state;
        assert_eq!((s.pos.x, s.pos.y), (0.1, 0.2));
        assert!((s.vel.z - 2.0).abs() <= 1e-12);
        assert!((b.omega() - DVec3::new(0.0, 0.0, 4.0)).length() <= 1e-12);
        // Turned by ∫Ω = 2 + 1 = 3 rad about z (the Verlet sum of a linear rate is exact).
        let (a, angle) = s.turn.to_axis_angle();
        assert!((a - axis).length() <= 1e-12 && (angle - 3.0).abs() <= 1e-12);
    }
}
