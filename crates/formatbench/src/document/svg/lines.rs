//! Lines on log-log axes (or a linear x of positions, runs in order): each series' value at each x, its points joined by segments, with a
//! legend. The scaling charts (time against rows or columns) and the partition-size charts
//! (each operation's cost against the partition size) are drawn so.

use super::super::LineChart;
use super::{label_width, Anchor, Drawing, Scale, Svg};

const LEFT: f64 = 72.0;
const PLOT_RIGHT: f64 = 470.0;
const TOP: f64 = 30.0;
const PLOT_BOTTOM: f64 = 290.0;
/// Series colours `s0` … `s5`, reused in turn.
const SERIES: usize = 6;

/// The chart, or `None` unless some series has two points.
pub(super) fn draw(chart: &LineChart) -> Option<Drawing> {
    if !chart.has_a_line() {
        return None;
    }
    let (first, last) = (*chart.xs.first()?, *chart.xs.last()?);
    let log = |lo: f64, hi: f64, (from, to): (f64, f64)| Scale {
        lo: lo / 1.5,
        hi: hi * 1.5,
        log: true,
        from,
        to,
    };
    let x = match chart.x_log {
        true => log(first.max(1e-12), last.max(1e-12), (LEFT, PLOT_RIGHT)),
        false => Scale {
            lo: first - 0.5,
            hi: last + 0.5,
            log: false,
            from: LEFT,
            to: PLOT_RIGHT,
        },
    };
    let values = chart.series.iter().flat_map(|s| {
        let spans = s.spans.iter().flatten().flat_map(|(a, b)| [*a, *b]);
        s.values.iter().flatten().copied().chain(spans)
    });
    let lo = values
        .clone()
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let hi = values.fold(0.0, f64::max);
    let y = log(lo, hi, (PLOT_BOTTOM, TOP));
    let legend_x = PLOT_RIGHT + 24.0;
    let labels = chart.series.iter().map(|s| &s.label);
    let width = legend_x + label_width(labels, 60.0, 260.0) + 24.0;
    let height = (PLOT_BOTTOM + 44.0).max(TOP + 18.0 * chart.series.len() as f64 + 10.0);

    let mut svg = Svg::default();
    svg.line((LEFT, TOP), (LEFT, PLOT_BOTTOM), "axis");
    svg.line((LEFT, PLOT_BOTTOM), (PLOT_RIGHT, PLOT_BOTTOM), "axis");
    for &at in &chart.xs {
        let px = x.at(at);
        svg.line((px, TOP), (px, PLOT_BOTTOM), "grid");
        let tick = match chart.x_labels.is_empty() {
            true => chart.x_unit.text(at),
            false => chart.x_header(at),
        };
        svg.text((px, PLOT_BOTTOM + 16.0), Anchor::Middle, "tick", &tick);
    }
    for tick in y.ticks(7) {
        let py = y.at(tick);
        svg.line((LEFT, py), (PLOT_RIGHT, py), "grid");
        let text = chart.y_unit.text(tick);
        svg.text((LEFT - 6.0, py + 4.0), Anchor::End, "tick", &text);
    }
    let middle = ((LEFT + PLOT_RIGHT) / 2.0, PLOT_BOTTOM + 34.0);
    svg.text(middle, Anchor::Middle, "dim", &chart.x_axis);
    svg.text((4.0, TOP - 12.0), Anchor::Start, "dim", &chart.y_axis);
    let mut words = Vec::new();
    for (k, series) in chart.series.iter().enumerate() {
        let class = format!("s{}", series.colour % SERIES);
        // Past the six colours, squares tell a series from the one that shares its colour.
        let square = series.colour / SERIES % 2 == 1;
        let label = &series.label;
        let ly = TOP + 18.0 * k as f64;
        match square {
            true => svg.rect((legend_x, ly), (10.0, 10.0), &format!("swatch {class}"), ""),
            false => svg.circle(
                (legend_x + 5.0, ly + 5.0),
                5.0,
                &format!("swatch {class}"),
                "",
            ),
        }
        svg.text((legend_x + 16.0, ly + 9.0), Anchor::Start, "", label);
        let points: Vec<(f64, f64)> = chart
            .xs
            .iter()
            .zip(&series.values)
            .filter_map(|(at, v)| Some((*at, (*v)?)))
            .collect();
        let place = |(at, v): (f64, f64)| (x.at(at), y.at(v));
        for pair in points.windows(2) {
            if let [a, b] = pair {
                let tip = format!(
                    "{label}: {} to {}",
                    chart.x_header(a.0),
                    chart.x_header(b.0)
                );
                svg.segment(place(*a), place(*b), &format!("mark line {class}"), &tip);
            }
        }
        let said: Vec<String> = points
            .iter()
            .map(|p| format!("{} at {}", chart.y_unit.text(p.1), chart.x_header(p.0)))
            .collect();
        // Each point's spread, a thin bar through it in the series' colour.
        for (at, span) in chart.xs.iter().zip(&series.spans) {
            if let Some((a, b)) = span.filter(|(a, b)| *a > 0.0 && b >= a) {
                let (x0, top, bottom) = (x.at(*at), y.at(b), y.at(a));
                svg.rect(
                    (x0 - 1.0, top),
                    (2.0, (bottom - top).max(1.0)),
                    &format!("span {class}"),
                    "",
                );
            }
        }
        for (p, text) in points.iter().zip(&said) {
            let tip = format!("{label}: {text}");
            let (x, y) = place(*p);
            match square {
                true => svg.rect(
                    (x - 4.0, y - 4.0),
                    (8.0, 8.0),
                    &format!("mark point {class}"),
                    &tip,
                ),
                false => svg.circle((x, y), 4.0, &format!("mark point {class}"), &tip),
            }
        }
        words.push(format!("{label}: {}", said.join(", ")));
    }
    Some(Drawing {
        title: chart.title.clone(),
        label: format!("{}. {}", chart.title, words.join("; ")),
        width: width.ceil() as u32,
        height: height.ceil() as u32,
        body: svg.finish(),
    })
}
