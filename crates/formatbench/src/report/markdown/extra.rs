//! The Markdown sections that are mostly charts: trade-offs per dataset with the Pareto
//! frontier, and scaling with rows.

use super::super::charts::{Chart, Place};
use super::super::pareto::{frontiers, LEGEND};
use super::super::pick::dataset_names;
use super::{charts_at, escape, header, row};
use crate::stats::RunSummary;
use std::fmt::Write;

/// A table whose first column is text and the rest numbers.
fn plain_table(out: &mut String, headers: &[String], rows: &[Vec<String>]) {
    let columns: Vec<(&str, bool)> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), i > 0))
        .collect();
    header(out, &columns);
    for r in rows {
        let cells: Vec<String> = r.iter().map(|c| escape(c)).collect();
        row(out, &cells);
    }
    out.push('\n');
}

pub(super) fn tradeoffs(out: &mut String, summary: &RunSummary, charts: &[Chart]) {
    let frontiers = frontiers(summary);
    if frontiers.is_empty() {
        return;
    }
    out.push_str("## Trade-offs\n\n");
    let _ = writeln!(out, "Pareto frontier: {}.\n", escape(LEGEND));
    for dataset in dataset_names(summary) {
        let Some(f) = frontiers.iter().find(|f| f.dataset == dataset) else {
            continue;
        };
        let _ = writeln!(out, "### {}\n", escape(&dataset));
        charts_at(out, charts, &Place::Dataset(dataset.clone()));
        let _ = writeln!(
            out,
            "Pareto frontier ({}):\n",
            escape(&f.sources.join("; "))
        );
        let headers: Vec<String> = f.headers().iter().map(|h| h.to_string()).collect();
        plain_table(out, &headers, &f.rows());
        let off = f.dominated_text();
        if !off.is_empty() {
            let _ = writeln!(out, "Off the frontier: {}.\n", escape(&off.join("; ")));
        }
    }
}

pub(super) fn scaling(out: &mut String, charts: &[Chart]) {
    if !charts.iter().any(|c| c.place == Place::Scaling) {
        return;
    }
    out.push_str("## Scaling with rows\n\n");
    for (i, chart) in charts.iter().enumerate() {
        if chart.place != Place::Scaling {
            continue;
        }
        let _ = writeln!(
            out,
            "![{}]({})\n",
            escape(&chart.title).replace('[', "\\[").replace(']', "\\]"),
            super::super::charts::file_name(i)
        );
        if let Some(t) = &chart.table {
            plain_table(out, &t.headers, &t.rows);
        }
    }
}
