//! Checkpoints: the whole state of a run, so that a resumed run continues bit for bit.
//!
//! A small documented little-endian binary format (every f64 stored by its bits):
//! `GRAINFLOW-CKPT` magic, format version (u32), the scene as TOML (u64 length + UTF-8),
//! time (f64), step (u64), dt (f64), particle count (u64) and for each particle id, position,
//! velocity, angular velocity, radius, mass, 1/m, I, 1/I, material (u16), mobility (u8),
//! force, torque, passes (u32, format 3); then the touching particle–particle pairs (count, then id_i, id_j,
//! from format 6 the image of j beside i (3 × i32, whole periods along x, y, z), slip,
//! k_n, k_t, g_n, g_t) and particle–wall contacts (count, then id, wall member (u32, the wall's index
//! times 256 plus the member's), slip, k_n, k_t, g_n, g_t).
//! Then grains held by walls, absorbed counts, recirculation doors (format 3) and, from format 4,
//! the impulse tallies of `approx_hard` (004 eq 3–4): start time (f64), grain count, per grain
//! Σ J ⊗ l (9 f64, column-major), Σ|J_n|, Σ|J_t|; wall count, per wall Σ J (3 f64) and Σ|J_n|;
//! collisions (u64); from format 5, the run's collisions so far (u64, hard and approx_hard).
//! From format 6, the inserts (`[[inserts]]`): the next id (u64), the count (u64) and per
//! insert the grains inserted (u64), their mass (f64), the insertions done (u64) and the time
//! of the last (f64). From format 8, the free walls' bodies (`rigid`): the count (u64) and per
//! body its wall (u64), centre of mass, velocity (3 f64 each), orientation quaternion (x, y, z,
//! w), angular momentum, force and torque of the last evaluation, and the grains' force and
//! torque on it (3 f64 each). From format 9, the impulses the hard method's resting contacts
//! carried at the last step (`resting`): the count (u64) and per contact the two ids (u64 each;
//! for a wall, the grain's id and `u64::MAX` less the wall member) and the impulse (f64, N s),
//! in ascending order of ids. From format 7 the file ends with the CRC-32 (u32) of every byte
//! before it.
//! Format 3 files are read with empty tallies, formats 3 and 4 with no collisions so far,
//! formats 3 to 5 with each pair's history at the one image its grains had then and nothing
//! inserted. Every value read is checked ([`super::checkpoint_check`]) before a run trusts it.
//! Forces are stored, not recomputed: recomputing would advance the tangential history twice.

use std::io::{Read, Write};
use std::path::Path;

use glam::DVec3;

use crate::contact::normal::Stiffness;
use crate::contact::ContactState;
use crate::particles::{Mobility, Particles};
use crate::rigid::BodyState;
use crate::scene::{Method, Scene};
use crate::sim::Simulation;
use crate::stepper::Stepper;
use crate::walls::history::WallMember;
use crate::walls::interact::Attachment;
use crate::{Error, Result};

const MAGIC: &[u8; 14] = b"GRAINFLOW-CKPT";
const VERSION: u32 = 9;

/// A free wall's body as a checkpoint holds it: (wall index, state, the grains' force and
/// torque on it).
pub type SavedBody = (u32, BodyState, (DVec3, DVec3));

