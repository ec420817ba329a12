//! Size against time: each competitor's file size across, its median read time up (warm cache
//! when measured), and its median write time as a second series, every point labelled.

use super::super::ScatterChart;
use super::{text_width, Anchor, Drawing, Scale, Svg};
use crate::units::{bytes, duration};

const WIDTH: f64 = 700.0;
const LEFT: f64 = 72.0;
const PLOT_RIGHT: f64 = 520.0;
const TOP: f64 = 46.0;
const PLOT_BOTTOM: f64 = 300.0;
const HEIGHT: f64 = 344.0;

pub(super) fn draw(chart: &ScatterChart) -> Option<Drawing> {
    let all = &chart.points;
    if all.is_empty() {
        return None;
    }
    let range = |values: &[f64]| {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(0.0, f64::max);
        (lo, hi)
    };
    let sizes: Vec<f64> = all.iter().map(|p| p.bytes as f64).collect();
    let times: Vec<f64> = all.iter().map(|p| p.seconds).collect();
    let (lo, hi) = range(&sizes);
    let x = Scale::fit(lo, hi, (LEFT, PLOT_RIGHT));
    let (lo, hi) = range(&times);
    let y = Scale::fit(lo, hi, (PLOT_BOTTOM, TOP));

    let mut svg = Svg::default();
    svg.line((LEFT, TOP), (LEFT, PLOT_BOTTOM), "axis");
    svg.line((LEFT, PLOT_BOTTOM), (PLOT_RIGHT, PLOT_BOTTOM), "axis");
    for tick in x.byte_ticks(6) {
        let px = x.at(tick);
        svg.line((px, TOP), (px, PLOT_BOTTOM), "grid");
        let label = bytes(tick.round() as u64);
        // A label centred on a tick at the left edge would reach under the time axis's lowest
        // label (right-aligned left of the axis): it starts at its tick instead.
        let (at_x, anchor) = match px - text_width(&label) / 2.0 < LEFT {
            true => (px - 2.0, Anchor::Start),
            false => (px, Anchor::Middle),
        };
        svg.text((at_x, PLOT_BOTTOM + 16.0), anchor, "tick", &label);
    }
    for tick in y.ticks(7) {
        let py = y.at(tick);
        svg.line((LEFT, py), (PLOT_RIGHT, py), "grid");
        svg.text((LEFT - 6.0, py + 4.0), Anchor::End, "tick", &duration(tick));
    }
    let log = |s: &Scale| if s.log { " (log scale)" } else { "" };
    svg.text(
        ((LEFT + PLOT_RIGHT) / 2.0, PLOT_BOTTOM + 34.0),
        Anchor::Middle,
        "dim",
        &format!("size on disk{}", log(&x)),
    );
    svg.text(
        (4.0, TOP - 10.0),
        Anchor::Start,
        "dim",
        &format!("median{}", log(&y)),
    );
    // The legend names the group each series comes from.
    let mut legend_x = 8.0;
    for (series, text) in &chart.series {
        mark(&mut svg, series, (legend_x, 12.0), "swatch", "");
        svg.text((legend_x + 9.0, 16.0), Anchor::Start, "dim", text);
        legend_x += 9.0 + text_width(text) + 24.0;
    }
    let mut words = Vec::new();
    let mut placed: Vec<Box> = Vec::new();
    let spots: Vec<(f64, f64)> = all
        .iter()
        .map(|p| (x.at(p.bytes as f64), y.at(p.seconds)))
        .collect();
    for (p, &at) in all.iter().zip(&spots) {
        let name = &p.label;
        let what = format!(
            "{name}: {} {}, {} on disk",
            p.series,
            duration(p.seconds),
            bytes(p.bytes)
        );
        mark(&mut svg, &p.series, at, "mark point", &what);
        let spot = place_label(&mut placed, &spots, at, text_width(name));
        if spot.leader {
            // The label had to move off its point: a line ties them.
            let end_x = if spot.at.0 > at.0 {
                spot.at.0 - 2.0
            } else {
                spot.at.0 + text_width(name) + 2.0
            };
            svg.line(at, (end_x, spot.at.1 - 4.0), "leader");
        }
        // In its series' colour: a read's label and a write's of one competitor sit close.
        svg.text(spot.at, Anchor::Start, &p.series, name);
        words.push(what);
    }
    Some(Drawing {
        title: chart.title.clone(),
        label: format!("{}. {}", chart.title, words.join("; ")),
        width: WIDTH as u32,
        height: HEIGHT as u32,
        body: svg.finish(),
    })
}

