//! Units in scene files: a number may be written as a string with its unit (`"3 mm"`,
//! `"0.5 rpm"`, `"-1.62 m/s^2"`, `"2.6 g/cm^3"`), converted to SI when the scene is read.
//!
//! Each dimensioned field of a scene names its dimension through serde
//! (`#[serde(deserialize_with = "crate::units::length")]`), so the structs stay plain `f64`,
//! `DVec3`, arrays and options; a quantity of another dimension is refused with the field's
//! path and both dimensions (`radius: expected a length (m), got "3 kg", a mass (kg)`).
//!
//! Conversion: the units' powers of ten (SI prefixes, g = 10⁻³ kg) move the decimal point of
//! the number as written, which is then read once, correctly rounded, so `"3 mm"` gives the
//! same bits as `0.003` and `"0.001 m"` the same as `0.001`. The other factors (min = 60 s,
//! AU = 149 597 870 700 m, deg = π/180 rad, rpm = 2π/60 rad/s, …) are gathered into one
//! quotient of the factors of the units (exact integers, or π and 2π rounded to the nearest
//! double), rounded once, and applied by one multiplication.

use std::f64::consts::{PI, TAU};
use std::fmt;

use glam::DVec3;
use serde::de::{DeserializeSeed, Deserializer, Error, SeqAccess, Visitor};

/// Powers of the base dimensions: length, mass, time, angle.
type Dims = [i8; 4];

/// A dimension a field expects, with its words for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dimension {
    dims: Dims,
    /// "a length (m)".
    name: &'static str,
}

