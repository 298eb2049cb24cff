//! The particle store: spheres as a struct of arrays with stable ids.
//!
//! Index `k` addresses the same particle in every array. Ids are stable across
//! reordering and removal; indices are not. Mass, inertia and their inverses are
//! kept together so that fixed particles (infinite mass) and locked rotation
//! (infinite inertia) are a zero inverse, not a special case in the integrator.

use glam::DVec3;

/// Fewest items a parallel loop hands to one task: small systems run on one thread
/// without waking the others.
pub(crate) const MIN_LEN: usize = 512;

/// Items one parallel task handles in the loops over particles (pairs, gather, drift): large
/// enough that the loop body, not the task bookkeeping, dominates; small systems run on one
/// thread.
pub(crate) const CHUNK: usize = 1024;

/// Solid-sphere moment of inertia, I = 2/5 m r² (kg m²).
pub fn sphere_inertia(mass: f64, radius: f64) -> f64 {
    0.4 * mass * radius * radius
}

/// Mass of a homogeneous sphere, m = 4/3 π r³ ρ (kg), from radius (m) and density (kg/m³).
pub fn sphere_mass(radius: f64, density: f64) -> f64 {
    4.0 / 3.0 * std::f64::consts::PI * radius.powi(3) * density
}

/// The inner zone of a core/shell pebble (001 eq 3.5–3.6): a tennis ball has a core of
/// density 0, a fuel pebble a fuelled core inside a graphite shell.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Core {
    /// Core radius r_c (m), absolute, below every radius of the material's particles.
    #[serde(deserialize_with = "crate::units::length")]
    pub radius: f64,
    /// Core density ρ_c (kg/m³), ≥ 0.
    #[serde(deserialize_with = "crate::units::density")]
    pub density: f64,
}

/// Mass (kg) and moment of inertia (kg m²) of a sphere of radius r_o (m) and density ρ_o
/// (kg/m³) with an optional core: m = 4/3 π [ρ_c r_c³ + ρ_o (r_o³ − r_c³)] (001 eq 3.5),
/// I = 8/15 π [ρ_c r_c⁵ + ρ_o (r_o⁵ − r_c⁵)] (eq 3.6).
pub fn core_shell_mass_inertia(radius: f64, density: f64, core: Option<Core>) -> (f64, f64) {
    let Some(c) = core else {
        let m = sphere_mass(radius, density);
        return (m, sphere_inertia(m, radius));
    };
    let pi = std::f64::consts::PI;
    let (rc3, ro3) = (c.radius.powi(3), radius.powi(3));
    let (rc5, ro5) = (c.radius.powi(5), radius.powi(5));
    (
        4.0 / 3.0 * pi * (c.density * rc3 + density * (ro3 - rc3)),
        8.0 / 15.0 * pi * (c.density * rc5 + density * (ro5 - rc5)),
    )
}

/// How a particle may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mobility {
    /// Translates and rotates under the forces on it.
    #[default]
    Free,
    /// Translates, never rotates (a block sliding, 002 §4.1.5).
    NoRotation,
    /// Held in place: infinite mass and inertia (a fixed sphere, 002 §4.1.2).
    Fixed,
}

/// One particle as given by a user or a filling routine, before it enters the store.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleSpec {
    /// Position of the centre (m).
    pub pos: DVec3,
    /// Velocity (m/s).
    pub vel: DVec3,
    /// Angular velocity (rad/s).
    pub omega: DVec3,
    /// Radius (m).
    pub radius: f64,
    /// Index into the scene's material table.
    pub material: usize,
    /// How it may move.
    pub mobility: Mobility,
}

/// All particles, struct of arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Particles {
    /// Stable id, unique in a run.
    pub id: Vec<u64>,
    /// Centre position (m).
    pub pos: Vec<DVec3>,
    /// Velocity (m/s).
    pub vel: Vec<DVec3>,
    /// Angular velocity (rad/s).
    pub omega: Vec<DVec3>,
    /// Radius (m).
    pub radius: Vec<f64>,
    /// Mass (kg), finite even for fixed particles (used in output and energies).
    pub mass: Vec<f64>,
    /// 1/m (1/kg); zero for fixed particles.
    pub inv_mass: Vec<f64>,
    /// Moment of inertia (kg m²).
    pub inertia: Vec<f64>,
    /// 1/I (1/(kg m²)); zero for fixed particles and locked rotation.
    pub inv_inertia: Vec<f64>,
    /// Material index.
    pub material: Vec<u16>,
    /// How each particle may move.
    pub mobility: Vec<Mobility>,
    /// Force accumulated in the current step (N).
    pub force: Vec<DVec3>,
    /// Torque accumulated in the current step (N m).
    pub torque: Vec<DVec3>,
    /// Passes through the vessel: times the particle was recirculated (001 chapter 6).
    pub passes: Vec<u32>,
}

