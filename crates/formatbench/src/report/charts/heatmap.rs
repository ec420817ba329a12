//! One heat map per (dataset, cache, threads): competitors down, operations across, each cell
//! the competitor's ratio to that operation's fastest, shaded by how far from 1 it is, and a
//! last column with the geometric mean over the operations.

use super::{label_width, Anchor, Chart, Place, Svg};
use crate::report::format;
use crate::report::overall::{geo_tables, GeoRow, GeoTable};
use crate::stats::RunSummary;

const CELL_W: f64 = 72.0;
const CELL_H: f64 = 24.0;
const TOP: f64 = 26.0;
const GEO_GAP: f64 = 10.0;
const LEGEND: f64 = 40.0;
/// Room for one shade of the legend.
const SWATCH: f64 = 64.0;
/// Upper bounds of the shades `heat-0` … `heat-4` when no ratio exceeds the last; anything
/// slower is `heat-5`.
pub(super) const LEVELS: [f64; 5] = [1.1, 1.5, 2.0, 4.0, 10.0];

/// The shades' bounds for ratios up to `largest`: fine near 1, where the choice is made, then
/// even in log ratio up to the largest, so 10× and 5,000× do not share a shade.
pub(super) fn levels(largest: f64) -> [f64; 5] {
    if !(largest.is_finite() && largest > LEVELS[4]) {
        return LEVELS;
    }
    let step = |k: f64| {
        let bound = 2.0 * (largest / 2.0).powf(k / 3.0);
        format::significant(bound, 2).0
    };
    [1.1, 1.5, 2.0, step(1.0), step(2.0)]
}

/// The shade of a ratio among `bounds`.
pub(super) fn level_in(ratio: f64, bounds: &[f64; 5]) -> usize {
    bounds.iter().filter(|bound| ratio >= **bound).count()
}

pub(super) fn charts(summary: &RunSummary) -> Vec<Chart> {
    geo_tables(summary)
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.rows.is_empty() && !t.ops.is_empty())
        .map(|(i, t)| chart(summary, i, t))
        .collect()
}

/// The competitor the user chose as the heat map's reference (`--reference BACKEND/PROFILE`),
/// stored with the run's settings so the report regenerates from results alone.
fn reference(summary: &RunSummary) -> Option<(String, String)> {
    let text = summary.environment.as_ref()?.settings.reference.as_ref()?;
    let (backend, profile) = text.split_once('/')?;
    Some((backend.to_string(), profile.to_string()))
}

/// A competitor's ratio on one operation of the table: to the chosen reference when there is
/// one (paired by round), else to the fastest; the value the geometric mean is taken over.
fn ratio(summary: &RunSummary, table: &GeoTable, row: &GeoRow, op: &str) -> Option<f64> {
    let group = summary.groups.iter().find(|g| {
        (
            g.dataset.as_str(),
            g.cache.as_str(),
            g.threads,
            g.op.as_str(),
            g.place(),
        ) == (
            table.dataset.as_str(),
            table.cache.as_str(),
            table.threads,
            op,
            table.place.clone(),
        )
    })?;
    let cell = group.cells.iter().find(|c| {
        let k = &c.cell;
        (&k.backend, &k.profile, &k.layout, &k.target)
            == (&row.backend, &row.plain_profile, &row.layout, &row.target)
    })?;
    let Some((backend, profile)) = reference(summary) else {
        return cell.ratio_to_best;
    };
    let base = group
        .cells
        .iter()
        .find(|c| c.cell.backend == backend && c.cell.profile == profile && c.wall.is_some())?;
    cell.ratio_over(base)
}

