//! When a pair in free flight is to be evaluated again (the step its meeting can first fall
//! in), and when a grain can first have left its cell or half the skin: calendars of steps.
//!
//! Between collisions a pair moves in straight lines, so eq 3 of 000 evaluated at one step
//! tells when its meeting comes, and nothing about it changes until one of its grains
//! collides. The time found at a later step from the positions of that step differs only by
//! round-off (of the order of 1e-16 of the box per step), so a pair is looked at again one
//! step earlier than its meeting could need, with margins (`MARGIN`) many orders of magnitude
//! above that round-off: evaluated then from the positions of that step, it gives the time
//! the full evaluation gives, bit for bit.

use glam::DVec3;

use crate::ghosts::Image;

/// A pair to evaluate: grain i and grain j at image s (whole periods, as the drift's
/// separation reads them), with each grain's count of changes when the pair was filed: an
/// entry whose counts are no longer the grains' is stale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Entry {
    pub i: u32,
    pub j: u32,
    pub s: Image,
    pub changes: [u32; 2],
}

/// Steps the ring holds; entries due later wait in a list that is looked through every half
/// turn.
const RING: u64 = 128;

/// Relative margin of the calendar (1e-6): a discriminant within it of zero is a grazing
/// pair, whose time is ill-conditioned and is bounded instead; a time is moved a step earlier
/// when it lies within it of a step's end. Round-off, 1e-16 per operation, is ten orders of
/// magnitude below.
const MARGIN: f64 = 1e-6;

/// Entries filed by the step they are due at: pairs, or grains to look at.
#[derive(Clone, Debug)]
pub(super) struct Calendar<T> {
    ring: Vec<Vec<T>>,
    later: Vec<(u64, T)>,
    /// The ring holds the steps `mark..mark + RING`.
    mark: u64,
}

impl<T> Default for Calendar<T> {
    fn default() -> Self {
        Calendar {
            ring: Vec::new(),
            later: Vec::new(),
            mark: 0,
        }
    }
}

impl<T> Calendar<T> {
    /// Empty, from step `step` on.
    pub fn clear(&mut self, step: u64) {
        self.ring.iter_mut().for_each(Vec::clear);
        self.ring.resize_with(RING as usize, Vec::new);
        self.later.clear();
        self.mark = step;
    }

    /// Files `e` for step `due`.
    pub fn file(&mut self, due: u64, e: T) {
        if due < self.mark + RING {
            self.ring[(due % RING) as usize].push(e);
        } else {
            self.later.push((due, e));
        }
    }

    /// Swaps the entries due at `step` into `out` (emptied first); steps are taken in order.
    pub fn take(&mut self, step: u64, out: &mut Vec<T>) {
        if step >= self.mark + RING / 2 {
            self.mark = step;
            let later = std::mem::take(&mut self.later);
            for (due, e) in later {
                self.file(due, e);
            }
        }
        out.clear();
        std::mem::swap(&mut self.ring[(step % RING) as usize], out);
    }
}

/// Steps after this one (at drift time `now`, s) whose drift can hold the instant `time` (s)
/// ahead: the step it falls in, or the one before within the margin, and at least the next
/// one; `None` beyond 1e15 steps (never, as for a grain at rest), the next step for an
/// undefined time.
pub(super) fn steps_to_drift(time: f64, now: f64, dt: f64) -> Option<u64> {
    ahead(((now + time) / dt * (1.0 - MARGIN) - MARGIN).floor())
}

/// Steps after this one (at drift time `now`, s) at whose start a grain `time` (s) of
/// straight flight away from something can have reached it: the first step starting at or
/// after that instant, or the one before within the margin, and at least the next one.
pub(super) fn steps_to_start(time: f64, now: f64, dt: f64) -> Option<u64> {
    ahead(((now + time) / dt * (1.0 - MARGIN) - MARGIN).ceil())
}

/// A whole number of steps ahead: at least one, `None` from 1e15 on.
fn ahead(steps: f64) -> Option<u64> {
    if steps >= 1e15 {
        None
    } else if steps >= 1.0 {
        Some(steps as u64)
    } else {
        Some(1)
    }
}

