//! PEBBLES input decks (001 chapter 4): read a deck line by line, check every directive
//! against [`directives::DIRECTIVES`], and translate it into a grainflow [`Scene`]
//! ([`translate`]). Save files and position files of 001 §4.5 are in [`save`].
//!
//! A deck is a list of lines `directive value value …`; `rem` lines are remarks; `done`
//! ends the input (lines after it are not read). An unknown directive is refused with its
//! line and the nearest known name:
//! `deck.inp:7: unknown directive 'kinetic_fricton' (did you mean 'kinetic_friction'?)`;
//! a directive with missing, extra or malformed values is refused with its line and its
//! parameter list. Later directives override earlier ones, as the deck is read in order.
//!
//! [`Scene`]: crate::scene::Scene

pub mod directives;
pub mod output;
pub mod physics;
pub mod save;
pub mod translate;
mod vessel;

use std::path::Path;

use glam::DVec3;

use crate::{Error, Result};
use directives::{Kind, Section};

/// One value of a directive.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A number (counts are stored as numbers too).
    Num(f64),
    /// A word.
    Word(String),
    /// A counted list of numbers.
    List(Vec<f64>),
}

/// One directive line of a deck outside the geometry section.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    /// The directive's name.
    pub name: &'static str,
    /// Line number (1-based).
    pub line: usize,
    /// Its values, one per parameter.
    pub args: Vec<Arg>,
}

/// A solid of a union in the geometry section (001 §4.7.1); pebbles stay outside it.
#[derive(Clone, Debug, PartialEq)]
pub enum Solid {
    /// Box with corners `min`, `max` (m).
    Block {
        /// Lower corner (m).
        min: DVec3,
        /// Upper corner (m).
        max: DVec3,
    },
    /// Vertical cylinder of `radius` about (x, y) between z_min and z_max (m).
    Cylinder {
        /// Radius (m).
        radius: f64,
        /// Axis position x, y (m).
        center: [f64; 2],
        /// Lower and upper ends (m).
        z: [f64; 2],
    },
    /// Plane a x + b y + c z + d = 0; pebbles where it is positive.
    Plane([f64; 4]),
}

/// A recirculation inlet: where a pebble taken from an exit chute re-enters, and its velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inlet {
    /// Position (m).
    pub pos: DVec3,
    /// Velocity (m/s).
    pub vel: DVec3,
}

/// One row of an indentation block: its lower height (the pattern's zero) and its angles (°),
/// as the wall takes it.
pub use crate::walls::indent::Row;

/// An indentation block (001 §4.7.2): a pattern (intersection of planes) replicated in rows.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Indentation {
    /// Planes a x + b y + c z + d = 0 of the pattern, in its own frame.
    pub pattern: Vec<[f64; 4]>,
    /// Heights between which indentations exist (m).
    pub min_max: Option<[f64; 2]>,
    /// The rows.
    pub rows: Vec<Row>,
    /// Line of `start_indentation`.
    pub line: usize,
}

/// The geometry section (001 §4.7).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Geometry {
    /// Inlets of recirculated pebbles.
    pub inlets: Vec<Inlet>,
    /// Unions of solids, each with the line of its `start_union`.
    pub unions: Vec<(usize, Vec<Solid>)>,
    /// Indentations of the vessel wall.
    pub indentations: Vec<Indentation>,
}

/// A parsed deck.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Deck {
    /// Name of the deck in messages (its path).
    pub origin: String,
    /// Directives outside the geometry section, in order.
    pub directives: Vec<Directive>,
    /// The geometry section.
    pub geometry: Geometry,
}

/// True when `path` looks like a PEBBLES deck: extension `.inp`, or a first directive line
/// that starts with a known directive and is not TOML.
pub fn is_deck(path: &Path, text: &str) -> bool {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("inp"))
    {
        return true;
    }
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    first.is_some_and(|l| {
        !l.contains('=')
            && !l.starts_with('[')
            && l.split_whitespace()
                .next()
                .is_some_and(|w| directives::spec(w).is_some())
    })
}

