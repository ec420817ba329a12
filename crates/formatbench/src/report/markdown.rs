//! A GitHub-flavoured Markdown report, meant to be pasted into a README or an issue.

use super::charts::{self, Chart, Place};
use super::format::{self, one_line, DASH};
use super::overall::{geo_tables, LEGEND_GEOMEAN};
use super::rows::{detail_fields, flag_list, rows, Field};
use super::{
    artifact_settings, artifact_size, environment_rows, group_notes, group_title, not_measured,
    recommendation, LEGEND_BYTES, LEGEND_CPU, LEGEND_FLAG, LEGEND_NOISY, LEGEND_PAR, LEGEND_RATIO,
};
use crate::results::SampleStatus;
use crate::stats::RunSummary;
use std::fmt::Write;

mod extra;

pub(crate) use crate::document::markdown_escape as escape;

/// Inline code when the text can be quoted that way, so hashes read as identifiers. Inside a
/// code span only the table's `|` needs escaping.
fn code(s: &str) -> String {
    if s.is_empty() || s.contains('`') {
        escape(s)
    } else {
        format!("`{}`", one_line(s).replace('|', "\\|"))
    }
}

/// A table row; `cells` are already escaped.
fn row(out: &mut String, cells: &[String]) {
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

/// A header and its alignment line; `right` marks the numeric columns.
fn header(out: &mut String, columns: &[(&str, bool)]) {
    let names: Vec<String> = columns.iter().map(|(c, _)| c.to_string()).collect();
    row(out, &names);
    let rules: Vec<String> = columns
        .iter()
        .map(|(_, right)| if *right { "---:" } else { "---" }.to_string())
        .collect();
    row(out, &rules);
}

pub fn render(summary: &RunSummary, sections: &[super::Section]) -> String {
    let mut out = String::from("# formatbench report\n\n");
    if let Some(text) = recommendation(summary) {
        let _ = writeln!(out, "**Recommendation:** {}\n", escape(&text));
    }
    if !summary.groups.is_empty() {
        let _ = writeln!(out, "Times are {}.\n", escape(summary.call.describe()));
    }
    let charts = charts::all(summary);
    // The answer first; what it was measured on after the results.
    glance(&mut out, summary);
    results(&mut out, summary, &charts);
    overall(&mut out, summary, &charts);
    extra::tradeoffs(&mut out, summary, &charts);
    for section in sections {
        extra::study_section(&mut out, section, &charts);
    }
    cache_table(&mut out, summary);
    missing(&mut out, summary);
    environment(&mut out, summary);
    datasets(&mut out, summary);
    artifacts(&mut out, summary);
    out
}

fn glance(out: &mut String, summary: &RunSummary) {
    if summary.groups.is_empty() {
        return;
    }
    out.push_str("## At a glance\n\n");
    out.push_str(&crate::document::markdown_table(&super::glance::table(
        summary,
    )));
    let _ = writeln!(out, "\n{}\n", escape(super::glance::LEGEND));
}

fn environment(out: &mut String, summary: &RunSummary) {
    out.push_str("## Environment\n\n");
    let rows = environment_rows(summary);
    if rows.is_empty() {
        out.push_str("No environment was recorded.\n\n");
        return;
    }
    header(out, &[("Item", false), ("Value", false)]);
    for (key, value) in rows {
        row(out, &[escape(&key), escape(&value)]);
    }
    out.push('\n');
}

fn datasets(out: &mut String, summary: &RunSummary) {
    out.push_str("## Datasets\n\n");
    if summary.datasets.is_empty() {
        out.push_str("No datasets were recorded.\n\n");
        return;
    }
    header(
        out,
        &[
            ("Dataset", false),
            ("Rows", true),
            ("Columns", true),
            ("Fingerprint", false),
            ("Source size", true),
        ],
    );
    for d in &summary.datasets {
        row(
            out,
            &[
                escape(&d.dataset),
                format::count(d.rows),
                format::count(d.columns),
                code(&d.dataset_fingerprint),
                format::bytes(d.source_bytes),
            ],
        );
    }
    out.push('\n');
    for d in &summary.datasets {
        if let Some(cast) = d.parameters.get("feature_type") {
            let _ = writeln!(
                out,
                "{}: --feature-type {}.\n",
                escape(&d.dataset),
                escape(cast)
            );
        }
    }
}

/// Links to the files `write_reports` writes for the charts at `place`.
fn charts_at(out: &mut String, charts: &[Chart], place: &Place) {
    for (i, chart) in charts.iter().enumerate() {
        if chart.place == *place {
            let title = escape(&chart.title).replace('[', "\\[").replace(']', "\\]");
            let _ = writeln!(out, "![{title}]({})\n", charts::file_name(i));
        }
    }
}

fn results(out: &mut String, summary: &RunSummary, charts: &[Chart]) {
    out.push_str("## Results\n\n");
    if summary.groups.is_empty() {
        out.push_str("No results were recorded.\n\n");
        return;
    }
    let _ = writeln!(
        out,
        "Rows are fastest first. `*` {LEGEND_NOISY}. `!` {LEGEND_FLAG}. Ratio = {}. \
         CPU ratio = {LEGEND_CPU}. Parallelism = {LEGEND_PAR}. Read bytes = {}. \
         Settings: the artifact's \
         fairness manifest.\n",
        escape(LEGEND_RATIO),
        escape(LEGEND_BYTES)
    );
    for (index, group) in summary.groups.iter().enumerate() {
        let _ = writeln!(out, "### {}\n", escape(&group_title(group)));
        for note in group_notes(group) {
            let _ = writeln!(out, "{}\n", escape(&note));
        }
        charts_at(out, charts, &Place::Group(index));
        let fields = detail_fields(group);
        let mut columns = vec![("Backend", false), ("Profile", false), ("Median", true)];
        columns.extend(fields.iter().map(|f| (f.name(), f.right())));
        header(out, &columns);
        let rows = rows(group, &summary.artifacts);
        for r in &rows {
            let mut cells = vec![escape(&r.marked_backend()), escape(&r.profile)];
            if r.status == SampleStatus::Ok {
                let mark = if r.noisy { "\\*" } else { "" };
                cells.push(format!("{}{mark}", r.median));
                cells.extend(fields.iter().map(|f| escape(r.text(*f))));
            } else {
                // The reason is in "Not measured"; here it would stretch the whole table.
                cells.push(format!("**{}**", r.status.name()));
                cells.extend(fields.iter().map(|f| match f {
                    Field::Settings => escape(r.text(*f)),
                    _ => DASH.to_string(),
                }));
            }
            row(out, &cells);
        }
        let flags = flag_list(&rows);
        if !flags.is_empty() {
            out.push('\n');
        }
        for (label, flag) in flags {
            let _ = writeln!(out, "- ! {}: {}", escape(&label), escape(&flag));
        }
        out.push('\n');
    }
}

fn cache_table(out: &mut String, summary: &RunSummary) {
    let rows = super::cache::rows(summary);
    if rows.is_empty() {
        return;
    }
    out.push_str("## Cold cache against warm\n\n");
    let _ = writeln!(out, "{}.\n", escape(super::cache::LEGEND));
    let _ = writeln!(out, "| {} |", super::cache::HEADERS.join(" | "));
    out.push_str("| --- | --- | --- | ---: | ---: | ---: |\n");
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

fn overall(out: &mut String, summary: &RunSummary, charts: &[Chart]) {
    let tables = geo_tables(summary);
    if tables.is_empty() {
        return;
    }
    out.push_str("## Summary across operations\n\n");
    let _ = writeln!(
        out,
        "Geomean ratio = {}. Rows are best first.\n",
        escape(LEGEND_GEOMEAN)
    );
    for (index, t) in tables.iter().enumerate() {
        let _ = writeln!(out, "### {}\n", escape(&t.heading()));
        charts_at(out, charts, &Place::Geo(index));
        header(
            out,
            &[
                ("Backend", false),
                ("Profile", false),
                ("Geomean ratio", true),
                ("Ops", true),
            ],
        );
        for r in &t.rows {
            row(
                out,
                &[
                    escape(&r.backend),
                    escape(&r.profile),
                    r.ratio.clone(),
                    r.ops.clone(),
                ],
            );
        }
        out.push('\n');
    }
}

fn artifacts(out: &mut String, summary: &RunSummary) {
    out.push_str("## Artifacts and settings\n\n");
    if summary.artifacts.is_empty() {
        out.push_str("No artifacts were recorded.\n\n");
        return;
    }
    header(
        out,
        &[
            ("Dataset", false),
            ("Backend", false),
            ("Profile", false),
            ("Layout", false),
            ("Size", true),
            ("B/value", true),
            ("Settings", false),
        ],
    );
    for a in &summary.artifacts {
        row(
            out,
            &[
                escape(&a.dataset),
                escape(&a.backend),
                escape(&a.profile),
                escape(&a.layout),
                artifact_size(a),
                a.bytes_per_value
                    .map_or_else(|| DASH.to_string(), format::per_value),
                escape(&artifact_settings(a)),
            ],
        );
    }
    out.push('\n');
}

fn missing(out: &mut String, summary: &RunSummary) {
    out.push_str("## Not measured\n\n");
    let cells = not_measured(summary);
    if let Some((why, short)) = super::shortfall(summary) {
        let _ = writeln!(out, "**{}**\n", escape(&why));
        for line in short {
            let _ = writeln!(out, "- {}", escape(&line));
        }
        out.push('\n');
    } else if cells.is_empty() {
        out.push_str("Every cell was measured.\n");
        return;
    }
    for (group, c) in cells {
        let reason = c.reason.as_deref().map(escape).unwrap_or_default();
        let _ = writeln!(
            out,
            "- {} · {} {} ({}, {}): **{}**{}{reason}",
            escape(&group_title(group)),
            escape(&c.cell.backend),
            escape(&c.cell.shown_profile()),
            escape(&c.cell.layout),
            escape(&c.cell.target),
            c.status.name(),
            if reason.is_empty() { "" } else { " — " },
        );
    }
}

#[cfg(test)]
mod tests;