/// A label's box: left, baseline, right.
type Box = (f64, f64, f64);

/// Where a label went, and whether it needs a leader line back to its point.
struct Spot {
    at: (f64, f64),
    leader: bool,
}

/// Where a point's label goes: beside it (right, else left), else up to four lines above or
/// below with a leader line; inside the plot, clear of the labels already placed and of every
/// point. Right of the point when every choice overlaps.
fn place_label(
    placed: &mut Vec<Box>,
    points: &[(f64, f64)],
    (x, y): (f64, f64),
    width: f64,
) -> Spot {
    const LINE: f64 = 13.0;
    const POINT: f64 = 5.0;
    let right = x + 7.0;
    let left = x - 7.0 - width;
    let free = |(l, b): (f64, f64)| {
        let clear_of_points = points.iter().all(|&(px, py)| {
            px + POINT < l
                || px - POINT > l + width
                || py + POINT < b - 10.0
                || py - POINT > b + 2.0
        });
        (TOP + 4.0..=PLOT_BOTTOM - 2.0).contains(&b)
            && l >= 0.0
            && l + width <= WIDTH
            && clear_of_points
            && placed
                .iter()
                .all(|(pl, pb, pr)| (b - pb).abs() >= LINE || l >= *pr || l + width <= *pl)
    };
    let base = y + 4.0;
    let beside = [(right, base), (left, base)];
    let moved = [1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0]
        .into_iter()
        .flat_map(|k| [(right, base + k * LINE), (left, base + k * LINE)]);
    let found = beside
        .into_iter()
        .map(|c| (c, false))
        .chain(moved.map(|c| (c, true)))
        .find(|(c, _)| free(*c));
    let ((l, b), leader) = found.unwrap_or(((right, base), false));
    placed.push((l, b, l + width));
    Spot { at: (l, b), leader }
}

/// Reads are circles, writes squares, so the series differ in shape as well as colour.
fn mark(svg: &mut Svg, series: &str, (x, y): (f64, f64), class: &str, tip: &str) {
    let class = format!("{class} {series}");
    if series == "write" {
        svg.rect((x - 4.0, y - 4.0), (8.0, 8.0), &class, tip);
    } else {
        svg.circle((x, y), 4.0, &class, tip);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_sit_by_their_points_clear_of_each_other_and_of_every_point() {
        // A tight cluster, as a run of one format's profiles gives.
        let points: Vec<(f64, f64)> = (0..8)
            .map(|i| (300.0 + 3.0 * i as f64, 200.0 + 2.0 * i as f64))
            .collect();
        let width = 60.0;
        let mut placed = Vec::new();
        let spots: Vec<Spot> = points
            .iter()
            .map(|&p| place_label(&mut placed, &points, p, width))
            .collect();
        for (i, (a, pa)) in spots.iter().zip(&points).enumerate() {
            // Beside its point, or tied to it by a leader line.
            let beside = (a.at.1 - (pa.1 + 4.0)).abs() < 1.0;
            assert!(beside || a.leader, "label {i} moved without a leader");
            assert!(
                (a.at.1 - pa.1).abs() <= 4.0 * 13.0 + 4.0,
                "label {i} strays"
            );
            for b in spots.iter().skip(i + 1) {
                let apart = (a.at.1 - b.at.1).abs() >= 13.0
                    || a.at.0 >= b.at.0 + width
                    || a.at.0 + width <= b.at.0;
                assert!(apart, "labels overlap: {:?} {:?}", a.at, b.at);
            }
        }
        // The first label has room beside its point.
        assert!(!spots[0].leader);
    }
}
