//! The seven two-body tests of 002 §4 (Table 1): bodies of diameter 1 m and mass 1 kg,
//! E = 0.5 MPa, ν = 0.3, dt = 10 µs, each run for Hooke, Hertz and Flores where it applies.
//!
//! Table 1 sets e = 0 for tests 2, 5, 6 and 7, where Flores's damping (002 eq 6) is infinite;
//! Flores runs tests 5–7 with e = 0.3 (their expected results do not depend on e), and every
//! model runs test 2 with e = 0.1 (see [`cohesion`]). Every metric compares with a closed-form
//! number derived in its function's comment.

use std::f64::consts::PI;
use std::path::Path;

use glam::DVec3;

use super::Metric;
use grainflow::contact::normal::{hertz_stiffness, hooke_stiffness};
use grainflow::contact::{Cohesion, ContactModel, Normal, Rolling, Tangential, Twisting};
use grainflow::gravity::Gravity;
use grainflow::material::{effective_modulus, Material};
use grainflow::particles::Mobility;
use grainflow::scene::{
    ListSource, OutputSpec, ParticleSource, Scene, SimulationSpec, SphereSpec, TimeStep, WallSpec,
};
use grainflow::sim::Simulation;
use grainflow::Result;

/// Table 1 time step (s).
const DT: f64 = 1e-5;
/// Sphere radius (m): diameter 1 m.
const R: f64 = 0.5;
/// Sphere mass (kg).
const M: f64 = 1.0;
/// Standard gravity (m/s²).
const G: f64 = 9.81;
/// Characteristic velocity for Hooke's stiffness and Flores's least v₀ (m/s).
const V_C: f64 = 1.0;

/// Table 1 material with the given restitution and friction coefficients.
fn material(e: f64, mu_s: f64, mu_r: f64, mu_t: f64, cohesion: f64) -> Material {
    Material {
        name: "body".into(),
        density: Some(M / (4.0 / 3.0 * PI * R.powi(3))),
        youngs_modulus: 0.5e6,
        poisson_ratio: 0.3,
        restitution: e,
        sliding_friction: mu_s,
        rolling_friction: mu_r,
        twisting_friction: mu_t,
        tangential_restitution: 1.0,
        cohesion,
        core: None,
    }
}

/// The three normal models with their names.
const MODELS: [(&str, Normal); 3] = [
    ("hooke", Normal::Hooke),
    ("hertz", Normal::Hertz),
    ("flores", Normal::Flores),
];

/// A sphere of the tests at `pos` with `vel`, `omega`.
fn sphere(pos: DVec3, vel: DVec3, omega: DVec3, mobility: Mobility) -> SphereSpec {
    SphereSpec {
        pos,
        radius: R,
        vel,
        omega,
        mobility,
    }
}

/// A two-body scene: the spheres, optionally the plate z = 0, gravity −g ẑ.
fn scene(
    normal: Normal,
    mat: Material,
    cohesion: Cohesion,
    g: f64,
    plate: bool,
    spheres: Vec<SphereSpec>,
) -> Scene {
    Scene {
        frame: None,
        simulation: SimulationSpec {
            skin: Some(grainflow::scene::Skin::Fixed(0.05)),
            ..SimulationSpec::new(1.0, TimeStep::Fixed(DT))
        },
        contact: ContactModel {
            normal,
            tangential: Tangential::Spring,
            rolling: Rolling::Constant,
            twisting: Twisting::Constant,
            cohesion,
            characteristic_velocity: V_C,
            step_correction: true,
        },
        materials: vec![mat],
        pairs: vec![],
        gravity: Gravity {
            uniform: Some(DVec3::new(0.0, 0.0, -g)),
            ..Default::default()
        },
        boundary: Default::default(),
        walls: if plate {
            vec![WallSpec::plane("body", DVec3::ZERO, DVec3::Z)]
        } else {
            vec![]
        },
        particles: vec![ParticleSource::List(ListSource {
            material: "body".into(),
            spheres,
        })],
        output: OutputSpec::default(),
        recirculation: None,
        inserts: Vec::new(),
    }
}

/// Store indices of the particles with ids `a` and `b` (the order the scene lists them).
fn ids(p: &grainflow::particles::Particles, [a, b]: [u64; 2]) -> (usize, usize) {
    (p.index_of(a).unwrap_or(0), p.index_of(b).unwrap_or(1))
}

fn build(scene: Scene) -> Result<Simulation> {
    Simulation::new(scene, Path::new("."))
}

