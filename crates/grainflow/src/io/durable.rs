//! Files that survive a kill at any instant.
//!
//! A whole file (a frame, a checkpoint, an index, a table) is written to a temporary file
//! created exclusively beside it, synced to the disk and renamed over the old one: a reader, or
//! a resumed run, finds the old file or the new one, never a part. The folders are synced at
//! each checkpoint ([`sync_dir`]), which makes the renames before it last through a power cut
//! too; what a cut loses after it, the resumed run writes again. A rename replaces a symbolic link planted at the name instead of writing through it.
//! An append-only file (the series, the dump) is synced at each checkpoint, which records its
//! length; a resumed run cuts it back to that length before appending.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// How the temporary files of [`write_whole`] end: what [`remove_stale`] clears after a kill.
const TEMP_SUFFIX: &str = ".grainflow-tmp";

/// Writes `path` whole through a temporary file: `body` writes into a buffered writer; the
/// file is synced and renamed over `path`. Any error names `path`.
pub fn write_whole(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<()> {
    let (tmp, file) = create_temp(path).map_err(|e| Error::io(path, e))?;
    let run = || -> io::Result<()> {
        let mut w = BufWriter::new(file);
        body(&mut w)?;
        let file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    run().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// Writes `text` as the whole of `path` ([`write_whole`]).
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    write_whole(path, |w| w.write_all(text.as_bytes()))
}

/// Creates a fresh temporary file beside `path`, exclusively (never an existing file or link).
fn create_temp(path: &Path) -> io::Result<(PathBuf, File)> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let mut last = None;
    for attempt in 0..100u32 {
        let mut tmp = std::ffi::OsString::from(".");
        tmp.push(name);
        tmp.push(format!(".{}-{attempt}{TEMP_SUFFIX}", std::process::id()));
        let tmp = path.with_file_name(tmp);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Syncs the folder `dir`, so that the files created and renamed in it are on the disk.
pub fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Removes the temporary files a killed run left in `dir` (not in its subfolders).
pub fn remove_stale(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.ends_with(TEMP_SUFFIX) {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
        }
    }
    Ok(())
}

/// Refuses to write through a symbolic link at `path`.
fn refuse_link(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(Error::Format {
            path: path.to_path_buf(),
            reason: "is a symbolic link; grainflow does not write through links in --out".into(),
        }),
        _ => Ok(()),
    }
}

/// An append-only output file whose length at each checkpoint is known.
pub struct Appender {
    path: PathBuf,
    w: BufWriter<File>,
}

impl Appender {
    /// Creates `path` anew (an old file or link there is removed first, and the new one is
    /// created exclusively).
    pub fn create(path: &Path) -> Result<Appender> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(Error::io(path, e)),
            _ => {}
        }
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        Ok(Appender {
            path: path.to_path_buf(),
            w: BufWriter::new(f),
        })
    }

    /// Opens `path` as a checkpoint left it: cut back to `len` bytes (what follows was written
    /// after the checkpoint), ready to append. Refused when the file is shorter or a link.
    pub fn resume(path: &Path, len: u64) -> Result<Appender> {
        refuse_link(path)?;
        let run = || -> io::Result<File> {
            let mut f = OpenOptions::new().write(true).open(path)?;
            let have = f.metadata()?.len();
            if have < len {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "is {have} bytes, shorter than the {len} bytes it had at the checkpoint"
                    ),
                ));
            }
            f.set_len(len)?;
            f.seek(SeekFrom::Start(len))?;
            f.sync_all()?;
            Ok(f)
        };
        let f = run().map_err(|e| Error::io(path, e))?;
        Ok(Appender {
            path: path.to_path_buf(),
            w: BufWriter::new(f),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The buffered writer to append with.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        &mut self.w
    }

    /// Flushes and syncs the file; returns its length (bytes), which a checkpoint records.
    pub fn sync(&mut self) -> Result<u64> {
        let run = |w: &mut BufWriter<File>| -> io::Result<u64> {
            w.flush()?;
            let f = w.get_mut();
            f.sync_data()?;
            f.stream_position()
        };
        run(&mut self.w).map_err(|e| Error::io(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(test: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("grainflow-durable-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn whole_files_replace_links_and_leave_no_temporary() {
        let dir = scratch("whole");
        let target = dir.join("elsewhere.txt");
        std::fs::write(&target, "keep").unwrap();
        let path = dir.join("series.csv");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &path).unwrap();
        write_whole(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // A failing body leaves the old file and no temporary.
        let err = write_whole(&path, |_| Err(io::Error::other("disk full"))).unwrap_err();
        assert!(err.to_string().contains("series.csv"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    }

    #[test]
    fn stale_temporaries_are_removed_and_others_kept() {
        let dir = scratch("stale");
        let path = dir.join("x.vtu");
        let (tmp, _) = create_temp(&path).unwrap();
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        remove_stale(&dir).unwrap();
        assert!(!tmp.exists());
        assert!(dir.join("notes.txt").exists());
    }

    #[test]
    fn appenders_cut_back_to_the_checkpoint_length() {
        let dir = scratch("append");
        let path = dir.join("series.csv");
        let mut a = Appender::create(&path).unwrap();
        a.writer().write_all(b"header\nrow 1\n").unwrap();
        let len = a.sync().unwrap();
        assert_eq!(len, 13);
        a.writer().write_all(b"row 2 half").unwrap();
        a.sync().unwrap();
        drop(a);
        let mut a = Appender::resume(&path, len).unwrap();
        a.writer().write_all(b"row 2\n").unwrap();
        assert_eq!(a.sync().unwrap(), 19);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "header\nrow 1\nrow 2\n"
        );
        let err = Appender::resume(&path, 100).err().unwrap().to_string();
        assert!(err.contains("shorter than the 100 bytes"), "{err}");
    }
}
