//! A wall that is a free rigid body, as a scene writes it (`free = { ... }` on a wall) and
//! as it is built: its mass properties from the wall's shape and a density (a solid block;
//! closed meshes) or as given, its initial velocity and spin, and the degrees of freedom held.
//!
//! ```toml
//! [[walls]]
//! type = "block"
//! material = "steel"
//! min = [-0.02, -0.02, 0.05]
//! max = [0.02, 0.02, 0.06]
//! free = { density = 7800, velocity = [0, 0, -1], spin = [0, 0, 0], fixed = ["x", "y"] }
//! ```

use glam::{DMat3, DVec3};
use serde::{Deserialize, Serialize};

use super::body::{BodyConstants, RigidBody, Spin};
use super::mass::{principal, MassProperties};
use crate::walls::Shape;

/// A degree of freedom of a free body that may be held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dof {
    /// Translation along world x.
    X,
    /// Translation along world y.
    Y,
    /// Translation along world z.
    Z,
    /// Rotation about world x.
    Rx,
    /// Rotation about world y.
    Ry,
    /// Rotation about world z.
    Rz,
}

/// A wall moved by the forces and torques of its contacts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FreeSpec {
    /// Density (kg/m³) filling the wall's solid (a block's box; a closed mesh): mass, centre
    /// of mass and inertia computed from it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::density"
    )]
    pub density: Option<f64>,
    /// Mass (kg), instead of a density, with `center` and (unless every rotation is held)
    /// `inertia`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::mass"
    )]
    pub mass: Option<f64>,
    /// Centre of mass in the scene placement (m), with `mass`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::length"
    )]
    pub center: Option<DVec3>,
    /// Inertia tensor about the centre of mass, world axes (kg m², rows), with `mass`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::units::moment_of_inertia"
    )]
    pub inertia: Option<[[f64; 3]; 3]>,
    /// Initial velocity of the centre of mass (m/s).
    #[serde(default, deserialize_with = "crate::units::velocity")]
    pub velocity: DVec3,
    /// Initial angular velocity (rad/s, world axes).
    #[serde(default, deserialize_with = "crate::units::angular_velocity")]
    pub spin: DVec3,
    /// Degrees of freedom held: "x", "y", "z" (translation), "rx", "ry", "rz" (rotation about
    /// a world axis; none, two or all three).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<Dof>,
}

/// Why a density cannot be filled into a wall that is neither a block nor a closed mesh.
const SOLIDS: &str =
    "only a solid block or a closed mesh has a volume to fill: give mass, center and inertia";

impl FreeSpec {
    /// The mass properties of the wall `shape` from this spec: from the density for a solid
    /// block or a closed mesh ([`MassProperties::of_mesh`]), else as given. `Err((field, reason))` when they cannot be had.
    pub fn mass_properties(&self, shape: &Shape) -> Result<MassProperties, (String, String)> {
        let err = |f: &str, r: String| Err((f.to_string(), r));
        match (self.density, self.mass) {
            (Some(_), Some(_)) => err("density", "give a density or a mass, not both".into()),
            (Some(rho), None) => match shape {
                Shape::Block(b) => Ok(MassProperties::cuboid(
                    0.5 * (b.min + b.max),
                    b.max - b.min,
                    rho,
                )),
                Shape::Union(parts) => match parts.first() {
                    Some(Shape::Mesh(part)) => {
                        let t = &part.mesh.topo;
                        let tris: Vec<[DVec3; 3]> = t
                            .triangles
                            .iter()
                            .map(|c| c.map(|v| t.vertices[v as usize]))
                            .collect();
                        MassProperties::of_mesh(&tris, rho).map_err(|r| ("density".into(), r))
                    }
                    _ => err("density", SOLIDS.into()),
                },
                _ => err("density", SOLIDS.into()),
            },
            (None, Some(mass)) => {
                let Some(center) = self.center else {
                    return err("center", "the centre of mass is needed with a mass".into());
                };
                let inertia = match self.inertia {
                    Some(rows) => DMat3::from_cols_array_2d(&rows).transpose(),
                    None if self.rotation_held() => DMat3::IDENTITY,
                    None => {
                        return err(
                            "inertia",
                            "is needed with a mass unless rotations rx, ry, rz are all fixed"
                                .into(),
                        )
                    }
                };
                Ok(MassProperties {
                    mass,
                    center,
                    inertia,
                })
            }
            (None, None) => err("density", "give a density or a mass".into()),
        }
    }

