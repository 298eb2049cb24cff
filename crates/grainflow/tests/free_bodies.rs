//! Free walls (`free = { ... }`): a body in free flight follows the parabola, a lid resting on
//! a grain on a floor settles at the Hertz overlaps of its weight, and a grain striking a free
//! block leaves the total momentum and angular momentum as they were.

use std::path::Path;

use glam::DVec3;
use grainflow::rigid::FreeWall;
use grainflow::scene::Scene;
use grainflow::sim::Simulation;

/// Hertz grains of radius 1 mm, E = 1e7 Pa, ν = 0.25, with `walls` and `particles` tables
/// and uniform gravity `g` (m/s²).
fn scene(dt: f64, g: f64, walls: &str, particles: &str) -> String {
    format!(
        r#"
[simulation]
duration = 1.0
dt = {dt:e}
[contact]
normal = "hertz"
[[materials]]
name = "m"
density = 2500
youngs_modulus = 1e7
poisson_ratio = 0.25
restitution = 0.5
sliding_friction = 0.3
[gravity]
uniform = [0, 0, {g}]
{walls}
[[particles]]
type = "list"
material = "m"
spheres = [{particles}]
"#
    )
}

/// A free solid cube of half-size `h` (m) about the origin with the `free` table.
fn cube(h: f64, free: &str) -> String {
    format!(
        "[[walls]]\ntype = \"block\"\nmaterial = \"m\"\nmin = [-{h}, -{h}, -{h}]\nmax = [{h}, {h}, {h}]\nfree = {free}\n"
    )
}

fn build(toml: &str) -> Simulation {
    let scene = Scene::from_toml(toml, "free.toml").expect("parses");
    Simulation::new(scene, Path::new(".")).expect("builds")
}

fn body(sim: &Simulation) -> &FreeWall {
    &sim.world.wall_runtime.bodies[0]
}

#[test]
fn a_free_block_in_flight_follows_the_parabola_and_keeps_its_spin_momentum() {
    // A 1 cm steel cube thrown up and sideways, tumbling; the one grain is far away.
    let walls = cube(
        0.005,
        "{ density = 7800, velocity = [0.5, 0.0, 1.0], spin = [3.0, 1.0, 20.0] }",
    );
    let mut sim = build(&scene(
        1e-5,
        -9.81,
        &walls,
        "{ pos = [1, 0, 0], radius = 1e-3 }",
    ));
    let l0 = body(&sim).body.state.momentum;
    let dt = 1e-5;
    for n in 1..=2000 {
        sim.step().expect("steps");
        let t = n as f64 * dt;
        let want = DVec3::new(0.5 * t, 0.0, t - 0.5 * 9.81 * t * t);
        let s = body(&sim).body.state;
        assert!(
            (s.pos - want).length() <= 1e-12 * want.length(),
            "{n}: {:?}",
            s.pos
        );
        assert!((s.momentum - l0).length() <= 1e-12 * l0.length());
    }
}

