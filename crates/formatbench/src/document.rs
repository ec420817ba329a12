//! One document model for everything formatbench shows a person: an analysis builds a
//! [`Document`] (headings, paragraphs, lists, tables of typed cells, charts as data) and one
//! renderer per medium draws any document: [`terminal`], [`markdown`] and [`html`] (a
//! self-contained page, light and dark). A new medium is one renderer file; a new analysis
//! never writes markup.

mod html;
mod markdown;
mod terminal;

pub use html::{html, html_escape, html_head, table as html_table};
pub use markdown::{escape as markdown_escape, markdown, table as markdown_table};
pub use terminal::terminal;

/// A document: a title, its answer in a line, and its blocks in reading order. Where the
/// summary goes is the medium's: first under the title on a page or in Markdown, last on a
/// terminal, where it stays on screen after a long table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    pub title: String,
    pub summary: Option<Text>,
    pub blocks: Vec<Block>,
}

/// One block of a document.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A section's heading.
    Heading(String),
    /// A paragraph.
    Text(Text),
    /// A list of items, each a line.
    List(Vec<Text>),
    Table(Table),
    Chart(Chart),
}

/// A run of words, with what it is for: plain, emphasised (`Strong`), a name or an id
/// (`Code`), or a side remark (`Muted`).
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    Plain(String),
    Strong(String),
    Code(String),
    Muted(String),
}

/// A paragraph: its spans, in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Text {
    pub spans: Vec<Span>,
}

impl Text {
    pub fn plain(text: impl Into<String>) -> Self {
        Text {
            spans: vec![Span::Plain(text.into())],
        }
    }

    pub fn strong(text: impl Into<String>) -> Self {
        Text {
            spans: vec![Span::Strong(text.into())],
        }
    }

    pub fn muted(text: impl Into<String>) -> Self {
        Text {
            spans: vec![Span::Muted(text.into())],
        }
    }

    /// This text followed by `span`.
    pub fn then(mut self, span: Span) -> Self {
        self.spans.push(span);
        self
    }

    /// The words without their roles.
    pub fn words(&self) -> String {
        self.spans
            .iter()
            .map(|span| match span {
                Span::Plain(t) | Span::Strong(t) | Span::Code(t) | Span::Muted(t) => t.as_str(),
            })
            .collect()
    }
}

/// How a column lines up: names left, figures right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// What a cell's value means for the reader, drawn as a colour where the medium has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tone {
    #[default]
    Plain,
    Muted,
    /// Worse: slower, failed.
    Worse,
    /// Better: faster, fixed.
    Better,
    /// Neither shown nor ruled out.
    Unsure,
}

/// A table cell: its text as every medium prints it, the number behind it when it has one
/// (exports and tests read that), and its tone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cell {
    pub text: String,
    pub value: Option<f64>,
    pub tone: Tone,
}

impl Cell {
    pub fn text(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            ..Cell::default()
        }
    }

    /// A figure: its text and the number it shows.
    pub fn figure(text: impl Into<String>, value: Option<f64>) -> Self {
        Cell {
            text: text.into(),
            value,
            tone: Tone::Plain,
        }
    }

    pub fn toned(mut self, tone: Tone) -> Self {
        self.tone = tone;
        self
    }
}

/// A column: its header and alignment.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub header: String,
    pub align: Align,
}

impl Column {
    pub fn left(header: impl Into<String>) -> Self {
        Column {
            header: header.into(),
            align: Align::Left,
        }
    }

    pub fn right(header: impl Into<String>) -> Self {
        Column {
            header: header.into(),
            align: Align::Right,
        }
    }
}

/// A table: its columns and rows of cells (one per column).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

/// A chart, as data: the renderers that can draw draw it; the others leave it to the table
/// that holds the same numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum Chart {
    Intervals(IntervalChart),
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

#[cfg(test)]
mod tests;
