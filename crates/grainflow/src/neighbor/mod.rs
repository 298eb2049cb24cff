//! Neighbour search: linked cells build Verlet half lists with a skin.
//!
//! Pairs (i, j > i) closer than r_i + r_j + skin are stored in compressed-row form, each row
//! sorted by j, with the contact history in the same order. The list stays valid until some
//! particle has moved more than half the skin since the build (then no unlisted pair can touch).
//! At a rebuild the history of every pair still listed is carried over, in place, to its new
//! slot, so history survives rebuilds; it is reset when a pair separates.
//! Cells are found by sorting integer cell keys, so a grain far from the others costs nothing.
//! The build scans each pair of neighbouring cells once (a cell with itself and with the 13
//! neighbours after it), reading positions copied in cell order.
//!
//! Across periodic faces a list pairs either by minimum image (one image per pair), or, when it
//! keeps its ghost table (`ghosts.rs`), with the periodic images of the grains listed after
//! them (every image within reach): then a partner index at or past the number of grains is a
//! ghost, and `partner_grain` names the owned grain it is an image of. The soft-sphere method
//! sorts each row by that grain, then image, so that its sums take the same order as by
//! minimum image.

use glam::DVec3;
use rayon::prelude::*;

use crate::boundary::{MinimumImage, Periodic};
use crate::contact::{ContactState, Extra, Formed, Slip};
use crate::ghosts::{periods, Ghosts, Image};

mod cells;
mod history;
mod links;
pub(crate) mod start;
use cells::candidate_pairs;
pub(crate) use history::Kept;
use links::rows;
pub use links::Links;

/// Verlet half list in compressed-row form, with per-pair contact history.
#[derive(Clone, Debug, Default)]
pub struct NeighborList {
    /// Skin distance (m) added to the contact distance.
    pub skin: f64,
    /// Row starts: the pairs of particle i are slots `start[i]..start[i+1]`.
    pub start: Vec<usize>,
    /// Partner j of each slot: a grain above i, or a ghost (an image of grain i or above).
    pub partner: Vec<u32>,
    /// The owned grain each slot's partner is: the partner itself, or its ghost's owner.
    pub partner_grain: Vec<u32>,
    /// Owner i of each slot (the row it lies in).
    pub owner: Vec<u32>,
    /// Contact history of each slot, in three parts ([`ContactState::split`]): the slip and
    /// whether the pair touches, which the step reads for every slot; ...
    pub slip: Vec<Slip>,
    /// ... the constants, which it reads for touching pairs when they differ pair by pair; ...
    pub formed: Vec<Formed>,
    /// ... and the boxed extras of some slots and integrators.
    pub extra: Vec<Option<Box<Extra>>>,
    /// Reverse rows and crossing pairs, made with the rows.
    pub links: Links,
    /// Positions at the last build (m).
    ref_pos: Vec<DVec3>,
    /// Number of builds so far.
    pub builds: u64,
    /// Set when the skin is sized from the grains' speeds at every build.
    pub auto: Option<AutoSkin>,
    /// The periodic images listed as partners, when the list keeps them (every method in a
    /// periodic box); `None` pairs across periodic faces by minimum image.
    pub ghosts: Option<Ghosts>,
    /// How the rows of one rank of a run shared among processes are laid out
    /// ([`crate::domain`]); `None` in one process (a block every [`BLOCK`] rows, every pair).
    pub share: Option<Share>,
}

/// The rows of one rank of a run shared among processes: the rank holds its own grains and
/// copies of its neighbours', all in the order of one process, and takes its blocks where one
/// process would (so that each grain's sums keep their order and bits), listing no pair of two
/// copies (their forces are the other ranks').
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Share {
    /// The block of each grain in one process: its index there over [`BLOCK`].
    pub block: Vec<u32>,
    /// Whether each grain is the rank's own (else a copy).
    pub own: Vec<bool>,
}

/// A skin sized from the fastest grain (`simulation.skin = "auto"`): wide enough that it
/// takes [`AutoSkin::STEPS`] steps to cross half of it, within a range. Dense, slow beds then
/// list few pairs that do not touch (each listed pair costs every step), and the list is
/// still rebuilt only every hundred steps or so.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoSkin {
    /// Time step (s).
    pub dt: f64,
    /// Least and largest skin (m).
    pub range: [f64; 2],
}

