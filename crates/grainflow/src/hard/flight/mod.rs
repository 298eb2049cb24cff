//! Free flight between collisions (000 §2.1): with no body force and no wall a hard sphere
//! moves in a straight line until it collides, so a pair's predicted meeting stays true until
//! one of its two grains collides. The drift then need not evaluate every listed pair at every
//! step, as it must where gravity bends the paths.
//!
//! [`Flight`] files each approaching pair in a calendar for the step its meeting can first
//! fall in ([`super::calendar`]), and evaluates a pair again only then, after one of its grains
//! collided, or when one of them came into a new cell of a grid whose cells are wider than any
//! pair can close in one step: partners come within reach only so (event-driven molecular
//! dynamics keeps its candidates by cell crossings likewise; Rapaport, *The Art of Molecular
//! Dynamics Simulation*, 2004, ch. 14). A pair due is evaluated with eq 3 of 000 from the
//! step's positions, as the evaluation of every listed pair does it, so the collisions and the
//! bits are those of that evaluation: the calendar only says which pairs may be skipped.
//!
//! The drift's rule for its list of all grains (rebuilt at a step when a grain would leave half
//! the skin, and within a drift when a collision speeds a grain past it) is kept as a
//! reference: where that list would be rebuilt within a drift, every grain is brought to that
//! instant as before, so that positions keep their bits. Only the reference's anchors are kept;
//! no list is made.

use glam::DVec3;

mod reference;

pub(super) use reference::anchor_reference;

use super::calendar::{meet, steps_to_start, Calendar, Entry};
use super::DriftState;
use crate::boundary::Periodic;
use crate::ghosts::{count_wrap, periods, Image};
use crate::particles::Particles;
use crate::physics::Physics;
use crate::world::World;

/// No cell.
const NONE: u32 = u32::MAX;

/// Headroom of the cells over the fastest grain of the step they are sized at: they are made
/// again only when a grain gets 5 % faster (or the fastest slows to half). Measured in `bench
/// hard-gas`: narrower cells cost less than the two settlings they bring in 2000 steps.
const HEADROOM: f64 = 1.05;

/// The cells: at least a given width, filling a box periodic along every axis, three or more
/// along each.
#[derive(Clone, Debug, Default)]
struct Grid {
    n: [i64; 3],
    lo: DVec3,
    h: DVec3,
    l: DVec3,
}

impl Grid {
    /// Cells at least `width` wide (m) filling the box, at most about `most` in all; `None`
    /// unless every axis is periodic with room for three.
    fn new(periodic: &Periodic, width: f64, most: usize) -> Option<Grid> {
        let per_axis = ((most as f64).cbrt().ceil()).max(3.0);
        let mut g = Grid::default();
        for (a, axis) in periodic.axes().iter().enumerate() {
            let [lo, hi] = (*axis)?;
            let n = ((hi - lo) / width).floor().min(per_axis);
            // (NaN, from a NaN width, is no room either.)
            if n.is_nan() || n < 3.0 {
                return None;
            }
            (g.n[a], g.lo[a], g.l[a]) = (n as i64, lo, hi - lo);
            g.h[a] = g.l[a] / n;
        }
        Some(g)
    }

    /// The narrowest cell (m).
    fn width(&self) -> f64 {
        self.h.min_element()
    }

    /// Cell coordinate of `x` along axis `a`, unwrapped (outside 0..n beyond the box).
    fn coord(&self, x: f64, a: usize) -> i64 {
        ((x - self.lo[a]) / self.h[a]).floor() as i64
    }

    /// The cell of `x` in the box (round-off at the upper face kept inside).
    fn cell(&self, x: DVec3) -> u32 {
        let c: [i64; 3] = std::array::from_fn(|a| self.coord(x[a], a).clamp(0, self.n[a] - 1));
        ((c[2] * self.n[1] + c[1]) * self.n[0] + c[0]) as u32
    }

    /// The coordinates of a cell.
    fn coords(&self, cell: u32) -> [i64; 3] {
        let c = i64::from(cell);
        [
            c % self.n[0],
            (c / self.n[0]) % self.n[1],
            c / (self.n[0] * self.n[1]),
        ]
    }

    fn count(&self) -> usize {
        self.n.iter().product::<i64>() as usize
    }
}

