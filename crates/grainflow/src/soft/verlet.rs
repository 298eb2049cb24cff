//! The kicks and the drift of velocity Verlet (003 §2.1, eq 3–10): v += ½dt F/m and
//! ω += ½dt T/I, x += dt v with the wrap into the periodic box, taken as runs of numbers so
//! that each number gets the operations of one pass per grain.

use glam::DVec3;
use rayon::prelude::*;

use super::pairs::{self, Facts, Packed, Run, FAR};
use crate::particles::{Particles, CHUNK};
use crate::physics::Physics;
use crate::simd::{prefetch, Quad};
use crate::world::World;

/// The first half kick, v += ½dt F/m and ω += ½dt T/I ([`half_kick`]), then the drift
/// x += dt v with the wrap into the periodic box (003 §2.1, eq 3–6), chunk by chunk while the
/// chunk is in cache, and the grains' centres packed for the pair loop; returns whether the
/// neighbour list needs a rebuild ([`crate::neighbor::NeighborList::needs_rebuild`], asked
/// of each chunk as it drifts). Public for the benchmarks.
pub fn kick_drift_pack(world: &mut World, packed: &mut Packed, physics: &Physics, dt: f64) -> bool {
    match world.particles.len() >= FAR {
        true => kick_drift_pack_in::<true>(world, packed, physics, dt),
        false => kick_drift_pack_in::<false>(world, packed, physics, dt),
    }
}

/// [`kick_drift_pack`]; with `AHEAD` (grains too many for the caches: [`FAR`]) each chunk's
/// kicks ask for what the next chunk will read ([`ask`]).
#[inline(never)]
fn kick_drift_pack_in<const AHEAD: bool>(
    world: &mut World,
    packed: &mut Packed,
    physics: &Physics,
    dt: f64,
) -> bool {
    let periodic = &physics.periodic;
    let [lo, hi] = periodic.bounds();
    let h = 0.5 * dt;
    let Particles {
        pos,
        vel,
        omega,
        force,
        torque,
        inv_mass,
        inv_inertia,
        radius,
        material,
        ..
    } = &mut world.particles;
    let n = pos.len();
    let neighbors = &world.neighbors;
    packed.resize(n, neighbors);
    let stale = neighbors.stale_count(n);
    let period = periodic.lengths();
    // The shifts of grains that wrapped since the build, when the list keeps ghosts and was
    // built for these grains (else the rebuild to come packs them).
    let shifts = neighbors.ghosts.is_some() && !stale;
    let alike = pairs::reads_alike(physics);
    let (runs, shift) = (&mut packed.pos[..n], &mut packed.shift[..n]);
    // Where the runs lie, as addresses: the chunks below hold the runs themselves.
    let (at_x, at_v, at_w, at_f, at_t) = (
        address(pos),
        address(vel),
        address(omega),
        address(force),
        address(torque),
    );
    let (at_m, at_i, at_r) = (address(inv_mass), address(inv_inertia), address(radius));
    let (at_q, at_b) = (address(runs), neighbors.built_at(0..0).as_ptr() as usize);
    let flags = packed
        .shifted
        .par_iter_mut()
        .zip(packed.rewritten.par_iter_mut());
    let (left, facts) = pos
        .par_chunks_mut(CHUNK)
        .zip(vel.par_chunks_mut(CHUNK))
        .zip(omega.par_chunks_mut(CHUNK))
        .zip(runs.par_chunks_mut(CHUNK))
        .zip(shift.par_chunks_mut(CHUNK).zip(flags))
        .enumerate()
        .map(|(c, ((((xs, vs), ws), qp), (qs, flags)))| {
            let (a, b) = (c * CHUNK, c * CHUNK + xs.len());
            // The next chunk's grains from b, four at a time: half of its runs asked for by
            // each kick.
            let mut k = b;
            kick(vs, &force[a..b], &inv_mass[a..b], h, || {
                if AHEAD {
                    ask::<DVec3>(at_v, k);
                    ask::<DVec3>(at_f, k);
                    ask::<f64>(at_m, k);
                    ask::<DVec3>(at_x, k);
                    k += 4;
                }
            });
            let mut k = b;
            kick(ws, &torque[a..b], &inv_inertia[a..b], h, || {
                if AHEAD {
                    ask::<DVec3>(at_w, k);
                    ask::<DVec3>(at_t, k);
                    ask::<f64>(at_i, k);
                    ask::<f64>(at_r, k);
                    ask::<Run>(at_q, k);
                    ask::<DVec3>(at_b, k);
                    k += 4;
                }
            });
            drift(xs, vs, dt);
            // Whether every grain stayed in the box, folded without a branch per grain; only
            // a chunk with a grain out is wrapped, grain by grain.
            let inside = |x: &DVec3| (x.cmpge(lo) & x.cmplt(hi)).all();
            if !xs.iter().fold(true, |all, x| all & inside(x)) {
                for x in xs.iter_mut().filter(|x| !inside(x)) {
                    *x = periodic.wrap(*x);
                }
            }
            pairs::pack_chunk(qp, xs, &radius[a..b]);
            let (left, moved) = match stale {
                true => (false, true),
                false => neighbors.left_half_skin(a, xs, period),
            };
            if shifts {
                let built = neighbors.built_at(a..b);
                pairs::shift_chunk(qs, (flags.0, flags.1), xs, built, period, moved);
            }
            let radius = alike.then(|| &radius[a..b]);
            (
                left,
                Some(Facts::of(&material[a..b], &inv_mass[a..b], radius)),
            )
        })
        .reduce(
            || (false, None),
            |(l, f), (m, g)| (l || m, Facts::both(f, g)),
        );
    packed.note(facts, neighbors, period);
    stale || left
}