macro_rules! dimensions {
    ($($(#[$doc:meta])* $fn:ident, $konst:ident: [$l:expr, $m:expr, $t:expr, $a:expr], $name:expr;)*) => {
        $(
            $(#[$doc])*
            pub const $konst: Dimension = Dimension { dims: [$l, $m, $t, $a], name: $name };
        )*
        /// Every named dimension, for messages about what was given.
        const NAMED: &[Dimension] = &[$($konst),*];
        $(
            $(#[$doc])*
            /// Reads a field of this dimension: a bare number (SI) or a string with a unit.
            pub fn $fn<'de, D: Deserializer<'de>, T: Quantities>(d: D) -> Result<T, D::Error> {
                T::read(d, $konst)
            }
        )*
    };
}

dimensions! {
    /// Length (m).
    length, LENGTH: [1, 0, 0, 0], "a length (m)";
    /// Area (m²).
    area, AREA: [2, 0, 0, 0], "an area (m^2)";
    /// Mass (kg).
    mass, MASS: [0, 1, 0, 0], "a mass (kg)";
    /// Time (s).
    time, TIME: [0, 0, 1, 0], "a time (s)";
    /// Velocity (m/s).
    velocity, VELOCITY: [1, 0, -1, 0], "a velocity (m/s)";
    /// Squared speed (m²/s²).
    speed_squared, SPEED_SQUARED: [2, 0, -2, 0], "a squared speed (m^2/s^2)";
    /// Acceleration (m/s²).
    acceleration, ACCELERATION: [1, 0, -2, 0], "an acceleration (m/s^2)";
    /// Density (kg/m³).
    density, DENSITY: [-3, 1, 0, 0], "a density (kg/m^3)";
    /// Moment of inertia (kg m²).
    moment_of_inertia, MOMENT_OF_INERTIA: [2, 1, 0, 0], "a moment of inertia (kg m^2)";
    /// Force (N).
    force, FORCE: [1, 1, -2, 0], "a force (N)";
    /// Pressure or elastic modulus (Pa).
    pressure, PRESSURE: [-1, 1, -2, 0], "a pressure (Pa)";
    /// Energy (J).
    energy, ENERGY: [2, 1, -2, 0], "an energy (J)";
    /// Stiffness (N/m).
    stiffness, STIFFNESS: [0, 1, -2, 0], "a stiffness (N/m)";
    /// Damping coefficient (N s/m) or mass rate (kg/s).
    damping, DAMPING: [0, 1, -1, 0], "a damping coefficient or mass rate (N s/m = kg/s)";
    /// Rate (1/s).
    rate, RATE: [0, 0, -1, 0], "a rate (1/s)";
    /// Angle (rad).
    angle, ANGLE: [0, 0, 0, 1], "an angle (rad)";
    /// Angular velocity (rad/s).
    angular_velocity, ANGULAR_VELOCITY: [0, 0, -1, 1], "an angular velocity (rad/s)";
    /// Gravitational constant (m³ kg⁻¹ s⁻²).
    gravitational_constant, GRAVITATIONAL_CONSTANT: [3, -1, -2, 0], "a gravitational constant (m^3 kg^-1 s^-2)";
    /// A plain number.
    number, ONE: [0, 0, 0, 0], "a plain number";
}

impl Dimension {
    /// Words for the dimension `dims`: its name when it has one, else its SI unit.
    fn describe(dims: Dims) -> String {
        if let Some(d) = NAMED.iter().find(|d| d.dims == dims) {
            return d.name.to_string();
        }
        let parts: Vec<String> = ["m", "kg", "s", "rad"]
            .iter()
            .zip(dims)
            .filter(|(_, p)| *p != 0)
            .map(|(u, p)| {
                if p == 1 {
                    u.to_string()
                } else {
                    format!("{u}^{p}")
                }
            })
            .collect();
        format!("a quantity in {}", parts.join(" "))
    }
}

/// A unit: its dimension, its power of ten and the rest of its factor as num / den.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Unit {
    dims: Dims,
    exp10: i32,
    num: f64,
    den: f64,
}

impl Unit {
    const ONE: Unit = Unit {
        dims: [0; 4],
        exp10: 0,
        num: 1.0,
        den: 1.0,
    };

    /// This unit times `other` to the power `p`.
    fn times(self, other: Unit, p: i32) -> Option<Unit> {
        let mut dims = self.dims;
        for (d, o) in dims.iter_mut().zip(other.dims) {
            *d = i8::try_from(i32::from(*d) + i32::from(o) * p).ok()?;
        }
        let (mut num, mut den) = (self.num, self.den);
        for _ in 0..p.unsigned_abs() {
            if p > 0 {
                num *= other.num;
                den *= other.den;
            } else {
                num *= other.den;
                den *= other.num;
            }
        }
        Some(Unit {
            dims,
            exp10: self.exp10 + other.exp10 * p,
            num,
            den,
        })
    }
}

/// A unit symbol: dimension, power of ten, factor num / den, and whether SI prefixes apply.
const SYMBOLS: &[(&str, Dims, i32, f64, f64, bool)] = &[
    ("m", [1, 0, 0, 0], 0, 1.0, 1.0, true),
    ("AU", [1, 0, 0, 0], 0, 149_597_870_700.0, 1.0, false),
    ("au", [1, 0, 0, 0], 0, 149_597_870_700.0, 1.0, false),
    ("L", [3, 0, 0, 0], -3, 1.0, 1.0, true),
    ("g", [0, 1, 0, 0], -3, 1.0, 1.0, true),
    ("t", [0, 1, 0, 0], 3, 1.0, 1.0, false),
    ("s", [0, 0, 1, 0], 0, 1.0, 1.0, true),
    ("min", [0, 0, 1, 0], 0, 60.0, 1.0, false),
    ("h", [0, 0, 1, 0], 0, 3600.0, 1.0, false),
    ("d", [0, 0, 1, 0], 0, 86400.0, 1.0, false),
    ("day", [0, 0, 1, 0], 0, 86400.0, 1.0, false),
    ("yr", [0, 0, 1, 0], 0, 31_557_600.0, 1.0, false),
    ("Hz", [0, 0, -1, 0], 0, 1.0, 1.0, true),
    ("N", [1, 1, -2, 0], 0, 1.0, 1.0, true),
    ("Pa", [-1, 1, -2, 0], 0, 1.0, 1.0, true),
    ("J", [2, 1, -2, 0], 0, 1.0, 1.0, true),
    ("rad", [0, 0, 0, 1], 0, 1.0, 1.0, true),
    ("deg", [0, 0, 0, 1], 0, PI, 180.0, false),
    ("°", [0, 0, 0, 1], 0, PI, 180.0, false),
    ("rev", [0, 0, 0, 1], 0, TAU, 1.0, false),
    ("rpm", [0, 0, -1, 1], 0, TAU, 60.0, false),
];

/// SI prefixes and their powers of ten.
const PREFIXES: &[(&str, i32)] = &[
    ("da", 1),
    ("Y", 24),
    ("Z", 21),
    ("E", 18),
    ("P", 15),
    ("T", 12),
    ("G", 9),
    ("M", 6),
    ("k", 3),
    ("h", 2),
    ("d", -1),
    ("c", -2),
    ("m", -3),
    ("u", -6),
    ("µ", -6),
    ("μ", -6),
    ("n", -9),
    ("p", -12),
    ("f", -15),
    ("a", -18),
    ("z", -21),
    ("y", -24),
];

/// The unit a symbol names, with or without an SI prefix.
fn symbol(s: &str) -> Option<Unit> {
    let unit = |&(_, dims, exp10, num, den, _): &(&str, Dims, i32, f64, f64, bool)| Unit {
        dims,
        exp10,
        num,
        den,
    };
    if let Some(u) = SYMBOLS.iter().find(|u| u.0 == s) {
        return Some(unit(u));
    }
    PREFIXES.iter().find_map(|&(p, e)| {
        let rest = s.strip_prefix(p)?;
        let u = SYMBOLS.iter().find(|u| u.0 == rest && u.5)?;
        let mut u = unit(u);
        u.exp10 += e;
        Some(u)
    })
}

/// Parses a unit expression: symbols joined by spaces, `*` or `·` (products) and `/` (the
/// next symbol divides), each with an optional integer power `^n`; `1/s` is a rate.
fn parse_unit(text: &str) -> Result<Unit, String> {
    let mut unit = Unit::ONE;
    let mut rest = text.trim();
    let mut divide = false;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('/') {
            if divide {
                return Err(format!("two `/` in a row in unit \"{text}\""));
            }
            divide = true;
            rest = r.trim_start();
            continue;
        }
        if let Some(r) = rest.strip_prefix(['*', '·']) {
            rest = r.trim_start();
            continue;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || "*·/^".contains(c))
            .unwrap_or(rest.len());
        let (name, r) = rest.split_at(end);
        rest = r.trim_start();
        let mut power = 1;
        if let Some(r) = rest.strip_prefix('^') {
            let r = r.trim_start();
            let end = r
                .char_indices()
                .find(|&(k, c)| !(c.is_ascii_digit() || (k == 0 && (c == '-' || c == '+'))))
                .map_or(r.len(), |(k, _)| k);
            power = r[..end]
                .parse::<i32>()
                .map_err(|_| format!("bad power in unit \"{text}\""))?;
            rest = r[end..].trim_start();
        }
        let base = if name == "1" {
            Some(Unit::ONE)
        } else {
            symbol(name)
        };
        let base = base.ok_or_else(|| {
            format!(
                "unknown unit \"{name}\" in \"{text}\" (known: {}, with SI prefixes on m, L, g, s, Hz, N, Pa, J, rad)",
                SYMBOLS.iter().map(|u| u.0).collect::<Vec<_>>().join(", ")
            )
        })?;
        let p = if divide { -power } else { power };
        unit = unit
            .times(base, p)
            .ok_or_else(|| format!("power too large in unit \"{text}\""))?;
        divide = false;
    }
    if divide {
        return Err(format!("unit \"{text}\" ends with `/`"));
    }
    Ok(unit)
}

/// The length of the number at the start of `s`: sign, digits, point, digits, exponent.
fn number_end(s: &str) -> usize {
    let b = s.as_bytes();
    let mut k = 0;
    let digits = |k: &mut usize| {
        let start = *k;
        while *k < b.len() && b[*k].is_ascii_digit() {
            *k += 1;
        }
        *k > start
    };
    if k < b.len() && (b[k] == b'-' || b[k] == b'+') {
        k += 1;
    }
    let mut any = digits(&mut k);
    if k < b.len() && b[k] == b'.' {
        k += 1;
        any |= digits(&mut k);
    }
    if !any {
        return 0;
    }
    if k < b.len() && (b[k] == b'e' || b[k] == b'E') {
        let mut j = k + 1;
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        if digits(&mut j) {
            k = j;
        }
    }
    k
}

/// A quantity written as text: its value in SI and its dimension.
fn parse_quantity(text: &str) -> Result<(f64, Dims), String> {
    let t = text.trim();
    let end = number_end(t);
    if end == 0 {
        return Err(format!(
            "\"{text}\" is not a number with a unit (write e.g. \"3 mm\")"
        ));
    }
    let (number, unit) = t.split_at(end);
    let unit = parse_unit(unit)?;
    // Move the decimal point by the unit's power of ten, then read the number once.
    let (mantissa, exponent) = match number.find(['e', 'E']) {
        Some(k) => (&number[..k], number[k + 1..].parse::<i64>().unwrap_or(0)),
        None => (number, 0),
    };
    let shifted = format!("{mantissa}e{}", exponent + i64::from(unit.exp10));
    let mut value: f64 = shifted
        .parse()
        .map_err(|_| format!("\"{text}\" is not a number with a unit"))?;
    let factor = unit.num / unit.den;
    if factor != 1.0 {
        value *= factor;
    }
    if !value.is_finite() {
        return Err(format!("\"{text}\" is out of range"));
    }
    Ok((value, unit.dims))
}

/// Parses `text` as a quantity of dimension `want`, or says why not.
pub fn convert(text: &str, want: Dimension) -> Result<f64, String> {
    let (value, dims) = parse_quantity(text)?;
    if dims != want.dims {
        return Err(format!(
            "expected {}, got \"{text}\", {}",
            want.name,
            Dimension::describe(dims)
        ));
    }
    Ok(value)
}

/// Values a scene field holds that may be written with units: numbers and their arrays,
/// vectors and options.
pub trait Quantities: Sized {
    /// Reads the value, every number of it of dimension `dim`.
    fn read<'de, D: Deserializer<'de>>(d: D, dim: Dimension) -> Result<Self, D::Error>;
}

impl Quantities for f64 {
    fn read<'de, D: Deserializer<'de>>(d: D, dim: Dimension) -> Result<Self, D::Error> {
        struct V(Dimension);
        impl Visitor<'_> for V {
            type Value = f64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "{}: a number in SI or a string with a unit", self.0.name)
            }
            fn visit_f64<E: Error>(self, v: f64) -> Result<f64, E> {
                Ok(v)
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<f64, E> {
                convert(v, self.0).map_err(E::custom)
            }
        }
        d.deserialize_any(V(dim))
    }
}

