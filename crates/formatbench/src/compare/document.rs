//! A comparison as a document ([`crate::document`]): what differs between the environments,
//! the counts and the rule, the before/after chart (each cell's NEW ÷ BASE with its interval
//! on a log scale, BASE at 1, the no-change band shaded), one row per cell and the artifacts
//! whose size changed. The terminal and the page list everything; the Markdown export is short
//! enough to paste into an issue: a comparison of more than [`ROWS`] cells lists only the cells
//! that changed (at most [`ROWS`]) and counts the rest.

use super::model::{interval_text, Comparison, Verdict};
use super::rows::{listing, short};
use crate::document::{
    Block, Cell, Chart, Column, Document, IntervalChart, IntervalRow, Row, Span, Table, Text, Tone,
};
use crate::units::bytes;

/// Table rows at most in the Markdown export.
pub const ROWS: usize = 40;

/// Differences the Markdown export names; the rest are counted (the JSON export has them all).
const DIFFERENCES: usize = 6;

/// Size changes named; the rest are counted.
const SIZES: usize = 4;

/// How much a medium shows: everything (a terminal, the page) or what fits in an issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Full,
    Short,
}

pub fn terminal(cmp: &Comparison) -> String {
    crate::document::terminal(&document(cmp, Detail::Full))
}

pub fn markdown(cmp: &Comparison) -> String {
    crate::document::markdown(&document(cmp, Detail::Short))
}

pub fn html(cmp: &Comparison) -> String {
    crate::document::html(&document(cmp, Detail::Full))
}

fn tone(v: Verdict) -> Tone {
    match v {
        Verdict::Slower | Verdict::FailedInNew => Tone::Worse,
        Verdict::Faster | Verdict::FixedInNew => Tone::Better,
        Verdict::Inconclusive => Tone::Unsure,
        _ => Tone::Muted,
    }
}

pub fn document(cmp: &Comparison, detail: Detail) -> Document {
    let mut blocks = vec![
        Block::Text(side_line("BASE ", &cmp.base.run_id, &cmp.base.dir)),
        Block::Text(side_line("NEW  ", &cmp.new.run_id, &cmp.new.dir)),
        Block::Text(Text::muted(format!("Rule: {}.", cmp.rule_text()))),
    ];
    blocks.extend(differences(cmp, detail));
    blocks.push(Block::Heading("Before and after".into()));
    blocks.push(Block::Chart(Chart::Intervals(chart(cmp))));
    let limit = match detail {
        Detail::Full => usize::MAX,
        Detail::Short => ROWS,
    };
    let listing = listing(cmp, limit);
    if !listing.rows.is_empty() {
        blocks.push(Block::Heading("Cells".into()));
        let columns = vec![
            Column::left("cell"),
            Column::right("base"),
            Column::right("new"),
            Column::right("NEW ÷ BASE [95 %]"),
            Column::right("peak mem"),
            // A narrow terminal leaves it out first: the times beside it say the same.
            Column {
                drop: Some(0),
                ..Column::right("throughput")
            },
            Column::left("verdict"),
        ];
        let rows = listing
            .rows
            .iter()
            .map(|r| {
                Row::from(vec![
                    Cell::text(&r.label),
                    Cell::text(&r.base),
                    Cell::text(&r.new),
                    Cell::figure(&r.ratio, r.estimate),
                    Cell::text(&r.memory),
                    Cell::text(&r.throughput),
                    Cell::text(&r.verdict_text).toned(tone(r.verdict)),
                ])
            })
            .collect();
        blocks.push(Block::Table(Table::new(columns, rows)));
    }
    let mut notes = Vec::new();
    if listing.unchanged_left_out > 0 {
        notes.push(format!(
            "{} cells with no change or inconclusive not listed (the counts above have each)",
            listing.unchanged_left_out
        ));
    }
    if listing.changed_left_out > 0 {
        notes.push(format!(
            "{} more changed cells not listed",
            listing.changed_left_out
        ));
    }
    if listing.not_measured > 0 {
        notes.push(format!(
            "{} cells measured in neither run",
            listing.not_measured
        ));
    }
    if !notes.is_empty() {
        blocks.push(Block::Text(Text::muted(format!(
            "{} (see the JSON export).",
            notes.join("; ")
        ))));
    }
    blocks.extend(sizes(cmp).map(|line| Block::Text(Text::plain(line))));
    Document {
        summary: Some(Text::strong(cmp.counts_text())),
        title: format!(
            "formatbench compare: {} → {}",
            cmp.base.run_id, cmp.new.run_id
        ),
        blocks,
    }
}

fn side_line(which: &str, run_id: &str, dir: &std::path::Path) -> Text {
    Text::plain(which)
        .then(Span::Code(run_id.to_string()))
        .then(Span::Muted(format!(" ({})", dir.display())))
}

/// What differs between the environments: every difference (the short form names a few and
/// counts the rest).
fn differences(cmp: &Comparison, detail: Detail) -> Vec<Block> {
    if cmp.differences.is_empty() {
        return vec![Block::Text(Text::muted(
            "Environments: no difference recorded.",
        ))];
    }
    let (named, width) = match detail {
        Detail::Full => (cmp.differences.len(), 160),
        Detail::Short => (DIFFERENCES, 90),
    };
    let mut items: Vec<Text> = cmp
        .differences
        .iter()
        .take(named)
        .map(|d| Text::plain(short(&d.text(), width)))
        .collect();
    let more = cmp.differences.len().saturating_sub(named);
    if more > 0 {
        items.push(Text::muted(format!("and {more} more")));
    }
    vec![
        Block::Heading("What differs between the environments".into()),
        Block::List(items),
    ]
}

