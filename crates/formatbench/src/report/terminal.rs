//! The plain-text summary printed after a run. No colours: the output is as often piped into a
//! file or a CI log as read on a terminal.

use super::format::truncate;
use super::overall::{geo_tables, GeoTable, LEGEND_GEOMEAN};
use super::rows::{flag_list, rows, shows_residency, Field, Row};
use super::{
    group_notes, group_title, LEGEND_CPU, LEGEND_FLAG, LEGEND_NOISY, LEGEND_PAR, LEGEND_RATIO,
    SHORT_REASON,
};
use crate::results::SampleStatus;
use crate::stats::{OpGroup, RunSummary};

/// Columns from this index on hold numbers and are right-aligned.
const FIRST_NUMBER: usize = 2;
const INDENT: &str = "  ";
const GAP: &str = "  ";

pub fn render(summary: &RunSummary) -> String {
    let mut out = String::new();
    if summary.groups.is_empty() {
        out.push_str("No results to show.\n");
        return out;
    }
    for group in &summary.groups {
        out.push_str(&group_title(group));
        out.push('\n');
        for note in group_notes(group) {
            out.push_str(&note);
            out.push('\n');
        }
        let rows = rows(group, &summary.artifacts);
        out.push_str(&table(&rows, &fields(group)));
        for (label, flag) in flag_list(&rows) {
            out.push_str(&format!("{INDENT}! {label}: {flag}\n"));
        }
        out.push('\n');
    }
    let tables = geo_tables(summary);
    if !tables.is_empty() {
        out.push_str("Summary across operations\n");
        for t in &tables {
            out.push_str(&geo_table(t));
            out.push('\n');
        }
    }
    out.push_str(&super::cache::terminal(summary));
    if !summary.groups.is_empty() {
        out.push_str(&format!("times = {}\n", summary.call.describe()));
    }
    out.push_str(&format!(
        "* {LEGEND_NOISY}   ! {LEGEND_FLAG}\n\
         ×best = {LEGEND_RATIO}\n\
         cpu× = {LEGEND_CPU}   par = {LEGEND_PAR}\n"
    ));
    if !tables.is_empty() {
        out.push_str(&format!("summary = {LEGEND_GEOMEAN}\n"));
    }
    if let Some(text) = super::recommendation(summary) {
        out.push_str(&format!("\nRecommendation: {text}\n"));
    }
    out
}

