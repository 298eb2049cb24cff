//! The run an output folder holds: `manifest.json`, rewritten whole at every checkpoint.
//!
//! It names the scene (a CRC-32 of the scene as a resumed run compares it, duration and
//! `[output]` left out), the seed and the grainflow version, and for the latest checkpoints the
//! step, the time, the frame counter and the length of every append-only file when the
//! checkpoint was taken. A resumed run finds the checkpoint it starts from there by its step,
//! cuts the series and the dump back to those lengths and numbers its frames on from there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::scene::Scene;
use crate::{Error, Result};

/// The manifest's file name in the output folder.
pub const NAME: &str = "manifest.json";
/// Format of the manifest this grainflow writes and reads.
const FORMAT: u32 = 1;
/// Checkpoints kept in the manifest: the one being written and the one before (a kill
/// between the manifest and the checkpoint file leaves the older checkpoint on the disk).
const KEPT: usize = 4;

/// What a checkpoint recorded about the output folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mark {
    /// The checkpoint file's name in the folder.
    pub file: String,
    /// Steps taken at the checkpoint.
    pub step: u64,
    /// Simulated time at the checkpoint (s), for the reader.
    pub time: f64,
    /// Frames written before the checkpoint: the next frame's number.
    pub frame: usize,
    /// Length (bytes) of each append-only file at the checkpoint, by file name.
    pub lengths: BTreeMap<String, u64>,
    /// The largest overlap ratio seen since the series' last row: the next row's
    /// `max_overlap_ratio` continues from it (0 in manifests written before it was kept).
    #[serde(default)]
    pub overlap_peak: f64,
    /// What the tallies had gathered (`[output.tallies]`), which a resumed run goes on from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tallies: Option<super::tallies::TallyState>,
}

/// The manifest of an output folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Manifest format.
    pub format: u32,
    /// The grainflow version that wrote it.
    pub grainflow: String,
    /// CRC-32 (hex) of the scene as a resumed run compares it.
    pub scene_hash: String,
    /// The scene's `simulation.seed`.
    pub seed: u64,
    /// The latest checkpoints, oldest first.
    pub checkpoints: Vec<Mark>,
}

impl Manifest {
    /// A manifest for a fresh run of `scene`, with no checkpoint yet.
    pub fn new(scene: &Scene) -> Manifest {
        Manifest {
            format: FORMAT,
            grainflow: env!("CARGO_PKG_VERSION").to_string(),
            scene_hash: scene_hash(scene),
            seed: scene.simulation.seed,
            checkpoints: Vec::new(),
        }
    }

    /// The manifest in `dir`; `None` when there is none.
    pub fn read(dir: &Path) -> Result<Option<Manifest>> {
        let path = dir.join(NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let m: Manifest = serde_json::from_str(&text).map_err(|e| Error::Format {
            path: path.clone(),
            reason: format!("not a grainflow manifest: {e}"),
        })?;
        if m.format != FORMAT {
            return Err(Error::Format {
                path,
                reason: format!(
                    "manifest format {}; this grainflow reads {FORMAT}",
                    m.format
                ),
            });
        }
        Ok(Some(m))
    }

    /// Writes the manifest into `dir`, whole.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| Error::Format {
            path: dir.join(NAME),
            reason: e.to_string(),
        })?;
        super::durable::write_whole(&dir.join(NAME), |w| {
            use std::io::Write;
            writeln!(w, "{text}")
        })
    }

    /// Records `mark`, dropping the oldest beyond the few kept.
    pub fn record(&mut self, mark: Mark) {
        self.checkpoints.retain(|m| m.step < mark.step);
        self.checkpoints.push(mark);
        let extra = self.checkpoints.len().saturating_sub(KEPT);
        self.checkpoints.drain(..extra);
    }

    /// The checkpoint at `step`, with those after it dropped (a resumed run cuts what they
    /// wrote); refused, naming the steps recorded, when the folder never took it.
    pub fn resume_at(&mut self, dir: &Path, step: u64) -> Result<Mark> {
        let Some(at) = self.checkpoints.iter().position(|m| m.step == step) else {
            let steps: Vec<String> = self
                .checkpoints
                .iter()
                .map(|m| m.step.to_string())
                .collect();
            return Err(Error::Format {
                path: dir.join(NAME),
                reason: format!(
                    "the run in this folder took no checkpoint at step {step} (it recorded steps [{}]); resume into a fresh --out, or the folder's own checkpoint",
                    steps.join(", ")
                ),
            });
        };
        self.checkpoints.truncate(at + 1);
        Ok(self.checkpoints[at].clone())
    }
}

