//! A GitHub-flavoured Markdown report, meant to be pasted into a README or an issue.

use super::format::{self, one_line, DASH};
use super::overall::{geo_tables, LEGEND_GEOMEAN};
use super::rows::{detail_fields, flag_list, rows, Field};
use super::{
    artifact_settings, artifact_size, environment_rows, group_notes, group_title, not_measured,
    LEGEND_CPU, LEGEND_FLAG, LEGEND_NOISY, LEGEND_PAR, LEGEND_RATIO,
};
use crate::results::SampleStatus;
use crate::stats::RunSummary;
use std::fmt::Write;

/// Makes text safe inside a table cell or a list line: a `|` would end the cell, a newline
/// the row, a `<` could be taken for an HTML tag and vanish, and `*` or a backtick would start
/// emphasis or code.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in one_line(s).chars() {
        match c {
            '\\' | '|' | '*' | '`' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            _ => out.push(c),
        }
    }
    out
}

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

pub fn render(summary: &RunSummary) -> String {
    let mut out = String::from("# formatbench report\n\n");
    environment(&mut out, summary);
    datasets(&mut out, summary);
    results(&mut out, summary);
    overall(&mut out, summary);
    cache_table(&mut out, summary);
    artifacts(&mut out, summary);
    missing(&mut out, summary);
    out
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
}

