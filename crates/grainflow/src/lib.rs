//! grainflow: granular dynamics with the Discrete Element Method.
//!
//! The library holds all physics and never prints or exits; the `grainflow`
//! binary, tests and future front ends drive the same [`sim::Simulation`] API.
//! Data flows one way: a [`scene::Scene`] (plain data, checked on load) builds a
//! [`sim::Simulation`] (a [`world::World`] of physical state, fixed [`physics::Physics`]
//! and the method's [`stepper::Stepper`]), which steps and feeds observers. ARCHITECTURE.md at
//! the repository's root draws the layout. Every public item is documented; the SIMD
//! back-ends and the ghost table are internal.

#![warn(missing_docs)]

pub mod analysis;
pub mod approx_hard;
pub mod boundary;
pub mod contact;
pub mod drive;
pub mod energy;
pub mod error;
pub mod fill;
pub mod frame;
mod ghosts;
pub mod gravity;
pub mod hard;
pub mod integrator;
pub mod io;
pub mod material;
pub mod neighbor;
pub mod particles;
pub mod physics;
pub mod planar;
pub mod scene;
pub mod sim;
mod simd;
pub mod soft;
pub mod stats;
pub mod stepper;
pub mod timestep;
pub mod walls;
pub mod world;

pub use error::{Error, Result};
pub use glam::DVec3;
