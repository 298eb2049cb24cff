//! Wall contact history: the state of every contact between a grain and a member of a wall,
//! keyed by (wall, member, particle), and the near lists that say which members may touch
//! each grain until the next neighbour rebuild.
//!
//! A grain's contacts live in one of two places. When every wall is [`listable`], the
//! history of each listed (particle, member) sits in a run slot by slot with the near lists
//! ([`NearWalls`]), so that the soft-sphere wall pass reads the histories of the grains it
//! visits in the order it visits them, one run, not one list per grain elsewhere; the rest,
//! and every contact when some wall is not listable, sit in the grain's own small list, in
//! the order they formed. Readers see one store: [`WallHistory::contacts`].

use rayon::prelude::*;

use super::near::{listable, NearWalls};
use super::{Wall, MAX_UNION_MEMBERS};
use crate::contact::ContactState;
use crate::particles::permute;
use crate::particles::MIN_LEN;

/// One member of one wall (a part of a union, hopper or indented cylinder; a plain wall has
/// the one member 0): with the particle, what a wall contact's history is kept under.
/// Ordered by wall, then member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WallMember(u32);

impl WallMember {
    /// Member `member` of wall `wall`; a wall has at most [`MAX_UNION_MEMBERS`] members.
    #[inline]
    pub fn new(wall: usize, member: usize) -> Self {
        debug_assert!(member < MAX_UNION_MEMBERS, "member {member} of wall {wall}");
        WallMember(((wall as u32) << 8) | member as u32)
    }

    /// The wall's index.
    #[inline]
    pub fn wall(self) -> usize {
        (self.0 >> 8) as usize
    }

    /// The member's index in its wall.
    #[inline]
    pub fn member(self) -> usize {
        (self.0 & 0xff) as usize
    }

    /// As checkpoints and PEBBLES saves write it: the wall's index times 256 plus the
    /// member's.
    #[inline]
    pub fn to_bits(self) -> u32 {
        self.0
    }

    /// The member that [`WallMember::to_bits`] wrote.
    #[inline]
    pub fn from_bits(bits: u32) -> Self {
        WallMember(bits)
    }
}

/// Every wall contact history of the world, and the near lists (see the module's doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WallHistory {
    /// Per particle, its contacts not held beside the near lists.
    own: Vec<Vec<(WallMember, ContactState)>>,
    /// Which members may touch each grain until the next neighbour rebuild.
    near: NearWalls,
    /// The history of each listed member, slot by slot with `near`, when `holds` (else
    /// empty); a member the grain does not touch has the default (not touching).
    held: Vec<ContactState>,
    /// Whether `held` holds the histories of the listed members ([`WallHistory::take_up`]).
    holds: bool,
}

/// The wall history as the soft-sphere wall pass reads and writes it
/// ([`WallHistory::lend`]).
pub(crate) struct Lent<'a> {
    /// The near lists.
    pub near: &'a NearWalls,
    /// The histories held slot by slot with the near lists, when they are held there.
    pub held: Option<&'a mut [ContactState]>,
    /// Each particle's own list.
    pub own: &'a mut [Vec<(WallMember, ContactState)>],
}

impl WallHistory {
    /// No contact for `n` particles, and no near lists.
    pub fn new(n: usize) -> Self {
        WallHistory {
            own: vec![Vec::new(); n],
            ..WallHistory::default()
        }
    }

    /// The near lists of the last neighbour rebuild.
    #[inline]
    pub fn near(&self) -> &NearWalls {
        &self.near
    }

    /// Particle `k`'s wall contacts, (member, state): those of its own list in the order they
    /// formed, then the touching listed members held beside the near lists, in the lists'
    /// order. The order is fixed by the run alone, so checkpoints and tallies are repeatable.
    pub fn contacts(&self, k: usize) -> impl Iterator<Item = (WallMember, &ContactState)> {
        let own = self.own.get(k).map_or(&[][..], Vec::as_slice);
        let (slots, members) = match self.holds {
            true => self.near.row(k),
            false => (0..0, &[][..]),
        };
        own.iter().map(|(m, s)| (*m, s)).chain(
            members
                .iter()
                .zip(&self.held[slots])
                .filter(|(_, s)| s.touching)
                .map(|(&m, s)| (m, s)),
        )
    }