fn results(out: &mut String, summary: &RunSummary) {
    out.push_str("## Results\n\n");
    if summary.groups.is_empty() {
        out.push_str("No results were recorded.\n\n");
        return;
    }
    let _ = writeln!(
        out,
        "Rows are fastest first. `*` {LEGEND_NOISY}. `!` {LEGEND_FLAG}. Ratio = {}. \
         CPU ratio = {LEGEND_CPU}. Parallelism = {LEGEND_PAR}. Settings: the artifact's \
         fairness manifest.\n",
        escape(LEGEND_RATIO)
    );
    for group in &summary.groups {
        let _ = writeln!(out, "### {}\n", escape(&group_title(group)));
        for note in group_notes(group) {
            let _ = writeln!(out, "{}\n", escape(&note));
        }
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

fn overall(out: &mut String, summary: &RunSummary) {
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
    for t in tables {
        let _ = writeln!(out, "### {}\n", escape(&t.heading()));
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
    use super::super::fixture::{fixture, DATASET};
    use super::*;

    /// The text of one `###` section, up to the next heading.
    fn section<'a>(text: &'a str, heading: &str) -> &'a str {
        let start = text.find(&format!("### {heading}\n")).unwrap_or(text.len());
        let rest = &text[start..];
        let end = rest[4..].find("\n#").map_or(rest.len(), |e| e + 4);
        &rest[..end]
    }

    #[test]
    fn tables_have_headers_and_escaped_pipes() {
        let text = render(&fixture());
        assert!(text.starts_with("# formatbench report\n"));
        let warm = section(&text, "mixed-100000x61 · read · cache warm · threads 2");
        assert!(warm.contains(
            "| Backend | Profile | Median | Min–max | Ratio [95 % CI] | CPU ratio [95 % CI] | \
             Parallelism | Calls | Size | B/value | Peak mem | Resident | Read bytes | \
             Read amplification | Method | Settings |\n\
             | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | \
             ---: | ---: | --- | --- |\n"
        ));
        assert!(warm
            .contains("| ipc | plain | 12.3 ms | 11.1 ms – 18.5 ms | 1.00× | 1.00× | 1.90 | 1 |"));
        assert!(warm.contains(
            "| parquet! | zstd | 16.7 ms\\* | 15.0 ms – 25.0 ms | 1.36× [1.30–1.41] | \
             0.87× [0.80–0.95] | 1.00 | 1 | 11.8 MiB | 2.02 | 200 MiB | 40 % | — | — | mmap | "
        ));
        assert!(warm.contains("| csv | default | **failed** | — |"));
        // The reason's pipe must not split a cell, and its `<` must not open a tag.
        assert!(text.contains("worker crashed: &lt;signal 11> \\| core dumped"));
        assert!(!text.contains("<signal"));
    }

    #[test]
    fn settings_column_holds_the_escaped_manifest() {
        let text = render(&fixture());
        let warm = section(&text, "mixed-100000x61 · read · cache warm · threads 2");
        assert!(warm.contains(
            "| mmap | profile_settings=zstd &lt;level 3> \\| dictionary off; codecs=ZSTD(3); \
             encodings=PLAIN RLE; row_groups=2 |\n"
        ));
        assert!(warm.contains("| mmap | codec=none; blocks=2 |\n"));
        // A failed cell still shows what it would have read.
        assert!(warm.contains("| — | — | — |\n"));
    }

    #[test]
    fn notes_flags_and_cold_columns() {
        let text = render(&fixture());
        let cold = section(&text, "mixed-100000x61 · read · cache cold · threads 2");
        assert!(cold.contains(
            "\n\nno clear winner: the runner-up's 95 % interval includes 1\n\n| Backend"
        ));
        assert!(cold.contains("| 0 % | 45.8 MiB | 1.0× | mmap |"));
        let warm = section(&text, "mixed-100000x61 · read · cache warm · threads 2");
        assert!(warm.contains("\n\nwarning: competitors differ in measured parallelism"));
        assert!(warm.contains("\n- ! parquet/zstd: cache state missed: 40 % resident\n"));
        let scan = section(&text, "mixed-100000x61 · scan · cache warm · threads 2");
        assert!(!scan.contains("Resident") && !scan.contains("- !"));
        let write = section(&text, "mixed-100000x61 · write · threads 1");
        assert!(write.contains("| npy! | default | 850 ns | 765 ns – 1.28 µs | — | — |"));
    }

    #[test]
    fn summary_across_operations_sorted_by_ratio() {
        let text = render(&fixture());
        let overall = text
            .split("## Summary across operations")
            .nth(1)
            .unwrap_or_default();
        assert!(overall.contains(
            "### mixed-100000x61 · cache warm · threads 2 (read, scan)\n\n\
             | Backend | Profile | Geomean ratio | Ops |\n\
             | --- | --- | ---: | ---: |\n\
             | ipc | plain | 1.00× | 1 of 2 |\n\
             | parquet | zstd | 1.17× | 2 |\n"
        ));
        assert!(text.find("## Results") < text.find("## Summary across operations"));
    }

    #[test]
    fn environment_datasets_and_artifacts() {
        let text = render(&fixture());
        assert!(text.contains("| CPU | AMD EPYC 7763 |"));
        assert!(text.contains("| Memory | 64.0 GiB |"));
        assert!(text.contains("| Git commit | abc1234 (dirty) |"));
        assert!(text.contains("| Worker build | xxh3:feedbeef |"));
        assert!(text.contains("| Clock resolution | 20.0 ns |"));
        assert!(text.contains("| Schedule hash | xxh3:0123abcd |"));
        assert!(text.contains("| Measured slots | 3 |"));
        assert!(text.contains("| Version of arrow | 60.1.0 |"));
        assert!(text.contains("| Setting rounds | 5 |"));
        assert!(text.contains(&format!(
            "| {DATASET} | 100,000 | 61 | `fp-0123` | 45.8 MiB |"
        )));
        assert!(text.contains("## Artifacts and settings"));
        assert!(text.contains("| 11.8 MiB | 2.02 | alignment=64; blocks=2; codec=none |"));
    }

    #[test]
    fn not_measured_lists_full_reasons() {
        let mut summary = fixture();
        let long = "y".repeat(200);
        summary.groups[3].cells[1].reason = Some(long.clone());
        let text = render(&summary);
        let section = text.split("## Not measured").nth(1).unwrap_or_default();
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
        assert!(!text.contains("## Summary across operations"));
    }
}
