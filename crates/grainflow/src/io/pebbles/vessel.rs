//! The vessel of a PEBBLES deck as walls, with the region the fill keeps to and the exit
//! chutes.
//!
//! Geometry (001 §3.4, §4.7–4.8): the vessel is a cylinder of `vessel_radius` (with an inner
//! column for an annulus) or a `rectangular_vat`, a floor plane at `floor_location`, and
//! optionally an outlet cone `radius = m z + b` with radius R at `location`, cut where it
//! reaches the exit chute's hole (radius `hole_size` × pebble radius), a chute tube
//! `hole_depth` long below it, and a flat door closing the chute. Cone and tube are a
//! one-hole [`crate::walls::hopper`] (its floor outside the cylinder, or the vat's base around
//! the cone), so the lip between them is one edge. Indentations are pockets cut into the
//! vessel_radius wall ([`crate::walls::indent`]). Unions of the geometry section are solids
//! the pebbles stay outside of.

use glam::DVec3;

use super::{Deck, Solid};
use crate::scene::Chute;
use crate::scene::{Indentation, Motion, ShapeSpec, Side, WallSpec};
use crate::{Error, Result};

/// What [`vessel`] builds.
pub(super) struct Vessel {
    /// The vessel's walls.
    pub walls: Vec<WallSpec>,
    /// Radius profile [z, R] of the vessel about the z axis (empty for a vat).
    pub profile: Vec<[f64; 2]>,
    /// Radius of the inner column (m); 0 without one.
    pub inner: f64,
    /// Half widths in x and y of the box that holds the vessel (m).
    pub half_xy: [f64; 2],
    /// Lowest height the fill starts from (m).
    pub bottom: f64,
    /// The exit chutes.
    pub chutes: Vec<Chute>,
    /// Centres (x, y) of the outlet holes in the base: one at the axis unless number_of_cones > 1.
    pub holes: Vec<[f64; 2]>,
}

/// A fixed wall of the vessel's material.
pub(super) fn wall(shape: ShapeSpec) -> WallSpec {
    WallSpec {
        material: "vessel".into(),
        shape,
        surface: Default::default(),
        motion: Motion::Fixed,
        free: None,
    }
}

fn plane(point: DVec3, normal: DVec3) -> ShapeSpec {
    ShapeSpec::Plane {
        point: Some(point),
        normal: Some(normal),
        equation: None,
        both: false,
    }
}

/// The hole of the exit chute: (hole_size, hole_depth) and the directive that gave it.
fn exit_hole(deck: &Deck) -> Option<(f64, f64, &'static str)> {
    let chute = deck.last("exit_chute").map(|d| (d.line, "exit_chute"));
    let recirc = deck.last("recirculate").map(|d| (d.line, "recirculate"));
    let (_, name) = chute.into_iter().chain(recirc).max_by_key(|x| x.0)?;
    let v = deck.nums(name)?;
    Some(match name {
        "exit_chute" => (v[0], v[1], name),
        _ => (v[3], v[4], name),
    })
}

/// Vessel walls, fill region and exit chutes (001 §4.8).
/// Most outlet cones a deck may ask for (each is a cone, a chute and a door).
const MAX_OUTLETS: f64 = 1e4;