/// The state a checkpoint holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The scene of the run, as TOML.
    pub scene: String,
    /// Simulated time (s).
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// Time step (s).
    pub dt: f64,
    /// The particles, with the forces of the last evaluation.
    pub particles: Particles,
    /// Touching pairs: (id_i, id_j, image of j beside i (format 6), history).
    pub pairs: Vec<crate::world::PairHistory>,
    /// Touching wall contacts: (particle id, wall member as
    /// [`crate::walls::WallMember::to_bits`] writes it, history).
    pub walls: Vec<(u64, u32, ContactState)>,
    /// Grains held by walls: (particle id, wall index, centre in the wall's placement).
    pub attached: Vec<(u64, u32, DVec3)>,
    /// Grains absorbed by each wall.
    pub absorbed: Vec<u64>,
    /// Recirculation doors (format 3).
    pub doors: crate::drive::DoorState,
    /// Impulse tallies of `approx_hard` (format 4; empty when read from format 3).
    pub tally: crate::approx_hard::ImpulseTally,
    /// Hard and approx_hard collisions so far (format 5; 0 when read from older formats).
    pub collisions: u64,
    /// What the inserts have inserted (format 6; none when read from older formats).
    pub inserts: crate::drive::insert::Inserts,
    /// The free walls' bodies: (wall index, state, the grains' force and torque on it)
    /// (format 8; none when read from older formats).
    pub bodies: Vec<SavedBody>,
    /// The impulses the hard method's resting contacts carried at the last step: (id, id or
    /// `u64::MAX` less a wall member, impulse in N s), in ascending order (format 9; none when
    /// read from older formats).
    pub resting: Vec<(u64, u64, f64)>,
}

impl Simulation {
    /// The whole state, for a checkpoint.
    pub fn checkpoint(&self) -> Checkpoint {
        let w = &self.world;
        let p = &w.particles;
        let walls = w
            .wall_history
            .iter()
            .map(|(k, member, s)| (p.id[k], member.to_bits(), s.clone()))
            .collect();
        Checkpoint {
            particles: p.clone(),
            pairs: w.pair_history_by_id(&self.physics.periodic),
            walls,
            attached: w
                .wall_runtime
                .attached
                .iter()
                .enumerate()
                .filter_map(|(k, a)| a.map(|a| (p.id[k], a.wall, a.local)))
                .collect(),
            ..self.checkpoint_without_grains()
        }
    }

    /// The state of a checkpoint but the grains, their pairs, wall contacts and holds.
    pub(crate) fn checkpoint_without_grains(&self) -> Checkpoint {
        let w = &self.world;
        Checkpoint {
            scene: self.scene.to_toml().unwrap_or_default(),
            time: w.time,
            step: w.step,
            dt: self.physics.dt,
            particles: Particles::default(),
            pairs: Vec::new(),
            walls: Vec::new(),
            attached: Vec::new(),
            absorbed: w.wall_runtime.absorbed.clone(),
            doors: w.doors,
            tally: w.tally.clone(),
            collisions: w.collisions,
            inserts: w.inserts.clone(),
            bodies: w
                .wall_runtime
                .bodies
                .iter()
                .map(|b| (b.wall as u32, b.body.state, b.contact))
                .collect(),
            resting: match &self.stepper {
                Stepper::Hard(h) => h.rest.saved(),
                _ => Vec::new(),
            },
        }
    }

    /// Resumes a run from a checkpoint: the physics comes from `scene` (which must be the
    /// checkpoint's scene, apart from duration and outputs), the state from the checkpoint.
    pub fn resume(scene: Scene, base: &Path, ckpt: Checkpoint) -> Result<Simulation> {
        let (mut sim, pairs) = Simulation::resumed(scene, base, ckpt, Simulation::new)?;
        let w = &mut sim.world;
        w.rebuild_neighbors(&sim.physics.periodic);
        w.set_pair_history_by_id(&pairs);
        if let Stepper::Soft(s) = &mut sim.stepper {
            s.follow_list(&sim.world);
            if s.options.integrator.needs_rate_form() {
                // Slip rates are not stored: the evaluation at the saved state gives them
                // again, bit for bit (the slips are unchanged by an evaluation with dt = 0).
                sim.evaluate_forces();
            }
        }
        Ok(sim)
    }

