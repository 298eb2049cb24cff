//! `grainflow check`: everything a run would refuse, and the derived numbers, without running.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use grainflow::neighbor::AutoSkin;
use grainflow::scene::built_in as scenes;
use grainflow::scene::Method;
use grainflow::sim::Simulation;

use crate::{budget, load_scene, pebbles};

pub fn check(arg: &str, max_memory: Option<f64>) -> Result<ExitCode> {
    let (scene, base) = load_scene(arg)?;
    let problems = scene.problems();
    if !problems.is_empty() {
        for p in &problems {
            outln!("refused: {p}");
        }
        return Ok(ExitCode::FAILURE);
    }
    let deck = Path::new(arg).is_file() && pebbles::is_deck(Path::new(arg));
    let estimate = match budget::enforce(arg, &scene, &base, deck, max_memory) {
        Ok(estimate) => estimate,
        Err(e) => {
            outln!("refused: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let sim = match Simulation::new(scene, &base) {
        Ok(sim) => sim,
        Err(e) => {
            outln!("refused: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    outln!("{arg}: ok");
    outln!("  particles:            {}", sim.world.particles.len());
    outln!("  walls:                {}", sim.world.walls.len());
    for (k, w) in sim.world.walls.iter().enumerate() {
        if let Some(grainflow::walls::Shape::Mesh(part)) = w.shape.members().first() {
            outln!("  wall {k} mesh:          {}", part.mesh.summary());
        }
    }
    for line in step_lines(&sim) {
        outln!("{line}");
    }
    if let Some(line) = skin_line(&sim) {
        outln!("{line}");
    }
    outln!("  steps:                {}", sim.total_steps());
    for line in unit_lines(arg) {
        outln!("{line}");
    }
    let (grains, steps) = (sim.world.particles.len(), sim.total_steps());
    for line in budget::lines(&estimate, max_memory, grains, steps) {
        outln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Every value the scene file gives with a unit, echoed in SI (what the run uses).
fn unit_lines(arg: &str) -> Vec<String> {
    let path = Path::new(arg);
    let text = if path.is_file() && !pebbles::is_deck(path) {
        std::fs::read_to_string(path).ok()
    } else if path.exists() {
        None
    } else {
        scenes::find(arg).map(|s| s.toml.to_string())
    };
    let given = text.map_or_else(Vec::new, |t| grainflow::units::given_with_units(&t));
    if given.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["  given with units, in SI:".to_string()];
    for (field, text, si) in given {
        lines.push(format!("    {field} = \"{text}\" = {si:e}"));
    }
    lines
}

/// What `check` says about the time step: soft contacts are resolved over t_c (002 eq 27);
/// hard and approximate hard spheres have instantaneous collisions and no contact time, and
/// approx_hard carries momentum at most `passes` diameters per step (004 §I).
fn step_lines(sim: &Simulation) -> Vec<String> {
    let dt = sim.physics.dt;
    match sim.scene.simulation.method {
        Method::Soft(options) => {
            let mut lines = if sim.physics.contact_time.is_finite() {
                vec![
                    format!(
                        "  shortest contact t_c: {:.4e} s (002 eq 27)",
                        sim.physics.contact_time
                    ),
                    format!(
                        "  time step dt:         {:.4e} s (t_c / {:.1})",
                        dt,
                        sim.physics.contact_time / dt
                    ),
                ]
            } else {
                vec![
                    "  contact law:          none (grains that touch stop the run)".to_string(),
                    format!("  time step dt:         {dt:.4e} s"),
                ]
            };
            if sim.physics.contact_time.is_finite() {
                let step = dt / f64::from(options.substeps.max(1));
                let p = &sim.world.particles;
                let names = |k: usize| sim.scene.materials.get(k).map_or("?", |m| m.name.as_str());
                for (a, b, e, d) in grainflow::contact::discrete::for_pairs(
                    &sim.physics.model,
                    &sim.physics.table,
                    p,
                    step,
                ) {
                    use grainflow::contact::Normal;
                    let asked = match sim.physics.model.normal {
                        Normal::Linear { .. } => format!("damping given (e = {e:.3})"),
                        Normal::Pebbles { .. } => "damping given".into(),
                        _ => format!("e = {e}"),
                    };
                    let corrected = if sim.physics.table.step_corrected() {
                        ", damping corrected for the step"
                    } else {
                        ""
                    };
                    lines.push(format!(
                        "  restitution at dt:    {}–{}: {asked}{corrected}, delivered {:.3} to {:.3} (mean {:.3}) head-on at v_c, by where in the step the contact starts (validate restitution-dt)",
                        names(a),
                        names(b),
                        d.low,
                        d.high,
                        d.mean
                    ));
                }
            }
            if sim.physics.orbital_step.is_finite() {
                lines.push(format!(
                    "  orbital step limit:   {:.4e} s (0.05 √(r³ / G M) at the closest approach; dt / it = {:.2})",
                    sim.physics.orbital_step,
                    dt / f64::from(options.substeps.max(1)) / sim.physics.orbital_step
                ));
            }
            let n = options.substeps;
            if n > 1 {
                lines.push(format!(
                    "  integrator step:      {:.4e} s (dt in {n} sub-steps, t_c / {:.1})",
                    dt / f64::from(n),
                    sim.physics.contact_time * f64::from(n) / dt
                ));
            }
            lines
        }
        Method::Hard(_) => vec![format!(
            "  time step dt:         {dt:.4e} s (kick-drift-kick; collisions are instantaneous, no contact time)"
        )],
        Method::ApproxHard(options) => {
            let p = &sim.world.particles;
            let d = 2.0 * p.min_radius();
            let passes = options.passes as f64;
            let mut lines = vec![format!(
                "  time step dt:         {dt:.4e} s (fixed; collisions are instantaneous, no contact time)"
            )];
            if d.is_finite() {
                lines.push(format!(
                    "  signal speed limit:   {:.3e} m/s (passes x smallest diameter / dt, 004 \u{a7}I)",
                    passes * d / dt
                ));
            }
            lines
        }
    }
}

/// What `check` says about the Verlet skin (docs/performance.md): sized from the fastest grain
/// at every rebuild, or fixed. Hard spheres size theirs while running (4 v_max dt).
fn skin_line(sim: &Simulation) -> Option<String> {
    let nl = &sim.world.neighbors;
    match (sim.scene.simulation.method, nl.auto) {
        (Method::Hard(_), _) => None,
        (_, Some(auto)) => Some(format!(
            "  neighbour skin:       auto, {} v_max dt within {:.3e} … {:.3e} m",
            2.0 * AutoSkin::STEPS,
            auto.range[0],
            auto.range[1]
        )),
        (Method::ApproxHard(_), None) => Some(format!(
            "  neighbour skin:       {:.3e} m, widened when the grains outrun it",
            nl.skin
        )),
        (Method::Soft(_), None) => Some(format!("  neighbour skin:       {:.3e} m", nl.skin)),
    }
}
