//! LAMMPS text: a dump (every frame and its atoms) and a data file.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(frames) = grainflow::io::dump_read::parse_dump(text) {
        for f in &frames {
            let _ = f.atoms();
        }
    }
    let _ = grainflow::io::lammps_data::parse_lammps_data(text);
});
