//! The history as a [`Document`]: per environment its runs, then per operation group a chart
//! of each competitor's median over the runs and the same numbers as a table, each change
//! flagged with its interval; and the terminal's short form, which lists only the changes.

use super::{CellHistory, Era, History, Point};
use crate::document::{
    Block, Cell, Chart, Column, Document, LineChart, Para, Role, Row, Series, Table, Text, Tone,
    Unit,
};
use crate::results::CellKey;
use crate::units::{duration, DASH};

/// `dataset · op · cache warm · threads 2`, and where, for a group of cells.
fn group_title(k: &CellKey) -> String {
    let mut title = format!("{} · {}", k.dataset, k.op);
    if k.cache != "n/a" {
        title.push_str(&format!(" · cache {}", k.cache));
    }
    title.push_str(&format!(" · threads {}", k.threads));
    let place = crate::stats::place(&k.storage, &k.network);
    if !place.is_empty() {
        title.push_str(&format!(" · {place}"));
    }
    title
}

/// A competitor's name in its group: backend/profile, and its layout and target.
fn label(k: &CellKey) -> String {
    format!("{}/{} ({}, {})", k.backend, k.profile, k.layout, k.target)
}

/// "13.5 ms ↑ 1.10× [1.05–1.15]": the median, and where it changed, how.
fn point_text(p: &Point) -> String {
    let median = duration(p.median_s);
    match (p.changed(), p.change) {
        (true, Some((verdict, interval))) => {
            let mark = match verdict {
                crate::compare::Verdict::Slower => "↑",
                _ => "↓",
            };
            let by = crate::compare::interval_text(interval.as_ref());
            format!("{median} {mark} {by}")
        }
        _ => median,
    }
}

fn tone(p: &Point) -> Tone {
    match p.change {
        Some((crate::compare::Verdict::Slower, _)) => Tone::Worse,
        Some((crate::compare::Verdict::Faster, _)) => Tone::Better,
        _ => Tone::Plain,
    }
}

/// The groups of an era's cells, in their first appearance's order.
fn groups(era: &Era) -> Vec<(String, Vec<&CellHistory>)> {
    let mut out: Vec<(String, Vec<&CellHistory>)> = Vec::new();
    for cell in &era.cells {
        let title = group_title(&cell.cell);
        match out.iter_mut().find(|(t, _)| *t == title) {
            Some((_, members)) => members.push(cell),
            None => out.push((title, vec![cell])),
        }
    }
    out
}

fn run_label(i: usize) -> String {
    format!("run {}", i + 1)
}

fn runs_table(era: &Era) -> Table {
    let columns = vec![
        Column::left("Run"),
        Column::left("Run id"),
        Column::left("Commit"),
        Column::left("Machine load"),
    ];
    let rows = era
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let commit = r
                .commit
                .as_deref()
                .map_or(DASH.to_string(), |c| c[..c.len().min(12)].to_string());
            Row::from(vec![
                Cell::text(run_label(i)),
                Cell::text(&r.run_id),
                Cell::text(commit),
                Cell::text(r.load.as_deref().unwrap_or(DASH)),
            ])
        })
        .collect();
    Table::new(columns, rows)
}

fn group_blocks(title: &str, cells: &[&CellHistory], runs: usize) -> Vec<Block> {
    let xs: Vec<f64> = (1..=runs).map(|i| i as f64).collect();
    let chart = LineChart {
        title: format!("{title}: median and interquartile range over the runs"),
        xs,
        x_log: false,
        x_labels: (0..runs).map(run_label).collect(),
        x_unit: Unit::Count,
        x_noun: String::new(),
        x_axis: "run (in order)".to_string(),
        y_axis: "median; bars: interquartile range (log scale)".to_string(),
        y_unit: Unit::Seconds,
        first_header: "Competitor".to_string(),
        series: cells
            .iter()
            .enumerate()
            .map(|(i, c)| Series {
                label: label(&c.cell),
                colour: i,
                values: c.points.iter().map(|p| p.map(|p| p.median_s)).collect(),
                spans: c
                    .points
                    .iter()
                    .map(|p| p.map(|p| (p.q25_s, p.q75_s)))
                    .collect(),
            })
            .collect(),
    };
    let mut blocks = vec![Block::Subheading(title.to_string())];
    if chart.has_a_line() {
        blocks.push(Block::Chart(Chart::Lines(chart)));
    }
    let mut columns = vec![Column::left("Competitor")];
    columns.extend((0..runs).map(|i| Column::right(run_label(i))));
    let rows = cells
        .iter()
        .map(|c| {
            let mut row = vec![Cell::text(label(&c.cell))];
            row.extend(c.points.iter().map(|p| match p {
                Some(p) => Cell::text(point_text(p)).toned(tone(p)),
                None => Cell::text(DASH),
            }));
            Row::from(row)
        })
        .collect();
    blocks.push(Block::Table(Table::new(columns, rows)));
    blocks
}

fn legend(history: &History) -> String {
    format!(
        "Runs {}; runs on different machines are shown apart, never pooled. Each run is compared \
         with the one before it on its machine by `compare`'s rule (±{:.0} %): ↑ slower, ↓ \
         faster, with that comparison's NEW ÷ BASE [95 % interval]. Times are medians.",
        history.order,
        history.threshold * 100.0
    )
}

fn changes(history: &History) -> usize {
    history
        .eras
        .iter()
        .flat_map(|e| &e.cells)
        .flat_map(|c| c.points.iter().flatten())
        .filter(|p| p.changed())
        .count()
}

/// A page of the history: the legend, then per machine its runs and what `body` adds.
fn page(history: &History, body: impl Fn(&Era) -> Vec<Block>) -> Document {
    let mut blocks = vec![Block::Para(Para::new(
        Role::Legend,
        Text::plain(legend(history)),
    ))];
    for era in &history.eras {
        blocks.push(Block::Heading(era.environment.clone()));
        blocks.push(Block::Table(runs_table(era)));
        blocks.extend(body(era));
    }
    Document {
        title: "formatbench history".to_string(),
        summary: Some(Text::strong(format!(
            "{} runs on {} machine(s); {} changes flagged",
            history.eras.iter().map(|e| e.runs.len()).sum::<usize>(),
            history.eras.len(),
            changes(history)
        ))),
        blocks,
    }
}

/// The whole history: every group's chart and table.
pub fn document(history: &History) -> Document {
    page(history, |era| {
        groups(era)
            .into_iter()
            .flat_map(|(title, cells)| group_blocks(&title, &cells, era.runs.len()))
            .collect()
    })
}

/// The terminal's history: the runs, and each flagged change on a line of its own.
pub fn summary(history: &History) -> Document {
    page(history, |era| {
        let lines: Vec<Text> = era
            .cells
            .iter()
            .flat_map(|c| {
                c.points.iter().enumerate().filter_map(move |(i, p)| {
                    let p = p.as_ref().filter(|p| p.changed())?;
                    Some(Text::plain(format!(
                        "{} · {} · {}: {}",
                        run_label(i),
                        group_title(&c.cell),
                        label(&c.cell),
                        point_text(p)
                    )))
                })
            })
            .collect();
        vec![match lines.is_empty() {
            true => Block::Text(Text::plain("no cell changed between consecutive runs")),
            false => Block::List(lines),
        }]
    })
}