/// Each compared cell's ratio as a dot with its interval as a whisker, on a log scale where
/// BASE is the line at 1 and the threshold band is shaded: a dot right of the band is slower.
fn chart(cmp: &Comparison) -> IntervalChart {
    let rows = cmp
        .cells
        .iter()
        .zip(cmp.labels())
        .filter_map(|(c, label)| {
            let r = c.ratio?;
            Some(IntervalRow {
                detail: format!("{} — {}", interval_text(Some(&r)), c.verdict.name()),
                label,
                estimate: r.estimate,
                lo: r.lo,
                hi: r.hi,
                tone: match c.verdict {
                    Verdict::Slower | Verdict::Faster | Verdict::Inconclusive => tone(c.verdict),
                    _ => Tone::Plain,
                },
            })
        })
        .collect();
    IntervalChart {
        title: "NEW ÷ BASE per cell".into(),
        axis: "← faster · NEW ÷ BASE (log scale) · slower →".into(),
        reference: 1.0,
        band: (1.0 / (1.0 + cmp.threshold), 1.0 + cmp.threshold),
        rows,
        empty: "— no cell ran in both runs.".into(),
    }
}

/// The artifacts whose size changed, a few named: `None` when the runs recorded no sizes.
fn sizes(cmp: &Comparison) -> Option<String> {
    let changed: Vec<_> = cmp.sizes.iter().filter(|s| s.changed()).collect();
    if cmp.sizes.is_empty() {
        return None;
    }
    if changed.is_empty() {
        return Some(format!(
            "Sizes: all {} artifacts identical.",
            cmp.sizes.len()
        ));
    }
    let text = |n: Option<u64>| n.map_or_else(|| "—".to_string(), bytes);
    let named: Vec<String> = changed
        .iter()
        .take(SIZES)
        .map(|s| {
            let change = match (s.base, s.new) {
                (Some(b), Some(n)) if b > 0 => {
                    format!(" ({:+.1} %)", (n as f64 / b as f64 - 1.0) * 100.0)
                }
                _ => String::new(),
            };
            format!("{} {} → {}{change}", s.label(), text(s.base), text(s.new))
        })
        .collect();
    let more = changed.len().saturating_sub(SIZES);
    let more = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    Some(format!(
        "Sizes: {} of {} artifacts changed: {}{more}.",
        changed.len(),
        cmp.sizes.len(),
        named.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::model::{CellComparison, RunSide, Side};
    use crate::results::SampleStatus;
    use crate::stats::{CallMode, RatioInterval, RunSummary};

    fn comparison(cells: usize, verdict: impl Fn(usize) -> Verdict) -> Comparison {
        let side = || RunSide {
            dir: "runs/x".into(),
            run_id: "x".into(),
            summary: RunSummary::default(),
        };
        let ran = Side {
            status: SampleStatus::Ok,
            reason: None,
            samples: 8,
            median_s: Some(0.01),
            peak_rss_bytes: Some(1 << 20),
            size_bytes: Some(1 << 20),
            throughput: None,
        };
        Comparison {
            base: side(),
            new: side(),
            threshold: 0.05,
            call: CallMode::Warm,
            differences: Vec::new(),
            cells: (0..cells)
                .map(|i| CellComparison {
                    cell: crate::stats::fixtures::key(&format!("b{i}")),
                    verdict: verdict(i),
                    note: None,
                    base: Some(ran.clone()),
                    new: Some(ran.clone()),
                    ratio: Some(RatioInterval {
                        estimate: 1.0,
                        lo: 0.9,
                        hi: 1.1,
                        rounds: 8,
                    }),
                    p_value: None,
                    memory: None,
                })
                .collect(),
            sizes: Vec::new(),
        }
    }

    #[test]
    fn a_big_suite_lists_only_its_changes_under_60_lines() {
        // More cells than the default suite has (11 competitors × 6 operations), all changed.
        let all_slower = markdown(&comparison(80, |_| Verdict::Slower));
        assert!(all_slower.lines().count() < 60, "{all_slower}");
        assert!(all_slower.contains("40 more changed cells not listed"));
        // Mostly unchanged: the changes are listed, the rest counted.
        let few = markdown(&comparison(66, |i| {
            if i % 20 == 0 {
                Verdict::Slower
            } else {
                Verdict::NoChange
            }
        }));
        assert!(
            few.contains("62 cells with no change or inconclusive not listed"),
            "{few}"
        );
        assert_eq!(few.matches("| slower |").count(), 4);
        // A small comparison lists every cell.
        let small = markdown(&comparison(5, |_| Verdict::NoChange));
        assert_eq!(small.matches("| no change |").count(), 5);
    }

    #[test]
    fn every_medium_shows_the_same_cells_with_the_same_numbers() {
        let cmp = comparison(5, |i| {
            if i == 0 {
                Verdict::Slower
            } else {
                Verdict::NoChange
            }
        });
        let doc = document(&cmp, Detail::Full);
        let Some(table) = doc.blocks.iter().find_map(|b| match b {
            Block::Table(t) => Some(t),
            _ => None,
        }) else {
            panic!("the comparison has a table");
        };
        assert_eq!(table.rows.len(), 5);
        let (text, md, page) = (terminal(&cmp), markdown(&cmp), html(&cmp));
        for row in &table.rows {
            for cell in &row.cells {
                let escaped = crate::document::html_escape(&cell.text);
                assert!(text.contains(&cell.text), "terminal lacks {:?}", cell.text);
                assert!(
                    md.contains(&crate::document::markdown_escape(&cell.text)),
                    "{md}"
                );
                assert!(page.contains(&escaped), "the page lacks {escaped:?}");
            }
        }
        assert!(page.contains("<svg") && !page.contains("<script"));
        for medium in [&text, &md, &page] {
            assert!(medium.contains("1 slower"), "{medium}");
        }
    }
}
