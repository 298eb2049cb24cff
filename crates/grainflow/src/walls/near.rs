//! Near lists: per grain, the wall members that may touch it until the next neighbour
//! rebuild, so that the wall pass and the sticky and absorbing surfaces skip the rest.

use glam::DVec3;
use rayon::prelude::*;

use std::ops::Range;

use super::history::WallMember;
use super::{InnerHint, Pose, Wall};
use crate::boundary::Periodic;
use crate::simd::prefetch;

/// Per particle, the members of walls that stay in place or move without turning
/// ([`listable`]) closer than its radius plus the skin at the build (compressed rows: each
/// listed member is a slot). Until the next neighbour rebuild no particle moves more than half
/// the skin, nor does any such wall ([`NearWalls::outrun`]), so a member not listed cannot
/// touch it: the step skips it. The wall contact history may keep the histories of the listed
/// members slot by slot ([`super::history::WallHistory`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NearWalls {
    /// Per particle, its first slot; one more at the end.
    start: Vec<u32>,
    /// Each slot's member.
    members: Vec<WallMember>,
    /// Per slot, when its member is a part of a mesh whose grid cells are all inner within
    /// the grain's radius plus the skin of where it was at the build, its entry in `hints`
    /// ([`super::Shape::inner_hint`]: until the next build its contact is then
    /// [`super::Shape::contact_inner`]), else [`NOT_INNER`].
    inner: Vec<u32>,
    /// The hints of the slots `inner` names, in slot order: a step reads them in turn.
    hints: Vec<InnerHint>,
    /// The particles with a member listed, ascending.
    listed: Vec<u32>,
    /// Per wall, its offset at the build when it is listed and moves
    /// ([`super::Motion::translates`]).
    offset: Vec<Option<DVec3>>,
    /// Half the skin the lists were built with (m).
    half_skin: f64,
}

/// A slot whose member is not met by [`super::Shape::contact_inner`].
const NOT_INNER: u32 = u32::MAX;

impl NearWalls {
    /// The particles with a member listed, ascending, when the list was built for `n` particles.
    #[inline]
    pub fn listed(&self, n: usize) -> Option<&[u32]> {
        (self.start.len() == n + 1).then_some(self.listed.as_slice())
    }

    /// Whether a wall listed as it moves has gone half the skin or more since the build, at
    /// the walls' `poses`: with a grain gone up to half the skin, a member not listed could
    /// then touch it, so the lists must be built again.
    pub fn outrun(&self, poses: &[Pose]) -> bool {
        self.offset.iter().zip(poses).any(|(at_build, pose)| {
            at_build.is_some_and(|o| (pose.offset - o).length() >= self.half_skin)
        })
    }

    /// Drops the members of the walls `drop` names (free bodies, met by a pass of their own)
    /// from every row.
    pub(crate) fn without(&mut self, drop: impl Fn(usize) -> bool) {
        let mut kept = Vec::with_capacity(self.members.len());
        let mut inner = Vec::with_capacity(self.inner.len());
        let mut hints = Vec::with_capacity(self.hints.len());
        let mut start = Vec::with_capacity(self.start.len());
        start.push(0);
        self.listed.clear();
        for k in 0..self.start.len().saturating_sub(1) {
            let (a, b) = (self.start[k] as usize, self.start[k + 1] as usize);
            let before = kept.len();
            for (m, &i) in self.members[a..b].iter().zip(&self.inner[a..b]) {
                if !drop(m.wall()) {
                    kept.push(*m);
                    inner.push(push_hint(&mut hints, self.hint(i).copied()));
                }
            }
            if kept.len() > before {
                self.listed.push(k as u32);
            }
            start.push(kept.len() as u32);
        }
        self.members = kept;
        self.inner = inner;
        self.hints = hints;
        self.start = start;
    }

    /// The first history slot of particle `k`'s listed members.
    #[inline]
    pub fn first_slot(&self, k: usize) -> usize {
        self.start[k] as usize
    }

    /// The history slots of particle `k`'s listed members, and the members.
    #[inline]
    pub(crate) fn row(&self, k: usize) -> (Range<usize>, &[WallMember]) {
        let (a, b) = (self.start[k] as usize, self.start[k + 1] as usize);
        (a..b, &self.members[a..b])
    }