/// Readies the free flight of this step, where grains move straight between collisions (no
/// body force, no wall) in a box periodic along every axis: taken over from the world's list,
/// or from the last step. Returns the fastest grain's speed then; elsewhere `None`, with the
/// world's list handed back when a flight ends.
pub(super) fn fly(
    world: &mut World,
    physics: &Physics,
    ds: &mut DriftState,
    dt: f64,
) -> Option<f64> {
    let free = world.walls.is_empty()
        && physics.uniform_acceleration() == Some(DVec3::ZERO)
        && physics.periodic.axes().iter().all(Option::is_some);
    if free {
        let flight = ds.flight.get_or_insert_with(|| {
            let nl = &world.neighbors;
            let wraps = nl.ghosts.as_ref().map_or(&[][..], |g| &g.wraps[..]);
            Box::new(Flight::new(nl.reference(), wraps))
        });
        let ready = flight.ready(&world.particles, &physics.periodic, dt, world.step);
        if ready.is_some() {
            return ready;
        }
    }
    if let Some(f) = ds.flight.take().filter(|f| f.started()) {
        f.hand_back(world, &physics.periodic);
    }
    None
}

/// The pairs' calendar, the cells and the reference of a free flight, kept from step to step.
#[derive(Clone, Debug, Default)]
pub(super) struct Flight {
    grid: Grid,
    /// The grains of each cell, `cap` slots for each (more made when one fills), the first
    /// `fill` taken: a cell is read at once, not grain after grain.
    slots: Vec<u32>,
    fill: Vec<u32>,
    cap: usize,
    /// Each grain's cell, from where it was at the start of the step, and its wraps then.
    cell: Vec<u32>,
    home: Vec<Image>,
    /// Whole periods each grain was wrapped by since the flight began.
    pub wraps: Vec<Image>,
    /// Each grain's count of collisions: what was filed for it before is stale.
    changes: Vec<u32>,
    /// Each grain's speed (m/s), and the largest (`None` after the fastest slowed down).
    speed: Vec<f64>,
    top: Option<f64>,
    /// Grains whose pairs in the 27 cells about them are evaluated at the next sweep.
    renew: Vec<u32>,
    renewing: Vec<bool>,
    /// The pairs by the step they are due at, and the grains by the step they can first have
    /// left their cells at (each with its count of collisions then).
    calendar: Calendar<Entry>,
    crossings: Calendar<(u32, u32)>,
    /// Scratch: the entries due at a step, the grains looked at.
    due: Vec<Entry>,
    looked: Vec<(u32, u32)>,
    /// The fastest grain of the drift so far (m/s): no grain has moved faster since its start.
    pub fastest: f64,
    /// The largest radius (m).
    r_max: f64,
    /// The speed the cells were sized for (m/s).
    sized_for: f64,
    /// Where each grain was when the reference list was last made, and its wraps then; the
    /// grains by the step they can first have gone half its skin at ([`reference`]).
    anchor: Vec<DVec3>,
    anchor_wraps: Vec<Image>,
    watch: Calendar<(u32, u32)>,
    /// The grains' places and velocities after the last step: others were set from outside.
    seen_pos: Vec<DVec3>,
    seen_vel: Vec<DVec3>,
}

impl Flight {
    /// A flight taking over the reference from the world's list: its anchors, and the wraps
    /// its ghosts counted since.
    pub fn new(anchor: &[DVec3], ghost_wraps: &[Image]) -> Flight {
        if anchor.len() != ghost_wraps.len() {
            return Flight::default(); // no reference: made at the first step
        }
        Flight {
            anchor: anchor.to_vec(),
            anchor_wraps: ghost_wraps.iter().map(|w| w.map(|n| -n)).collect(),
            wraps: vec![[0; 3]; anchor.len()],
            ..Flight::default()
        }
    }

    /// True once the cells were made (the world's list then went unkept).
    pub fn started(&self) -> bool {
        !self.fill.is_empty()
    }