impl AutoSkin {
    /// Steps the fastest grain takes, at its speed at the build, to cross half the skin.
    pub const STEPS: f64 = 100.0;

    /// The skin for a fastest speed `v_max` (m/s): 2 × STEPS × v_max dt, within the range.
    pub fn size(&self, v_max: f64) -> f64 {
        (2.0 * Self::STEPS * v_max * self.dt).clamp(self.range[0], self.range[1])
    }
}

/// Rows are taken in blocks of this many particles: one task of the force loop sums the pairs
/// whose two particles lie in its block directly, and leaves only the others to the gather.
/// Fixed, not a function of the thread count, so the sums' order (and bits) never depend on it.
pub const BLOCK: usize = 1024;

/// [`Links::cross_slot`] of a pair whose two particles lie in one block.
pub const NOT_CROSSING: u32 = u32::MAX;

impl NeighborList {
    /// An empty list with the given skin (m).
    pub fn new(skin: f64) -> Self {
        NeighborList {
            skin,
            ..Default::default()
        }
    }

    /// An empty list with this one's skin, its automatic sizing, if any, and its count of builds.
    pub fn emptied(&self) -> Self {
        NeighborList {
            auto: self.auto,
            builds: self.builds,
            ghosts: self.ghosts.as_ref().map(|g| Ghosts::empty(g.counted)),
            share: self.share.clone(),
            ..NeighborList::new(self.skin)
        }
    }

    /// Number of listed pairs.
    pub fn len(&self) -> usize {
        self.partner.len()
    }

    /// Listed pairs that touched at the last evaluation.
    pub fn touching(&self) -> usize {
        self.slip.iter().filter(|s| s.touching()).count()
    }

    /// The contact history of slot `s`.
    pub fn history(&self, s: usize) -> ContactState {
        ContactState::joined(&self.slip[s], &self.formed[s], self.extra[s].clone())
    }

    /// Sets the contact history of slot `s`.
    pub fn set_history_at(&mut self, s: usize, state: ContactState) {
        (self.slip[s], self.formed[s], self.extra[s]) = state.split();
    }

    /// True when no pair is listed.
    pub fn is_empty(&self) -> bool {
        self.partner.is_empty()
    }

    /// The particle i of a slot.
    pub fn owner(&self, slot: usize) -> usize {
        self.owner[slot] as usize
    }

    /// True unless every pair closer than its contact distance plus `travel` (m) is listed: some
    /// particle moved more than (skin − travel)/2 since the build, or the count changed.
    pub fn needs_rebuild_within(&self, pos: &[DVec3], period: DVec3, travel: f64) -> bool {
        if travel >= self.skin {
            return true;
        }
        let half = 0.5 * (self.skin - travel);
        self.moved_more_than(pos, period, half)
    }

    /// True unless every pair that can touch while each grain k moves straight at `vel[k]` for
    /// `time` (s) is listed: some grain would get half the skin or more from where it was at the
    /// build, |Δx_k| + |v_k| t ≥ skin/2, or the count changed. (An unlisted pair was farther
    /// apart than its contact distance plus the skin, so it cannot touch before one of its
    /// grains has gone half the skin.)
    pub fn needs_rebuild_for(
        &self,
        pos: &[DVec3],
        vel: &[DVec3],
        time: f64,
        period: DVec3,
    ) -> bool {
        if self.stale_count(pos.len()) {
            return true;
        }
        (0..pos.len())
            .into_par_iter()
            .with_min_len(crate::particles::MIN_LEN)
            .any(|k| !self.keeps(k, pos[k], vel[k], time, period))
    }

    /// True when grain `k`, at `pos` and moving at `vel` for `time` (s) more, stays within half
    /// the skin of where it was at the build.
    /// With ghosts the move is the grain's own, unwrapped, however far it went.
    pub fn keeps(&self, k: usize, pos: DVec3, vel: DVec3, time: f64, period: DVec3) -> bool {
        let d = pos - self.ref_pos[k];
        let moved = match &self.ghosts {
            Some(ghosts) if ghosts.counted => ghosts.unwrapped(k, d, period),
            _ => Periodic::minimum_image(d, period),
        }
        .length();
        moved + vel.length() * time < 0.5 * self.skin
    }

