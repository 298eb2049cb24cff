//! The `grainflow` binary as a user runs it.

use std::path::PathBuf;
use std::process::Command;

fn grainflow(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_grainflow"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grainflow-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn validate_json_has_the_documented_fields_and_passes() {
    let (ok, stdout, _) = grainflow(&[
        "validate",
        "sliding",
        "spinning",
        "--json",
        "--threads",
        "1",
    ]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 3 + 6);
    for r in rows {
        for key in [
            "case",
            "model",
            "metric",
            "value",
            "expected",
            "tolerance",
            "pass",
        ] {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
        assert_eq!(r["pass"], serde_json::Value::Bool(true), "{r}");
    }
    // Sliding distance v²/(2 μ g) = 2.5484 m (002 eq 26).
    assert!((rows[0]["expected"].as_f64().expect("number") - 2.548_42).abs() < 1e-5);
}

#[test]
fn check_refuses_a_bad_scene_in_one_line_naming_the_field() {
    let dir = temp("check");
    let (ok, template, _) = grainflow(&["scenes", "pour"]);
    assert!(ok && template.contains("[simulation]"));
    let bad = template.replace("radius = 1.5e-3", "radius = -1.5e-3");
    let path = dir.join("bad.toml");
    std::fs::write(&path, bad).expect("writes");
    let (ok, stdout, _) = grainflow(&["check", path.to_str().expect("utf-8")]);
    assert!(!ok);
    assert!(
        stdout.contains("refused: particles[0].radius: must be a finite number > 0, got -0.0015"),
        "{stdout}"
    );
}

#[test]
fn check_echoes_values_given_with_units_in_si_and_refuses_a_wrong_dimension() {
    let dir = temp("units");
    let (ok, template, _) = grainflow(&["scenes", "pour"]);
    assert!(ok);
    let united = template.replace("radius = 1.5e-3", "radius = \"1.5 mm\"");
    assert_ne!(united, template);
    let path = dir.join("units.toml");
    std::fs::write(&path, &united).expect("writes");
    let (ok, stdout, _) = grainflow(&["check", path.to_str().expect("utf-8")]);
    assert!(ok, "{stdout}");
    assert!(
        stdout.contains("particles[0].radius = \"1.5 mm\" = 1.5e-3"),
        "{stdout}"
    );
    std::fs::write(&path, united.replace("1.5 mm", "1.5 kg")).expect("writes");
    let (ok, stdout, stderr) = grainflow(&["check", path.to_str().expect("utf-8")]);
    assert!(!ok);
    let stdout = stdout + &stderr;
    let line = stdout.lines().find(|l| l.contains("kg")).unwrap_or("");
    assert!(
        line.contains("units.toml:")
            && line.contains(
                "particles[0].radius: expected a length (m), got \"1.5 kg\", a mass (kg)"
            ),
        "{stdout}"
    );
}

#[test]
fn check_prints_derived_numbers() {
    let (ok, stdout, _) = grainflow(&["check", "pour"]);
    assert!(ok, "{stdout}");
    assert!(stdout.contains("particles:            2000"), "{stdout}");
    assert!(stdout.contains("(t_c / 15.0)"), "{stdout}");
    // The automatic skin of soft spheres, 0.01 r_min … 0.2 r_max: 2000 radii uniform in
    // 1.5 mm ± 10 % reach within 0.1 % of the bounds 1.35 mm and 1.65 mm.
    let range: Vec<f64> = stdout
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("neighbour skin:       auto, 200 v_max dt within ")
        })
        .expect("an automatic skin")
        .trim_end_matches(" m")
        .split(" … ")
        .map(|v| v.parse().expect("a number"))
        .collect();
    assert!((range[0] / 1.35e-5 - 1.0).abs() < 1e-3, "{range:?}");
    assert!((range[1] / 3.3e-4 - 1.0).abs() < 1e-3, "{range:?}");
}

