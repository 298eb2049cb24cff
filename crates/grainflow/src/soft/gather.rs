//! The gather after the pair loop and the wall pass: each particle's crossing reactions, wall
//! contacts and body force added in a fixed order, the finite check, and the second half kick
//! while the chunk is in cache.

use glam::DVec3;
use rayon::prelude::*;

use super::pairs::FAR;
use super::verlet::{address, ask, kick as kick_by};
use super::{ContactStats, SoftStepper};
use crate::particles::{Particles, CHUNK};
use crate::physics::Physics;
use crate::simd::{prefetch, Quad};
use crate::world::World;

/// Adds to each particle's force and torque, in a fixed order after its block's pair sum, the
/// reactions of the rows in earlier blocks naming it (ascending owner), its wall contacts
/// ([`wall_forces`]) and its body force; then checks that every force and torque is finite,
/// and when `kick` is h, gives v += h F/m and ω += h T/I ([`half_kick`]) while the chunk is
/// in cache.
/// Each is a pass of its own over a chunk of particles, so that the dense ones (body force,
/// check) run without the others' branches, and the sparse ones visit only what they add.
pub(super) fn gather_forces(
    world: &mut World,
    physics: &Physics,
    s: &SoftStepper,
    kick: Option<f64>,
) -> ContactStats {
    match world.particles.len() >= FAR {
        true => gather_in::<true>(world, physics, s, kick),
        false => gather_in::<false>(world, physics, s, kick),
    }
}

/// [`gather_forces`]; with `AHEAD` (grains too many for the caches: [`FAR`]) each chunk asks
/// for the crossing reactions ahead ([`add_crossing`]) and its kicks for what the next chunk
/// will read ([`ask`]).
#[inline(never)]
fn gather_in<const AHEAD: bool>(
    world: &mut World,
    physics: &Physics,
    s: &SoftStepper,
    kick: Option<f64>,
) -> ContactStats {
    let Particles {
        mass,
        inv_mass,
        inv_inertia,
        force,
        torque,
        vel,
        omega,
        ..
    } = &mut world.particles;
    let (mass, inv_mass, inv_inertia) = (&*mass, &*inv_mass, &*inv_inertia);
    let crate::neighbor::Links {
        cross_to, cross_of, ..
    } = &world.neighbors.links;
    let cross = &s.cross;
    let wall_force = &s.wall_force;
    let body_acc = &s.body.acc;
    let uniform = physics.uniform_acceleration();
    // Where the runs lie, as addresses: the chunks below hold the runs themselves.
    let (at_f, at_t, at_v, at_w) = (
        address(force),
        address(torque),
        address(vel),
        address(omega),
    );
    let (at_m, at_n, at_i) = (address(mass), address(inv_mass), address(inv_inertia));
    force
        .par_chunks_mut(CHUNK)
        .zip(torque.par_chunks_mut(CHUNK))
        .zip(vel.par_chunks_mut(CHUNK))
        .zip(omega.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (((fs, ts), vs), ws))| {
            let (a, b) = (c * CHUNK, c * CHUNK + fs.len());
            // Slots not touching hold exact zeros, and a sum that starts at +0 is never −0,
            // so adding them changes no bit; nor do the zeros of a particle no wall acts on.
            let first = |k: usize| cross_to.partition_point(|&to| (to as usize) < k);
            let (from, to) = (first(a), first(b));
            let crossing = (&cross_to[from..to], &cross_of[from..to]);
            add_crossing::<AHEAD>(fs, ts, a, crossing, cross);
            let first = |k: usize| wall_force.partition_point(|w| (w.0 as usize) < k);
            for &(k, fw, tw) in &wall_force[first(a)..first(b)] {
                fs[k as usize - a] += fw;
                ts[k as usize - a] += tw;
            }
            let (mass, inv_mass) = (&mass[a..b], &inv_mass[a..b]);
            // The next chunk's grains b + 4q.., four at a time.
            let ahead = |q: usize| {
                if AHEAD {
                    let k = b + 4 * q;
                    ask::<DVec3>(at_f, k);
                    ask::<DVec3>(at_t, k);
                    ask::<DVec3>(at_v, k);
                    ask::<f64>(at_m, k);
                    ask::<f64>(at_n, k);
                }
            };
            match uniform {
                Some(g) => body_force(fs, vs, (mass, inv_mass), kick, |_| g, ahead),
                None => body_force(fs, vs, (mass, inv_mass), kick, |o| body_acc[a + o], ahead),
            }
            if let Some(h) = kick {
                let mut k = b;
                kick_by(ws, ts, &inv_inertia[a..b], h, || {
                    if AHEAD {
                        ask::<DVec3>(at_w, k);
                        ask::<f64>(at_i, k);
                        k += 4;
                    }
                });
            }
            // A force that is not finite is the first sign of a run going bad; positions and
            // velocities only become non-finite through it.
            let finite = |v: &[DVec3]| {
                bytemuck::cast_slice::<DVec3, f64>(v)
                    .iter()
                    .fold(true, |all, x| all & x.is_finite())
            };
            let non_finite = if finite(fs) && finite(ts) {
                None
            } else {
                let bad = |v: &DVec3| !v.is_finite();
                let first = fs.iter().zip(ts.iter()).position(|(f, t)| bad(f) || bad(t));
                first.map(|o| a + o)
            };
            ContactStats {
                non_finite,
                ..ContactStats::default()
            }
        })
        .reduce(ContactStats::default, ContactStats::merge)
}

