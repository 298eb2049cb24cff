//! Overlap correction of seed 004 eq 1–2 (as restored in `seeds/README.md`).
//!
//! Grains i, j of radii R_i, R_j and masses m_i, m_j at distance d, with n̂ from i to j and
//! overlap δ = R_i + R_j − d, are moved apart along n̂ to touching, their centre of mass kept:
//! x_i −= m_j/(m_i + m_j) δ n̂ (eq 1), x_j += m_i/(m_i + m_j) δ n̂ (eq 2). Written with inverse
//! masses w = 1/m these weights are w_i/(w_i + w_j) and w_j/(w_i + w_j), so a fixed grain
//! (w = 0) stays and its partner takes the whole move. A grain overlapping a wall is moved out
//! along the wall's normal by the overlap (the wall as an infinitely heavy grain, 004 §II).
//!
//! Moving one pair apart can press another together, so the pairs are swept in a fixed order
//! (particle by particle: its walls, then its row of the neighbour list) until a sweep finds
//! no overlap above the tolerance; the moves are sequential, hence independent of the threads.

use glam::DVec3;

use crate::boundary::Periodic;
use crate::neighbor::NeighborList;
use crate::walls::{Pose, Surface, Wall};

/// Outcome of a correction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Correction {
    /// Sweeps made.
    pub sweeps: usize,
    /// Largest overlap found in the first sweep, over the smaller radius (what was corrected).
    pub largest: f64,
    /// Largest overlap found in the last sweep, over the smaller radius: at most the tolerance
    /// when the correction converged.
    pub remaining: f64,
    /// Particle with the `remaining` overlap.
    pub worst: usize,
}

/// Moves of eq 1–2 for one pair at separation `d` = x_j − x_i (minimum image), radii and
/// inverse masses; `None` unless they overlap by more than `floor` (m) and one can move.
#[inline]
pub fn separation(
    d: DVec3,
    r_i: f64,
    r_j: f64,
    w_i: f64,
    w_j: f64,
    floor: f64,
) -> Option<(DVec3, DVec3, f64)> {
    let reach = r_i + r_j;
    let d2 = d.length_squared();
    if d2 >= reach * reach || d2 == 0.0 || w_i + w_j == 0.0 {
        return None;
    }
    let dist = d2.sqrt();
    let delta = reach - dist;
    if delta <= floor {
        return None;
    }
    let n = d / dist;
    let w = w_i + w_j;
    Some((-(w_i / w * delta) * n, (w_j / w * delta) * n, delta))
}

/// A pair that may overlap during a correction: a particle and a listed partner (a particle
/// or a ghost), or a particle and a member of a wall.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Near {
    Pair(u32, u32),
    Wall(u32, u32, u32),
}

/// The listed pairs and particle–wall pairs closer than `margin` (m), in particle order.
#[allow(clippy::too_many_arguments)]
fn near_pairs(
    pos: &[DVec3],
    radius: &[f64],
    inv_mass: &[f64],
    nl: &NeighborList,
    period: DVec3,
    walls: &[Wall],
    poses: &[Pose],
    margin: f64,
    out: &mut Vec<Near>,
) {
    out.clear();
    for i in 0..pos.len() {
        if inv_mass[i] > 0.0 {
            for (w, wall) in walls.iter().enumerate() {
                if wall.surface != Surface::Normal {
                    continue;
                }
                for (m, shape) in wall.shape.members().iter().enumerate() {
                    if shape.may_touch(poses[w].to_local(pos[i]), radius[i] + margin) {
                        out.push(Near::Wall(i as u32, w as u32, m as u32));
                    }
                }
            }
        }
        for &j in &nl.partner[nl.start[i]..nl.start[i + 1]] {
            let (k, d) = nl.separation(i, j as usize, pos, period);
            if inv_mass[i] == 0.0 && inv_mass[k] == 0.0 {
                continue;
            }
            let reach = radius[i] + radius[k] + margin;
            if d.length_squared() < reach * reach {
                out.push(Near::Pair(i as u32, j));
            }
        }
    }
}