impl Deck {
    /// Reads and parses a deck file.
    pub fn load(path: &Path) -> Result<Deck> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Deck::parse(&text, &path.display().to_string())
    }

    /// Parses the text of a deck; `origin` names it in messages.
    pub fn parse(text: &str, origin: &str) -> Result<Deck> {
        let mut deck = Deck {
            origin: origin.to_string(),
            ..Deck::default()
        };
        let mut section = Section::Top;
        let mut done = false;
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            let err = |message: String| Error::Parse {
                path: format!("{origin}:{line}"),
                message,
            };
            let mut words = raw.split_whitespace();
            let Some(name) = words.next() else { continue };
            let values: Vec<&str> = words.collect();
            let Some(spec) = directives::spec(name) else {
                let hint = directives::nearest(name)
                    .map_or(String::new(), |n| format!(" (did you mean '{n}'?)"));
                return Err(err(format!("unknown directive '{name}'{hint}")));
            };
            if spec.name == "rem" {
                continue;
            }
            if spec.name == "done" {
                done = true;
                break;
            }
            if !spec.sections.contains(&section) {
                return Err(err(format!(
                    "'{name}' cannot appear here ({}); it belongs {}",
                    where_we_are(section),
                    where_it_belongs(spec.sections)
                )));
            }
            let args = parse_args(spec, &values).map_err(err)?;
            section = deck.place(spec.name, line, args, section).map_err(err)?;
        }
        let end = |message: &str| Error::Parse {
            path: origin.to_string(),
            message: message.to_string(),
        };
        if section != Section::Top {
            return Err(end(&format!(
                "the input ends {}; close it first",
                where_we_are(section)
            )));
        }
        if !done {
            return Err(end(
                "no 'done' line: a deck ends with done (001 §4.1, its only mandatory line)",
            ));
        }
        Ok(deck)
    }

    /// Files a checked directive into the deck; returns the section after it.
    fn place(
        &mut self,
        name: &'static str,
        line: usize,
        args: Vec<Arg>,
        section: Section,
    ) -> std::result::Result<Section, String> {
        let g = &mut self.geometry;
        let n: Vec<f64> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Num(v) => Some(*v),
                _ => None,
            })
            .collect();
        let next = match name {
            "start_geometry" => {
                if self.directives.iter().any(|d| d.name == "start_geometry") {
                    return Err("a deck has only one geometry section (001 §4.7)".into());
                }
                self.directives.push(Directive {
                    name,
                    line,
                    args: Vec::new(),
                });
                Section::Geometry
            }
            "end_geometry" | "end_union" | "end_indentation" => {
                if name == "end_indentation"
                    && g.indentations.last().is_some_and(|i| i.pattern.is_empty())
                {
                    return Err(
                        "the indentation has no pattern (start_pattern … end_pattern with planes)"
                            .into(),
                    );
                }
                match name {
                    "end_geometry" => Section::Top,
                    _ => Section::Geometry,
                }
            }
            "start_union" => {
                g.unions.push((line, Vec::new()));
                Section::Union
            }
            "inlet" => {
                g.inlets.push(Inlet {
                    pos: DVec3::new(n[0], n[1], n[2]),
                    vel: DVec3::new(n[3], n[4], n[5]),
                });
                section
            }
            "block" | "cylinder" | "plane" if section == Section::Union => {
                let solid = union_solid(name, &n)?;
                if let Some((_, u)) = g.unions.last_mut() {
                    u.push(solid);
                }
                section
            }
            "plane" => {
                let p = plane(&n)?;
                if let Some(i) = g.indentations.last_mut() {
                    i.pattern.push(p);
                }
                section
            }
            "start_indentation" => {
                g.indentations.push(Indentation {
                    line,
                    ..Indentation::default()
                });
                Section::Indentation
            }
            "start_pattern" => Section::Pattern,
            "end_pattern" | "end_row" => Section::Indentation,
            "min_max" | "start_row" | "row_min" | "angle" | "angles" => {
                g.place_in_indentation(name, &n, &args, section)?
            }
            _ => {
                self.directives.push(Directive { name, line, args });
                section
            }
        };
        Ok(next)
    }

    /// The last occurrence of directive `name` (later lines override earlier ones).
    pub fn last(&self, name: &str) -> Option<&Directive> {
        self.directives.iter().rev().find(|d| d.name == name)
    }

    /// True when directive `name` appears.
    pub fn has(&self, name: &str) -> bool {
        self.last(name).is_some()
    }

    /// Every occurrence of directive `name`, in order.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Directive> + 'a {
        self.directives.iter().filter(move |d| d.name == name)
    }

    /// The numbers of directive `name`: its last occurrence, or the default chapter 4 states.
    /// `None` when it is absent and has no default.
    pub fn nums(&self, name: &str) -> Option<Vec<f64>> {
        match self.last(name) {
            Some(d) => Some(
                d.args
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Num(v) => Some(*v),
                        _ => None,
                    })
                    .collect(),
            ),
            None => directives::spec(name)?
                .default?
                .split_whitespace()
                .map(|w| w.parse().ok())
                .collect(),
        }
    }

    /// The first number of directive `name` (or its default); 0 when it has neither.
    pub fn num(&self, name: &str) -> f64 {
        self.nums(name)
            .and_then(|v| v.first().copied())
            .unwrap_or(0.0)
    }

    /// The word values of directive `name`'s last occurrence.
    pub fn word(&self, name: &str) -> Option<&str> {
        self.last(name)?.args.iter().find_map(|a| match a {
            Arg::Word(w) => Some(w.as_str()),
            _ => None,
        })
    }

    /// `origin:line` of directive `name`'s last occurrence (the deck name when absent).
    pub fn at(&self, name: &str) -> String {
        match self.last(name) {
            Some(d) => format!("{}:{}", self.origin, d.line),
            None => self.origin.clone(),
        }
    }

    /// An error about directive `name`, placed at its line.
    pub fn error(&self, name: &str, message: impl Into<String>) -> Error {
        Error::Parse {
            path: self.at(name),
            message: format!("{name}: {}", message.into()),
        }
    }
}

