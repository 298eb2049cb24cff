//! Files from other codes as particle sources: pkdgrav `ss` files and LAMMPS dumps, read
//! through a scene exactly as a user gives them.

use std::path::{Path, PathBuf};

use glam::DVec3;
use grainflow::io::ss::{encode_ss, ss_from_particles, SsFormat, SsUnits, AU, M_SUN, T_UNIT};
use grainflow::scene::Scene;
use grainflow::sim::Simulation;

/// A scene of two materials whose particles come from `source` (a `[[particles]]` table body).
fn scene(source: &str) -> String {
    format!(
        r#"
[simulation]
duration = 0.1
dt = 1e-5

[contact]
normal = "hooke"

[[materials]]
name = "rock"
density = {rock}
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3

[[materials]]
name = "ice"
density = 1000
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3

[[particles]]
{source}
"#,
        rock = ROCK
    )
}

/// Density of "rock" (kg/m³).
const ROCK: f64 = 2000.0;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grainflow-interchange-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn build(text: &str, base: &Path) -> grainflow::Result<Simulation> {
    Simulation::new(Scene::from_toml(text, "scene.toml")?, base)
}

/// Mass (kg) of a sphere of radius `r` (m) and density `rho` (kg/m³).
fn sphere_mass(r: f64, rho: f64) -> f64 {
    4.0 / 3.0 * std::f64::consts::PI * r.powi(3) * rho
}

/// The bytes of a big-endian standard `ss` file, put together field by field as Python's
/// `struct.pack(">dii", …)` and `struct.pack(">11d2i", …)` would: an independent writer.
fn python_style_ss(time: f64, records: &[([f64; 11], [i32; 2])]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(time.to_be_bytes());
    b.extend((records.len() as i32).to_be_bytes());
    b.extend((-1i32).to_be_bytes());
    for (doubles, ints) in records {
        for x in doubles {
            b.extend(x.to_be_bytes());
        }
        for i in ints {
            b.extend(i.to_be_bytes());
        }
    }
    b
}

#[test]
fn an_independently_written_big_endian_ss_file_reads_in_si() {
    // Two grains in pkdgrav units: radii 1 cm and 2 cm of rock and of ice (colour 3 → ice).
    let r = [0.01 / AU, 0.02 / AU];
    let m = [
        sphere_mass(0.01, ROCK) / M_SUN,
        sphere_mass(0.02, 1000.0) / M_SUN,
    ];
    let v = 0.5 / (AU / T_UNIT); // 0.5 m/s in AU per (yr/2π)
    let records = [
        (
            [
                m[0],
                r[0],
                0.0,
                0.0,
                0.0,
                v,
                0.0,
                0.0,
                0.0,
                0.0,
                2.0 * T_UNIT,
            ],
            [2, 7],
        ),
        (
            [m[1], r[1], 0.1 / AU, 0.0, 0.0, 0.0, -v, 0.0, 0.0, 0.0, 0.0],
            [3, 8],
        ),
    ];
    let dir = folder("python");
    std::fs::write(dir.join("pile.ss"), python_style_ss(0.0, &records)).unwrap();
    let sim = build(
        &scene("type = \"ss\"\nmaterial = \"rock\"\npath = \"pile.ss\"\ntypes = { 3 = \"ice\" }"),
        &dir,
    )
    .unwrap();
    let p = &sim.world.particles;
    let (a, b) = (p.index_of(0).unwrap(), p.index_of(1).unwrap());
    // Unit conversion round-trips to within a few ulps of the SI values.
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-14 * y.abs().max(1e-300);
    assert!(close(p.radius[a], 0.01) && close(p.radius[b], 0.02));
    assert!(
        close(p.vel[a].x, 0.5) && close(p.vel[b].y, -0.5),
        "{:?}",
        p.vel
    );
    assert!(close(p.pos[b].x, 0.1));
    assert!(close(p.omega[a].z, 2.0));
    assert_eq!((p.material[a], p.material[b]), (0, 1));
    assert!(close(p.mass[b], sphere_mass(0.02, 1000.0)));
}