/// v += ½dt F/m, ω += ½dt T/I for every particle (fixed ones have zero inverses; 003 §2.1,
/// eq 3–6 and 9–10): one parallel pass, each chunk a `kick` for v and one for ω; public for the
/// benchmarks.
#[inline(never)]
pub fn half_kick(world: &mut World, dt: f64) {
    let Particles {
        vel,
        omega,
        force,
        torque,
        inv_mass,
        inv_inertia,
        ..
    } = &mut world.particles;
    let h = 0.5 * dt;
    vel.par_chunks_mut(CHUNK)
        .zip(omega.par_chunks_mut(CHUNK))
        .zip(force.par_chunks(CHUNK))
        .zip(torque.par_chunks(CHUNK))
        .zip(inv_mass.par_chunks(CHUNK))
        .zip(inv_inertia.par_chunks(CHUNK))
        .for_each(|(((((vs, ws), fs), ts), ims), iis)| {
            kick(vs, fs, ims, h, || {});
            kick(ws, ts, iis, h, || {});
        });
}

/// v += f (h w) for each grain's vector v, load f and inverse mass or inertia w, with the
/// vectors taken as one run of numbers, four grains (twelve numbers, three runs of four) at a
/// time; each number gets the same two products and sum as grain by grain, so the same bits.
/// `ahead()` is called before each four grains (a pass's requests for later grains).
#[inline(always)]
pub(super) fn kick(v: &mut [DVec3], f: &[DVec3], inverse: &[f64], h: f64, mut ahead: impl FnMut()) {
    let v: &mut [f64] = bytemuck::cast_slice_mut(v);
    let f: &[f64] = bytemuck::cast_slice(f);
    let (mut vs, mut fs, mut ws) = (
        v.chunks_exact_mut(12),
        f.chunks_exact(12),
        inverse.chunks_exact(4),
    );
    let quad = |x: &[f64]| Quad::new(x.try_into().expect("four numbers"));
    let h4 = Quad::new([h; 4]);
    for ((v, f), w) in (&mut vs).zip(&mut fs).zip(&mut ws) {
        ahead();
        let hw = (h4 * quad(w)).triple();
        for (r, hw) in hw.iter().enumerate() {
            let (v, f) = (&mut v[4 * r..4 * r + 4], &f[4 * r..4 * r + 4]);
            v.copy_from_slice(&(quad(v) + quad(f) * *hw).to_array());
        }
    }
    let (v, f) = (vs.into_remainder(), fs.remainder());
    for ((v, f), w) in v
        .chunks_exact_mut(3)
        .zip(f.chunks_exact(3))
        .zip(ws.remainder())
    {
        for c in 0..3 {
            v[c] += f[c] * (h * w);
        }
    }
}

/// x += v dt for each grain's position x and velocity v, with the vectors taken as one run
/// of numbers (each the same product and sum as grain by grain).
#[inline(always)]
fn drift(x: &mut [DVec3], v: &[DVec3], dt: f64) {
    let x: &mut [f64] = bytemuck::cast_slice_mut(x);
    for (x, v) in x.iter_mut().zip(bytemuck::cast_slice::<DVec3, f64>(v)) {
        *x += v * dt;
    }
}

/// Asks memory for the four grains `k..k + 4` of the run of `T` that starts at address `at`:
/// every cache line they lie on. An address past the run's end is asked for harmlessly (a
/// request is a hint, and reads nothing). A streaming pass over a chunk of grains asks so
/// for the next chunk while it works, when the grains are too many for the caches, so that
/// memory answers for one chunk while the one before is worked on (docs/performance.md,
/// "A million grains").
#[inline(always)]
pub(super) fn ask<T>(at: usize, k: usize) {
    let (first, bytes) = (at.wrapping_add(k * size_of::<T>()), 4 * size_of::<T>());
    for o in (0..bytes).step_by(64) {
        prefetch(first.wrapping_add(o) as *const u8);
    }
    prefetch(first.wrapping_add(bytes - 1) as *const u8);
}

/// Where the run `run` starts, as an address (for [`ask`], where the run itself is held by
/// a pass's chunks).
pub(super) fn address<T>(run: &[T]) -> usize {
    run.as_ptr() as usize
}
