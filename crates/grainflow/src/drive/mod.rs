//! Drives that act on the grains between steps: recirculation of pebbles through exit
//! chutes (001 chapter 6) and insertion of grains at a rate (`[[inserts]]`). Earthquakes move the walls through [`crate::walls::Motion`]
//! (001 chapter 7, eq 7.1–7.4).

pub mod doors;
pub mod insert;
pub mod recirculation;

pub use doors::DoorState;