/// CRC-32 (hex) of `scene` without what may change on resume.
pub fn scene_hash(scene: &Scene) -> String {
    let text = super::checkpoint::resumable_part(scene)
        .to_toml()
        .unwrap_or_default();
    format!("{:08x}", crc32fast::hash(text.as_bytes()))
}

/// Files a run writes into its output folder (and `frames/`), by name: what makes a folder
/// "used", and what `--overwrite` removes. Other files are left alone.
fn is_output(name: &str, in_frames: bool) -> bool {
    let ends = |s: &str| name.ends_with(s);
    if in_frames {
        return (name.starts_with("particles_") && (ends(".vtu") || ends(".ss")))
            || ((name.starts_with("wall_") || name.starts_with("contacts_")) && ends(".vtp"));
    }
    super::APPENDED.contains(&name)
        || matches!(
            name,
            NAME | "checkpoint.gfck"
                | "final.gfck"
                | "particles.pvd"
                | "probability_table.csv"
                | "wear.csv"
                | "force_tally.csv"
        )
        || (name.starts_with("wall_") && ends(".vtp"))
}

/// The run outputs in `dir` and `dir/frames`.
fn outputs_in(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for (folder, in_frames) in [(dir.to_path_buf(), false), (dir.join("frames"), true)] {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for e in entries.flatten() {
            if is_output(&e.file_name().to_string_lossy(), in_frames) {
                found.push(e.path());
            }
        }
    }
    found.sort();
    found
}

/// Makes `dir` ready for a fresh run: refused when it holds an earlier run's outputs, unless
/// `overwrite`, which removes them (and nothing else).
pub fn claim(dir: &Path, overwrite: bool) -> Result<()> {
    let found = outputs_in(dir);
    if found.is_empty() {
        return Ok(());
    }
    if !overwrite {
        let names: Vec<String> = found
            .iter()
            .take(3)
            .filter_map(|p| p.strip_prefix(dir).ok())
            .map(|p| p.display().to_string())
            .collect();
        return Err(Error::Format {
            path: dir.to_path_buf(),
            reason: format!(
                "holds the outputs of an earlier run ({}{}); give --overwrite to replace them, or --resume to continue it",
                names.join(", "),
                if found.len() > 3 { ", …" } else { "" }
            ),
        });
    }
    for path in found {
        std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(step: u64) -> Mark {
        Mark {
            file: "checkpoint.gfck".into(),
            step,
            time: step as f64 * 1e-3,
            frame: step as usize,
            lengths: BTreeMap::from([("series.csv".to_string(), 10 * step)]),
            overlap_peak: 0.0,
            tallies: None,
        }
    }

    #[test]
    fn overwrite_removes_every_file_a_run_writes_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("grainflow-claim-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("frames")).expect("folder");
        let written = [
            "walls.csv",
            "bodies.csv",
            "contacts.dump",
            "frames/particles_000003_failure.vtu",
            "frames/particles_000002.ss",
            "frames/contacts_000002.vtp",
        ];
        for name in written.iter().chain(&["notes.txt", "frames/notes.vtu"]) {
            std::fs::write(dir.join(name), "x").expect("writes");
        }
        let err = claim(&dir, false).expect_err("refused").to_string();
        assert!(
            err.contains("holds the outputs of an earlier run (bodies.csv"),
            "{err}"
        );
        claim(&dir, true).expect("removed");
        for name in written {
            assert!(!dir.join(name).exists(), "{name}");
        }
        assert!(dir.join("notes.txt").exists() && dir.join("frames/notes.vtu").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn marks_are_kept_few_and_found_by_step() {
        let mut m = Manifest {
            format: FORMAT,
            grainflow: "test".into(),
            scene_hash: "0".into(),
            seed: 1,
            checkpoints: Vec::new(),
        };
        for s in 1..=6 {
            m.record(mark(s));
        }
        assert_eq!(m.checkpoints.len(), KEPT);
        assert_eq!(m.checkpoints[0].step, 3);
        let dir = std::env::temp_dir();
        let err = m.clone().resume_at(&dir, 1).unwrap_err().to_string();
        assert!(
            err.contains("no checkpoint at step 1 (it recorded steps [3, 4, 5, 6])"),
            "{err}"
        );
        assert_eq!(m.resume_at(&dir, 4).unwrap(), mark(4));
        assert_eq!(m.checkpoints.len(), 2);
    }
}