/// The columns after backend, profile and median. Warm tables stay narrow: residency and
/// bytes read only show where the cache state matters.
fn fields(group: &OpGroup) -> Vec<(&'static str, Field)> {
    let mut fields = vec![
        ("min–max", Field::Range),
        ("×best", Field::Ratio),
        ("cpu×", Field::CpuShort),
        ("par", Field::Parallelism),
    ];
    if shows_residency(group) {
        fields.extend([("resident", Field::Resident), ("read", Field::Read)]);
    }
    fields.extend([
        ("size", Field::Size),
        ("B/value", Field::PerValue),
        ("peak mem", Field::Peak),
    ]);
    fields
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad(s: &str, width_: usize, right: bool) -> String {
    let fill = " ".repeat(width_.saturating_sub(width(s)));
    if right {
        format!("{fill}{s}")
    } else {
        format!("{s}{fill}")
    }
}

/// The noisy mark gets its own one-character slot, so medians stay aligned on their units
/// whether or not they carry it.
fn cells(row: &Row<'_>, fields: &[(&str, Field)]) -> Vec<String> {
    let mark = if row.noisy { "*" } else { " " };
    let mut cells = vec![
        row.marked_backend(),
        row.profile.clone(),
        format!("{}{mark}", row.median),
    ];
    cells.extend(fields.iter().map(|(_, f)| row.text(*f).to_string()));
    cells
}

fn table(rows: &[Row<'_>], fields: &[(&'static str, Field)]) -> String {
    let mut headers = vec!["backend", "profile", "median"];
    headers.extend(fields.iter().map(|(h, _)| *h));
    let texts: Vec<Option<Vec<String>>> = rows
        .iter()
        .map(|r| (r.status == SampleStatus::Ok).then(|| cells(r, fields)))
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| width(h)).collect();
    // The median's header sits over the digits, not over the noisy mark.
    widths[FIRST_NUMBER] += 1;
    for (row, text) in rows.iter().zip(&texts) {
        widths[0] = widths[0].max(width(&row.marked_backend()));
        widths[1] = widths[1].max(width(&row.profile));
        for (w, t) in widths.iter_mut().zip(text.iter().flatten()) {
            *w = (*w).max(width(t));
        }
    }
    let mut out = String::new();
    let header: Vec<String> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let h = if i == FIRST_NUMBER {
                format!("{h} ")
            } else {
                h.to_string()
            };
            pad(&h, widths[i], i >= FIRST_NUMBER)
        })
        .collect();
    push_line(&mut out, &header);
    for (row, text) in rows.iter().zip(texts) {
        let line: Vec<String> = match text {
            Some(text) => text
                .iter()
                .enumerate()
                .map(|(i, t)| pad(t, widths[i], i >= FIRST_NUMBER))
                .collect(),
            None => {
                let mut note = row.status.name().to_string();
                if !row.reason.is_empty() {
                    note = format!("{note}: {}", truncate(&row.reason, SHORT_REASON));
                }
                vec![
                    pad(&row.marked_backend(), widths[0], false),
                    pad(&row.profile, widths[1], false),
                    note,
                ]
            }
        };
        push_line(&mut out, &line);
    }
    out
}

fn geo_table(t: &GeoTable) -> String {
    let headers = ["backend", "profile", "geomean", "ops"];
    let mut widths: Vec<usize> = headers.iter().map(|h| width(h)).collect();
    let lines: Vec<[&str; 4]> = t
        .rows
        .iter()
        .map(|r| {
            [
                r.backend.as_str(),
                r.profile.as_str(),
                r.ratio.as_str(),
                r.ops.as_str(),
            ]
        })
        .collect();
    for line in &lines {
        for (w, text) in widths.iter_mut().zip(line) {
            *w = (*w).max(width(text));
        }
    }
    let mut out = format!("{}\n", t.heading());
    for line in std::iter::once(headers).chain(lines) {
        let fields: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(i, text)| pad(text, widths[i], i >= FIRST_NUMBER))
            .collect();
        push_line(&mut out, &fields);
    }
    out
}

