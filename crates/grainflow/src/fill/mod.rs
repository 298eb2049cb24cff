//! Ways to make particles: lattices (cubic, HCP), random sequential placement, files.

pub mod annulus;
pub mod file;
pub mod lattice;
pub mod layer;
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