    /// The run of `scene` made by `build` with the state of `ckpt` in place of the scene's,
    /// all but the neighbour list: the touching pairs' histories are returned, keyed by ids,
    /// for the list to take once built.
    pub(crate) fn resumed(
        scene: Scene,
        base: &Path,
        ckpt: Checkpoint,
        build: impl FnOnce(Scene, &Path) -> Result<Simulation>,
    ) -> Result<(Simulation, Vec<crate::world::PairHistory>)> {
        let saved = Scene::from_checkpoint_toml(&ckpt.scene)?;
        let (was, is) = (resumable_part(&saved), resumable_part(&scene));
        if was != is {
            let field = super::checkpoint_check::differing_field(&was, &is);
            return Err(Error::scene(
                if field.is_empty() { "scene".into() } else { field },
                "differs from the scene the checkpoint was written with (only simulation.duration, [output] and the hard method's collision_log may change on resume)",
            ));
        }
        let end = scene.simulation.start_time + scene.simulation.duration;
        let mut sim = build(scene, base)?;
        ckpt.check()
            .and_then(|()| ckpt.check_against(sim.scene.materials.len(), sim.world.walls.len()))
            .map_err(|reason| Error::scene("checkpoint", reason))?;
        // A checkpoint at the end (of a run stopped before its final files) only finishes.
        if ckpt.time - 0.5 * ckpt.dt > end {
            return Err(Error::scene(
                "simulation.duration",
                format!(
                    "the checkpoint is at t = {:e} s, past the end of the scene at t = {end:e} s; give a longer duration to go on",
                    ckpt.time
                ),
            ));
        }
        if sim.physics.dt.to_bits() != ckpt.dt.to_bits() {
            return Err(Error::scene(
                "simulation.dt",
                format!(
                    "is {:e} s but the checkpoint used {:e} s",
                    sim.physics.dt, ckpt.dt
                ),
            ));
        }
        let index = ckpt.particles.index_map();
        let n = ckpt.particles.len();
        let w = &mut sim.world;
        w.particles = ckpt.particles;
        w.time = ckpt.time;
        w.step = ckpt.step;
        let walls = ckpt.walls.into_iter().filter_map(|(id, member, s)| {
            Some((*index.get(&id)?, WallMember::from_bits(member), s))
        });
        w.wall_history.restore(n, walls, &w.walls);
        w.wall_runtime.attached = vec![None; n];
        for (id, wall, local) in ckpt.attached {
            if let Some(&k) = index.get(&id) {
                w.wall_runtime.attached[k] = Some(Attachment { wall, local });
            }
        }
        w.wall_runtime.absorbed = ckpt.absorbed;
        w.doors = ckpt.doors;
        w.tally = ckpt.tally;
        w.collisions = ckpt.collisions;
        if ckpt.inserts.each.len() == w.inserts.each.len() {
            w.inserts = ckpt.inserts;
        }
        restore_bodies(&mut w.wall_runtime.bodies, &ckpt.bodies)?;
        if let Stepper::Hard(h) = &mut sim.stepper {
            h.rest.restore(&ckpt.resting);
        }
        Ok((sim, ckpt.pairs))
    }
}

/// Puts the saved states `saved` (wall, state, contact load) into the free walls' `bodies`,
/// which must be the same walls.
fn restore_bodies(bodies: &mut [crate::rigid::FreeWall], saved: &[SavedBody]) -> Result<()> {
    let walls = |w: &mut dyn Iterator<Item = usize>| w.collect::<Vec<_>>();
    let (here, there) = (
        walls(&mut bodies.iter().map(|b| b.wall)),
        walls(&mut saved.iter().map(|s| s.0 as usize)),
    );
    if here != there {
        return Err(Error::scene(
            "checkpoint",
            format!("holds free bodies for walls {there:?}, the scene has them at {here:?}"),
        ));
    }
    for (b, (_, state, contact)) in bodies.iter_mut().zip(saved) {
        b.body.state = *state;
        b.contact = *contact;
    }
    Ok(())
}

/// The scene without what may change on resume: duration, `[output]` and the hard method's
/// collision log.
pub(crate) fn resumable_part(scene: &Scene) -> Scene {
    let mut s = scene.clone();
    s.simulation.duration = 0.0;
    s.output = Default::default();
    if let Method::Hard(o) = &mut s.simulation.method {
        o.collision_log = false;
    }
    s
}

/// A writer that keeps the CRC-32 of what it wrote.
struct Out<W: Write>(W, crc32fast::Hasher);

