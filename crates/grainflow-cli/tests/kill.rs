//! A run killed anywhere — while a frame is written, while a checkpoint is, between — and
//! resumed from its folder's checkpoint ends with every output byte for byte as a run that was
//! never stopped; SIGTERM stops a run after its step with a final checkpoint.
#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use grainflow::io::checkpoint::Checkpoint;
use grainflow::io::manifest::Manifest;

/// The pour scene cut short: 2000 grains for 0.1 s (about 11 000 steps, over half a second
/// even on an idle machine with a fast disk, so that the kills after 10 to 250 ms land in the
/// run), 16 frames, 5 checkpoints, series rows every 2.5 ms.
fn scene(dir: &Path) -> PathBuf {
    let template = Command::new(env!("CARGO_BIN_EXE_grainflow"))
        .args(["scenes", "pour"])
        .output()
        .expect("runs")
        .stdout;
    let text = String::from_utf8(template)
        .expect("utf-8")
        .replace("duration = 0.6 ", "duration = 0.1 ")
        .replace("snapshot_interval = 0.02 ", "snapshot_interval = 0.00625 ")
        .replace("series_interval = 0.001 ", "series_interval = 0.0025 ")
        .replace("checkpoint_interval = 0.1 ", "checkpoint_interval = 0.004 ");
    let path = dir.join("pour.toml");
    std::fs::write(&path, text).expect("writes the scene");
    path
}

/// Starts a run into `out`: resumed from its checkpoint when there is one, else afresh; with
/// `kill_at`, the run kills itself with SIGKILL after that step.
fn start(scene: &Path, out: &Path, kill_at: Option<u64>) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_grainflow"));
    cmd.args(["--threads", "1", "run"])
        .arg(scene)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(step) = kill_at {
        cmd.env("GRAINFLOW_TEST_KILL_AT_STEP", step.to_string());
    }
    let ckpt = out.join("checkpoint.gfck");
    if ckpt.exists() {
        cmd.arg("--resume").arg(ckpt);
    } else {
        cmd.arg("--overwrite");
    }
    cmd.spawn().expect("starts grainflow")
}

/// When to kill.
#[derive(Clone, Copy, Debug)]
enum When {
    /// While the file whose name starts with this is being written (its temporary exists).
    Writing(&'static str),
    /// After this long.
    After(Duration),
}

/// True when a temporary file of a name starting `prefix` is in `out` or `out/frames`.
fn writing(out: &Path, prefix: &str) -> bool {
    [out.to_path_buf(), out.join("frames")].iter().any(|d| {
        std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                let n = e.file_name();
                let n = n.to_string_lossy();
                n.starts_with(&format!(".{prefix}")) && n.ends_with(".grainflow-tmp")
            })
    })
}

/// Kills `child` with SIGKILL at `when`; false when it ended first (and must have succeeded).
fn kill_at(child: &mut Child, out: &Path, when: When) -> bool {
    let begun = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().expect("stderr"), &mut err)
                .expect("reads");
            assert!(status.success(), "{when:?}: {err}");
            return false;
        }
        let due = match when {
            When::Writing(prefix) => writing(out, prefix),
            When::After(d) => begun.elapsed() >= d,
        };
        if due {
            child.kill().expect("kills");
            child.wait().expect("reaps");
            return true;
        }
        assert!(
            begun.elapsed() < Duration::from_secs(120),
            "{when:?}: hangs"
        );
    }
}

/// Every file of a run folder (and its frames) by name.
fn files(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for (d, prefix) in [(out.to_path_buf(), ""), (out.join("frames"), "frames/")] {
        for e in std::fs::read_dir(&d).expect("lists").flatten() {
            if e.file_type().expect("type").is_file() {
                let name = format!("{prefix}{}", e.file_name().to_string_lossy());
                all.insert(name, std::fs::read(e.path()).expect("reads"));
            }
        }
    }
    all
}

