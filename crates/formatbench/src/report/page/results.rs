//! The per-operation result tables and the summary across operations, as document blocks.

use super::super::charts::Place;
use super::super::format::{truncate, DASH};
use super::super::overall::{geo_tables, LEGEND_GEOMEAN};
use super::super::rows::{detail_fields, flag_list, rows, Field, Row as Formatted};
use super::super::{
    group_notes, group_title, ran, winner, LEGEND_BYTES, LEGEND_CPU, LEGEND_FLAG, LEGEND_NOISY,
    LEGEND_PAR, LEGEND_RATIO, SHORT_REASON,
};
use super::{empty, para, section, Charts};
use crate::document::{Block, Cell, CellKind, Column, Para, Role, Row, Span, Table, Text};
use crate::results::SampleStatus;
use crate::stats::{CellSummary, OpGroup, RunSummary};

/// Fields a page may show together in one column each: first · warm calls, size · bytes per
/// value, and a cold read's residency · bytes read · read amplification.
const JOINED: [(&[Field], &str); 3] = [
    (&[Field::FirstCall, Field::WarmCall], "First · warm calls"),
    (&[Field::Size, Field::PerValue], "Size · B/value"),
    (
        &[Field::Resident, Field::Read, Field::Amplification],
        "Resident · read · amplification",
    ),
];

/// How each cell was done and what it wrote are long text: a page folds them under the table.
fn folded(field: Field) -> bool {
    matches!(field, Field::Method | Field::Settings)
}

/// The columns after backend, profile and median: each field, those of a [`JOINED`] run
/// marked joined where the whole run is there.
fn field_columns(fields: &[Field]) -> Vec<Column> {
    let mut columns: Vec<Column> = fields
        .iter()
        .map(|f| Column {
            folded: folded(*f),
            ..match f.right() {
                true => Column::right(f.name()),
                false => Column::left(f.name()),
            }
        })
        .collect();
    let mut i = 0;
    while i < fields.len() {
        match JOINED.iter().find(|(run, _)| fields[i..].starts_with(run)) {
            Some((run, header)) => {
                for column in &mut columns[i..i + run.len()] {
                    column.joined = Some(header);
                }
                i += run.len();
            }
            None => i += 1,
        }
    }
    columns
}

/// A cell that ran carries its identity for tools that read the page.
fn key(c: &CellSummary) -> Vec<(&'static str, String)> {
    if !ran(c) {
        return Vec::new();
    }
    let k = &c.cell;
    vec![
        ("backend", k.backend.clone()),
        ("profile", k.profile.clone()),
        ("op", k.op.clone()),
        ("cache", k.cache.clone()),
        ("threads", k.threads.to_string()),
        ("dataset", k.dataset.clone()),
    ]
}

fn row(r: &Formatted, c: &CellSummary, fields: &[Field], fastest: bool) -> Row {
    let mut cells = vec![
        Cell::text(r.backend).flagged(!r.flags.is_empty()),
        Cell::text(&r.profile),
    ];
    if r.status == SampleStatus::Ok {
        cells.push(Cell {
            value: c.wall.filter(|_| ran(c)).map(|w| w.median),
            ..Cell::of_kind(&r.median, CellKind::Time { noisy: r.noisy })
        });
        cells.extend(fields.iter().map(|f| {
            let kind = match f.right() {
                true => CellKind::Parts,
                false => CellKind::Long,
            };
            Cell::of_kind(r.text(*f), kind)
        }));
    } else {
        // The status stands for the median and every figure; the reason is whole under
        // "Not measured".
        let figures = fields.iter().filter(|f| !folded(**f)).count();
        cells.push(Cell::of_kind(
            r.status.name(),
            CellKind::Status {
                reason: truncate(&r.reason, SHORT_REASON),
                span: 1 + figures,
            },
        ));
        cells.extend(fields.iter().map(|f| match f {
            // What it would have read still shows.
            Field::Settings => Cell::of_kind(r.text(*f), CellKind::Long),
            _ => Cell::text(DASH),
        }));
    }
    Row {
        cells,
        key: key(c),
        badge: fastest.then_some("fastest"),
    }
}

fn table(group: &OpGroup, summary: &RunSummary) -> (Table, Vec<Text>) {
    let fields = detail_fields(group);
    let mut columns = vec![
        Column::left("Backend"),
        Column::left("Profile"),
        Column::right("Median"),
    ];
    columns.extend(field_columns(&fields));
    let best = winner(group);
    let formatted = rows(group, &summary.artifacts);
    let rows = formatted
        .iter()
        .zip(&group.cells)
        .enumerate()
        .map(|(i, (r, c))| row(r, c, &fields, Some(i) == best))
        .collect();
    let flags = flag_list(&formatted)
        .into_iter()
        .map(|(label, flag)| Text::plain(format!("! {label}: {flag}")))
        .collect();
    let table = Table {
        fold_title: Some("How each was done, and its settings"),
        ..Table::new(columns, rows)
    };
    (table, flags)
}

pub(super) fn results(blocks: &mut Vec<Block>, summary: &RunSummary, charts: &Charts) {
    section(blocks, "results", "Results");
    if summary.groups.is_empty() {
        return empty(blocks, "No results were recorded.");
    }
    let legend = Text::plain("Rows are fastest first. ")
        .then(Span::Code("*".into()))
        .then(Span::Plain(format!(" {LEGEND_NOISY}. ")))
        .then(Span::Code("!".into()))
        .then(Span::Plain(format!(
            " {LEGEND_FLAG}. Ratio = {LEGEND_RATIO}. CPU ratio = {LEGEND_CPU}. \
             Parallelism = {LEGEND_PAR}. Read bytes = {LEGEND_BYTES}. \
             Settings: the artifact’s fairness manifest."
        )));
    blocks.push(Block::Para(Para::new(Role::Legend, legend)));
    for (index, group) in summary.groups.iter().enumerate() {
        blocks.push(Block::Subheading(group_title(group)));
        for note in group_notes(group) {
            let role = match note.starts_with("warning: ") {
                true => Role::Warning,
                false => Role::Note,
            };
            blocks.push(para(role, note));
        }
        charts.place(blocks, &Place::Group(index));
        let (table, flags) = table(group, summary);
        blocks.push(Block::Table(table));
        if !flags.is_empty() {
            blocks.push(Block::Remarks(flags));
        }
    }
}

pub(super) fn overall(blocks: &mut Vec<Block>, summary: &RunSummary, charts: &Charts) {
    let tables = geo_tables(summary);
    if tables.is_empty() {
        return;
    }
    section(blocks, "overall", "Summary across operations");
    let mut legend = format!("Geomean ratio = {LEGEND_GEOMEAN}. Rows are best first.");
    // A chosen reference moves the heat maps, not the tables: say which figure is which.
    let reference = summary
        .environment
        .as_ref()
        .and_then(|e| e.settings.reference.as_deref());
    if let Some(reference) = reference {
        legend.push_str(&format!(
            " The heat maps are ratios to {reference} (--reference), on each operation and \
             their geometric mean; the tables' ratios are to each operation's fastest."
        ));
    }
    blocks.push(para(Role::Legend, legend));
    let headers = ["Backend", "Profile", "Geomean ratio", "Ops"];
    for (index, t) in tables.iter().enumerate() {
        blocks.push(Block::Subheading(t.heading()));
        charts.place(blocks, &Place::Geo(index));
        blocks.push(Block::Table(t.document(headers)));
    }
}
