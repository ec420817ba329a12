//! The rows every export shows, as text: one per cell, and which cells a short export lists.

use super::model::{interval_text, ratio_text, CellComparison, Comparison, Verdict};
use crate::units::DASH;

/// A cell as the tables show it.
pub struct Row {
    pub label: String,
    pub base: String,
    pub new: String,
    /// NEW ÷ BASE with its interval, and its estimate.
    pub ratio: String,
    pub estimate: Option<f64>,
    /// Peak memory NEW ÷ BASE, `↑`/`↓` when beyond the threshold by the same rule.
    pub memory: String,
    /// BASE's and NEW's throughput at their medians: "523 → 610 MB/s".
    pub throughput: String,
    pub verdict: Verdict,
    /// The verdict with its note: `no change (too few samples …)`.
    pub verdict_text: String,
}

fn memory_text(c: &CellComparison) -> String {
    match &c.memory {
        None => DASH.to_string(),
        Some(m) => {
            let mark = match m.verdict {
                Verdict::Slower => " ↑",
                Verdict::Faster => " ↓",
                _ => "",
            };
            format!("{}{mark}", ratio_text(m.ratio.estimate))
        }
    }
}

fn throughput_text(c: &CellComparison) -> String {
    let of = |side: &Option<super::model::Side>| {
        side.as_ref()
            .filter(|s| s.ran())
            .and_then(|s| s.throughput)
            .map(|t| t.headline())
    };
    match (of(&c.base), of(&c.new)) {
        (Some(base), Some(new)) => format!("{base} → {new}"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => DASH.to_string(),
    }
}

fn verdict_text(c: &CellComparison) -> String {
    match &c.note {
        Some(note) => format!("{} ({})", c.verdict.name(), short(note, 80)),
        None => c.verdict.name().to_string(),
    }
}

/// A note on one line, at most `max` characters ("…" marks a cut).
pub fn short(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return line;
    }
    let mut out: String = line.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Every cell's row, in the comparison's order.
pub fn rows(cmp: &Comparison) -> Vec<Row> {
    cmp.cells
        .iter()
        .zip(cmp.labels())
        .map(|(c, label)| Row {
            label,
            base: c
                .base
                .as_ref()
                .map_or_else(|| DASH.to_string(), |s| s.text()),
            new: c
                .new
                .as_ref()
                .map_or_else(|| DASH.to_string(), |s| s.text()),
            ratio: interval_text(c.ratio.as_ref()),
            estimate: c.ratio.map(|r| r.estimate),
            memory: memory_text(c),
            throughput: throughput_text(c),
            verdict: c.verdict,
            verdict_text: verdict_text(c),
        })
        .collect()
}

/// What a length-limited export lists.
pub struct Listing {
    pub rows: Vec<Row>,
    /// Cells with no change that were left out (the export says how many).
    pub unchanged_left_out: usize,
    /// Changed cells beyond the limit.
    pub changed_left_out: usize,
    /// Cells neither run measured, never listed.
    pub not_measured: usize,
}

/// At most `limit` rows: every measured cell when they fit, else only the changed ones (the
/// rest counted), so a comparison of a big suite stays short enough to paste into an issue.
pub fn listing(cmp: &Comparison, limit: usize) -> Listing {
    let all: Vec<Row> = rows(cmp)
        .into_iter()
        .filter(|r| r.verdict != Verdict::NotMeasured)
        .collect();
    let not_measured = cmp.cells.len() - all.len();
    if all.len() <= limit {
        return Listing {
            rows: all,
            unchanged_left_out: 0,
            changed_left_out: 0,
            not_measured,
        };
    }
    let (changed, unchanged): (Vec<Row>, Vec<Row>) =
        all.into_iter().partition(|r| r.verdict.is_change());
    let changed_left_out = changed.len().saturating_sub(limit);
    Listing {
        rows: changed.into_iter().take(limit).collect(),
        unchanged_left_out: unchanged.len(),
        changed_left_out,
        not_measured,
    }
}