fn chart(summary: &RunSummary, index: usize, table: &GeoTable) -> Chart {
    let labels: Vec<String> = table
        .rows
        .iter()
        .map(|r| format!("{}/{}", r.backend, r.profile))
        .collect();
    let left = label_width(labels.iter(), 60.0, 260.0) + 12.0;
    let columns = table.ops.len() as f64;
    let geo_x = left + CELL_W * columns + GEO_GAP;
    let grid_bottom = TOP + CELL_H * table.rows.len() as f64;
    // The last swatch may name the largest ratio too.
    let width = (geo_x + CELL_W + 8.0).max(left + 6.0 * SWATCH + 72.0);
    let height = grid_bottom + LEGEND;

    let mut svg = Svg::default();
    for (j, op) in table.ops.iter().enumerate() {
        let x = left + CELL_W * j as f64 + CELL_W / 2.0;
        svg.text((x, TOP - 8.0), Anchor::Middle, "heading", op);
    }
    svg.text(
        (geo_x + CELL_W / 2.0, TOP - 8.0),
        Anchor::Middle,
        "heading",
        "geomean",
    );
    let values: Vec<Vec<Option<f64>>> = table
        .rows
        .iter()
        .map(|row| {
            table
                .ops
                .iter()
                .map(|op| ratio(summary, table, row, op))
                .collect()
        })
        .collect();
    let largest = values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .fold(1.0, f64::max);
    let bounds = levels(largest);
    let mut words = Vec::new();
    for (i, (row, label)) in table.rows.iter().zip(&labels).enumerate() {
        let y = TOP + CELL_H * i as f64;
        svg.text((left - 8.0, y + 16.0), Anchor::End, "", label);
        let mut cells: Vec<(f64, &str, Option<f64>)> = table
            .ops
            .iter()
            .enumerate()
            .map(|(j, op)| (left + CELL_W * j as f64, op.as_str(), values[i][j]))
            .collect();
        let geomean = if reference(summary).is_some() {
            let values: Vec<f64> = cells.iter().filter_map(|c| c.2).collect();
            crate::stats::geometric_mean(&values)
        } else {
            Some(row.value)
        };
        cells.push((geo_x, "geomean", geomean));
        let mut said = Vec::new();
        for (x, op, value) in cells {
            let inner = ((x + 1.0, y + 1.0), (CELL_W - 2.0, CELL_H - 2.0));
            let centre = (x + CELL_W / 2.0, y + 16.0);
            match value.filter(|v| v.is_finite()) {
                Some(v) => {
                    let class = format!("mark tile heat-{}", level_in(v, &bounds));
                    let text = format::ratio(v);
                    svg.rect(inner.0, inner.1, &class, &format!("{label} · {op}: {text}"));
                    svg.text(centre, Anchor::Middle, "", &text);
                    said.push(format!("{op} {text}"));
                }
                None => {
                    svg.rect(inner.0, inner.1, "na", "");
                    svg.text(centre, Anchor::Middle, "dim", format::DASH);
                }
            }
        }
        words.push(format!("{label}: {}", said.join(", ")));
    }
    // The legend: one swatch per shade with the ratios it covers.
    let y = grid_bottom + 14.0;
    let mut lower = 1.0;
    for (k, bound) in bounds.iter().chain([f64::INFINITY].iter()).enumerate() {
        let x = left + SWATCH * k as f64;
        svg.rect((x, y), (14.0, 14.0), &format!("swatch heat-{k}"), "");
        let text = match (bound.is_finite(), largest > bounds[4]) {
            (true, _) => format!("<{}", format::ratio2(*bound)),
            // The last shade names the largest ratio it holds.
            (false, true) => format!("≥{} to {}", format::ratio2(lower), format::ratio2(largest)),
            (false, false) => format!("≥{}", format::ratio2(lower)),
        };
        svg.text((x + 18.0, y + 11.0), Anchor::Start, "dim", &text);
        lower = *bound;
    }
    let title = match reference(summary) {
        Some((backend, profile)) => format!("{}: ratio to {backend}/{profile}", table.heading()),
        None => format!("{}: ratio to the fastest", table.heading()),
    };
    Chart {
        place: Place::Geo(index),
        label: format!("{title}, per competitor: {}", words.join("; ")),
        title,
        width: width.ceil() as u32,
        height: height.ceil() as u32,
        body: svg.finish(),
        table: None,
    }
}
