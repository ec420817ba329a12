//! One heat map per (dataset, cache, threads): each competitor's ratio to each operation's
//! fastest (or to the reference the user chose), and the geometric mean over the operations.

use super::{Place, Placed};
use crate::document::{Chart, HeatChart, HeatRow};
use crate::report::overall::{geo_tables, GeoRow, GeoTable};
use crate::stats::RunSummary;

pub(super) fn charts(summary: &RunSummary) -> Vec<Placed> {
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

fn chart(summary: &RunSummary, index: usize, table: &GeoTable) -> Placed {
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let ratios: Vec<Option<f64>> = table
                .ops
                .iter()
                .map(|op| ratio(summary, table, row, op))
                .collect();
            let geomean = if reference(summary).is_some() {
                let values: Vec<f64> = ratios.iter().flatten().copied().collect();
                crate::stats::geometric_mean(&values)
            } else {
                Some(row.value)
            };
            HeatRow {
                label: format!("{}/{}", row.backend, row.profile),
                ratios,
                geomean,
            }
        })
        .collect();
    let title = match reference(summary) {
        Some((backend, profile)) => format!("{}: ratio to {backend}/{profile}", table.heading()),
        None => format!("{}: ratio to the fastest", table.heading()),
    };
    Placed::new(
        Place::Geo(index),
        Chart::Heat(HeatChart {
            title,
            ops: table.ops.clone(),
            rows,
        }),
    )
}