impl Particles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// True when there are no particles.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// Appends a particle with the given mass (a homogeneous sphere); returns its index.
    pub fn push(&mut self, id: u64, spec: &ParticleSpec, mass: f64) -> usize {
        self.push_with_inertia(id, spec, mass, sphere_inertia(mass, spec.radius))
    }

    /// Appends a particle with the given mass (kg) and moment of inertia (kg m²).
    pub fn push_with_inertia(
        &mut self,
        id: u64,
        spec: &ParticleSpec,
        mass: f64,
        inertia: f64,
    ) -> usize {
        let (inv_mass, inv_inertia) = match spec.mobility {
            Mobility::Free => (1.0 / mass, 1.0 / inertia),
            Mobility::NoRotation => (1.0 / mass, 0.0),
            Mobility::Fixed => (0.0, 0.0),
        };
        self.id.push(id);
        self.pos.push(spec.pos);
        self.vel.push(spec.vel);
        self.omega.push(spec.omega);
        self.radius.push(spec.radius);
        self.mass.push(mass);
        self.inv_mass.push(inv_mass);
        self.inertia.push(inertia);
        self.inv_inertia.push(inv_inertia);
        self.material.push(spec.material as u16);
        self.mobility.push(spec.mobility);
        self.force.push(DVec3::ZERO);
        self.torque.push(DVec3::ZERO);
        self.passes.push(0);
        self.len() - 1
    }

    /// Map from stable id to index, for re-attaching state keyed by ids (checkpoints, removals).
    pub fn index_map(&self) -> std::collections::HashMap<u64, usize> {
        self.id.iter().enumerate().map(|(k, &id)| (id, k)).collect()
    }

    /// Index of the particle with stable id `id`, if present.
    pub fn index_of(&self, id: u64) -> Option<usize> {
        self.id.iter().position(|&k| k == id)
    }

    /// Keeps the particles with `keep[k]` true, in their order.
    pub fn retain(&mut self, keep: &[bool]) {
        fn filter<T>(v: &mut Vec<T>, keep: &[bool]) {
            let mut k = 0;
            v.retain(|_| {
                k += 1;
                keep[k - 1]
            });
        }
        filter(&mut self.id, keep);
        filter(&mut self.pos, keep);
        filter(&mut self.vel, keep);
        filter(&mut self.omega, keep);
        filter(&mut self.radius, keep);
        filter(&mut self.mass, keep);
        filter(&mut self.inv_mass, keep);
        filter(&mut self.inertia, keep);
        filter(&mut self.inv_inertia, keep);
        filter(&mut self.material, keep);
        filter(&mut self.mobility, keep);
        filter(&mut self.force, keep);
        filter(&mut self.torque, keep);
        filter(&mut self.passes, keep);
    }

    /// Puts the particles in `order`: the particle at new index k is the one at `order[k]`.
    pub fn permute(&mut self, order: &[usize]) {
        permute(&mut self.id, order);
        permute(&mut self.pos, order);
        permute(&mut self.vel, order);
        permute(&mut self.omega, order);
        permute(&mut self.radius, order);
        permute(&mut self.mass, order);
        permute(&mut self.inv_mass, order);
        permute(&mut self.inertia, order);
        permute(&mut self.inv_inertia, order);
        permute(&mut self.material, order);
        permute(&mut self.mobility, order);
        permute(&mut self.force, order);
        permute(&mut self.torque, order);
        permute(&mut self.passes, order);
    }

    /// Largest radius (m), zero when empty.
    pub fn max_radius(&self) -> f64 {
        self.radius.iter().copied().fold(0.0, f64::max)
    }

    /// Smallest radius (m), infinite when empty.
    pub fn min_radius(&self) -> f64 {
        self.radius.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// Translational kinetic energy Σ ½ m v² (J) of the mobile particles.
    pub fn translational_energy(&self) -> f64 {
        (0..self.len())
            .filter(|&k| self.inv_mass[k] > 0.0)
            .map(|k| 0.5 * self.mass[k] * self.vel[k].length_squared())
            .sum()
    }

    /// Rotational kinetic energy Σ ½ I ω² (J) of the particles that may rotate.
    pub fn rotational_energy(&self) -> f64 {
        (0..self.len())
            .filter(|&k| self.inv_inertia[k] > 0.0)
            .map(|k| 0.5 * self.inertia[k] * self.omega[k].length_squared())
            .sum()
    }
}

