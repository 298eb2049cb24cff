//! `grainflow render`: a snapshot, or every snapshot of a run, to PNG — shaded spheres of their
//! true radii in depth order ([`crate::raster`]), coloured by a field with a colour bar and its
//! unit, the scene's walls as outlines. It lives in the CLI, not the library: it is a way of
//! looking at files, and its font and PNG encoder are the CLI's dependencies.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use glam::DVec3;
use grainflow::io::checkpoint::Checkpoint;
use grainflow::io::dump_read::DumpFrame;
use grainflow::io::ss::SsUnits;
use grainflow::scene::Scene;
use plotters::prelude::*;

use crate::raster::{viridis, Ball, Canvas, View};
use crate::show::{seconds, tick};

/// Width of the strip on the right that holds the colour bar (pixels).
const BAR_STRIP: usize = 150;
/// Margin around the grains (pixels).
const MARGIN: f64 = 20.0;
/// Colour of wall outlines.
const WALL_RGB: [u8; 3] = [60, 60, 60];

/// `grainflow render` arguments.
#[derive(clap::Args)]
pub struct RenderArgs {
    /// A run folder (its particles.dump), a LAMMPS dump (.dump, .gz) or a pkdgrav .ss file.
    input: PathBuf,
    /// The PNG to write (default: render.png in a run folder, else INPUT.png); with --frames, a
    /// folder for frame_NNNNNN.png.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Colour by speed, type, id or any dump column (radius, vz, omegax, …).
    #[arg(long, default_value = "speed")]
    colour: String,
    /// View along an axis (x, y, z) or isometric.
    #[arg(long, value_enum, default_value = "iso")]
    view: View,
    /// The frame of this timestep (default: the last).
    #[arg(long)]
    timestep: Option<u64>,
    /// One PNG per frame, for a movie.
    #[arg(long)]
    frames: bool,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1200x900")]
    size: String,
    /// Colour range lo,hi (default: the frames' least and greatest value).
    #[arg(long, value_delimiter = ',', num_args = 2)]
    range: Option<Vec<f64>>,
    /// Scene whose walls to draw (default: the run folder's final.gfck or checkpoint.gfck).
    #[arg(long)]
    scene: Option<PathBuf>,
    /// Units of an ss file: pkdgrav (converted to SI) or scene (as they are).
    #[arg(long, value_enum, default_value = "pkdgrav")]
    ss_units: SsUnitsArg,
}

/// [`SsUnits`] as a command-line value.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SsUnitsArg {
    /// AU, M☉, yr/2π, converted to SI.
    Pkdgrav,
    /// The numbers as they are.
    Scene,
}

impl From<SsUnitsArg> for SsUnits {
    fn from(u: SsUnitsArg) -> SsUnits {
        match u {
            SsUnitsArg::Pkdgrav => SsUnits::Pkdgrav,
            SsUnitsArg::Scene => SsUnits::Scene,
        }
    }
}

/// The unit of a dump column or derived field, for the colour bar.
fn unit(field: &str) -> &'static str {
    match field {
        "x" | "y" | "z" | "xu" | "yu" | "zu" | "radius" | "diameter" => "m",
        "speed" | "vx" | "vy" | "vz" => "m/s",
        "omegax" | "omegay" | "omegaz" => "rad/s",
        "mass" => "kg",
        "fx" | "fy" | "fz" => "N",
        _ => "",
    }
}

/// The value of `field` for every atom of `f`: `speed` is |v|, else the column of that name.
pub fn field_values(f: &DumpFrame, field: &str) -> Result<Vec<f64>> {
    if field == "speed" {
        let atoms = f.atoms().map_err(|e| anyhow!(e))?;
        return Ok(atoms.iter().map(|a| a.vel.length()).collect());
    }
    let c = f.column(field).ok_or_else(|| {
        anyhow!(
            "no column \"{field}\" to colour by (speed or one of: {})",
            f.columns.join(" ")
        )
    })?;
    Ok(f.rows.iter().map(|r| r[c]).collect())
}

/// The spheres of `f` coloured by `values` over `range`.
pub fn balls(f: &DumpFrame, values: &[f64], (lo, hi): (f64, f64)) -> Result<Vec<Ball>> {
    let atoms = f.atoms().map_err(|e| anyhow!(e))?;
    let span = if hi > lo { hi - lo } else { 1.0 };
    Ok(atoms
        .iter()
        .zip(values)
        .map(|(a, v)| Ball {
            pos: a.pos,
            radius: a.radius,
            rgb: viridis((v - lo) / span),
        })
        .collect())
}