#[test]
fn a_lid_on_a_grain_on_a_floor_settles_at_the_hertz_overlaps_of_its_weight() {
    // Floor z = 0; the grain at z = R; a lid (a plane facing down, 20 mg, free along z only) at
    // z = 2R. At rest the lid bears its weight on the grain and the floor bears both:
    // m g = 4/3 Ē √R δ^{3/2} (002 eq A6), Ē = E / (2 (1 − ν²)) for one material, so the lid
    // sits at 2R − δ_floor − δ_lid.
    let walls = r#"
[[walls]]
type = "plane"
material = "m"
point = [0, 0, 0]
normal = [0, 0, 1]
[[walls]]
type = "plane"
material = "m"
point = [0, 0, 2e-3]
normal = [0, 0, -1]
free = { mass = 2e-5, center = [0, 0, 2e-3], fixed = ["x", "y", "rx", "ry", "rz"] }
"#;
    let (r, g, lid) = (1e-3f64, 9.81, 2e-5);
    let mut sim = build(&scene(
        2e-6,
        -g,
        walls,
        "{ pos = [0, 0, 1e-3], radius = 1e-3 }",
    ));
    for _ in 0..50_000 {
        sim.step().expect("steps");
    }
    let grain = sim.world.particles.mass[0];
    let e_bar = 1e7 / (2.0 * (1.0 - 0.25f64 * 0.25));
    let overlap = |f: f64| (f / (4.0 / 3.0 * e_bar * r.sqrt())).powf(2.0 / 3.0);
    let (d_lid, d_floor) = (overlap(lid * g), overlap((lid + grain) * g));
    let b = body(&sim);
    let sunk = 2.0 * r - b.body.state.pos.z;
    assert!(
        (sunk / (d_lid + d_floor) - 1.0).abs() <= 1e-6,
        "{sunk} vs {}",
        d_lid + d_floor
    );
    // The grain pushes the lid up with the lid's weight; the held x, y stay put.
    assert!(
        (b.contact.0.z / (lid * g) - 1.0).abs() <= 1e-6,
        "{:?}",
        b.contact
    );
    assert_eq!((b.body.state.pos.x, b.body.state.pos.y), (0.0, 0.0));
    assert!(b.body.state.vel.z.abs() <= 1e-9, "{}", b.body.state.vel.z);
    // walls.csv: the floor bears both weights, the lid is pushed up by its own.
    let loads = grainflow::io::wall_forces::wall_loads(&sim).expect("soft spheres");
    let (floor, top) = (loads.walls[0].0.z, loads.walls[1].0.z);
    assert!(
        (floor / (-(lid + grain) * g) - 1.0).abs() <= 1e-6,
        "{floor}"
    );
    assert!((top / (lid * g) - 1.0).abs() <= 1e-6, "{top}");
    assert_eq!(loads.shared_grains, 0);
}

/// Total momentum, and angular momentum about the origin, of the grains and the body.
fn momenta(sim: &Simulation) -> (DVec3, DVec3) {
    let p = &sim.world.particles;
    let (mut lin, mut ang) = (DVec3::ZERO, DVec3::ZERO);
    for k in 0..p.len() {
        lin += p.mass[k] * p.vel[k];
        ang += p.mass[k] * p.pos[k].cross(p.vel[k]) + p.omega[k] / p.inv_inertia[k];
    }
    let b = &body(sim).body;
    let (m, s) = (b.constants.mass, b.state);
    (lin + m * s.vel, ang + m * s.pos.cross(s.vel) + s.momentum)
}

#[test]
fn a_grain_striking_a_free_block_keeps_the_total_momentum_and_angular_momentum() {
    // No gravity; a 4 mm cube of grain material drifting and spinning; a frictional grain
    // strikes it off-centre. Every contact force and couple acts on both (Newton's third law)
    // and both are kicked at the same places, so the sums change by round-off only.
    let walls = cube(
        0.002,
        "{ density = 2500, velocity = [0.0, 0.01, 0.0], spin = [0.5, -1.0, 2.0] }",
    );
    let grain = "{ pos = [0.0035, 0.0012, 0.001], radius = 1e-3, vel = [-0.5, 0.05, 0.1], omega = [10, 0, 5] }";
    let mut sim = build(&scene(1e-6, 0.0, &walls, grain));
    let (p0, l0) = momenta(&sim);
    let mut touched = false;
    for _ in 0..4000 {
        sim.step().expect("steps");
        touched |= body(&sim).contact.0 != DVec3::ZERO;
        let (p, l) = momenta(&sim);
        assert!((p - p0).length() <= 1e-12 * p0.length(), "{p} vs {p0}");
        assert!((l - l0).length() <= 1e-12 * l0.length(), "{l} vs {l0}");
    }
    assert!(touched, "the grain reached the block");
    // It bounced: the grain now moves away from the block.
    let v = sim.world.particles.vel[0];
    assert!(v.x > 0.0, "{v}");
}

#[test]
fn free_walls_are_refused_with_the_hard_methods_and_with_a_motion() {
    let walls = cube(0.002, "{ density = 2500 }")
        + r#"
motion = { type = "translate", velocity = [1, 0, 0] }
"#;
    let toml = scene(1e-6, 0.0, &walls, "{ pos = [1, 0, 0], radius = 1e-3 }");
    let hard = toml.replace("dt = 1e-6", "dt = 1e-6\nmethod = \"approx_hard\"");
    let problems: Vec<String> = Scene::from_toml(&hard, "t")
        .unwrap()
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        problems
            .iter()
            .any(|m| m.starts_with("walls[0].motion: a free wall is moved")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|m| m.starts_with("walls[0].free: free walls move with method = \"soft\"")),
        "{problems:?}"
    );
}

