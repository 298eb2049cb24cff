//! The directives of a PEBBLES input deck (001 chapter 4), with their parameters and the
//! defaults chapter 4 states. One table serves the parser, the error messages (nearest known
//! name) and the documentation test that docs/pebbles-decks.md lists every directive.

/// What one parameter of a directive is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A real number.
    Num,
    /// A whole number ≥ 0.
    Count,
    /// A word (a file name, a method name).
    Word,
    /// A count n followed by n numbers (`angles`, `wear_velocity_bins`).
    CountedList,
}

/// Where in a deck a directive may appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// Anywhere outside the geometry section (and `rem`, `done` anywhere).
    Top,
    /// Directly inside `start_geometry` … `end_geometry` (001 §4.7).
    Geometry,
    /// Inside `start_union` … `end_union` (001 §4.7.1).
    Union,
    /// Inside `start_indentation` … `end_indentation`, outside patterns and rows (001 §4.7.2).
    Indentation,
    /// Inside `start_pattern` … `end_pattern`.
    Pattern,
    /// Inside `start_row` … `end_row`.
    Row,
}

/// One directive: its name, parameters, stated default and where it may appear.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// The directive's name.
    pub name: &'static str,
    /// Parameter names and kinds, in order.
    pub params: &'static [(&'static str, Kind)],
    /// The values chapter 4 states as the default, as the deck would write them.
    pub default: Option<&'static str>,
    /// Sections it may appear in.
    pub sections: &'static [Section],
}

use Kind::{Count, CountedList, Num, Word};
use Section::{Geometry as G, Indentation as I, Pattern as P, Row as R, Top as T, Union as U};

const fn d(
    name: &'static str,
    params: &'static [(&'static str, Kind)],
    default: Option<&'static str>,
    sections: &'static [Section],
) -> Spec {
    Spec {
        name,
        params,
        default,
        sections,
    }
}

const ANY: &[Section] = &[T, G, U, I, P, R];