    /// Every wall contact, (particle, member, state), in ascending particle and each
    /// particle's in the order of [`WallHistory::contacts`].
    pub fn iter(&self) -> impl Iterator<Item = (usize, WallMember, &ContactState)> {
        (0..self.own.len()).flat_map(move |k| self.contacts(k).map(move |(m, s)| (k, m, s)))
    }

    /// Forgets particle `k`'s wall contacts (a grain moved or held by a wall).
    pub fn forget(&mut self, k: usize) {
        if let Some(own) = self.own.get_mut(k) {
            own.clear();
        }
        if self.holds {
            let (slots, _) = self.near.row(k);
            self.held[slots].fill(ContactState::default());
        }
    }

    /// Replaces every contact by `contacts`, (particle, member, state), for `n` particles,
    /// for a restart; the histories of listed members move beside the near lists when those
    /// were built for these particles (else at the next build) and every one of `walls` is
    /// `listable`.
    pub fn restore(
        &mut self,
        n: usize,
        contacts: impl IntoIterator<Item = (usize, WallMember, ContactState)>,
        walls: &[Wall],
    ) {
        self.settle();
        self.own = vec![Vec::new(); n];
        for (k, member, s) in contacts {
            self.own[k].push((member, s));
        }
        self.take_up(walls);
    }

    /// Takes the near lists `near` of a neighbour rebuild, keeping every contact.
    pub fn relist(&mut self, near: NearWalls, walls: &[Wall]) {
        self.settle();
        self.near = near;
        self.take_up(walls);
    }

    /// Puts the particles in `order` (the particle at new index k is the one at `order[k]`)
    /// with their contacts; the near lists are dropped until the next build.
    pub fn permute(&mut self, order: &[usize]) {
        self.settle();
        self.near = NearWalls::default();
        permute(&mut self.own, order);
    }

    /// Keeps the particles with `keep[k]` and their contacts, in their order; the near lists
    /// are dropped until the next build.
    pub fn retain(&mut self, keep: &[bool]) {
        self.settle();
        self.near = NearWalls::default();
        let mut k = 0;
        self.own.retain(|_| {
            k += 1;
            keep[k - 1]
        });
    }

    /// Adds `n` particles without contacts after the others; the near lists are dropped until
    /// the next build.
    pub fn extend(&mut self, n: usize) {
        self.settle();
        self.near = NearWalls::default();
        self.own.resize(self.own.len() + n, Vec::new());
    }

    /// Applies `f` to every history, in parallel: for an integrator that advances them.
    pub fn for_each_mut(&mut self, f: &(impl Fn(&mut ContactState) + Sync)) {
        self.own
            .par_iter_mut()
            .with_min_len(MIN_LEN)
            .for_each(|list| list.iter_mut().for_each(|(_, s)| f(s)));
        self.held.par_iter_mut().with_min_len(MIN_LEN).for_each(f);
    }

