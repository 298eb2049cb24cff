//! `grainflow`: run scenes, check them, list built-in scenes, run validation cases, render
//! and convert particle files.

/// Writes to standard output; when the reader has gone (`grainflow … | head`), the program ends
/// quietly with success instead of panicking on the closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
        }
    }};
}

/// [`out!`] with a newline.
macro_rules! outln {
    ($($arg:tt)*) => {
        out!("{}\n", format_args!($($arg)*))
    };
}

mod analyze;
mod bench;
mod bench_couette;
mod bench_gravity;
mod bench_mesh;
mod bench_tile;
mod budget;
mod check;
mod convert;
mod huge_pages;
mod pebbles;
mod plot;
mod raster;
mod render;
mod shared;
mod show;
mod stop;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use grainflow::io::checkpoint::Checkpoint;
use grainflow::io::{Outputs, Start};
use grainflow::scene::built_in as scenes;
use grainflow::scene::{BalanceBy, Method, Scene};
use grainflow::sim::Simulation;
use grainflow::stats::StageTimes;
use grainflow_validate::validation::{self, Comparison, Metric};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(
    name = "grainflow",
    version,
    about = "Granular dynamics (DEM) for regolith, rubble piles, lab flows and pebble beds"
)]
struct Cli {
    /// Worker threads (default: all cores). Results are bit-identical for any count.
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene (the built-in default scene when none is given).
    Run {
        /// Scene file (TOML) or the name of a built-in scene.
        scene: Option<String>,
        /// Output folder.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Resume from a checkpoint written by an earlier run of the same scene (into that
        /// run's folder, which is cut back to the checkpoint, or into a fresh one).
        #[arg(long)]
        resume: Option<PathBuf>,
        /// Replace the outputs of an earlier run in the output folder (refused without it).
        #[arg(long, conflicts_with = "resume")]
        overwrite: bool,
        /// Memory the run may take (48GB, 512MiB); by default what the system has available
        /// (MemAvailable, and what ulimit -v leaves). A scene estimated to need more is refused.
        #[arg(long, value_name = "SIZE", value_parser = budget::parse_size)]
        max_memory: Option<f64>,
    },
    /// Say everything a run would refuse, and the derived numbers, without running.
    Check {
        /// Scene file (TOML) or the name of a built-in scene.
        scene: String,
        /// Memory the run may take (48GB, 512MiB); by default what the system has available
        /// (MemAvailable, and what ulimit -v leaves). A scene estimated to need more is refused.
        #[arg(long, value_name = "SIZE", value_parser = budget::parse_size)]
        max_memory: Option<f64>,
    },
    /// List the built-in scenes, or write one out as a TOML template.
    Scenes {
        /// Name of the scene to write out.
        name: Option<String>,
        /// Where to write it (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Time the peers' benchmark scenes (S1, S2 of bench/peers/RESULTS.md), or compare
    /// approx_hard with soft on the Couette flow (`couette`).
    Bench {
        /// Benchmark name; lists them when absent.
        name: Option<String>,
        /// Steps to run (default: the scene's 10 000; `mesh`: 200 per run, in turns of 20).
        #[arg(long)]
        steps: Option<u64>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Run on one thread and on this many, alternately, each run a process of its own,
        /// and print the speed-ups and whether the results are bit-identical (fails if not).
        #[arg(long, value_name = "THREADS", requires = "name")]
        scaling: Option<usize>,
        /// Rounds of --scaling.
        #[arg(long, default_value_t = 1, requires = "scaling")]
        repeat: usize,
        /// Repeat the bed NX × NY times along x and y (s1, s2), timed by CPU time; under
        /// mpirun (the `mpi` feature) the run is shared among the ranks.
        #[arg(long, value_name = "NX,NY", value_parser = bench_tile::parse_tile, conflicts_with = "scaling")]
        tile: Option<[u32; 2]>,
        /// With --tile under mpirun: cut the bricks again every this many neighbour-list
        /// rebuilds (the scene's `simulation.balance_every`).
        #[arg(long, value_name = "REBUILDS", requires = "tile", value_parser = clap::value_parser!(u64).range(1..))]
        balance_every: Option<u64>,
        /// What --balance-every balances: the grains' work, or that work weighed by each
        /// rank's measured time (the scene's `simulation.balance_by`).
        #[arg(long, value_parser = ["work", "time"], default_value = "work", requires = "balance_every")]
        balance_by: String,
    },
    /// Run validation cases and compare with analytic or published numbers.
    Validate {
        /// Case names (see --list).
        names: Vec<String>,
        /// List the cases.
        #[arg(long)]
        list: bool,
        /// Print JSON: an array of {case, model, metric, value, expected, tolerance, pass}.
        #[arg(long)]
        json: bool,
        /// Run the full-size versions.
        #[arg(long)]
        full: bool,
    },
    /// Analyse finished runs: drum angle, velocity profile and Froude number; pile angle;
    /// PEBBLES post-processing (get-run, split-data, get-energy, pebbles).
    Analyze {
        #[command(subcommand)]
        what: Analysis,
    },
    /// Draw a snapshot or a run's snapshots to PNG: shaded spheres coloured by a field.
    Render(render::RenderArgs),
    /// Convert particles between pkdgrav ss, LAMMPS dump and data, CSV and VTU (by extension).
    Convert {
        /// Input file (.ss, .dump, .lammpstrj, .data, .csv; .gz for dump and data).
        input: PathBuf,
        /// Output file (.ss, .dump, .data, .csv, .vtu); a dump keeps every frame, the others
        /// the last.
        output: PathBuf,
        /// Units of ss files: pkdgrav (converted to SI) or scene (as they are).
        #[arg(long, value_enum, default_value = "pkdgrav")]
        ss_units: render::SsUnitsArg,
    },
}

#[derive(Subcommand)]
enum Analysis {
    /// Drum runs (002 §6.3): angle of repose per run and against Fr, velocity profiles.
    Drum {
        /// Run folders (each with final.gfck and particles.dump).
        runs: Vec<PathBuf>,
        /// Use frames from this simulated time on (s).
        #[arg(long, default_value_t = 0.0)]
        from: f64,
        /// Output folder for CSV and PNG files.
        #[arg(long, default_value = "analysis")]
        out: PathBuf,
    },
    /// A pile run (002 §5.3): angle of repose of the final state.
    Pile {
        /// Run folder (with final.gfck).
        run: PathBuf,
        /// Direction the pile is flattened along (the box's thin axis), e.g. 0,0,1.
        #[arg(long, default_value = "0,0,1", value_parser = parse_vec)]
        axis: glam::DVec3,
        /// Only grains below this height (m), e.g. under a hopper.
        #[arg(long)]
        below: Option<f64>,
        /// Output folder for CSV and PNG files.
        #[arg(long, default_value = "analysis")]
        out: PathBuf,
    },
    /// Packing fractions of a run's final state (001 chapter 9): vertical slabs and radial
    /// annuli of a vessel about the z axis, with exact sphere–bin volumes.
    Packing {
        /// Run folder (with final.gfck).
        run: PathBuf,
        /// Outer (vessel) radius (m).
        #[arg(long)]
        vessel_radius: f64,
        /// Inner radius of an annular vessel (m).
        #[arg(long, default_value_t = 0.0)]
        inner_radius: f64,
        /// Bottom of the region counted (m).
        #[arg(long)]
        bottom: f64,
        /// Top of the region counted (m).
        #[arg(long)]
        top: f64,
        /// Number of vertical slabs.
        #[arg(long, default_value_t = 20)]
        vertical_bins: usize,
        /// Number of radial annuli.
        #[arg(long, default_value_t = 10)]
        radial_bins: usize,
        /// Output folder for the CSV files.
        #[arg(long, default_value = "analysis")]
        out: PathBuf,
    },
    /// PEBBLES get_run (001 ch. 9): the full display at a step of a deck run's `.out`, a save.
    GetRun {
        /// The run's `<stem>.out`.
        file: PathBuf,
        /// Time step number.
        step: u64,
    },
    /// PEBBLES split_data: every display of a `.out` (every frequency × skips steps) into a folder.
    SplitData {
        /// The run's `<stem>.out`.
        file: PathBuf,
        /// Folder to write one file per display into.
        dir: PathBuf,
        /// Display interval in steps.
        #[arg(default_value_t = 1)]
        frequency: u64,
        /// Keep every skips-th display.
        #[arg(default_value_t = 1)]
        skips: u64,
    },
    /// PEBBLES get_energy: the energy displays of a `.out` as CSV.
    GetEnergy {
        /// The run's `<stem>.out`.
        file: PathBuf,
    },
    /// Pebble centres with pass counts of a save as CSV (id,x,y,z,radius,passes), for neutronics codes.
    Pebbles {
        /// A save (`<stem>_save`, or one cut out by get-run).
        save: PathBuf,
        /// CSV file to write.
        #[arg(long, default_value = "pebbles.csv")]
        out: PathBuf,
    },
    /// A free wall's depth below where it first touched the grains against time (a footpad,
    /// an impactor), from a run's bodies.csv: CSV time,depth,vz,fz on stdout.
    Penetration {
        /// Run folder (with bodies.csv).
        run: PathBuf,
        /// The free wall's index in the scene.
        #[arg(long, default_value_t = 0)]
        wall: usize,
    },
    /// Froude number ω² D / (2 g) (002 eq 31).
    Froude {
        /// Drum angular speed (rad/s).
        #[arg(long)]
        omega: f64,
        /// Drum diameter (m).
        #[arg(long)]
        diameter: f64,
        /// Gravity (m/s²).
        #[arg(long, default_value_t = 9.81)]
        g: f64,
    },
}

/// Parses "x,y,z".
fn parse_vec(s: &str) -> std::result::Result<glam::DVec3, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|t| t.trim().parse::<f64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| format!("{s}: {e}"))?;
    match v[..] {
        [x, y, z]
            if x.is_finite() && y.is_finite() && z.is_finite() && (x, y, z) != (0.0, 0.0, 0.0) =>
        {
            Ok(glam::DVec3::new(x, y, z))
        }
        _ => Err(format!("{s}: expected a non-zero vector x,y,z")),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        // Its runs are processes of their own, each with its thread count: no pool here.
        Command::Bench {
            name: Some(name),
            steps,
            json,
            scaling: Some(threads),
            repeat,
            ..
        } => match cli.threads {
            Some(n) => Err(anyhow::anyhow!(
                "--threads {n} with --scaling {threads}: --scaling sets the thread counts \
                 itself (one, then {threads}); drop --threads"
            )),
            None => bench::scaling(&name, steps, threads, repeat, json).map(|()| ExitCode::SUCCESS),
        },
        command => {
            let mut pool = rayon::ThreadPoolBuilder::new();
            if let Some(n) = cli.threads {
                pool = pool.num_threads(n);
            }
            pool.build()
                .context("cannot start the thread pool")
                .and_then(|pool| pool.install(|| dispatch(command)))
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Run {
            scene,
            out,
            resume,
            overwrite,
            max_memory,
        } => run(
            scene.as_deref(),
            &out,
            resume.as_deref(),
            overwrite,
            max_memory,
        ),
        Command::Check { scene, max_memory } => check::check(&scene, max_memory),
        Command::Scenes { name, out } => list_scenes(name.as_deref(), out.as_deref()),
        Command::Validate {
            names,
            list,
            json,
            full,
        } => validate(&names, list, json, full),
        Command::Render(args) => render::render(&args).map(|s| {
            outln!("{s}");
            ExitCode::SUCCESS
        }),
        Command::Convert {
            input,
            output,
            ss_units,
        } => convert::convert(&input, &output, ss_units.into()).map(|s| {
            outln!("{s}");
            ExitCode::SUCCESS
        }),
        Command::Analyze { what } => analysis(what).map(|()| ExitCode::SUCCESS),
        // `--scaling` runs from `main`, outside this pool, each run a process of its own.
        Command::Bench {
            name,
            steps,
            json,
            tile,
            balance_every,
            balance_by,
            ..
        } => {
            if let (Some(name), Some(tile)) = (&name, tile) {
                let by = match balance_by.as_str() {
                    "time" => BalanceBy::Time,
                    _ => BalanceBy::Work,
                };
                let balance = balance_every.map(|k| (k, by));
                return bench_tile::run(name, tile, balance, steps, json);
            }
            if let Some(name) = &name {
                if let Some(code) = shared::refuse_untiled(name)? {
                    return Ok(code);
                }
            }
            match name {
                Some(name) if name == "gravity" => return bench_gravity::gravity_s3(json),
                Some(name) if name == "couette" => return bench_couette::couette(json),
                Some(name) if name == "mesh" => {
                    return bench_mesh::mesh(steps.map_or(10, |s| (s / 20).max(1)), json)
                }
                Some(name) => bench::run(&name, steps, json)?,
                None => bench::list(),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Runs one `analyze` subcommand, its arguments checked first.
fn analysis(what: Analysis) -> Result<()> {
    match what {
        Analysis::Drum { runs, from, out } => {
            if runs.is_empty() {
                bail!("analyze drum: give at least one run folder");
            }
            analyze::drum(&runs, from, &out)?
        }
        Analysis::Pile {
            run,
            axis,
            below,
            out,
        } => analyze::pile(&run, axis, below, &out)?,
        Analysis::Packing {
            run,
            vessel_radius,
            inner_radius,
            bottom,
            top,
            vertical_bins,
            radial_bins,
            out,
        } => {
            if !(inner_radius >= 0.0 && vessel_radius > inner_radius) {
                bail!("analyze packing: need 0 ≤ --inner-radius < --vessel-radius, got {inner_radius} and {vessel_radius}");
            }
            if top.partial_cmp(&bottom) != Some(std::cmp::Ordering::Greater)
                || vertical_bins == 0
                || radial_bins == 0
            {
                bail!("analyze packing: need --top > --bottom and at least one bin of each kind");
            }
            let vessel = grainflow::analysis::packing::Vessel {
                inner: inner_radius,
                outer: vessel_radius,
                bottom,
                top,
            };
            out!(
                "{}",
                analyze::packing(&run, vessel, (vertical_bins, radial_bins), &out)?
            );
        }
        Analysis::GetRun { file, step } => out!("{}", pebbles::get_run(&file, step)?),
        Analysis::SplitData {
            file,
            dir,
            frequency,
            skips,
        } => {
            let files = pebbles::split_data(&file, &dir, frequency, skips)?;
            outln!("{} displays written to {}", files.len(), dir.display());
        }
        Analysis::GetEnergy { file } => out!("{}", pebbles::get_energy(&file)?),
        Analysis::Pebbles { save, out } => pebbles::pebbles_csv(&save, &out)?,
        Analysis::Penetration { run, wall } => {
            out!("{}", analyze::penetration(&run, wall)?)
        }
        Analysis::Froude { omega, diameter, g } => {
            if !(diameter > 0.0 && g > 0.0 && omega.is_finite()) {
                bail!("analyze froude: diameter and g must be > 0 and omega finite");
            }
            outln!(
                "Fr = {:.6e}",
                grainflow::analysis::froude_number(omega, diameter, g)
            );
        }
    }
    Ok(())
}

/// Loads a scene from a file, or a built-in scene by name; returns it with its base folder.
fn load_scene(arg: &str) -> Result<(Scene, PathBuf)> {
    let path = Path::new(arg);
    if path.is_file() && pebbles::is_deck(path) {
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let deck = grainflow::io::pebbles::Deck::load(path)?;
        return Ok((deck.translate(&base, &[PathBuf::from("out")])?.scene, base));
    }
    if path.exists() {
        let scene = Scene::load(path)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        return Ok((scene, base));
    }
    match scenes::find(arg) {
        Some(s) => Ok((Scene::from_toml(s.toml, s.name)?, PathBuf::from("."))),
        None => bail!(
            "{arg}: no such file, and no built-in scene of that name (built-in: {})",
            scenes::BUILT_IN
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn run(
    scene: Option<&str>,
    out: &Path,
    resume: Option<&Path>,
    overwrite: bool,
    max_memory: Option<f64>,
) -> Result<ExitCode> {
    let name = scene.unwrap_or(scenes::DEFAULT);
    if Path::new(name).is_file() && pebbles::is_deck(Path::new(name)) {
        if resume.is_some() {
            bail!("{name}: a PEBBLES deck resumes from a save (load_pebble_save), not --resume");
        }
        return pebbles::run(Path::new(name), out, overwrite, max_memory);
    }
    let (scene, base) = load_scene(name)?;
    budget::enforce(name, &scene, &base, false, max_memory)?;
    // Started by mpirun on several ranks (the `mpi` feature): shared among them.
    if let Some(ranks) = shared::ranks()? {
        return shared::run((scene, &base, name), out, resume, overwrite, ranks);
    }
    // The run would refuse them too; here the message names the scene's file.
    if let Some(first) = scene.problems().into_iter().next() {
        bail!("{name}: {first}");
    }
    let duration = scene.simulation.start_time + scene.simulation.duration;
    let (mut sim, start) = match resume {
        Some(path) => {
            let sim = Simulation::resume(scene, &base, Checkpoint::read(path)?)
                .with_context(|| format!("cannot resume {}", path.display()))?;
            (sim, Start::Resume)
        }
        None => (Simulation::new(scene, &base)?, Start::Fresh { overwrite }),
    };
    let mut outputs = Outputs::open(out, &sim, start)?;
    let t_c = match sim.scene.simulation.method {
        Method::Soft(_) => format!(" (t_c = {:.3e} s)", sim.physics.contact_time),
        Method::Hard(_) | Method::ApproxHard(_) => String::new(),
    };
    eprintln!(
        "grainflow: {name}: {} particles, {} walls, dt = {:.3e} s{t_c}, {} threads, output in {}",
        sim.world.particles.len(),
        sim.world.walls.len(),
        sim.physics.dt,
        rayon::current_num_threads(),
        out.display()
    );
    let steps = sim.total_steps();
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        ProgressBar::new(steps)
    } else {
        ProgressBar::hidden()
    };
    bar.set_position(sim.world.step.min(steps));
    bar.set_style(
        ProgressStyle::with_template("{bar:30} t = {msg} [{elapsed_precise} < {eta_precise}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let start = Instant::now();
    let first_step = sim.world.step;
    // On a terminal the bar updates in place; in a log, a plain line every tenth of the run.
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut next_line = 0.1;
    let mut overlap_peak = sim.stats.max_overlap_ratio;
    let stopped = stop::drive(&mut sim, (duration, Some(&base)), &mut outputs, |s| {
        overlap_peak = overlap_peak.max(s.stats.max_overlap_ratio);
        if s.world.step % 200 == 0 {
            let done = (s.world.step - first_step) as f64;
            let elapsed = start.elapsed().as_secs_f64().max(1e-9);
            let rate = done / elapsed;
            let e = s.energies();
            let line = format!(
                "{} s, {:.0} steps/s, KE = {:.3e} J, {} contacts",
                show::seconds(s.world.time),
                rate,
                e.translational + e.rotational,
                s.stats.contacts
            );
            let fraction = s.world.time / duration;
            if tty {
                bar.set_position(s.world.step);
                bar.set_message(line);
            } else if fraction >= next_line {
                let eta = (steps.saturating_sub(s.world.step)) as f64 / rate;
                eprintln!(
                    "grainflow: {:3.0} % t = {line}, ETA {eta:.0} s",
                    100.0 * fraction
                );
                next_line += 0.1;
            }
        }
        Ok(())
    })?;
    if let Some(status) = stopped {
        bar.abandon();
        return Ok(ExitCode::from(status));
    }
    let clock = Instant::now();
    outputs.finish(&sim)?;
    bar.finish();
    let t = StageTimes {
        output: outputs.seconds() + clock.elapsed().as_secs_f64(),
        ..sim.timers()
    };
    eprintln!("grainflow: stages: {t}");
    let e = sim.energies();
    let w = &sim.world;
    eprintln!(
        "grainflow: done: t = {} s, {} steps in {:.1} s; {} grains present, {} inserted, {} removed by absorbing walls; at the last step: kinetic energy (translational + rotational) {:.3e} J, {} pair contacts, {} wall contacts; largest overlap of the run {:.2e} of the smaller radius",
        show::seconds(w.time),
        w.step - first_step,
        start.elapsed().as_secs_f64(),
        w.particles.len(),
        w.inserts.total(),
        w.wall_runtime.absorbed.iter().sum::<u64>(),
        e.translational + e.rotational + 0.0,
        sim.stats.contacts - sim.stats.wall_contacts,
        sim.stats.wall_contacts,
        overlap_peak
    );
    Ok(ExitCode::SUCCESS)
}

fn list_scenes(name: Option<&str>, out: Option<&Path>) -> Result<ExitCode> {
    let Some(name) = name else {
        for s in scenes::BUILT_IN {
            outln!("{:<16} {}", s.name, s.about);
        }
        return Ok(ExitCode::SUCCESS);
    };
    let Some(s) = scenes::find(name) else {
        bail!("no built-in scene named {name}; `grainflow scenes` lists them");
    };
    match out {
        Some(path) => std::fs::write(path, s.toml)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => out!("{}", s.toml),
    }
    Ok(ExitCode::SUCCESS)
}

fn validate(names: &[String], list: bool, json: bool, full: bool) -> Result<ExitCode> {
    if list || names.is_empty() {
        for c in validation::CASES {
            outln!("{:<16} {}", c.name, c.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut metrics: Vec<Metric> = Vec::new();
    for name in names {
        let Some(case) = validation::find(name) else {
            bail!("no validation case named {name}; `grainflow validate --list` lists them");
        };
        metrics.extend((case.run)(full).with_context(|| format!("validation case {name}"))?);
    }
    let failed = metrics.iter().filter(|m| !m.pass).count();
    if json {
        outln!("{}", serde_json::to_string_pretty(&metrics)?);
    } else {
        outln!(
            "{:<15} {:<7} {:<36} {:>13} {:>13} {:>10}  pass",
            "case",
            "model",
            "metric",
            "value",
            "expected",
            "tolerance"
        );
        for m in &metrics {
            outln!(
                "{:<15} {:<7} {:<36} {:>13.6e} {:>13.6e} {:>10.2e}  {}",
                m.case,
                m.model,
                m.metric,
                m.value,
                m.expected,
                m.tolerance,
                match (m.comparison, m.pass) {
                    (Comparison::Report, _) => "(shown)",
                    (_, true) => "yes",
                    (_, false) => "NO",
                }
            );
        }
    }
    let shown = metrics
        .iter()
        .filter(|m| m.comparison == Comparison::Report)
        .count();
    eprintln!(
        "{} passed, {} failed, {} shown for comparison",
        metrics.len() - failed - shown,
        failed,
        shown
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
