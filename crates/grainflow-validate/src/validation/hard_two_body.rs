//! Hard-sphere collisions against closed forms (000 §2.1, eq 1–9), run through whole scenes
//! with `method = "hard"`: head-on, oblique and spinning pairs and a sphere hitting a plane.
//!
//! Each case has a single collision inside the step; the expected state after it follows from
//! the straight-line contact time (eq 3 or 9) and the resolution equations (eq 4, 6–8):
//! momentum exchange along n̂ by (1 + ε_n) and, with surface coupling, 2/7 (1 − ε_t) of the
//! tangential contact velocity.

use std::path::Path;

use glam::DVec3;

use super::Metric;
use grainflow::contact::ContactModel;
use grainflow::gravity::Gravity;
use grainflow::material::Material;
use grainflow::particles::Mobility;
use grainflow::scene::WallSpec;
use grainflow::scene::{
    ListSource, Method, OutputSpec, ParticleSource, Scene, SimulationSpec, SphereSpec, TimeStep,
};
use grainflow::sim::Simulation;
use grainflow::Result;

const CASE: &str = "hard-two-body";

/// A hard-sphere scene of one material with restitution ε_n, ε_t, no gravity, one step of dt.
pub(super) fn scene(
    eps_n: f64,
    eps_t: f64,
    dt: f64,
    walls: Vec<WallSpec>,
    spheres: Vec<SphereSpec>,
) -> Scene {
    Scene {
        frame: None,
        simulation: SimulationSpec {
            method: Method::Hard(Default::default()),
            ..SimulationSpec::new(dt, TimeStep::Fixed(dt))
        },
        contact: ContactModel::hertz(),
        materials: vec![Material {
            name: "m".into(),
            density: Some(1.0),
            youngs_modulus: 1e9,
            poisson_ratio: 0.3,
            restitution: eps_n,
            sliding_friction: 0.0,
            rolling_friction: 0.0,
            twisting_friction: 0.0,
            tangential_restitution: eps_t,
            cohesion: 0.0,
            core: None,
        }],
        pairs: vec![],
        gravity: Gravity::default(),
        boundary: Default::default(),
        walls,
        particles: vec![ParticleSource::List(ListSource {
            material: "m".into(),
            spheres,
        })],
        output: OutputSpec::default(),
        recirculation: None,
        inserts: Vec::new(),
    }
}

pub(super) fn sphere(pos: DVec3, vel: DVec3, omega: DVec3, radius: f64) -> SphereSpec {
    SphereSpec {
        pos,
        radius,
        vel,
        omega,
        mobility: Mobility::Free,
    }
}

/// |a − b| relative to |b| (or absolute when b = 0).
pub(super) fn rel(a: DVec3, b: DVec3) -> f64 {
    (a - b).length() / b.length().max(1e-300)
}

