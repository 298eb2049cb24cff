//! `grainflow analyze`: drum and pile analyses of finished runs (002 §5.3, §6.3), written as
//! CSV and PNG. A run folder is what `grainflow run` wrote: `final.gfck` (which holds the scene)
//! and, for drums, `particles.dump` (the snapshots).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use glam::DVec3;
use grainflow::analysis::packing::{radial_packing, vertical_packing, Vessel};
use grainflow::analysis::{
    drum_angle, froude_number, mean_and_error, pile_angle, velocity_profile, DrumFrame,
};
use grainflow::io::checkpoint::Checkpoint;
use grainflow::scene::Scene;
use grainflow::walls::{Motion, Shape};
use grainflow_validate::validation::tumbler::TABLE_3;

use crate::plot::{xy_plot, Series};

/// One frame of a LAMMPS-style dump: step, ids, positions, velocities.
struct Frame {
    step: u64,
    id: Vec<u64>,
    pos: Vec<DVec3>,
    vel: Vec<DVec3>,
}

/// Reads every frame of a dump written by grainflow (columns found by name).
fn read_dump(path: &Path) -> Result<Vec<Frame>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut frames = Vec::new();
    let mut lines = text.lines().enumerate();
    let bad = |n: usize, why: &str| anyhow::anyhow!("{}:{}: {why}", path.display(), n + 1);
    while let Some((n, line)) = lines.next() {
        if line != "ITEM: TIMESTEP" {
            continue;
        }
        let step: u64 = lines
            .next()
            .and_then(|l| l.1.trim().parse().ok())
            .ok_or_else(|| bad(n, "bad TIMESTEP"))?;
        lines.next();
        let count: usize = lines
            .next()
            .and_then(|l| l.1.trim().parse().ok())
            .ok_or_else(|| bad(n, "bad NUMBER OF ATOMS"))?;
        for _ in 0..4 {
            lines.next();
        }
        let (hn, header) = lines.next().ok_or_else(|| bad(n, "missing ATOMS header"))?;
        let cols: Vec<&str> = header.split_whitespace().skip(2).collect();
        let col = |name: &str| {
            cols.iter()
                .position(|c| *c == name)
                .ok_or_else(|| bad(hn, &format!("no column {name}")))
        };
        let c: Vec<usize> = ["id", "x", "y", "z", "vx", "vy", "vz"]
            .iter()
            .map(|n| col(n))
            .collect::<Result<_>>()?;
        let mut f = Frame {
            step,
            id: Vec::with_capacity(count),
            pos: Vec::with_capacity(count),
            vel: Vec::with_capacity(count),
        };
        for _ in 0..count {
            let (ln, l) = lines.next().ok_or_else(|| bad(n, "frame ends early"))?;
            let v: Vec<&str> = l.split_whitespace().collect();
            let num = |k: usize| {
                v.get(c[k])
                    .and_then(|s| s.parse::<f64>().ok())
                    .ok_or_else(|| bad(ln, "bad number"))
            };
            f.id.push(
                v.get(c[0])
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| bad(ln, "bad id"))?,
            );
            f.pos.push(DVec3::new(num(1)?, num(2)?, num(3)?));
            f.vel.push(DVec3::new(num(4)?, num(5)?, num(6)?));
        }
        frames.push(f);
    }
    Ok(frames)
}

/// The scene and final state of a run folder.
fn load_run(dir: &Path) -> Result<(Scene, Checkpoint)> {
    let path = dir.join("final.gfck");
    let ckpt = Checkpoint::read(&path)
        .with_context(|| format!("{}: run it with `grainflow run` first", dir.display()))?;
    let scene = Scene::from_toml(&ckpt.scene, &path.display().to_string())?;
    Ok((scene, ckpt))
}