/// Puts a per-particle vector in `order` (the entry at new index k is the one at `order[k]`),
/// moving the entries; one of another length (not kept for these particles) is left alone.
pub(crate) fn permute<T: Default>(v: &mut Vec<T>, order: &[usize]) {
    if v.len() == order.len() {
        *v = order.iter().map(|&k| std::mem::take(&mut v[k])).collect();
    }
}

/// The largest speed of `vel` (m/s).
pub fn fastest(vel: &[DVec3]) -> f64 {
    vel.iter().map(|v| v.length()).fold(0.0, f64::max)
}

/// The order of `pos` along a Morton curve through cubic cells of side `cell` (m) from their
/// lowest corner; ties keep their order.
pub(crate) fn curve_order(pos: &[DVec3], cell: f64) -> Vec<usize> {
    let lo = pos
        .iter()
        .fold(DVec3::splat(f64::INFINITY), |a, &x| a.min(x));
    let mut order: Vec<usize> = (0..pos.len()).collect();
    order.sort_by_key(|&k| morton(((pos[k] - lo) / cell).as_uvec3().to_array()));
    order
}

/// Morton (Z-order) key of a cell: the bits of x, y and z interleaved (21 bits each).
fn morton(c: [u32; 3]) -> u64 {
    let spread = |v: u32| {
        let mut x = u64::from(v.min((1 << 21) - 1));
        x = (x | x << 32) & 0x1f00000000ffff;
        x = (x | x << 16) & 0x1f0000ff0000ff;
        x = (x | x << 8) & 0x100f00f00f00f00f;
        x = (x | x << 4) & 0x10c30c30c30c30c3;
        (x | x << 2) & 0x1249249249249249
    };
    spread(c[0]) | spread(c[1]) << 1 | spread(c[2]) << 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_shell_pebble_follows_eq_3_5_and_3_6() {
        // 001 §8 sample pebble: r_c = 0.01, r_o = 0.02 m, ρ_c = 2000, ρ_o = 1000 kg/m³:
        // m = 4/3 π (2000e-6 + 1000 × 7e-6) = 0.012 π kg, I = 8/15 π (2000e-10 + 1000 × 31e-10)
        // = 1.76e-6 π kg m². A core of the shell's density is a homogeneous sphere.
        let core = Core {
            radius: 0.01,
            density: 2000.0,
        };
        let (m, i) = core_shell_mass_inertia(0.02, 1000.0, Some(core));
        let pi = std::f64::consts::PI;
        assert!((m - 0.012 * pi).abs() < 1e-15);
        assert!((i - 8.0 / 15.0 * 3.3e-6 * pi).abs() < 1e-20);
        let same = Core {
            radius: 0.01,
            density: 1000.0,
        };
        let (m, i) = core_shell_mass_inertia(0.02, 1000.0, Some(same));
        let (m0, i0) = core_shell_mass_inertia(0.02, 1000.0, None);
        assert!((m - m0).abs() < 1e-15 * m0 && (i - i0).abs() < 1e-15 * i0);
    }

    #[test]
    fn sphere_mass_and_inertia_match_closed_form() {
        // A 1 m diameter sphere of 1 kg (002 Table 1): ρ = 1 / (π/6) kg/m³, I = 2/5 · 1 · 0.25 = 0.1 kg m².
        let rho = 6.0 / std::f64::consts::PI;
        let m = sphere_mass(0.5, rho);
        assert!((m - 1.0).abs() < 1e-14);
        assert!((sphere_inertia(m, 0.5) - 0.1).abs() < 1e-15);
    }

    #[test]
    fn fixed_and_locked_particles_have_zero_inverse() {
        let mut p = Particles::default();
        let spec = |mobility| ParticleSpec {
            pos: DVec3::ZERO,
            vel: DVec3::X,
            omega: DVec3::Z,
            radius: 0.5,
            material: 0,
            mobility,
        };
        p.push(0, &spec(Mobility::Free), 1.0);
        p.push(1, &spec(Mobility::NoRotation), 1.0);
        p.push(2, &spec(Mobility::Fixed), 1.0);
        assert_eq!(p.inv_mass, vec![1.0, 1.0, 0.0]);
        assert_eq!(p.inv_inertia, vec![10.0, 0.0, 0.0]);
        // Energies count only what can move: ½·1·1² twice, ½·0.1·1² once.
        assert!((p.translational_energy() - 1.0).abs() < 1e-15);
        assert!((p.rotational_energy() - 0.05).abs() < 1e-15);
    }
}
