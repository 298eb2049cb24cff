//! The deck's physics directives (001 §4.2–4.3) as grainflow fields: the PEBBLES contact law
//! (eq 3.7, 3.8, 3.40–3.52) in the `pebbles` normal and tangential slots, core/shell pebbles
//! (eq 3.5–3.6), the integrator (§3.3) and the tallies of §4.3. The map is the table of
//! docs/pebbles-contact.md §6; its interpretations of `use_simple_integrator`,
//! `no_linear_static_friction_cutoff` and `decrease_long_slips` are written there.

use super::{Arg, Deck};
use crate::contact::pebbles::{PebblesFriction, StaticFriction};
use crate::contact::{Cohesion, ContactModel, Normal, Rolling, Tangential, Twisting};
use crate::particles::Core;
use crate::scene::Integrator;
use crate::scene::{Cadence, ForceSpec, ProbabilitySpec, TalliesSpec, WearSpec};
use crate::Result;

/// The later of the directives `names` that the deck has.
fn latest<'a>(deck: &'a Deck, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .filter_map(|n| deck.last(n))
        .max_by_key(|d| d.line)
        .map(|d| d.name)
}

/// `static_friction_new`, `_new2` or `_new3` with the directives that tune it (001 §4.2);
/// those directives without one of them are refused.
fn static_friction(deck: &Deck) -> Result<Option<StaticFriction>> {
    match latest(
        deck,
        &[
            "static_friction_new",
            "static_friction_new2",
            "static_friction_new3",
        ],
    ) {
        Some(name) => {
            let v = deck.nums(name).unwrap_or_default();
            // (μ_s, h_s, μ_s surface, h_s surface, v_max²) of 001 §4.2.
            let (mu, hs, mu_w, hs_w, v2) = match name {
                "static_friction_new" => (v[0], v[1], v[0], v[1], v[2]),
                "static_friction_new2" => (v[0], v[1], v[0], v[2], v[3]),
                _ => (v[0], v[1], v[2], v[3], v[4]),
            };
            if !(mu >= 0.0 && mu_w >= 0.0 && hs > 0.0 && hs_w > 0.0 && v2 > 0.0) {
                return Err(deck.error(
                    name,
                    "coefficients must be ≥ 0 and hooke constants and velocity_max_sqr > 0",
                ));
            }
            let linear_cutoff = latest(
                deck,
                &[
                    "linear_static_friction_cutoff",
                    "no_linear_static_friction_cutoff",
                ],
            ) == Some("linear_static_friction_cutoff");
            let zero_long_slips = deck
                .has("zero_long_slips_mult")
                .then(|| deck.num("zero_long_slips_mult"));
            let decrease_long_slips = match deck.nums("decrease_long_slips") {
                Some(v) if deck.has("decrease_long_slips") => {
                    if !(v[0] > 0.0 && v[1] >= 0.0 && v[1] <= v[0]) {
                        return Err(deck.error(
                            "decrease_long_slips",
                            format!("needs limit_mult > 0 and 0 ≤ target_mult ≤ limit_mult, got {} and {}", v[0], v[1]),
                        ));
                    }
                    Some([v[0], v[1]])
                }
                _ => None,
            };
            if zero_long_slips.is_some_and(|m| m <= 0.0) {
                return Err(deck.error("zero_long_slips_mult", "mult must be > 0"));
            }
            Ok(Some(StaticFriction {
                friction: mu,
                hooke: hs,
                surface_friction: Some(mu_w),
                surface_hooke: Some(hs_w),
                velocity_max_sqr: v2,
                linear_cutoff,
                zero_long_slips,
                decrease_long_slips,
            }))
        }
        None => {
            for name in [
                "linear_static_friction_cutoff",
                "no_linear_static_friction_cutoff",
                "zero_long_slips_mult",
                "decrease_long_slips",
            ] {
                if deck.has(name) {
                    return Err(deck.error(
                        name,
                        "acts on static friction: needs static_friction_new, _new2 or _new3",
                    ));
                }
            }
            Ok(None)
        }
    }
}