    /// Per history slot of `slots`, the entry of its member's hint when it is a mesh part met
    /// by [`super::Shape::contact_inner`] until the next build ([`NearWalls::hint`]).
    #[inline]
    pub(crate) fn inner(&self, slots: Range<usize>) -> &[u32] {
        &self.inner[slots]
    }

    /// Whether some listed member is met by [`super::Shape::contact_inner`] until the next
    /// build (has a hint, [`NearWalls::inner`]); else no slot has one.
    #[inline]
    pub(crate) fn some_inner(&self) -> bool {
        !self.hints.is_empty()
    }

    /// The hint of entry `i` ([`NearWalls::inner`]); `None` for a slot that has none.
    #[inline(always)]
    pub(crate) fn hint(&self, i: u32) -> Option<&InnerHint> {
        self.hints.get(i as usize)
    }

    /// Asks for particle `k`'s row ahead of its use ([`prefetch`]); its first slot.
    #[inline(always)]
    pub(crate) fn ask_ahead(&self, k: usize) -> Option<usize> {
        prefetch(self.start.as_ptr().wrapping_add(k));
        let a = *self.start.get(k)? as usize;
        prefetch(self.members.as_ptr().wrapping_add(a));
        Some(a)
    }

    /// Every listed member, slot by slot.
    #[inline]
    pub(crate) fn members(&self) -> &[WallMember] {
        &self.members
    }

    /// The listed members near particle `k`, or `None` when the list was not built for it.
    #[inline]
    pub(crate) fn of(&self, k: usize) -> Option<&[WallMember]> {
        let (a, b) = (*self.start.get(k)?, *self.start.get(k + 1)?);
        Some(&self.members[a as usize..b as usize])
    }
}

/// Whether the near lists take the members of `wall`: it stays in place, or moves without
/// turning (its distance to a grain then changes by no more than its offset).
pub fn listable(wall: &Wall) -> bool {
    wall.motion.keeps_in_place(&wall.shape) || wall.motion.translates()
}

/// The members of [`listable`] walls, placed where they are at `time` (s), within
/// `radius + skin` of each particle, or of its image across a periodic face it lies within a
/// skin of: such a grain may be wrapped to the other side before the next build, a move the
/// rebuild check (by minimum image) does not count, and walls are not periodic.
pub fn near_walls(
    walls: &[Wall],
    pos: &[DVec3],
    radius: &[f64],
    skin: f64,
    periodic: &Periodic,
    time: f64,
) -> NearWalls {
    let axes = periodic.axes();
    // Each listed wall's pose at the build and whether it moves (then it is met in that
    // placement, and its offset is what `outrun` measures from).
    let placed: Vec<Option<(Pose, bool)>> = walls
        .iter()
        .map(|w| {
            let moves = !w.motion.keeps_in_place(&w.shape);
            listable(w).then(|| (w.motion.pose(time), moves))
        })
        .collect();
    let offset = placed
        .iter()
        .map(|p| p.filter(|&(_, moves)| moves).map(|(pose, _)| pose.offset))
        .collect();
    let rows: Vec<Vec<(WallMember, Option<InnerHint>)>> = pos
        .par_iter()
        .zip(radius.par_iter())
        .with_min_len(crate::particles::MIN_LEN)
        .map(|(&x, &r)| {
            // x and its images across the faces it is near: up to 8 at a corner.
            let mut images = [x; 8];
            let mut count = 1;
            for (k, axis) in axes.iter().enumerate() {
                let Some([lo, hi]) = *axis else { continue };
                let shift = if x[k] - lo < skin {
                    hi - lo
                } else if hi - x[k] < skin {
                    lo - hi
                } else {
                    continue;
                };
                for i in 0..count {
                    images[count + i] = images[i];
                    images[count + i][k] += shift;
                }
                count *= 2;
            }
            let mut row = Vec::new();
            for (w, (wall, placed)) in walls.iter().zip(&placed).enumerate() {
                let Some((pose, moves)) = *placed else {
                    continue;
                };
                let local = |p: DVec3| if moves { pose.to_local(p) } else { p };
                for (m, shape) in wall.shape.members().iter().enumerate() {
                    if images[..count]
                        .iter()
                        .any(|&p| shape.may_touch(local(p), r + skin))
                    {
                        // Relative to the wall the grain moves less than the skin before
                        // the next build (half by itself, half by the wall).
                        let hint = (count == 1)
                            .then(|| shape.inner_hint(local(x), r, skin))
                            .flatten();
                        row.push((WallMember::new(w, m), hint));
                    }
                }
            }
            row
        })
        .collect();
    let mut near = NearWalls {
        start: Vec::with_capacity(pos.len() + 1),
        members: Vec::new(),
        inner: Vec::new(),
        hints: Vec::new(),
        listed: Vec::new(),
        offset,
        half_skin: 0.5 * skin,
    };
    near.start.push(0);
    for (k, row) in rows.into_iter().enumerate() {
        if !row.is_empty() {
            near.listed.push(k as u32);
        }
        near.members.extend(row.iter().map(|e| e.0));
        for e in row {
            near.inner.push(push_hint(&mut near.hints, e.1));
        }
        near.start.push(near.members.len() as u32);
    }
    near
}

