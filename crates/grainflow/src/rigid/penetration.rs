//! How deep a free body has sunk into the grains, against time, from a run's `bodies.csv`
//! (`grainflow analyze penetration`): a footpad landing in regolith, an impactor.
//!
//! The depth is measured along gravity −z from where the body first felt the grains: the
//! height of its centre of mass at the first row whose grains' force `fz` is not zero, less
//! its height now. So it needs no estimate of the bed's ragged surface; it is known to within
//! the distance the body moves in one series interval (v · `output.series_interval`).

/// One row of the penetration series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Depth {
    /// Time (s).
    pub time: f64,
    /// Depth below the height of first contact (m).
    pub depth: f64,
    /// Vertical velocity of the centre of mass (m/s).
    pub vz: f64,
    /// Vertical force of the grains on the body (N).
    pub fz: f64,
}

/// The rows of `bodies.csv` (its text) from free wall `wall`'s first contact on: time, depth
/// below the first contact, vertical velocity and the grains' vertical force. `Err` says why
/// not (no such wall in the file, a bad number with its line, or no contact yet).
pub fn penetration(csv: &str, wall: usize) -> Result<Vec<Depth>, String> {
    let mut lines = csv.lines().enumerate();
    let (_, header) = lines.next().ok_or("bodies.csv is empty")?;
    let names: Vec<&str> = header.split(',').collect();
    let column = |c: &str| {
        let name = format!("wall{wall}_{c}");
        names
            .iter()
            .position(|n| *n == name)
            .ok_or_else(|| format!("bodies.csv has no column {name}: wall {wall} is not free"))
    };
    let [t, z, vz, fz] = [Ok(0), column("z"), column("vz"), column("fz")];
    let (t, z, vz, fz) = (t?, z?, vz?, fz?);
    let mut out = Vec::new();
    let mut touch = None;
    for (n, line) in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let value = |k: usize| -> Result<f64, String> {
            let cell = cells
                .get(k)
                .ok_or(format!("line {}: too few columns", n + 1))?;
            cell.parse()
                .map_err(|_| format!("line {}: \"{cell}\" is not a number", n + 1))
        };
        let (time, height, v, f) = (value(t)?, value(z)?, value(vz)?, value(fz)?);
        if touch.is_none() && f != 0.0 {
            touch = Some(height);
        }
        if let Some(h) = touch {
            out.push(Depth {
                time,
                depth: h - height,
                vz: v,
                fz: f,
            });
        }
    }
    if touch.is_none() {
        return Err(format!("wall {wall} never touched a grain in bodies.csv"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_from_the_first_row_with_a_force_and_bad_files_are_named() {
        let csv = "time,step,wall1_x,wall1_y,wall1_z,wall1_vx,wall1_vy,wall1_vz,wall1_fz\n\
                   0,0,0,0,0.5,0,0,-1,0\n\
                   0.1,10,0,0,0.4,0,0,-1,0\n\
                   0.2,20,0,0,0.3,0,0,-0.5,2.5\n\
                   0.3,30,0,0,0.25,0,0,0,3\n";
        let d = penetration(csv, 1).expect("reads");
        assert_eq!(d.len(), 2);
        assert_eq!(
            d[1],
            Depth {
                time: 0.3,
                depth: 0.3 - 0.25,
                vz: 0.0,
                fz: 3.0
            }
        );
        assert_eq!(d[0].depth, 0.0);
        assert!(penetration(csv, 0)
            .expect_err("no wall 0")
            .contains("wall0_z"));
        let bad = csv.replace("0.4,", "x,");
        assert_eq!(
            penetration(&bad, 1).expect_err("bad"),
            "line 3: \"x\" is not a number"
        );
        let none = csv.lines().take(3).collect::<Vec<_>>().join("\n");
        assert!(penetration(&none, 1)
            .expect_err("none")
            .contains("never touched"));
    }
}
