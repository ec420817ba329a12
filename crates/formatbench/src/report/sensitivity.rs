//! Encoding sensitivity, the layout study's check that a conclusion is not an artefact of one
//! encoding: for every backend the run measured under more than one profile (codec, level,
//! dictionary policy), whether its place holds under each, on write, read, projection and size:
//! its rank among the other backends (each at its own default profile), and, where the run
//! stored both layouts, whether array ÷ wide stays on the same side of 1.0.

use super::layouts::Table;
use super::{format, pick, ran};
use crate::stats::{CellSummary, RunSummary};
use std::collections::BTreeMap;

const RANK_LEGEND: &str = "for each backend run under several profiles: its rank under each profile (in the order listed) among the other backends at their default profile, fastest or smallest first, in the same layout; holds = the same rank under every profile";
const SIDE_LEGEND: &str = "array ÷ wide of the same backend under each profile (in the order listed): wall time as in the layout tables, and bytes on disk; holds = every profile on the same side of 1.0 (the array layout faster or smaller under all of them, or under none)";

const ENCODINGS_LEGEND: &str = "what each backend found in the file it wrote, read back from the file's own metadata: Parquet lists every column chunk's encodings (columns with the same set together; RLE_DICTIONARY = dictionary-encoded, PLAIN = not), Vortex the encoding tree of one column; files of other formats report no per-column encodings";

/// The metrics compared: an operation's median time, or the file's size.
const METRICS: [&str; 4] = ["write", "read", "project", "size"];

/// The operation a metric reads in a dataset: `project`, or the layout study's
/// `feature_project` where the run has no `project`.
fn op_of<'a>(summary: &RunSummary, dataset: &str, metric: &'a str) -> Option<&'a str> {
    let has = |op: &str| pick::group(summary, dataset, op).is_some();
    match metric {
        "project" if !has("project") && has("feature_project") => Some("feature_project"),
        "size" => None,
        other => Some(other),
    }
}

/// (backend, profile, layout) → the value of one metric: the fastest target's median time, or
/// the artifact's bytes.
type Values = BTreeMap<(String, String, String), f64>;

fn values(summary: &RunSummary, dataset: &str, metric: &str) -> Values {
    let mut out = Values::new();
    let cells: Vec<&CellSummary> = match op_of(summary, dataset, metric) {
        Some(op) => pick::group(summary, dataset, op)
            .map(|g| g.cells.iter().filter(|c| ran(c)).collect())
            .unwrap_or_default(),
        None => summary
            .groups
            .iter()
            .filter(|g| g.dataset == dataset)
            .flat_map(|g| &g.cells)
            .collect(),
    };
    for cell in cells {
        // A cluster's executor counts are no encodings: its one-executor cell stands for it.
        if cell.cell.executors.is_some_and(|n| n != 1) {
            continue;
        }
        let key = (
            cell.cell.backend.clone(),
            cell.cell.shown_profile(),
            cell.cell.layout.clone(),
        );
        let value = if metric == "size" {
            pick::size_of(summary, &cell.cell).map(|b| b as f64)
        } else {
            cell.wall.map(|w| w.median).filter(|m| *m > 0.0)
        };
        if let Some(v) = value {
            let slot = out.entry(key).or_insert(v);
            *slot = slot.min(v);
        }
    }
    out
}

/// Each backend with several profiles in `values`, with its profiles: `default` first, then
/// the rest in name order.
fn multi_profile(values: &[Values]) -> BTreeMap<String, Vec<String>> {
    let mut profiles: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (backend, profile, _) in values.iter().flat_map(|v| v.keys()) {
        let list = profiles.entry(backend.clone()).or_default();
        if !list.contains(profile) {
            list.push(profile.clone());
        }
    }
    for list in profiles.values_mut() {
        list.sort_by_key(|p| (p != "default", p.clone()));
    }
    profiles.retain(|_, list| list.len() > 1);
    profiles
}

/// The 1-based rank of `backend` at `profile` among the other backends at their default
/// profile (else their first), in `layout`.
fn rank(values: &Values, backend: &str, profile: &str, layout: &str) -> Option<usize> {
    let own = *values.get(&(backend.into(), profile.into(), layout.into()))?;
    let mut others: BTreeMap<&str, f64> = BTreeMap::new();
    for ((b, p, l), v) in values {
        if b == backend || l != layout {
            continue;
        }
        if p == "default" || !others.contains_key(b.as_str()) {
            others.insert(b, *v);
        }
    }
    Some(1 + others.values().filter(|v| **v < own).count())
}

