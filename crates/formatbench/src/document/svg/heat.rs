//! A heat map: competitors down, operations across, each tile the competitor's ratio, shaded by
//! how far from 1 it is, and a last column with the geometric mean over the operations.

use super::super::HeatChart;
use super::{label_width, Anchor, Drawing, Svg};
use crate::units::{ratio, ratio2, significant, DASH};

const CELL_W: f64 = 72.0;
const CELL_H: f64 = 24.0;
const TOP: f64 = 26.0;
const GEO_GAP: f64 = 10.0;
const LEGEND: f64 = 40.0;
/// Room for one shade of the legend.
const SWATCH: f64 = 64.0;
/// Upper bounds of the shades `heat-0` … `heat-4` when no ratio exceeds the last; anything
/// slower is `heat-5`.
pub(crate) const LEVELS: [f64; 5] = [1.1, 1.5, 2.0, 4.0, 10.0];

/// The shades' bounds for ratios up to `largest`: fine near 1, where the choice is made, then
/// even in log ratio up to the largest, so 10× and 5,000× do not share a shade.
pub(crate) fn levels(largest: f64) -> [f64; 5] {
    if !(largest.is_finite() && largest > LEVELS[4]) {
        return LEVELS;
    }
    let step = |k: f64| {
        let bound = 2.0 * (largest / 2.0).powf(k / 3.0);
        significant(bound, 2).0
    };
    [1.1, 1.5, 2.0, step(1.0), step(2.0)]
}

/// The shade of a ratio among `bounds`.
pub(crate) fn level_in(ratio: f64, bounds: &[f64; 5]) -> usize {
    bounds.iter().filter(|bound| ratio >= **bound).count()
}

/// Lower bounds of the shades below 1 (`faster-1` … `faster-3`, faster than the reference by
/// more than 10 %, a third, a half): a chosen reference, or the memory-copy floor, can be beaten,
/// and 0.8× and 0.07× must not look alike. 1/1.1 up to 1.1 is `heat-0`: about the same.
pub(crate) const FASTER: [f64; 3] = [1.0 / 1.1, 1.0 / 1.5, 1.0 / 2.0];

/// The class of a tile's ratio.
pub(crate) fn shade(ratio: f64, bounds: &[f64; 5]) -> String {
    match FASTER.iter().filter(|bound| ratio < **bound).count() {
        0 => format!("heat-{}", level_in(ratio, bounds)),
        k => format!("faster-{k}"),
    }
}