/// Two spheres that meet once within one step: the state at the end of the step must be the
/// analytic one — drift to the contact time t_c (eq 3), resolve (eq 4), drift for dt − t_c.
fn pair_case(
    out: &mut Vec<Metric>,
    name: &str,
    a: SphereSpec,
    b: SphereSpec,
    eps: (f64, f64),
) -> Result<()> {
    let dt = 1.0;
    let mut sim = Simulation::new(
        scene(eps.0, eps.1, dt, vec![], vec![a.clone(), b.clone()]),
        Path::new("."),
    )?;
    sim.step()?;
    let p = &sim.world.particles;
    let (ia, ib) = (p.index_of(0).unwrap_or(0), p.index_of(1).unwrap_or(1));
    let (ma, mb) = (p.mass[ia], p.mass[ib]);
    let rho = b.pos - a.pos;
    let v = b.vel - a.vel;
    let tc = grainflow::hard::pair_collision_time(rho, v, a.radius + b.radius).unwrap_or(f64::NAN);
    let (xa, xb) = (a.pos + a.vel * tc, b.pos + b.vel * tc);
    out.push(Metric::new(
        CASE,
        name,
        "gap at predicted contact / radii",
        ((xb - xa).length() - (a.radius + b.radius)) / (a.radius + b.radius),
        0.0,
        1e-12,
    ));
    let n = (xb - xa).normalize();
    let tolerance = 1e-12;
    // The impulse acts at the contact point c, so momentum is conserved and each sphere's
    // angular momentum about c is unchanged; with eq 4 these fix the post-collision state.
    let c = xa + a.radius * n;
    let inertia = |m: f64, r: f64| 0.4 * m * r * r;
    let momentum = |va: DVec3, vb: DVec3| ma * va + mb * vb;
    let p0 = momentum(a.vel, b.vel);
    let dp = (momentum(p.vel[ia], p.vel[ib]) - p0).length()
        / (ma * a.vel.length() + mb * b.vel.length());
    out.push(Metric::new(
        CASE,
        name,
        "momentum change (relative)",
        dp,
        0.0,
        tolerance,
    ));
    for (k, s, x, m, v0, w0) in [
        (ia, &a, xa, ma, a.vel, a.omega),
        (ib, &b, xb, mb, b.vel, b.omega),
    ] {
        let l = |v: DVec3, w: DVec3| inertia(m, s.radius) * w + (x - c).cross(m * v);
        let (l0, l1) = (l(v0, w0), l(p.vel[k], p.omega[k]));
        let scale = inertia(m, s.radius) * w0.length() + m * s.radius * v0.length();
        let which = if k == ia { 1 } else { 2 };
        out.push(Metric::new(
            CASE,
            name,
            format!("angular momentum of sphere {which} about the contact (relative change)"),
            (l1 - l0).length() / scale,
            0.0,
            tolerance,
        ));
    }
    // Eq 4 itself: u' = −ε_n u_n + ε_t u_t.
    let u = |va: DVec3, wa: DVec3, vb: DVec3, wb: DVec3| {
        vb - va + wb.cross(-b.radius * n) - wa.cross(a.radius * n)
    };
    let (u0, u1) = (
        u(a.vel, a.omega, b.vel, b.omega),
        u(p.vel[ia], p.omega[ia], p.vel[ib], p.omega[ib]),
    );
    let expected = -eps.0 * u0.dot(n) * n + eps.1 * (u0 - u0.dot(n) * n);
    out.push(Metric::new(
        CASE,
        name,
        "contact velocity after (eq 4, rel. error)",
        rel(u1, expected),
        0.0,
        tolerance,
    ));
    // The collision happened at t_c: after it, sphere 1 drifted for dt − t_c.
    let end = xa + p.vel[ia] * (dt - tc);
    out.push(Metric::new(
        CASE,
        name,
        "position of sphere 1 (rel. error)",
        rel(p.pos[ia], end),
        0.0,
        tolerance,
    ));
    Ok(())
}

/// Hard-sphere pairs and a sphere on a plane against 000 eq 1–9, then every wall primitive,
/// moving walls, a sticky and an absorbing wall ([`super::hard_walls`]).
pub fn hard_two_body(_full: bool) -> Result<Vec<Metric>> {
    let mut out = Vec::new();
    pair_case(
        &mut out,
        "head-on",
        sphere(DVec3::ZERO, DVec3::new(1.0, 0.0, 0.0), DVec3::ZERO, 0.5),
        sphere(
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(-0.5, 0.0, 0.0),
            DVec3::ZERO,
            0.3,
        ),
        (0.8, 1.0),
    )?;
    pair_case(
        &mut out,
        "oblique",
        sphere(DVec3::ZERO, DVec3::new(1.0, 0.2, -0.1), DVec3::ZERO, 0.5),
        sphere(
            DVec3::new(1.6, 0.5, 0.1),
            DVec3::new(-0.4, 0.0, 0.0),
            DVec3::ZERO,
            0.4,
        ),
        (0.64, 0.8),
    )?;
    pair_case(
        &mut out,
        "spinning",
        sphere(
            DVec3::ZERO,
            DVec3::new(0.7, 0.0, 0.0),
            DVec3::new(0.0, 3.0, 1.0),
            0.5,
        ),
        sphere(
            DVec3::new(1.5, 0.3, 0.0),
            DVec3::new(-0.2, 0.1, 0.0),
            DVec3::new(-2.0, 0.0, 0.5),
            0.5,
        ),
        (0.5, -0.3),
    )?;
    // A spinning sphere falls onto the plane z = 0 (eq 9, then eq 6–8 with a static wall).
    let (eps_n, eps_t, dt) = (0.7, 0.4, 1.0);
    let s = sphere(
        DVec3::new(0.0, 0.0, 1.0),
        DVec3::new(0.3, 0.0, -1.0),
        DVec3::new(0.0, 2.0, 0.0),
        0.25,
    );
    let mut sim = Simulation::new(
        scene(
            eps_n,
            eps_t,
            dt,
            vec![WallSpec::plane("m", DVec3::ZERO, DVec3::Z)],
            vec![s.clone()],
        ),
        Path::new("."),
    )?;
    sim.step()?;
    let tc = grainflow::hard::plane_collision_time(s.pos.z, s.vel.z, s.radius).unwrap_or(f64::NAN);
    out.push(Metric::new(
        CASE,
        "plane",
        "height at predicted contact − radius",
        s.pos.z + s.vel.z * tc - s.radius,
        0.0,
        1e-12,
    ));
    // Eq 6–8 written out for n̂ = ẑ: s = −r ẑ, u = v + ω × s.
    let sv = -s.radius * DVec3::Z;
    let u = s.vel + s.omega.cross(sv);
    let (u_n, u_t) = (u.z * DVec3::Z, u - u.z * DVec3::Z);
    let vel = s.vel - (1.0 + eps_n) * u_n - 2.0 / 7.0 * (1.0 - eps_t) * u_t;
    let omega = s.omega - 5.0 / 7.0 / (s.radius * s.radius) * (1.0 - eps_t) * sv.cross(u);
    let p = &sim.world.particles;
    out.push(Metric::new(
        CASE,
        "plane",
        "velocity after (eq 6, rel. error)",
        rel(p.vel[0], vel),
        0.0,
        1e-12,
    ));
    out.push(Metric::new(
        CASE,
        "plane",
        "spin after (eq 7, rel. error)",
        rel(p.omega[0], omega),
        0.0,
        1e-12,
    ));
    // Normal rebound is exactly −ε_n v_n (eq 6).
    out.push(Metric::new(
        CASE,
        "plane",
        "normal rebound speed (m/s)",
        p.vel[0].z,
        eps_n * 1.0,
        1e-12,
    ));
    super::hard_walls::hard_walls(&mut out)?;
    Ok(out)
}