/// Every directive a deck may hold: chapter 4, the three the chapter-8 samples use without
/// describing (`use_simple_integrator`, `no_linear_static_friction_cutoff`,
/// `decrease_long_slips`), and the block markers of the geometry section.
pub const DIRECTIVES: &[Spec] = &[
    // 4.1
    d("done", &[], None, ANY),
    d("rem", &[], None, ANY),
    // 4.2 Parameters
    d("runs", &[("number", Count)], Some("10000"), &[T]),
    d(
        "number_of_pebbles",
        &[("number", Count)],
        Some("1000"),
        &[T],
    ),
    d("initial_time", &[("time", Num)], Some("0.0"), &[T]),
    d(
        "kinetic_friction",
        &[("friction_coefficient", Num)],
        Some("0.1"),
        &[T],
    ),
    d(
        "static_friction_new",
        &[
            ("friction_coefficient", Num),
            ("static_friction_hooke", Num),
            ("velocity_max_sqr", Num),
        ],
        None,
        &[T],
    ),
    d(
        "static_friction_new2",
        &[
            ("friction_coefficient", Num),
            ("static_friction_hooke", Num),
            ("surface_static_friction_hooke", Num),
            ("velocity_max_sqr", Num),
        ],
        None,
        &[T],
    ),
    d(
        "static_friction_new3",
        &[
            ("pebble_pebble_friction_coefficient", Num),
            ("pebble_pebble_static_friction_hooke", Num),
            ("surface_friction_coefficient", Num),
            ("surface_static_friction_hooke", Num),
            ("velocity_max_sqr", Num),
        ],
        None,
        &[T],
    ),
    d("alpha", &[("time_step", Num)], Some("0.0001"), &[T]),
    d("dash_pot", &[("dash_pot_constant", Num)], Some("2.0"), &[T]),
    d(
        "dash_pot2",
        &[
            ("normal_dash_pot_constant", Num),
            ("transverse_dash_pot_constant", Num),
        ],
        Some("2.0 2.0"),
        &[T],
    ),
    d("seed", &[("random_seed", Count)], Some("256"), &[T]),
    d(
        "pebble_pebble_hooke",
        &[("constant", Num)],
        Some("10000.0"),
        &[T],
    ),
    d(
        "pebble_vessel_hooke",
        &[("constant", Num)],
        Some("10000.0"),
        &[T],
    ),
    d(
        "pebble_radius",
        &[("center_radius", Num), ("outside_radius", Num)],
        Some("0.0 0.1"),
        &[T],
    ),
    d(
        "pebble_density",
        &[("center_density", Num), ("outside_density", Num)],
        Some("0.0 2.0"),
        &[T],
    ),
    d(
        "recirculate",
        &[
            ("recirculation_height", Num),
            ("door_closed_time", Num),
            ("first_door_open_time", Num),
            ("hole_size", Num),
            ("hole_depth", Num),
        ],
        None,
        &[T],
    ),
    d(
        "recirculate_params",
        &[
            ("recirculation_height", Num),
            ("door_closed_time", Num),
            ("first_door_open_time", Num),
        ],
        None,
        &[T],
    ),
    d("ppf_filename", &[("base_filename", Word)], None, &[T]),
    d("linear_static_friction_cutoff", &[], None, &[T]),
    d("no_linear_static_friction_cutoff", &[], None, &[T]),
    d("sort_pebbles", &[], None, &[T]),
    d("zero_long_slips_mult", &[("mult", Num)], None, &[T]),
    d(
        "decrease_long_slips",
        &[("limit_mult", Num), ("target_mult", Num)],
        None,
        &[T],
    ),
    d("integration_method", &[("method", Word)], None, &[T]),
    d("use_simple_integrator", &[], None, &[T]),
    // 4.3 Tallies
    d(
        "dump_frequency",
        &[("frequency", Count)],
        Some("100000"),
        &[T],
    ),
    d(
        "display_frequency",
        &[("frequency", Count)],
        Some("1000"),
        &[T],
    ),
    d(
        "position_display_frequency",
        &[("frequency", Count)],
        Some("100000000"),
        &[T],
    ),
    d(
        "energy_display_frequency",
        &[("frequency", Count)],
        Some("100"),
        &[T],
    ),
    d(
        "velocity_tally",
        &[("start_time", Num), ("frequency", Count)],
        None,
        &[T],
    ),
    d(
        "probability_table",
        &[
            ("start_time", Num),
            ("frequency", Count),
            ("delta_size", Num),
        ],
        None,
        &[T],
    ),
    d("calculate_pebble_wear", &[], None, &[T]),
    d(
        "normal_force_wear_exponent",
        &[("exponent", Num)],
        Some("0.6666666666666666"),
        &[T],
    ),
    d("wear_velocity_bins", &[("bins", CountedList)], None, &[T]),
    d("calculate_force_tally", &[], None, &[T]),
    // 4.4 Packing
    d("initial_packing", &[("value", Num)], Some("0.10"), &[T]),
    d("random_packing_method", &[("mult", Count)], None, &[T]),
    d(
        "cone_packing",
        &[("opening_size", Num), ("height", Num)],
        None,
        &[T],
    ),
    d(
        "cone_packing_chute",
        &[
            ("opening_size", Num),
            ("height", Num),
            ("chute_height", Num),
        ],
        None,
        &[T],
    ),
    // 4.5 Loading and saving
    d("dump_positions", &[("filename", Word)], None, &[T]),
    d(
        "dump_positions_mult",
        &[("filename", Word), ("mult", Num)],
        None,
        &[T],
    ),
    d("load_positions", &[("filename", Word)], None, &[T]),
    d(
        "load_positions_divide",
        &[("filename", Word), ("divide", Num)],
        None,
        &[T],
    ),
    d("load_pebble_info", &[("filename", Word)], None, &[T]),
    d("load_pebble_slips", &[], None, &[T]),
    d("load_pebble_surface_slips", &[], None, &[T]),
    d("load_pebble_save", &[("filename", Word)], None, &[T]),
    // 4.6 Earthquake
    d(
        "earthquake_enable",
        &[("number_of_waves", Count)],
        Some("0"),
        &[T],
    ),
    d(
        "earthquake_sine_wave",
        &[
            ("start_time", Num),
            ("end_time", Num),
            ("d_x", Num),
            ("d_y", Num),
            ("d_z", Num),
            ("period", Num),
            ("initial_cycle", Num),
        ],
        None,
        &[T],
    ),
    d(
        "earthquake_sine_wave_offset",
        &[
            ("start_time", Num),
            ("end_time", Num),
            ("d_x", Num),
            ("d_y", Num),
            ("d_z", Num),
            ("period", Num),
            ("initial_cycle", Num),
            ("offset", Num),
        ],
        None,
        &[T],
    ),
    d(
        "tabular_earthquake",
        &[
            ("earthquake_start", Num),
            ("table_data_delta", Num),
            ("table_length", Count),
            ("filename", Word),
        ],
        None,
        &[T],
    ),
    // 4.7 Geometry section
    d("start_geometry", &[], None, &[T]),
    d("end_geometry", &[], None, &[G]),
    d(
        "inlet",
        &[
            ("px", Num),
            ("py", Num),
            ("pz", Num),
            ("vx", Num),
            ("vy", Num),
            ("vz", Num),
        ],
        None,
        &[G],
    ),
    d("start_union", &[], None, &[G]),
    d("end_union", &[], None, &[U]),
    d(
        "block",
        &[
            ("xmin", Num),
            ("ymin", Num),
            ("zmin", Num),
            ("xmax", Num),
            ("ymax", Num),
            ("zmax", Num),
        ],
        None,
        &[U],
    ),
    d(
        "cylinder",
        &[
            ("radius", Num),
            ("xcenter", Num),
            ("ycenter", Num),
            ("zmin", Num),
            ("zmax", Num),
        ],
        None,
        &[U],
    ),
    d(
        "plane",
        &[("a", Num), ("b", Num), ("c", Num), ("d", Num)],
        None,
        &[U, P],
    ),
    d("start_indentation", &[], None, &[G]),
    d("end_indentation", &[], None, &[I]),
    d("start_pattern", &[], None, &[I]),
    d("end_pattern", &[], None, &[P]),
    d("min_max", &[("minimum", Num), ("maximum", Num)], None, &[I]),
    d("start_row", &[], None, &[I]),
    d("end_row", &[], None, &[R]),
    d("row_min", &[("min", Num)], None, &[R]),
    d("angle", &[("angle", Num)], None, &[R]),
    d("angles", &[("angles", CountedList)], None, &[R]),
    // 4.8 Other geometry
    d(
        "vessel_radius",
        &[("inside_radius", Num), ("outside_radius", Num)],
        Some("0.0 1.0"),
        &[T],
    ),
    d(
        "rectangular_vat",
        &[("x_wall", Num), ("y_wall", Num)],
        None,
        &[T],
    ),
    d("floor_location", &[("height", Num)], Some("0.0"), &[T]),
    d("cone", &[("location", Num), ("slope", Num)], None, &[T]),
    d("number_of_cones", &[("number_of_cones", Count)], None, &[T]),
    d("offset_inlet_holes", &[], None, &[T]),
    d(
        "exit_chute",
        &[("hole_size", Num), ("hole_depth", Num)],
        None,
        &[T],
    ),
];