/// A plane's coefficients, refused when (a, b, c) is zero.
impl Geometry {
    /// Files a directive of an indentation block (min_max, a row and its angles); returns the
    /// section after it.
    fn place_in_indentation(
        &mut self,
        name: &str,
        n: &[f64],
        args: &[Arg],
        section: Section,
    ) -> std::result::Result<Section, String> {
        Ok(match name {
            "min_max" => {
                let i = self
                    .indentations
                    .last_mut()
                    .ok_or("min_max outside an indentation")?;
                if !i.rows.is_empty() {
                    return Err("min_max must come before any rows (001 §4.7.2)".into());
                }
                if n[0] >= n[1] {
                    return Err(format!(
                        "min_max: minimum must be below maximum, got {} and {}",
                        n[0], n[1]
                    ));
                }
                i.min_max = Some([n[0], n[1]]);
                section
            }
            "start_row" => {
                let i = self
                    .indentations
                    .last_mut()
                    .ok_or("start_row outside an indentation")?;
                if i.min_max.is_none() {
                    return Err("an indentation needs min_max before its rows (001 §4.7.2)".into());
                }
                i.rows.push(Row::default());
                Section::Row
            }
            "row_min" | "angle" | "angles" => {
                let row = self
                    .indentations
                    .last_mut()
                    .and_then(|i| i.rows.last_mut())
                    .ok_or("outside a row")?;
                match (name, args) {
                    ("row_min", _) => row.min = n[0],
                    ("angle", _) => row.angles.push(n[0]),
                    (_, [Arg::List(l)]) => row.angles.extend(l),
                    _ => {}
                }
                section
            }
            _ => section,
        })
    }
}

