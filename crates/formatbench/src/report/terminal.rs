//! The plain-text summary printed after a run. No colours: the output is as often piped into a
//! file or a CI log as read on a terminal.

use super::format::truncate;
use super::{group_title, rows, Row, LEGEND_NOISY, LEGEND_RATIO, SHORT_REASON};
use crate::results::SampleStatus;
use crate::stats::RunSummary;

const HEADERS: [&str; 8] = [
    "backend",
    "profile",
    "median",
    "min–max",
    "×best",
    "size",
    "B/value",
    "peak mem",
];
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
        out.push_str(&table(&rows(group)));
        out.push('\n');
    }
    out.push_str(&format!("* {LEGEND_NOISY}   ×best = {LEGEND_RATIO}\n"));
    out
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
fn cells(row: &Row<'_>) -> [String; 8] {
    let mark = if row.noisy { "*" } else { " " };
    [
        row.backend.to_string(),
        row.profile.clone(),
        format!("{}{mark}", row.median),
        row.range.clone(),
        row.ratio.clone(),
        row.size.clone(),
        row.per_value.clone(),
        row.peak.clone(),
    ]
}

fn table(rows: &[Row<'_>]) -> String {
    let texts: Vec<Option<[String; 8]>> = rows
        .iter()
        .map(|r| (r.status == SampleStatus::Ok).then(|| cells(r)))
        .collect();
    let mut widths: Vec<usize> = HEADERS.iter().map(|h| width(h)).collect();
    // The median's header sits over the digits, not over the noisy mark.
    widths[FIRST_NUMBER] += 1;
    for (row, text) in rows.iter().zip(&texts) {
        widths[0] = widths[0].max(width(row.backend));
        widths[1] = widths[1].max(width(&row.profile));
        for (w, t) in widths.iter_mut().zip(text.iter().flatten()) {
            *w = (*w).max(width(t));
        }
    }
    let mut out = String::new();
    let header: Vec<String> = HEADERS
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
                    pad(row.backend, widths[0], false),
                    pad(&row.profile, widths[1], false),
                    note,
                ]
            }
        };
        push_line(&mut out, &line);
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
    use super::super::tests::fixture;
    use super::*;

    #[test]
    fn rows_come_in_order_with_medians_and_ratios() {
        let text = render(&fixture());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "mixed-100000x61 · read · threads 2");
        assert!(lines[1].starts_with("  backend"), "{}", lines[1]);
        assert!(
            lines[2].contains("ipc") && lines[2].contains("12.3 ms ") && lines[2].contains("1.00×")
        );
        assert!(
            lines[3].contains("parquet")
                && lines[3].contains("45.6 ms*")
                && lines[3].contains("3.7×")
        );
        assert!(
            lines[4].contains("csv") && lines[4].contains("failed: worker crashed: <signal 11>")
        );
        assert_eq!(lines[5], "");
        assert_eq!(lines[6], "mixed-100000x61 · scan · threads 1");
        assert!(lines[8].contains("1.24 s") && lines[8].contains("11.8 MiB"));
        assert!(
            lines[9].contains("feather") && lines[9].contains("unsupported: scan is not supported")
        );
        assert!(text.ends_with("×best = median ÷ fastest median\n"));
        assert!(text.contains("* noisy: IQR > 0.5 × median"));
    }

    #[test]
    fn columns_line_up() {
        let text = render(&fixture());
        let lines: Vec<&str> = text.lines().collect();
        // Every ok row ends at the same column: the right-aligned peak memory.
        let ends: Vec<usize> = [1, 2, 3].iter().map(|&i| width(lines[i])).collect();
        assert!(ends.iter().all(|&e| e == ends[0]), "{text}");
        let col = |line: &str, needle: &str| line.find(needle).map(|b| width(&line[..b]));
        assert_eq!(
            col(lines[2], "1.00×").map(|c| c + 5),
            col(lines[3], "3.7×").map(|c| c + 4)
        );
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn long_reasons_are_cut() {
        let mut summary = fixture();
        summary.groups[0].cells[2].reason = Some("x".repeat(500));
        let text = render(&summary);
        let line = text.lines().nth(4).unwrap_or_default();
        assert!(line.ends_with('…') && width(line) < 120, "{line}");
    }

    #[test]
    fn empty_summary() {
        assert_eq!(render(&RunSummary::default()), "No results to show.\n");
    }
}
