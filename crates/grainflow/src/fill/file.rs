//! Reader of particle files: initial positions, radii and optional velocities as CSV
//! text (RFC 4180, without quoted fields), one particle per line under a header that
//! names the columns, so a run can start from a packing made elsewhere (another code,
//! or a settled aggregate saved by an earlier run).
//!
//! ```text
//! # comment lines start with '#'; blank lines are skipped
//! x, y, z, radius, vx, vy, vz
//! 0.0, 0.0, 0.1, 0.05, 0, 0, -1.5
//! ```
//! Columns may come in any order; names are case-insensitive; `vx,vy,vz` (m/s) are
//! optional but come all three or none; `x,y,z,radius` are in metres.

use std::path::Path;

use glam::DVec3;

use crate::{Error, Result};

/// One particle read from a particle file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FileParticle {
    /// Centre (m).
    pub pos: DVec3,
    /// Radius (m), finite and positive.
    pub radius: f64,
    /// Velocity (m/s); zero when the file has no velocity columns.
    pub vel: DVec3,
}

/// Column names in the order of the values kept per line.
const COLUMNS: [&str; 7] = ["x", "y", "z", "radius", "vx", "vy", "vz"];
const RADIUS: usize = 3;

/// Reads a particle file (format in the module docs). A file with a header and no
/// particle lines gives an empty list.
///
/// # Errors
/// [`Error::Io`] if the file cannot be read; [`Error::Format`] naming the line (and the
/// column) for a missing or bad header, a wrong number of fields, a value that is not a
/// finite number, or a radius that is not positive.
pub fn read_particle_file(path: &Path) -> Result<Vec<FileParticle>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let bytes = crate::io::input::read_bounded(file, path, crate::io::input::MAX_INPUT_BYTES)?;
    let fail = |reason: String| Error::Format {
        path: path.to_path_buf(),
        reason,
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        fail(format!("not UTF-8 text (bad byte at offset {at})"))
    })?;
    parse(&text).map_err(fail)
}

/// Parses the text of a particle file; an error is the reason alone.
fn parse(text: &str) -> std::result::Result<Vec<FileParticle>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((n, header)) = lines.next() else {
        return Err(
            "no header line: expected columns x,y,z,radius (and optionally vx,vy,vz)".into(),
        );
    };
    let slots = parse_header(n, header)?;
    let names: Vec<&str> = slots.iter().map(|&c| COLUMNS[c]).collect();
    let mut out = Vec::new();
    for (n, line) in lines {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != slots.len() {
            return Err(format!(
                "line {n}: expected {} fields ({}), got {}",
                slots.len(),
                names.join(","),
                fields.len()
            ));
        }
        let mut v = [0.0; 7];
        for (&field, &c) in fields.iter().zip(&slots) {
            let at = || format!("line {n}, column \"{}\"", COLUMNS[c]);
            let x: f64 = field
                .parse()
                .map_err(|_| format!("{}: expected a number, got \"{field}\"", at()))?;
            if !x.is_finite() {
                return Err(format!(
                    "{}: expected a finite number, got \"{field}\"",
                    at()
                ));
            }
            if c == RADIUS && x <= 0.0 {
                return Err(format!("{}: radius must be positive, got {field}", at()));
            }
            v[c] = x;
        }
        out.push(FileParticle {
            pos: DVec3::new(v[0], v[1], v[2]),
            radius: v[RADIUS],
            vel: DVec3::new(v[4], v[5], v[6]),
        });
    }
    Ok(out)
}

