//! The memory and time a scene will take, estimated before any particle is made
//! (`grainflow::scene::estimate`), and the refusal of a scene that needs more memory than
//! there is; `--max-memory` sets the limit instead.

use std::path::Path;

use anyhow::{bail, Result};
use grainflow::scene::estimate::{memory_limit, Estimate, MemoryLimit, BYTES_PER_GRAIN};
use grainflow::scene::Scene;

/// Cost of one particle-step on one core (s): S1, a settled soft-sphere bed, at 250 ns
/// (docs/performance-log.md); a loose gas or the hard-sphere methods cost less.
const SECONDS_PER_PARTICLE_STEP: f64 = 250e-9;

/// Parses `--max-memory`: a number of bytes with an optional unit, decimal (kB, MB, GB, TB)
/// or binary (KiB, MiB, GiB, TiB): `48GB`, `512MiB`, `2e9`.
pub fn parse_size(text: &str) -> std::result::Result<f64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0_f64.powi(2),
        "gib" => 1024.0_f64.powi(3),
        "tib" => 1024.0_f64.powi(4),
        other => {
            return Err(format!(
                "{text}: unknown unit \"{other}\" (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)"
            ))
        }
    };
    match number.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 => Ok(n * factor),
        _ => Err(format!(
            "{text}: expected a size > 0 such as 48GB or 512MiB"
        )),
    }
}

/// Bytes for people: two significant figures in kB, MB, GB or TB.
pub fn human(bytes: f64) -> String {
    let (value, unit) = match bytes {
        b if b >= 1e12 => (b / 1e12, "TB"),
        b if b >= 1e9 => (b / 1e9, "GB"),
        b if b >= 1e6 => (b / 1e6, "MB"),
        b => (b / 1e3, "kB"),
    };
    if value >= 10.0 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

/// The limit a run is held to: `--max-memory` when given, else what the system has.
pub fn limit(max_memory: Option<f64>) -> Option<MemoryLimit> {
    match max_memory {
        Some(bytes) => Some(MemoryLimit {
            bytes,
            source: "that --max-memory allows",
        }),
        None => memory_limit(),
    }
}

/// The scene's estimate, refused in one line naming `file` and the field that makes the most
/// grains when it needs more than the limit. A PEBBLES deck (`deck`) names its
/// `number_of_pebbles`.
pub fn enforce(
    file: &str,
    scene: &Scene,
    base: &Path,
    deck: bool,
    max_memory: Option<f64>,
) -> Result<Estimate> {
    let estimate = scene.estimate(base);
    let (Some(limit), Some(largest)) = (limit(max_memory), estimate.largest()) else {
        return Ok(estimate);
    };
    let need = estimate.bytes();
    if need <= limit.bytes {
        return Ok(estimate);
    }
    let field = if deck && largest.field.ends_with(".count") {
        "number_of_pebbles"
    } else {
        &largest.field
    };
    let all = estimate.grains();
    let grains = if all > largest.count {
        format!("about {:.1e} grains ({all:.1e} in all)", largest.count)
    } else {
        format!("about {:.1e} grains", largest.count)
    };
    let suggest = (need * 1.2 / 1e9).ceil();
    bail!(
        "{file}: {field}: {grains} need about {}, more than the {} {}; pass --max-memory {suggest}GB to try anyway",
        human(need),
        human(limit.bytes),
        limit.source
    )
}

/// What `check` says about the cost: the memory estimate against the limit, and the time of
/// the run from its particle-steps.
pub fn lines(
    estimate: &Estimate,
    max_memory: Option<f64>,
    grains: usize,
    steps: u64,
) -> Vec<String> {
    let limit = match limit(max_memory) {
        Some(l) => format!("{} {}", human(l.bytes), l.source),
        None => "no memory limit known (/proc/meminfo unreadable), none applied".into(),
    };
    let inserted = estimate.grains()
        - estimate
            .parts
            .iter()
            .filter(|g| g.field.starts_with("particles"))
            .map(|g| g.count)
            .sum::<f64>();
    // Inserted grains are present, on average, half the run.
    let particle_steps = (grains as f64 + 0.5 * inserted) * steps as f64;
    let seconds = particle_steps * SECONDS_PER_PARTICLE_STEP;
    let threads = rayon::current_num_threads();
    vec![
        format!(
            "  memory estimate:      about {} ({:.3e} grains at {} bytes each); {limit}",
            human(estimate.bytes()),
            estimate.grains(),
            BYTES_PER_GRAIN.round()
        ),
        format!(
            "  run time estimate:    about {seconds:.0e} s on one core, {:.0e} s on {threads} threads ({particle_steps:.2e} particle-steps at {:.0} ns each, S1's cost)",
            seconds / threads as f64,
            SECONDS_PER_PARTICLE_STEP * 1e9
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_with_their_units() {
        assert_eq!(parse_size("48GB"), Ok(48e9));
        assert_eq!(parse_size("512MiB"), Ok(512.0 * 1024.0 * 1024.0));
        assert_eq!(parse_size("2e9"), Ok(2e9));
        assert!(parse_size("-1GB").is_err());
        assert!(parse_size("5 parsecs").is_err());
        assert_eq!(human(4.1e10), "41 GB");
        assert_eq!(human(2.26e9), "2.3 GB");
    }
}