pub(super) fn vessel(deck: &Deck, r_peb: f64) -> Result<Vessel> {
    let rv = deck.nums("vessel_radius").unwrap_or_default();
    let (ri, ro) = (rv[0], rv[1]);
    if !(ro > 0.0 && ri >= 0.0 && ri < ro) {
        return Err(deck.error(
            "vessel_radius",
            format!("needs 0 ≤ inside_radius < outside_radius, got {ri} and {ro}"),
        ));
    }
    // A pebble wider than the vessel fits nowhere: packing would search the whole height.
    let room = if ri > 0.0 { 0.5 * (ro - ri) } else { ro };
    if !deck.has("rectangular_vat") && r_peb > room {
        return Err(deck.error(
            "vessel_radius",
            format!("the pebble (radius {r_peb} m) is wider than the vessel between radii {ri} and {ro} m: no pebble fits"),
        ));
    }
    let floor = deck.num("floor_location");
    let mut walls = vec![wall(plane(DVec3::new(0.0, 0.0, floor), DVec3::Z))];
    let mut profile = Vec::new();
    // Checked before the vat's branch, which refuses them.
    let indented = indentations(deck, ro)?;
    let half_xy = if let Some(v) = deck
        .nums("rectangular_vat")
        .filter(|_| deck.has("rectangular_vat"))
    {
        let (xw, yw) = (v[0], v[1]);
        if !(xw > r_peb && yw > r_peb) {
            return Err(deck.error(
                "rectangular_vat",
                format!(
                    "x_wall and y_wall must exceed the pebble radius {r_peb} m, got {xw} and {yw}"
                ),
            ));
        }
        for (p, n) in [
            (DVec3::new(-xw, 0.0, 0.0), DVec3::X),
            (DVec3::new(xw, 0.0, 0.0), DVec3::NEG_X),
            (DVec3::new(0.0, -yw, 0.0), DVec3::Y),
            (DVec3::new(0.0, yw, 0.0), DVec3::NEG_Y),
        ] {
            walls.push(wall(plane(p, n)));
        }
        [xw, yw]
    } else {
        walls.push(wall(match indented {
            Some(indentations) => ShapeSpec::IndentedCylinder {
                radius: ro,
                indentations,
            },
            None => ShapeSpec::Cylinder {
                origin: DVec3::ZERO,
                axis: DVec3::Z,
                radius: ro,
                side: Side::Inside,
                length: None,
            },
        }));
        if ri > 0.0 {
            walls.push(wall(ShapeSpec::Cylinder {
                origin: DVec3::ZERO,
                axis: DVec3::Z,
                radius: ri,
                side: Side::Outside,
                length: None,
            }));
        }
        profile.push([floor, ro]);
        [ro, ro]
    };
    let n_cones = deck.nums("number_of_cones").map_or(1, |v| v[0] as usize);
    if n_cones == 0 {
        return Err(deck.error("number_of_cones", "must be at least 1"));
    }
    // Holes a pebble wide cannot outnumber the pebble discs the floor holds, and each outlet
    // costs walls: refused before they are made.
    let most =
        (4.0 * half_xy[0] * half_xy[1] / (std::f64::consts::PI * r_peb * r_peb)).min(MAX_OUTLETS);
    if n_cones as f64 > most {
        return Err(deck.error(
            "number_of_cones",
            format!(
                "{n_cones} outlets a pebble wide do not fit the vessel's floor (at most {most:.0})"
            ),
        ));
    }
    let mut v = Vessel {
        walls,
        profile,
        inner: ri,
        half_xy,
        bottom: floor,
        chutes: Vec::new(),
        holes: vec![[0.0, 0.0]],
    };
    v.add_outlets(deck, r_peb, ro, n_cones)?;
    v.walls.extend(unions(deck));
    v.bottom = v.bottom.max(floor);
    Ok(v)
}

impl Vessel {
    /// The outlet cones with their chute tubes and doors (001 §4.8), `n_cones` of them in a
    /// cylinder of radius `ro`: the walls, the fill's profile and bottom, the chutes.
    fn add_outlets(&mut self, deck: &Deck, r_peb: f64, ro: f64, n_cones: usize) -> Result<()> {
        let ri = self.inner;
        let hole = exit_hole(deck);
        let Some(c) = deck.nums("cone").filter(|_| deck.has("cone")) else {
            if n_cones > 1 {
                return Err(deck.error(
                    "number_of_cones",
                    "needs a cone: its location and slope make each outlet cone (001 §4.8)",
                ));
            }
            if let Some((_, _, name)) = hole {
                return Err(deck.error(
                    name,
                    "needs a cone: the exit chute's door is at the bottom of the cone (001 §4.8)",
                ));
            }
            return Ok(());
        };
        let (loc, m) = (c[0], c[1]);
        // One cone has the vessel's radius at `location`. Several sit on the circle midway
        // across the vessel (or the annulus), as wide as keeps them from overlapping each
        // other and the walls, under a floor at `location` (001 §4.8 leaves the layout
        // open; docs/pebbles-decks.md).
        let r_top = if n_cones == 1 {
            self.half_xy[0]
        } else {
            if deck.has("rectangular_vat") {
                return Err(deck.error(
                    "number_of_cones",
                    "more than one cone needs the cylindrical vessel (vessel_radius), not a rectangular_vat",
                ));
            }
            let ring = 0.5 * (ri + ro);
            self.holes = (0..n_cones)
                .map(|k| {
                    let a = std::f64::consts::TAU * k as f64 / n_cones as f64;
                    [ring * a.cos(), ring * a.sin()]
                })
                .collect();
            (0.5 * (ro - ri)).min(ring * (std::f64::consts::PI / n_cones as f64).sin())
        };
        if m <= 0.0 {
            return Err(deck.error(
                "cone",
                format!("slope must be > 0 for an outlet cone (0 is a straight wall), got {m}"),
            ));
        }
        let b = r_top - m * loc;
        let (z_end, r_end) = match hole {
            Some((size, _, name)) => {
                let r_h = size * r_peb;
                if !(r_h > r_peb && r_h < r_top) {
                    return Err(deck.error(
                        name,
                        format!("the hole radius hole_size × pebble radius = {r_h} m must lie between the pebble radius and the vessel radius"),
                    ));
                }
                ((r_h - b) / m, r_h)
            }
            None => (-b / m, 0.0),
        };
        // The cones and their chute tubes are one hopper wall, so that each lip is counted
        // once. One cone is a hopper with one hole of the vessel's radius: in the cylinder
        // its floor lies outside the vessel, in a vat it is the flat base around the cone.
        self.walls.push(wall(ShapeSpec::Hopper {
            height: loc,
            centers: self.holes.clone(),
            radius: r_top,
            slope: m,
            bottom: z_end,
            tube: hole.map_or(0.0, |h| h.1.max(0.0)),
        }));
        if n_cones == 1 {
            self.profile = vec![[z_end, r_end], [loc, r_top]];
            self.bottom = z_end;
        } else {
            // The fill stays above the floor; the cones fill as the pebbles settle.
            self.profile = vec![[loc, ro]];
            self.bottom = loc;
        }
        match hole {
            Some((_, depth, name)) => self.add_doors(deck, r_peb, [z_end, r_end], depth, name),
            None => Ok(()),
        }
    }

