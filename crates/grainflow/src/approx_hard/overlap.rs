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
/// or a ghost) with the partner's particle, or a particle and a member of a wall.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Near {
    Pair(u32, u32, u32),
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
                out.push(Near::Pair(i as u32, j, k as u32));
            }
        }
    }
}

/// What a correction reads and moves, and what it knows of the near pairs: each grain's count
/// of moves at its last move, and for each near pair whose last try moved nothing, the count
/// then and the overlap ratio that try put into the sweep's worst (0 for none). Such a pair,
/// its grains unmoved since, would find the same again: it is not tried, only its ratio
/// counted, so a sweep makes the same moves in the same order and finds the same worst.
struct Sweep<'a> {
    pos: &'a mut [DVec3],
    radius: &'a [f64],
    inv_mass: &'a [f64],
    nl: &'a mut NeighborList,
    periodic: &'a Periodic,
    walls: &'a [Wall],
    poses: &'a [Pose],
    tol: f64,
    push: f64,
    moves: u64,
    moved_at: Vec<u64>,
    idle: Vec<Option<(u64, f64)>>,
}

impl Sweep<'_> {
    /// Tries near pair `e`, `c`: moves its grains apart if they overlap, updates `worst`.
    fn try_pair(&mut self, e: usize, c: Near, worst: &mut (f64, usize)) {
        let (i, k) = match c {
            Near::Pair(i, _, k) => (i as usize, k as usize),
            Near::Wall(i, ..) => (i as usize, i as usize),
        };
        if let Some((at, ratio)) = self.idle[e] {
            if self.moved_at[i] <= at && self.moved_at[k] <= at {
                if ratio > worst.0 {
                    *worst = (ratio, i);
                }
                return;
            }
        }
        let (ratio, moved) = match c {
            Near::Wall(_, w, m) => self.wall(i, w as usize, m as usize),
            Near::Pair(_, j, _) => self.pair(i, j as usize),
        };
        if let Some(ratio) = ratio {
            if ratio > worst.0 {
                *worst = (ratio, i);
            }
        }
        self.idle[e] = (!moved).then_some((self.moves, ratio.unwrap_or(0.0)));
    }

    /// Grain `i` out of member `m` of wall `w`: the overlap ratio if they touch, and whether
    /// the grain moved.
    fn wall(&mut self, i: usize, w: usize, m: usize) -> (Option<f64>, bool) {
        let pose = &self.poses[w];
        let shape = &self.walls[w].shape.members()[m];
        let Some(c) = shape.contact(pose.to_local(self.pos[i]), self.radius[i]) else {
            return (None, false);
        };
        let ratio = c.overlap / self.radius[i];
        // Only past round-off: a grain left exactly touching stays.
        let moved = ratio > 0.01 * self.tol;
        if moved {
            self.pos[i] -= (pose.rotation * c.normal) * (self.push * c.overlap);
            self.moves += 1;
            self.moved_at[i] = self.moves;
        }
        (Some(ratio), moved)
    }

    /// Grain `i` and listed partner `j` apart (eq 1–2): the overlap ratio if they were moved,
    /// and whether they were.
    fn pair(&mut self, i: usize, j: usize) -> (Option<f64>, bool) {
        let period = self.periodic.lengths();
        let (j, d) = self.nl.separation(i, j, self.pos, period);
        let (r, w) = (self.radius, self.inv_mass);
        let r_min = r[i].min(r[j]);
        let floor = 0.01 * self.tol * r_min;
        let Some((di, dj, delta)) = separation(d, r[i], r[j], w[i], w[j], floor) else {
            return (None, false);
        };
        self.moves += 1;
        for (k, dk) in [(i, di), (j, dj)] {
            let raw = self.pos[k] + self.push * dk;
            self.pos[k] = self.periodic.wrap(raw);
            if let Some(g) = self.nl.ghosts.as_mut() {
                g.count_wrap(k, raw, self.pos[k], period);
            }
            self.moved_at[k] = self.moves;
        }
        (Some(delta / r_min), true)
    }
}

/// Removes overlaps between the listed pairs and with the normal walls (at their `poses`) until
/// none above `tol` × the smaller radius remains, or `max_sweeps` sweeps were made. Each move is
/// `push` times that of eq 1–2: 1 puts the grains at contact (the step's correction); more
/// leaves a gap and speeds up the relaxation of a dense pack (successive over-relaxation).
///
/// Sweeps visit only the pairs closer than a margin of 2 % of the smallest radius, re-collected
/// whenever a particle has moved by half the margin; they alternate forwards and backwards
/// (symmetric Gauss–Seidel), which carries a correction across a pack in both directions. A
/// pair whose last try moved nothing and whose grains have not moved since is not tried again
/// ([`Sweep`]): the same moves, fewer distances.
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
    let n = pos.len();
    let mut s = Sweep {
        pos,
        radius,
        inv_mass,
        nl,
        periodic,
        walls,
        poses,
        tol,
        push,
        moves: 0,
        moved_at: vec![0; n],
        idle: vec![None; near.len()],
    };
    while out.sweeps < max_sweeps {
        let forward = out.sweeps % 2 == 0;
        out.sweeps += 1;
        let mut worst = (0.0f64, 0usize);
        for k in 0..near.len() {
            let e = if forward { k } else { near.len() - 1 - k };
            s.try_pair(e, near[e], &mut worst);
        }
        if out.sweeps == 1 {
            out.largest = worst.0;
        }
        (out.remaining, out.worst) = worst;
        let moved = s.pos.iter().zip(&reference).any(|(x, r)| {
            Periodic::minimum_image(*x - *r, period).length_squared() > 0.25 * margin * margin
        });
        if moved {
            // Pairs outside the margin may have come close: collect again, sweep again.
            reference.copy_from_slice(s.pos);
            near_pairs(
                s.pos, radius, inv_mass, s.nl, period, walls, poses, margin, &mut near,
            );
            s.idle.clear();
            s.idle.resize(near.len(), None);
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
