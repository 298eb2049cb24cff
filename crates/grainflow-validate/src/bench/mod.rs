//! Benchmarks `grainflow bench NAME` runs: the peer scenes of docs/performance.md.

pub mod couette;
pub mod gravity;