    /// A door `depth` below the end of each cone (at height z_end, radius r_end), closing its
    /// chute; with one cone, the fill's profile and bottom reach down to it.
    fn add_doors(
        &mut self,
        deck: &Deck,
        r_peb: f64,
        [z_end, r_end]: [f64; 2],
        depth: f64,
        name: &str,
    ) -> Result<()> {
        if depth < 0.0 {
            return Err(deck.error(name, format!("hole_depth must be ≥ 0, got {depth}")));
        }
        let door = z_end - depth;
        for &[x, y] in &self.holes {
            self.walls.push(wall(ShapeSpec::Disk {
                center: DVec3::new(x, y, door),
                normal: DVec3::Z,
                radius: r_end + r_peb,
                inner_radius: 0.0,
            }));
            self.chutes.push(Chute {
                center: [x, y],
                radius: r_end,
                door,
            });
        }
        if self.holes.len() == 1 {
            if depth > 0.0 {
                self.profile.insert(0, [door, r_end]);
            }
            self.bottom = door;
        }
        Ok(())
    }
}

/// The indentation blocks of the geometry section, checked as the wall they cut into the
/// vessel_radius cylinder of radius `ro` (001 §4.7.2); `None` when there are none.
fn indentations(deck: &Deck, ro: f64) -> Result<Option<Vec<Indentation>>> {
    let Some(first) = deck.geometry.indentations.first() else {
        return Ok(None);
    };
    let at = |line: usize, message: String| Error::Parse {
        path: format!("{}:{line}", deck.origin),
        message: format!("start_indentation: {message}"),
    };
    if deck.has("rectangular_vat") {
        return Err(at(
            first.line,
            "indentations are cut into the vessel_radius wall only (001 §4.7.2), not a rectangular_vat".into(),
        ));
    }
    let mut blocks = Vec::new();
    for i in &deck.geometry.indentations {
        let min_max = i
            .min_max
            .ok_or_else(|| at(i.line, "needs min_max and at least one row".into()))?;
        let block = Indentation {
            pattern: i.pattern.clone(),
            min_max,
            rows: i.rows.clone(),
        };
        let mut problems = Vec::new();
        ShapeSpec::IndentedCylinder {
            radius: ro,
            indentations: vec![block.clone()],
        }
        .problems("", &mut problems);
        if let Some(Error::Scene { field, reason }) = problems.first() {
            let field = field.strip_prefix(".indentations[0].").unwrap_or(field);
            return Err(at(i.line, format!("{field}: {reason}")));
        }
        blocks.push(block);
    }
    Ok(Some(blocks))
}

/// The unions of the geometry section as walls; pebbles stay outside each solid.
fn unions(deck: &Deck) -> Vec<WallSpec> {
    deck.geometry
        .unions
        .iter()
        .filter(|(_, u)| !u.is_empty())
        .map(|(_, u)| {
            let members = u
                .iter()
                .flat_map(|s| match *s {
                    Solid::Block { min, max } => vec![ShapeSpec::Block {
                        min,
                        max,
                        side: None,
                    }],
                    // A solid finite cylinder: its mantle and two end disks.
                    Solid::Cylinder { radius, center, z } => {
                        let disk = |zz: f64| ShapeSpec::Disk {
                            center: DVec3::new(center[0], center[1], zz),
                            normal: DVec3::Z,
                            radius,
                            inner_radius: 0.0,
                        };
                        vec![
                            ShapeSpec::Cylinder {
                                origin: DVec3::new(center[0], center[1], 0.5 * (z[0] + z[1])),
                                axis: DVec3::Z,
                                radius,
                                side: Side::Both,
                                length: Some(z[1] - z[0]),
                            },
                            disk(z[0]),
                            disk(z[1]),
                        ]
                    }
                    Solid::Plane(e) => vec![ShapeSpec::Plane {
                        point: None,
                        normal: None,
                        equation: Some(e),
                        both: false,
                    }],
                })
                .collect();
            wall(ShapeSpec::Union { members })
        })
        .collect()
}