impl<W: Write> Out<W> {
    fn bytes(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.1.update(b);
        self.0.write_all(b)
    }
    fn u64(&mut self, v: u64) -> std::io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }
    fn f64(&mut self, v: f64) -> std::io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }
    fn vec3(&mut self, v: DVec3) -> std::io::Result<()> {
        self.f64(v.x)?;
        self.f64(v.y)?;
        self.f64(v.z)
    }
    fn state(&mut self, s: &ContactState) -> std::io::Result<()> {
        self.vec3(s.slip)?;
        let k = &s.stiffness;
        for v in [k.kn, k.kt, k.gn, k.gt] {
            self.f64(v)?;
        }
        Ok(())
    }
}

struct In<'a>(&'a [u8]);

impl In<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_bits(self.u64()?))
    }
    fn vec3(&mut self) -> Option<DVec3> {
        Some(DVec3::new(self.f64()?, self.f64()?, self.f64()?))
    }
    fn state(&mut self) -> Option<ContactState> {
        Some(ContactState {
            slip: self.vec3()?,
            stiffness: Stiffness {
                kn: self.f64()?,
                kt: self.f64()?,
                gn: self.f64()?,
                gt: self.f64()?,
            },
            touching: true,
            ..ContactState::default()
        })
    }
}

impl Checkpoint {
    /// Writes the checkpoint to `path` whole ([`super::durable::write_whole`]: a kill leaves
    /// the old file or the new one).
    pub fn write(&self, path: &Path) -> Result<()> {
        super::durable::write_whole(path, |w| self.put(w))
    }