#[test]
fn particles_written_as_ss_read_back_bit_for_bit() {
    let dir = folder("roundtrip");
    let list = "type = \"list\"\nmaterial = \"ice\"\nspheres = [\n\
        { pos = [0.1, -0.2, 0.3], radius = 0.01, vel = [1, 2, 3], omega = [0.5, 0, -7] },\n\
        { pos = [0.0, 0.05, 1e-3], radius = 0.015, vel = [-0.1, 0, 0] },\n]";
    let first = build(&scene(list), &dir).unwrap();
    let p = &first.world.particles;
    let file = ss_from_particles(p, 0.0, SsUnits::Scene).unwrap();
    std::fs::write(dir.join("out.ss"), encode_ss(&file, SsFormat::Standard)).unwrap();
    let again = build(
        &scene("type = \"ss\"\nmaterial = \"rock\"\npath = \"out.ss\"\nunits = \"scene\"\ntypes = { 2 = \"ice\" }"),
        &dir,
    )
    .unwrap();
    let q = &again.world.particles;
    assert_eq!(q.len(), 2);
    for k in 0..2 {
        // Ids follow the file's order, which is the store order of the first run.
        let j = q.index_of(k as u64).unwrap();
        assert_eq!(q.pos[j], p.pos[k]);
        assert_eq!(q.vel[j], p.vel[k]);
        assert_eq!(q.omega[j], p.omega[k]);
        assert_eq!(q.radius[j].to_bits(), p.radius[k].to_bits());
        assert_eq!(q.mass[j].to_bits(), p.mass[k].to_bits());
        assert_eq!(q.material[j], p.material[k]);
    }
}

#[test]
fn bad_ss_files_are_refused_with_path_size_and_expectation() {
    let dir = folder("bad");
    let rec = (
        [
            sphere_mass(0.01, ROCK),
            0.01,
            0.,
            0.,
            0.,
            0.,
            0.,
            0.,
            0.,
            0.,
            0.,
        ],
        [1, 0],
    );
    let bytes = python_style_ss(0.0, &[rec]);
    std::fs::write(dir.join("short.ss"), &bytes[..100]).unwrap();
    let text = scene("type = \"ss\"\nmaterial = \"rock\"\npath = \"short.ss\"\nunits = \"scene\"");
    let e = build(&text, &dir).unwrap_err().to_string();
    assert!(
        e.ends_with("short.ss: 100 bytes, but a standard ss file of 1 particles has 16 + 1 × 96 = 112 bytes"),
        "{e}"
    );
    // The mass of a grain of another density is refused, naming what the material gives.
    let mut heavy = rec;
    heavy.0[0] *= 1.5;
    std::fs::write(dir.join("heavy.ss"), python_style_ss(0.0, &[heavy])).unwrap();
    let e = build(&text.replace("short.ss", "heavy.ss"), &dir)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("particle 0 (original index 0, colour 1): mass"),
        "{e}"
    );
    assert!(e.contains("set the material's density"), "{e}");
    // A type table naming no material is a scene error.
    let e = build(&format!("{text}\ntypes = {{ x = \"lava\" }}"), &dir)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("particles[0].types.x: a type must be a whole number"),
        "{e}"
    );
}

#[test]
fn a_lammps_dump_frame_is_a_particle_source() {
    let dir = folder("dump");
    let dump = "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS ff ff ff\n\
        0 1\n0 1\n0 1\nITEM: ATOMS id type x y z radius\n1 1 0.5 0.5 0.5 0.01\n\
        ITEM: TIME\n0.25\nITEM: TIMESTEP\n10\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp ff\n\
        0 1\n0 1\n0 1\nITEM: ATOMS id type xs ys zs diameter vx vy vz omegax omegay omegaz\n\
        9 2 0.5 0.5 0.5 0.02 1 0 0 0 0 3\n4 1 0.1 0.2 0.3 0.02 0 0 0 0 0 0\n";
    std::fs::write(dir.join("bed.dump"), dump).unwrap();
    let src =
        "type = \"lammps_dump\"\nmaterial = \"rock\"\npath = \"bed.dump\"\ntypes = { 2 = \"ice\" }";
    let sim = build(&scene(src), &dir).unwrap();
    let p = &sim.world.particles;
    assert_eq!(p.len(), 2);
    // Atoms are sorted by their dump id: id 4 first, then 9 (ice, spinning).
    let (a, b) = (p.index_of(0).unwrap(), p.index_of(1).unwrap());
    assert_eq!(p.pos[a], DVec3::new(0.1, 0.2, 0.3));
    assert_eq!((p.material[a], p.material[b]), (0, 1));
    assert_eq!((p.radius[b], p.vel[b].x, p.omega[b].z), (0.01, 1.0, 3.0));
    let first = build(&scene(&format!("{src}\ntimestep = 0")), &dir).unwrap();
    assert_eq!(first.world.particles.len(), 1);
    let e = build(&scene(&format!("{src}\ntimestep = 5")), &dir)
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("bed.dump: has no frame at timestep 5"), "{e}");
}
