//! Effect rows of the parameters and tallies of 001 §4.1–4.3.

use super::*;

pub(super) fn rows() -> Vec<Row> {
    vec![
        // 4.1
        row(
            "done",
            "",
            "done\nkinetic_friction 0.3\nno_such_directive",
            |a, b| {
                // Lines after the first done are not read; a second done changes nothing.
                assert_same(ok(a), ok(b));
            },
        ),
        row("rem", "", "rem kinetic_friction 0.3", |a, b| {
            assert_same(ok(a), ok(b))
        }),
        // 4.2
        row("runs", "", "runs 500", |a, b| {
            // runs × alpha is the simulated time.
            assert_eq!(ok(a).scene.simulation.duration, 10000.0 * 0.0001);
            assert_eq!(ok(b).scene.simulation.duration, 500.0 * 0.0001);
        }),
        row("number_of_pebbles", "", "number_of_pebbles 7", |a, b| {
            assert_eq!((pack(a).0, pack(b).0), (1000, 7));
        }),
        row("initial_time", "", "initial_time 2.5", |a, b| {
            assert_eq!(ok(a).scene.simulation.start_time, 0.0);
            assert_eq!(ok(b).scene.simulation.start_time, 2.5);
        }),
        row("kinetic_friction", "", "kinetic_friction 0.3", |a, b| {
            assert_eq!(friction(a).kinetic_friction, 0.1);
            assert_eq!(friction(b).kinetic_friction, 0.3);
            assert_eq!(friction(b).static_friction, None);
            assert_eq!(sliding(b), [0.3; 3]);
        }),
        row(
            "static_friction_new",
            "",
            "static_friction_new 0.5 2.0e5 0.04",
            |a, b| {
                assert_eq!(static_friction(a), None);
                let s = static_friction(b).expect("static friction");
                // One μ and one h_s for pebbles and surfaces.
                assert_eq!(
                    (s.friction, s.hooke, s.surface_friction, s.surface_hooke),
                    (0.5, 2.0e5, Some(0.5), Some(2.0e5))
                );
                assert_eq!(s.velocity_max_sqr, 0.04);
                assert_eq!(friction(b).kinetic_friction, 0.1);
                assert_eq!(sliding(b), [0.5; 3]);
            },
        ),
        row(
            "static_friction_new2",
            "",
            "static_friction_new2 0.5 2.0e5 3.0e5 0.04",
            |a, b| {
                assert_eq!(static_friction(a), None);
                let s = static_friction(b).expect("static friction");
                assert_eq!(
                    (s.friction, s.hooke, s.surface_friction, s.surface_hooke),
                    (0.5, 2.0e5, Some(0.5), Some(3.0e5))
                );
                assert_eq!(s.velocity_max_sqr, 0.04);
            },
        ),
        row(
            "static_friction_new3",
            "",
            "static_friction_new3 0.5 2.0e5 0.7 3.0e5 0.04",
            |a, b| {
                assert_eq!(static_friction(a), None);
                let s = static_friction(b).expect("static friction");
                assert_eq!(
                    (s.friction, s.hooke, s.surface_friction, s.surface_hooke),
                    (0.5, 2.0e5, Some(0.7), Some(3.0e5))
                );
                assert_eq!(s.velocity_max_sqr, 0.04);
                assert_eq!(sliding(b), [0.5, 0.7, 0.7]);
            },
        ),
        row("alpha", "", "alpha 2e-5", |a, b| {
            let (sa, sb) = (&ok(a).scene.simulation, &ok(b).scene.simulation);
            assert_eq!(sa.dt, TimeStep::Fixed(0.0001));
            assert_eq!(sb.dt, TimeStep::Fixed(2e-5));
            assert_eq!(sb.duration, 10000.0 * 2e-5);
        }),
        row("dash_pot", "", "dash_pot 7.0", |a, b| {
            assert_eq!((normal(a)[2], friction(a).dash_pot), (2.0, 2.0));
            assert_eq!((normal(b)[2], friction(b).dash_pot), (7.0, 7.0));
        }),
        row("dash_pot2", "", "dash_pot2 3.0 5.0", |a, b| {
            assert_eq!((normal(a)[2], friction(a).dash_pot), (2.0, 2.0));
            assert_eq!((normal(b)[2], friction(b).dash_pot), (3.0, 5.0));
        }),
        row(
            "seed",
            "number_of_pebbles 30",
            "number_of_pebbles 30\nseed 7",
            |a, b| {
                assert_eq!(ok(a).scene.simulation.seed, 256);
                assert_eq!(ok(b).scene.simulation.seed, 7);
                // Another seed, other initial positions; the same seed, the same ones.
                let pos = |r: &Run| {
                    let sim = Simulation::new(ok(r).scene.clone(), Path::new(".")).expect("builds");
                    let mut p = sim.world.particles.pos.clone();
                    p.sort_by(|x, y| x.z.total_cmp(&y.z));
                    p
                };
                let (pa, pb) = (pos(a), pos(b));
                assert_eq!(pa.len(), 30);
                assert_eq!(pa, pos(a));
                assert!(pa.iter().zip(&pb).all(|(x, y)| x != y));
            },
        ),
        row(
            "pebble_pebble_hooke",
            "",
            "pebble_pebble_hooke 2.0e5",
            |a, b| {
                assert_eq!(normal(a), [1.0e4, 1.0e4, 2.0]);
                assert_eq!(normal(b), [2.0e5, 1.0e4, 2.0]);
            },
        ),
        row(
            "pebble_vessel_hooke",
            "",
            "pebble_vessel_hooke 3.0e5",
            |a, b| {
                assert_eq!(normal(a), [1.0e4, 1.0e4, 2.0]);
                assert_eq!(normal(b), [1.0e4, 3.0e5, 2.0]);
            },
        ),
        row(
            "pebble_radius",
            "number_of_pebbles 5\npebble_density 2000.0 1000.0",
            "number_of_pebbles 5\npebble_density 2000.0 1000.0\npebble_radius 0.01 0.02",
            |a, b| {
                // Default 0.0 0.1: a uniform pebble (the core density does not count).
                assert_eq!(pack(a).1, 0.1);
                assert_eq!(ok(a).scene.materials[0].core, None);
                assert_pebbles(a, [0.0, 0.1, 0.0, 1000.0]);
                assert_eq!(pack(b).1, 0.02);
                let core = ok(b).scene.materials[0].core.expect("core");
                assert_eq!((core.radius, core.density), (0.01, 2000.0));
                assert_pebbles(b, [0.01, 0.02, 2000.0, 1000.0]);
            },
        ),
        row(
            "pebble_density",
            "number_of_pebbles 5\npebble_radius 0.01 0.02",
            "number_of_pebbles 5\npebble_radius 0.01 0.02\npebble_density 2000.0 1000.0",
            |a, b| {
                assert_pebbles(a, [0.01, 0.02, 0.0, 2.0]);
                assert_eq!(ok(b).scene.materials[0].density, Some(1000.0));
                assert_pebbles(b, [0.01, 0.02, 2000.0, 1000.0]);
            },
        ),
        row(
            "recirculate",
            CONE,
            "floor_location -8.0\ncone 0.5 1.0\nrecirculate 2.0 0.05 0.3 2.5 0.1",
            |a, b| {
                assert_eq!(recirculation(a), None);
                assert_chute(a, b, 2.5 * 0.1, 0.1);
                // The door of an exit chute 2.5 0.1 (001 §4.8: recirculate sets its parameters).
                assert_eq!(shapes(b), shapes(&translate(CHUTE)));
                let r_h = 2.5 * 0.1;
                let z_door = (r_h - 0.5) - 0.1;
                assert_eq!(
                    recirculation(b),
                    Some(Recirculation {
                        height: 2.0,
                        door_closed_time: 0.05,
                        first_door_open_time: 0.3,
                        chutes: vec![Chute {
                            center: [0.0, 0.0],
                            radius: r_h,
                            door: z_door
                        }],
                        inlets: Vec::new(),
                        drop_offset: [0.0, 0.0],
                    })
                );
            },
        ),
        row("recirculate_params", CHUTE, RECIRC, |a, b| {
            assert_eq!(recirculation(a), None);
            assert_eq!(shapes(a), shapes(b));
            let r = recirculation(b).expect("recirculation");
            assert_eq!(
                (r.height, r.door_closed_time, r.first_door_open_time),
                (2.0, 0.05, 0.3)
            );
            assert_eq!(r.chutes.len(), 1);
            assert_eq!(r.chutes[0].radius, 2.5 * 0.1);
        }),
        row("ppf_filename", "", "ppf_filename abcdefgh00", |a, b| {
            // Ignored by the single-processor program (001 §4.2): a note, nothing else.
            assert!(ok(a).notes.is_empty());
            let notes = &ok(b).notes;
            assert_eq!(notes.len(), 1);
            assert!(
                notes[0].starts_with("t.inp:1: ppf_filename"),
                "{}",
                notes[0]
            );
            assert_eq!(ok(a).scene, ok(b).scene);
            assert_eq!(ok(a).cadence, ok(b).cadence);
        }),
        row(
            "linear_static_friction_cutoff",
            "static_friction_new 0.5 1.0e5 0.01",
            "static_friction_new 0.5 1.0e5 0.01\nlinear_static_friction_cutoff",
            |a, b| {
                assert!(!static_friction(a).expect("static").linear_cutoff);
                assert!(static_friction(b).expect("static").linear_cutoff);
            },
        ),
        row(
            "no_linear_static_friction_cutoff",
            "static_friction_new 0.5 1.0e5 0.01\nlinear_static_friction_cutoff",
            "static_friction_new 0.5 1.0e5 0.01\nlinear_static_friction_cutoff\n\
             no_linear_static_friction_cutoff",
            |a, b| {
                assert!(static_friction(a).expect("static").linear_cutoff);
                assert!(!static_friction(b).expect("static").linear_cutoff);
            },
        ),
        row(
            "sort_pebbles",
            "load_positions pos.txt",
            "load_positions pos.txt\nsort_pebbles",
            |a, b| {
                // Loaded pebbles are sorted by height (ids follow the list order).
                let z = |r: &Run| listed(r).iter().map(|s| s.0.z).collect::<Vec<_>>();
                assert_eq!(z(a), [0.9, 0.5, 0.2]);
                assert_eq!(z(b), [0.2, 0.5, 0.9]);
            },
        ),
        row(
            "zero_long_slips_mult",
            "static_friction_new 0.5 1.0e5 0.01",
            "static_friction_new 0.5 1.0e5 0.01\nzero_long_slips_mult 1.5",
            |a, b| {
                assert_eq!(static_friction(a).expect("static").zero_long_slips, None);
                assert_eq!(
                    static_friction(b).expect("static").zero_long_slips,
                    Some(1.5)
                );
            },
        ),
        row(
            "decrease_long_slips",
            "static_friction_new 0.5 1.0e5 0.01",
            "static_friction_new 0.5 1.0e5 0.01\ndecrease_long_slips 1.1 1.0",
            |a, b| {
                assert_eq!(static_friction(a).expect("s").decrease_long_slips, None);
                assert_eq!(
                    static_friction(b).expect("s").decrease_long_slips,
                    Some([1.1, 1.0])
                );
            },
        ),
        row(
            "integration_method",
            "",
            "integration_method runge_kutta",
            |a, b| {
                assert_eq!(integrator(a), Integrator::VelocityVerlet);
                assert_eq!(integrator(b), Integrator::RungeKutta);
                for (word, method) in [
                    ("euler", Integrator::Euler),
                    ("adams_bashforth", Integrator::AdamsBashforth),
                    ("adams_moulton", Integrator::AdamsMoulton),
                ] {
                    let r = translate(&format!("integration_method {word}"));
                    assert_eq!(integrator(&r), method);
                }
            },
        ),
        row(
            "use_simple_integrator",
            "",
            "use_simple_integrator",
            |a, b| {
                assert_eq!(integrator(a), Integrator::VelocityVerlet);
                assert_eq!(integrator(b), Integrator::Euler);
            },
        ),
        // 4.3
        row("dump_frequency", "", "dump_frequency 7", |a, b| {
            assert_eq!((ok(a).cadence.dump, ok(b).cadence.dump), (100000, 7));
        }),
        row("display_frequency", "", "display_frequency 7", |a, b| {
            assert_eq!((ok(a).cadence.display, ok(b).cadence.display), (1000, 7));
        }),
        row(
            "position_display_frequency",
            "",
            "position_display_frequency 7",
            |a, b| {
                assert_eq!(
                    (ok(a).cadence.positions, ok(b).cadence.positions),
                    (100000000, 7)
                );
            },
        ),
        row(
            "energy_display_frequency",
            "",
            "energy_display_frequency 7",
            |a, b| {
                assert_eq!((ok(a).cadence.energy, ok(b).cadence.energy), (100, 7));
            },
        ),
        row("velocity_tally", "", "velocity_tally 1.0 100", |a, b| {
            assert_eq!(tallies(a).velocity, None);
            // frequency in steps of alpha.
            assert_eq!(
                tallies(b).velocity,
                Some(Cadence {
                    start: 1.0,
                    interval: 100.0 * 0.0001
                })
            );
        }),
        row(
            "probability_table",
            "",
            "probability_table 2.0 50 0.05",
            |a, b| {
                assert_eq!(tallies(a).probability, None);
                assert_eq!(
                    tallies(b).probability,
                    Some(ProbabilitySpec {
                        start: 2.0,
                        interval: 50.0 * 0.0001,
                        cell: 0.05
                    })
                );
            },
        ),
        row(
            "calculate_pebble_wear",
            "",
            "calculate_pebble_wear",
            |a, b| {
                assert_eq!(tallies(a).wear, None);
                assert_eq!(
                    tallies(b).wear,
                    Some(WearSpec {
                        exponent: 2.0 / 3.0,
                        velocity_bins: Vec::new()
                    })
                );
            },
        ),
        row(
            "normal_force_wear_exponent",
            "calculate_pebble_wear",
            "calculate_pebble_wear\nnormal_force_wear_exponent 0.5",
            |a, b| {
                assert_eq!(tallies(a).wear.expect("wear").exponent, 2.0 / 3.0);
                assert_eq!(tallies(b).wear.expect("wear").exponent, 0.5);
            },
        ),
        row(
            "wear_velocity_bins",
            "calculate_pebble_wear",
            "calculate_pebble_wear\nwear_velocity_bins 2 1.0 2.0",
            |a, b| {
                assert!(tallies(a).wear.expect("wear").velocity_bins.is_empty());
                assert_eq!(tallies(b).wear.expect("wear").velocity_bins, [1.0, 2.0]);
            },
        ),
        row(
            "calculate_force_tally",
            "",
            "calculate_force_tally",
            |a, b| {
                assert_eq!(tallies(a).force, None);
                assert_eq!(tallies(b).force, Some(ForceSpec { cell: None }));
            },
        ),
    ]
}
