//! LAMMPS text: a dump (every frame and its atoms) and a data file.
//! The body is `grainflow::io::fuzz::lammps`, which the short run on stable calls too.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| grainflow::io::fuzz::lammps(data));