/// Removes overlaps between the listed pairs and with the normal walls (at their `poses`) until
/// none above `tol` × the smaller radius remains, or `max_sweeps` sweeps were made. Each move is
/// `push` times that of eq 1–2: 1 puts the grains at contact (the step's correction); more
/// leaves a gap and speeds up the relaxation of a dense pack (successive over-relaxation).
///
/// Sweeps visit only the pairs closer than a margin of 2 % of the smallest radius, re-collected
/// whenever a particle has moved by half the margin; they alternate forwards and backwards
/// (symmetric Gauss–Seidel), which carries a correction across a pack in both directions.
#[allow(clippy::too_many_arguments)]
pub fn remove_overlaps(
    pos: &mut [DVec3],
    radius: &[f64],
    inv_mass: &[f64],
    nl: &mut NeighborList,
    periodic: &Periodic,
    walls: &[Wall],
    poses: &[Pose],
    tol: f64,
    max_sweeps: usize,
    push: f64,
) -> Correction {
    let period = periodic.lengths();
    let mut out = Correction::default();
    let margin = 0.02 * radius.iter().copied().fold(f64::INFINITY, f64::min);
    let mut near = Vec::new();
    let mut reference = pos.to_vec();
    near_pairs(
        pos, radius, inv_mass, nl, period, walls, poses, margin, &mut near,
    );
    while out.sweeps < max_sweeps {
        let forward = out.sweeps % 2 == 0;
        out.sweeps += 1;
        let mut worst = (0.0f64, 0usize);
        for k in 0..near.len() {
            let c = near[if forward { k } else { near.len() - 1 - k }];
            match c {
                Near::Wall(i, w, m) => {
                    let (i, w) = (i as usize, w as usize);
                    let pose = &poses[w];
                    let shape = &walls[w].shape.members()[m as usize];
                    if let Some(c) = shape.contact(pose.to_local(pos[i]), radius[i]) {
                        let ratio = c.overlap / radius[i];
                        if ratio > worst.0 {
                            worst = (ratio, i);
                        }
                        // Only past round-off: a grain left exactly touching stays.
                        if ratio > 0.01 * tol {
                            pos[i] -= (pose.rotation * c.normal) * (push * c.overlap);
                        }
                    }
                }
                Near::Pair(i, j) => {
                    let i = i as usize;
                    let (j, d) = nl.separation(i, j as usize, pos, period);
                    let r_min = radius[i].min(radius[j]);
                    if let Some((di, dj, delta)) = separation(
                        d,
                        radius[i],
                        radius[j],
                        inv_mass[i],
                        inv_mass[j],
                        0.01 * tol * r_min,
                    ) {
                        if delta / r_min > worst.0 {
                            worst = (delta / r_min, i);
                        }
                        for (k, dk) in [(i, di), (j, dj)] {
                            let raw = pos[k] + push * dk;
                            pos[k] = periodic.wrap(raw);
                            if let Some(g) = nl.ghosts.as_mut() {
                                g.count_wrap(k, raw, pos[k], period);
                            }
                        }
                    }
                }
            }
        }
        if out.sweeps == 1 {
            out.largest = worst.0;
        }
        (out.remaining, out.worst) = worst;
        let moved = pos.iter().zip(&reference).any(|(x, r)| {
            Periodic::minimum_image(*x - *r, period).length_squared() > 0.25 * margin * margin
        });
        if moved {
            // Pairs outside the margin may have come close: collect again, sweep again.
            reference.copy_from_slice(pos);
            near_pairs(
                pos, radius, inv_mass, nl, period, walls, poses, margin, &mut near,
            );
            continue;
        }
        if worst.0 <= tol {
            break;
        }
    }
    out
}

/// Largest overlap of any listed pair or any particle with a normal wall, over the smaller
/// radius, and the particle it involves: an independent check of `remove_overlaps`.
pub fn max_overlap(
    pos: &[DVec3],
    radius: &[f64],
    nl: &NeighborList,
    periodic: &Periodic,
    walls: &[Wall],
    poses: &[Pose],
) -> (f64, usize) {
    let period = periodic.lengths();
    let mut worst = (0.0f64, 0usize);
    for i in 0..pos.len() {
        for &j in &nl.partner[nl.start[i]..nl.start[i + 1]] {
            let (j, d) = nl.separation(i, j as usize, pos, period);
            let d = d.length();
            let ratio = (radius[i] + radius[j] - d) / radius[i].min(radius[j]);
            if ratio > worst.0 {
                worst = (ratio, i);
            }
        }
        for (w, wall) in walls.iter().enumerate() {
            if wall.surface != Surface::Normal {
                continue;
            }
            for shape in wall.shape.members() {
                if let Some(c) = shape.contact(poses[w].to_local(pos[i]), radius[i]) {
                    if c.overlap / radius[i] > worst.0 {
                        worst = (c.overlap / radius[i], i);
                    }
                }
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_1_2_keep_the_centre_of_mass_and_touch() {
        // m_i = 1, m_j = 3 at distance 1.5 with R_i + R_j = 2: δ = 0.5, moves 3/4 δ and 1/4 δ.
        let (xi, xj) = (DVec3::ZERO, DVec3::new(1.5, 0.0, 0.0));
        let (di, dj, delta) = separation(xj - xi, 1.0, 1.0, 1.0, 1.0 / 3.0, 0.0).expect("overlaps");
        assert!((delta - 0.5).abs() < 1e-15);
        assert!((di.x + 0.375).abs() < 1e-15 && (dj.x - 0.125).abs() < 1e-15);
        let com = |a: DVec3, b: DVec3| (a + 3.0 * b) / 4.0;
        assert!((com(xi + di, xj + dj) - com(xi, xj)).length() < 1e-15);
        assert!(((xj + dj - xi - di).length() - 2.0).abs() < 1e-15);
        // A fixed partner (w = 0) stays put.
        let (di, dj, _) = separation(xj - xi, 1.0, 1.0, 0.0, 1.0, 0.0).expect("overlaps");
        assert_eq!(di, DVec3::ZERO);
        assert!((dj.x - 0.5).abs() < 1e-15);
        assert!(separation(DVec3::new(2.5, 0.0, 0.0), 1.0, 1.0, 1.0, 1.0, 0.0).is_none());
    }
}
