//! `grainflow bench couette`: approx_hard against soft on the same dense Couette flow.

use std::process::ExitCode;

use anyhow::Result;

/// Runs the comparison at φ = 0.78 (1 s settling, 2 s measured; approx_hard, soft with the
/// scene's discs and with glass grains) and prints it.
pub fn couette(json: bool) -> Result<ExitCode> {
    let b = grainflow_validate::bench::couette::couette(0.78, 1.0, 2.0)?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&b)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "couette: {} discs, phi = {:.4}, {} threads",
        b.grains,
        b.phi,
        rayon::current_num_threads()
    );
    for r in &b.runs {
        outln!(
            "  {:<12} E = {:.0e} Pa, dt = {:.3e} s: {:.3} s wall per simulated s, largest overlap {:.2e} r, profile fluctuation {:.4}",
            r.method,
            r.youngs_modulus,
            r.dt,
            r.wall_per_simulated_s,
            r.max_overlap,
            r.fluctuation
        );
        outln!(
            "  {:<12} omega/Omega by diameter from the inner wall: {}",
            "",
            r.omega
                .iter()
                .map(|w| format!("{w:.4}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    outln!(
        "  soft / approx_hard wall time per simulated second: {:.2}; rms profile difference {:.4}",
        b.speedup,
        b.profile_difference
    );
    outln!(
        "  soft glass / approx_hard wall time per simulated second: {:.2}; rms profile difference {:.4}",
        b.speedup_glass,
        b.profile_difference_glass
    );
    Ok(ExitCode::SUCCESS)
}