/// Appends `hint` to `hints`, when there is one: its entry, else [`NOT_INNER`].
fn push_hint(hints: &mut Vec<InnerHint>, hint: Option<InnerHint>) -> u32 {
    let Some(hint) = hint else {
        return NOT_INNER;
    };
    hints.push(hint);
    hints.len() as u32 - 1
}

#[cfg(test)]
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::walls::{Motion, Plane, Shape, Surface};

    /// A floor at height `z` with `motion`.
    pub(crate) fn floor(z: f64, motion: Motion) -> Wall {
        Wall {
            shape: Shape::Plane(Plane {
                point: DVec3::new(0.0, 0.0, z),
                normal: DVec3::Z,
                both: false,
            }),
            material: 0,
            surface: Surface::Normal,
            motion,
        }
    }

    #[test]
    fn near_lists_see_across_the_periodic_faces_a_grain_may_wrap_through() {
        // A floor at z = 0.05 in a box periodic along z from 0 to 1; spheres of radius 0.1,
        // skin 0.05. The grain at z = 0.97 lies within a skin of the upper face: wrapped, it
        // would be at −0.03, touching the floor, before the rebuild check (by minimum image)
        // sees it move; it must be listed. The grain at z = 0.5 must not.
        let walls = [floor(0.05, Motion::Fixed)];
        let periodic = Periodic {
            z: Some([0.0, 1.0]),
            ..Periodic::default()
        };
        let pos = [0.97, 0.5].map(|z| DVec3::new(0.3, 0.3, z));
        let near = near_walls(&walls, &pos, &[0.1; 2], 0.05, &periodic, 0.0);
        assert_eq!(near.of(0), Some(&[WallMember::new(0, 0)][..]));
        assert_eq!(near.of(1), Some(&[][..]));
        let open = near_walls(&walls, &pos, &[0.1; 2], 0.05, &Periodic::default(), 0.0);
        assert_eq!(open.of(0), Some(&[][..]));
    }

    #[test]
    fn every_member_a_grain_touches_is_listed_near_it_as_the_floor_vibrates() {
        // The vibrated bed with its floor oscillating by 1.5 mm at 140 rad/s (3 g, as the
        // scene's 0.3 mm at 314 rad/s), nearly four times its skin of 0.4 mm both ways: after
        // every step, every member of every wall touching a grain where it is now must be
        // listed near it, or the step would have missed the contact.
        let toml = include_str!("../../../../scenes/vibrated-bed.toml").replace(
            "amplitude = 3e-4, frequency = 314.16",
            "amplitude = 1.5e-3, frequency = 140.0",
        );
        let scene = crate::scene::Scene::from_toml(&toml, "vibrated-bed").expect("parses");
        let mut sim =
            crate::sim::Simulation::new(scene, std::path::Path::new(".")).expect("builds");
        let (mut checked, mut floor) = (0, 0);
        for _ in 0..3000 {
            sim.step().expect("steps");
            let w = &sim.world;
            let p = &w.particles;
            for k in 0..p.len() {
                let near = w.wall_history.near().of(k).expect("built for these grains");
                for (i, wall) in w.walls.iter().enumerate() {
                    let pose = &w.wall_runtime.pose[i];
                    for (m, shape) in wall.shape.members().iter().enumerate() {
                        if shape
                            .contact(pose.to_local(p.pos[k]), p.radius[k])
                            .is_some()
                        {
                            assert!(
                                near.contains(&WallMember::new(i, m)),
                                "grain {k}, wall {i} at t = {}",
                                w.time
                            );
                            checked += 1;
                            floor += usize::from(i == 1);
                        }
                    }
                }
            }
        }
        assert!(
            checked > 50_000 && floor > 40_000,
            "{checked} contacts, {floor} with the floor"
        );
    }

    /// A turn about the x axis through the origin: a floor through it does not keep in place.
    pub(crate) fn turning() -> Motion {
        Motion::Rotate {
            center: DVec3::ZERO,
            axis: DVec3::X,
            omega: 1.0,
            start: 0.0,
            ramp: 0.0,
        }
    }

    #[test]
    fn near_lists_hold_the_still_members_within_radius_plus_skin() {
        // Floors at z = 0 (fixed), z = 0.5 (fixed) and z = 0 (turning: always checked, never
        // listed); spheres of radius 0.1 with a skin of 0.05 at heights 0.12, 0.16 and 0.3.
        let walls = [
            floor(0.0, Motion::Fixed),
            floor(0.5, Motion::Fixed),
            floor(0.0, turning()),
        ];
        let pos = [0.12, 0.16, 0.3].map(|z| DVec3::new(0.0, 0.0, z));
        let near = near_walls(&walls, &pos, &[0.1; 3], 0.05, &Periodic::default(), 0.0);
        // Every height is below the plane at z = 0.5, whose grains sit on top of it: all touch.
        assert_eq!(
            near.of(0),
            Some(&[WallMember::new(0, 0), WallMember::new(1, 0)][..])
        );
        assert_eq!(near.of(1), Some(&[WallMember::new(1, 0)][..]));
        assert_eq!(near.of(2), Some(&[WallMember::new(1, 0)][..]));
        assert_eq!(near.of(3), None);
        assert!(!near.outrun(&[Pose::default(); 3]));
    }

    #[test]
    fn near_lists_follow_a_wall_that_moves_without_turning_until_it_has_gone_half_the_skin() {
        // A floor sliding along z at 1 m/s from t = 0.5 s (at 0.5 by t = 1 s) and one
        // oscillating along z with amplitude 0.2 (at 0.2 by t = π/2 s); spheres of radius 0.1,
        // skin 0.05. Built at t = 1 the sliding floor is at z = 0.5: the grain at 0.64 is
        // near it, the one at 0.7 is not; built at t = 0 it is at 0 and neither is.
        let walls = [
            floor(
                0.0,
                Motion::Translate {
                    velocity: DVec3::Z,
                    start: 0.5,
                },
            ),
            floor(
                -2.0,
                Motion::Oscillate {
                    amplitude: 0.2,
                    frequency: 1.0,
                    direction: DVec3::Z,
                },
            ),
        ];
        let pos = [0.64, 0.7].map(|z| DVec3::new(0.0, 0.0, z));
        let at = |t: f64| near_walls(&walls, &pos, &[0.1; 2], 0.05, &Periodic::default(), t);
        assert_eq!(at(1.0).of(0), Some(&[WallMember::new(0, 0)][..]));
        assert_eq!(at(1.0).of(1), Some(&[][..]));
        assert_eq!(at(0.0).of(0), Some(&[][..]));
        // Built at t = 1, the lists hold while each wall has gone less than half the skin.
        let near = at(1.0);
        let poses = |t: f64| [&walls[0], &walls[1]].map(|w| w.motion.pose(t));
        assert!(!near.outrun(&poses(1.0)));
        assert!(!near.outrun(&poses(1.024)));
        assert!(near.outrun(&poses(1.026)));
        // The oscillating floor alone: at t = 1 it is at 0.2 sin 1 = 0.16829; it has gone
        // 0.2 sin 1.3 − 0.16829 = 0.02442 by t = 1.3 and 0.02533 by t = 1.32.
        let near = near_walls(
            &walls[1..],
            &pos,
            &[0.1; 2],
            0.05,
            &Periodic::default(),
            1.0,
        );
        let pose = |t: f64| [walls[1].motion.pose(t)];
        assert!(!near.outrun(&pose(1.3)));
        assert!(near.outrun(&pose(1.32)));
    }
}
