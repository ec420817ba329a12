//! The Markdown sections that are mostly charts: trade-offs per dataset with the Pareto
//! frontier, and the study sections after the results (scaling, growth, partition size, …).

use super::super::charts::{Chart, Place};
use super::super::pareto::{frontiers, LEGEND};
use super::super::pick::dataset_names;
use super::super::Section;
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

/// A section after the results: its charts, each followed by its own table, then its tables
/// with their legends.
pub(in crate::report) fn study_section(out: &mut String, s: &Section, charts: &[Chart]) {
    let placed = || {
        charts
            .iter()
            .enumerate()
            .filter(|(_, c)| Some(&c.place) == s.place.as_ref())
    };
    if placed().next().is_none() && s.tables.is_empty() {
        return;
    }
    let _ = writeln!(out, "## {}\n", s.heading);
    for (i, chart) in placed() {
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
    for table in &s.tables {
        let _ = writeln!(
            out,
            "### {}\n\n{}.\n",
            escape(&table.title),
            escape(table.legend)
        );
        out.push_str(&crate::document::markdown_table(&table.document()));
        out.push('\n');
    }
}
