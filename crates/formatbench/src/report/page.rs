//! The run report as one [`Document`]: the answer first (the recommendation, the table per
//! operation), then the results, the studies' sections, and what it was measured on. The
//! Markdown page and the HTML page are this document drawn by their renderers.

mod results;
#[cfg(test)]
mod tests;

use super::charts::{self, Place};
use super::format::{self, DASH};
use super::{
    artifact_settings, artifact_size, environment_rows, group_title, not_measured, recommendation,
    Section,
};
use crate::document::{
    Block, Cell, CellKind, Column, Document, Para, Role, Row, Span, Table, Text,
};
use crate::stats::RunSummary;

pub(super) const TITLE: &str = "formatbench report";

/// The report of `summary`, with the studies' `sections` after its results.
pub(super) fn document(summary: &RunSummary, sections: &[Section]) -> Document {
    let charts = Charts::of(summary);
    let mut blocks = Vec::new();
    if let Some(text) = recommendation(summary) {
        let text = Text::strong("Recommendation:").then(Span::Plain(format!(" {text}")));
        blocks.push(Block::Para(
            Para::new(Role::Plain, text).with_id("recommendation"),
        ));
    }
    if let Some(warning) = summary.load.warning() {
        blocks.push(Block::Para(
            Para::new(Role::Warning, Text::plain(format!("warning: {warning}"))).with_id("busy"),
        ));
    }
    glance(&mut blocks, summary);
    results::results(&mut blocks, summary, &charts);
    results::overall(&mut blocks, summary, &charts);
    tradeoffs(&mut blocks, summary, &charts);
    for s in sections {
        study_section(&mut blocks, s, &charts);
    }
    cache(&mut blocks, summary);
    missing(&mut blocks, summary);
    environment(&mut blocks, summary);
    datasets(&mut blocks, summary);
    artifacts(&mut blocks, summary);
    Document {
        title: TITLE.to_string(),
        summary: None,
        blocks,
    }
}

/// The report's charts, each with where it goes.
struct Charts {
    charts: Vec<charts::Placed>,
}

impl Charts {
    fn of(summary: &RunSummary) -> Self {
        Charts {
            charts: charts::all(summary),
        }
    }

    fn at<'a>(&'a self, place: &'a Place) -> impl Iterator<Item = &'a charts::Placed> {
        self.charts.iter().filter(move |c| c.place == *place)
    }

    /// Every chart at `place`.
    fn place(&self, blocks: &mut Vec<Block>, place: &Place) {
        blocks.extend(self.at(place).map(|c| Block::Chart(c.chart.clone())));
    }
}

fn section(blocks: &mut Vec<Block>, id: &str, title: &str) {
    blocks.push(Block::Section {
        id: id.to_string(),
        title: title.to_string(),
    });
}

fn para(role: Role, text: impl Into<String>) -> Block {
    Block::Para(Para::new(role, Text::plain(text)))
}

/// The line that stands in for a section with nothing to show.
fn empty(blocks: &mut Vec<Block>, text: &str) {
    blocks.push(para(Role::Muted, text));
}

/// A table whose first `text_columns` columns are text and the rest numbers.
fn plain_table(headers: &[&str], text_columns: usize, rows: &[Vec<String>]) -> Table {
    let columns = headers
        .iter()
        .enumerate()
        .map(|(i, h)| match i < text_columns {
            true => Column::left(*h),
            false => Column::right(*h),
        })
        .collect();
    let rows = rows
        .iter()
        .map(|r| Row::from(r.iter().map(|c| Cell::text(c.as_str())).collect::<Vec<_>>()))
        .collect();
    Table::new(columns, rows)
}

fn glance(blocks: &mut Vec<Block>, summary: &RunSummary) {
    section(blocks, "glance", "At a glance");
    if summary.groups.is_empty() {
        return empty(blocks, "No results were recorded.");
    }
    let call = format!("Times are {}.", summary.call.describe());
    blocks.push(Block::Para(
        Para::new(Role::Plain, Text::plain(call)).with_id("call"),
    ));
    blocks.push(Block::Table(super::glance::table(summary)));
    blocks.push(para(Role::Legend, super::glance::LEGEND));
}

/// Per dataset: size against time, then the frontier's members with their figures.
fn tradeoffs(blocks: &mut Vec<Block>, summary: &RunSummary, charts: &Charts) {
    let frontiers = super::pareto::frontiers(summary);
    if frontiers.is_empty() {
        return;
    }
    section(blocks, "tradeoffs", "Trade-offs");
    let legend = format!("Pareto frontier: {}.", super::pareto::LEGEND);
    blocks.push(para(Role::Legend, legend));
    for dataset in super::pick::dataset_names(summary) {
        let Some(f) = frontiers.iter().find(|f| f.dataset == dataset) else {
            continue;
        };
        blocks.push(Block::Subheading(dataset.clone()));
        charts.place(blocks, &Place::Dataset(dataset.clone()));
        let mut table = plain_table(&f.headers(), 1, &f.rows());
        table.caption = Some(format!("Pareto frontier ({})", f.sources.join("; ")));
        blocks.push(Block::Table(table));
        let off = f.dominated_text();
        if !off.is_empty() {
            let text = format!("Off the frontier: {}.", off.join("; "));
            blocks.push(para(Role::Muted, text));
        }
    }
}