/// An elastic hard-sphere gas at volume fraction φ = 0.05 in a periodic box (scene S4 of the
/// peers' benchmarks; quick form 2000 spheres for 0.3 time units, full form 10 000 for 2): the
/// collision rate per particle must match Enskog's √2 n π σ² ⟨v⟩ g(σ) with ⟨v⟩ = σ_v √(8/π),
/// σ = 2r and the Carnahan–Starling contact value g(σ) = (1 − φ/2)/(1 − φ)³ within 5 %, and the
/// kinetic energy must stay constant to 1e-12.
pub fn hard_gas(full: bool) -> Result<Vec<Metric>> {
    let (n, steps): (usize, u64) = if full { (10_000, 2000) } else { (2000, 300) };
    let (phi, r, sigma_v, dt): (f64, f64, f64, f64) = (0.05, 0.010608, 1.0, 1e-3);
    let volume = n as f64 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3) / phi;
    let l = volume.cbrt();
    let text = format!(
        r#"
[simulation]
method = "hard"
duration = {duration}
dt = {dt}
seed = 7
[boundary]
periodic = {{ x = [0.0, {l}], y = [0.0, {l}], z = [0.0, {l}] }}
[contact]
normal = "hertz"
[[materials]]
name = "gas"
density = 1.0
youngs_modulus = 1e9
poisson_ratio = 0.3
restitution = 1.0
sliding_friction = 0.0
[[particles]]
type = "random"
material = "gas"
count = {n}
radius = {r}
min = [0.0, 0.0, 0.0]
max = [{l}, {l}, {l}]
velocity_dispersion = {sigma_v}
"#,
        duration = steps as f64 * dt,
    );
    let mut sim = Simulation::new(Scene::from_toml(&text, "hard-gas")?, Path::new("."))?;
    let e0 = sim.energies().translational;
    for _ in 0..steps {
        sim.step()?;
    }
    let number_density = n as f64 / volume;
    let mean_speed = sigma_v * (8.0 / std::f64::consts::PI).sqrt();
    let g = (1.0 - phi / 2.0) / (1.0 - phi).powi(3);
    let enskog =
        2f64.sqrt() * number_density * std::f64::consts::PI * (2.0 * r).powi(2) * mean_speed * g;
    let rate = 2.0 * sim.world.collisions as f64 / (n as f64 * sim.world.time);
    let de = sim.energies().translational / e0 - 1.0;
    Ok(vec![
        Metric::new(
            "hard-gas",
            "hard",
            "collisions per particle per time unit",
            rate,
            enskog,
            0.05 * enskog,
        ),
        Metric::new(
            "hard-gas",
            "hard",
            "relative kinetic-energy change",
            de,
            0.0,
            1e-12,
        ),
    ])
}
