//! Reading input files with a bound: a particle, LAMMPS or dump file larger than
//! [`MAX_INPUT_BYTES`] (or an endless one, such as `/dev/zero`) is refused once the bound is
//! passed instead of being read until memory runs out.

use std::io::Read;
use std::path::Path;

use crate::{Error, Result};

/// Largest input file read (after decompression): 4 GiB, some 4·10⁷ grains of text.
pub const MAX_INPUT_BYTES: u64 = 4 << 30;

/// The bytes of `reader` (from `path`), refused past `limit` bytes.
pub fn read_bounded(reader: impl Read, path: &Path, limit: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(Error::Format {
            path: path.to_path_buf(),
            reason: format!("larger than the limit of {limit} bytes for an input file"),
        });
    }
    Ok(bytes)
}

/// The text of `path`, decompressed when it ends in `.gz`, refused past [`MAX_INPUT_BYTES`]
/// or when it is not UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        read_bounded(flate2::read::GzDecoder::new(file), path, MAX_INPUT_BYTES)?
    } else {
        read_bounded(file, path, MAX_INPUT_BYTES)?
    };
    String::from_utf8(bytes).map_err(|e| Error::Format {
        path: path.to_path_buf(),
        reason: format!(
            "not UTF-8 text (bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_input_is_refused_at_the_limit() {
        let path = Path::new("/dev/zero");
        let Ok(file) = std::fs::File::open(path) else {
            return; // no /dev/zero on this system
        };
        let e = read_bounded(file, path, 1 << 20).expect_err("refused");
        assert_eq!(
            e.to_string(),
            "/dev/zero: larger than the limit of 1048576 bytes for an input file"
        );
    }
}
