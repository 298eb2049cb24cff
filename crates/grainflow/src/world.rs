//! The physical state of a run: what a checkpoint holds and a resume puts back bit for bit.
//!
//! Particles, walls, the contact history of pairs and walls, the clock, the drive state
//! (recirculation doors) and the tallies of collisions and impulses. What a method needs
//! only within a step (packed grains, crossing reactions, drift events, integrator stages)
//! is its stepper's scratch (`Stepper` in `stepper.rs`), not part of the world.

use crate::approx_hard::tally::ImpulseTally;
use crate::boundary::Periodic;
use crate::contact::ContactState;
use crate::drive::doors::DoorState;
use crate::ghosts::Image;
use crate::neighbor::NeighborList;
use crate::particles::{curve_order, Particles};
use crate::walls::history::WallHistory;
use crate::walls::interact::WallRuntime;
use crate::walls::Wall;
use crate::Result;

/// A touching pair's contact history keyed by the two grains' ids and the second's image
/// beside the first (whole periods; `None` where a checkpoint written before images were kept
/// did not say).
pub type PairHistory = (u64, u64, Option<Image>, ContactState);

/// The state of a run.
#[derive(Clone, Debug)]
pub struct World {
    /// The grains.
    pub particles: Particles,
    /// The walls.
    pub walls: Vec<Wall>,
    /// Neighbour list with the particle–particle contact history.
    pub neighbors: NeighborList,
    /// Particle–wall contact history, and the near lists of the last neighbour rebuild.
    pub wall_history: WallHistory,
    /// Wall poses, grains held by walls, grains absorbed.
    pub wall_runtime: WallRuntime,
    /// Simulated time (s).
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// Door state of the recirculation (001 chapter 6).
    pub doors: DoorState,
    /// Hard-sphere collisions so far (both hard-sphere methods).
    pub collisions: u64,
    /// Impulses of the approximate hard-sphere method since the last reset, for the proxy
    /// stress.
    pub tally: ImpulseTally,
    /// Grains inserted so far by the scene's `[[inserts]]`, and the next id.
    pub inserts: crate::drive::insert::Inserts,
}

impl World {
    /// The world at the start of a run: the particles made by the scene (turned into discs in
    /// 2-D mode, after the plane is checked) wrapped into the `periodic` box, the walls with
    /// empty contact history and the clock at `time`; the drives are started apart
    /// ([`crate::drive::start`]).
    pub(crate) fn new(
        mut particles: Particles,
        walls: Vec<Wall>,
        neighbors: NeighborList,
        time: f64,
        (periodic, planar): (&Periodic, bool),
    ) -> Result<World> {
        if planar {
            crate::planar::check_plane(&particles)?;
            crate::planar::make_discs(&mut particles);
        }
        for p in particles.pos.iter_mut() {
            *p = periodic.wrap(*p);
        }
        let n = particles.len();
        Ok(World {
            particles,
            walls,
            neighbors,
            wall_history: WallHistory::new(n),
            wall_runtime: WallRuntime::default(),
            time,
            step: 0,
            doors: Default::default(),
            collisions: 0,
            tally: Default::default(),
            inserts: Default::default(),
        })
    }

    /// The contact history of every touching pair, keyed by the particles' ids (owner,
    /// partner) and the partner's image beside the owner (whole periods from where both are).
    pub(crate) fn pair_history_by_id(&self, periodic: &Periodic) -> Vec<PairHistory> {
        self.pair_histories(periodic, |_| true).collect()
    }

