//! grainflow's validation cases and benchmarks, apart from the library: every case runs real
//! scenes through the library's public API and compares metrics with analytic or published
//! numbers at stated tolerances; the benchmarks measure the same API. The `grainflow` binary's
//! `validate` and `bench` and the test suite call these functions.

pub mod bench;
pub mod validation;