    /// Where the grains were at the last build (m), as [`Self::keeps`] measures moves from.
    pub(crate) fn reference(&self) -> &[DVec3] {
        &self.ref_pos
    }

    /// True when a particle moved more than half the skin since the build, or the count changed.
    /// `period` holds the periodic lengths (0 on open axes), so wrapping is not a move.
    pub fn needs_rebuild(&self, pos: &[DVec3], period: DVec3) -> bool {
        self.moved_more_than(pos, period, 0.5 * self.skin)
    }

    /// True when the list was built for another number of particles (or not at all).
    pub(crate) fn stale_count(&self, n: usize) -> bool {
        n != self.ref_pos.len() || self.start.len() != n + 1
    }

    fn moved_more_than(&self, pos: &[DVec3], period: DVec3, limit: f64) -> bool {
        if self.stale_count(pos.len()) {
            return true;
        }
        pos.par_chunks(crate::particles::CHUNK)
            .enumerate()
            .any(|(c, ps)| {
                self.chunk_moved(c * crate::particles::CHUNK, ps, period, limit)
                    .0
            })
    }

    /// True when one of the grains `first..first + ps.len()`, now at `ps`, moved more than half
    /// the skin since the build ([`Self::needs_rebuild`] for a chunk of grains; the count is
    /// the caller's to check), so that the drift can tell while the chunk is in cache.
    /// Also says whether some grain's plain move (not folded) passed half the skin: unless
    /// one did, no grain of the chunk wrapped since the build (a wrap is a plain move of
    /// nearly a period, and a period is longer than the skin). Inlined into the drift's pass,
    /// which is compiled twice (for few grains and for many).
    #[inline(always)]
    pub(crate) fn left_half_skin(&self, first: usize, ps: &[DVec3], period: DVec3) -> (bool, bool) {
        self.chunk_moved(first, ps, period, 0.5 * self.skin)
    }

    /// True when one of the grains `first..first + ps.len()`, now at `ps`, moved more than
    /// `limit` (m) since the build. The comparisons are folded with no early exit and no
    /// running maximum, so that the loop has no branch to leave by and no chain of dependent
    /// steps: it takes the grains several at a time. A plain difference is never shorter than
    /// its minimum image, so only a chunk with a plain move past the limit (a grain that
    /// wrapped across a periodic face, or moved far) is measured again by minimum image.
    /// With ghosts whose wraps are counted a move is the grain's own, unwrapped. Also says
    /// whether some plain move passed the limit (always, with counted wraps).
    #[inline(always)]
    fn chunk_moved(&self, first: usize, ps: &[DVec3], period: DVec3, limit: f64) -> (bool, bool) {
        let limit = limit * limit;
        let rs = &self.ref_pos[first..first + ps.len()];
        if let Some(g) = self.ghosts.as_ref().filter(|g| g.counted) {
            let moved = (ps.iter().zip(rs).enumerate()).any(|(k, (p, r))| {
                g.unwrapped(first + k, *p - *r, period).length_squared() > limit
            });
            return (moved, true);
        }
        let beyond = |by_image: Option<MinimumImage>| {
            ps.iter().zip(rs).fold(false, |any, (p, r)| {
                let d = *p - *r;
                let d = match by_image {
                    Some(image) => image.of(d),
                    None => d,
                };
                any | (d.length_squared() > limit)
            })
        };
        let plain = beyond(None);
        (plain && beyond(Some(MinimumImage::new(period))), plain)
    }

    /// The whole periods grain k was wrapped by since the build, at `pos` (m), for periods
    /// `period`: counted, or found by minimum image (`Ghosts::found_wrap`).
    #[inline]
    pub fn wrap_of(&self, k: usize, pos: DVec3, period: DVec3) -> Image {
        match &self.ghosts {
            Some(g) if g.counted => g.wraps[k],
            _ => Ghosts::found_wrap(pos - self.ref_pos[k], period),
        }
    }

    /// The positions (m) of the grains `range` at the last build.
    pub(crate) fn built_at(&self, range: std::ops::Range<usize>) -> &[DVec3] {
        &self.ref_pos[range]
    }