    /// [`World::pair_history_by_id`], one pair after another, of the rows of grains `row`
    /// takes.
    pub(crate) fn pair_histories<'a>(
        &'a self,
        periodic: &Periodic,
        row: impl Fn(usize) -> bool + 'a,
    ) -> impl Iterator<Item = PairHistory> + 'a {
        let (p, nl) = (&self.particles, &self.neighbors);
        let period = periodic.lengths();
        (0..nl.len())
            .filter(move |&s| nl.slip[s].touching() && row(nl.owner(s)))
            .map(move |s| {
                let i = nl.owner(s);
                let (k, image) = nl.image_now(i, nl.partner[s] as usize, &p.pos, period);
                (p.id[i], p.id[k], Some(image), nl.history(s))
            })
    }

    /// Puts back, after a rebuild, the history of the pairs `pairs` keyed by ids (owner,
    /// partner) and image; pairs with a particle gone, or no longer listed, are dropped. A
    /// pair whose partner now comes first has its roles exchanged
    /// ([`ContactState::swapped`]), and its image turned round.
    pub(crate) fn set_pair_history_by_id(&mut self, pairs: &[PairHistory]) {
        let index = self.particles.index_map();
        self.set_pair_history_by(pairs, |id| index.get(&id).copied());
    }

    /// [`World::set_pair_history_by_id`] with the pairs keyed by other numbers, each
    /// grain's index found by `index` (`None` for a grain not here).
    pub(crate) fn set_pair_history_by(
        &mut self,
        pairs: &[PairHistory],
        index: impl Fn(u64) -> Option<usize>,
    ) {
        let entries: Vec<_> = pairs
            .iter()
            .filter_map(|(a, b, image, s)| {
                let (i, j) = (index(*a)?, index(*b)?);
                Some(if i <= j {
                    (i, j, *image, s.clone())
                } else {
                    (j, i, image.map(|n| n.map(|a| -a)), s.swapped())
                })
            })
            .collect();
        self.neighbors.set_history(&entries);
    }

    /// Puts the particles in `order` (the particle at new index k is the one at `order[k]`)
    /// with all their state, and rebuilds the neighbour list keeping every contact's history.
    /// The impulse tallies and a stepper's per-grain scratch are not carried: the soft-sphere
    /// stepper permutes its own (`SoftStepper::sort`), and
    /// `simulation.sort_every` is refused for the hard-sphere methods.
    pub fn reorder(&mut self, order: &[usize], periodic: &Periodic) {
        use crate::particles::permute;
        debug_assert!(
            order.len() == self.particles.len() && {
                let mut seen = vec![false; order.len()];
                order
                    .iter()
                    .all(|&k| !std::mem::replace(&mut seen[k], true))
            },
            "not a permutation of the particles"
        );
        let pairs = self.pair_history_by_id(periodic);
        self.particles.permute(order);
        self.wall_history.permute(order);
        permute(&mut self.wall_runtime.attached, order);
        self.neighbors = self.neighbors.emptied();
        self.rebuild_neighbors(periodic);
        self.set_pair_history_by_id(&pairs);
    }

    /// The order along the Morton curve the particles are made in
    /// (`particles::curve_order`), when they have mixed away from it; `None` when
    /// they are in it (`simulation.sort_every`).
    pub fn curve_order(&self) -> Option<Vec<usize>> {
        let order = curve_order(&self.particles.pos, 2.0 * self.particles.max_radius());
        order
            .iter()
            .enumerate()
            .any(|(k, &o)| k != o)
            .then_some(order)
    }

    /// The skin sized from the fastest grain, at `fastest` (m/s), or wall the near lists follow
    /// ([`crate::walls::near::listable`]), when the list sizes it so.
    pub(crate) fn auto_skin(&self, fastest: f64) -> Option<f64> {
        let auto = self.neighbors.auto?;
        let walls = self
            .walls
            .iter()
            .filter(|w| crate::walls::near::listable(w));
        let wall = walls.map(|w| w.motion.pose(self.time).velocity.length());
        Some(auto.size(wall.fold(fastest, f64::max)))
    }

    /// Rebuilds the neighbour list (keeping the history of listed pairs) and the near lists of
    /// the walls; a stepper's buffers per slot follow the list's build count
    /// ([`NeighborList::builds`]).
    pub fn rebuild_neighbors(&mut self, periodic: &Periodic) {
        if let Some(skin) = self.auto_skin(crate::particles::fastest(&self.particles.vel)) {
            self.neighbors.skin = skin;
        }
        (self.neighbors).build(&self.particles.pos, &self.particles.radius, periodic);
        self.relist_walls(periodic);
    }

    /// Rebuilds the near lists of the walls for the list's skin, keeping every wall contact
    /// (the second half of [`World::rebuild_neighbors`]).
    pub(crate) fn relist_walls(&mut self, periodic: &Periodic) {
        let mut near = crate::walls::near::near_walls(
            &self.walls,
            &self.particles.pos,
            &self.particles.radius,
            self.neighbors.skin,
            periodic,
            self.time,
        );
        let rt = &self.wall_runtime;
        if !rt.bodies.is_empty() {
            near.without(|w| rt.is_free(w));
        }
        self.wall_history.relist(near, &self.walls);
    }
}