/// Crossing pairs ahead whose reactions [`add_crossing`] asks for.
const CROSS_AHEAD: usize = 48;

/// Adds the reactions `cross` of the crossing pairs `(to, of)` (the grain each names, from
/// `a` on, and where its reaction lies) to the forces `fs` and torques `ts` of their grains,
/// in order. With `AHEAD` (grains too many for the caches: [`FAR`]) it asks for the reaction
/// [`CROSS_AHEAD`] pairs on first: the reactions lie in the order of the list's slots, not
/// of the grains, so that memory answers while the loop works.
#[inline(always)]
fn add_crossing<const AHEAD: bool>(
    fs: &mut [DVec3],
    ts: &mut [DVec3],
    a: usize,
    (to, of): (&[u32], &[u32]),
    cross: &[(DVec3, DVec3)],
) {
    for (x, (&k, &c)) in to.iter().zip(of).enumerate() {
        if let Some(&later) = of.get(x + CROSS_AHEAD).filter(|_| AHEAD) {
            let p = cross.as_ptr().wrapping_add(later as usize);
            prefetch(p);
            prefetch(p.cast::<u8>().wrapping_add(size_of::<(DVec3, DVec3)>() - 1));
        }
        let (cf, ct) = cross[c as usize];
        fs[k as usize - a] += cf;
        ts[k as usize - a] += ct;
    }
}

/// F += m a(k) for the movable particles of a chunk (inverse mass > 0; 003 eq 1), with `acc`
/// the acceleration of the chunk's k-th particle; then, when `kick` is h, v += h F/m for
/// every particle of the chunk (velocities `vs`; 003 §2.1, eq 3–6, as [`kick`]). With a kick
/// the particles are taken four (twelve numbers, three runs of four) at a time, the body force
/// picked number by number where the inverse mass is positive and the kick added while the
/// forces are in registers: each number gets the operations of one pass per particle, so the
/// same bits. `ahead(q)` is called before the q-th four particles (requests for later ones).
#[inline(always)]
fn body_force(
    fs: &mut [DVec3],
    vs: &mut [DVec3],
    (mass, inv_mass): (&[f64], &[f64]),
    kick: Option<f64>,
    acc: impl Fn(usize) -> DVec3,
    ahead: impl Fn(usize),
) {
    let runs = kick.map_or(0, |_| 4 * (fs.len() / 4));
    if let Some(h) = kick {
        let (f, v): (&mut [f64], &mut [f64]) = (
            bytemuck::cast_slice_mut(&mut fs[..runs]),
            bytemuck::cast_slice_mut(&mut vs[..runs]),
        );
        let quad = |x: &[f64]| Quad::new(x.try_into().expect("four numbers"));
        let (zero, h) = (Quad::default(), Quad::new([h; 4]));
        let runs = f
            .chunks_exact_mut(12)
            .zip(v.chunks_exact_mut(12))
            .zip(mass.chunks_exact(4).zip(inv_mass.chunks_exact(4)));
        for (q, ((f, v), (m, w))) in runs.enumerate() {
            ahead(q);
            // The four particles' accelerations as three runs: x y z x | y z x y | z x y z.
            let g = [0, 1, 2, 3].map(|o| acc(4 * q + o));
            let g = [
                [g[0].x, g[0].y, g[0].z, g[1].x],
                [g[1].y, g[1].z, g[2].x, g[2].y],
                [g[2].z, g[3].x, g[3].y, g[3].z],
            ];
            let (m, w) = (quad(m).triple(), quad(w));
            let (hw, w) = ((h * w).triple(), w.triple());
            for r in 0..3 {
                let (f, v) = (&mut f[4 * r..4 * r + 4], &mut v[4 * r..4 * r + 4]);
                let old = quad(f);
                let new = w[r].select_gt(zero, old + m[r] * Quad::new(g[r]), old);
                f.copy_from_slice(&new.to_array());
                v.copy_from_slice(&(quad(v) + new * hw[r]).to_array());
            }
        }
    }
    for (o, (f, v)) in fs.iter_mut().zip(vs.iter_mut()).enumerate().skip(runs) {
        let (m, w) = (mass[o], inv_mass[o]);
        if w > 0.0 {
            *f += m * acc(o);
        }
        if let Some(h) = kick {
            for c in 0..3 {
                v[c] += f[c] * (h * w);
            }
        }
    }
}
