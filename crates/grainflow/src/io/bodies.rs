//! The free walls' bodies as a CSV time series (`bodies.csv`, at `output.series_interval`):
//! per body its centre of mass, velocity, orientation (the rotation from its scene placement
//! as a unit quaternion), angular velocity, and the force and torque (about its centre of
//! mass) of the grains on it at the last evaluation, gravity not included.

use std::io::Write;

use crate::sim::Simulation;

/// The columns of each body, after its `wall{k}_` prefix.
const COLUMNS: [&str; 19] = [
    "x", "y", "z", "vx", "vy", "vz", "qw", "qx", "qy", "qz", "wx", "wy", "wz", "fx", "fy", "fz",
    "tx", "ty", "tz",
];

/// The header of `bodies.csv` for the free walls of `sim`.
pub fn header(sim: &Simulation) -> String {
    let mut h = String::from("time,step");
    for b in &sim.world.wall_runtime.bodies {
        for c in COLUMNS {
            h.push_str(&format!(",wall{}_{c}", b.wall));
        }
    }
    h
}

/// Writes the row of `sim`'s current state.
pub fn write_row(w: &mut impl Write, sim: &Simulation) -> std::io::Result<()> {
    write!(w, "{:e},{}", sim.world.time, sim.world.step)?;
    for b in &sim.world.wall_runtime.bodies {
        let s = &b.body.state;
        let q = s.turn;
        let values = s
            .pos
            .to_array()
            .into_iter()
            .chain(s.vel.to_array())
            .chain([q.w, q.x, q.y, q.z])
            .chain(b.body.omega().to_array())
            .chain(b.contact.0.to_array())
            .chain(b.contact.1.to_array());
        for x in values {
            write!(w, ",{x:e}")?;
        }
    }
    writeln!(w)
}
