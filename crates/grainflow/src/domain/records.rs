//! Grains and contact histories as messages between ranks: every number as its bits.

use glam::DVec3;

use super::transport::{Reader, Writer};
use crate::contact::normal::Stiffness;
use crate::contact::ContactState;
use crate::particles::{Mobility, Particles};
use crate::walls::history::WallMember;

/// The global index that ends a run of grains in a message.
const END: u64 = u64::MAX;

/// The bytes of a grain without wall contacts in a message ([`put_grain`]), and of a pair
/// history ([`super::put_pair`]).
pub(super) const GRAIN_BYTES: usize = 187;
pub(super) const PAIR_BYTES: usize = 84;

/// Grain `k` of `p`, every property, with its index in one process `global` and its wall
/// contacts `contacts`, into a message.
pub(super) fn put_grain(
    w: &mut Writer,
    p: &Particles,
    k: usize,
    global: u64,
    contacts: &[(WallMember, &ContactState)],
) {
    w.u64(global);
    w.u64(p.id[k]);
    for v in [p.pos[k], p.vel[k], p.omega[k], p.force[k], p.torque[k]] {
        w.vec3(v);
    }
    for x in [
        p.radius[k],
        p.mass[k],
        p.inv_mass[k],
        p.inertia[k],
        p.inv_inertia[k],
    ] {
        w.f64(x);
    }
    w.u16(p.material[k]);
    w.u8(match p.mobility[k] {
        Mobility::Free => 0,
        Mobility::NoRotation => 1,
        Mobility::Fixed => 2,
    });
    w.u32(p.passes[k]);
    w.u32(contacts.len() as u32);
    for (m, s) in contacts {
        w.u32(m.to_bits());
        put_state(w, s);
    }
}

/// A grain from a message, appended to `p`: its index in one process and its wall contacts;
/// (the end mark, None) at the mark that ends a run of grains.
pub(super) fn take_grain(
    r: &mut Reader,
    p: &mut Particles,
) -> (u64, Option<Vec<(WallMember, ContactState)>>) {
    let global = r.u64();
    if global == END {
        return (END, None);
    }
    p.id.push(r.u64());
    p.pos.push(r.vec3());
    p.vel.push(r.vec3());
    p.omega.push(r.vec3());
    p.force.push(r.vec3());
    p.torque.push(r.vec3());
    p.radius.push(r.f64());
    p.mass.push(r.f64());
    p.inv_mass.push(r.f64());
    p.inertia.push(r.f64());
    p.inv_inertia.push(r.f64());
    p.material.push(r.u16());
    p.mobility.push(match r.u8() {
        0 => Mobility::Free,
        1 => Mobility::NoRotation,
        _ => Mobility::Fixed,
    });
    p.passes.push(r.u32());
    let n = r.u32() as usize;
    let contacts = (0..n)
        .map(|_| (WallMember::from_bits(r.u32()), take_state(r)))
        .collect();
    (global, Some(contacts))
}

/// Bytes of a copy's load in the message of every step: the force and torque on it.
pub(super) const LOAD: usize = 48;

/// The force and torque on grain `k` of `p` into a message, [`LOAD`] bytes.
#[inline]
pub(super) fn put_load(w: &mut Writer, p: &Particles, k: usize) {
    let mut b = [0; LOAD];
    let xs = [p.force[k], p.torque[k]].map(|v| v.to_array());
    for (c, x) in b.chunks_exact_mut(8).zip(xs.as_flattened()) {
        c.copy_from_slice(&x.to_le_bytes());
    }
    w.0.extend_from_slice(&b);
}

/// The force and torque of the bytes `b` of [`put_load`].
#[inline]
pub(super) fn take_load(b: &[u8]) -> (DVec3, DVec3) {
    let x = |c: usize| f64::from_le_bytes(b[8 * c..8 * c + 8].try_into().expect("8 bytes"));
    (DVec3::new(x(0), x(1), x(2)), DVec3::new(x(3), x(4), x(5)))
}

/// Writes the end mark of a run of grains.
pub(super) fn put_end(w: &mut Writer) {
    w.u64(END);
}

/// A touching contact's history (slip and constants, as a checkpoint keeps it) into a message.
pub(super) fn put_state(w: &mut Writer, s: &ContactState) {
    w.vec3(s.slip);
    let k = &s.stiffness;
    for x in [k.kn, k.kt, k.gn, k.gt] {
        w.f64(x);
    }
}

/// A touching contact's history from a message.
pub(super) fn take_state(r: &mut Reader) -> ContactState {
    ContactState {
        slip: r.vec3(),
        stiffness: Stiffness {
            kn: r.f64(),
            kt: r.f64(),
            gn: r.f64(),
            gt: r.f64(),
        },
        touching: true,
        ..ContactState::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grain_and_a_pair_take_the_bytes_reserved_for_them() {
        let mut p = Particles::default();
        let spec = crate::particles::ParticleSpec {
            pos: DVec3::ONE,
            vel: DVec3::X,
            omega: DVec3::ZERO,
            radius: 1e-3,
            material: 0,
            mobility: Mobility::Free,
        };
        p.push(1, &spec, 1e-6);
        let mut w = Writer::default();
        put_grain(&mut w, &p, 0, 7, &[]);
        assert_eq!(w.0.len(), GRAIN_BYTES);
        let mut w = Writer::default();
        super::super::put_pair(&mut w, &(1, 2, Some([0, 1, -1]), ContactState::default()));
        assert_eq!(w.0.len(), PAIR_BYTES);
    }
}