    /// Whether every rotation is held.
    fn rotation_held(&self) -> bool {
        [Dof::Rx, Dof::Ry, Dof::Rz]
            .iter()
            .all(|d| self.fixed.contains(d))
    }

    /// Everything wrong with the spec of a wall of `shape`, as (field under `free`, reason).
    pub fn problems(&self, shape: &Shape) -> Vec<(String, String)> {
        let mut p = Vec::new();
        let mut bad = |f: &str, r: String| p.push((f.to_string(), r));
        for (f, v) in [("density", self.density), ("mass", self.mass)] {
            if let Some(v) = v.filter(|v| !(v.is_finite() && *v > 0.0)) {
                bad(f, format!("must be a finite number > 0, got {v}"));
            }
        }
        for (f, v) in [("velocity", self.velocity), ("spin", self.spin)] {
            if !v.is_finite() {
                bad(f, format!("must be finite, got {v:?}"));
            }
        }
        if let Some(c) = self.center.filter(|c| !c.is_finite()) {
            bad("center", format!("must be finite, got {c:?}"));
        }
        if let Some(i) = self.inertia {
            let m = DMat3::from_cols_array_2d(&i);
            let sym = (m - m.transpose())
                .to_cols_array()
                .iter()
                .all(|x| *x == 0.0);
            let moments = principal(&m).moments;
            // A physical tensor: symmetric, positive, and I₁ + I₂ ≥ I₃ (triangle inequality).
            if !(m.is_finite() && sym && moments.x > 0.0 && moments.x + moments.y >= moments.z) {
                bad(
                    "inertia",
                    format!("must be a symmetric positive tensor with I₁ + I₂ ≥ I₃, got {i:?}"),
                );
            }
        }
        let rot = [Dof::Rx, Dof::Ry, Dof::Rz].map(|d| self.fixed.contains(&d));
        if rot.iter().filter(|h| **h).count() == 1 {
            bad(
                "fixed",
                "hold none, two or all three of rx, ry, rz (one free axis at most)".into(),
            );
        }
        for (k, (d, name)) in [(Dof::X, "x"), (Dof::Y, "y"), (Dof::Z, "z")]
            .iter()
            .enumerate()
        {
            if self.fixed.contains(d) && self.velocity[k] != 0.0 {
                bad(
                    "velocity",
                    format!("has a {name} component but {name} is fixed"),
                );
            }
            if rot[k] && self.spin[k] != 0.0 {
                bad(
                    "spin",
                    format!("has an r{name} component but r{name} is fixed"),
                );
            }
        }
        // A mesh is read after the scene is checked (its shape is then still empty): its
        // volume is checked as the body is built.
        let unread = matches!(shape, Shape::Union(parts) if parts.is_empty());
        if p.is_empty() && !unread {
            if let Err(e) = self.mass_properties(shape) {
                p.push(e);
            }
        }
        p
    }