/// Reads one element of a sequence with its dimension.
struct Seed<T>(Dimension, std::marker::PhantomData<T>);

impl<'de, T: Quantities> DeserializeSeed<'de> for Seed<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::read(d, self.0)
    }
}

/// Reads a sequence of quantities of one dimension.
fn read_seq<'de, D: Deserializer<'de>, T: Quantities>(
    d: D,
    dim: Dimension,
) -> Result<Vec<T>, D::Error> {
    struct V<T>(Dimension, std::marker::PhantomData<T>);
    impl<'de, T: Quantities> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "an array of {}", self.0.name)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut v = Vec::new();
            while let Some(x) = seq.next_element_seed(Seed(self.0, std::marker::PhantomData))? {
                v.push(x);
            }
            Ok(v)
        }
    }
    d.deserialize_seq(V(dim, std::marker::PhantomData))
}

impl<T: Quantities> Quantities for Vec<T> {
    fn read<'de, D: Deserializer<'de>>(d: D, dim: Dimension) -> Result<Self, D::Error> {
        read_seq(d, dim)
    }
}

impl<T: Quantities, const N: usize> Quantities for [T; N] {
    fn read<'de, D: Deserializer<'de>>(d: D, dim: Dimension) -> Result<Self, D::Error> {
        let v: Vec<T> = read_seq(d, dim)?;
        let n = v.len();
        v.try_into()
            .map_err(|_| D::Error::invalid_length(n, &format!("an array of {N}").as_str()))
    }
}