pub(super) fn draw(chart: &HeatChart) -> Drawing {
    let labels: Vec<String> = chart.rows.iter().map(|r| r.label.clone()).collect();
    let left = label_width(labels.iter(), 60.0, 260.0) + 12.0;
    let columns = chart.ops.len() as f64;
    let geo_x = left + CELL_W * columns + GEO_GAP;
    let grid_bottom = TOP + CELL_H * chart.rows.len() as f64;
    let height = grid_bottom + LEGEND;

    let mut svg = Svg::default();
    for (j, op) in chart.ops.iter().enumerate() {
        let x = left + CELL_W * j as f64 + CELL_W / 2.0;
        svg.text((x, TOP - 8.0), Anchor::Middle, "heading", op);
    }
    svg.text(
        (geo_x + CELL_W / 2.0, TOP - 8.0),
        Anchor::Middle,
        "heading",
        "geomean",
    );
    let largest = chart
        .rows
        .iter()
        .flat_map(|r| &r.ratios)
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .fold(1.0, f64::max);
    let bounds = levels(largest);
    let smallest = chart
        .rows
        .iter()
        .flat_map(|r| r.ratios.iter().chain([&r.geomean]))
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .fold(1.0, f64::min);
    let mut words = Vec::new();
    for (i, (row, label)) in chart.rows.iter().zip(&labels).enumerate() {
        let y = TOP + CELL_H * i as f64;
        svg.text((left - 8.0, y + 16.0), Anchor::End, "", label);
        let mut cells: Vec<(f64, &str, Option<f64>)> = chart
            .ops
            .iter()
            .enumerate()
            .map(|(j, op)| {
                (
                    left + CELL_W * j as f64,
                    op.as_str(),
                    row.ratios.get(j).copied().flatten(),
                )
            })
            .collect();
        cells.push((geo_x, "geomean", row.geomean));
        let mut said = Vec::new();
        for (x, op, value) in cells {
            let inner = ((x + 1.0, y + 1.0), (CELL_W - 2.0, CELL_H - 2.0));
            let centre = (x + CELL_W / 2.0, y + 16.0);
            match value.filter(|v| v.is_finite()) {
                Some(v) => {
                    let class = format!("mark tile {}", shade(v, &bounds));
                    let text = ratio(v);
                    svg.rect(inner.0, inner.1, &class, &format!("{label} · {op}: {text}"));
                    svg.text(centre, Anchor::Middle, "", &text);
                    said.push(format!("{op} {text}"));
                }
                None => {
                    svg.rect(inner.0, inner.1, "na", "");
                    svg.text(centre, Anchor::Middle, "dim", DASH);
                }
            }
        }
        words.push(format!("{label}: {}", said.join(", ")));
    }
    // The legend: one swatch per shade with the ratios it covers, the shades below 1 first
    // where a tile has one.
    let y = grid_bottom + 14.0;
    let faster = FASTER.iter().filter(|bound| smallest < **bound).count();
    for k in (1..=faster).rev() {
        let x = left + SWATCH * (faster - k) as f64;
        svg.rect((x, y), (14.0, 14.0), &format!("swatch faster-{k}"), "");
        let text = format!("<{}", ratio2(FASTER[k - 1]));
        svg.text((x + 18.0, y + 11.0), Anchor::Start, "dim", &text);
    }
    let mut lower = 1.0;
    for (k, bound) in bounds.iter().chain([f64::INFINITY].iter()).enumerate() {
        let x = left + SWATCH * (faster + k) as f64;
        svg.rect((x, y), (14.0, 14.0), &format!("swatch heat-{k}"), "");
        let text = match (bound.is_finite(), largest > bounds[4]) {
            (true, _) => format!("<{}", ratio2(*bound)),
            // The last shade names the largest ratio it holds.
            (false, true) => format!("≥{} to {}", ratio2(lower), ratio2(largest)),
            (false, false) => format!("≥{}", ratio2(lower)),
        };
        svg.text((x + 18.0, y + 11.0), Anchor::Start, "dim", &text);
        lower = *bound;
    }
    // The last swatch may name the largest ratio too.
    let swatches = (faster + bounds.len() + 1) as f64;
    let width = (geo_x + CELL_W + 8.0).max(left + swatches * SWATCH + 72.0);
    Drawing {
        title: chart.title.clone(),
        label: format!("{}, per competitor: {}", chart.title, words.join("; ")),
        width: width.ceil() as u32,
        height: height.ceil() as u32,
        body: svg.finish(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::{HeatChart, HeatRow};
    use super::*;

    fn chart(ratios: &[f64]) -> HeatChart {
        HeatChart {
            title: "mixed · cache warm: ratio to ipc/default".into(),
            ops: ratios
                .iter()
                .enumerate()
                .map(|(i, _)| format!("op{i}"))
                .collect(),
            rows: vec![HeatRow {
                label: "ipc-parts/default".into(),
                ratios: ratios.iter().map(|r| Some(*r)).collect(),
                geomean: None,
            }],
        }
    }

    #[test]
    fn ratios_below_one_have_shades_of_their_own() {
        let drawn = draw(&chart(&[0.07, 0.6, 0.8, 1.0, 1.3]));
        for (text, class) in [
            ("0.07×", "faster-3"),
            ("0.60×", "faster-2"),
            ("0.80×", "faster-1"),
            ("1.00×", "heat-0"),
            ("1.30×", "heat-1"),
        ] {
            let tile = drawn
                .body
                .lines()
                .find(|l| l.contains(&format!(": {text}</title>")))
                .unwrap_or_default();
            assert!(
                tile.contains(&format!("class=\"mark tile {class}\"")),
                "{text}: {tile}"
            );
        }
        // The legend names the shades below 1, slowest last.
        assert!(drawn.body.contains("swatch faster-3") && drawn.body.contains(">&lt;0.50×</text>"));
        // A map with nothing below 1 keeps its legend as it was.
        let plain = draw(&chart(&[1.0, 1.3]));
        assert!(!plain.body.contains("faster-"));
    }
}
