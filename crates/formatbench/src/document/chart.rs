//! Charts as data: what each kind shows, in the units its values are in. A renderer that can
//! draw draws them (the page inline as SVG, a Markdown page as SVG files beside it); the
//! others leave each chart to the table that holds the same numbers.

use super::{Cell, Column, Row, Table, Tone};
use crate::units::{bytes, count, duration, ratio2, DASH};

#[derive(Debug, Clone, PartialEq)]
pub enum Chart {
    Intervals(IntervalChart),
    Bars(BarChart),
    Heat(HeatChart),
    Lines(LineChart),
    Scatter(ScatterChart),
}

impl Chart {
    pub fn title(&self) -> &str {
        match self {
            Chart::Intervals(c) => &c.title,
            Chart::Bars(c) => &c.title,
            Chart::Heat(c) => &c.title,
            Chart::Lines(c) => &c.title,
            Chart::Scatter(c) => &c.title,
        }
    }
}

/// What a chart's values are, and so how a tick or a tooltip writes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Seconds,
    Bytes,
    Count,
    /// A ratio, to two significant digits.
    Ratio,
}

impl Unit {
    pub fn text(self, v: f64) -> String {
        match self {
            Unit::Seconds => duration(v),
            Unit::Bytes => bytes(v as u64),
            Unit::Count => count(v as u64),
            Unit::Ratio => ratio2(v),
        }
    }
}

/// Each row's estimate as a dot and its interval as a whisker on a log axis, with a reference
/// line and a shaded band around it (e.g. NEW ÷ BASE at 1 and the no-change band).
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalChart {
    pub title: String,
    /// What the axis shows, read left to right.
    pub axis: String,
    pub reference: f64,
    pub band: (f64, f64),
    pub rows: Vec<IntervalRow>,
    /// Said instead of the chart when it has no rows.
    pub empty: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IntervalRow {
    pub label: String,
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
    pub tone: Tone,
    /// The dot's tooltip.
    pub detail: String,
}

/// Each competitor's median time as a bar with its fastest–slowest whisker and every sample
/// as a dot, fastest first, and beside it its ratio to the fastest.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    pub title: String,
    /// Sorted fastest first.
    pub bars: Vec<Bar>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    /// Seconds: the median, the fastest and the slowest sample.
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// To the fastest; `None` where it cannot be trusted (the tables show `—` too).
    pub ratio: Option<f64>,
    /// Every sample, in seconds.
    pub samples: Vec<f64>,
    /// A reference beside the formats (the memory-copy floor): drawn, never the fastest.
    pub reference: bool,
}

/// Competitors down, operations across, each tile a ratio shaded by how far from 1 it is, and
/// a last column set apart: the geometric mean over the operations.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatChart {
    pub title: String,
    pub ops: Vec<String>,
    pub rows: Vec<HeatRow>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HeatRow {
    pub label: String,
    /// One per operation, `None` where the competitor has none.
    pub ratios: Vec<Option<f64>>,
    pub geomean: Option<f64>,
}

/// Lines on a log y axis (and a log x axis unless the xs are positions): each series' value at
/// each x, its points joined.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    pub title: String,
    /// Ascending, positive.
    pub xs: Vec<f64>,
    /// Whether the x axis is logarithmic (sizes) or linear (runs in order).
    pub x_log: bool,
    /// Each x's name where the xs are positions ("run 3"), else empty: the value is its name.
    pub x_labels: Vec<String>,
    pub x_unit: Unit,
    /// What an x counts, after its value in a header ("100,000 rows", "1.00 MiB partitions").
    pub x_noun: String,
    /// Under the x axis and over the y axis.
    pub x_axis: String,
    pub y_axis: String,
    pub y_unit: Unit,
    /// The first header of the table with the same numbers ("Competitor").
    pub first_header: String,
    pub series: Vec<Series>,
}

/// One line: its label, its colour's number (kept across a family of charts) and its value at
/// each x (`None` where it has none). Values are positive.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub colour: usize,
    pub values: Vec<Option<f64>>,
    /// Each value's spread, drawn as a bar through its point (the history's interquartile
    /// range); empty where a chart has none.
    pub spans: Vec<Option<(f64, f64)>>,
}

impl LineChart {
    /// Whether there is a line to draw: some series has two points.
    pub fn has_a_line(&self) -> bool {
        self.series
            .iter()
            .any(|s| s.values.iter().flatten().count() > 1)
    }

    /// An x as a column header: "100,000 rows", or its own label ("run 3").
    pub fn x_header(&self, x: f64) -> String {
        match self
            .xs
            .iter()
            .position(|v| *v == x)
            .and_then(|i| self.x_labels.get(i))
        {
            Some(label) => label.clone(),
            None => format!("{} {}", self.x_unit.text(x), self.x_noun),
        }
    }

    /// The same numbers as a table: a row per series, a column per x.
    pub fn table(&self) -> Table {
        let mut columns = vec![Column::left(self.first_header.as_str())];
        columns.extend(self.xs.iter().map(|x| Column::right(self.x_header(*x))));
        let rows = self
            .series
            .iter()
            .map(|s| {
                let mut cells = vec![Cell::text(&s.label)];
                cells.extend(s.values.iter().map(|v| match v {
                    Some(v) => Cell::figure(self.y_unit.text(*v), Some(*v)),
                    None => Cell::text(DASH),
                }));
                Row::from(cells)
            })
            .collect();
        Table::new(columns, rows)
    }
}

/// Size on disk across, median time up: a point per competitor and series (reads circles,
/// writes squares), each labelled.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterChart {
    pub title: String,
    /// Each series shown (`read`, `write`) with what its legend says.
    pub series: Vec<(String, String)>,
    pub points: Vec<ScatterPoint>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScatterPoint {
    pub series: String,
    pub label: String,
    pub bytes: u64,
    pub seconds: f64,
}