    /// Ready for a step of `dt` at step number `step`: the cells made again (every grain
    /// renewed, the reference's grains filed anew) when the grains were renumbered, set from
    /// outside, or outgrew them; every grain that can have come into a new cell put in it,
    /// with the pairs it now has in cells about it that it had not. Returns the speed of the
    /// fastest grain (`particles::fastest`, the same bits), or `None` where free flight cannot
    /// be followed: a box without three cells along each axis.
    pub fn ready(&mut self, p: &Particles, periodic: &Periodic, dt: f64, step: u64) -> Option<f64> {
        let n = p.len();
        let same = self.seen_pos.len() == n && self.seen_pos == p.pos && self.seen_vel == p.vel;
        if !same {
            self.speed.clear();
            self.speed.extend(p.vel.iter().map(|v| v.length()));
            self.top = None;
        }
        let v_max = *self
            .top
            .get_or_insert_with(|| self.speed.iter().copied().fold(0.0, f64::max));
        let reach = |speed: f64, r_max: f64| 2.0 * r_max + 2.0 * speed * dt;
        // Cells too narrow for the fastest grain, or sized for grains more than twice as fast.
        let fits = !self.fill.is_empty()
            && reach(v_max, self.r_max) <= self.grid.width() * (1.0 - 1e-9)
            && 2.0 * v_max >= self.sized_for;
        self.fastest = v_max;
        if same && fits {
            return Some(v_max);
        }
        self.r_max = p.radius.iter().copied().fold(0.0, f64::max);
        self.sized_for = HEADROOM * v_max;
        let grid = Grid::new(periodic, reach(self.sized_for, self.r_max), 8 * n + 27)?;
        self.settle(grid, n, step);
        for k in 0..n {
            self.link(k, self.grid.cell(p.pos[k]));
            self.watch_cell(k, p, (0.0, dt), step);
            self.renew(k);
        }
        if self.anchor.len() == n {
            // Where grains were moved from outside, their bounds on the move are void: each is
            // looked at in this step.
            self.watch.clear(step);
            for k in 0..n {
                self.watch.file(step, (k as u32, self.changes[k]));
            }
        }
        Some(v_max)
    }

    /// Puts in its cell every grain due to be looked at that has come into a new one, with
    /// the pairs new to it evaluated; files each again.
    fn cross(
        &mut self,
        p: &Particles,
        dt: f64,
        step: u64,
        offer: &mut impl FnMut(usize, (usize, Image), f64),
    ) {
        let mut due = std::mem::take(&mut self.looked);
        self.crossings.take(step, &mut due);
        for &(k, changes) in &due {
            let k = k as usize;
            if changes != self.changes[k] {
                continue;
            }
            let c = self.grid.cell(p.pos[k]);
            if c != self.cell[k] || self.wraps[k] != self.home[k] {
                let was = (self.cell[k], self.home[k]);
                self.unlink(k);
                self.link(k, c);
                self.home[k] = self.wraps[k];
                if !self.renewing[k] {
                    self.came_in(k, was, p, (dt, step), offer);
                }
            }
            self.watch_cell(k, p, (0.0, dt), step);
        }
        self.looked = due;
    }

    /// Files grain k, at drift time `now` of a step of `dt`, for the step it can first have
    /// left its cell at: the first face its straight path meets (the cell taken 1e-6 of its
    /// width narrower on every side), or the next step where it is out of its cell already.
    fn watch_cell(&mut self, k: usize, p: &Particles, (now, dt): (f64, f64), step: u64) {
        let g = &self.grid;
        let back: Image = std::array::from_fn(|a| self.wraps[k][a] - self.home[k][a]);
        let x = p.pos[k] + periods(back, g.l);
        let c = g.coords(self.cell[k]);
        let v = p.vel[k];
        let mut time = f64::INFINITY;
        for a in 0..3 {
            let lo = g.lo[a] + c[a] as f64 * g.h[a] + 1e-6 * g.h[a];
            let hi = g.lo[a] + (c[a] + 1) as f64 * g.h[a] - 1e-6 * g.h[a];
            let face = if v[a] > 0.0 { hi } else { lo };
            if !(lo..=hi).contains(&x[a]) {
                time = 0.0; // out already (a collision turned it back): put it in its cell now
            } else if v[a] != 0.0 {
                time = time.min((face - x[a]) / v[a]);
            }
        }
        if let Some(ahead) = steps_to_start(time.max(0.0), now, dt) {
            self.crossings
                .file(step + ahead, (k as u32, self.changes[k]));
        }
    }

