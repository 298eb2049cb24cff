//! The doors of the recirculation (001 chapter 6): their state, part of the world and of its
//! checkpoints.

/// State of the doors, kept in the world and in checkpoints.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DoorState {
    /// Time the door opens next (s).
    pub next_open: f64,
    /// Chute the next pebble leaves by.
    pub next_chute: u64,
    /// Inlet the next pebble enters by.
    pub next_inlet: u64,
    /// Pebbles recirculated so far.
    pub discharged: u64,
    /// Time of the first discharge (s), NaN before it.
    pub first_discharge: f64,
    /// Time of the latest discharge (s), NaN before it.
    pub last_discharge: f64,
}

impl DoorState {
    /// Discharge rate (pebbles/s) between the first and the latest discharge; NaN with fewer
    /// than two discharges.
    pub fn discharge_rate(&self) -> f64 {
        if self.discharged < 2 {
            return f64::NAN;
        }
        (self.discharged - 1) as f64 / (self.last_discharge - self.first_discharge)
    }
}
