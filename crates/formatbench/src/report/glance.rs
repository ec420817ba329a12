//! The answer first: per operation the fastest format, how decisive its lead is, the smallest
//! format, and the references (the memory-copy floor) beside them, never among them. The HTML
//! and Markdown reports open with this table.

use super::format::{self, DASH};
use super::rows::ratio_text;
use super::{group_title, is_reference, ran, runner_up, winner};
use crate::stats::{CellSummary, OpGroup, RunSummary};

/// One operation's answer, as text cells.
pub(super) struct Answer {
    pub operation: String,
    pub fastest: String,
    pub median: String,
    pub runner_up: String,
    pub smallest: String,
    pub reference: String,
    pub notes: String,
}

pub(super) const HEADERS: [(&str, bool); 7] = [
    ("Operation", false),
    ("Fastest", false),
    ("Median", true),
    ("Runner-up [95 % CI]", true),
    ("Smallest", false),
    ("Reference", false),
    ("Note", false),
];

pub(super) const LEGEND: &str = "Fastest: the format with the lowest median (a reference is \
     never one); runner-up: the second-fastest format's paired ratio to it with its 95 % t \
     interval (no clear winner: that interval includes 1); smallest: the format's files on disk; \
     reference: what copying the data in memory takes, the floor no format goes below.";

fn name(c: &CellSummary) -> String {
    let mut text = format!("{}/{}", c.cell.backend, c.cell.shown_profile());
    if c.cell.layout != "wide" {
        text.push_str(&format!(" ({})", c.cell.layout));
    }
    text
}

fn median(c: &CellSummary) -> String {
    c.wall
        .map_or_else(|| DASH.to_string(), |w| format::duration(w.median))
}

/// The answers as the document model's table, which the Markdown and HTML reports draw.
pub(super) fn table(summary: &RunSummary) -> crate::document::Table {
    use crate::document::{Cell, Column};
    let columns = HEADERS
        .iter()
        .map(|(name, right)| match right {
            true => Column::right(*name),
            false => Column::left(*name),
        })
        .collect();
    let rows = answers(summary)
        .iter()
        .map(|a| a.cells().iter().map(|c| Cell::text(*c)).collect())
        .collect();
    crate::document::Table::new(columns, rows)
}

pub(super) fn answers(summary: &RunSummary) -> Vec<Answer> {
    summary.groups.iter().map(answer).collect()
}

fn answer(group: &OpGroup) -> Answer {
    let best = winner(group).and_then(|i| group.cells.get(i));
    let smallest = group
        .cells
        .iter()
        .filter(|c| ran(c) && !is_reference(c))
        .filter_map(|c| Some((c, c.size_bytes?)))
        .min_by_key(|(_, size)| *size)
        .map_or_else(
            || DASH.to_string(),
            |(c, size)| format!("{} ({})", name(c), format::bytes(size)),
        );
    let reference = group
        .cells
        .iter()
        .filter(|c| ran(c) && is_reference(c))
        .map(|c| format!("{} {}", c.cell.backend, median(c)))
        .collect::<Vec<_>>();
    let mut notes = Vec::new();
    if best.is_none() {
        notes.push("nothing ran".to_string());
    }
    if group.no_clear_winner {
        notes.push("no clear winner".to_string());
    }
    let noisy: Vec<String> = group
        .cells
        .iter()
        .filter(|c| c.wall.is_some_and(|w| w.noisy()))
        .map(name)
        .collect();
    if !noisy.is_empty() {
        notes.push(format!("noisy*: {}", noisy.join(", ")));
    }
    Answer {
        operation: group_title(group),
        fastest: best.map_or_else(|| DASH.to_string(), name),
        median: best.map_or_else(|| DASH.to_string(), median),
        runner_up: runner_up(group).map_or_else(|| DASH.to_string(), |c| ratio_text(c, false)),
        smallest,
        reference: if reference.is_empty() {
            DASH.to_string()
        } else {
            reference.join(", ")
        },
        notes: notes.join("; "),
    }
}

impl Answer {
    pub(super) fn cells(&self) -> [&str; 7] {
        [
            &self.operation,
            &self.fastest,
            &self.median,
            &self.runner_up,
            &self.smallest,
            &self.reference,
            &self.notes,
        ]
    }
}
