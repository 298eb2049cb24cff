//! Typed errors of the library. Every message names what is wrong and where.

use std::path::PathBuf;

/// Library result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in grainflow.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scene value a user can get wrong: `field` is its path (`walls[2].radius`).
    #[error("{field}: {reason}")]
    Scene { field: String, reason: String },
    /// A TOML file that does not parse (syntax, unknown key, wrong type).
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file that exists but has the wrong content (checkpoint, particle file).
    #[error("{}: {reason}", path.display())]
    Format { path: PathBuf, reason: String },
    /// A run that went bad: names the particle, the time and the likely cause.
    #[error("unstable at t = {time:.6e} s (step {step}): particle id {id}: {reason}")]
    Unstable {
        time: f64,
        step: u64,
        id: u64,
        reason: String,
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
            source,
        }
    }
}