/// The directive called `name`.
pub fn spec(name: &str) -> Option<&'static Spec> {
    DIRECTIVES.iter().find(|s| s.name == name)
}

/// The known name nearest to `word` by edit distance, if it is near enough to be a typo
/// (at most a third of the word's length, and at least 1).
pub fn nearest(word: &str) -> Option<&'static str> {
    let limit = (word.chars().count() / 3).max(1);
    DIRECTIVES
        .iter()
        .map(|s| (edit_distance(word, s.name), s.name))
        .filter(|&(dist, _)| dist <= limit)
        .min_by_key(|&(dist, _)| dist)
        .map(|(_, name)| name)
}

/// Levenshtein distance between two words (insertions, deletions, substitutions).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diag + usize::from(ca != cb));
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kinetic_fricton", "kinetic_friction"), 1);
        assert_eq!(edit_distance("alpha", "alpha"), 0);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("seed", "send"), 1);
        assert_eq!(edit_distance("abc", "ca"), 3);
    }

    #[test]
    fn nearest_name_is_suggested_only_for_near_misses() {
        assert_eq!(nearest("kinetic_fricton"), Some("kinetic_friction"));
        assert_eq!(nearest("vesel_radius"), Some("vessel_radius"));
        assert_eq!(nearest("xyzzy_plugh"), None);
    }

    #[test]
    fn names_are_unique() {
        for (k, s) in DIRECTIVES.iter().enumerate() {
            assert!(
                DIRECTIVES[..k].iter().all(|o| o.name != s.name),
                "{}",
                s.name
            );
        }
    }
}
