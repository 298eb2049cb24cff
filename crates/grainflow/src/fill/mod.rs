//! Ways to make particles: lattices (cubic, HCP), random sequential placement, files, and
//! filling a container from the bottom (PRIME and loose fills of 001 chapter 5).

pub(crate) mod annulus;
pub(crate) mod compress;
pub mod file;
pub mod lattice;
pub mod layer;
pub(crate) mod prime;
pub mod random;
pub mod settle;

/// A sphere placed by a filling routine: centre (m) and radius (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Centre (m).
    pub pos: glam::DVec3,
    /// Radius (m).
    pub radius: f64,
}