/// About 1300 grains settling at 20 g under a tumbling 1 cm steel cube dropped on them: enough
/// grains for the free wall's pass to split across threads.
fn bed() -> String {
    let walls = r#"
[[walls]]
type = "plane"
material = "m"
point = [0, 0, 0]
normal = [0, 0, 1]
[[walls]]
type = "block"
material = "m"
min = [-0.005, -0.005, 0.0085]
max = [0.005, 0.005, 0.0185]
free = { density = 7800, velocity = [0.05, 0.0, -0.3], spin = [2.0, -1.0, 5.0] }
"#;
    let toml = scene(
        2e-6,
        -196.2,
        walls,
        "{ pos = [0.02, 0.02, 0.03], radius = 1e-3 }",
    );
    format!(
        "{toml}[[particles]]\ntype = \"lattice\"\nkind = \"hcp\"\nmaterial = \"m\"\nradius = 1e-3\nmin = [-0.015, -0.015, 0.0]\nmax = [0.015, 0.015, 0.008]\n"
    )
}

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("pool")
}

/// The bits of the grains' positions and velocities and of the body's state.
fn bits(sim: &Simulation) -> Vec<u64> {
    let p = &sim.world.particles;
    let s = body(sim).body.state;
    let body = [s.pos, s.vel, s.momentum, s.force, s.torque];
    p.pos
        .iter()
        .chain(&p.vel)
        .chain(&body)
        .flat_map(|v| v.to_array())
        .chain(s.turn.to_array())
        .map(f64::to_bits)
        .collect()
}

