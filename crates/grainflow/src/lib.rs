//! grainflow: granular dynamics with the Discrete Element Method.
//!
//! The library holds all physics and never prints or exits; the `grainflow` binary, the
//! validation crate, tests and future front ends drive the same API. Data flows one way: a
//! [`Scene`] (plain data, checked on load) builds a [`Simulation`] (a [`World`] of physical
//! state, fixed [`Physics`] and the method with its options and scratch), which steps and
//! feeds observers ([`io`]). ARCHITECTURE.md at the repository's root draws the layout and
//! lists the public modules.
//!
//! ```no_run
//! use std::path::Path;
//!
//! use grainflow::{Scene, Simulation};
//! # fn main() -> grainflow::Result<()> {
//! let scene = Scene::load(Path::new("scenes/drum-quick.toml"))?;
//! let mut sim = Simulation::new(scene, Path::new("scenes"))?;
//! sim.run_until(0.1, |s| {
//!     println!("{} s: {} grains", s.world.time, s.world.particles.len());
//!     Ok(())
//! })?;
//! # Ok(())
//! # }
//! ```
//!
//! The public modules are what a scene is written with ([`scene`] and the plain data it shares
//! with the runtime: [`contact`], [`material`], [`gravity`], [`frame`], [`walls`],
//! [`boundary`], [`drive`], [`timestep`]), what a run holds and reports ([`sim`], [`world`],
//! [`particles`], [`physics`], [`stats`], [`energy`], the collision records of [`hard`] and
//! the impulse tallies of [`approx_hard`]), and what reads and makes it ([`io`],
//! [`analysis`], [`fill`]). The steppers (soft-sphere pair loop, integrators, hard-sphere
//! prediction, overlap correction), the contact law's lanes and SIMD back-ends, 2-D mode and
//! the ghost table are internal. Every public item is documented.

#![warn(missing_docs)]

pub mod analysis;
pub mod approx_hard;
pub mod boundary;
pub mod contact;
pub mod domain;
pub mod drive;
pub mod energy;
pub mod error;
pub mod fill;
pub mod frame;
mod ghosts;
pub mod gravity;
pub mod hard;
mod integrator;
pub mod io;
pub mod material;
pub mod neighbor;
pub mod particles;
pub mod physics;
mod planar;
pub mod rigid;
pub mod scene;
pub mod sim;
mod simd;
mod soft;
pub mod stats;
mod stepper;
pub mod timestep;
pub mod units;
pub mod walls;
pub mod world;

pub use error::{Error, Result};
pub use physics::Physics;
pub use scene::Scene;
pub use sim::Simulation;
pub use world::World;

/// The hot kernels, for the micro-benchmarks (`benches/kernels.rs`) alone: not part of the
/// API, and free to change with any release.
#[doc(hidden)]
pub mod kernels {
    pub use crate::contact::lanes::{Contacts, Lanes, F, LANES, V3};
    pub use crate::soft::{half_kick, kick_drift_pack, Packed};
}
pub use glam::DVec3;
