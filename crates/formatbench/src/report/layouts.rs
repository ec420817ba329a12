//! The layout study's two comparisons, for feature matrices: each backend's array layout against
//! its own wide layout (the fair comparison), and each layout against the `.npy` floor.

use super::format;
use crate::stats::{CellSummary, RunSummary};
use std::collections::BTreeMap;

pub(super) mod seed;

/// A table ready for any renderer: the first `text_columns` columns are text, the rest numbers.
pub(super) struct Table {
    pub title: String,
    pub legend: &'static str,
    pub headers: Vec<String>,
    pub text_columns: usize,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as the document model's, which every medium's renderer draws: text columns
    /// left, number columns right.
    pub fn document(&self) -> crate::document::Table {
        use crate::document::{Cell, Column};
        let columns = self
            .headers
            .iter()
            .enumerate()
            .map(|(i, h)| match i < self.text_columns {
                true => Column::left(h.as_str()),
                false => Column::right(h.as_str()),
            })
            .collect();
        let rows = self
            .rows
            .iter()
            .map(|row| row.iter().map(|c| Cell::text(c.as_str())).collect())
            .collect();
        crate::document::Table::new(columns, rows)
    }
}

/// The operations compared, in the study's order.
const OPS: [&str; 7] = [
    "write",
    "read",
    "matrix",
    "random_rows",
    "feature_project",
    "mixed",
    "vector_norm",
];
/// The operations the floor is a reference for (it keeps no metadata).
const FLOOR_OPS: [&str; 4] = ["matrix", "random_rows", "feature_project", "vector_norm"];
const FLOOR: (&str, &str) = ("npy", "array");

const ARRAY_LEGEND: &str = "array ÷ wide of the same backend and profile: wall time (paired by round, as in the tables), and bytes on disk (sidecar included); below 1 the array layout is faster or smaller; geomean over the operations both ran";
const FLOOR_LEGEND: &str = "each layout's wall time ÷ the .npy floor's (the bare row-major matrix), paired by round as in the tables: for `matrix` a true floor, for rows and features a baseline a column layout may beat";

fn median(cell: &CellSummary) -> Option<f64> {
    cell.wall.as_ref().map(|w| w.median).filter(|m| *m > 0.0)
}

/// (dataset, backend, profile, layout) → op → cell, for ok warm-or-write cells.
type Cells<'a> = BTreeMap<(String, String, String, String), BTreeMap<String, &'a CellSummary>>;

fn cells(summary: &RunSummary) -> Cells<'_> {
    let mut out: Cells = BTreeMap::new();
    for group in &summary.groups {
        if group.cache == "cold" {
            continue;
        }
        for cell in &group.cells {
            if median(cell).is_none() {
                continue;
            }
            let key = (
                cell.cell.dataset.clone(),
                cell.cell.backend.clone(),
                cell.cell.shown_profile(),
                cell.cell.layout.clone(),
            );
            out.entry(key)
                .or_default()
                .insert(cell.cell.op.clone(), cell);
        }
    }
    out
}

