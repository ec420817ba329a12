//! The plain-text summary printed after a run. No colours: the output is as often piped into a
//! file or a CI log as read on a terminal. It fits the terminal's width: the least telling
//! columns are left out first (and named below the table), and a warning that several groups
//! share is printed once.

use super::format::truncate;
use super::overall::{geo_tables, GeoTable, LEGEND_GEOMEAN};
use super::rows::{flag_list, rows, shows_requested, shows_residency, Field, Row};
use super::{
    group_notes, group_title, LEGEND_BYTES, LEGEND_CPU, LEGEND_FLAG, LEGEND_NOISY, LEGEND_PAR,
    LEGEND_RATIO, SHORT_REASON,
};
use crate::results::SampleStatus;
use crate::stats::{OpGroup, RunSummary};

/// Columns from this index on hold numbers and are right-aligned.
const FIRST_NUMBER: usize = 2;
const INDENT: &str = "  ";
const GAP: &str = "  ";
/// The width when stdout is not a terminal (a pipe, a file, a CI log) and `COLUMNS` is unset.
pub const DEFAULT_COLUMNS: usize = 100;
/// The optional columns, the first left out first when a table is too wide.
const DROP_ORDER: [&str; 8] = [
    "B/value",
    "par",
    "read",
    "resident",
    "cpu×",
    "peak mem",
    "min–max",
    "size",
];

/// The terminal's width: stdout's window size when it is a terminal, else `COLUMNS`, else
/// [`DEFAULT_COLUMNS`].
pub fn columns() -> usize {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ only writes the winsize it is given.
    let got = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
    if got == 0 && size.ws_col > 0 {
        return usize::from(size.ws_col);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c: &usize| c > 0)
        .unwrap_or(DEFAULT_COLUMNS)
}

pub fn render(summary: &RunSummary, columns: usize) -> String {
    let mut out = String::new();
    if summary.groups.is_empty() {
        out.push_str("No results to show.\n");
        return out;
    }
    let mut noted = std::collections::BTreeSet::new();
    for group in &summary.groups {
        out.push_str(&group_title(group));
        out.push('\n');
        for note in group_notes(group) {
            // The same warning (the machine's, say) would repeat under every group.
            if !note.starts_with("warning:") || noted.insert(note.clone()) {
                out.push_str(&note);
                out.push('\n');
            }
        }
        let rows = rows(group, &summary.artifacts);
        let selective = crate::stats::full_op(&group.op).is_some();
        out.push_str(&table(&rows, &fields(group), columns, selective));
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
    out.push_str(&super::row_groups::terminal(summary));
    if !summary.groups.is_empty() {
        out.push_str(&format!("times = {}\n", summary.call.describe()));
    }
    out.push_str(&format!(
        "* {LEGEND_NOISY}   ! {LEGEND_FLAG}\n\
         ×best = {LEGEND_RATIO}\n\
         cpu× = {LEGEND_CPU}   par = {LEGEND_PAR}\n"
    ));
    if summary
        .groups
        .iter()
        .any(|g| shows_residency(g) || shows_requested(g))
    {
        out.push_str(&format!("read = {LEGEND_BYTES}\n"));
    }
    if !tables.is_empty() {
        out.push_str(&format!("summary = {LEGEND_GEOMEAN}\n"));
    }
    if let Some(text) = super::recommendation(summary) {
        out.push_str(&format!("\nRecommendation: {text}\n"));
    }
    wrap_long_lines(&out, columns)
}

/// Prose lines (warnings, legends, the recommendation) wider than `columns`, wrapped at
/// spaces with a hanging indent; tables were fitted before and pass unchanged when they fit.
fn wrap_long_lines(text: &str, columns: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if width(line) <= columns {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let hanging = " ".repeat(lead + 2);
        let mut current = line[..lead].to_string();
        let mut empty = true;
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            if !empty && width(&current) + 1 + width(word) > columns {
                out.push_str(&current);
                out.push('\n');
                current = hanging.clone();
                empty = true;
            }
            if !empty {
                current.push(' ');
            }
            current.push_str(word);
            empty = false;
        }
        out.push_str(&current);
        out.push('\n');
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
    } else if shows_requested(group) {
        // A warm read fetches nothing from storage: what it asked for shows its selectivity.
        fields.push(("asked", Field::Requested));
    }
    fields.extend([
        ("size", Field::Size),
        ("B/value", Field::PerValue),
        ("peak mem", Field::Peak),
    ]);
    fields
}

/// Columns a text takes on a terminal (wide characters two, combining marks none).
fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
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