/// Static overlap (m) under an elastic load `f` (N) for effective radius and mass: Hooke
/// δ = F/k_n (A5), Hertz and Flores δ = (F/k_n)^{2/3} (A6, A7).
fn static_overlap(normal: Normal, f: f64, r_eff: f64, m_eff: f64) -> f64 {
    let m = material(0.5, 0.0, 0.0, 0.0, 0.0);
    let e_star = effective_modulus(&m, &m);
    match normal {
        Normal::Hooke => f / hooke_stiffness(e_star, r_eff, m_eff, V_C),
        _ => (f / hertz_stiffness(e_star, r_eff)).powf(2.0 / 3.0),
    }
}

/// Test 1. Five spheres 0.1 m apart fall onto the plate (e = 0.3, μ = 0.3) and must come to
/// rest stacked (kinetic energy below 1e-14 J for 0.2 s, within 10 s): no lateral displacement or spin
/// (< 1e-9), and the top sphere at the height the static overlaps give (to 1e-7 m), contact k
/// (from the bottom) carrying the weight (5 − k) m g of the spheres above it.
pub fn normal_stack(_full: bool) -> Result<Vec<Metric>> {
    let mut out = Vec::new();
    for (name, normal) in MODELS {
        let spheres = (0..5)
            .map(|k| {
                sphere(
                    DVec3::new(0.0, 0.0, 0.6 + 1.1 * k as f64),
                    DVec3::ZERO,
                    DVec3::ZERO,
                    Mobility::Free,
                )
            })
            .collect();
        let mut sim = build(scene(
            normal,
            material(0.3, 0.3, 0.0, 0.0, 0.0),
            Cohesion::None,
            G,
            true,
            spheres,
        ))?;
        // At rest: kinetic energy below 1e-14 J for 0.2 s (longer than the slowest stack mode).
        let mut calm_since = 1.0;
        while sim.world.time - calm_since < 0.2 && sim.world.time < 10.0 {
            sim.step()?;
            if sim.energies().translational > 1e-14 {
                calm_since = sim.world.time.max(1.0);
            }
        }
        let p = &sim.world.particles;
        let lateral = p
            .pos
            .iter()
            .map(|x| x.x.abs().max(x.y.abs()))
            .fold(0.0, f64::max);
        let spin = p.omega.iter().map(|w| w.length()).fold(0.0, f64::max);
        let top = p.pos.iter().map(|x| x.z).fold(f64::MIN, f64::max);
        let mut expected = R - static_overlap(normal, 5.0 * M * G, R, M);
        for k in 1..5 {
            expected += 2.0 * R - static_overlap(normal, (5 - k) as f64 * M * G, 0.5 * R, 0.5 * M);
        }
        let ke = sim.energies().translational;
        out.push(Metric::new(
            "normal-stack",
            name,
            "lateral displacement (m)",
            lateral,
            0.0,
            1e-9,
        ));
        out.push(Metric::new(
            "normal-stack",
            name,
            "spin (rad/s)",
            spin,
            0.0,
            1e-9,
        ));
        out.push(Metric::new(
            "normal-stack",
            name,
            "top sphere height (m)",
            top,
            expected,
            1e-7,
        ));
        out.push(Metric::new(
            "normal-stack",
            name,
            "kinetic energy at rest (J)",
            ke,
            0.0,
            1e-12,
        ));
    }
    Ok(out)
}

