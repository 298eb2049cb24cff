//! What a checkpoint must hold before a run trusts it: every value checked as a scene's are
//! (finite numbers, positive radii, masses and inertias, unique ids, indices in range), so that
//! a damaged or hand-made file is refused with the value named instead of panicking or running
//! on NaN.

use glam::DVec3;

use super::checkpoint::Checkpoint;
use crate::contact::ContactState;

/// The first problem found, as "where: what".
type Check = std::result::Result<(), String>;

fn finite(what: impl Fn() -> String, v: f64) -> Check {
    match v.is_finite() {
        true => Ok(()),
        false => Err(format!("{}: must be finite, got {v}", what())),
    }
}

fn finite3(what: impl Fn() -> String, v: DVec3) -> Check {
    match v.is_finite() {
        true => Ok(()),
        false => Err(format!("{}: must be finite, got {v}", what())),
    }
}

fn positive(what: impl Fn() -> String, v: f64) -> Check {
    match v.is_finite() && v > 0.0 {
        true => Ok(()),
        false => Err(format!("{}: must be finite and > 0, got {v}", what())),
    }
}

fn not_negative(what: impl Fn() -> String, v: f64) -> Check {
    match v.is_finite() && v >= 0.0 {
        true => Ok(()),
        false => Err(format!("{}: must be finite and ≥ 0, got {v}", what())),
    }
}

fn state(what: &str, s: &ContactState) -> Check {
    finite3(|| format!("{what}: slip"), s.slip)?;
    let k = &s.stiffness;
    for (name, v) in [("k_n", k.kn), ("k_t", k.kt), ("g_n", k.gn), ("g_t", k.gt)] {
        finite(|| format!("{what}: {name}"), v)?;
    }
    Ok(())
}

impl Checkpoint {
    /// Checks the values a checkpoint holds on its own (without its scene).
    pub(crate) fn check(&self) -> Check {
        finite(|| "time".into(), self.time)?;
        positive(|| "dt".into(), self.dt)?;
        self.check_particles()?;
        for (k, (a, b, _, s)) in self.pairs.iter().enumerate() {
            if a == b {
                return Err(format!("pair {k}: particle id {a} paired with itself"));
            }
            state(&format!("pair {k}"), s)?;
        }
        for (k, (_, _, s)) in self.walls.iter().enumerate() {
            state(&format!("wall contact {k}"), s)?;
        }
        for (k, (_, _, x)) in self.attached.iter().enumerate() {
            finite3(|| format!("held grain {k}: position"), *x)?;
        }
        if self.doors.next_open.is_nan() {
            return Err("doors: next opening time is NaN".into());
        }
        let t = &self.tally;
        finite(|| "impulse tally: start".into(), t.since)?;
        let grains = t.moment.iter().flat_map(|m| m.to_cols_array());
        let walls = t.wall_impulse.iter().flat_map(|v| v.to_array());
        if !grains
            .chain(walls)
            .chain(
                t.normal
                    .iter()
                    .chain(&t.tangential)
                    .chain(&t.wall_normal)
                    .copied(),
            )
            .all(f64::is_finite)
        {
            return Err("impulse tally: a value is not finite".into());
        }
        Ok(())
    }

    fn check_particles(&self) -> Check {
        let p = &self.particles;
        let mut ids = std::collections::HashSet::with_capacity(p.len());
        for k in 0..p.len() {
            let at = |field: &str| format!("particle {k} (id {}): {field}", p.id[k]);
            if !ids.insert(p.id[k]) {
                return Err(format!("particle {k}: id {} appears twice", p.id[k]));
            }
            for (field, v) in [
                ("position", p.pos[k]),
                ("velocity", p.vel[k]),
                ("angular velocity", p.omega[k]),
                ("force", p.force[k]),
                ("torque", p.torque[k]),
            ] {
                finite3(|| at(field), v)?;
            }
            positive(|| at("radius"), p.radius[k])?;
            positive(|| at("mass"), p.mass[k])?;
            positive(|| at("moment of inertia"), p.inertia[k])?;
            not_negative(|| at("1/mass"), p.inv_mass[k])?;
            not_negative(|| at("1/inertia"), p.inv_inertia[k])?;
        }
        Ok(())
    }

    /// Checks the indices a checkpoint holds against the scene it resumes: materials and walls.
    pub(crate) fn check_against(&self, materials: usize, walls: usize) -> Check {
        let p = &self.particles;
        if let Some(k) = (0..p.len()).find(|&k| usize::from(p.material[k]) >= materials) {
            return Err(format!(
                "particle {k} (id {}): material {} is past the scene's {materials} materials",
                p.id[k], p.material[k]
            ));
        }
        let wall_of = |bits: u32| (bits >> 8) as usize;
        if let Some((k, (_, m, _))) =
            (self.walls.iter().enumerate()).find(|(_, c)| wall_of(c.1) >= walls)
        {
            return Err(format!(
                "wall contact {k}: wall {} is past the scene's {walls} walls",
                wall_of(*m)
            ));
        }
        if let Some((k, (_, w, _))) =
            (self.attached.iter().enumerate()).find(|(_, a)| a.1 as usize >= walls)
        {
            return Err(format!(
                "held grain {k}: wall {w} is past the scene's {walls} walls"
            ));
        }
        if let Some((k, _)) = (self.resting.iter().enumerate())
            .find(|(_, (_, _, impulse))| !(impulse.is_finite() && *impulse > 0.0))
        {
            return Err(format!(
                "resting contact {k}: its impulse is not a finite positive number"
            ));
        }
        for (w, s, (f, t)) in &self.bodies {
            let finite = [s.pos, s.vel, s.momentum, s.force, s.torque, *f, *t]
                .iter()
                .all(|v| v.is_finite());
            if *w as usize >= walls || !finite || !s.turn.is_normalized() {
                return Err(format!(
                    "free body of wall {w}: past the scene's {walls} walls, not finite or not a unit rotation"
                ));
            }
        }
        Ok(())
    }
}