/// The box of every ball of `frames`, padded by the radii and 5 % of its size (walls at its
/// faces stay inside).
fn extent(frames: &[(DumpFrame, Vec<Ball>)]) -> (DVec3, DVec3) {
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    for b in frames.iter().flat_map(|(_, b)| b) {
        lo = lo.min(b.pos - b.radius);
        hi = hi.max(b.pos + b.radius);
    }
    if lo.cmple(hi).all() {
        let pad = 0.05 * (hi - lo);
        (lo - pad, hi + pad)
    } else {
        (DVec3::ZERO, DVec3::ONE)
    }
}

/// What to draw a frame with.
pub struct Look {
    /// Image size (pixels).
    pub size: (usize, usize),
    /// View direction.
    pub view: View,
    /// The box kept in view (m).
    pub bounds: (DVec3, DVec3),
    /// Field name and colour range.
    pub field: String,
    /// Least and greatest value of the colour bar.
    pub range: (f64, f64),
    /// Wall outlines as polygons (m), drawn at every frame.
    pub walls: Vec<Vec<DVec3>>,
}

/// The image of one frame: balls, walls, then the colour bar and the caption in the strip.
pub fn draw(look: &Look, balls: &[Ball], caption: &str) -> Result<(Vec<u8>, (usize, usize))> {
    let (w, h) = look.size;
    let inner = (w.saturating_sub(BAR_STRIP).max(16), h);
    let mut canvas = Canvas::new(inner, look.view, look.bounds, MARGIN);
    // Far grains first spares shading pixels that nearer ones then cover.
    let toward = look.view.basis()[2];
    let mut order: Vec<usize> = (0..balls.len()).collect();
    order.sort_by(|&a, &b| {
        balls[a]
            .pos
            .dot(toward)
            .total_cmp(&balls[b].pos.dot(toward))
    });
    for k in order {
        canvas.ball(&balls[k]);
    }
    for poly in &look.walls {
        for (k, a) in poly.iter().enumerate() {
            canvas.line(*a, poly[(k + 1) % poly.len()], WALL_RGB);
        }
    }
    let mut rgb = vec![255u8; 3 * w * h];
    for y in 0..h {
        let row = &canvas.rgb[3 * y * inner.0..3 * (y + 1) * inner.0];
        rgb[3 * y * w..3 * y * w + 3 * inner.0].copy_from_slice(row);
    }
    colour_bar(&mut rgb, (w, h), look, caption)?;
    Ok((rgb, (w, h)))
}

