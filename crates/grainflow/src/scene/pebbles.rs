//! Checks of the PEBBLES contact values in `[contact]` (001 eq 3.7, 3.8, 3.50–3.52): the
//! stiffnesses are finite and > 0, the dashpots and friction coefficients finite and ≥ 0.
//! A negative dashpot feeds energy into the contacts; a NaN coefficient reaches the forces.

use super::positive;
use crate::contact::{ContactModel, Normal, Tangential};
use crate::Error;

/// Refuses `v` at `field` unless it is a finite number ≥ 0.
fn non_negative(p: &mut Vec<Error>, field: String, v: f64) {
    if !(v.is_finite() && v >= 0.0) {
        p.push(Error::scene(
            field,
            format!("must be a finite number ≥ 0, got {v}"),
        ));
    }
}

/// Pushes a problem for every PEBBLES contact value out of its range.
pub(super) fn problems(c: &ContactModel, p: &mut Vec<Error>) {
    if let Normal::Pebbles {
        hooke,
        vessel_hooke,
        dash_pot,
    } = c.normal
    {
        positive(p, "contact.normal.pebbles.hooke", hooke);
        positive(p, "contact.normal.pebbles.vessel_hooke", vessel_hooke);
        non_negative(p, "contact.normal.pebbles.dash_pot".into(), dash_pot);
    }
    let Tangential::Pebbles(f) = c.tangential else {
        return;
    };
    let t = |name: &str| format!("contact.tangential.pebbles.{name}");
    non_negative(p, t("kinetic_friction"), f.kinetic_friction);
    non_negative(p, t("dash_pot"), f.dash_pot);
    let Some(s) = f.static_friction else {
        return;
    };
    let st = |name: &str| t(&format!("static_friction.{name}"));
    non_negative(p, st("friction"), s.friction);
    positive(p, st("hooke"), s.hooke);
    if let Some(v) = s.surface_friction {
        non_negative(p, st("surface_friction"), v);
    }
    if let Some(v) = s.surface_hooke {
        positive(p, st("surface_hooke"), v);
    }
    non_negative(p, st("velocity_max_sqr"), s.velocity_max_sqr);
    if let Some(v) = s.zero_long_slips {
        positive(p, st("zero_long_slips"), v);
    }
    if let Some([a, b]) = s.decrease_long_slips {
        positive(p, st("decrease_long_slips[0]"), a);
        positive(p, st("decrease_long_slips[1]"), b);
    }
}
