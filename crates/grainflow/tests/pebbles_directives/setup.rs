//! Effect rows of packing, loading and saving, earthquakes and geometry (001 §4.4–4.8).

use super::*;

pub(super) fn rows() -> Vec<Row> {
    vec![
        // 4.4
        row("initial_packing", "", "initial_packing 0.2", |a, b| {
            assert_eq!(pack(a).2, Packing::Loose { fraction: 0.10 });
            assert_eq!(pack(b).2, Packing::Loose { fraction: 0.2 });
        }),
        row(
            "random_packing_method",
            "",
            "random_packing_method 500",
            |a, b| {
                assert_eq!(pack(a).2, Packing::Loose { fraction: 0.10 });
                assert_eq!(
                    pack(b).2,
                    Packing::Prime {
                        extra_candidates: 500
                    }
                );
            },
        ),
        row("cone_packing", "", "cone_packing 0.3 1.5", |a, b| {
            // A 45° cone (slope 1) whose opening at its bottom, z = 1.5, has radius 0.3;
            // the pebbles start above it.
            let new = added(a, b);
            assert_eq!(new.len(), 1, "{new:?}");
            let ShapeSpec::Cone {
                slope,
                radius0,
                range: Some(range),
                ..
            } = new[0]
            else {
                panic!("{new:?}")
            };
            assert_eq!(slope, 1.0);
            assert!((radius0 + slope * 1.5 - 0.3).abs() < 1e-12);
            assert_eq!(range[0], 1.5);
            assert_eq!((pack(a).3.z, pack(b).3.z), (0.0, 1.5));
        }),
        row(
            "cone_packing_chute",
            "cone_packing 0.3 1.5",
            "cone_packing_chute 0.3 1.5 0.4",
            |a, b| {
                // The cone of cone_packing and a tube of the opening's radius from 1.5 down 0.4.
                assert_eq!(
                    added(a, b),
                    [ShapeSpec::Cylinder {
                        origin: DVec3::new(0.0, 0.0, 1.5 - 0.2),
                        axis: DVec3::Z,
                        radius: 0.3,
                        side: Side::Both,
                        length: Some(0.4),
                    }]
                );
                assert_eq!(pack(b).3.z, 1.5);
            },
        ),
        // 4.5
        row("dump_positions", "", "dump_positions out.txt", |a, b| {
            assert_eq!(ok(a).dump_positions, None);
            assert_eq!(ok(b).dump_positions, Some(("out.txt".into(), 1.0)));
        }),
        row(
            "dump_positions_mult",
            "",
            "dump_positions_mult out.txt 100.0",
            |a, b| {
                assert_eq!(ok(a).dump_positions, None);
                assert_eq!(ok(b).dump_positions, Some(("out.txt".into(), 100.0)));
            },
        ),
        row("load_positions", "", "load_positions pos.txt", |a, b| {
            assert_eq!(pack(a).0, 1000);
            let got = listed(b);
            let want: Vec<_> = POSITIONS
                .iter()
                .map(|p| (v(*p), 0.1, DVec3::ZERO, DVec3::ZERO))
                .collect();
            assert_eq!(got, want);
            assert!(ok(b).restore.is_none());
        }),
        row(
            "load_positions_divide",
            "",
            "load_positions_divide pos.txt 100.0",
            |_, b| {
                let got: Vec<DVec3> = listed(b).iter().map(|s| s.0).collect();
                let want: Vec<DVec3> = POSITIONS.iter().map(|p| v(*p) / 100.0).collect();
                assert_eq!(got, want);
            },
        ),
        row("load_pebble_info", "", "load_pebble_info s.save", |a, b| {
            assert!(ok(a).restore.is_none());
            // Positions, velocities, spins and radii of the file; passes restored; no slips.
            assert_eq!(
                listed(b),
                [
                    (
                        DVec3::new(0.0, 0.0, 0.2),
                        0.1,
                        DVec3::new(0.0, 0.0, 0.5),
                        DVec3::ZERO
                    ),
                    (
                        DVec3::new(0.0, 0.0, 0.4),
                        0.1,
                        DVec3::ZERO,
                        DVec3::new(0.0, 1.0, 0.0)
                    ),
                ]
            );
            let s = ok(b).restore.clone().expect("restore");
            assert_eq!(s.pebbles.iter().map(|p| p.passes).collect::<Vec<_>>(), [3, 0]);
            assert!(s.slips.is_empty() && s.surface_slips.is_empty());
        }),
        row(
            "load_pebble_slips",
            "load_pebble_info s.save",
            "load_pebble_info s.save\nload_pebble_slips",
            |a, b| {
                let (sa, sb) = (ok(a).restore.clone(), ok(b).restore.clone());
                assert!(sa.expect("restore").slips.is_empty());
                let sb = sb.expect("restore");
                assert_eq!(sb.slips, [(7, 9, DVec3::new(1e-5, 0.0, 0.0))]);
                assert!(sb.surface_slips.is_empty());
                // Ignored without load_pebble_info.
                assert_same(ok(&translate("")), ok(&translate("load_pebble_slips")));
            },
        ),
        row(
            "load_pebble_surface_slips",
            "load_pebble_info s.save",
            "load_pebble_info s.save\nload_pebble_surface_slips",
            |a, b| {
                let (sa, sb) = (ok(a).restore.clone(), ok(b).restore.clone());
                assert!(sa.expect("restore").surface_slips.is_empty());
                let sb = sb.expect("restore");
                assert_eq!(sb.surface_slips, [(7, 0, DVec3::new(0.0, 2e-5, 0.0))]);
                assert!(sb.slips.is_empty());
                assert_same(
                    ok(&translate("")),
                    ok(&translate("load_pebble_surface_slips")),
                );
            },
        ),
        row("load_pebble_save", "", "load_pebble_save s.save", |a, b| {
            assert!(ok(a).restore.is_none());
            let s = ok(b).restore.clone().expect("restore");
            assert_eq!(s.slips, [(7, 9, DVec3::new(1e-5, 0.0, 0.0))]);
            assert_eq!(s.surface_slips, [(7, 0, DVec3::new(0.0, 2e-5, 0.0))]);
            assert_eq!(listed(b).len(), 2);
        }),
        // 4.6
        row(
            "earthquake_enable",
            "earthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5",
            "earthquake_enable 1\nearthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5",
            |a, b| {
                // Default 0: no wave allowed; 1 allows one, and a second is refused.
                assert!(err(a).starts_with("t.inp:1: earthquake_sine_wave"), "{}", err(a));
                assert!(matches!(motion(b), Motion::Earthquake { waves } if waves.len() == 1));
                let two = translate(
                    "earthquake_enable 1\nearthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5\n\
                     earthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5",
                );
                assert!(err(&two).starts_with("t.inp:3: earthquake_sine_wave"));
            },
        ),
        row(
            "earthquake_sine_wave",
            "earthquake_enable 1",
            "earthquake_enable 1\nearthquake_sine_wave 0.5 3.0 0.01 0.0 0.02 0.25 0.5",
            |a, b| {
                assert_eq!(motion(a), Motion::Fixed);
                let m = motion(b);
                let w = [0.5, 3.0, 0.01, 0.0, 0.02, 0.25, 0.5, 0.0];
                for t in [0.6, 0.77, 2.9] {
                    let (d, vel) = wave_eq_7_1(t, w);
                    let pose = m.pose(t);
                    assert_close(pose.offset, d);
                    assert_close(pose.velocity, vel);
                }
                // Nothing outside [start, end].
                assert_eq!(m.pose(0.4).offset, DVec3::ZERO);
                assert_eq!(m.pose(3.1).offset, DVec3::ZERO);
            },
        ),
        row(
            "earthquake_sine_wave_offset",
            "earthquake_enable 1",
            "earthquake_enable 1\nearthquake_sine_wave_offset 0.0 8.0 0.25 0.0 0.0 1.0 0.0 1.0",
            |a, b| {
                assert_eq!(motion(a), Motion::Fixed);
                let m = motion(b);
                // Offset 1: the displacement runs from 2 D (t = p/4) to 0 (t = 3p/4).
                assert_close(m.pose(0.25).offset, DVec3::new(0.5, 0.0, 0.0));
                assert!(m.pose(0.75).offset.length() < 1e-15);
                let w = [0.0, 8.0, 0.25, 0.0, 0.0, 1.0, 0.0, 1.0];
                let (d, vel) = wave_eq_7_1(1.3, w);
                assert_close(m.pose(1.3).offset, d);
                assert_close(m.pose(1.3).velocity, vel);
            },
        ),
        row(
            "tabular_earthquake",
            "",
            "tabular_earthquake 1.0 0.1 3 table.txt",
            |a, b| {
                assert_eq!(motion(a), Motion::Fixed);
                let m = motion(b);
                assert_eq!(
                    m,
                    Motion::Table {
                        start: 1.0,
                        interval: 0.1,
                        displacements: TABLE[..3].iter().map(|r| v(*r)).collect(),
                    }
                );
                // Between T_1 and T_2 at o = 0.25: d = (1 − o) T_1 + o T_2, m = (T_2 − T_1)/δ.
                let (t1, t2) = (v(TABLE[1]), v(TABLE[2]));
                let pose = m.pose(1.0 + 1.25 * 0.1);
                assert_close(pose.offset, 0.75 * t1 + 0.25 * t2);
                assert_close(pose.velocity, (t2 - t1) / 0.1);
            },
        ),
        // 4.7
        row(
            "start_geometry",
            "",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            |a, b| {
                assert!(unions(a).is_empty());
                assert_eq!(unions(b), [vec![block()]]);
            },
        ),
        row("end_geometry", "start_geometry", "start_geometry\nend_geometry", |a, b| {
            assert!(err(a).contains("inside the geometry section"), "{}", err(a));
            assert_same(ok(b), ok(&translate("")));
        }),
        row(
            "inlet",
            RECIRC,
            "floor_location -8.0\ncone 0.5 1.0\nexit_chute 2.5 0.1\nrecirculate_params 2.0 0.05 0.3\n\
             start_geometry\ninlet 0.1 0.2 3.0 0.0 -0.1 0.0\nend_geometry",
            |a, b| {
                assert!(recirculation(a).expect("r").inlets.is_empty());
                assert_eq!(
                    recirculation(b).expect("r").inlets,
                    [Inlet {
                        pos: DVec3::new(0.1, 0.2, 3.0),
                        vel: DVec3::new(0.0, -0.1, 0.0)
                    }]
                );
            },
        ),
        row(
            "start_union",
            "start_geometry\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            |a, b| {
                assert!(unions(a).is_empty());
                assert_eq!(unions(b), [vec![block()]]);
                assert_eq!(added(a, b).len(), 1);
            },
        ),
        row(
            "end_union",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            |a, b| {
                assert!(err(a).starts_with("t.inp:4: 'end_geometry' cannot appear here"));
                assert_eq!(unions(b), [vec![block()]]);
            },
        ),
        row(
            "block",
            "start_geometry\nstart_union\ncylinder 0.2 0.5 0.1 -1.0 2.0\nend_union\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\n\
             cylinder 0.2 0.5 0.1 -1.0 2.0\nend_union\nend_geometry",
            |a, b| {
                assert_eq!(unions(a), [cylinder()]);
                let mut both = vec![block()];
                both.extend(cylinder());
                assert_eq!(unions(b), [both]);
            },
        ),
        row(
            "cylinder",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\n\
             cylinder 0.2 0.5 0.1 -1.0 2.0\nend_union\nend_geometry",
            |a, b| {
                assert_eq!(unions(a), [vec![block()]]);
                assert_eq!(unions(b)[0][1..], cylinder()[..]);
            },
        ),
        row(
            "plane",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\nend_union\nend_geometry",
            "start_geometry\nstart_union\nblock -0.3 -0.2 0.0 0.1 0.2 0.5\n\
             plane 0.0 0.0 -0.5 4.0\nend_union\nend_geometry",
            |a, b| {
                assert_eq!(unions(a), [vec![block()]]);
                // 001 §4.7.1: 0 0 −0.5 4 is a ceiling at z = 8, pebbles below it.
                let plane = unions(b)[0][1].clone();
                let ShapeSpec::Plane {
                    equation: Some(e), ..
                } = plane
                else {
                    panic!("{plane:?}")
                };
                assert_eq!(e, [0.0, 0.0, -0.5, 4.0]);
                assert_eq!(e[2] * 8.0 + e[3], 0.0);
                assert!(e[2] * 7.0 + e[3] > 0.0);
            },
        ),
        // 4.7.2
        indented("start_indentation"),
        indented("end_indentation"),
        indented("start_pattern"),
        indented("end_pattern"),
        indented("start_row"),
        indented("end_row"),
        row("min_max", "", INDENTATION, |_, b| {
                // The last row reaches the maximum: cut at 1.2 its pocket (1.0 to 1.5) ends
                // at 1.2.
                let low = translate(&INDENTATION.replace("min_max 0.4 2.0", "min_max 0.4 1.2"));
                let above = DVec3::new(0.0, 0.2, 1.3);
                assert!(walled(&low, above) && !walled(b, above));
                assert!(!walled(&low, DVec3::new(0.0, 0.2, 1.1)));
        }),
        row("row_min", "", INDENTATION, |_, b| {
                // Row 2's pattern (0.5 tall) starts at its row_min.
                let high = translate(&INDENTATION.replace("row_min 1.0", "row_min 1.5"));
                assert!(walled(&high, POCKET_90) && !walled(b, POCKET_90));
                assert!(!walled(&high, DVec3::new(0.0, 0.2, 1.7)));
        }),
        row(
            "angle",
            "",
            INDENTATION,
            |_, b| {
                let without = translate(&INDENTATION.replace("angle 90.0\n", ""));
                assert!(walled(&without, POCKET_90) && !walled(b, POCKET_90));
                assert!(!walled(&without, POCKET_0));
            },
        ),
        row(
            "angles",
            "",
            INDENTATION,
            |_, b| {
                let without = translate(&INDENTATION.replace("angles 2 -45.0 180.0\n", ""));
                for p in [POCKET_180, POCKET_M45] {
                    assert!(walled(&without, p) && !walled(b, p));
                }
            },
        ),
        // 4.8
        row("vessel_radius", "", "vessel_radius 0.2 0.5", |a, b| {
            let cylinders = |r: &Run| {
                shapes(r)
                    .into_iter()
                    .filter_map(|s| match s {
                        ShapeSpec::Cylinder { radius, side, .. } => Some((radius, side)),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(cylinders(a), [(1.0, Side::Inside)]);
            assert_eq!(cylinders(b), [(0.5, Side::Inside), (0.2, Side::Outside)]);
            // The fill goes between the two radii.
            let p = pack(b);
            assert_eq!((p.5, p.6), (vec![[0.0, 0.5]], 0.2));
            assert_eq!((pack(a).5, pack(a).6), (vec![[0.0, 1.0]], 0.0));
        }),
        row("rectangular_vat", "", "rectangular_vat 0.3 0.4", |_, b| {
            // The manual has indentations on the vessel_radius wall only: a vat refuses them.
            let vat = translate(&format!("rectangular_vat 0.3 0.4\n{INDENTATION}"));
            let e = err(&vat);
            assert!(
                e.starts_with(
                    "t.inp:4: start_indentation: indentations are cut into the vessel_radius wall only"
                ),
                "{e}"
            );
            let planes: Vec<(DVec3, DVec3)> = shapes(b)
                .into_iter()
                .filter_map(|s| match s {
                    ShapeSpec::Plane {
                        point: Some(p),
                        normal: Some(n),
                        ..
                    } => Some((p, n)),
                    _ => None,
                })
                .collect();
            // The floor and four walls x = ±0.3, y = ±0.4 facing inward; no cylinder.
            assert_eq!(
                planes,
                [
                    (DVec3::ZERO, DVec3::Z),
                    (DVec3::new(-0.3, 0.0, 0.0), DVec3::X),
                    (DVec3::new(0.3, 0.0, 0.0), DVec3::NEG_X),
                    (DVec3::new(0.0, -0.4, 0.0), DVec3::Y),
                    (DVec3::new(0.0, 0.4, 0.0), DVec3::NEG_Y),
                ]
            );
            assert_eq!(shapes(b).len(), 5);
            let p = pack(b);
            assert_eq!((p.3.x, p.3.y, p.4.x, p.4.y), (-0.3, -0.4, 0.3, 0.4));
            assert!(p.5.is_empty());
        }),
        row("floor_location", "", "floor_location -1.0", |a, b| {
            let floor = |z: f64| ShapeSpec::Plane {
                point: Some(DVec3::new(0.0, 0.0, z)),
                normal: Some(DVec3::Z),
                equation: None,
                both: false,
            };
            assert_eq!(shapes(a)[0], floor(0.0));
            assert_eq!(shapes(b)[0], floor(-1.0));
            assert_eq!((pack(a).3.z, pack(b).3.z), (0.0, -1.0));
        }),
        row("cone", "floor_location -8.0", CONE, |a, b| {
            // radius = m z + b equal to the vessel radius 1 at z = 0.5: b = 0.5; no hole, so
            // the cone closes at its apex z = −b/m. One hole as wide as the vessel under a
            // floor at z = 0.5, which lies outside the vessel.
            assert_eq!(
                added(a, b),
                [ShapeSpec::Hopper {
                    height: 0.5,
                    centers: vec![[0.0, 0.0]],
                    radius: 1.0,
                    slope: 1.0,
                    bottom: -0.5,
                    tube: 0.0,
                }]
            );
            assert_eq!(pack(b).5, [[-0.5, 0.0], [0.5, 1.0]]);
            assert_eq!(pack(b).3.z, -0.5);
        }),
        row(
            "number_of_cones",
            RECIRC,
            "floor_location -8.0\ncone 0.5 1.0\nexit_chute 2.5 0.1\n\
             recirculate_params 2.0 0.05 0.3\nnumber_of_cones 3",
            |a, b| {
                // Three cones on the circle midway across the vessel (radius 0.5), at 0°, 120°
                // and 240°, as wide as keeps them apart: 0.5 sin 60°; a floor at the cones' top.
                let r_top = 0.5 * (PI / 3.0).sin();
                let centers: Vec<[f64; 2]> = (0..3)
                    .map(|k| {
                        let t = 2.0 * PI * k as f64 / 3.0;
                        [0.5 * t.cos(), 0.5 * t.sin()]
                    })
                    .collect();
                let hopper = shapes(b)
                    .into_iter()
                    .find(|s| matches!(s, ShapeSpec::Hopper { .. }))
                    .expect("a hopper");
                let ShapeSpec::Hopper {
                    height,
                    centers: c,
                    radius,
                    slope,
                    bottom,
                    tube,
                } = hopper
                else {
                    unreachable!()
                };
                assert_eq!((height, radius, slope), (0.5, r_top, 1.0));
                for (x, y) in c.iter().zip(&centers) {
                    assert!((x[0] - y[0]).abs() < 1e-15 && (x[1] - y[1]).abs() < 1e-15);
                }
                // Each is cut at the exit hole (0.25) and has its chute tube (the hopper's own)
                // and door.
                assert!((bottom - (0.5 - (r_top - 0.25))).abs() < 1e-15);
                assert_eq!(tube, 0.1);
                let doors = shapes(b)
                    .iter()
                    .filter(|s| matches!(s, ShapeSpec::Disk { .. }))
                    .count();
                assert_eq!(doors, 3);
                assert!(!shapes(b)
                    .iter()
                    .any(|s| matches!(s, ShapeSpec::Cylinder { length: Some(_), .. })));
                let chutes = recirculation(b).expect("r").chutes;
                assert_eq!(chutes.len(), 3);
                assert!(chutes.iter().all(|ch| ch.radius == 0.25 && ch.door == bottom - 0.1));
                assert_eq!(recirculation(a).expect("r").chutes.len(), 1);
                // Just below the floor, between the holes, is now solid (a pebble there touches
                // the floor); the cones' insides are open; the fill starts at the floor.
                let centre = DVec3::new(0.05, 0.0, 0.495);
                assert!(!walled(a, centre) && walled(b, centre));
                assert!(!walled(b, DVec3::new(0.5, 0.0, 0.45)));
                assert_eq!(pack(b).3.z, 0.5);
                // Without a cone there is nothing to repeat.
                let e = err(&translate("number_of_cones 3"));
                assert!(e.starts_with("t.inp:1: number_of_cones: needs a cone"), "{e}");
                // With offset_inlet_holes the drops are turned half-way to the next hole.
                let turned = translate(&format!(
                    "{RECIRC}\nnumber_of_cones 3\noffset_inlet_holes"
                ));
                let inlets = recirculation(&turned).expect("r").inlets;
                assert_eq!(inlets.len(), 3);
                for (k, i) in inlets.iter().enumerate() {
                    let t = PI / 3.0 + 2.0 * PI * k as f64 / 3.0;
                    let want = DVec3::new(0.5 * t.cos(), 0.5 * t.sin(), 2.0);
                    assert!((i.pos - want).length() < 1e-15 && i.vel == DVec3::ZERO);
                }
            },
        ),
        row(
            "offset_inlet_holes",
            RECIRC,
            "floor_location -8.0\ncone 0.5 1.0\nexit_chute 2.5 0.1\n\
             recirculate_params 2.0 0.05 0.3\noffset_inlet_holes",
            |a, b| {
                // Drops move R/2 off the hole's axis (our reading, docs/pebbles-decks.md), and
                // so does the packing cone.
                assert_eq!(recirculation(a).expect("r").drop_offset, [0.0, 0.0]);
                assert_eq!(recirculation(b).expect("r").drop_offset, [0.5, 0.0]);
                let cone_at = |lines: &str| {
                    let r = translate(lines);
                    let c = added(&translate(""), &r);
                    match c[..] {
                        [ShapeSpec::Cone { origin, .. }] => origin,
                        _ => panic!("{c:?}"),
                    }
                };
                assert_eq!(cone_at("cone_packing 0.3 1.5"), DVec3::ZERO);
                assert_eq!(
                    cone_at("cone_packing 0.3 1.5\noffset_inlet_holes"),
                    DVec3::new(0.5, 0.0, 0.0)
                );
            },
        ),
        row("exit_chute", CONE, CHUTE, |a, b| {
            // The door's hole has radius pebble_radius × hole_size (001 §4.8).
            assert_chute(a, b, 0.1 * 2.5, 0.1);
            assert_eq!(recirculation(b), None);
        }),
    ]
}