    /// The bytes a file of this checkpoint holds.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        match self.put(&mut bytes) {
            Ok(()) => bytes,
            Err(_) => unreachable!("a vector takes every byte"),
        }
    }

    /// Writes the checkpoint's bytes to `w`.
    fn put(&self, w: &mut impl Write) -> std::io::Result<()> {
        {
            let mut o = Out(w, crc32fast::Hasher::new());
            o.bytes(MAGIC)?;
            o.bytes(&VERSION.to_le_bytes())?;
            o.u64(self.scene.len() as u64)?;
            o.bytes(self.scene.as_bytes())?;
            o.f64(self.time)?;
            o.u64(self.step)?;
            o.f64(self.dt)?;
            let p = &self.particles;
            o.u64(p.len() as u64)?;
            for k in 0..p.len() {
                o.u64(p.id[k])?;
                for v in [p.pos[k], p.vel[k], p.omega[k]] {
                    o.vec3(v)?;
                }
                for v in [
                    p.radius[k],
                    p.mass[k],
                    p.inv_mass[k],
                    p.inertia[k],
                    p.inv_inertia[k],
                ] {
                    o.f64(v)?;
                }
                o.bytes(&p.material[k].to_le_bytes())?;
                o.bytes(&[p.mobility[k] as u8])?;
                o.vec3(p.force[k])?;
                o.vec3(p.torque[k])?;
                o.bytes(&p.passes[k].to_le_bytes())?;
            }
            o.u64(self.pairs.len() as u64)?;
            for (a, b, image, s) in &self.pairs {
                o.u64(*a)?;
                o.u64(*b)?;
                for n in image.unwrap_or_default() {
                    o.bytes(&n.to_le_bytes())?;
                }
                o.state(s)?;
            }
            o.u64(self.walls.len() as u64)?;
            for (a, w, s) in &self.walls {
                o.u64(*a)?;
                o.bytes(&w.to_le_bytes())?;
                o.state(s)?;
            }
            o.u64(self.attached.len() as u64)?;
            for (a, w, x) in &self.attached {
                o.u64(*a)?;
                o.bytes(&w.to_le_bytes())?;
                o.vec3(*x)?;
            }
            o.u64(self.absorbed.len() as u64)?;
            for n in &self.absorbed {
                o.u64(*n)?;
            }
            let d = &self.doors;
            o.f64(d.next_open)?;
            o.u64(d.next_chute)?;
            o.u64(d.next_inlet)?;
            o.u64(d.discharged)?;
            o.f64(d.first_discharge)?;
            o.f64(d.last_discharge)?;
            let t = &self.tally;
            o.f64(t.since)?;
            o.u64(t.moment.len() as u64)?;
            for k in 0..t.moment.len() {
                for v in t.moment[k].to_cols_array() {
                    o.f64(v)?;
                }
                o.f64(t.normal[k])?;
                o.f64(t.tangential[k])?;
            }
            o.u64(t.wall_normal.len() as u64)?;
            for w in 0..t.wall_normal.len() {
                o.vec3(t.wall_impulse[w])?;
                o.f64(t.wall_normal[w])?;
            }
            o.u64(t.collisions)?;
            o.u64(self.collisions)?;
            let ins = &self.inserts;
            o.u64(ins.next_id)?;
            o.u64(ins.each.len() as u64)?;
            for s in &ins.each {
                o.u64(s.inserted)?;
                o.f64(s.mass)?;
                o.u64(s.events)?;
                o.f64(s.last)?;
            }
            o.u64(self.bodies.len() as u64)?;
            for (w, s, (f, t)) in &self.bodies {
                o.u64(u64::from(*w))?;
                o.vec3(s.pos)?;
                o.vec3(s.vel)?;
                for v in s.turn.to_array() {
                    o.f64(v)?;
                }
                for v in [s.momentum, s.force, s.torque, *f, *t] {
                    o.vec3(v)?;
                }
            }
            o.u64(self.resting.len() as u64)?;
            for &(a, b, impulse) in &self.resting {
                o.u64(a)?;
                o.u64(b)?;
                o.f64(impulse)?;
            }
            let crc = o.1.clone().finalize();
            o.0.write_all(&crc.to_le_bytes())
        }
    }

    /// Reads a checkpoint written by [`Checkpoint::write`].
    pub fn read(path: &Path) -> Result<Checkpoint> {
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| Error::io(path, e))?;
        Self::from_bytes(&bytes, path)
    }

    /// Reads the bytes of a checkpoint file; `path` names it in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Checkpoint> {
        let bad = |reason: &str| Error::Format {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        let mut i = In(bytes);
        if i.take(MAGIC.len()) != Some(MAGIC.as_slice()) {
            return Err(bad("not a grainflow checkpoint (magic bytes differ)"));
        }
        let version = i.u32();
        let version = match version {
            Some(v @ 3..=VERSION) => v,
            Some(v) => {
                return Err(bad(&format!(
                    "checkpoint format {v}; this grainflow reads formats 3 to {VERSION}"
                )))
            }
            None => return Err(bad("truncated header")),
        };
        if version >= 7 {
            let (body, sum) = bytes.split_at(bytes.len().saturating_sub(4));
            let stored = u32::from_le_bytes(sum.try_into().unwrap_or_default());
            if sum.len() != 4 || crc32fast::hash(body) != stored {
                return Err(bad("checksum differs: the file is damaged or cut short"));
            }
            i.0 = &i.0[..i.0.len() - 4];
        }
        let ckpt =
            Self::body(&mut i, version).ok_or_else(|| bad("truncated or corrupt checkpoint"))?;
        ckpt.check().map_err(|reason| bad(&reason))?;
        Ok(ckpt)
    }

    fn body(i: &mut In, version: u32) -> Option<Checkpoint> {
        let len = i.u64()? as usize;
        let scene = String::from_utf8(i.take(len)?.to_vec()).ok()?;
        let (time, step, dt) = (i.f64()?, i.u64()?, i.f64()?);
        let n = i.u64()? as usize;
        let mut p = Particles::default();
        for _ in 0..n.min(i.0.len()) {
            p.id.push(i.u64()?);
            p.pos.push(i.vec3()?);
            p.vel.push(i.vec3()?);
            p.omega.push(i.vec3()?);
            p.radius.push(i.f64()?);
            p.mass.push(i.f64()?);
            p.inv_mass.push(i.f64()?);
            p.inertia.push(i.f64()?);
            p.inv_inertia.push(i.f64()?);
            p.material.push(i.u16()?);
            p.mobility.push(match i.take(1)?[0] {
                0 => Mobility::Free,
                1 => Mobility::NoRotation,
                2 => Mobility::Fixed,
                _ => return None,
            });
            p.force.push(i.vec3()?);
            p.torque.push(i.vec3()?);
            p.passes.push(i.u32()?);
        }
        if p.len() != n {
            return None;
        }
        let mut pairs = Vec::new();
        for _ in 0..i.u64()? {
            let (a, b) = (i.u64()?, i.u64()?);
            let image = if version >= 6 {
                Some([i.u32()? as i32, i.u32()? as i32, i.u32()? as i32])
            } else {
                None
            };
            pairs.push((a, b, image, i.state()?));
        }
        let mut walls = Vec::new();
        for _ in 0..i.u64()? {
            walls.push((i.u64()?, i.u32()?, i.state()?));
        }
        let mut attached = Vec::new();
        for _ in 0..i.u64()? {
            attached.push((i.u64()?, i.u32()?, i.vec3()?));
        }
        let mut absorbed = Vec::new();
        for _ in 0..i.u64()? {
            absorbed.push(i.u64()?);
        }
        let doors = crate::drive::DoorState {
            next_open: i.f64()?,
            next_chute: i.u64()?,
            next_inlet: i.u64()?,
            discharged: i.u64()?,
            first_discharge: i.f64()?,
            last_discharge: i.f64()?,
        };
        let tally = if version >= 4 {
            Self::tally(i)?
        } else {
            Default::default()
        };
        let collisions = if version >= 5 { i.u64()? } else { 0 };
        let inserts = if version >= 6 {
            Self::inserts(i)?
        } else {
            Default::default()
        };
        let bodies = if version >= 8 {
            Self::bodies(i)?
        } else {
            Vec::new()
        };
        let mut resting = Vec::new();
        if version >= 9 {
            for _ in 0..i.u64()?.min(i.0.len() as u64) {
                resting.push((i.u64()?, i.u64()?, i.f64()?));
            }
        }
        i.0.is_empty().then_some(Checkpoint {
            scene,
            time,
            step,
            dt,
            particles: p,
            pairs,
            walls,
            attached,
            absorbed,
            doors,
            tally,
            collisions,
            inserts,
            bodies,
            resting,
        })
    }

    fn bodies(i: &mut In) -> Option<Vec<SavedBody>> {
        let mut bodies = Vec::new();
        for _ in 0..i.u64()?.min(i.0.len() as u64) {
            let wall = u32::try_from(i.u64()?).ok()?;
            let (pos, vel) = (i.vec3()?, i.vec3()?);
            let turn = glam::DQuat::from_xyzw(i.f64()?, i.f64()?, i.f64()?, i.f64()?);
            let state = BodyState {
                pos,
                vel,
                turn,
                momentum: i.vec3()?,
                force: i.vec3()?,
                torque: i.vec3()?,
            };
            bodies.push((wall, state, (i.vec3()?, i.vec3()?)));
        }
        Some(bodies)
    }

    fn inserts(i: &mut In) -> Option<crate::drive::insert::Inserts> {
        let next_id = i.u64()?;
        let mut each = Vec::new();
        for _ in 0..i.u64()?.min(i.0.len() as u64) {
            each.push(crate::drive::insert::InsertState {
                inserted: i.u64()?,
                mass: i.f64()?,
                events: i.u64()?,
                last: i.f64()?,
            });
        }
        Some(crate::drive::insert::Inserts { next_id, each })
    }

    fn tally(i: &mut In) -> Option<crate::approx_hard::ImpulseTally> {
        let mut t = crate::approx_hard::ImpulseTally {
            since: i.f64()?,
            ..Default::default()
        };
        for _ in 0..i.u64()?.min(i.0.len() as u64) {
            let mut m = [0.0; 9];
            for v in m.iter_mut() {
                *v = i.f64()?;
            }
            t.moment.push(glam::DMat3::from_cols_array(&m));
            t.normal.push(i.f64()?);
            t.tangential.push(i.f64()?);
        }
        for _ in 0..i.u64()?.min(i.0.len() as u64) {
            t.wall_impulse.push(i.vec3()?);
            t.wall_normal.push(i.f64()?);
        }
        t.collisions = i.u64()?;
        Some(t)
    }
}