#[test]
fn check_of_an_approx_hard_scene_names_no_contact_time() {
    let (ok, stdout, _) = grainflow(&["check", "couette"]);
    assert!(ok, "{stdout}");
    assert!(!stdout.contains("t_c"), "{stdout}");
    assert!(stdout.contains("no contact time"), "{stdout}");
    // 004 §I: one pass carries a signal at most one smallest diameter per 1 ms step; the
    // smallest of 368 radii uniform in 3.2–4.8 mm lies within 0.05 mm of 3.2 mm.
    let speed: f64 = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("signal speed limit:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("a signal speed line");
    assert!((6.4..6.5).contains(&speed), "{speed}");
}

#[test]
fn short_run_writes_vtu_pvd_dump_csv_and_resumes() {
    let dir = temp("run");
    let (_, template, _) = grainflow(&["scenes", "pour"]);
    let short = template
        .replace("duration = 0.6 ", "duration = 0.004 ")
        .replace("count = 2000", "count = 200")
        .replace("snapshot_interval = 0.02 ", "snapshot_interval = 0.001 ")
        .replace("checkpoint_interval = 0.1 ", "checkpoint_interval = 0.002 ");
    let scene = dir.join("short.toml");
    std::fs::write(&scene, &short).expect("writes");
    let out = dir.join("out");
    let (ok, _, stderr) = grainflow(&[
        "run",
        scene.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert!(ok, "{stderr}");
    let pvd = std::fs::read_to_string(out.join("particles.pvd")).expect("pvd");
    assert_eq!(pvd.matches("<DataSet").count(), 5, "{pvd}"); // t = 0, 1, 2, 3, 4 ms
    let csv = std::fs::read_to_string(out.join("series.csv")).expect("csv");
    assert!(csv.starts_with(
        "time,step,kinetic_translational,kinetic_rotational,potential,contacts,max_overlap_ratio"
    ));
    assert!(std::fs::read_to_string(out.join("particles.dump"))
        .expect("dump")
        .contains("ITEM: ATOMS id type x y z"));
    assert!(out.join("final.gfck").exists() && out.join("checkpoint.gfck").exists());
    // Resume the 2 ms checkpoint (of a run cut at 2 ms) to 4 ms: same final state as the
    // straight run.
    let half = dir.join("half.toml");
    std::fs::write(
        &half,
        short.replace("duration = 0.004 ", "duration = 0.002 "),
    )
    .expect("writes");
    let first = dir.join("first");
    let (ok, _, stderr) = grainflow(&[
        "run",
        half.to_str().expect("utf-8"),
        "--out",
        first.to_str().expect("utf-8"),
    ]);
    assert!(ok, "{stderr}");
    let out2 = dir.join("out2");
    let ckpt = dir.join("mid.gfck");
    std::fs::copy(first.join("final.gfck"), &ckpt).expect("copy");
    let (ok, _, stderr) = grainflow(&[
        "run",
        scene.to_str().expect("utf-8"),
        "--out",
        out2.to_str().expect("utf-8"),
        "--resume",
        ckpt.to_str().expect("utf-8"),
    ]);
    assert!(ok, "{stderr}");
    let a = std::fs::read(out.join("final.gfck")).expect("final");
    let b = std::fs::read(out2.join("final.gfck")).expect("final");
    assert!(a == b, "resumed run differs from the straight run");
    // Resuming into the same folder continues its series: no frame lost, none written twice,
    // every file as the straight run left it.
    let files = [
        "series.csv",
        "particles.dump",
        "particles.pvd",
        "final.gfck",
    ];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(out.join(f)).expect(f))
        .collect();
    let (ok, _, stderr) = grainflow(&[
        "run",
        scene.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--resume",
        ckpt.to_str().expect("utf-8"),
    ]);
    assert!(ok, "{stderr}");
    let pvd = std::fs::read_to_string(out.join("particles.pvd")).expect("pvd");
    assert_eq!(pvd.matches("<DataSet").count(), 5, "{pvd}");
    for k in 0..5 {
        assert!(pvd.contains(&format!("particles_{k:06}.vtu")), "{pvd}");
    }
    let csv = std::fs::read_to_string(out.join("series.csv")).expect("csv");
    let steps: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).expect("step"))
        .collect();
    let mut unique = steps.clone();
    unique.dedup();
    assert_eq!(steps, unique, "a series row was written twice");
    for (f, b) in files.iter().zip(&before) {
        assert!(
            std::fs::read(out.join(f)).expect(f) == *b,
            "{f} differs after the resume"
        );
    }
}