/// Test 2. Sphere j hangs under the fixed sphere i, held by constant cohesion F_c = 10 N, starting
/// at the no-gravity equilibrium (elastic force = F_c); gravity is switched on. For m g = 8 N it
/// stays attached with the normal force settling at F_c − m g = 2 N; for m g = 10 N it separates.
///
/// The separation 002 reports comes from the overshoot of an underdamped contact when gravity
/// is switched on. Table 1's e = 0 is critical damping for Hooke (A5): the contact then only
/// creeps towards zero overlap and never opens. We use e = 0.1: the step response of the linear
/// contact overshoots its new equilibrium by e × (the 8 or 10 N step), 0.8 N, which keeps the
/// 8 N case attached (2 − 0.8 > 0), while the 10 N case swings 1 N past zero force and opens.
/// Flores uses e = 0.05, nearer Table 1's 0 (which it refuses): its damping c_n δ^{3/2} δ̇ is
/// set for v₀ = v_c = 1 m/s, and this contact moves at about 0.1 m/s, so it is damped less than
/// e says and with e = 0.1 the 8 N case swings to zero force and opens (the least normal force
/// is 1e-5 N); with e = 0.05 it stays 0.67 N above zero and the 10 N case still opens.
pub fn cohesion(_full: bool) -> Result<Vec<Metric>> {
    let mut out = Vec::new();
    for (name, normal) in &MODELS {
        for g in [8.0, 10.0] {
            let d0 = static_overlap(*normal, 10.0, 0.5 * R, M);
            let spheres = vec![
                sphere(DVec3::ZERO, DVec3::ZERO, DVec3::ZERO, Mobility::Fixed),
                sphere(
                    DVec3::new(0.0, 0.0, -(2.0 * R - d0)),
                    DVec3::ZERO,
                    DVec3::ZERO,
                    Mobility::Free,
                ),
            ];
            let e = if *normal == Normal::Flores { 0.05 } else { 0.1 };
            let mat = material(e, 0.3, 0.0, 0.0, 10.0);
            let mut sim = build(scene(*normal, mat, Cohesion::Constant, g, false, spheres))?;
            sim.keep_reactions();
            sim.run_until(2.0, |_| Ok(()))?;
            let p = &sim.world.particles;
            let (a, b) = ids(p, [0, 1]);
            let gap = (p.pos[a] - p.pos[b]).length() - 2.0 * R;
            if g < 10.0 {
                let touching = sim.world.neighbors.slip.iter().position(|s| s.touching());
                // The force on j is (F_n − F_c) n̂ with n̂ from i to j (downwards): F_n = F_c − f_z.
                let f_n = touching.map_or(0.0, |s| 10.0 - sim.reactions().expect("kept")[s].0.z);
                out.push(Metric::new(
                    "cohesion",
                    name,
                    "m g = 8 N: normal force (N)",
                    f_n,
                    2.0,
                    1e-3,
                ));
                let expected = -static_overlap(*normal, 2.0, 0.5 * R, M);
                out.push(Metric::new(
                    "cohesion",
                    name,
                    "m g = 8 N: gap (m)",
                    gap,
                    expected,
                    1e-9,
                ));
            } else {
                let separated = if gap > 0.0 && p.vel[b].z < 0.0 {
                    1.0
                } else {
                    0.0
                };
                out.push(Metric::new(
                    "cohesion",
                    name,
                    "m g = 10 N: separated (1 = yes)",
                    separated,
                    1.0,
                    0.0,
                ));
            }
        }
    }
    Ok(out)
}

/// Runs a head-on pair at relative speed 1 m/s with restitution `e` and returns the measured
/// e' = −(v_i' − v_j')/(v_i − v_j) (002 eq 22) once the spheres have separated.
fn measure_restitution(normal: Normal, e: f64) -> Result<f64> {
    let spheres = vec![
        sphere(
            DVec3::new(-0.51, 0.0, 0.0),
            DVec3::new(0.5, 0.0, 0.0),
            DVec3::ZERO,
            Mobility::Free,
        ),
        sphere(
            DVec3::new(0.51, 0.0, 0.0),
            DVec3::new(-0.5, 0.0, 0.0),
            DVec3::ZERO,
            Mobility::Free,
        ),
    ];
    let mut sim = build(scene(
        normal,
        material(e, 0.3, 0.0, 0.0, 0.0),
        Cohesion::None,
        0.0,
        false,
        spheres,
    ))?;
    let mut touched = false;
    while sim.world.time < 1.0 {
        sim.step()?;
        let p = &sim.world.particles;
        let (a, b) = ids(p, [0, 1]);
        let apart = p.pos[b].x - p.pos[a].x > 2.0 * R;
        touched |= !apart;
        if touched && apart {
            break;
        }
    }
    let p = &sim.world.particles;
    let (a, b) = ids(p, [0, 1]);
    Ok((p.vel[b].x - p.vel[a].x) / 1.0)
}

/// Test 3. Input e = 0, 0.05, …, 1: measured e' equals e within 0.01 for every model (linear
/// and Tsuji damping are built to give e, Flores's constant is the exact Hunt–Crossley one,
/// `hunt_crossley_damping`; Flores refuses e = 0).
pub fn restitution(full: bool) -> Result<Vec<Metric>> {
    let step = if full { 0.01 } else { 0.05 };
    let n = (1.0 / step + 0.5) as usize;
    let mut out = Vec::new();
    for (name, normal) in MODELS {
        for k in 0..=n {
            let e = k as f64 * step;
            if normal == Normal::Flores && e == 0.0 {
                continue;
            }
            let measured = measure_restitution(normal, e)?;
            out.push(Metric::new(
                "restitution",
                name,
                format!("e' at e = {e:.2}"),
                measured,
                e,
                0.01,
            ));
        }
    }
    Ok(out)
}