/// A section after the results: its charts, each under its title and followed by its own
/// table, then its tables with their legends.
fn study_section(blocks: &mut Vec<Block>, s: &Section, charts: &Charts) {
    let placed: Vec<&charts::Placed> = match &s.place {
        Some(place) => charts.at(place).collect(),
        None => Vec::new(),
    };
    if placed.is_empty() && s.tables.is_empty() {
        return;
    }
    section(blocks, s.id, s.heading);
    for placed in placed {
        blocks.push(Block::Subheading(placed.chart.title().to_string()));
        blocks.push(Block::Chart(placed.chart.clone()));
        if let Some(table) = &placed.table {
            blocks.push(Block::Table(table.clone()));
        }
    }
    for table in &s.tables {
        blocks.push(Block::Subheading(table.title.clone()));
        blocks.push(para(Role::Legend, format!("{}.", table.legend)));
        blocks.push(Block::Table(table.document()));
    }
}

fn cache(blocks: &mut Vec<Block>, summary: &RunSummary) {
    let rows: Vec<Vec<String>> = super::cache::rows(summary)
        .into_iter()
        .map(Vec::from)
        .collect();
    if rows.is_empty() {
        return;
    }
    section(blocks, "cache", "Cold cache against warm");
    blocks.push(para(Role::Legend, format!("{}.", super::cache::LEGEND)));
    blocks.push(Block::Table(plain_table(&super::cache::HEADERS, 3, &rows)));
}

fn missing(blocks: &mut Vec<Block>, summary: &RunSummary) {
    section(blocks, "not-measured", "Not measured");
    let cells = not_measured(summary);
    let shortfall = super::shortfall(summary);
    if shortfall.is_none() && cells.is_empty() {
        return empty(blocks, "Every cell was measured.");
    }
    if let Some((why, short)) = shortfall {
        blocks.push(Block::Para(
            Para::new(Role::Plain, Text::strong(why)).with_id("incomplete"),
        ));
        blocks.push(Block::List(short.into_iter().map(Text::plain).collect()));
    }
    if cells.is_empty() {
        return;
    }
    let items = cells.into_iter().map(|(group, c)| {
        let k = &c.cell;
        let text = Text::plain(format!(
            "{} · {} {} ({}, {}): ",
            group_title(group),
            k.backend,
            k.shown_profile(),
            k.layout,
            k.target
        ))
        .then(Span::Status(c.status.name().to_string()));
        match c.reason.as_deref().filter(|r| !r.trim().is_empty()) {
            Some(reason) => text.then(Span::Plain(format!(" — {}", format::one_line(reason)))),
            None => text,
        }
    });
    blocks.push(Block::List(items.collect()));
}

fn environment(blocks: &mut Vec<Block>, summary: &RunSummary) {
    section(blocks, "environment", "Environment");
    let rows = environment_rows(summary);
    if rows.is_empty() {
        return empty(blocks, "No environment was recorded.");
    }
    let rows = rows
        .into_iter()
        .map(|(key, value)| Row::from(vec![Cell::text(key), Cell::of_kind(value, CellKind::Long)]))
        .collect();
    let mut table = Table::new(vec![Column::left("Item"), Column::left("Value")], rows);
    table.row_headers = true;
    blocks.push(Block::Table(table));
}

fn datasets(blocks: &mut Vec<Block>, summary: &RunSummary) {
    section(blocks, "datasets", "Datasets");
    if summary.datasets.is_empty() {
        return empty(blocks, "No datasets were recorded.");
    }
    let columns = vec![
        Column::left("Dataset"),
        Column::right("Rows"),
        Column::right("Columns"),
        Column::left("Fingerprint"),
        Column::right("Source size"),
    ];
    let rows = summary.datasets.iter().map(|d| {
        Row::from(vec![
            Cell::text(&d.dataset),
            Cell::text(format::count(d.rows)),
            Cell::text(format::count(d.columns)),
            Cell::of_kind(&d.dataset_fingerprint, CellKind::Code),
            Cell::text(format::bytes(d.source_bytes)),
        ])
    });
    blocks.push(Block::Table(Table::new(columns, rows.collect())));
    for d in &summary.datasets {
        if let Some(cast) = d.parameters.get("feature_type") {
            let text = format!("{}: --feature-type {cast}.", d.dataset);
            blocks.push(para(Role::Plain, text));
        }
    }
}

fn artifacts(blocks: &mut Vec<Block>, summary: &RunSummary) {
    section(blocks, "artifacts", "Artifacts and settings");
    if summary.artifacts.is_empty() {
        return empty(blocks, "No artifacts were recorded.");
    }
    let columns = vec![
        Column::left("Dataset"),
        Column::left("Backend"),
        Column::left("Profile"),
        Column::left("Layout"),
        Column::right("Size"),
        Column::right("B/value"),
        Column::left("Settings"),
    ];
    let rows = summary.artifacts.iter().map(|a| {
        Row::from(vec![
            Cell::text(&a.dataset),
            Cell::text(&a.backend),
            Cell::text(&a.profile),
            Cell::text(&a.layout),
            Cell::text(artifact_size(a)),
            Cell::text(
                a.bytes_per_value
                    .map_or_else(|| DASH.to_string(), format::per_value),
            ),
            Cell::of_kind(artifact_settings(a), CellKind::Long),
        ])
    });
    blocks.push(Block::Table(Table::new(columns, rows.collect())));
}