/// The colour bar with its ticks, field and unit, and the caption, drawn into `rgb`.
fn colour_bar(rgb: &mut [u8], (w, h): (usize, usize), look: &Look, caption: &str) -> Result<()> {
    crate::plot::fonts();
    let (x0, top, bottom) = (w as i32 - BAR_STRIP as i32 + 20, 60i32, h as i32 - 40);
    for y in top..=bottom {
        let t = f64::from(bottom - y) / f64::from((bottom - top).max(1));
        let colour = viridis(t);
        for x in x0..x0 + 24 {
            let k = 3 * (y as usize * w + x as usize);
            let edge = y == top || y == bottom || x == x0 || x == x0 + 23;
            rgb[k..k + 3].copy_from_slice(if edge { &[0, 0, 0] } else { &colour });
        }
    }
    let root = BitMapBackend::with_buffer(rgb, (w as u32, h as u32)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing the colour bar: {e}");
    let style = ("sans-serif", 15).into_font().color(&BLACK);
    let (lo, hi) = look.range;
    for k in 0..=4 {
        let t = f64::from(k) / 4.0;
        let y = bottom - ((bottom - top) as f64 * t) as i32;
        let label = tick(lo + t * (hi - lo), hi.abs().max(lo.abs()));
        root.draw(&Text::new(label, (x0 + 30, y - 7), style.clone()))
            .map_err(|e| err(&e))?;
    }
    let u = unit(&look.field);
    let title = if u.is_empty() {
        look.field.clone()
    } else {
        format!("{} ({u})", look.field)
    };
    root.draw(&Text::new(title, (x0 - 10, top - 30), style.clone()))
        .map_err(|e| err(&e))?;
    root.draw(&Text::new(caption.to_string(), (10, 8), style))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

/// Writes an RGB image as PNG.
pub fn write_png(path: &Path, rgb: &[u8], (w, h): (usize, usize)) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc
        .write_header()
        .with_context(|| path.display().to_string())?;
    writer
        .write_image_data(rgb)
        .with_context(|| path.display().to_string())?;
    Ok(())
}

/// The box kept in view: the grains' `bounds` grown to take in the `walls` at t = 0
/// (every shape but a plane, whose cut through the box is drawn; an infinite one as drawn,
/// as wide as the grains' box), then cut to the scene's domain where it has one. So a drum
/// or a hopper is drawn whole round the grains it holds.
fn with_walls(bounds: (DVec3, DVec3), walls: &SceneWalls) -> (DVec3, DVec3) {
    let extent = 0.5 * (bounds.1 - bounds.0).max_element();
    let (mut lo, mut hi) = bounds;
    for wall in &walls.walls {
        if !matches!(wall.shape, grainflow::walls::Shape::Plane(_)) {
            for v in wall.mesh_at(extent, 0.0).0 {
                (lo, hi) = (lo.min(v), hi.max(v));
            }
        }
    }
    if let Some([a, b]) = walls.domain {
        (lo, hi) = (lo.max(a), hi.min(b));
    }
    if lo.cmplt(hi).all() {
        (lo, hi)
    } else {
        bounds
    }
}

/// The walls of a scene, their meshes read, and its domain.
struct SceneWalls {
    walls: Vec<grainflow::walls::Wall>,
    domain: Option<[DVec3; 2]>,
}

/// The walls of the scene given (its mesh files read beside it) or of a run folder's final or
/// last checkpoint (mesh files read from the working folder where they are found there: the
/// checkpoint keeps the scene's text, not where it was).
fn scene_of(args: &RenderArgs) -> Result<Option<SceneWalls>> {
    if let Some(path) = &args.scene {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let scene = Scene::from_toml(&text, &path.display().to_string())?;
        let base = path.parent().unwrap_or(Path::new("."));
        let walls = scene.walls.iter().map(|w| w.load(0, base));
        return Ok(Some(SceneWalls {
            walls: walls.collect::<grainflow::Result<_>>()?,
            domain: scene.simulation.domain,
        }));
    }
    for name in ["final.gfck", "checkpoint.gfck"] {
        let path = args.input.join(name);
        if args.input.is_dir() && path.exists() {
            let ck = Checkpoint::read(&path)?;
            let scene = Scene::from_toml(&ck.scene, &path.display().to_string())?;
            let walls = scene
                .walls
                .iter()
                .map(|w| w.load(0, Path::new(".")).unwrap_or_else(|_| w.build(0)));
            return Ok(Some(SceneWalls {
                walls: walls.collect(),
                domain: scene.simulation.domain,
            }));
        }
    }
    Ok(None)
}

/// The `walls` at time `t` as polygons: an infinite plane as its cut through the box
/// `view` (nothing where it misses the box), other walls as their meshes, infinite ones `extent`
/// (m) across.
fn wall_polygons(walls: &SceneWalls, view: (DVec3, DVec3), t: f64) -> Vec<Vec<DVec3>> {
    let (lo, hi) = view;
    let extent = 0.5 * (hi - lo).max_element();
    let mut out = Vec::new();
    for wall in &walls.walls {
        let (v, polys) = wall.mesh_at(extent, t);
        if let (grainflow::walls::Shape::Plane(_), [a, b, c, ..]) = (&wall.shape, &v[..]) {
            let normal = (*b - *a).cross(*c - *a).normalize_or_zero();
            out.push(plane_cut(*a, normal, view));
            continue;
        }
        out.extend(polys.into_iter().map(|p| p.iter().map(|&k| v[k]).collect()));
    }
    out.retain(|p| p.len() >= 2);
    out
}

/// The polygon where the plane through `point` with unit `normal` cuts the box `lo..hi`: the
/// points where it crosses the box's twelve edges, in order around their centre.
fn plane_cut(point: DVec3, normal: DVec3, (lo, hi): (DVec3, DVec3)) -> Vec<DVec3> {
    let corner = |k: usize| {
        let pick = |bit: usize, a: f64, b: f64| if k >> bit & 1 == 0 { a } else { b };
        DVec3::new(
            pick(0, lo.x, hi.x),
            pick(1, lo.y, hi.y),
            pick(2, lo.z, hi.z),
        )
    };
    let mut cut = Vec::new();
    for a in 0..8 {
        for bit in 0..3 {
            let b = a | 1 << bit;
            if b == a {
                continue;
            }
            let (pa, pb) = (corner(a), corner(b));
            let (da, db) = ((pa - point).dot(normal), (pb - point).dot(normal));
            if (da <= 0.0) != (db <= 0.0) {
                cut.push(pa + (pb - pa) * (da / (da - db)));
            }
        }
    }
    if cut.len() < 3 {
        return Vec::new();
    }
    let centre = cut.iter().copied().sum::<DVec3>() / cut.len() as f64;
    let u = (cut[0] - centre).normalize_or_zero();
    let w = normal.cross(u);
    let angle = |p: &DVec3| (*p - centre).dot(w).atan2((*p - centre).dot(u));
    cut.sort_by(|p, q| angle(p).total_cmp(&angle(q)));
    cut
}

/// `grainflow render`.
pub fn render(args: &RenderArgs) -> Result<String> {
    let size = args
        .size
        .split_once('x')
        .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)))
        .filter(|&(a, b)| (64..=16384).contains(&a) && (64..=16384).contains(&b))
        .ok_or_else(|| anyhow!("--size {}: give WIDTHxHEIGHT, each 64 to 16384", args.size))?;
    let source = if args.input.is_dir() {
        args.input.join("particles.dump")
    } else {
        args.input.clone()
    };
    let mut frames = crate::convert::read_frames(&source, args.ss_units.into())?;
    if !args.frames {
        let pick = match args.timestep {
            Some(t) => frames.iter().position(|f| f.timestep == t),
            None => frames.len().checked_sub(1),
        };
        let k = pick.ok_or_else(|| {
            anyhow!(
                "{}: no frame{}",
                source.display(),
                args.timestep
                    .map_or(String::new(), |t| format!(" at timestep {t}"))
            )
        })?;
        frames = vec![frames.swap_remove(k)];
    }
    let values = frames
        .iter()
        .map(|f| field_values(f, &args.colour))
        .collect::<Result<Vec<_>>>()?;
    let range = match &args.range {
        Some(r) => (r[0], r[1]),
        None => values
            .iter()
            .flatten()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            }),
    };
    let drawn = frames
        .into_iter()
        .zip(&values)
        .map(|(f, v)| Ok((balls(&f, v, range)?, f)).map(|(b, f)| (f, b)))
        .collect::<Result<Vec<_>>>()?;
    let scene = scene_of(args)?;
    let bounds = match &scene {
        Some(s) => with_walls(extent(&drawn), s),
        None => extent(&drawn),
    };
    let mut look = Look {
        size,
        view: args.view,
        bounds,
        field: args.colour.clone(),
        range,
        walls: Vec::new(),
    };
    let default_out = if args.input.is_dir() {
        args.input
            .join(if args.frames { "render" } else { "render.png" })
    } else {
        PathBuf::from(format!(
            "{}{}",
            args.input.display(),
            if args.frames { ".frames" } else { ".png" }
        ))
    };
    let out = args.out.clone().unwrap_or(default_out);
    if args.frames {
        std::fs::create_dir_all(&out)
            .with_context(|| format!("cannot create {}", out.display()))?;
    }
    for (k, (f, b)) in drawn.iter().enumerate() {
        let t = f.time.unwrap_or(0.0);
        if let Some(s) = &scene {
            look.walls = wall_polygons(s, bounds, t);
        }
        let time = f
            .time
            .map_or(String::new(), |t| format!("t = {} s, ", seconds(t)));
        let caption = format!(
            "{time}step {}, {} grains, view {:?}",
            f.timestep,
            b.len(),
            args.view
        );
        let (rgb, size) = draw(&look, b, &caption)?;
        let path = if args.frames {
            out.join(format!("frame_{k:06}.png"))
        } else {
            out.clone()
        };
        write_png(&path, &rgb, size)?;
    }
    if drawn.is_empty() {
        bail!("{}: no frame to draw", source.display());
    }
    Ok(format!(
        "{}: {} frame(s), {} coloured {}..{}",
        out.display(),
        drawn.len(),
        args.colour,
        tick(range.0, range.1.abs().max(range.0.abs())),
        tick(range.1, range.1.abs().max(range.0.abs()))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grainflow::io::dump_read::parse_dump;

    #[test]
    fn a_grain_of_known_speed_has_its_colour_where_it_should_be() {
        // Two grains 1 mm in radius seen from +z: one at rest at the origin, one at 2 m/s at
        // x = 4 mm; speeds 0..4 m/s put the moving one at half the bar (viridis(0.5)).
        let dump = "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS ff ff ff\n\
            0 1\n0 1\n0 1\nITEM: ATOMS id type x y z vx vy vz radius\n\
            1 1 0 0 0 0 0 0 0.001\n2 1 0.004 0 0 0 2 0 0.001\n";
        let f = &parse_dump(dump).unwrap()[0];
        let v = field_values(f, "speed").unwrap();
        assert_eq!(v, [0.0, 2.0]);
        let b = balls(f, &v, (0.0, 4.0)).unwrap();
        assert_eq!(b[1].rgb, viridis(0.5));
        let look = Look {
            size: (200 + BAR_STRIP, 100),
            view: View::Z,
            bounds: (
                DVec3::new(-0.001, -0.001, -0.001),
                DVec3::new(0.005, 0.001, 0.001),
            ),
            field: "speed".into(),
            range: (0.0, 4.0),
            walls: vec![],
        };
        let (rgb, (w, _)) = draw(&look, &b, "").unwrap();
        // 6 mm across 160 pixels (200 less the margins): the moving grain's centre is at
        // x = 20 + 5/6 × 160 ≈ 153, y = 50; it is lit there, so its hue is viridis(0.5)
        // darkened or brightened evenly: the ratios of its channels stay those of the colour.
        let px = |x: usize, y: usize| {
            [
                rgb[3 * (y * w + x)],
                rgb[3 * (y * w + x) + 1],
                rgb[3 * (y * w + x) + 2],
            ]
        };
        let c = px(153, 50);
        let want = viridis(0.5);
        let ratio = f64::from(c[1]) / f64::from(want[1]);
        for ch in 0..3 {
            let got = f64::from(c[ch]);
            assert!(
                (got - ratio * f64::from(want[ch])).abs() <= 2.0,
                "{c:?} vs {want:?}"
            );
        }
        // Between the grains, the background.
        assert_eq!(px(100, 50), [255, 255, 255]);
        // The grain at rest is the bottom of the map.
        let rest = px(47, 50);
        assert!(rest[2] > rest[1] && rest[0] > rest[1], "{rest:?}");
        assert_eq!(tick(1.2345e-5, 1e-4), "1.23e-5");
        // The floor z = 0.5 cuts the unit cube in the square of its four vertical edges.
        let cut = plane_cut(
            DVec3::new(0.0, 0.0, 0.5),
            DVec3::Z,
            (DVec3::ZERO, DVec3::ONE),
        );
        assert_eq!(cut.len(), 4);
        assert!(cut
            .iter()
            .all(|p| p.z == 0.5 && (p.x == 0.0 || p.x == 1.0) && (p.y == 0.0 || p.y == 1.0)));
        assert!(
            cut.windows(2).all(|w| (w[0] - w[1]).length() == 1.0),
            "in order: {cut:?}"
        );
        assert!(plane_cut(
            DVec3::new(0.0, 0.0, 2.0),
            DVec3::Z,
            (DVec3::ZERO, DVec3::ONE)
        )
        .is_empty());
        assert_eq!(tick(0.5, 1.28), "0.500");
        assert!(field_values(f, "vorticity")
            .unwrap_err()
            .to_string()
            .contains("no column"));
    }

    /// A drum of radius 40 mm round grains in the middle 10 mm is kept in view whole; the
    /// floor plane adds nothing; the domain cuts the view along the axis.
    #[test]
    fn the_view_takes_in_the_walls_round_the_grains() {
        let scene = Scene::from_toml(
            r#"
[simulation]
duration = 0.1
dt = "auto"
domain = [[-0.05, -0.05, -0.01], [0.05, 0.05, 0.01]]
[[materials]]
name = "glass"
density = 2500
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.5
[[walls]]
type = "cylinder"
material = "glass"
origin = [0, 0, 0]
axis = [0, 0, 1]
radius = 0.04
length = 0.1
[[walls]]
type = "plane"
material = "glass"
point = [0, 0, -0.5]
normal = [0, 0, 1]
[[particles]]
type = "list"
material = "glass"
spheres = [{ pos = [0, 0, 0], radius = 5e-3 }]
"#,
            "drum",
        )
        .expect("parses");
        let grains = (DVec3::splat(-0.005), DVec3::splat(0.005));
        let walls = SceneWalls {
            walls: scene.walls.iter().map(|w| w.build(0)).collect(),
            domain: scene.simulation.domain,
        };
        let (lo, hi) = with_walls(grains, &walls);
        for k in 0..2 {
            assert!(
                (lo[k] + 0.04).abs() < 1e-3 && (hi[k] - 0.04).abs() < 1e-3,
                "{lo} {hi}"
            );
        }
        assert_eq!((lo.z, hi.z), (-0.01, 0.01));
    }
}
