//! A GitHub-flavoured Markdown report, meant to be pasted into a README or an issue.

use super::format::{self, one_line, DASH};
use super::{
    artifact_settings, artifact_size, environment_rows, group_title, not_measured, rows,
    LEGEND_NOISY, LEGEND_RATIO,
};
use crate::results::SampleStatus;
use crate::stats::RunSummary;
use std::fmt::Write;

/// Makes text safe inside a table cell: a `|` would end the cell, a newline the row, and a `<`
/// could be taken for an HTML tag and vanish.
fn escape(s: &str) -> String {
    one_line(s).replace('|', "\\|").replace('<', "&lt;")
}

/// Inline code when the text can be quoted that way, so hashes read as identifiers.
fn code(s: &str) -> String {
    if s.is_empty() || s.contains('`') {
        escape(s)
    } else {
        format!("`{}`", escape(s))
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

pub fn render(summary: &RunSummary) -> String {
    let mut out = String::from("# formatbench report\n\n");
    environment(&mut out, summary);
    datasets(&mut out, summary);
    results(&mut out, summary);
    artifacts(&mut out, summary);
    missing(&mut out, summary);
    out
}

fn environment(out: &mut String, summary: &RunSummary) {
    out.push_str("## Environment\n\n");
    let Some(env) = &summary.environment else {
        out.push_str("No environment was recorded.\n\n");
        return;
    };
    header(out, &[("Item", false), ("Value", false)]);
    for (key, value) in environment_rows(env) {
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
}

fn results(out: &mut String, summary: &RunSummary) {
    out.push_str("## Results\n\n");
    if summary.groups.is_empty() {
        out.push_str("No results were recorded.\n\n");
        return;
    }
    let _ = writeln!(
        out,
        "Rows are fastest first. `*` {LEGEND_NOISY}. ×best = {LEGEND_RATIO}.\n"
    );
    for group in &summary.groups {
        let _ = writeln!(out, "### {}\n", escape(&group_title(group)));
        header(
            out,
            &[
                ("Backend", false),
                ("Profile", false),
                ("Median", true),
                ("Min–max", true),
                ("×best", true),
                ("Size", true),
                ("B/value", true),
                ("Peak mem", true),
                ("Method", false),
            ],
        );
        for r in rows(group) {
            let numbers = if r.status == SampleStatus::Ok {
                let mark = if r.noisy { "\\*" } else { "" };
                vec![
                    format!("{}{mark}", r.median),
                    r.range,
                    r.ratio,
                    r.size,
                    r.per_value,
                    r.peak,
                    escape(&r.method),
                ]
            } else {
                // The reason is in "Not measured"; here it would stretch the whole table.
                let mut cells = vec![format!("**{}**", r.status.name())];
                cells.extend(std::iter::repeat_n(DASH.to_string(), 6));
                cells
            };
            let mut cells = vec![escape(r.backend), escape(&r.profile)];
            cells.extend(numbers);
            row(out, &cells);
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
    if cells.is_empty() {
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
            escape(&c.cell.profile),
            escape(&c.cell.layout),
            escape(&c.cell.target),
            c.status.name(),
            if reason.is_empty() { "" } else { " — " },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{fixture, DATASET};
    use super::*;

    #[test]
    fn tables_have_headers_and_escaped_pipes() {
        let text = render(&fixture());
        assert!(text.starts_with("# formatbench report\n"));
        assert!(text.contains(
            "| Backend | Profile | Median | Min–max | ×best | Size | B/value | Peak mem | Method |\n\
             | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
        ));
        assert!(text.contains("### mixed-100000x61 · read · threads 2"));
        assert!(text.contains("| ipc | plain | 12.3 ms |"));
        assert!(text.contains("| parquet | zstd | 45.6 ms\\* |"));
        assert!(text.contains("| csv | default | **failed** | — |"));
        // The reason's pipe must not split a cell, and its `<` must not open a tag.
        assert!(text.contains("worker crashed: &lt;signal 11> \\| core dumped"));
        assert!(!text.contains("<signal"));
    }

    #[test]
    fn environment_datasets_and_artifacts() {
        let text = render(&fixture());
        assert!(text.contains("| CPU | AMD EPYC 7763 |"));
        assert!(text.contains("| Memory | 64.0 GiB |"));
        assert!(text.contains("| Git commit | abc1234 (dirty) |"));
        assert!(text.contains("| Version of arrow | 60.1.0 |"));
        assert!(text.contains("| Setting rounds | 5 |"));
        assert!(text.contains(&format!(
            "| {DATASET} | 100,000 | 61 | `fp-0123` | 45.8 MiB |"
        )));
        assert!(text.contains("## Artifacts and settings"));
        assert!(text.contains("| 11.8 MiB | 2.02 | compression=zstd(3); row_group_rows=65536 |"));
    }

    #[test]
    fn not_measured_lists_full_reasons() {
        let mut summary = fixture();
        let long = "y".repeat(200);
        summary.groups[1].cells[1].reason = Some(long.clone());
        let text = render(&summary);
        let section = text.split("## Not measured").nth(1).unwrap();
        assert!(section.contains("**failed** — worker crashed"));
        assert!(section.contains(&format!("**unsupported** — {long}")));
    }

    #[test]
    fn empty_summary_still_renders_every_section() {
        let text = render(&RunSummary::default());
        for heading in [
            "## Environment",
            "## Datasets",
            "## Results",
            "## Artifacts",
            "## Not measured",
        ] {
            assert!(text.contains(heading), "{heading}");
        }
    }
}
