//! What stays fixed during a run: the contact law and pair table, fields, dt and limits, all
//! taken from the scene once, so that a step never reads the scene; and the body forces of
//! the fields, which every method adds. The method's own options live with its stepper
//! (`Stepper` in `stepper.rs`).

use glam::DVec3;

use crate::boundary::Periodic;
use crate::contact::restitution::Correction;
use crate::contact::ContactModel;
use crate::frame::Frame;
use crate::gravity::{Gravity, GravityWork};
use crate::material::{PairOverride, PairTable};
use crate::particles::Particles;
use crate::scene::{Method, Recirculation, Scene, TimeStep};
use crate::timestep::{contact_time_of, ContactKind, AUTO_FRACTION};
use crate::walls::Wall;
use crate::{Error, Result};

/// What stays fixed during a run.
#[derive(Clone, Debug)]
pub struct Physics {
    /// The contact law.
    pub model: ContactModel,
    /// Resolved constants of every material pair.
    pub table: PairTable,
    /// Gravity fields.
    pub gravity: Gravity,
    /// Rotating reference frame.
    pub frame: Option<Frame>,
    /// Time step (s).
    pub dt: f64,
    /// Shortest contact time of the scene (s), 002 eq 27; +∞ without a contact law.
    pub contact_time: f64,
    /// The integrator step the gravity fields allow (s), [`crate::timestep::orbital_step`];
    /// +∞ without central body and self-gravity.
    pub orbital_step: f64,
    /// Largest overlap / radius before the run stops.
    pub max_overlap: f64,
    /// Box the grains must stay in (periodic axes excepted).
    pub domain: Option<(DVec3, DVec3)>,
    /// Periodic boundaries.
    pub periodic: Periodic,
    /// 2-D mode: discs in the xy plane (`planar.rs`).
    pub planar: bool,
    /// Steps between sorts of the soft-sphere grains along the Morton curve
    /// (`simulation.sort_every`).
    pub sort_every: Option<u64>,
    /// Recirculation of pebbles through exit chutes, after every step.
    pub recirculation: Option<Recirculation>,
    /// Grains inserted at a rate, after every step.
    pub inserts: Vec<crate::drive::insert::Insert>,
}

impl Physics {
    /// What stays fixed in a run of `scene`, for its `particles` and `walls` (already made):
    /// the pair table, the shortest contact time and the time step, with everything else the
    /// step reads taken from the scene.
    pub fn new(scene: &Scene, particles: &Particles, walls: &[Wall]) -> Result<Physics> {
        if particles.is_empty() {
            return Err(Error::scene(
                "particles",
                "the scene makes no particles; at least one is needed",
            ));
        }
        let table = pair_table(scene);
        let contact_time = shortest_contact_time(scene, &table, particles, walls);
        let contacts = scene.contact.normal != crate::contact::Normal::None;
        let orbital_step = crate::timestep::orbital_step(&scene.gravity, particles, contacts);
        Physics::timed(scene, (contact_time, orbital_step))
    }

    /// [`Physics::new`] for the shortest contact time and orbital step (s) of the whole run's
    /// grains, which a process holding only some of them is given.
    pub(crate) fn timed(
        scene: &Scene,
        (contact_time, orbital_step): (f64, f64),
    ) -> Result<Physics> {
        let mut table = pair_table(scene);
        // The integrator's step is dt / substeps: the limits and "auto" apply to it.
        let soft = match scene.simulation.method {
            Method::Soft(o) => Some(o),
            Method::Hard(_) | Method::ApproxHard(_) => None,
        };
        let n = f64::from(soft.map_or(1, |o| o.substeps.max(1)));
        let dt = match scene.simulation.dt {
            TimeStep::Auto(_) => {
                let dt = (n * contact_time * AUTO_FRACTION).min(n * orbital_step);
                if !dt.is_finite() {
                    return Err(Error::scene(
                        "simulation.dt",
                        "\"auto\" needs a contact law or a central body or self-gravity to size the step; give dt in seconds",
                    ));
                }
                dt
            }
            TimeStep::Fixed(dt) => {
                // Hard spheres have no contact time: any dt resolves collisions exactly.
                let fraction = scene.simulation.dt_limit.fraction();
                if soft.is_some() && dt / n > contact_time * fraction {
                    let per = if n > 1.0 {
                        format!(" in {n} sub-steps of {:.3e} s", dt / n)
                    } else {
                        String::new()
                    };
                    return Err(Error::scene(
                        "simulation.dt",
                        format!(
                            "{dt:.3e} s{per} is above {} = {:.3e} s (shortest contact time t_c = {contact_time:.3e} s, 002 eq 27; simulation.dt_limit = \"{}\"); use dt ≤ {:.3e} or \"auto\" ({:.3e})",
                            scene.simulation.dt_limit.label(),
                            contact_time * fraction,
                            scene.simulation.dt_limit.name(),
                            n * contact_time * fraction,
                            n * contact_time * AUTO_FRACTION
                        ),
                    ));
                }
                dt
            }
        };
        // Velocity Verlet's map of a contact is what the damping is corrected for
        // ([`Correction`]); the other integrators keep the constants.
        let verlet = soft.is_some_and(|o| o.integrator == crate::scene::Integrator::VelocityVerlet);
        if verlet && scene.contact.step_correction {
            table.correct_for_step(|e| Correction::of(&scene.contact.normal, e, dt / n));
        }
        let s = &scene.simulation;
        Ok(Physics {
            model: if scene.contact.normal == crate::contact::Normal::None {
                crate::contact::ContactModel::none()
            } else {
                scene.contact
            },
            table,
            gravity: scene.gravity,
            frame: scene.frame,
            dt,
            contact_time,
            orbital_step,
            max_overlap: s.max_overlap,
            domain: s.domain.map(|[a, b]| (a, b)),
            periodic: scene.boundary.periodic,
            planar: s.dimensions == 2,
            sort_every: s.sort_every,
            recirculation: scene.recirculation.clone(),
            inserts: crate::drive::insert::Insert::all(scene),
        })
    }