    /// The grain that partner `j` of grain i is (itself or the owner of a ghost) and its image
    /// beside i now, as whole periods from where both are (0 without ghosts), for positions
    /// `pos` and periods `period`.
    #[inline]
    pub fn image_now(&self, i: usize, j: usize, pos: &[DVec3], period: DVec3) -> (usize, Image) {
        let Some(g) = &self.ghosts else {
            return (j, [0; 3]);
        };
        let (k, s) = g.resolve(j);
        if g.counted {
            return (k, g.image_now(i, k, s));
        }
        let (wi, wk) = (
            self.wrap_of(i, pos[i], period),
            self.wrap_of(k, pos[k], period),
        );
        (k, std::array::from_fn(|a| s[a] + wk[a] - wi[a]))
    }

    /// The grain that partner `j` of grain i is (itself or the owner of a ghost) and the
    /// separation from i to it (m), for positions `pos` and periods `period`: to the ghost's
    /// image, or else the minimum image. With wraps found (the soft-sphere method) it is
    /// (x_k − x_i) − (w_i L − (s + w_k) L), the pair loop's bits.
    #[inline]
    pub fn separation(&self, i: usize, j: usize, pos: &[DVec3], period: DVec3) -> (usize, DVec3) {
        match &self.ghosts {
            Some(g) if g.counted => {
                let (k, s) = g.resolve(j);
                (k, g.separation(i, (k, s), pos[k] - pos[i], period))
            }
            Some(g) => {
                let (k, s) = g.resolve(j);
                let (wi, wk) = (
                    self.wrap_of(i, pos[i], period),
                    self.wrap_of(k, pos[k], period),
                );
                let to_k = std::array::from_fn(|a| s[a] + wk[a]);
                let shift = periods(wi, period) - periods(to_k, period);
                (k, (pos[k] - pos[i]) - shift)
            }
            None => (j, Periodic::minimum_image(pos[j] - pos[i], period)),
        }
    }

    /// Rebuilds the list for `pos` and `radius`, carrying over the history of kept pairs.
    /// Pairs across periodic faces are by their minimum image, or, with ghosts, the ghosts are
    /// made anew and each pair with an image is listed as (i, ghost of k) when k > i, or
    /// k = i and the image is above 0 (a grain and its own image), so that it counts once.
    pub fn build(&mut self, pos: &[DVec3], radius: &[f64], periodic: &Periodic) {
        // The pairs with a history, keyed by grain and image as they are now, before the
        // ghosts are made anew.
        let kept = self.keyed_history(pos, periodic.lengths());
        self.build_carrying(kept, pos, radius, periodic);
    }