fn push_line(out: &mut String, fields: &[String]) {
    out.push_str(INDENT);
    out.push_str(fields.join(GAP).trim_end());
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::super::fixture::fixture;
    use super::super::NO_CLEAR_WINNER;
    use super::*;

    /// The lines of one group's block, from its heading to the blank line after it.
    fn block(text: &str, heading: &str) -> Vec<String> {
        text.lines()
            .skip_while(|l| *l != heading)
            .take_while(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn rows_come_in_order_with_medians_and_ratios() {
        let text = render(&fixture());
        let lines = block(&text, "mixed-100000x61 · read · cache warm · threads 2");
        assert!(
            lines[1].starts_with("warning: competitors differ"),
            "{text}"
        );
        assert!(lines[2].starts_with("  backend"), "{}", lines[2]);
        assert!(
            lines[2].contains("×best") && lines[2].contains("cpu×") && lines[2].contains("par")
        );
        assert!(
            lines[3].contains("ipc ")
                && lines[3].contains("12.3 ms ")
                && lines[3].contains("1.00×")
        );
        assert!(
            lines[4].contains("parquet!")
                && lines[4].contains("16.7 ms*")
                && lines[4].contains("1.36× [1.30–1.41]")
                && lines[4].contains("0.87×")
                && lines[4].contains("1.00")
        );
        assert!(
            lines[5].contains("csv") && lines[5].contains("failed: worker crashed: <signal 11>")
        );
        assert_eq!(
            lines[6],
            "  ! parquet/zstd: cache state missed: 40 % resident"
        );
        assert_eq!(lines.len(), 7);
        let scan = block(&text, "mixed-100000x61 · scan · cache warm · threads 2");
        assert!(scan[2].contains("1.24 s") && scan[2].contains("11.8 MiB"));
        assert!(
            scan[3].contains("feather") && scan[3].contains("unsupported: scan is not supported")
        );
        assert!(text.contains("* noisy: IQR > 0.5 × median"));
        assert!(text.contains("×best = paired per-round ratio to the fastest"));
    }

    #[test]
    fn untrusted_ratio_and_its_flag() {
        let text = render(&fixture());
        let lines = block(&text, "mixed-100000x61 · write · threads 1");
        assert!(
            lines[3].starts_with("  npy!") && lines[3].contains(" — "),
            "{text}"
        );
        assert!(lines[4].starts_with("  ! npy/default: median below 100× the clock resolution"));
    }

    #[test]
    fn residency_columns_only_for_cold_or_missed_cache() {
        let text = render(&fixture());
        let cold = block(&text, "mixed-100000x61 · read · cache cold · threads 2");
        assert_eq!(cold[1], NO_CLEAR_WINNER);
        assert!(
            cold[2].contains("resident") && cold[2].contains("read"),
            "{text}"
        );
        assert!(cold[4].contains("2 %") && cold[4].contains("1.02× [0.97–1.08]"));
        let missed = block(&text, "mixed-100000x61 · read · cache warm · threads 2");
        assert!(missed[2].contains("resident") && missed[4].contains("40 %"));
        let scan = block(&text, "mixed-100000x61 · scan · cache warm · threads 2");
        assert!(
            !scan[1].contains("resident") && !scan[1].contains("read"),
            "{text}"
        );
    }

    #[test]
    fn summary_across_operations_comes_last_sorted_by_ratio() {
        let text = render(&fixture());
        let (tables, summary) = text
            .split_once("Summary across operations\n")
            .unwrap_or_default();
        assert!(tables.contains("· scan ·"));
        let warm = block(
            summary,
            "mixed-100000x61 · cache warm · threads 2 (read, scan)",
        );
        assert!(
            warm[1].contains("geomean") && warm[1].contains("ops"),
            "{summary}"
        );
        assert!(
            warm[2].starts_with("  ipc") && warm[2].ends_with("1.00×  1 of 2"),
            "{summary}"
        );
        assert!(warm[3].starts_with("  parquet") && warm[3].ends_with("1.17×       2"));
        assert!(summary.contains("mixed-100000x61 · threads 1 (write)"));
    }

    #[test]
    fn columns_line_up() {
        let text = render(&fixture());
        let lines = block(&text, "mixed-100000x61 · read · cache warm · threads 2");
        // Every ok row ends at the same column: the right-aligned peak memory.
        let ends: Vec<usize> = [2, 3, 4].iter().map(|&i| width(&lines[i])).collect();
        assert!(ends.iter().all(|&e| e == ends[0]), "{text}");
        let col = |line: &str, needle: &str| line.find(needle).map(|b| width(&line[..b]));
        assert_eq!(
            col(&lines[3], "1.00×").map(|c| c + width("1.00×")),
            col(&lines[4], "1.36× [1.30–1.41]").map(|c| c + width("1.36× [1.30–1.41]"))
        );
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn long_reasons_are_cut() {
        let mut summary = fixture();
        summary.groups[1].cells[2].reason = Some("x".repeat(500));
        let text = render(&summary);
        let lines = block(&text, "mixed-100000x61 · read · cache warm · threads 2");
        assert!(
            lines[5].ends_with('…') && width(&lines[5]) < 120,
            "{}",
            lines[5]
        );
    }

    #[test]
    fn empty_summary() {
        assert_eq!(render(&RunSummary::default()), "No results to show.\n");
    }
}