/// The first field (a TOML path such as `materials[0].density`) where two scenes differ.
pub(crate) fn differing_field(a: &crate::scene::Scene, b: &crate::scene::Scene) -> String {
    let value = |s: &crate::scene::Scene| toml::Value::try_from(s).ok();
    match (value(a), value(b)) {
        (Some(a), Some(b)) => first_difference(&a, &b, String::new()).unwrap_or_default(),
        _ => String::new(),
    }
}

fn first_difference(a: &toml::Value, b: &toml::Value, at: String) -> Option<String> {
    use toml::Value::{Array, Table};
    let join = |key: &str| match at.is_empty() {
        true => key.to_string(),
        false => format!("{at}.{key}"),
    };
    match (a, b) {
        (Table(x), Table(y)) => x
            .keys()
            .chain(y.keys().filter(|k| !x.contains_key(*k)))
            .find_map(|k| match (x.get(k), y.get(k)) {
                (Some(u), Some(v)) => first_difference(u, v, join(k)),
                _ => Some(join(k)),
            }),
        (Array(x), Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(k, (u, v))| first_difference(u, v, format!("{at}[{k}]"))),
        _ => (a != b).then_some(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::particles::{Mobility, ParticleSpec, Particles};

    fn checkpoint() -> Checkpoint {
        let mut p = Particles::default();
        for k in 0..3 {
            let spec = ParticleSpec {
                pos: DVec3::new(0.01 * k as f64, 0.0, 0.0),
                vel: DVec3::ZERO,
                omega: DVec3::ZERO,
                radius: 1e-3,
                material: 0,
                mobility: Mobility::Free,
            };
            p.push(k as u64, &spec, 2500.0);
        }
        Checkpoint {
            scene: String::new(),
            time: 0.1,
            step: 10,
            dt: 1e-5,
            particles: p,
            pairs: vec![(0, 1, None, ContactState::default())],
            walls: vec![(2, 256 + 1, ContactState::default())],
            attached: Vec::new(),
            absorbed: Vec::new(),
            doors: Default::default(),
            tally: Default::default(),
            collisions: 0,
            inserts: Default::default(),
            bodies: Vec::new(),
            resting: Vec::new(),
        }
    }

    #[test]
    fn each_bad_value_is_named() {
        assert_eq!(checkpoint().check(), Ok(()));
        assert_eq!(checkpoint().check_against(1, 2), Ok(()));
        type Spoil = fn(&mut Checkpoint);
        let cases: [(Spoil, &str); 8] = [
            (
                |c| c.time = f64::NEG_INFINITY,
                "time: must be finite, got -inf",
            ),
            (|c| c.time = f64::NAN, "time: must be finite, got NaN"),
            (
                |c| c.particles.mass[1] = f64::NAN,
                "particle 1 (id 1): mass: must be finite and > 0, got NaN",
            ),
            (
                |c| c.particles.radius[0] = 0.0,
                "particle 0 (id 0): radius: must be finite and > 0, got 0",
            ),
            (
                |c| c.particles.omega[2].y = f64::INFINITY,
                "particle 2 (id 2): angular velocity: must be finite",
            ),
            (|c| c.particles.id[2] = 0, "particle 2: id 0 appears twice"),
            (
                |c| c.pairs[0].1 = 0,
                "pair 0: particle id 0 paired with itself",
            ),
            (
                |c| c.pairs[0].3.stiffness.kn = f64::NAN,
                "pair 0: k_n: must be finite, got NaN",
            ),
        ];
        for (spoil, want) in cases {
            let mut c = checkpoint();
            spoil(&mut c);
            let err = c.check().unwrap_err();
            assert!(err.starts_with(want), "{err} (wanted {want})");
        }
        let err = checkpoint().check_against(1, 1).unwrap_err();
        assert_eq!(err, "wall contact 0: wall 1 is past the scene's 1 walls");
        let mut c = checkpoint();
        c.particles.material[1] = 7;
        let err = c.check_against(2, 2).unwrap_err();
        assert_eq!(
            err,
            "particle 1 (id 1): material 7 is past the scene's 2 materials"
        );
    }

    #[test]
    fn differing_scenes_name_the_field() {
        let a: toml::Value = toml::from_str("x = 1\n[m]\nd = [1, 2]\ne = 3").unwrap();
        let b: toml::Value = toml::from_str("x = 1\n[m]\nd = [1, 5]\ne = 3").unwrap();
        assert_eq!(
            first_difference(&a, &b, String::new()).as_deref(),
            Some("m.d[1]")
        );
        let c: toml::Value = toml::from_str("x = 1\n[m]\nd = [1, 2]").unwrap();
        assert_eq!(
            first_difference(&a, &c, String::new()).as_deref(),
            Some("m.e")
        );
        assert_eq!(first_difference(&a, &a, String::new()), None);
    }
}