/// The PEBBLES contact law with the deck's values, and μ_s pebble–pebble and pebble–surface
/// (μ_k without static friction) for the materials' required `sliding_friction`.
pub fn contact_law(deck: &Deck) -> Result<(ContactModel, f64, f64)> {
    let mu_k = deck.num("kinetic_friction");
    let static_friction = static_friction(deck)?;
    let dash = latest(deck, &["dash_pot", "dash_pot2"]).unwrap_or("dash_pot");
    let c = deck.nums(dash).unwrap_or_default();
    let (c_n, c_t) = (c[0], *c.get(1).unwrap_or(&c[0]));
    if !(c_n >= 0.0 && c_t >= 0.0) {
        return Err(deck.error(dash, "dash pot constants must be ≥ 0"));
    }
    if mu_k < 0.0 {
        return Err(deck.error("kinetic_friction", "must be ≥ 0"));
    }
    let (mu_pp, mu_ps) = static_friction.map_or((mu_k, mu_k), |s| {
        (s.friction, s.surface_friction.unwrap_or(s.friction))
    });
    let model = ContactModel {
        normal: Normal::Pebbles {
            hooke: deck.num("pebble_pebble_hooke"),
            vessel_hooke: deck.num("pebble_vessel_hooke"),
            dash_pot: c_n,
        },
        tangential: Tangential::Pebbles(PebblesFriction {
            kinetic_friction: mu_k,
            dash_pot: c_t,
            static_friction,
        }),
        rolling: Rolling::None,
        twisting: Twisting::None,
        cohesion: Cohesion::None,
        characteristic_velocity: 1.0,
        step_correction: true,
    };
    Ok((model, mu_pp, mu_ps))
}

/// `pebble_radius c o` with `pebble_density ρ_c ρ_o`: the core of a core/shell pebble
/// (001 eq 3.5–3.6), absent for a zero core radius or one as large as the pebble.
pub fn core(r_c: f64, r_o: f64, rho_c: f64) -> Option<Core> {
    (r_c > 0.0 && r_c < r_o).then_some(Core {
        radius: r_c,
        density: rho_c,
    })
}

/// Euler steps per `alpha` that keep every isolated contact of the deck's law from growing
/// (see `integrator::euler_substeps`): the normal mode of a pebble pair and of a
/// pebble on a wall (γ = C⊥/m*, ω² = h/m*, eq 3.7), and the tangential mode of each with the
/// contact point's mobility 1/m + r²/I per pebble (γ = C∥ ⋯, ω² = h_s ⋯, eq 3.8 and 3.50).
/// The sample decks of 001 §8 need 2: at alpha = 1e-4 s a pair's tangential dashpot alone gives
/// γ·alpha = 3.95, past Euler's 2, and a run chatters until a caged pebble blows up.
pub fn euler_substeps(model: &ContactModel, alpha: f64, mass: f64, inertia: f64, r: f64) -> u32 {
    let (
        Normal::Pebbles {
            hooke,
            vessel_hooke,
            dash_pot,
        },
        Tangential::Pebbles(f),
    ) = (&model.normal, &model.tangential)
    else {
        return 1;
    };
    let turn = 1.0 / mass + r * r / inertia;
    let h_s = |wall| {
        f.static_friction
            .as_ref()
            .map_or(0.0, |st| st.constants(wall).1)
    };
    // (γ, ω²) of the normal and tangential modes, pair then wall.
    [
        (dash_pot * 2.0 / mass, hooke * 2.0 / mass),
        (dash_pot / mass, vessel_hooke / mass),
        (f.dash_pot * 2.0 * turn, h_s(false) * 2.0 * turn),
        (f.dash_pot * turn, h_s(true) * turn),
    ]
    .into_iter()
    .map(|(g, w2)| crate::integrator::euler_substeps(alpha, g, w2))
    .max()
    .unwrap_or(1)
}