    /// Grain k collided at drift time `now` of a step of `dt` (its place advanced there): what
    /// was filed for it is stale, its speed is new, and it is filed again for its cell and for
    /// the reference's half skin.
    pub fn collided(
        &mut self,
        k: usize,
        p: &Particles,
        (now, dt): (f64, f64),
        skin: f64,
        step: u64,
    ) {
        self.changes[k] = self.changes[k].wrapping_add(1);
        let (was, speed) = (self.speed[k], p.vel[k].length());
        self.speed[k] = speed;
        self.fastest = self.fastest.max(speed);
        match self.top {
            Some(top) if speed > top => self.top = Some(speed),
            Some(top) if was == top && speed < top => self.top = None,
            _ => {}
        }
        self.watch_cell(k, p, (now, dt), step);
        self.look_after(k, p.pos[k], (now, dt), skin, step);
    }

    /// Evaluates the pairs grain k has in the cells about its new cell that were not about the
    /// cell it was in (`was`: that cell and the grain's wraps then): partners come within reach
    /// only so. Each move is taken with the other grains where they are put so far, so a pair
    /// that comes within reach by two moves is evaluated at one of them.
    fn came_in(
        &mut self,
        k: usize,
        (cell, home): (u32, Image),
        p: &Particles,
        (dt, step): (f64, u64),
        offer: &mut impl FnMut(usize, (usize, Image), f64),
    ) {
        let g = &self.grid;
        let (now, then) = (g.coords(self.cell[k]), g.coords(cell));
        // The move in cells, unwrapped.
        let shift: [i64; 3] = std::array::from_fn(|a| {
            now[a] + i64::from(self.home[k][a] - home[a]) * g.n[a] - then[a]
        });
        let mut fresh = std::mem::take(&mut self.due);
        fresh.clear();
        let mut take = |j: usize, s: Image| {
            if !self.renewing[j] {
                fresh.push(self.entry(k, j, s));
            }
        };
        let about = [now.map(|x| x - 1), now.map(|x| x + 1)];
        if shift.iter().any(|d| d.abs() > 1) {
            self.visit(k, about, &mut take); // moved past the cells about it: all are new
        } else {
            // A move by one cell along axis a brings in the layer beyond, d_a = sign(D_a);
            // the layers of the axes taken before are left out.
            for a in (0..3).filter(|&a| shift[a] != 0) {
                let [mut lo, mut hi] = about;
                (lo[a], hi[a]) = (now[a] + shift[a], now[a] + shift[a]);
                for b in (0..a).filter(|&b| shift[b] != 0) {
                    if shift[b] > 0 {
                        hi[b] = now[b];
                    } else {
                        lo[b] = now[b];
                    }
                }
                self.visit(k, [lo, hi], &mut take);
            }
        }
        for e in fresh.drain(..) {
            self.evaluate(p, e, dt, step, offer);
        }
        self.due = fresh;
    }

    /// Makes the cells of `grid` for `n` grains, none in a cell yet, every grain to be renewed
    /// and the calendar empty from `step` on.
    fn settle(&mut self, grid: Grid, n: usize, step: u64) {
        self.cap = 4;
        self.fill.clear();
        self.fill.resize(grid.count(), 0);
        self.slots.clear();
        self.slots.resize(grid.count() * self.cap, NONE);
        self.grid = grid;
        self.cell.clear();
        self.cell.resize(n, NONE);
        if self.wraps.len() != n {
            self.wraps = vec![[0; 3]; n];
        }
        self.home.clone_from(&self.wraps);
        self.changes.resize(n, 0);
        self.renewing.clear();
        self.renewing.resize(n, false);
        self.renew.clear();
        self.calendar.clear(step);
        self.crossings.clear(step);
    }

    /// Puts grain k in cell `c`, twice the slots for every cell made where it was full.
    fn link(&mut self, k: usize, c: u32) {
        let c = c as usize;
        if self.fill[c] as usize == self.cap {
            let cap = 2 * self.cap;
            let mut slots = vec![NONE; self.fill.len() * cap];
            for (new, old) in slots.chunks_mut(cap).zip(self.slots.chunks(self.cap)) {
                new[..self.cap].copy_from_slice(old);
            }
            (self.slots, self.cap) = (slots, cap);
        }
        self.slots[c * self.cap + self.fill[c] as usize] = k as u32;
        self.fill[c] += 1;
        self.cell[k] = c as u32;
    }