impl Quantities for DVec3 {
    fn read<'de, D: Deserializer<'de>>(d: D, dim: Dimension) -> Result<Self, D::Error> {
        let [x, y, z] = <[f64; 3]>::read(d, dim)?;
        Ok(DVec3::new(x, y, z))
    }
}

impl<T: Quantities> Quantities for Option<T> {
    fn read<'de, D: Deserializer<'de>>(d: D, dim: Dimension) -> Result<Self, D::Error> {
        T::read(d, dim).map(Some)
    }
}

/// Every string of a TOML text with its dotted path (`gravity.uniform[2]`), in key order.
fn strings(text: &str) -> Vec<(String, String)> {
    fn walk(path: String, v: &toml::Value, out: &mut Vec<(String, String)>) {
        match v {
            toml::Value::String(s) => out.push((path, s.clone())),
            toml::Value::Array(a) => {
                for (k, x) in a.iter().enumerate() {
                    walk(format!("{path}[{k}]"), x, out);
                }
            }
            toml::Value::Table(t) => {
                for (k, x) in t {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(p, x, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(table) = text.parse::<toml::Table>() {
        walk(String::new(), &toml::Value::Table(table), &mut out);
    }
    out
}

/// Every string of a scene's TOML text that reads as a quantity with a unit: its dotted path,
/// the text and its SI value, for `grainflow check` to echo.
pub fn given_with_units(text: &str) -> Vec<(String, String, f64)> {
    strings(text)
        .into_iter()
        .filter_map(|(path, s)| {
            let (value, _) = parse_quantity(&s).ok()?;
            let t = s.trim();
            (t.len() > number_end(t)).then_some((path, s, value))
        })
        .collect()
}

/// The whole path of the field a unit error is about, when serde's path stops at an enum
/// whose content it buffered (`particles[0]` for `particles[0].spheres[0].radius`): the first
/// string under `path` that is the text the error quotes.
pub(crate) fn field_of_error(text: &str, path: &str, message: &str) -> Option<String> {
    let quoted = message.split_once("got \"")?.1.rsplit_once("\", ")?.0;
    strings(text)
        .into_iter()
        .find(|(p, s)| {
            s == quoted
                && (path == "."
                    || p.strip_prefix(path)
                        .is_some_and(|r| r.starts_with(['.', '['])))
        })
        .map(|(p, _)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn si(text: &str, dim: Dimension) -> f64 {
        convert(text, dim).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn si_units_give_the_bits_of_the_bare_number() {
        for x in [
            "0.001", "1e-3", "2.5e-4", "-1.62", "9.81", "7e10", "0.1", "3",
        ] {
            let bare: f64 = x.parse().expect("number");
            assert_eq!(si(&format!("{x} m"), LENGTH).to_bits(), bare.to_bits());
            assert_eq!(
                si(&format!("{x} m/s^2"), ACCELERATION).to_bits(),
                bare.to_bits()
            );
            assert_eq!(
                si(&format!("{x} kg/m^3"), DENSITY).to_bits(),
                bare.to_bits()
            );
            assert_eq!(
                si(&format!("{x} kg m^-3"), DENSITY).to_bits(),
                bare.to_bits()
            );
            assert_eq!(si(&format!("{x} N/m"), STIFFNESS).to_bits(), bare.to_bits());
        }
    }

    #[test]
    fn prefixes_move_the_decimal_point_exactly() {
        // "3 mm" reads as 3e-3, the double nearest to 0.003: the bits of writing 0.003.
        assert_eq!(si("3 mm", LENGTH), 0.003);
        assert_eq!(si("2.6 g/cm^3", DENSITY), 2600.0);
        assert_eq!(si("70 GPa", PRESSURE), 70e9);
        assert_eq!(si("1.5e-3 km", LENGTH), 1.5);
        assert_eq!(si("250 µm", LENGTH), 250e-6);
        assert_eq!(si("250 um", LENGTH), 250e-6);
        assert_eq!(si("5 ms", TIME), 5e-3);
        assert_eq!(si("100 g/s", DAMPING), 0.1);
        assert_eq!(
            si("6.674e-11 m^3 kg^-1 s^-2", GRAVITATIONAL_CONSTANT),
            6.674e-11
        );
        assert_eq!(si("2 kHz", RATE), 2000.0);
        assert_eq!(si("100 1/s", RATE), 100.0);
    }

    #[test]
    fn other_factors_are_one_multiplication() {
        assert_eq!(si("2 min", TIME), 120.0);
        assert_eq!(si("1.5 h", TIME), 5400.0);
        assert_eq!(si("1 AU", LENGTH), 149_597_870_700.0);
        assert_eq!(si("1 yr", TIME), 31_557_600.0);
        assert_eq!(si("0.5 rpm", ANGULAR_VELOCITY), 0.5 * (TAU / 60.0));
        assert_eq!(si("90 deg", ANGLE), 90.0 * (PI / 180.0));
        assert_eq!(si("1 rev/s", ANGULAR_VELOCITY), TAU);
        assert_eq!(si("30 deg/s", ANGULAR_VELOCITY), 30.0 * (PI / 180.0));
    }

    #[test]
    fn a_wrong_dimension_is_refused_with_both() {
        let e = convert("3 kg", LENGTH).expect_err("refused");
        assert_eq!(e, "expected a length (m), got \"3 kg\", a mass (kg)");
        // Hz is 1/s: an angular velocity takes rad/s, rpm or rev/s.
        assert!(convert("2 Hz", ANGULAR_VELOCITY).is_err());
        assert!(convert("3", LENGTH).is_err());
        let e = convert("3 m s", LENGTH).expect_err("refused");
        assert!(e.ends_with("a quantity in m s"), "{e}");
    }

    #[test]
    fn bad_text_is_refused() {
        for t in ["mm", "3 furlong", "3 m/", "3 m^x", "3 m//s", "", "1e400 m"] {
            assert!(convert(t, LENGTH).is_err(), "{t}");
        }
    }

    #[test]
    fn the_field_of_an_error_is_found_under_the_path_serde_gives() {
        let text = "[[particles]]\ntype = \"list\"\nspheres = [{ pos = [0, 0, 0], radius = \"3 kg\" }]\n[[materials]]\nrestitution = \"3 kg\"\n";
        let message = convert("3 kg", LENGTH).expect_err("refused");
        assert_eq!(
            field_of_error(text, "particles[0]", &message).as_deref(),
            Some("particles[0].spheres[0].radius")
        );
        assert_eq!(field_of_error(text, "walls[0]", &message), None);
    }

    #[test]
    fn strings_with_units_are_found_with_their_paths() {
        let found = given_with_units(
            "[gravity]\nuniform = [\"0 m/s^2\", 0, \"-1.62 m/s^2\"]\n[[materials]]\nname = \"glass\"\ndensity = \"2.6 g/cm^3\"\n",
        );
        assert_eq!(
            found,
            vec![
                ("gravity.uniform[0]".into(), "0 m/s^2".into(), 0.0),
                ("gravity.uniform[2]".into(), "-1.62 m/s^2".into(), -1.62),
                ("materials[0].density".into(), "2.6 g/cm^3".into(), 2600.0),
            ]
        );
    }
}