/// The table at most `columns` wide where leaving out optional columns can make it so. A
/// `selective` operation's bytes (beside a full read's) are what its table is for: they go last.
fn table(
    rows: &[Row<'_>],
    fields: &[(&'static str, Field)],
    columns: usize,
    selective: bool,
) -> String {
    let mut kept = fields.to_vec();
    let mut left_out = Vec::new();
    let mut text = full_table(rows, &kept, columns);
    let order = DROP_ORDER
        .iter()
        .copied()
        .filter(|name| !(selective && *name == "read"))
        .chain(selective.then_some("read"));
    for name in order {
        if widest(&text) <= columns {
            break;
        }
        if let Some(at) = kept.iter().position(|(h, _)| *h == name) {
            kept.remove(at);
            left_out.push(name);
            text = full_table(rows, &kept, columns);
        }
    }
    if !left_out.is_empty() {
        text.push_str(&format!(
            "{INDENT}(left out to fit {columns} columns: {}; report.md has every column)\n",
            left_out.join(", ")
        ));
    }
    text
}

fn widest(text: &str) -> usize {
    text.lines().map(width).max().unwrap_or(0)
}

fn full_table(rows: &[Row<'_>], fields: &[(&'static str, Field)], columns: usize) -> String {
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
                    // The reason takes what the line has left, never less than a short one.
                    let used = width(INDENT) + widths[0] + widths[1] + 2 * width(GAP);
                    let room = columns
                        .saturating_sub(used + width(&note) + 2)
                        .clamp(40, SHORT_REASON);
                    note = format!("{note}: {}", truncate(&row.reason, room));
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

    /// Wide enough that no column is left out.
    const WIDE: usize = 1_000;

    #[test]
    fn tables_fit_the_width_by_leaving_out_the_least_telling_columns() {
        let wide = render(&fixture(), WIDE);
        assert!(!wide.contains("left out to fit"));
        let text = render(&fixture(), DEFAULT_COLUMNS);
        for line in text.lines() {
            assert!(
                width(line) <= DEFAULT_COLUMNS,
                "{} wide: {line}",
                width(line)
            );
        }
        assert!(widest(&wide) > DEFAULT_COLUMNS, "the fixture needs fitting");
        let note = text
            .lines()
            .find(|l| l.contains("left out to fit 100 columns"))
            .unwrap();
        assert!(note.contains("B/value"), "{note}");
        // What tells the answer stays.
        for kept in ["backend", "median", "×best"] {
            assert!(text.contains(kept), "{kept}");
        }
    }

    #[test]
    fn long_prose_lines_wrap_at_spaces_with_a_hanging_indent() {
        let text = wrap_long_lines("  ! one two three four five\nshort\n", 14);
        assert_eq!(text, "  ! one two\n    three four\n    five\nshort\n");
    }

    #[test]
    fn a_warning_several_groups_share_is_printed_once() {
        let mut summary = fixture();
        for group in &mut summary.groups {
            group.warnings.push("the machine has one core".into());
        }
        assert!(summary.groups.len() > 1);
        let text = render(&summary, WIDE);
        assert_eq!(text.matches("warning: the machine has one core").count(), 1);
    }

    #[test]
    fn columns_are_padded_by_display_width() {
        // A wide (CJK) name takes two columns a character, a combining accent none.
        assert_eq!(width("数据"), 4);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("1.36× [1.30–1.41]"), 17);
        assert_eq!(width(&pad("数据", 6, false)), 6);
    }

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
        let text = render(&fixture(), WIDE);
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
        let text = render(&fixture(), WIDE);
        let lines = block(&text, "mixed-100000x61 · write · threads 1");
        assert!(
            lines[3].starts_with("  npy!") && lines[3].contains(" — "),
            "{text}"
        );
        assert!(lines[4].starts_with("  ! npy/default: median below 100× the clock resolution"));
    }

    #[test]
    fn residency_columns_only_for_cold_or_missed_cache() {
        let text = render(&fixture(), WIDE);
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
        let text = render(&fixture(), WIDE);
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
        let text = render(&fixture(), WIDE);
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
        let text = render(&summary, WIDE);
        let lines = block(&text, "mixed-100000x61 · read · cache warm · threads 2");
        assert!(
            lines[5].ends_with('…') && width(&lines[5]) < 120,
            "{}",
            lines[5]
        );
    }

    #[test]
    fn empty_summary() {
        assert_eq!(
            render(&RunSummary::default(), WIDE),
            "No results to show.\n"
        );
    }
}
