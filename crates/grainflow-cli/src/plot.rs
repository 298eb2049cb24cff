//! PNG plots of analysis results (plotters' bitmap backend with a bundled DejaVu Sans, so no
//! system font library is needed).

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

/// DejaVu Sans (Bitstream Vera licence, see assets/DejaVuSans-LICENSE.txt).
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

pub(crate) fn fonts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The bundled font is valid; a failure would only lose the labels.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// One series of points with optional error bars.
pub struct Series<'a> {
    /// Legend label.
    pub label: &'a str,
    /// (x, y, y error) points.
    pub points: Vec<(f64, f64, f64)>,
    /// Join the points with a line.
    pub line: bool,
}

/// Writes an x–y plot to `path` (PNG, 900×600); `log_x` puts x on a log scale.
pub fn xy_plot(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_x: bool,
) -> Result<()> {
    fonts();
    let pts = series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in pts {
        x0 = x0.min(p.0);
        x1 = x1.max(p.0);
        y0 = y0.min(p.1 - p.2.max(0.0));
        y1 = y1.max(p.1 + p.2.max(0.0));
    }
    if x0 > x1 {
        return Err(anyhow!("{}: nothing to plot", path.display()));
    }
    let pad = |a: f64, b: f64| {
        if b > a {
            0.05 * (b - a)
        } else {
            0.5 * a.abs().max(1e-12)
        }
    };
    let (py, px) = (pad(y0, y1), pad(x0, x1));
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| anyhow!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let colours = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70);
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .label_style(("sans-serif", 16))
                .draw()
                .map_err(|e| err(&e))?;
            for (k, s) in series.iter().enumerate() {
                let c = colours[k % colours.len()];
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .map(|p| (p.0, p.1))
                    .collect();
                if s.line {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                        .map_err(|e| err(&e))?;
                }
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))
                    .map_err(|e| err(&e))?
                    .label(s.label)
                    .legend(move |(x, y)| Circle::new((x, y), 4, c.filled()));
                for p in s
                    .points
                    .iter()
                    .filter(|p| p.2 > 0.0 && p.0.is_finite() && p.1.is_finite())
                {
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(p.0, p.1 - p.2), (p.0, p.1 + p.2)],
                            c,
                        )))
                        .map_err(|e| err(&e))?;
                }
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 16))
                .draw()
                .map_err(|e| err(&e))?;
        }};
    }
    if log_x {
        let (a, b) = (x0 / 2.0, x1 * 2.0);
        draw!(builder
            .build_cartesian_2d((a..b).log_scale(), (y0 - py)..(y1 + py))
            .map_err(|e| err(&e))?);
    } else {
        draw!(builder
            .build_cartesian_2d((x0 - px)..(x1 + px), (y0 - py)..(y1 + py))
            .map_err(|e| err(&e))?);
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
