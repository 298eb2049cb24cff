//! Energies of a state: the kinetic energy of translation and rotation, and the potential
//! energy of the gravity fields and the rotating frame.

use crate::physics::Physics;
use crate::world::World;

/// Energies of the current state (J).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Energies {
    /// Σ ½ m v².
    pub translational: f64,
    /// Σ ½ I ω².
    pub rotational: f64,
    /// Gravitational potential energy.
    pub potential: f64,
}

impl Energies {
    /// The energies of `world` in the fields of `physics`; grains that cannot move carry no
    /// potential energy in the external fields.
    pub fn of(world: &World, physics: &Physics) -> Energies {
        let p = &world.particles;
        let t = world.time;
        let external: f64 = (0..p.len())
            .filter(|&k| p.inv_mass[k] > 0.0)
            .map(|k| {
                physics.gravity.potential(p.mass[k], p.pos[k])
                    + physics
                        .frame
                        .map_or(0.0, |f| f.potential(t, p.mass[k], p.pos[k]))
            })
            .sum();
        let potential = external + physics.gravity.self_potential(&p.pos, &p.mass);
        Energies {
            translational: p.translational_energy(),
            rotational: p.rotational_energy(),
            potential,
        }
    }
}