fn ranks_table(dataset: &str, values: &[Values]) -> Option<Table> {
    let mut layouts: Vec<&str> = values
        .iter()
        .flat_map(|v| v.keys().map(|k| k.2.as_str()))
        .collect();
    layouts.sort_unstable();
    layouts.dedup();
    let mut rows = Vec::new();
    for (backend, profiles) in multi_profile(values) {
        for &layout in &layouts {
            let mut row = vec![backend.clone(), layout.to_string(), profiles.join(", ")];
            let mut holds = Vec::new();
            for metric in values {
                let ranks: Vec<Option<usize>> = profiles
                    .iter()
                    .map(|p| rank(metric, &backend, p, layout))
                    .collect();
                let known: Vec<usize> = ranks.iter().flatten().copied().collect();
                if known.len() > 1 {
                    holds.push(known.iter().all(|r| *r == known[0]));
                }
                row.push(if known.is_empty() {
                    format::DASH.to_string()
                } else {
                    ranks
                        .iter()
                        .map(|r| r.map_or_else(|| format::DASH.to_string(), |r| r.to_string()))
                        .collect::<Vec<_>>()
                        .join(" / ")
                });
            }
            if holds.is_empty() {
                continue;
            }
            row.push(
                if holds.iter().all(|h| *h) {
                    "yes"
                } else {
                    "no"
                }
                .into(),
            );
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return None;
    }
    let mut headers = vec!["backend".into(), "layout".into(), "profiles".into()];
    headers.extend(METRICS.iter().map(|m| format!("{m} rank")));
    headers.push("holds".into());
    Some(Table {
        title: format!("{dataset}: does each backend's rank hold under every profile?"),
        legend: RANK_LEGEND,
        headers,
        text_columns: 3,
        rows,
    })
}

fn sides_table(dataset: &str, values: &[Values]) -> Option<Table> {
    let mut rows = Vec::new();
    for (backend, profiles) in multi_profile(values) {
        for (metric, metric_values) in METRICS.iter().zip(values) {
            let ratios: Vec<Option<f64>> = profiles
                .iter()
                .map(|p| {
                    let at = |layout: &str| {
                        metric_values
                            .get(&(backend.clone(), p.clone(), layout.to_string()))
                            .copied()
                    };
                    Some(at("array")? / at("wide")?)
                })
                .collect();
            let known: Vec<f64> = ratios.iter().flatten().copied().collect();
            if known.len() < 2 {
                continue;
            }
            let same_side = known.iter().all(|r| *r < 1.0) || known.iter().all(|r| *r >= 1.0);
            rows.push(vec![
                backend.clone(),
                metric.to_string(),
                profiles.join(", "),
                ratios
                    .iter()
                    .map(|r| r.map_or_else(|| format::DASH.to_string(), format::ratio2))
                    .collect::<Vec<_>>()
                    .join(" / "),
                if same_side { "yes" } else { "no" }.into(),
            ]);
        }
    }
    if rows.is_empty() {
        return None;
    }
    Some(Table {
        title: format!("{dataset}: does array ÷ wide stay on one side of 1.0 under every profile?"),
        legend: SIDE_LEGEND,
        headers: ["backend", "metric", "profiles", "array ÷ wide", "holds"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        text_columns: 3,
        rows,
    })
}

/// What each file was written with, as its backend read it back from the file: codecs and
/// the encodings of each column (Parquet: every column chunk's; Vortex: a probe column's).
fn encodings_table(summary: &RunSummary, dataset: &str) -> Option<Table> {
    let rows: Vec<Vec<String>> = summary
        .artifacts
        .iter()
        .filter(|a| a.dataset == dataset)
        .filter_map(|a| {
            let encodings = a
                .settings
                .get("column_encodings")
                .or_else(|| a.settings.get("encodings"))?;
            let codecs = a
                .settings
                .get("codecs")
                .or_else(|| a.settings.get("compression"))
                .cloned()
                .unwrap_or_else(|| format::DASH.to_string());
            Some(vec![
                a.backend.clone(),
                a.profile.clone(),
                a.layout.clone(),
                codecs,
                encodings.clone(),
            ])
        })
        .collect();
    (!rows.is_empty()).then(|| Table {
        title: format!("{dataset}: encodings written, read back from each file"),
        legend: ENCODINGS_LEGEND,
        headers: [
            "backend",
            "profile",
            "layout",
            "codecs",
            "encodings by column",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        text_columns: 5,
        rows,
    })
}

/// The rank table of every dataset, the array ÷ wide table where both layouts ran, then the
/// encodings the files hold.
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let datasets = pick::dataset_names(summary);
    // Each metric's values once per dataset, for both tables.
    let values: Vec<Vec<Values>> = datasets
        .iter()
        .map(|d| METRICS.iter().map(|m| values(summary, d, m)).collect())
        .collect();
    let mut out: Vec<Table> = datasets
        .iter()
        .zip(&values)
        .filter_map(|(d, v)| ranks_table(d, v))
        .collect();
    out.extend(
        datasets
            .iter()
            .zip(&values)
            .filter_map(|(d, v)| sides_table(d, v)),
    );
    out.extend(datasets.iter().filter_map(|d| encodings_table(summary, d)));
    out
}

#[cfg(test)]
mod tests;
