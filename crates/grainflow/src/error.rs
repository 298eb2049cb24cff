//! Typed errors of the library. Every message names what is wrong and where.

use std::path::PathBuf;

/// Library result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in grainflow.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scene value a user can get wrong: `field` is its path (`walls[2].radius`).
    #[error("{field}: {reason}")]
    Scene {
        /// Where in the scene (`walls[2].radius`).
        field: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// A TOML file that does not parse (syntax, unknown key, wrong type).
    #[error("{path}: {message}")]
    Parse {
        /// The file, with line and column where known.
        path: String,
        /// The parser's message.
        message: String,
    },
    /// Reading or writing a file failed. The operating system's error is in the message and
    /// not given again as the error's source, so that a chain of causes says it once.
    #[error("{}: {os}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        os: std::io::Error,
    },
    /// A file that exists but has the wrong content (checkpoint, particle file).
    #[error("{}: {reason}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with its content.
        reason: String,
    },
    /// A run that went bad: names the particle, the time and the likely cause.
    #[error("unstable at t = {time:.6e} s (step {step}): particle id {id}: {reason}")]
    Unstable {
        /// Simulated time (s).
        time: f64,
        /// Steps taken.
        step: u64,
        /// The particle's id.
        id: u64,
        /// What went wrong and the likely cause.
        reason: String,
    },
    /// What stopped one rank of a run shared among processes, which stops them all.
    #[error("rank {rank}: {message}")]
    Rank {
        /// The rank that stopped (the lowest, when several did).
        rank: usize,
        /// Its error.
        message: String,
    },
}

impl Error {
    /// A scene error for `field` with `reason`.
    pub fn scene(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Scene {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            os: source,
        }
    }
}