    /// Takes grain k out of its cell (the cell's last grain takes its slot).
    fn unlink(&mut self, k: usize) {
        let c = self.cell[k] as usize;
        if c == NONE as usize {
            return;
        }
        let cell = &mut self.slots[c * self.cap..c * self.cap + self.fill[c] as usize];
        if let Some(at) = cell.iter().position(|&j| j as usize == k) {
            let last = cell.len() - 1;
            cell.swap(at, last);
            self.fill[c] -= 1;
        }
    }

    /// Grain k's pairs in the cells about it are evaluated afresh at the next sweep (where
    /// they were not filed when it changed).
    pub fn renew(&mut self, k: usize) {
        if !self.renewing[k] {
            self.renewing[k] = true;
            self.renew.push(k as u32);
        }
    }

    /// The separation (m) from grain i to grain j's image `s`, from their plain difference
    /// `d`: (s + w_j − w_i) · L added, nothing where that is no period at all (as the ghosts
    /// of a list add it, `ghosts.rs`).
    #[inline]
    pub fn separation(&self, i: usize, (j, s): (usize, Image), d: DVec3) -> DVec3 {
        let (wi, wj) = (self.wraps[i], self.wraps[j]);
        let n: Image = std::array::from_fn(|a| s[a] + wj[a] - wi[a]);
        if n == [0; 3] {
            d
        } else {
            d + periods(n, self.grid.l)
        }
    }

    /// Counts the wrap of grain k from `raw` to `wrapped` (m).
    pub fn count_wrap(&mut self, k: usize, raw: DVec3, wrapped: DVec3) {
        count_wrap(&mut self.wraps[k], raw, wrapped, self.grid.l);
    }

    /// The first sweep of a drift of `dt` at step `step`, from the grains' places at its
    /// start: the pairs due and the pairs of renewed grains evaluated with eq 3 (000), each
    /// meeting within the drift offered to `offer` (grain, partner, time), each pair filed
    /// again for the step it is next due at.
    pub fn sweep(
        &mut self,
        p: &Particles,
        dt: f64,
        step: u64,
        mut offer: impl FnMut(usize, (usize, Image), f64),
    ) {
        self.cross(p, dt, step, &mut offer);
        let mut due = std::mem::take(&mut self.due);
        self.calendar.take(step, &mut due);
        for e in due.drain(..) {
            let current = [self.changes[e.i as usize], self.changes[e.j as usize]];
            if e.changes == current {
                self.evaluate(p, e, dt, step, &mut offer);
            }
        }
        self.due = due;
        let renew = std::mem::take(&mut self.renew);
        for &k in &renew {
            let k = k as usize;
            let c = self.grid.coords(self.cell[k]);
            let span = [c.map(|x| x - 1), c.map(|x| x + 1)];
            let mut pairs = std::mem::take(&mut self.due);
            self.visit(k, span, |j, s| {
                // A pair of two renewed grains once, from the lower.
                if !(self.renewing[j] && j < k) {
                    pairs.push(self.entry(k, j, s));
                }
            });
            for e in pairs.drain(..) {
                self.evaluate(p, e, dt, step, &mut offer);
            }
            self.due = pairs;
        }
        for &k in &renew {
            self.renewing[k as usize] = false;
        }
        self.renew = renew;
        self.renew.clear();
    }

    /// Pair (i, j at image s) as the grains are now.
    pub fn entry(&self, i: usize, j: usize, s: Image) -> Entry {
        Entry {
            i: i as u32,
            j: j as u32,
            s,
            changes: [self.changes[i], self.changes[j]],
        }
    }

    /// Evaluates pair `e` from the places at the drift's start (000 eq 3, as the full
    /// evaluation does), offers its meeting if within the drift, and files it again.
    fn evaluate(
        &mut self,
        p: &Particles,
        e: Entry,
        dt: f64,
        step: u64,
        offer: &mut impl FnMut(usize, (usize, Image), f64),
    ) {
        let (i, j) = (e.i as usize, e.j as usize);
        if p.inv_mass[i] == 0.0 && p.inv_mass[j] == 0.0 {
            return;
        }
        let rho = self.separation(i, (j, e.s), p.pos[j] - p.pos[i]);
        let (v, reach) = (p.vel[j] - p.vel[i], p.radius[i] + p.radius[j]);
        let (hit, due) = meet(rho, v, reach, 0.0, dt);
        if let Some(t) = hit {
            let at = t.max(0.0);
            if at <= dt {
                offer(i, (j, e.s), at);
                offer(j, (i, e.s.map(|n| -n)), at);
            }
        }
        if let Some(ahead) = due {
            self.calendar.file(step + ahead, e);
        }
    }

