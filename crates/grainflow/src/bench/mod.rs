//! Benchmarks `grainflow bench NAME` runs: peer scenes of `../shared/peers/RESULTS.md`.

pub mod couette;
pub mod gravity;