    /// The body-force acceleration (m/s²) shared by every particle, when the body force is a
    /// uniform field alone (no central body, self-gravity or rotating frame): what
    /// [`BodyForce::update`] writes for each of them, so loops may use it without reading them.
    pub(crate) fn uniform_acceleration(&self) -> Option<DVec3> {
        let g = &self.gravity;
        // 0 + g, as that sum starts from zero there (a −0 component reads +0 in both).
        (g.central.is_none() && g.self_gravity.is_none() && self.frame.is_none())
            .then(|| DVec3::ZERO + g.uniform.unwrap_or(DVec3::ZERO))
    }
}

/// The pair table of `scene`'s materials and pair overrides.
fn pair_table(scene: &Scene) -> PairTable {
    let overrides: Vec<(usize, usize, PairOverride)> = scene
        .pairs
        .iter()
        .filter_map(|o| {
            let a = scene.material_index(&o.materials[0])?;
            let b = scene.material_index(&o.materials[1])?;
            Some((a, b, o.clone()))
        })
        .collect();
    PairTable::new(&scene.materials, &overrides)
}

/// Body-force accelerations of every particle at the last evaluation (m/s²): gravity fields
/// (uniform, central body, self-gravity) and the rotating frame's Coriolis and centrifugal
/// terms, with the self-gravity methods' buffers. Scratch of each stepper, made again at every
/// evaluation.
#[derive(Clone, Debug, Default)]
pub struct BodyForce {
    /// Acceleration of each particle (m/s²).
    pub acc: Vec<DVec3>,
    /// Buffers of the self-gravity methods.
    work: GravityWork,
}

impl BodyForce {
    /// The accelerations of `p` at `time` into [`BodyForce::acc`].
    pub(crate) fn update(&mut self, physics: &Physics, p: &Particles, time: f64) {
        if let Some(a) = physics.uniform_acceleration() {
            // The same for every particle: written again only when the count changed.
            if self.acc.len() != p.len() || self.acc.first() != Some(&a) {
                self.acc.clear();
                self.acc.resize(p.len(), a);
            }
            return;
        }
        physics
            .gravity
            .accelerations(&p.pos, &p.mass, &mut self.work, &mut self.acc);
        if let Some(frame) = &physics.frame {
            frame.add_accelerations(time, &p.pos, &p.vel, &mut self.acc);
        }
    }

    /// [`BodyForce::update`] on one rank of a run shared among processes, whose grains `p`
    /// feel the self-gravity of `everyone` ([`crate::gravity::Gravity::accelerations_among`]).
    pub(crate) fn update_among(
        &mut self,
        physics: &Physics,
        p: &Particles,
        time: f64,
        everyone: &crate::gravity::Everyone,
    ) {
        (physics.gravity).accelerations_among(&p.pos, everyone, &mut self.work, &mut self.acc);
        if let Some(frame) = &physics.frame {
            frame.add_accelerations(time, &p.pos, &p.vel, &mut self.acc);
        }
    }

    /// Puts the accelerations in `order` (as [`Particles::permute`]).
    pub(crate) fn permute(&mut self, order: &[usize]) {
        crate::particles::permute(&mut self.acc, order);
    }
}

/// The shortest contact time over every kind of contact the scene can make: for each pair of
/// materials present, the smallest spheres (lightest and, for Hooke, stiffest per unit mass),
/// and each particle material against each wall material.
fn shortest_contact_time(scene: &Scene, table: &PairTable, p: &Particles, walls: &[Wall]) -> f64 {
    let n_mat = scene.materials.len();
    let mut smallest: Vec<Option<(f64, f64)>> = vec![None; n_mat];
    for k in 0..p.len() {
        let m = p.material[k] as usize;
        if smallest[m].is_none_or(|(r, _)| p.radius[k] < r) {
            smallest[m] = Some((p.radius[k], p.mass[k]));
        }
    }
    let v_c = scene.contact.characteristic_velocity;
    let mut t = f64::INFINITY;
    for a in 0..n_mat {
        let Some((r_a, m_a)) = smallest[a] else {
            continue;
        };
        for (b, sb) in smallest.iter().enumerate() {
            if let Some((r_b, m_b)) = *sb {
                let kind = ContactKind {
                    r_i: r_a,
                    m_i: m_a,
                    r_j: Some(r_b),
                    m_j: Some(m_b),
                };
                t = t.min(contact_time_of(
                    &scene.contact.normal,
                    table.get(a, b),
                    &kind,
                    v_c,
                ));
            }
        }
        for w in walls {
            let kind = ContactKind {
                r_i: r_a,
                m_i: m_a,
                r_j: None,
                m_j: None,
            };
            t = t.min(contact_time_of(
                &scene.contact.normal,
                table.get(a, w.material),
                &kind,
                v_c,
            ));
        }
    }
    t
}