/// `use_simple_integrator` / `integration_method m` (001 §3.3, §4.2); velocity Verlet without
/// either. The later of the two wins.
pub fn integrator(deck: &Deck) -> Result<Integrator> {
    Ok(
        match latest(deck, &["use_simple_integrator", "integration_method"]) {
            None => Integrator::VelocityVerlet,
            Some("use_simple_integrator") => Integrator::Euler,
            Some(_) => match deck.word("integration_method").unwrap_or_default() {
                "euler" => Integrator::Euler,
                "runge_kutta" => Integrator::RungeKutta,
                "adams_bashforth" => Integrator::AdamsBashforth,
                "adams_moulton" => Integrator::AdamsMoulton,
                other => {
                    return Err(deck.error(
                        "integration_method",
                        format!("unknown method '{other}'; one of euler, runge_kutta, adams_bashforth, adams_moulton"),
                    ))
                }
            },
        },
    )
}

/// The tallies of 001 §4.3 as `[output.tallies]`; deck frequencies are steps of `alpha` s.
/// Energies (`energy_display_frequency`) go to the deck's output stream ([`super::output`]).
pub fn tallies(deck: &Deck, alpha: f64) -> Result<TalliesSpec> {
    let steps = |name: &str, i: usize| deck.nums(name).unwrap_or_default()[i] * alpha;
    let velocity = deck.has("velocity_tally").then(|| Cadence {
        start: deck.num("velocity_tally"),
        interval: steps("velocity_tally", 1),
    });
    let probability = deck.has("probability_table").then(|| ProbabilitySpec {
        start: deck.num("probability_table"),
        interval: steps("probability_table", 1),
        cell: deck.nums("probability_table").unwrap_or_default()[2],
    });
    let wear = deck.has("calculate_pebble_wear").then(|| WearSpec {
        exponent: deck.num("normal_force_wear_exponent"),
        velocity_bins: match deck.last("wear_velocity_bins").map(|d| &d.args[..]) {
            Some([Arg::List(bins), ..]) => bins.clone(),
            _ => Vec::new(),
        },
    });
    for name in ["normal_force_wear_exponent", "wear_velocity_bins"] {
        if deck.has(name) && wear.is_none() {
            return Err(deck.error(name, "needs calculate_pebble_wear"));
        }
    }
    let force = deck
        .has("calculate_force_tally")
        .then_some(ForceSpec { cell: None });
    Ok(TalliesSpec {
        energy_interval: None,
        velocity,
        probability,
        wear,
        force,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Method, Scene};
    use crate::timestep::DtLimit;
    use std::path::Path;

    fn scene(text: &str) -> Scene {
        Deck::parse(text, "t.inp")
            .and_then(|d| d.translate(Path::new("."), &[]))
            .expect("translates")
            .scene
    }

    const SAMPLE: &str = include_str!("../../../../../scenes/pebbles/packing.inp");

    #[test]
    fn the_sample_law_is_the_pebbles_law_with_the_decks_values() {
        let s = scene(SAMPLE);
        assert_eq!(
            s.contact.normal,
            Normal::Pebbles {
                hooke: 1.0e6,
                vessel_hooke: 1.0e6,
                dash_pot: 200.0
            }
        );
        let Tangential::Pebbles(f) = s.contact.tangential else {
            panic!("{:?}", s.contact.tangential)
        };
        assert_eq!((f.kinetic_friction, f.dash_pot), (0.4, 200.0));
        assert_eq!(
            f.static_friction,
            Some(StaticFriction {
                friction: 0.6,
                hooke: 1.0e6,
                surface_friction: Some(0.6),
                surface_hooke: Some(1.0e6),
                velocity_max_sqr: 0.01,
                linear_cutoff: false,
                zero_long_slips: None,
                decrease_long_slips: Some([1.1, 1.0]),
            })
        );
        assert_eq!(
            (s.contact.rolling, s.contact.twisting),
            (Rolling::None, Twisting::None)
        );
        // pebble_radius 0.01 0.02, pebble_density 2000 1000: a core in a shell (eq 3.5–3.6).
        let m = &s.materials[0];
        assert_eq!(m.density, Some(1000.0));
        assert_eq!(
            m.core,
            Some(Core {
                radius: 0.01,
                density: 2000.0
            })
        );
        assert!(
            matches!(s.simulation.method, Method::Soft(o) if o.integrator == Integrator::Euler),
            "{:?}",
            s.simulation.method
        );
        assert_eq!(s.simulation.dt_limit, DtLimit::ContactTime);
        assert_eq!(s.output.tallies, Some(TalliesSpec::default()));
    }

    #[test]
    fn physics_directives_map_to_their_fields() {
        let deck = "number_of_pebbles 10\nvessel_radius 0.0 0.2\nalpha 0.0001\n\
            static_friction_new2 0.5 2.0e5 3.0e5 0.04\ndash_pot 7.0\n\
            pebble_pebble_hooke 2.0e5\npebble_vessel_hooke 3.0e5\n\
            no_linear_static_friction_cutoff\nlinear_static_friction_cutoff\n\
            zero_long_slips_mult 1.5\nuse_simple_integrator\nintegration_method runge_kutta\n\
            velocity_tally 1.0 100\nprobability_table 2.0 50 0.05\ncalculate_pebble_wear\n\
            normal_force_wear_exponent 0.5\nwear_velocity_bins 2 0.1 1.0\n\
            calculate_force_tally\ndone\n";
        let s = scene(deck);
        assert_eq!(
            s.contact.normal,
            Normal::Pebbles {
                hooke: 2.0e5,
                vessel_hooke: 3.0e5,
                dash_pot: 7.0
            }
        );
        let Tangential::Pebbles(f) = s.contact.tangential else {
            panic!()
        };
        assert_eq!((f.kinetic_friction, f.dash_pot), (0.1, 7.0));
        let sf = f.static_friction.expect("static friction");
        assert_eq!(
            (sf.friction, sf.hooke, sf.surface_friction, sf.surface_hooke),
            (0.5, 2.0e5, Some(0.5), Some(3.0e5))
        );
        assert_eq!(sf.velocity_max_sqr, 0.04);
        assert!(sf.linear_cutoff, "the later cutoff directive wins");
        assert_eq!(sf.zero_long_slips, Some(1.5));
        assert_eq!(sf.decrease_long_slips, None);
        assert!(
            matches!(s.simulation.method, Method::Soft(o) if o.integrator == Integrator::RungeKutta),
            "{:?}",
            s.simulation.method
        );
        // No core (pebble_radius 0.0 0.1 by default): a uniform sphere.
        assert_eq!(s.materials[0].core, None);
        let t = s.output.tallies.expect("tallies");
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let v = t.velocity.expect("velocity");
        assert!(close(v.start, 1.0) && close(v.interval, 0.01));
        let p = t.probability.expect("probability");
        assert!(close(p.start, 2.0) && close(p.interval, 0.005) && close(p.cell, 0.05));
        let w = t.wear.expect("wear");
        assert_eq!((w.exponent, w.velocity_bins), (0.5, vec![0.1, 1.0]));
        assert_eq!(t.force, Some(ForceSpec { cell: None }));
    }

    #[test]
    fn bad_physics_directives_are_refused_at_their_line() {
        for (line, want) in [
            (
                "integration_method leapfrog",
                "t.inp:3: integration_method: unknown method",
            ),
            (
                "decrease_long_slips 1.1 1.0",
                "t.inp:3: decrease_long_slips: acts on static friction",
            ),
            (
                "decrease_long_slips 1.0 1.1\nstatic_friction_new 0.5 1.0e5 0.01",
                "t.inp:3: decrease_long_slips: needs",
            ),
            (
                "normal_force_wear_exponent 0.5",
                "t.inp:3: normal_force_wear_exponent: needs calculate_pebble_wear",
            ),
            (
                "static_friction_new 0.5 1.0e5 0.0",
                "t.inp:3: static_friction_new: ",
            ),
        ] {
            let deck = format!("number_of_pebbles 10\nvessel_radius 0.0 0.5\n{line}\ndone\n");
            let e = Deck::parse(&deck, "t.inp")
                .and_then(|d| d.translate(Path::new("."), &[]))
                .expect_err(line)
                .to_string();
            assert!(e.starts_with(want), "{line}: {e}");
        }
    }
}