#[test]
fn analyze_drum_writes_csv_and_png_and_froude_matches_eq_31() {
    // The quick drum scene cut short just after spin-up starts: the bed is still nearly flat,
    // so the angle is small, but every output is there. Fr = ω² D / (2 g) = 2.0881² · 0.045 /
    // 19.62 = 0.0100 (002 eq 31).
    let dir = temp("drum");
    let scene = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenes/drum-quick.toml"
    ))
    .expect("scene")
    .replace("duration = 1.46", "duration = 0.4")
    .replace("snapshot_interval = 0.02", "snapshot_interval = 0.05");
    let path = dir.join("drum.toml");
    std::fs::write(&path, scene).expect("write");
    let run = dir.join("run");
    let (ok, _, err) = grainflow(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let out = dir.join("analysis");
    let (ok, stdout, err) = grainflow(&[
        "analyze",
        "drum",
        run.to_str().unwrap(),
        "--from",
        "0.2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(stdout.contains("Fr = 1.000e-2"), "{stdout}");
    for f in [
        "angle_vs_froude.csv",
        "angle_vs_froude.png",
        "run0_angle.csv",
        "run0_profile.csv",
    ] {
        let bytes = std::fs::read(out.join(f)).expect(f);
        assert!(bytes.len() > 50, "{f}");
    }
    let png = std::fs::read(out.join("angle_vs_froude.png")).expect("png");
    assert_eq!(&png[1..4], b"PNG");
    let (ok, stdout, _) = grainflow(&[
        "analyze",
        "froude",
        "--omega",
        "2.0881",
        "--diameter",
        "0.045",
    ]);
    assert!(ok && stdout.trim() == "Fr = 1.000037e-2", "{stdout}");
    let (ok, _, err) = grainflow(&["analyze", "drum", dir.join("missing").to_str().unwrap()]);
    assert!(!ok && err.contains("final.gfck"), "{err}");
    // A run without a free wall has no bodies.csv: the refusal says which file and why.
    let (ok, _, err) = grainflow(&["analyze", "penetration", dir.to_str().unwrap()]);
    assert!(
        !ok && err.contains("bodies.csv") && err.contains("free wall") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn a_reader_that_stops_early_ends_the_program_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // `grainflow validate … --json | head -1` with more output (~90 KB) than a pipe holds (64 KB).
    let mut child = Command::new(env!("CARGO_BIN_EXE_grainflow"))
        .args([
            "validate",
            "restitution",
            "oblique-impact",
            "--full",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut first = String::new();
    let stdout = child.stdout.take().expect("stdout");
    BufReader::new(stdout)
        .read_line(&mut first)
        .expect("one line");
    // The pipe closes here, before the rest is written.
    let out = child.wait_with_output().expect("waits");
    assert_eq!(first.trim(), "[");
    assert!(out.status.success(), "{:?}", out.status);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn bench_json_has_the_issue_fields_and_scaling_checks_the_bits() {
    // The peers' S1 bed: 20 000 spheres (bench/peers/RESULTS.md), a few steps.
    let (ok, stdout, stderr) = grainflow(&["bench", "s1", "--steps", "3", "--json"]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    for key in [
        "scene",
        "particles",
        "steps",
        "threads",
        "wall_s",
        "cpu_s",
        "particle_steps_per_s",
        "ns_per_particle_step_core",
        "contacts_per_particle",
        "peak_rss_mib",
    ] {
        assert!(v.get(key).is_some(), "{key} missing from {stdout}");
    }
    assert_eq!(v["particles"], 20000);
    assert_eq!(v["steps"], 3);
    // One thread against two, twice: four runs of S2 that must end with the same bits.
    let (ok, stdout, stderr) = grainflow(&[
        "bench",
        "s2",
        "--steps",
        "3",
        "--scaling",
        "2",
        "--repeat",
        "2",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(v["bit_identical"], true);
    let runs = v["runs"].as_array().expect("runs");
    let threads: Vec<_> = runs.iter().map(|r| r["threads"].as_u64()).collect();
    assert_eq!(threads, [Some(1), Some(2), Some(1), Some(2)]);
    assert_eq!(v["speedups"].as_array().map(Vec::len), Some(2));
    // Each round's parallel overhead: the two-thread run's CPU time over the one-thread run's.
    let cpu: Vec<f64> = runs.iter().filter_map(|r| r["cpu_s"].as_f64()).collect();
    let ratios: Vec<f64> = (v["cpu_ratios"].as_array().expect("cpu_ratios").iter())
        .filter_map(serde_json::Value::as_f64)
        .collect();
    assert_eq!(ratios, [cpu[1] / cpu[0], cpu[3] / cpu[2]], "{stdout}");
    assert!(cpu.len() == 4 && cpu.iter().all(|&c| c >= 0.0), "{stdout}");
    // Each round says how long a write of one thread took to reach another (ns, one way)
    // right before and right after its two-thread run, or null where that was not measured.
    let handoffs = v["handoff_ns"].as_array().expect("handoff_ns");
    assert_eq!(handoffs.len(), 2);
    let measured = |h: &serde_json::Value| h.is_null() || h.as_f64().is_some_and(|ns| ns > 0.0);
    assert!(
        handoffs.iter().all(|pair| pair
            .as_array()
            .is_some_and(|p| p.len() == 2 && p.iter().all(measured))),
        "{stdout}"
    );
    // A scaling run needs two thread counts to compare.
    let (ok, _, stderr) = grainflow(&["bench", "s2", "--steps", "1", "--scaling", "1"]);
    assert!(!ok && stderr.contains("--scaling 1"), "{stderr}");
    // It sets the thread counts itself, and times only the peers' scenes.
    let (ok, _, stderr) = grainflow(&["--threads", "1", "bench", "s2", "--scaling", "2"]);
    assert!(!ok && stderr.contains("--threads 1"), "{stderr}");
    let (ok, _, stderr) = grainflow(&["bench", "gravity", "--scaling", "2"]);
    assert!(!ok && stderr.contains("`gravity`"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn a_folder_holds_one_run_and_a_resume_continues_it() {
    let dir = temp("folder");
    let (_, template, _) = grainflow(&["scenes", "pour"]);
    let scene = dir.join("s.toml");
    let short = template
        .replace("duration = 0.6 ", "duration = 0.004 ")
        .replace("count = 2000", "count = 100")
        .replace("snapshot_interval = 0.02 ", "snapshot_interval = 0.001 ")
        .replace("checkpoint_interval = 0.1 ", "checkpoint_interval = 0.002 ");
    std::fs::write(&scene, &short).expect("writes");
    let (s, out) = (scene.to_str().expect("utf-8"), dir.join("out"));
    let o = out.to_str().expect("utf-8");
    let (ok, _, err) = grainflow(&["run", s, "--out", o]);
    assert!(ok, "{err}");
    // A second fresh run is refused, naming the folder and the way out.
    std::fs::write(out.join("frames/particles_000099.vtu"), "old").expect("writes");
    std::fs::write(out.join("notes.txt"), "mine").expect("writes");
    let (ok, _, err) = grainflow(&["run", s, "--out", o]);
    assert!(
        !ok && err.contains("holds the outputs of an earlier run"),
        "{err}"
    );
    assert!(
        err.contains("--overwrite") && err.lines().count() == 1,
        "{err}"
    );
    // --overwrite removes the old run's files (and a planted link), not the user's.
    let elsewhere = dir.join("elsewhere.csv");
    std::fs::write(&elsewhere, "keep").expect("writes");
    std::fs::remove_file(out.join("series.csv")).expect("removes");
    std::os::unix::fs::symlink(&elsewhere, out.join("series.csv")).expect("links");
    let (ok, _, err) = grainflow(&["run", s, "--out", o, "--overwrite"]);
    assert!(ok, "{err}");
    assert!(!out.join("frames/particles_000099.vtu").exists());
    assert!(out.join("notes.txt").exists());
    assert_eq!(std::fs::read_to_string(&elsewhere).expect("reads"), "keep");
    // Resume past the end: refused, naming the duration.
    let at4 = dir.join("at4.gfck");
    std::fs::copy(out.join("final.gfck"), &at4).expect("copies");
    let f = at4.to_str().expect("utf-8");
    let shorter = dir.join("shorter.toml");
    std::fs::write(
        &shorter,
        short.replace("duration = 0.004 ", "duration = 0.001 "),
    )
    .expect("writes");
    let (ok, _, err) = grainflow(&[
        "run",
        shorter.to_str().expect("utf-8"),
        "--out",
        o,
        "--resume",
        f,
    ]);
    assert!(
        !ok && err.contains("simulation.duration: the checkpoint is at t = 3.99"),
        "{err}"
    );
    // Resume to 6 ms with the index gone: frames are numbered on from the manifest.
    let longer = dir.join("longer.toml");
    std::fs::write(
        &longer,
        short.replace("duration = 0.004 ", "duration = 0.006 "),
    )
    .expect("writes");
    let l = longer.to_str().expect("utf-8");
    std::fs::remove_file(out.join("particles.pvd")).expect("removes");
    let first = std::fs::read(out.join("frames/particles_000004.vtu")).expect("frame 4");
    let (ok, _, err) = grainflow(&["run", l, "--out", o, "--resume", f]);
    assert!(ok, "{err}");
    assert!(std::fs::read(out.join("frames/particles_000004.vtu")).expect("frame 4") == first);
    let pvd = std::fs::read_to_string(out.join("particles.pvd")).expect("pvd");
    assert!(
        pvd.contains("particles_000005.vtu") && pvd.contains("particles_000006.vtu"),
        "{pvd}"
    );
    assert!(!pvd.contains("particles_000000.vtu"), "{pvd}");
    // Into a fresh folder: the files start with their headers.
    let fresh = dir.join("fresh");
    let (ok, _, err) = grainflow(&[
        "run",
        l,
        "--out",
        fresh.to_str().expect("utf-8"),
        "--resume",
        f,
    ]);
    assert!(ok, "{err}");
    let csv = std::fs::read_to_string(fresh.join("series.csv")).expect("series");
    assert!(csv.starts_with("time,step,"), "{csv}");
    assert!(fresh.join("frames/particles_000000.vtu").exists());
}

#[test]
fn a_file_that_cannot_be_read_is_named_once_with_the_os_error_once() {
    let missing = temp("missing").join("nothing.gfck");
    let (ok, _, err) = grainflow(&["run", "pour", "--resume", missing.to_str().expect("utf-8")]);
    assert!(!ok);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
    assert!(err.contains("nothing.gfck"), "{err}");
}

#[test]
fn a_run_that_goes_bad_leaves_its_last_good_state_the_failure_and_a_checkpoint_to_resume() {
    // Two grains closing at 2 m/s touch after 0.5 ms; with no contact law that stops the run.
    let dir = temp("unstable");
    let scene = dir.join("closing.toml");
    std::fs::write(
        &scene,
        r#"
[simulation]
duration = 0.01
dt = 1e-5
[[materials]]
name = "glass"
density = 2500.0
[[particles]]
type = "list"
material = "glass"
spheres = [{ pos = [0, 0, 0], radius = 1e-3, vel = [0, 0, 1] }, { pos = [0, 0, 3e-3], radius = 1e-3, vel = [0, 0, -1] }]
[output]
snapshot_interval = 1e-4
series_interval = 1e-4
checkpoint_interval = 2e-4
"#,
    )
    .expect("writes");
    let out = dir.join("out");
    let (ok, _, err) = grainflow(&[
        "--threads",
        "1",
        "run",
        scene.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--overwrite",
    ]);
    assert!(!ok);
    let last = err.lines().last().expect("a message");
    assert!(last.contains("no contact law"), "{err}");
    assert!(
        last.contains("the last good state is frames/particles_000005_last_good.vtu, the state at the failure frames/particles_000006_failure.vtu"),
        "{err}"
    );
    assert!(
        last.contains("; checkpoint.gfck (t = 4.0")
            && last.ends_with("is the last state to resume from"),
        "{err}"
    );
    for name in [
        "particles_000005_last_good.vtu",
        "particles_000006_failure.vtu",
    ] {
        let frame = std::fs::read_to_string(out.join("frames").join(name)).expect("frame");
        assert!(frame.contains("<VTKFile"), "{frame}");
        let pvd = std::fs::read_to_string(out.join("particles.pvd")).expect("index");
        assert!(pvd.contains(name), "{pvd}");
    }
    assert!(out.join("checkpoint.gfck").exists());
    // The dump's last two frames: the last good step, run again from the checkpoint at 0.4 ms,
    // where the grains, each at 1 m/s, are still apart (z = t · 1 m/s and 3 mm − z, 1e-12 m),
    // and the step after it, where they touch.
    let dump = std::fs::read_to_string(out.join("particles.dump")).expect("dump");
    let frames: Vec<(u64, f64, Vec<f64>)> = dump
        .split("ITEM: TIME\n")
        .skip(1)
        .map(|f| {
            let lines: Vec<&str> = f.lines().collect();
            let z = lines[lines.len() - 2..]
                .iter()
                .map(|l| {
                    l.split_whitespace()
                        .nth(4)
                        .expect("z")
                        .parse()
                        .expect("a number")
                })
                .collect();
            (
                lines[2].parse().expect("step"),
                lines[0].parse().expect("time"),
                z,
            )
        })
        .collect();
    let [.., (good_step, t, good), (failed_step, _, failure)] = &frames[..] else {
        panic!("{dump}");
    };
    assert_eq!(failed_step - good_step, 1);
    let (lo, hi) = (good[0].min(good[1]), good[0].max(good[1]));
    assert!(
        (lo - t).abs() < 1e-12 && (hi - (3e-3 - t)).abs() < 1e-12,
        "{good:?} at {t}"
    );
    assert!(hi - lo >= 2e-3, "{good:?}");
    assert!((failure[0] - failure[1]).abs() < 2e-3, "{failure:?}");
}

/// A scene of `count` grains placed at random in a 1 m box.
fn many_grains(name: &str, count: u64) -> PathBuf {
    let scene = temp(name).join("many.toml");
    std::fs::write(
        &scene,
        format!(
            r#"
[simulation]
duration = 0.01
dt = 1e-5
[[materials]]
name = "glass"
density = 2500.0
[[particles]]
type = "random"
material = "glass"
count = {count}
radius = 1e-4
min = [0, 0, 0]
max = [1, 1, 1]
"#
        ),
    )
    .expect("writes");
    scene
}

#[test]
fn a_scene_past_the_memory_limit_is_refused_before_any_grain_is_made() {
    // 3e7 grains once ran 63 s before an allocation failed; the estimate (1 354 bytes per
    // grain, scene/estimate.rs) refuses them at once, whatever the host has.
    let scene = many_grains("memory", 30_000_000);
    let path = scene.to_str().expect("utf-8");
    let want = format!(
        "{path}: particles[0].count: about 3.0e7 grains need about 41 GB, more than the 1.0 GB that --max-memory allows; pass --max-memory 49GB to try anyway"
    );
    let clock = std::time::Instant::now();
    let (ok, stdout, _) = grainflow(&["check", path, "--max-memory", "1GB"]);
    assert!(!ok);
    assert_eq!(stdout.trim_end(), format!("refused: {want}"));
    let out = temp("memory").join("out");
    let (ok, _, err) = grainflow(&[
        "run",
        path,
        "--out",
        out.to_str().expect("utf-8"),
        "--max-memory",
        "1GB",
    ]);
    assert!(!ok);
    assert_eq!(err.trim_end(), format!("error: {want}"));
    assert!(clock.elapsed().as_secs_f64() < 5.0, "{:?}", clock.elapsed());
    assert!(!out.join("series.csv").exists());
}

#[test]
fn check_says_the_memory_and_time_a_run_will_take() {
    let scene = many_grains("estimate", 1200);
    let (ok, stdout, _) = grainflow(&[
        "check",
        scene.to_str().expect("utf-8"),
        "--max-memory",
        "48GB",
    ]);
    assert!(ok, "{stdout}");
    // 16 MB + 1200 × 1 354.5 bytes; 1200 grains × 1000 steps at 250 ns: 0.3 s.
    assert!(
        stdout.contains("  memory estimate:      about 18 MB (1.200e3 grains at 1355 bytes each); 48 GB that --max-memory allows"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  run time estimate:    about 3e-1 s on one core"),
        "{stdout}"
    );
    assert!(
        stdout.contains("(1.20e6 particle-steps at 250 ns each, S1's cost)"),
        "{stdout}"
    );
}