#[test]
fn a_free_block_on_a_bed_gives_the_same_bits_on_any_thread_count_and_after_a_resume() {
    let run = |threads: usize, steps: usize| {
        pool(threads).install(|| {
            let mut sim = build(&bed());
            let mut pressed: f64 = 0.0;
            for _ in 0..steps {
                sim.step().expect("steps");
                pressed = pressed.max(body(&sim).contact.0.z);
            }
            (sim, pressed)
        })
    };
    let ((one, pressed), (three, _)) = (run(1, 3000), run(3, 3000));
    // Its weight at 20 g is 7800 × 1e-6 × 196.2 = 1.5 N.
    assert!(pressed > 1.0, "the block reached the bed: {pressed} N");
    assert!(bits(&one) == bits(&three), "one and three threads differ");
    // Half the run, a checkpoint, and the other half from it.
    let (half, _) = run(2, 1500);
    let dir = std::env::temp_dir().join(format!("grainflow-free-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("half.gfck");
    half.checkpoint().write(&path).expect("writes");
    let ckpt = grainflow::io::checkpoint::Checkpoint::read(&path).expect("reads");
    assert_eq!(ckpt.bodies.len(), 1);
    let scene = Scene::from_toml(&bed(), "free.toml").expect("parses");
    let mut resumed = Simulation::resume(scene, Path::new("."), ckpt).expect("resumes");
    pool(2).install(|| {
        for _ in 0..1500 {
            resumed.step().expect("steps");
        }
    });
    assert!(bits(&one) == bits(&resumed), "the resumed run differs");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bodies_csv_follows_the_body() {
    let walls = cube(
        0.005,
        "{ density = 7800, velocity = [0.5, 0.0, 1.0], spin = [0.0, 0.0, 2.0] }",
    ) + r#"
[output]
series_interval = 1e-4
wall_forces = true
"#;
    let mut sim = build(&scene(
        1e-5,
        -9.81,
        &walls,
        "{ pos = [1, 0, 0], radius = 1e-3 }",
    ));
    let dir = std::env::temp_dir().join(format!("grainflow-bodies-{}", std::process::id()));
    let mut out = grainflow::io::Outputs::new(&dir, &sim).expect("opens");
    for _ in 0..100 {
        sim.step().expect("steps");
        out.observe(&sim).expect("writes");
    }
    out.finish(&sim).expect("finishes");
    let text = std::fs::read_to_string(dir.join("bodies.csv")).expect("bodies.csv");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("time,step,wall0_x,wall0_y,wall0_z,wall0_vx"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[0].split(',').count(), 2 + 19);
    // A row at t = 0 and one every 1e-4 s to 1e-3 s.
    assert_eq!(lines.len(), 1 + 11, "{text}");
    let last: Vec<f64> = lines[11]
        .split(',')
        .map(|x| x.parse().expect("number"))
        .collect();
    let s = body(&sim).body.state;
    assert_eq!((last[2], last[4]), (s.pos.x, s.pos.z));
    // Spinning about z at 2 rad/s: ω_z, and q = (cos 1e-3, 0, 0, sin 1e-3) after 1e-3 s.
    assert!((last[14] - 2.0).abs() <= 1e-12 && (last[11] - 1e-3f64.sin()).abs() <= 1e-12);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_plate_dropped_on_a_layer_of_grains_comes_to_rest_on_them() {
    // A 1 cm × 1 cm × 1 mm plate of grain material (as heavy as the 25 grains), tumbling,
    // dropped at 0.2 m/s on a 5 × 5 layer of grains on a floor: it ends at rest (its kinetic
    // energy a billionth of the throw's), level on them, the grains bearing its
    // weight (the sum of their forces on it is m g ẑ, to 1e-3 of it while the tangential
    // springs still creep at 0.1 s).
    let walls = r#"
[[walls]]
type = "plane"
material = "m"
point = [0, 0, 0]
normal = [0, 0, 1]
[[walls]]
type = "block"
material = "m"
min = [-0.005, -0.005, 0.0022]
max = [0.005, 0.005, 0.0032]
free = { density = 2500, velocity = [0.0, 0.0, -0.2], spin = [3.0, -2.0, 1.0] }
"#;
    let grains: Vec<String> = (0..25)
        .map(|k| {
            let (x, y) = (
                (k % 5) as f64 * 2.2e-3 - 4.4e-3,
                (k / 5) as f64 * 2.2e-3 - 4.4e-3,
            );
            format!("{{ pos = [{x:e}, {y:e}, 1e-3], radius = 1e-3 }}")
        })
        .collect();
    // With rolling resistance: on grains free to roll the plate would spin on as on bearings.
    let toml = scene(2e-6, -9.81, walls, &grains.join(", "));
    let mut sim = build(&toml.replace(
        "sliding_friction = 0.3",
        "sliding_friction = 0.3\nrolling_friction = 0.1\ntwisting_friction = 0.1",
    ));
    let thrown = body(&sim).body.kinetic_energy();
    for _ in 0..50_000 {
        sim.step().expect("steps");
    }
    let b = body(&sim);
    let weight = b.body.constants.mass * 9.81;
    let bearing = b.contact.0 - DVec3::new(0.0, 0.0, weight);
    assert!(
        bearing.length() <= 1e-3 * weight,
        "{:?} vs {weight}",
        b.contact
    );
    let left = b.body.kinetic_energy() / thrown;
    assert!(left <= 1e-9, "{left}");
    // Level: its bottom face (its local z axis) points along z to 1e-3 rad.
    let up = b.body.state.turn * DVec3::Z;
    assert!(up.z >= (1e-3f64).cos(), "{up}");
}

/// A ball of radius 1 cm (glass, 2500 kg/m³) dropped 2 mm into a seat of three fixed grains of
/// radius 5 mm (centres 8 mm from the z axis, at z = 0), under the linear law (its constants do
/// not depend on the pair's radii or masses, so a grain–grain and a grain–wall contact feel the
/// same law), written with `walls` and the ball in `particles`.
fn ball_in_seat(walls: &str, particles: &str) -> String {
    let seat: Vec<String> = (0..3)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / 3.0;
            let (x, y) = (0.008 * a.cos(), 0.008 * a.sin());
            format!("{{ pos = [{x}, {y}, 0], radius = 0.005, mobility = \"fixed\" }}")
        })
        .collect();
    format!(
        r#"
[simulation]
duration = 1.0
dt = 2e-5
[contact]
normal = {{ linear = {{ kn = 2e4, damping = 4.0, tangential_damping = 4.0 }} }}
rolling = "none"
[[materials]]
name = "m"
density = 2500
youngs_modulus = 1e7
poisson_ratio = 0.25
restitution = 0.5
sliding_friction = 0.5
[gravity]
uniform = [0, 0, -9.81]
{walls}
[[particles]]
type = "list"
material = "m"
spheres = [{}{particles}]
"#,
        seat.join(", ")
    )
}

#[test]
fn a_free_icosphere_mesh_falls_bounces_and_rests_as_the_same_ball_as_a_grain() {
    // An icosphere of 5120 triangles with its corners on the ball's sphere: its faces lie
    // inside by at most the sagitta s = r (1 − r_in/r), r_in the distance of the nearest face
    // plane; it holds 1 − 3 s/r of the ball's mass at the least.
    use grainflow::walls::trimesh::make::{ascii_stl, icosphere};
    let r = 0.01;
    let tris = icosphere(DVec3::ZERO, r, 4);
    let r_in = tris
        .iter()
        .map(|t| {
            let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
            t[0].dot(n).abs()
        })
        .fold(r, f64::min);
    let sag = r - r_in;
    let start = DVec3::new(0.0, 0.0, 0.0147);
    let dir = std::env::temp_dir().join(format!("grainflow-icoball-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("ball.stl"), ascii_stl(&tris, "ball")).expect("writes");
    let mesh = format!(
        "[[walls]]\ntype = \"mesh\"\nmaterial = \"m\"\npath = \"ball.stl\"\ntranslate = [{}, {}, {}]\nfree = {{ density = 2500 }}\n",
        start.x, start.y, start.z
    );
    let build_in = |toml: String| {
        let scene = Scene::from_toml(&toml, "ball.toml").expect("parses");
        Simulation::new(scene, &dir).expect("builds")
    };
    let at = format!(
        ", {{ pos = [{}, {}, {}], radius = {r} }}",
        start.x, start.y, start.z
    );
    let mut grain = build_in(ball_in_seat("", &at));
    let mut ball = build_in(ball_in_seat(&mesh, ""));
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let mass = body(&ball).body.constants.mass;
    assert!(
        mass <= m && mass >= m * (1.0 - 3.0 * sag / r),
        "{mass} vs {m}"
    );
    // The ball among the grains (id 3), wherever sorting put it.
    let ball_at = |s: &Simulation| {
        s.world
            .particles
            .id
            .iter()
            .position(|&i| i == 3)
            .expect("the ball")
    };
    // The same parabola until the ball reaches the seat.
    let mut worst = 0.0f64;
    for n in 1..=7500 {
        grain.step().expect("steps");
        ball.step().expect("steps");
        let k = ball_at(&grain);
        let (a, b) = (grain.world.particles.pos[k], body(&ball).body.state.pos);
        if n <= 900 {
            // t ≤ 18 ms: 1.6 mm fallen, not yet touching.
            assert!((a - b).length() <= 1e-12 * r, "{n}: {a:?} {b:?}");
        }
        worst = worst.max((a - b).length());
    }
    let k = ball_at(&grain);
    let (a, b) = (grain.world.particles.pos[k], body(&ball).body.state.pos);
    let (va, vb) = (grain.world.particles.vel[k], body(&ball).body.state.vel);
    // At rest in the seat (after 0.15 s: the bounces die within a few contact times).
    assert!(va.length() <= 1e-4 && vb.length() <= 1e-4, "{va:?} {vb:?}");
    // Each of the three contact surfaces lies inside the ball's by 0 to s along its normal,
    // at β from the vertical (cos β = 12.69/15, the seat's geometry): the mesh rests lower by
    // at most s / cos β and off the axis by at most 2 s / sin β.
    let cos_b = (0.015f64 * 0.015 - 0.008 * 0.008).sqrt() / 0.015;
    let sin_b = 0.008 / 0.015;
    let (dz, dxy) = (a.z - b.z, (a - b).truncate().length());
    assert!(
        dz >= -1e-3 * sag && dz <= sag / cos_b && dxy <= 2.0 * sag / sin_b,
        "s = {sag:e}: rests lower by {dz:e}, aside by {dxy:e}"
    );
    eprintln!("s = {sag:e}: rests lower by {dz:e}, aside by {dxy:e}; largest difference on the way {worst:e}");
    // An open mesh has no volume to fill: refused with the wall, the file and the edge.
    let open = grainflow::walls::trimesh::make::rectangle([0.0; 2], [0.01; 2], 0.0, 1, 1);
    std::fs::write(dir.join("sheet.stl"), ascii_stl(&open, "sheet")).expect("writes");
    let toml = ball_in_seat(&mesh.replace("ball.stl", "sheet.stl"), "");
    let e = Simulation::new(Scene::from_toml(&toml, "s.toml").expect("parses"), &dir)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("walls[0].free.density") && e.contains("the mesh sheet.stl: is not closed"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
