//! The summary printed after a run, as a [`Document`] for the terminal's fitted form: each
//! operation's table with the columns that tell the answer (the least telling are marked for
//! leaving out on a narrow terminal), a warning several groups share once, the summary across
//! operations, the cold-cache and row-group tables, the legends, and the recommendation last.

use super::overall::{geo_tables, LEGEND_GEOMEAN};
use super::rows::{flag_list, rows, shows_requested, shows_residency, Field, Row as Formatted};
use super::{
    group_notes, group_title, LEGEND_BYTES, LEGEND_CPU, LEGEND_FLAG, LEGEND_NOISY, LEGEND_PAR,
    LEGEND_RATIO,
};
use crate::document::{
    Block, Cell, CellKind, Column, Document, Para, Role, Row, Span, Table, Text,
};
use crate::results::SampleStatus;
use crate::stats::{OpGroup, RunSummary};
use std::collections::BTreeSet;

/// The optional columns, the first left out first when a table is too wide.
const DROP_ORDER: [&str; 9] = [
    "B/value",
    "rate",
    "par",
    "read",
    "resident",
    "cpu×",
    "peak mem",
    "min–max",
    "size",
];

pub(super) fn document(summary: &RunSummary) -> Document {
    let mut doc = Document {
        title: "formatbench summary".to_string(),
        ..Document::default()
    };
    let blocks = &mut doc.blocks;
    if summary.groups.is_empty() {
        blocks.push(line("No results to show."));
        return doc;
    }
    if let Some(warning) = summary.load.warning() {
        blocks.push(line(format!("warning: {warning}")));
    }
    let mut noted = BTreeSet::new();
    for group in &summary.groups {
        blocks.push(Block::Subheading(group_title(group)));
        for note in group_notes(group) {
            // The same warning (the machine's, say) would repeat under every group.
            if !note.starts_with("warning:") || noted.insert(note.clone()) {
                blocks.push(line(note));
            }
        }
        let formatted = rows(group, &summary.artifacts);
        blocks.push(Block::Table(table(group, &formatted)));
        let flags: Vec<Text> = flag_list(&formatted)
            .into_iter()
            .map(|(label, flag)| Text::plain(format!("! {label}: {flag}")))
            .collect();
        if !flags.is_empty() {
            blocks.push(Block::Remarks(flags));
        }
    }
    let tables = geo_tables(summary);
    if !tables.is_empty() {
        blocks.push(Block::Heading("Summary across operations".to_string()));
        for t in &tables {
            blocks.push(Block::Subheading(t.heading()));
            blocks.push(Block::Table(
                t.document(["backend", "profile", "geomean", "ops"]),
            ));
        }
    }
    blocks.extend(super::cache::summary_blocks(summary));
    blocks.extend(super::row_groups::summary_blocks(summary));
    blocks.push(line(format!("times = {}", summary.call.describe())));
    blocks.push(line(format!("* {LEGEND_NOISY}   ! {LEGEND_FLAG}")));
    blocks.push(line(format!("×best = {LEGEND_RATIO}")));
    blocks.push(line(format!("cpu× = {LEGEND_CPU}   par = {LEGEND_PAR}")));
    if summary
        .groups
        .iter()
        .any(|g| shows_residency(g) || shows_requested(g))
    {
        blocks.push(line(format!("read = {LEGEND_BYTES}")));
    }
    if !tables.is_empty() {
        blocks.push(line(format!("summary = {LEGEND_GEOMEAN}")));
    }
    doc.summary =
        super::recommendation(summary).map(|t| Text::plain(format!("Recommendation: {t}")));
    doc
}

/// The compact report `--export-markdown` writes, to paste into an issue or a PR: the answer,
/// then per operation a table of what decides (median, ×best with its interval, size, peak
/// memory), and each competitor's settings once, as a note under the tables.
pub(super) fn compact(summary: &RunSummary) -> Document {
    let mut doc = Document {
        title: "formatbench results".to_string(),
        summary: super::recommendation(summary)
            .map(|t| Text::strong("Recommendation:").then(Span::Plain(format!(" {t}")))),
        ..Document::default()
    };
    let blocks = &mut doc.blocks;
    if summary.groups.is_empty() {
        blocks.push(line("No results were recorded."));
        return doc;
    }
    blocks.push(line(format!("Times are {}.", summary.call.describe())));
    if let Some(warning) = summary.load.warning() {
        blocks.push(line(format!("Warning: {warning}.")));
    }
    const FIELDS: [(&str, Field); 3] = [
        ("×best [95 % CI]", Field::Ratio),
        ("size", Field::Size),
        ("peak mem", Field::Peak),
    ];
    let mut settings: Vec<(String, String)> = Vec::new();
    for group in &summary.groups {
        blocks.push(Block::Subheading(group_title(group)));
        let formatted = rows(group, &summary.artifacts);
        blocks.push(Block::Table(fields_table(&formatted, &FIELDS, &[])));
        for r in &formatted {
            let said = (r.label(), r.text(Field::Settings).to_string());
            if !settings.contains(&said) && said.1 != crate::units::DASH {
                settings.push(said);
            }
        }
    }
    if !settings.is_empty() {
        blocks.push(Block::Heading("Settings".to_string()));
        let items = settings
            .into_iter()
            .map(|(label, text)| Text::plain(format!("{label}: {text}")));
        blocks.push(Block::List(items.collect()));
    }
    doc
}