fn gravity(scene: &Scene, dir: &Path) -> Result<DVec3> {
    match scene.gravity.uniform {
        Some(g) if g.length() > 0.0 => Ok(g),
        _ => bail!(
            "{}: the scene has no uniform gravity; drum and pile angles need one",
            dir.display()
        ),
    }
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Drum runs: dynamic angle of repose (mean ± error over the frames after `from` s), Froude
/// number, velocity profile and flowing layer; `angle_vs_froude.{csv,png}` over all runs.
pub fn drum(runs: &[PathBuf], from: f64, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut rows = Vec::new();
    let mut summary = String::from("run,froude,angle_deg,error_deg,frames,flowing_layer_over_d\n");
    for (n, dir) in runs.iter().enumerate() {
        rows.push(drum_run(&format!("run{n}"), dir, from, out, &mut summary)?);
    }
    write(&out.join("angle_vs_froude.csv"), &summary)?;
    let table: Vec<(f64, f64, f64)> = TABLE_3.to_vec();
    xy_plot(
        &out.join("angle_vs_froude.png"),
        "Dynamic angle of repose vs Froude number",
        "Fr = ω² D / (2 g)",
        "angle (deg)",
        &[
            Series {
                label: "grainflow",
                points: rows,
                line: false,
            },
            Series {
                label: "002 Table 3 (d = 1 mm)",
                points: table,
                line: true,
            },
        ],
        true,
    )?;
    outln!("wrote {}", out.display());
    Ok(())
}

/// One drum run in `dir`, named `name` in the files it writes to `out`: its angle CSV and
/// velocity profile, a row of `summary`; returns (Froude number, angle, its error) in degrees.
fn drum_run(
    name: &str,
    dir: &Path,
    from: f64,
    out: &Path,
    summary: &mut String,
) -> Result<(f64, f64, f64)> {
    let (scene, ckpt) = load_run(dir)?;
    let g = gravity(&scene, dir)?;
    let (center, axis, r_wall, omega) = drum_wall(&scene, dir)?;
    let p = &ckpt.particles;
    let glued: std::collections::HashSet<u64> = (0..p.len())
        .filter(|&k| p.inv_mass[k] == 0.0)
        .map(|k| p.id[k])
        .collect();
    let glued_d = (0..p.len())
        .filter(|&k| p.inv_mass[k] == 0.0)
        .map(|k| 2.0 * p.radius[k])
        .fold(0.0, f64::max);
    let free_r: Vec<f64> = (0..p.len())
        .filter(|&k| p.inv_mass[k] > 0.0)
        .map(|k| p.radius[k])
        .collect();
    let d = 2.0 * free_r.iter().sum::<f64>() / free_r.len().max(1) as f64;
    let diameter = 2.0 * r_wall - 2.0 * glued_d;
    let frame = DrumFrame::new(center, axis, g);
    let frames = read_dump(&dir.join("particles.dump"))?;
    let (mut angles, mut series) = (Vec::new(), String::from("time,angle_deg\n"));
    let layers = 20;
    let (mut vsum, mut vcount) = (vec![0.0; layers], vec![0usize; layers]);
    for f in frames.iter().filter(|f| f.step as f64 * ckpt.dt >= from) {
        let keep: Vec<usize> = (0..f.id.len())
            .filter(|&k| !glued.contains(&f.id[k]))
            .collect();
        let pos: Vec<DVec3> = keep.iter().map(|&k| f.pos[k]).collect();
        let vel: Vec<DVec3> = keep.iter().map(|&k| f.vel[k]).collect();
        let Some(fit) = drum_angle(&frame, &pos, d, 0.25 * diameter) else {
            continue;
        };
        angles.push(fit.angle_deg());
        let _ = writeln!(
            series,
            "{:e},{:e}",
            f.step as f64 * ckpt.dt,
            fit.angle_deg()
        );
        let prof = velocity_profile(&frame, &fit, &pos, &vel, 0.25 * diameter, 2.0 * d, layers);
        for k in 0..layers {
            if prof.count[k] > 0 {
                vsum[k] += prof.velocity[k] * prof.count[k] as f64;
                vcount[k] += prof.count[k];
            }
        }
    }
    let (angle, error) = mean_and_error(&angles);
    let fr = froude_number(omega, diameter, g.length());
    let scale = omega.abs() * diameter;
    let (prof_csv, pts, flowing) = flowing_layer(&vsum, &vcount, scale);
    write(&out.join(format!("{name}_angle.csv")), &series)?;
    write(&out.join(format!("{name}_profile.csv")), &prof_csv)?;
    if !pts.is_empty() {
        xy_plot(
            &out.join(format!("{name}_profile.png")),
            &format!(
                "{}: streamwise velocity, Fr = {fr:.2e} (002 Fig. 14)",
                dir.display()
            ),
            "depth below the surface y'/d",
            "v'_x / (ω D)",
            &[Series {
                label: "mean over frames",
                points: pts,
                line: true,
            }],
            false,
        )?;
    }
    let _ = writeln!(
        summary,
        "{},{fr:e},{angle:e},{error:e},{},{flowing:e}",
        dir.display(),
        angles.len()
    );
    outln!(
        "{}: Fr = {fr:.3e}, angle = {angle:.2} ± {error:.2} deg over {} frames, flowing layer {flowing:.1} d",
        dir.display(),
        angles.len()
    );
    Ok((fr, angle, error))
}

/// The drum of a run's scene, its first rotating cylinder wall: centre and axis, radius (m)
/// and angular velocity (rad/s).
fn drum_wall(scene: &Scene, dir: &Path) -> Result<(DVec3, DVec3, f64, f64)> {
    let drum = scene.walls.iter().find_map(|w| {
        let wall = w.build(0);
        match (&wall.shape, &wall.motion) {
            (Shape::Cylinder(c), Motion::Rotate { omega, .. }) => {
                Some((c.origin, c.axis, c.radius, *omega))
            }
            _ => None,
        }
    });
    let Some(drum) = drum else {
        bail!("{}: the scene has no rotating cylinder wall", dir.display());
    };
    Ok(drum)
}

/// The mean streamwise velocity per layer below the surface (`vsum` / `vcount`, scaled by
/// ω D = `scale`): its CSV, the plotted points, and the flowing layer's depth (in diameters,
/// where the velocity first changes sign; NaN if it never does).
fn flowing_layer(
    vsum: &[f64],
    vcount: &[usize],
    scale: f64,
) -> (String, Vec<(f64, f64, f64)>, f64) {
    let mut prof_csv = String::from("depth_over_d,velocity_over_omega_d,grains\n");
    let mut pts = Vec::new();
    let mut flowing = f64::NAN;
    let mut prev: Option<(f64, f64)> = None;
    for k in 0..vsum.len() {
        if vcount[k] == 0 {
            continue;
        }
        let (y, v) = ((k as f64 + 0.5) * 2.0, vsum[k] / vcount[k] as f64 / scale);
        let _ = writeln!(prof_csv, "{y:e},{v:e},{}", vcount[k]);
        pts.push((y, v, 0.0));
        if let Some((y0, v0)) = prev {
            if flowing.is_nan() && v0 > 0.0 && v <= 0.0 {
                flowing = y0 + (y - y0) * v0 / (v0 - v);
            }
        }
        prev = Some((y, v));
    }
    (prof_csv, pts, flowing)
}

/// A pile run: angle of repose of the final state (002 §5.3) from grains below `below` (m,
/// along up), flattened along `axis`; `pile.{csv,png}`.
pub fn pile(run: &Path, axis: DVec3, below: Option<f64>, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let (scene, ckpt) = load_run(run)?;
    let g = gravity(&scene, run)?;
    let frame = DrumFrame::new(DVec3::ZERO, axis, g);
    let p = &ckpt.particles;
    let pos: Vec<DVec3> = (0..p.len())
        .filter(|&k| below.is_none_or(|b| p.pos[k].dot(frame.up) < b))
        .map(|k| p.pos[k])
        .collect();
    if pos.is_empty() {
        bail!("{}: no grains to analyse", run.display());
    }
    let d = 2.0 * p.radius.iter().sum::<f64>() / p.len() as f64;
    let floor = pos
        .iter()
        .map(|x| x.dot(frame.up))
        .fold(f64::INFINITY, f64::min);
    let Some(fit) = pile_angle(&frame, &pos, d, floor) else {
        bail!("{}: no pile flanks found", run.display());
    };
    let mut csv = String::from("x,y\n");
    let flat: Vec<(f64, f64, f64)> = pos
        .iter()
        .map(|x| {
            let (a, b) = frame.flatten(*x);
            let _ = writeln!(csv, "{a:e},{b:e}");
            (a, b, 0.0)
        })
        .collect();
    write(&out.join("pile.csv"), &csv)?;
    let line = |f: &grainflow::analysis::LineFit, xs: (f64, f64)| -> Vec<(f64, f64, f64)> {
        vec![
            (xs.0, f.intercept + f.slope * xs.0, 0.0),
            (xs.1, f.intercept + f.slope * xs.1, 0.0),
        ]
    };
    let (x0, x1) = flat
        .iter()
        .fold((f64::MAX, f64::MIN), |a, p| (a.0.min(p.0), a.1.max(p.0)));
    let xm = 0.5 * (x0 + x1);
    xy_plot(
        &out.join("pile.png"),
        &format!(
            "Pile: {:.1} ± {:.1} deg (002 §5.3)",
            fit.angle_deg(),
            fit.error_deg()
        ),
        "x (m)",
        "height (m)",
        &[
            Series {
                label: "grains",
                points: flat,
                line: false,
            },
            Series {
                label: "left flank",
                points: line(&fit.left, (x0, xm)),
                line: true,
            },
            Series {
                label: "right flank",
                points: line(&fit.right, (xm, x1)),
                line: true,
            },
        ],
        false,
    )?;
    outln!(
        "{}: angle of repose {:.2} ± {:.2} deg (left {:.2}, right {:.2}); wrote {}",
        run.display(),
        fit.angle_deg(),
        fit.error_deg(),
        fit.left.angle_deg().abs(),
        fit.right.angle_deg().abs(),
        out.display()
    );
    Ok(())
}

/// Packing fractions of a run's final state (001 chapter 9, `bin_count`): vertical slabs and
/// radial annuli of the vessel `inner` < ρ < `outer` about the z axis between `bottom` and
/// `top`, written to `packing_vertical.csv` and `packing_radial.csv`; returns the summary lines.
pub fn packing(run: &Path, vessel: Vessel, bins: (usize, usize), out: &Path) -> Result<String> {
    let (_, ckpt) = load_run(run)?;
    let p = &ckpt.particles;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut summary = String::new();
    for (name, list) in [
        (
            "vertical",
            vertical_packing(&vessel, &p.pos, &p.radius, bins.0),
        ),
        ("radial", radial_packing(&vessel, &p.pos, &p.radius, bins.1)),
    ] {
        let mut csv = String::from("lo,hi,bin_volume,solid_volume,packing_fraction\n");
        for b in &list {
            let _ = writeln!(
                csv,
                "{:e},{:e},{:e},{:e},{:.6}",
                b.lo,
                b.hi,
                b.volume,
                b.solid,
                b.fraction()
            );
        }
        let path = out.join(format!("packing_{name}.csv"));
        write(&path, &csv)?;
        let (solid, volume) = list
            .iter()
            .fold((0.0, 0.0), |(s, v), b| (s + b.solid, v + b.volume));
        let _ = writeln!(
            summary,
            "{name}: {} bins, mean packing fraction {:.4} → {}",
            list.len(),
            solid / volume,
            path.display()
        );
    }
    Ok(summary)
}

/// The penetration of free wall `wall` of the run in `run` (its bodies.csv) as CSV
/// (time,depth,vz,fz), from its first contact on; a summary line on stderr.
pub fn penetration(run: &Path, wall: usize) -> Result<String> {
    let path = run.join("bodies.csv");
    let text = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => grainflow::Error::Format {
            path: path.clone(),
            reason: "not found: a run writes it only when its scene has a free wall \
                     (`free = { ... }`); is this a run's output folder?"
                .into(),
        },
        _ => grainflow::Error::io(&path, e),
    })?;
    let rows = grainflow::rigid::penetration::penetration(&text, wall).map_err(|reason| {
        grainflow::Error::Format {
            path: path.clone(),
            reason,
        }
    })?;
    let mut csv = String::from("time,depth,vz,fz\n");
    for d in &rows {
        csv.push_str(&format!(
            "{:e},{:e},{:e},{:e}\n",
            d.time, d.depth, d.vz, d.fz
        ));
    }
    let deepest = rows
        .iter()
        .fold(rows[0], |a, d| if d.depth > a.depth { *d } else { a });
    let last = rows[rows.len() - 1];
    eprintln!(
        "wall {wall}: first touched the grains at t = {:.4} s; deepest {:.4e} m at t = {:.4} s; {:.4e} m at t = {:.4} s, moving at {:.3e} m/s",
        rows[0].time, deepest.depth, deepest.time, last.depth, last.time, last.vz
    );
    Ok(csv)
}