    /// The body of a wall of `shape` (a spec without [`FreeSpec::problems`]).
    pub fn build(&self, shape: &Shape) -> Result<RigidBody, (String, String)> {
        let m = self.mass_properties(shape)?;
        let p = m.principal();
        let axes = [DVec3::X, DVec3::Y, DVec3::Z].map(|e| p.axes * e);
        let rot = [Dof::Rx, Dof::Ry, Dof::Rz].map(|d| self.fixed.contains(&d));
        let spin = match rot.iter().filter(|h| **h).count() {
            0 => Spin::Free,
            2 => {
                let free = rot.iter().position(|h| !h).unwrap_or(2);
                let e = [DVec3::X, DVec3::Y, DVec3::Z][free];
                let i = (m.inertia * e).dot(e);
                if i.is_nan() || i <= 0.0 {
                    return Err(("inertia".into(), format!("is {i} about the free axis")));
                }
                Spin::Axis(e, i)
            }
            _ => Spin::Held,
        };
        let held = [Dof::X, Dof::Y, Dof::Z].map(|d| self.fixed.contains(&d));
        let constants = BodyConstants {
            mass: m.mass,
            moments: p.moments,
            axes,
            center: m.center,
            held,
            spin,
        };
        Ok(RigidBody::new(constants, self.velocity, self.spin))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walls::{Block, Plane};

    #[test]
    fn a_block_takes_its_mass_from_the_density_and_a_plane_needs_one_given() {
        let block = Shape::Block(Block {
            min: DVec3::new(0.0, 0.0, 1.0),
            max: DVec3::new(0.2, 0.1, 1.05),
        });
        let spec = FreeSpec {
            density: Some(1000.0),
            ..FreeSpec::default()
        };
        assert!(spec.problems(&block).is_empty());
        let b = spec.build(&block).unwrap();
        assert!((b.constants.mass - 1.0).abs() <= 1e-12);
        assert!((b.constants.center - DVec3::new(0.1, 0.05, 1.025)).length() <= 1e-15);
        let plane = Shape::Plane(Plane {
            point: DVec3::ZERO,
            normal: DVec3::Z,
            both: false,
        });
        let fields = |s: &FreeSpec| -> Vec<String> {
            s.problems(&plane).into_iter().map(|(f, _)| f).collect()
        };
        assert_eq!(fields(&spec), ["density"]);
        let lid = FreeSpec {
            mass: Some(2.0),
            center: Some(DVec3::ZERO),
            fixed: vec![Dof::X, Dof::Y, Dof::Rx, Dof::Ry, Dof::Rz],
            ..FreeSpec::default()
        };
        assert!(fields(&lid).is_empty());
        assert_eq!(lid.build(&plane).unwrap().constants.spin, Spin::Held);
        let one_axis = FreeSpec {
            fixed: vec![Dof::X, Dof::Rx],
            velocity: DVec3::X,
            ..lid.clone()
        };
        assert_eq!(fields(&one_axis), ["fixed", "velocity"]);
        let bad_inertia = FreeSpec {
            fixed: vec![],
            inertia: Some([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 3.0]]),
            ..lid
        };
        assert_eq!(fields(&bad_inertia), ["inertia"]);
    }

    /// A scene with one block wall whose `free` table is `free`.
    fn scene_with(free: &str) -> crate::scene::Scene {
        let toml = format!(
            r#"
[simulation]
duration = 0.01
dt = 1e-6
[[materials]]
name = "steel"
density = 7800
youngs_modulus = 2e11
poisson_ratio = 0.3
restitution = 0.9
sliding_friction = 0.3
[[particles]]
type = "list"
material = "steel"
spheres = [{{ pos = [0, 0, 0], radius = 0.001 }}]
[[walls]]
type = "block"
material = "steel"
min = [-0.02, -0.02, 0.05]
max = [0.02, 0.02, 0.06]
free = {free}
"#
        );
        crate::scene::Scene::from_toml(&toml, "free").expect("parses")
    }

    #[test]
    fn the_free_keys_take_units_to_the_same_bits_and_refuse_the_wrong_dimension() {
        let si = scene_with(
            "{ mass = 0.5, center = [0, 0, 0.055], inertia = [[1e-4, 0, 0], [0, 2e-4, 0], [0, 0, 2.5e-4]], velocity = [0, 0, -1.5], spin = [0, 0, 3.141592653589793] }",
        );
        let united = scene_with(
            r#"{ mass = "500 g", center = [0, "0 m", "55 mm"], inertia = [["1 kg cm^2", 0, 0], [0, "2e-4 kg m^2", 0], [0, 0, "2500 g cm^2"]], velocity = [0, 0, "-1.5 m/s"], spin = [0, 0, "0.5 rev/s"] }"#,
        );
        assert_eq!(united.walls[0].free, si.walls[0].free);
        let dense = scene_with(r#"{ density = "7.8 g/cm^3" }"#);
        assert_eq!(
            dense.walls[0].free.as_ref().and_then(|f| f.density),
            Some(7800.0)
        );
        let e = crate::scene::Scene::from_toml(
            &scene_with("{ density = 1 }")
                .to_toml()
                .expect("writes")
                .replace("density = 1.0", "density = \"1 kg\""),
            "free",
        )
        .expect_err("a mass for a density")
        .to_string();
        assert!(
            e.contains("expected a density (kg/m^3), got \"1 kg\", a mass (kg)"),
            "{e}"
        );
    }
}