    /// The near lists, the held histories and each particle's own list, for the wall pass.
    pub(crate) fn lend(&mut self) -> Lent<'_> {
        Lent {
            near: &self.near,
            held: self.holds.then_some(&mut self.held[..]),
            own: &mut self.own,
        }
    }

    /// Moves the held histories into the particles' own lists (each touching member at the
    /// end of its particle's list), before the lists are rebuilt or the particles renumbered.
    fn settle(&mut self) {
        if !self.holds {
            return;
        }
        for &k in self.near.listed(self.own.len()).unwrap_or_default() {
            let (slots, members) = self.near.row(k as usize);
            for (member, state) in members.iter().zip(&mut self.held[slots]) {
                if state.touching {
                    self.own[k as usize].push((*member, std::mem::take(state)));
                }
            }
        }
        self.held.clear();
        self.holds = false;
    }

    /// Takes the histories of the listed members out of the particles' own lists beside the
    /// near lists, when every one of `walls` is [`listable`] (only then does the wall pass
    /// visit the listed grains alone, [`crate::soft::walls::WallForces::reach`]) and the lists
    /// were built for these particles; else makes room in each listed particle's list for all
    /// its listed members, so that contacts forming before the next build need no allocation
    /// in the step.
    fn take_up(&mut self, walls: &[Wall]) {
        let Some(listed) = self.near.listed(self.own.len()) else {
            return;
        };
        if !walls.iter().all(listable) {
            for &k in listed {
                let own = &mut self.own[k as usize];
                let (slots, _) = self.near.row(k as usize);
                own.reserve(slots.len().saturating_sub(own.len()));
            }
            return;
        }
        self.held.clear();
        self.held
            .resize(self.near.members().len(), ContactState::default());
        self.holds = true;
        for &k in listed {
            let (slots, members) = self.near.row(k as usize);
            let own = &mut self.own[k as usize];
            for (member, state) in members.iter().zip(&mut self.held[slots]) {
                if let Some(s) = own.iter().position(|(m, _)| m == member) {
                    *state = own.swap_remove(s).1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec3;

    use super::*;
    use crate::boundary::Periodic;
    use crate::walls::near::near_walls;
    use crate::walls::near::tests::{floor, turning};
    use crate::walls::{Motion, Shape};

    #[test]
    fn a_member_is_its_wall_and_index_and_writes_as_before() {
        let m = WallMember::new(3, 7);
        assert_eq!((m.wall(), m.member(), m.to_bits()), (3, 7, 3 * 256 + 7));
        assert_eq!(WallMember::from_bits(m.to_bits()), m);
        assert!(WallMember::new(2, 200) < m && m < WallMember::new(3, 8));
    }

    #[test]
    fn listed_members_keep_their_history_beside_the_near_lists_and_give_it_back() {
        // A floor at z = 0 and a ceiling at z = 1 (fixed); grain 0 near the floor, grain 1
        // near neither. Grain 0 touches the floor and the ceiling (not listed near it: that
        // history stays in its own list), grain 1 the floor.
        let mut ceiling = floor(1.0, Motion::Fixed);
        if let Shape::Plane(p) = &mut ceiling.shape {
            p.normal = -DVec3::Z;
        }
        let walls = [floor(0.0, Motion::Fixed), ceiling];
        let pos = [0.12, 0.5].map(|z| DVec3::new(0.0, 0.0, z));
        let near =
            |walls: &[Wall]| near_walls(walls, &pos, &[0.1; 2], 0.05, &Periodic::default(), 0.0);
        let state = |x: f64| ContactState {
            slip: DVec3::new(x, 0.0, 0.0),
            touching: true,
            ..ContactState::default()
        };
        let (fl, ce) = (WallMember::new(0, 0), WallMember::new(1, 0));
        let all =
            |h: &WallHistory| -> Vec<_> { h.iter().map(|(k, m, s)| (k, m, s.clone())).collect() };
        let saved = vec![
            (0, ce, state(2.0)),
            (0, fl, state(1.0)),
            (1, fl, state(3.0)),
        ];
        let mut history = WallHistory::new(2);
        history.restore(2, saved.clone(), &walls);
        history.relist(near(&walls), &walls);
        assert!(history.holds);
        assert_eq!(history.own[0], vec![(ce, state(2.0))]);
        assert_eq!(history.own[1], vec![(fl, state(3.0))]);
        assert_eq!(all(&history), saved);
        // Renumbered or thinned out, every contact goes with its grain.
        history.permute(&[1, 0]);
        assert!(!history.holds);
        let swapped = vec![
            (0, fl, state(3.0)),
            (1, ce, state(2.0)),
            (1, fl, state(1.0)),
        ];
        assert_eq!(all(&history), swapped);
        let mut thinned = history.clone();
        thinned.retain(&[false, true]);
        assert_eq!(
            all(&thinned),
            vec![(0, ce, state(2.0)), (0, fl, state(1.0))]
        );
        // Forgotten, a grain's contacts are gone wherever they were kept.
        history.permute(&[1, 0]);
        history.relist(near(&walls), &walls);
        history.forget(0);
        assert_eq!(all(&history), vec![(1, fl, state(3.0))]);
        // A wall that turns leaves every history in the grains' lists.
        let moving = [floor(0.0, turning())];
        history.restore(2, [(0, fl, state(1.0))], &moving);
        history.relist(near(&moving), &moving);
        assert!(!history.holds);
        assert_eq!(history.own[0], vec![(fl, state(1.0))]);
    }
}