fn same_files(a: &Path, b: &Path) {
    let (a, b) = (files(a), files(b));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the folders hold different files"
    );
    // The manifest last: it records the other files' lengths, and the file itself says more.
    let order = a.iter().filter(|(n, _)| *n != "manifest.json");
    for (name, bytes) in order.chain(a.get_key_value("manifest.json")) {
        if *bytes != b[name] {
            // The first line that differs, for a text file.
            let (x, y) = (
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&b[name]),
            );
            let first = x
                .lines()
                .zip(y.lines())
                .enumerate()
                .find(|(_, (p, q))| p != q);
            panic!("{name} differs from the straight run's: first at (line, straight, resumed) {first:?}");
        }
    }
}

fn run_to_end(scene: &Path, out: &Path) {
    let mut child = start(scene, out, None);
    assert!(!kill_at(&mut child, out, When::After(Duration::MAX)));
}

/// Kills the run into `out` with SIGKILL after each of `steps` in turn (the run kills itself
/// there, so the kills land at the same steps on any machine), resuming it each time from the
/// checkpoint it left.
fn kill_at_steps(scene: &Path, out: &Path, steps: impl IntoIterator<Item = u64>) {
    for step in steps {
        let mut child = start(scene, out, Some(step));
        let status = child.wait().expect("waits");
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().expect("stderr"), &mut err)
            .expect("reads");
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9),
            "the run to kill after step {step} was not killed: {status}; {err}"
        );
    }
}

#[test]
fn killed_and_resumed_runs_end_byte_for_byte_as_a_straight_run() {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scene = scene(&dir);
    let straight = dir.join("straight");
    run_to_end(&scene, &straight);
    assert_eq!(
        std::fs::read_dir(straight.join("frames"))
            .expect("frames")
            .count(),
        17
    );

    // Kills at fixed steps, each resumed from the checkpoint before it (every 438 or 439
    // steps) with a series row (every 274 steps) between the two: a row whose interval a
    // checkpoint splits, across the whole run, contacts included (they start near step 4600).
    let stepped = dir.join("stepped");
    kill_at_steps(&scene, &stepped, (1700..11_000).step_by(600));
    run_to_end(&scene, &stepped);
    same_files(&straight, &stepped);

    // Kills at whatever moment the machine gives: while a file is written, or after a while.
    let killed = dir.join("killed");
    let ms = Duration::from_millis;
    let plan = [
        When::Writing("particles_"),
        When::Writing("manifest.json"),
        When::After(ms(40)),
        When::Writing("checkpoint.gfck"),
        When::Writing("particles.pvd"),
        When::After(ms(120)),
        When::Writing("particles_"),
        When::Writing("checkpoint.gfck"),
        When::After(ms(250)),
        When::Writing("manifest.json"),
        When::Writing("particles_"),
        When::Writing("checkpoint.gfck"),
        When::After(ms(10)),
        When::Writing("final.gfck"),
    ];
    let mut kills = 0;
    for when in plan {
        let mut child = start(&scene, &killed, None);
        if !kill_at(&mut child, &killed, when) {
            break;
        }
        kills += 1;
    }
    // A kill may come too late, when the run has ended; most must hit.
    assert!(kills >= plan.len() - 2, "only {kills} kills hit the run");
    if !killed.join("final.gfck").exists() {
        run_to_end(&scene, &killed);
    }
    same_files(&straight, &killed);

    // SIGTERM: the run stops after its step, with a checkpoint the manifest names.
    let term = dir.join("term");
    let mut child = start(&scene, &term, None);
    while !term.join("frames/particles_000004.vtu").exists() {
        assert!(
            child.try_wait().expect("waits").is_none(),
            "ended before SIGTERM"
        );
    }
    let pid = child.id().to_string();
    let sent = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(sent.success());
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(128 + 15), "exit status after SIGTERM");
    let ckpt = Checkpoint::read(&term.join("checkpoint.gfck")).expect("a final checkpoint");
    let manifest = Manifest::read(&term).expect("reads").expect("a manifest");
    let last = manifest.checkpoints.last().expect("a checkpoint recorded");
    assert_eq!(last.step, ckpt.step);
    assert!(
        ckpt.time < 0.1,
        "stopped at t = {}, not before the end",
        ckpt.time
    );
    run_to_end(&scene, &term);
    same_files(&straight, &term);
    std::fs::remove_dir_all(&dir).expect("cleans up");
}