/// Test 4. A non-rotating sphere hits the plate with v_n = 1 m/s at angle φ from the normal
/// (no gravity, e = 1, μ = 0.3). Past φ_th = arctan(7/2 μ (1 + e)) = 64.54° (eq 23) it slides
/// throughout: ω' = 5/2 μ (1 + e) v_n / r = 3 rad/s (eq 24) and e'_t = 1 − μ(1 + e)/tan φ (eq 25,
/// whose tan φ_th is a misprint for tan φ: the tangential impulse is μ(1 + e) m v_n). As in 002,
/// the angles past φ_th are checked; below it the elastic tangential spring, which rigid-body
/// theory lacks, shifts the onset of full sliding by a few degrees.
pub fn oblique_impact(full: bool) -> Result<Vec<Metric>> {
    let (mu, e): (f64, f64) = (0.3, 1.0);
    let phi_th = (3.5 * mu * (1.0 + e)).atan().to_degrees();
    let omega_slide = 2.5 * mu * (1.0 + e) * 1.0 / R;
    let step = if full { 1 } else { 2 };
    let mut out = Vec::new();
    for (name, normal) in MODELS {
        let mut results = Vec::new();
        for deg in (2..=88).step_by(step) {
            let phi = (deg as f64).to_radians();
            let v = DVec3::new(phi.tan(), 0.0, -1.0);
            let spheres = vec![sphere(
                DVec3::new(0.0, 0.0, R + 1e-3),
                v,
                DVec3::ZERO,
                Mobility::Free,
            )];
            let mut sim = build(scene(
                normal,
                material(e, mu, 0.0, 0.0, 0.0),
                Cohesion::None,
                0.0,
                true,
                spheres,
            ))?;
            while sim.world.time < 1.0 {
                sim.step()?;
                let p = &sim.world.particles;
                if p.pos[0].z > R + 1e-3 && p.vel[0].z > 0.0 {
                    break;
                }
            }
            let p = &sim.world.particles;
            results.push((deg, phi, p.omega[0].y, p.vel[0].x / phi.tan()));
        }
        for (deg, phi, omega, e_t) in results.into_iter().filter(|r| (r.0 as f64) > phi_th) {
            let expected_et = 1.0 - mu * (1.0 + e) / phi.tan();
            out.push(Metric::new(
                "oblique-impact",
                name,
                format!("ω' at {deg}° (rad/s)"),
                omega,
                omega_slide,
                0.01 * omega_slide,
            ));
            out.push(Metric::new(
                "oblique-impact",
                name,
                format!("e'_t at {deg}°"),
                e_t,
                expected_et,
                0.01 * expected_et,
            ));
        }
    }
    Ok(out)
}

/// Flores needs e > 0: tests 5–7 give it e = 0.3 instead of Table 1's 0.
fn rest_restitution(normal: Normal) -> f64 {
    if normal == Normal::Flores {
        0.3
    } else {
        0.0
    }
}

/// A sphere resting on the plate at its static overlap, with `vel` and `omega`.
fn resting(normal: Normal, vel: DVec3, omega: DVec3, mobility: Mobility) -> SphereSpec {
    sphere(
        DVec3::new(0.0, 0.0, R - static_overlap(normal, M * G, R, M)),
        vel,
        omega,
        mobility,
    )
}

/// Test 5. A sphere with rotation locked slides at v₀ = 5 m/s on the plate (μ = 0.5, g = 9.81)
/// and stops after d = v₀²/(2 μ g) = 2.5484 m (eq 26), within 1e-3 m.
pub fn sliding(_full: bool) -> Result<Vec<Metric>> {
    let (v0, mu) = (5.0, 0.5);
    let mut out = Vec::new();
    for (name, normal) in MODELS {
        let s = resting(
            normal,
            DVec3::new(v0, 0.0, 0.0),
            DVec3::ZERO,
            Mobility::NoRotation,
        );
        let mat = material(rest_restitution(normal), mu, 0.0, 0.0, 0.0);
        let mut sim = build(scene(normal, mat, Cohesion::None, G, true, vec![s]))?;
        sim.run_until(v0 / (mu * G) + 0.5, |_| Ok(()))?;
        let d = sim.world.particles.pos[0].x;
        out.push(Metric::new(
            "sliding",
            name,
            "stopping distance (m)",
            d,
            v0 * v0 / (2.0 * mu * G),
            1e-3,
        ));
    }
    Ok(out)
}