fn line(text: impl Into<String>) -> Block {
    Block::Para(Para::new(Role::Plain, Text::plain(text)))
}

/// The columns after backend, profile and median. Warm tables stay narrow: residency and
/// bytes read only show where the cache state matters.
fn fields(group: &OpGroup) -> Vec<(&'static str, Field)> {
    let mut fields = vec![
        ("min–max", Field::Range),
        ("rate", Field::Rate),
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

/// One group's table. A selective operation's bytes (beside a full read's) are what its table
/// is for: they are left out last.
fn table(group: &OpGroup, formatted: &[Formatted<'_>]) -> Table {
    let selective = crate::stats::full_op(&group.op).is_some();
    let order: Vec<&str> = DROP_ORDER
        .iter()
        .copied()
        .filter(|name| !(selective && *name == "read"))
        .chain(selective.then_some("read"))
        .collect();
    fields_table(formatted, &fields(group), &order)
}

/// Backend, profile, median, then `fields`; those named in `drop_order` may be left out by a
/// narrow terminal, the first first.
fn fields_table(
    formatted: &[Formatted<'_>],
    fields: &[(&'static str, Field)],
    drop_order: &[&str],
) -> Table {
    let mut columns = vec![
        Column::left("backend"),
        Column::left("profile"),
        Column::right("median"),
    ];
    columns.extend(fields.iter().map(|(header, _)| {
        Column {
            drop: drop_order
                .iter()
                .position(|name| name == header)
                .and_then(|rank| u8::try_from(rank).ok()),
            ..Column::right(*header)
        }
    }));
    let rows = formatted
        .iter()
        .map(|r| {
            let mut cells = vec![
                Cell::text(r.backend).flagged(!r.flags.is_empty()),
                Cell::text(&r.profile),
            ];
            if r.status == SampleStatus::Ok {
                cells.push(Cell::of_kind(&r.median, CellKind::Time { noisy: r.noisy }));
                cells.extend(fields.iter().map(|(_, f)| Cell::text(r.text(*f))));
            } else {
                cells.push(Cell::of_kind(
                    r.status.name(),
                    CellKind::Status {
                        reason: r.reason.clone(),
                        span: 1 + fields.len(),
                    },
                ));
                // A medium that cannot span a status fills the rest with dashes.
                cells.extend(fields.iter().map(|_| Cell::text(crate::units::DASH)));
            }
            Row::from(cells)
        })
        .collect();
    Table::new(columns, rows)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::fixture;
    use super::super::NO_CLEAR_WINNER;
    use crate::stats::RunSummary;
    use unicode_width::UnicodeWidthStr;

    const DEFAULT_COLUMNS: usize = crate::document::DEFAULT_COLUMNS;

    fn render(summary: &RunSummary, columns: usize) -> String {
        super::super::terminal_at(summary, columns)
    }

    fn width(s: &str) -> usize {
        s.width()
    }

    fn widest(text: &str) -> usize {
        text.lines().map(width).max().unwrap_or(0)
    }

    /// The lines of one group's block, from its heading to the blank line after it.
    fn block(text: &str, heading: &str) -> Vec<String> {
        text.lines()
            .skip_while(|l| *l != heading)
            .take_while(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

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
    fn the_compact_markdown_pastes_into_an_issue() {
        let text = crate::report::compact_markdown(&fixture());
        assert!(
            text.starts_with("### formatbench results\n**Recommendation:**"),
            "{text}"
        );
        // No relative links, no HTML, and tables a review page shows without scrolling.
        assert!(!text.contains("](") && !text.contains('<'), "{text}");
        for row in text.lines().filter(|l| l.starts_with('|')) {
            assert!(
                row.chars().count() <= 120,
                "{} wide: {row}",
                row.chars().count()
            );
        }
        assert!(text.contains("| backend | profile | median | ×best [95 % CI] | size | peak mem |"));
        assert!(text.contains("| parquet! | zstd | 16.7 ms\\* | 1.36× [1.30–1.41] | 11.8 MiB |"));
        assert!(
            text.contains("| csv | default | **failed** | — | — | — |"),
            "{text}"
        );
        // Each competitor's settings once, under the tables.
        let settings = text.split("#### Settings").nth(1).unwrap_or_default();
        assert_eq!(
            settings
                .matches("- parquet/zstd: profile_settings=")
                .count(),
            1
        );
        assert!(crate::report::compact_markdown(&RunSummary::default())
            .contains("No results were recorded."));
    }

    #[test]
    fn empty_summary() {
        assert_eq!(
            render(&RunSummary::default(), WIDE),
            "No results to show.\n"
        );
    }
}