    /// [`NeighborList::build`] with the histories `kept` ([`NeighborList::keyed_history`] of
    /// this list, its grains renumbered to those of `pos`, keeping their order): a run shared
    /// among processes rebuilds so after grains came and went ([`crate::domain`]).
    pub(crate) fn build_carrying(
        &mut self,
        kept: Kept,
        pos: &[DVec3],
        radius: &[f64],
        periodic: &Periodic,
    ) {
        let n = pos.len();
        let (pairs, n_total) = match self.ghosts.as_mut() {
            Some(ghosts) => {
                let r_max = radius.iter().copied().fold(0.0, f64::max);
                let reach = 2.0 * r_max + self.skin;
                *ghosts = Ghosts::new(pos, periodic, reach, ghosts.counted);
                let mut pairs = candidate_pairs(pos, radius, self.skin, periodic, Some(ghosts));
                pairs.retain(|&(i, j)| ghosts.lists(i, j));
                (pairs, ghosts.total())
            }
            None => (candidate_pairs(pos, radius, self.skin, periodic, None), n),
        };
        let mut pairs = pairs;
        if let Some(share) = &self.share {
            let grain = |j: u32| match &self.ghosts {
                Some(g) => g.resolve(j as usize).0,
                None => j as usize,
            };
            pairs.retain(|&(i, j)| share.own[i as usize] || share.own[grain(j)]);
        }
        // Rows by grain, then image, where the wraps are found (the soft-sphere method).
        let by_grain = self.ghosts.as_ref().filter(|g| !g.counted);
        let (start, partner, owner) = rows(n, &pairs, by_grain);
        let ghosts = self.ghosts.take();
        let grain: Vec<u32> = match &ghosts {
            Some(g) => (partner.par_iter())
                .map(|&j| g.resolve(j as usize).0 as u32)
                .collect(),
            None => partner.clone(),
        };
        // The image of each partner beside its row's grain as the ghosts were made.
        let image = |j: u32| ghosts.as_ref().map_or([0; 3], |g| g.resolve(j as usize).1);
        // The history moves while the reverse rows and crossing pairs are found.
        let share = self.share.take();
        let block = share.as_ref().map(|s| &s.block[..]);
        let ((), links) = rayon::join(
            || self.carry_history(kept, (&start, &partner, &grain), image),
            || Links::of(&start, &partner, &grain, n_total, block),
        );
        self.share = share;
        self.ghosts = ghosts;
        self.start = start;
        self.partner = partner;
        self.partner_grain = grain;
        self.owner = owner;
        self.links = links;
        self.ref_pos = pos.to_vec();
        self.builds += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_automatic_skin_follows_the_fastest_grain_within_its_range() {
        let auto = AutoSkin {
            dt: 1e-6,
            range: [5e-6, 1e-4],
        };
        assert_eq!(auto.size(0.0), 5e-6);
        assert!((auto.size(0.05) - 200.0 * 0.05 * 1e-6).abs() < 1e-18);
        assert_eq!(auto.size(10.0), 1e-4);
    }

    #[test]
    fn an_automatic_skin_changes_the_cost_not_the_physics() {
        // The peers' settled bed (S1) for 300 steps with the skin sized from its fastest grain
        // (0.073 m/s: 200 × v dt = 1.5e-5 m, 0.03 r) and with the fixed 2e-4 m of the peers'
        // inputs: fewer pairs listed, the same contacts and the same kinetic energies to the
        // bit (pairs listed but not touching add nothing, and the touching ones are summed in
        // ascending (i, j) whatever else the list holds).
        let toml = include_str!("../../../../scenes/bench/s1.toml");
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/bench");
        let run = |toml: &str| {
            let scene = crate::scene::Scene::from_toml(toml, "s1").expect("parses");
            let mut sim = crate::sim::Simulation::new(scene, &base).expect("builds");
            let skin = sim.world.neighbors.skin;
            for _ in 0..300 {
                sim.step().expect("stable");
            }
            let nl = &sim.world.neighbors;
            (skin, nl.len(), nl.touching(), sim.energies())
        };
        assert!(toml.contains("skin = \"auto\""));
        let (auto_skin, auto_listed, auto_contacts, auto_e) = run(toml);
        let (_, fixed_listed, fixed_contacts, fixed_e) =
            run(&toml.replace("skin = \"auto\"", "skin = 2e-4"));
        assert!((auto_skin - 1.4686e-5).abs() < 1e-9, "skin {auto_skin}");
        assert!(
            auto_listed * 10 < fixed_listed * 7,
            "{auto_listed} against {fixed_listed}"
        );
        assert_eq!(auto_contacts, fixed_contacts);
        assert_eq!(
            auto_e.translational.to_bits(),
            fixed_e.translational.to_bits()
        );
        assert_eq!(auto_e.rotational.to_bits(), fixed_e.rotational.to_bits());
    }

    #[test]
    fn lists_exactly_the_pairs_within_cutoff() {
        // A 6×6×6 cubic lattice of spacing 1 with r = 0.45, skin 0.2: cut-off 1.1 keeps only the
        // axis neighbours, 3·6·6·5 = 540 pairs; a brute-force check agrees pair for pair.
        let mut pos = Vec::new();
        for x in 0..6 {
            for y in 0..6 {
                for z in 0..6 {
                    pos.push(
                        DVec3::new(x as f64, y as f64, z as f64) + DVec3::splat(1e-3 * z as f64),
                    );
                }
            }
        }
        let radius = vec![0.45; pos.len()];
        let mut list = NeighborList::new(0.2);
        list.build(&pos, &radius, &Periodic::default());
        assert_eq!(list.len(), 540);
        let mut brute = 0;
        for i in 0..pos.len() {
            for j in i + 1..pos.len() {
                if (pos[j] - pos[i]).length() < 1.1 {
                    brute += 1;
                    let row = &list.partner[list.start[i]..list.start[i + 1]];
                    assert!(row.contains(&(j as u32)));
                }
            }
        }
        assert_eq!(brute, 540);
        // Reverse rows name each pair once, from its partner's side.
        assert_eq!(list.links.rev_owner.len(), 540);
        for k in 0..pos.len() {
            for &i in &list.links.rev_owner[list.links.rev_start[k]..list.links.rev_start[k + 1]] {
                let row = &list.partner[list.start[i as usize]..list.start[i as usize + 1]];
                assert!(row.contains(&(k as u32)), "{i} does not list {k}");
            }
        }
        assert_eq!(list.owner(list.start[7]), 7);
    }

    #[test]
    fn random_grains_in_periodic_and_open_boxes_list_the_brute_force_pairs() {
        // 600 grains of radii 0.05–0.15 in a 2 × 2.5 × 3 box, skin 0.1 (cut-off ≤ 0.4, so 5–7
        // cells per axis): the cells' runs along x cross the periodic faces. Every pair closer
        // than r_i + r_j + skin by minimum image is listed, and no other, for each choice of
        // periodic axes.
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let side = [2.0, 2.5, 3.0];
        let pos: Vec<DVec3> = (0..600)
            .map(|_| DVec3::from_array(side.map(|l| rng.random_range(0.0..l))))
            .collect();
        let radius: Vec<f64> = (0..600).map(|_| rng.random_range(0.05..0.15)).collect();
        for axes in [[true; 3], [true, false, true], [false; 3]] {
            let interval = |k: usize| axes[k].then_some([0.0, side[k]]);
            let periodic = Periodic {
                x: interval(0),
                y: interval(1),
                z: interval(2),
            };
            let mut list = NeighborList::new(0.1);
            list.build(&pos, &radius, &periodic);
            let mut pairs = Vec::new();
            for i in 0..pos.len() {
                for &j in &list.partner[list.start[i]..list.start[i + 1]] {
                    pairs.push((i, j as usize));
                }
            }
            let period = periodic.lengths();
            let brute: Vec<(usize, usize)> = (0..pos.len())
                .flat_map(|i| (i + 1..pos.len()).map(move |j| (i, j)))
                .filter(|&(i, j)| {
                    let d = Periodic::minimum_image(pos[j] - pos[i], period).length();
                    d < radius[i] + radius[j] + 0.1
                })
                .collect();
            assert!(brute.len() > 1000, "{}", brute.len());
            assert_eq!(pairs, brute, "periodic axes {axes:?}");
        }
    }

    #[test]
    fn history_moves_to_the_new_slot_of_its_pair_when_pairs_come_and_go() {
        // 400 grains in a periodic box; every third listed pair gets a history naming it.
        // After the grains move (pairs appear and vanish), each pair still listed has its own
        // history in its new slot, pairs gone have none, new pairs start blank.
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let periodic = Periodic {
            x: Some([0.0, 2.0]),
            y: Some([0.0, 2.0]),
            z: Some([0.0, 2.0]),
        };
        let mut pos: Vec<DVec3> = (0..400)
            .map(|_| {
                DVec3::new(
                    rng.random_range(0.0..2.0),
                    rng.random_range(0.0..2.0),
                    rng.random_range(0.0..2.0),
                )
            })
            .collect();
        let radius = vec![0.1; 400];
        let mut list = NeighborList::new(0.1);
        list.build(&pos, &radius, &periodic);
        // Every third pair gets a history naming it, with boxed extras when its owner is even.
        let tag = |i: usize, j: u32| ContactState {
            slip: DVec3::new(i as f64, j as f64, 1.0),
            stiffness: crate::contact::normal::Stiffness {
                kn: j as f64,
                kt: i as f64,
                gn: 2.0,
                gt: 3.0,
            },
            extra: i.is_multiple_of(2).then(|| {
                Box::new(Extra {
                    age: j,
                    ..Extra::default()
                })
            }),
            touching: true,
        };
        let mut tagged = Vec::new();
        for i in 0..pos.len() {
            for s in list.start[i]..list.start[i + 1] {
                if s % 3 == 0 {
                    list.set_history_at(s, tag(i, list.partner[s]));
                    tagged.push((i, list.partner[s]));
                }
            }
        }
        for p in &mut pos {
            *p = periodic.wrap(*p + DVec3::new(rng.random_range(-0.1..0.1), 0.05, 0.0));
        }
        list.build(&pos, &radius, &periodic);
        let (mut kept, mut blank) = (0, 0);
        for i in 0..pos.len() {
            for s in list.start[i]..list.start[i + 1] {
                let j = list.partner[s];
                if tagged.contains(&(i, j)) {
                    assert_eq!(list.history(s), tag(i, j));
                    kept += 1;
                } else {
                    assert_eq!(list.history(s), ContactState::default());
                    blank += 1;
                }
            }
        }
        assert!(
            kept > 50 && blank > 50 && kept < tagged.len(),
            "{kept} {blank} {}",
            tagged.len()
        );
    }

    #[test]
    fn pairs_across_periodic_faces_are_found_once() {
        // Box [0, 10) periodic in x: grains at x = 0.2 and 9.9 are 0.3 apart through the face.
        let pos = vec![
            DVec3::new(0.2, 0.0, 0.0),
            DVec3::new(9.9, 0.0, 0.0),
            DVec3::new(5.0, 0.0, 0.0),
        ];
        let radius = vec![0.2; 3];
        let periodic = Periodic {
            x: Some([0.0, 10.0]),
            ..Default::default()
        };
        let mut list = NeighborList::new(0.1);
        list.build(&pos, &radius, &periodic);
        assert_eq!(list.partner, vec![1]);
        // Wrapping a grain through the face is not a move.
        let wrapped = vec![DVec3::new(10.2, 0.0, 0.0), pos[1], pos[2]];
        assert!(!list.needs_rebuild(&wrapped, periodic.lengths()));
        // Through the face and 0.26 on (more than half the skin) is a move.
        let far = vec![DVec3::new(9.94, 0.0, 0.0), pos[1], pos[2]];
        assert!(list.needs_rebuild(&far, periodic.lengths()));
    }

    #[test]
    fn a_box_of_one_or_two_cells_lists_each_pair_once() {
        // Cut-off 1.0 in periodic boxes of side 2.5 (two cells per axis) and 1.5 (one): the
        // stencil's ±1 cells are the same cell, which must not list a pair twice.
        for side in [2.5, 1.5] {
            let pos = vec![
                DVec3::splat(0.1),
                DVec3::new(0.6, 0.1, 0.1),
                DVec3::splat(1.2),
            ];
            let radius = vec![0.4; 3];
            let periodic = Periodic {
                x: Some([0.0, side]),
                y: Some([0.0, side]),
                z: Some([0.0, side]),
            };
            let mut list = NeighborList::new(0.2);
            list.build(&pos, &radius, &periodic);
            let mut pairs = Vec::new();
            for i in 0..3 {
                for &j in &list.partner[list.start[i]..list.start[i + 1]] {
                    pairs.push((i, j as usize));
                }
            }
            let brute: Vec<(usize, usize)> = (0..3)
                .flat_map(|i| (i + 1..3).map(move |j| (i, j)))
                .filter(|&(i, j)| {
                    Periodic::minimum_image(pos[j] - pos[i], periodic.lengths()).length() < 1.0
                })
                .collect();
            assert_eq!(pairs, brute, "side {side}");
        }
    }

    #[test]
    fn history_survives_a_rebuild_and_far_grains_cost_nothing() {
        let mut pos = vec![
            DVec3::ZERO,
            DVec3::new(0.9, 0.0, 0.0),
            DVec3::new(1e9, 0.0, 0.0),
        ];
        let radius = vec![0.5; 3];
        let mut list = NeighborList::new(0.1);
        list.build(&pos, &radius, &Periodic::default());
        assert_eq!(list.len(), 1);
        list.slip[0] = Slip([1e-4, 0.0, 0.0, 1.0]);
        pos[1].y += 0.06; // more than half the skin
        assert!(list.needs_rebuild(&pos, DVec3::ZERO));
        list.build(&pos, &radius, &Periodic::default());
        assert_eq!(list.history(0).slip, DVec3::new(1e-4, 0.0, 0.0));
        assert!(!list.needs_rebuild(&pos, DVec3::ZERO));
    }
}