/// A solid of a union: `block`, `cylinder` or `plane` with its numbers `n`.
fn union_solid(name: &str, n: &[f64]) -> std::result::Result<Solid, String> {
    Ok(match name {
        "block" => {
            let (min, max) = (DVec3::new(n[0], n[1], n[2]), DVec3::new(n[3], n[4], n[5]));
            if !min.cmplt(max).all() {
                return Err(format!("block: the minimum values must be less than the maximum values in each dimension, got ({}, {}, {}) and ({}, {}, {})", n[0], n[1], n[2], n[3], n[4], n[5]));
            }
            Solid::Block { min, max }
        }
        "cylinder" => {
            if !(n[0] > 0.0 && n[3] < n[4]) {
                return Err(format!(
                    "cylinder: radius must be > 0 and zmin < zmax, got radius {}, z {} to {}",
                    n[0], n[3], n[4]
                ));
            }
            Solid::Cylinder {
                radius: n[0],
                center: [n[1], n[2]],
                z: [n[3], n[4]],
            }
        }
        _ => Solid::Plane(plane(n)?),
    })
}

fn plane(n: &[f64]) -> std::result::Result<[f64; 4], String> {
    if n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0 {
        return Err("plane: (a, b, c) must not be zero".into());
    }
    Ok([n[0], n[1], n[2], n[3]])
}

/// Parses the values of a directive against its parameters.
fn parse_args(spec: &directives::Spec, values: &[&str]) -> std::result::Result<Vec<Arg>, String> {
    let usage = || {
        let names: Vec<&str> = spec.params.iter().map(|(n, _)| *n).collect();
        if names.is_empty() {
            format!("'{}' takes no values", spec.name)
        } else {
            format!("usage: {} {}", spec.name, names.join(" "))
        }
    };
    let mut args = Vec::new();
    let mut rest = values;
    for &(pname, kind) in spec.params {
        let Some((&first, tail)) = rest.split_first() else {
            return Err(format!("{}: missing {pname}; {}", spec.name, usage()));
        };
        rest = tail;
        let number = |w: &str| -> std::result::Result<f64, String> {
            w.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    format!(
                        "{}: {pname} must be a number, got '{w}'; {}",
                        spec.name,
                        usage()
                    )
                })
        };
        let count = |w: &str| -> std::result::Result<f64, String> {
            w.parse::<u64>().map(|v| v as f64).map_err(|_| {
                format!(
                    "{}: {pname} must be a whole number ≥ 0, got '{w}'; {}",
                    spec.name,
                    usage()
                )
            })
        };
        args.push(match kind {
            Kind::Num => Arg::Num(number(first)?),
            Kind::Count => Arg::Num(count(first)?),
            Kind::Word => Arg::Word(first.to_string()),
            Kind::CountedList => {
                let n = count(first)? as usize;
                if rest.len() < n {
                    return Err(format!(
                        "{}: the count says {n} numbers follow, found {}",
                        spec.name,
                        rest.len()
                    ));
                }
                let (list, tail) = rest.split_at(n);
                rest = tail;
                Arg::List(
                    list.iter()
                        .map(|w| number(w))
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
        });
    }
    if let Some(extra) = rest.first() {
        return Err(format!(
            "{}: unexpected value '{extra}'; {}",
            spec.name,
            usage()
        ));
    }
    Ok(args)
}

fn where_we_are(section: Section) -> &'static str {
    match section {
        Section::Top => "outside the geometry section",
        Section::Geometry => "inside the geometry section",
        Section::Union => "inside a union",
        Section::Indentation => "inside an indentation",
        Section::Pattern => "inside a pattern",
        Section::Row => "inside a row",
    }
}

fn where_it_belongs(sections: &[Section]) -> String {
    let names: Vec<&str> = sections.iter().map(|s| where_we_are(*s)).collect();
    names.join(" or ")
}

#[cfg(test)]
mod tests;