/// Test 6. A sphere pushed at v₀ = 1 m/s (μ = 0.3, μ_r = 0.2) first slides: v = v₀ − μ g t,
/// ω = 5/2 (μ − μ_r) g t / r, until v = r ω at t₁ = v₀ / (g (μ + 5/2 (μ − μ_r))); then rolls with
/// constant resistance torque μ_r r m g, decelerating at a = 5/7 μ_r g, and stops. Distance,
/// stop time and rolling deceleration are compared with these rigid-body values within 1 %.
pub fn rolling(_full: bool) -> Result<Vec<Metric>> {
    let (v0, mu, mu_r) = (1.0, 0.3, 0.2);
    let t1 = v0 / (G * (mu + 2.5 * (mu - mu_r)));
    let v1 = v0 - mu * G * t1;
    let a2 = 5.0 / 7.0 * mu_r * G;
    let distance = v0 * t1 - 0.5 * mu * G * t1 * t1 + v1 * v1 / (2.0 * a2);
    let t_stop = t1 + v1 / a2;
    let mut out = Vec::new();
    for (name, normal) in MODELS {
        let s = resting(
            normal,
            DVec3::new(v0, 0.0, 0.0),
            DVec3::ZERO,
            Mobility::Free,
        );
        let mat = material(rest_restitution(normal), mu, mu_r, 0.0, 0.0);
        let mut sim = build(scene(normal, mat, Cohesion::None, G, true, vec![s]))?;
        let (ta, tb) = (t1 + 0.25 * (t_stop - t1), t1 + 0.75 * (t_stop - t1));
        sim.run_until(ta, |_| Ok(()))?;
        let va = sim.world.particles.vel[0].x;
        sim.run_until(tb, |_| Ok(()))?;
        let vb = sim.world.particles.vel[0].x;
        let mut stopped_at = f64::NAN;
        while sim.world.time < t_stop + 0.3 {
            sim.step()?;
            if stopped_at.is_nan() && sim.world.particles.vel[0].x <= 0.0 {
                stopped_at = sim.world.time;
            }
        }
        let p = &sim.world.particles;
        let decel = (va - vb) / (tb - ta);
        out.push(Metric::new(
            "rolling",
            name,
            "rolling deceleration (m/s²)",
            decel,
            a2,
            0.01 * a2,
        ));
        out.push(Metric::new(
            "rolling",
            name,
            "distance to rest (m)",
            p.pos[0].x,
            distance,
            0.01 * distance,
        ));
        out.push(Metric::new(
            "rolling",
            name,
            "time to rest (s)",
            stopped_at,
            t_stop,
            0.01 * t_stop,
        ));
        out.push(Metric::new(
            "rolling",
            name,
            "final spin (rad/s)",
            p.omega[0].length(),
            0.0,
            1e-6,
        ));
    }
    Ok(out)
}

/// Test 7. A sphere resting on the plate spins at ω₀ = 1 rad/s about the normal (μ_t = 0.2).
/// The torque μ_t r_c m g, with r_c = √(2 r δ − δ²) from the static overlap δ (eq 20), is
/// constant, so it stops at t = I ω₀ / (μ_t r_c m g) (I = 2/5 m r²); compared within 1 %.
pub fn spinning(_full: bool) -> Result<Vec<Metric>> {
    let (w0, mu_t) = (1.0, 0.2);
    let mut out = Vec::new();
    for (name, normal) in MODELS {
        let delta = static_overlap(normal, M * G, R, M);
        let r_c = (2.0 * R * delta - delta * delta).sqrt();
        let t_stop = 0.4 * M * R * R * w0 / (mu_t * r_c * M * G);
        let s = resting(
            normal,
            DVec3::ZERO,
            DVec3::new(0.0, 0.0, w0),
            Mobility::Free,
        );
        let mat = material(rest_restitution(normal), 0.3, 0.0, mu_t, 0.0);
        let mut sim = build(scene(normal, mat, Cohesion::None, G, true, vec![s]))?;
        let mut stopped_at = f64::NAN;
        while sim.world.time < 1.2 * t_stop {
            sim.step()?;
            if stopped_at.is_nan() && sim.world.particles.omega[0].z <= 1e-9 * w0 {
                stopped_at = sim.world.time;
            }
        }
        out.push(Metric::new(
            "spinning",
            name,
            "time to stop spinning (s)",
            stopped_at,
            t_stop,
            0.01 * t_stop,
        ));
        let w = sim.world.particles.omega[0].length();
        out.push(Metric::new(
            "spinning",
            name,
            "final spin (rad/s)",
            w,
            0.0,
            1e-9,
        ));
    }
    Ok(out)
}