fn geomean(ratios: &[f64]) -> Option<f64> {
    (!ratios.is_empty())
        .then(|| (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp())
}

/// Array ÷ wide per backend and profile, one table per dataset that has both layouts.
pub(super) fn array_vs_wide(summary: &RunSummary) -> Vec<Table> {
    let cells = cells(summary);
    let mut tables: BTreeMap<String, Table> = BTreeMap::new();
    for ((dataset, backend, profile, layout), array) in &cells {
        if layout != "array" {
            continue;
        }
        let wide_key = (
            dataset.clone(),
            backend.clone(),
            profile.clone(),
            "wide".into(),
        );
        let Some(wide) = cells.get(&wide_key) else {
            continue;
        };
        let mut row = vec![backend.clone(), profile.clone()];
        let mut ratios = Vec::new();
        for op in OPS {
            let ratio = array
                .get(op)
                .zip(wide.get(op))
                .and_then(|(a, w)| a.ratio_over(w));
            row.push(ratio.map_or_else(|| format::DASH.to_string(), format::ratio));
            ratios.extend(ratio);
        }
        row.push(geomean(&ratios).map_or_else(|| format::DASH.to_string(), format::ratio));
        let size = |ops: &BTreeMap<String, &CellSummary>| ops.values().find_map(|c| c.size_bytes);
        let size_ratio = size(array)
            .zip(size(wide))
            .filter(|(_, w)| *w > 0)
            .map(|(a, w)| a as f64 / w as f64);
        row.push(size_ratio.map_or_else(|| format::DASH.to_string(), format::ratio));
        tables
            .entry(dataset.clone())
            .or_insert_with(|| Table {
                title: format!("{dataset}: array layout ÷ wide layout"),
                legend: ARRAY_LEGEND,
                headers: ["backend", "profile"]
                    .iter()
                    .chain(OPS.iter())
                    .chain(["geomean", "size"].iter())
                    .map(|s| s.to_string())
                    .collect(),
                text_columns: 2,
                rows: Vec::new(),
            })
            .rows
            .push(row);
    }
    tables.into_values().collect()
}

/// Every layout ÷ the `.npy` floor, one table per dataset where the floor ran.
pub(super) fn against_floor(summary: &RunSummary) -> Vec<Table> {
    let cells = cells(summary);
    let mut tables = Vec::new();
    let datasets: Vec<&String> = {
        let mut d: Vec<&String> = cells.keys().map(|k| &k.0).collect();
        d.dedup();
        d
    };
    for dataset in datasets {
        let floor_key = (
            dataset.clone(),
            FLOOR.0.to_string(),
            "default".to_string(),
            FLOOR.1.to_string(),
        );
        let Some(floor) = cells.get(&floor_key) else {
            continue;
        };
        let mut rows = Vec::new();
        for ((d, backend, profile, layout), ops) in &cells {
            if d != dataset || (backend == FLOOR.0 && layout == FLOOR.1) {
                continue;
            }
            let mut row = vec![backend.clone(), profile.clone(), layout.clone()];
            let mut any = false;
            for op in FLOOR_OPS {
                let ratio = ops
                    .get(op)
                    .zip(floor.get(op))
                    .and_then(|(c, f)| c.ratio_over(f));
                any |= ratio.is_some();
                row.push(ratio.map_or_else(|| format::DASH.to_string(), format::ratio));
            }
            if any {
                rows.push(row);
            }
        }
        if rows.is_empty() {
            continue;
        }
        let floor_matrix = floor
            .get("matrix")
            .and_then(|c| median(c))
            .map_or_else(|| format::DASH.to_string(), format::duration);
        tables.push(Table {
            title: format!("{dataset}: distance from the .npy floor (matrix {floor_matrix})"),
            legend: FLOOR_LEGEND,
            headers: ["backend", "profile", "layout"]
                .iter()
                .chain(FLOOR_OPS.iter())
                .map(|s| s.to_string())
                .collect(),
            text_columns: 3,
            rows,
        });
    }
    tables
}

const ACCESS_LEGEND: &str = "the study's access-path check: `matrix` should cost about a full `read`, and `random_rows` no more than `matrix`; a ratio above 3 (flagged !) means the reader asks the library for far more than the operation needs";

/// The access-path check per layout, for datasets with matrix operations.
pub(super) fn access_paths(summary: &RunSummary) -> Vec<Table> {
    let cells = cells(summary);
    let mut tables: BTreeMap<String, Table> = BTreeMap::new();
    for ((dataset, backend, profile, layout), ops) in &cells {
        let ratio = |top: &str, bottom: &str| {
            ops.get(top)
                .zip(ops.get(bottom))
                .and_then(|(t, b)| t.ratio_over(b))
        };
        let checks = [ratio("matrix", "read"), ratio("random_rows", "matrix")];
        if checks.iter().all(Option::is_none) {
            continue;
        }
        let mut row = vec![backend.clone(), profile.clone(), layout.clone()];
        for check in checks {
            row.push(check.map_or_else(
                || format::DASH.to_string(),
                |r| {
                    let flag = if r > ACCESS_LIMIT { " !" } else { "" };
                    format!("{}{flag}", format::ratio(r))
                },
            ));
        }
        tables
            .entry(dataset.clone())
            .or_insert_with(|| Table {
                title: format!("{dataset}: access-path check"),
                legend: ACCESS_LEGEND,
                headers: [
                    "backend",
                    "profile",
                    "layout",
                    "matrix ÷ read",
                    "random_rows ÷ matrix",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
                text_columns: 3,
                rows: Vec::new(),
            })
            .rows
            .push(row);
    }
    tables.into_values().collect()
}

/// The study's limit for the access-path check.
const ACCESS_LIMIT: f64 = 3.0;

/// Every comparison, in report order.
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let mut out = array_vs_wide(summary);
    out.extend(against_floor(summary));
    out.extend(seed::floor_table(summary));
    out.extend(access_paths(summary));
    out
}