/// For each header field, the index in [`COLUMNS`] of the value it holds.
fn parse_header(n: usize, header: &str) -> std::result::Result<Vec<usize>, String> {
    let expected = "expected x,y,z,radius and optionally vx,vy,vz";
    let mut slots = Vec::new();
    for (i, name) in header.split(',').map(str::trim).enumerate() {
        let lower = name.to_ascii_lowercase();
        let Some(c) = COLUMNS.iter().position(|&k| k == lower) else {
            return Err(format!(
                "line {n}: unknown column \"{name}\" (field {}) in the header (the first line \
                 that is not blank or a comment); {expected}",
                i + 1
            ));
        };
        if slots.contains(&c) {
            return Err(format!(
                "line {n}: column \"{lower}\" appears twice in the header"
            ));
        }
        slots.push(c);
    }
    if let Some(missing) = (0..=RADIUS).find(|c| !slots.contains(c)) {
        let name = COLUMNS[missing];
        return Err(format!(
            "line {n}: missing required column \"{name}\"; {expected}"
        ));
    }
    let vel = slots.iter().filter(|&&c| c > RADIUS).count();
    if vel != 0 && vel != 3 {
        return Err(format!(
            "line {n}: velocity columns vx,vy,vz must be given all three or none, got {vel}"
        ));
    }
    Ok(slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Writes `text` to a fresh file in the temp dir and returns its path.
    fn temp(name: &str, text: &[u8]) -> PathBuf {
        let pid = std::process::id();
        let path = std::env::temp_dir().join(format!("grainflow_fill_{pid}_{name}.csv"));
        std::fs::write(&path, text).expect("temp dir is writable");
        path
    }

    fn read(name: &str, text: &str) -> std::result::Result<Vec<FileParticle>, String> {
        let path = temp(name, text.as_bytes());
        let out = read_particle_file(&path).map_err(|e| e.to_string());
        let _ = std::fs::remove_file(&path);
        out
    }

    #[test]
    fn round_trip_with_velocities_comments_and_whitespace() {
        let p = |pos, radius, vel| FileParticle { pos, radius, vel };
        let ps = [
            p(DVec3::new(0.1, -2.5, 1e-7), 0.05, DVec3::ZERO),
            p(
                DVec3::new(3.0, 1.0 / 3.0, -0.0),
                1.25e-3,
                DVec3::new(-1.5, 0.2, 7e9),
            ),
        ];
        let mut text = String::from("\u{feff}# made by hand\n\n  vz ,X,y, z,RADIUS , vx,vy\r\n");
        for FileParticle {
            pos: q,
            radius,
            vel: v,
        } in ps
        {
            let line = format!(
                "{} ,{},  {},{},{radius}, {},{}\r\n",
                v.z, q.x, q.y, q.z, v.x, v.y
            );
            text += &(line + "   # between\n");
        }
        assert_eq!(read("round_trip", &text), Ok(ps.to_vec()));
        let want = p(DVec3::new(1.0, 2.0, 3.0), 0.5, DVec3::ZERO);
        assert_eq!(read("no_vel", "x,y,z,radius\n1,2,3,0.5\n"), Ok(vec![want]));
        assert_eq!(read("header_only", "# none\nx,y,z,radius\n"), Ok(vec![]));
    }

    /// Bodies after the header `# c\nx,y,z,radius\n` (lines 1–2), and the message.
    const BAD_DATA: [(&str, &str); 8] = [
        (
            "0,0,0,1\n\n# c\n\n0,0,0,abc\n",
            r#"line 7, column "radius": expected a number, got "abc""#,
        ),
        (
            "inf,0,0,1\n",
            r#"line 3, column "x": expected a finite number, got "inf""#,
        ),
        (
            "0,0,0,NaN\n",
            r#"line 3, column "radius": expected a finite number, got "NaN""#,
        ),
        (
            "0,0,0,1\n0,0,0,0\n",
            r#"line 4, column "radius": radius must be positive, got 0"#,
        ),
        (
            "0,0,0,-0.1\n",
            r#"line 3, column "radius": radius must be positive, got -0.1"#,
        ),
        (
            "0,,0,1\n",
            r#"line 3, column "y": expected a number, got """#,
        ),
        ("0,0,1\n", "line 3: expected 4 fields (x,y,z,radius), got 3"),
        (
            "0,0,0,1,\n",
            "line 3: expected 4 fields (x,y,z,radius), got 5",
        ),
    ];

    /// Whole files with a bad or missing header, and the message.
    const BAD_HEADER: [(&str, &str); 6] = [
        (
            "\n#\nx,y,radius\n",
            r#"line 3: missing required column "z""#,
        ),
        (
            "x,y,z,radius,vx,vy\n",
            "line 1: velocity columns vx,vy,vz must be given all",
        ),
        (
            "x,y,z,r\n",
            r#"line 1: unknown column "r" (field 4) in the header"#,
        ),
        (
            "1,2,3,4\n",
            r#"line 1: unknown column "1" (field 1) in the header"#,
        ),
        (
            "x,y,z,radius,X\n",
            r#"line 1: column "x" appears twice in the header"#,
        ),
        ("# only a comment\n\n", "no header line"),
    ];

    #[test]
    fn malformed_files_name_line_and_column() {
        let data = BAD_DATA.map(|(body, want)| ("# c\nx,y,z,radius\n".to_owned() + body, want));
        let header = BAD_HEADER.map(|(text, want)| (text.to_owned(), want));
        for (i, (text, want)) in data.into_iter().chain(header).enumerate() {
            let msg = read(&format!("bad{i}"), &text).err().unwrap_or_default();
            let path = format!("grainflow_fill_{}_bad{i}.csv: ", std::process::id());
            assert!(msg.contains(&(path + want)), "case {i}: {msg}");
        }
    }

    #[test]
    fn io_and_encoding_errors() {
        let gone = std::env::temp_dir().join("grainflow_fill_no_such_file.csv");
        let e = read_particle_file(&gone);
        assert!(
            matches!(e, Err(Error::Io { ref path, .. }) if *path == gone),
            "{e:?}"
        );
        let path = temp("latin1", b"x,y,z,radius\n0,0,0,\xe9\n");
        let e = read_particle_file(&path).map_err(|e| e.to_string());
        let _ = std::fs::remove_file(&path);
        let msg = e.err().unwrap_or_default();
        assert!(
            msg.contains("not UTF-8 text (bad byte at offset 19)"),
            "{msg}"
        );
    }
}