    /// Every grain (with its image) whose place at the start of the step lies within `reach`
    /// (m) of grain i's place `xi` (in its own frame, at some time of the drift), and those in
    /// the 27 cells about i's when `about`, i itself excepted; `visit` gets each.
    pub fn near(
        &self,
        i: usize,
        xi: DVec3,
        (reach, about): (f64, bool),
        visit: impl FnMut(usize, Image),
    ) {
        let g = &self.grid;
        // Into the frame of the start of the step, where the cells were found.
        let back: Image = std::array::from_fn(|a| self.wraps[i][a] - self.home[i][a]);
        let x = xi + periods(back, g.l);
        let mut span: [[i64; 3]; 2] = [
            std::array::from_fn(|a| g.coord(x[a] - reach, a)),
            std::array::from_fn(|a| g.coord(x[a] + reach, a)),
        ];
        if about {
            let c = g.coords(self.cell[i]);
            for a in 0..3 {
                span[0][a] = span[0][a].min(c[a] - 1);
                span[1][a] = span[1][a].max(c[a] + 1);
            }
        }
        self.visit(i, span, visit);
    }

    /// Every grain in the cells of coordinates `lo..=hi` (unwrapped: a coordinate beyond the
    /// box is a cell's image), with its image beside grain i as the separation reads it, i
    /// itself excepted.
    fn visit(&self, i: usize, [lo, hi]: [[i64; 3]; 2], mut visit: impl FnMut(usize, Image)) {
        let g = &self.grid;
        // Along each axis, each coordinate's cell in the box and image (whole periods).
        let wrap = |q: i64, a: usize| -> (i64, i32) {
            let n = g.n[a];
            match q {
                _ if (0..n).contains(&q) => (q, 0),
                _ if (-n..0).contains(&q) => (q + n, -1),
                _ if (n..2 * n).contains(&q) => (q - n, 1),
                _ => (q.rem_euclid(n), q.div_euclid(n) as i32),
            }
        };
        let home_i = self.home[i];
        for qz in lo[2]..=hi[2] {
            let (cz, sz) = wrap(qz, 2);
            for qy in lo[1]..=hi[1] {
                let (cy, sy) = wrap(qy, 1);
                let row = (cz * g.n[1] + cy) * g.n[0];
                for qx in lo[0]..=hi[0] {
                    let (cx, sx) = wrap(qx, 0);
                    let shift: Image = [sx, sy, sz];
                    let cell = (row + cx) as usize;
                    let first = cell * self.cap;
                    for &j in &self.slots[first..first + self.fill[cell] as usize] {
                        let j = j as usize;
                        if j == i && shift == [0; 3] {
                            continue;
                        }
                        // Image of j beside i at the start of the step, less the wraps since.
                        let s = std::array::from_fn(|a| shift[a] - self.home[j][a] + home_i[a]);
                        visit(j, s);
                    }
                }
            }
        }
    }

    /// How far (m) from grain i's place at drift time `now` another grain's place at the start
    /// of the step can be and the two still meet before `dt`: i moving at `speed`, every
    /// other no faster than the fastest so far (a margin of 1e-9 over it).
    pub fn reach(&self, p: &Particles, i: usize, speed: f64, now: f64, dt: f64) -> f64 {
        (p.radius[i] + self.r_max + speed * (dt - now) + self.fastest * dt) * (1.0 + 1e-9)
    }

    /// Files pair `e` for step `due`.
    pub fn file(&mut self, due: u64, e: Entry) {
        self.calendar.file(due, e);
    }

    /// Remembers the grains' places and velocities at the end of a step.
    pub fn saw(&mut self, p: &Particles) {
        self.seen_pos.clone_from(&p.pos);
        self.seen_vel.clone_from(&p.vel);
    }
}

#[cfg(test)]
mod tests;