/// Eq 3 of 000 for two spheres at ρ (m) with relative velocity v (m/s) and contact distance
/// s (m) at drift time `now` (s), with what the calendar makes of it: the time to their
/// meeting as [`pair_collision_time`](super::pair_collision_time) gives it (the same bits),
/// and the steps after this one at which they are to be evaluated again, `None` when they
/// cannot meet while they move straight; `dt` is the step (s).
///
/// With b = ρ·v, c = ρ² − s² and D = b² − c v² (000 eq 1–3): a pair touching or within a
/// hair of it (c ≤ MARGIN s²) is looked at every step (a grazing contact's sign of b is
/// round-off); a receding pair (b ≥ 0) or one that misses (D below zero by more than the
/// margin of its scale b² + c v², D/v² being s² less the square of the closest approach,
/// which straight motion keeps) never meets. A clear hit is due the step before its time
/// t = c/(−b + √D) could fall in; a grazing one (|D| within the margin) at the step before
/// the gap could close at the full relative speed, (|ρ| − s)/|v|, a bound on any meeting.
pub(super) fn meet(rho: DVec3, v: DVec3, s: f64, now: f64, dt: f64) -> (Option<f64>, Option<u64>) {
    let b = rho.dot(v);
    let v2 = v.length_squared();
    let c = rho.length_squared() - s * s;
    let disc = b * b - c * v2;
    // As `pair_collision_time` reads them (NaN included).
    let hit = if b >= 0.0 || disc < 0.0 {
        None
    } else {
        Some(c / (-b + disc.sqrt()))
    };
    let scale = b * b + c * v2;
    let due = if c <= MARGIN * s * s {
        Some(1)
    } else if b >= 0.0 || disc < -MARGIN * scale {
        None
    } else {
        let t = match hit {
            Some(t) if disc > MARGIN * scale => t,
            _ => (rho.length() - s) / v2.sqrt(),
        };
        // In a later step k the time is t − k dt; it falls in that step's drift once ≤ dt.
        steps_to_drift(t, now, dt)
    };
    (hit, due)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hard::pair_collision_time;

    const S: f64 = 0.02;
    const DT: f64 = 1e-3;

    /// A head-on pair due in k steps is evaluated at the step before the one its time falls
    /// in: from that step's positions the time is then at most one step.
    #[test]
    fn a_clear_hit_is_due_the_step_its_meeting_falls_in() {
        for (gap, speed) in [(0.01, 1.0), (0.0301, 3.0), (0.5, 0.01), (1e-4, 2.0)] {
            let rho = DVec3::new(S + gap, 0.0, 0.0);
            let v = DVec3::new(-speed, 0.0, 0.0);
            let t = pair_collision_time(rho, v, S).expect("meets");
            let k = meet(rho, v, S, 0.0, DT).1.expect("due") as f64;
            // At step k the time left is t − k dt: past zero, and within a step of the
            // drift's end but for the margin.
            let left = t - k * DT;
            if t > 2.0 * DT {
                assert!(left > 0.0, "gap {gap}: due after its meeting ({left})");
                assert!(
                    left <= DT + 2.0 * MARGIN * t,
                    "gap {gap}: due {k} steps ahead, t {t}"
                );
            } else {
                assert_eq!(
                    k, 1.0,
                    "gap {gap}: a meeting within two steps is due at the next"
                );
            }
        }
    }

    /// The time is eq 3's as `pair_collision_time` gives it, bit for bit, hits, misses,
    /// overlaps and receding pairs alike.
    #[test]
    fn the_time_is_that_of_eq_3() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut hits = 0;
        for _ in 0..10_000 {
            let r = |rng: &mut rand_chacha::ChaCha8Rng| {
                DVec3::new(rng.random(), rng.random(), rng.random()) - 0.5
            };
            let (rho, v) = (r(&mut rng) * 0.1, r(&mut rng));
            let t = meet(rho, v, S, 0.0, DT).0;
            assert_eq!(
                t.map(f64::to_bits),
                pair_collision_time(rho, v, S).map(f64::to_bits)
            );
            hits += usize::from(t.is_some());
        }
        assert!(hits > 500, "{hits} hits: a real test");
    }

    /// Receding and missing pairs never meet; touching ones are looked at every step; a pair
    /// missing or hitting by a hair is bounded by the gap at full speed.
    #[test]
    fn receding_missing_touching_and_grazing_pairs() {
        let x = DVec3::X;
        assert_eq!(meet(x * 0.05, x, S, 0.0, DT).1, None, "receding");
        let miss = DVec3::new(0.05, 0.021, 0.0);
        assert_eq!(meet(miss, -x, S, 0.0, DT).1, None, "passes 1 mm wide");
        assert_eq!(meet(x * S, x, S, 0.0, DT).1, Some(1), "touching, receding");
        // Closest approach s (1 ± 1e-9): grazing; the gap 0.03 at speed 1 takes 30 steps.
        for off in [1.0 - 1e-9, 1.0 + 1e-9] {
            let graze = DVec3::new(0.05, S * off, 0.0);
            let k = meet(graze, -x, S, 0.0, DT).1.expect("grazing is looked at");
            let bound = (graze.length() - S) / DT;
            assert!(
                (k as f64) <= bound && (k as f64) > bound - 2.0,
                "{k} against {bound}"
            );
        }
    }

    /// Entries come back at their step, those far ahead too, in filing order.
    #[test]
    fn the_calendar_returns_each_entry_at_its_step() {
        let mut cal = Calendar::<Entry>::default();
        cal.clear(10);
        let e = |i: u32| Entry {
            i,
            j: 0,
            s: [0; 3],
            changes: [0; 2],
        };
        for (k, due) in [11, 12, 12, 10 + RING, 10 + 5 * RING + 3]
            .iter()
            .enumerate()
        {
            cal.file(*due, e(k as u32));
        }
        let mut out = Vec::new();
        let mut seen = Vec::new();
        for step in 10..10 + 6 * RING {
            cal.take(step, &mut out);
            seen.extend(out.iter().map(|x| (step, x.i)));
        }
        let expected = [
            (11, 0),
            (12, 1),
            (12, 2),
            (10 + RING, 3),
            (10 + 5 * RING + 3, 4),
        ];
        assert_eq!(seen, expected);
    }
}
