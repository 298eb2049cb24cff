//! Reading input files with a bound: a particle, LAMMPS or dump file larger than
//! [`MAX_INPUT_BYTES`] (or an endless one, such as `/dev/zero`) is refused once the bound is
//! passed instead of being read until memory runs out.

use std::io::{BufRead, BufReader, Read};
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

/// The bytes of `path` as they are read, decompressed when it ends in `.gz`.
fn open(path: &Path) -> Result<Box<dyn Read>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(match path.extension().is_some_and(|e| e == "gz") {
        true => Box::new(flate2::read::GzDecoder::new(file)),
        false => Box::new(file),
    })
}

/// The text of `path`, decompressed when it ends in `.gz`, refused past [`MAX_INPUT_BYTES`]
/// or when it is not UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = read_bounded(open(path)?, path, MAX_INPUT_BYTES)?;
    String::from_utf8(bytes).map_err(|e| Error::Format {
        path: path.to_path_buf(),
        reason: format!(
            "not UTF-8 text (bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })
}

/// Hands each line of `path` (decompressed when it ends in `.gz`) to `line` with its number
/// (from 1), as the file is read: no copy of the whole text is held, so a large file costs
/// its parse's memory alone. Refused past [`MAX_INPUT_BYTES`] or at a line that is not UTF-8;
/// an error of `line` stops the reading and is returned as the file's format error.
pub fn for_each_line(
    path: &Path,
    mut line: impl FnMut(usize, &str) -> std::result::Result<(), String>,
) -> Result<()> {
    let reader = open(path)?;
    let fail = |reason: String| Error::Format {
        path: path.to_path_buf(),
        reason,
    };
    let mut reader = BufReader::new(reader.take(MAX_INPUT_BYTES + 1));
    let (mut text, mut read, mut number) = (String::new(), 0u64, 0);
    loop {
        text.clear();
        let n = reader.read_line(&mut text).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => fail(format!("line {}: not UTF-8 text", number + 1)),
            _ => Error::io(path, e),
        })?;
        read += n as u64;
        if read > MAX_INPUT_BYTES {
            return Err(fail(format!(
                "larger than the limit of {MAX_INPUT_BYTES} bytes for an input file"
            )));
        }
        if n == 0 {
            return Ok(());
        }
        number += 1;
        line(number, text.trim_end_matches(['\n', '\r'])).map_err(fail)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_handed_over_one_by_one_and_a_bad_one_is_named() {
        let path = std::env::temp_dir().join(format!("grainflow-lines-{}.txt", std::process::id()));
        std::fs::write(&path, b"title\r\nsecond\n\nfourth \xff\nfifth\n").unwrap();
        let mut seen = Vec::new();
        let e = for_each_line(&path, |k, line| {
            seen.push((k, line.to_string()));
            Ok(())
        })
        .expect_err("refused");
        assert_eq!(
            seen,
            [
                (1, "title".into()),
                (2, "second".into()),
                (3, String::new())
            ]
        );
        assert!(e.to_string().ends_with(": line 4: not UTF-8 text"), "{e}");
        std::fs::write(&path, "a\nb\n").unwrap();
        let e = for_each_line(&path, |k, line| match line {
            "b" => Err(format!("line {k}: no b")),
            _ => Ok(()),
        })
        .expect_err("refused");
        assert!(e.to_string().ends_with(": line 2: no b"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

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
