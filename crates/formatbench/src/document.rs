//! One document model for everything formatbench shows a person: an analysis builds a
//! [`Document`] (headings, paragraphs, lists, tables of typed cells, charts as data) and one
//! renderer per medium draws any document: [`terminal`], [`markdown`] and [`html`] (a
//! self-contained page, light and dark). A new medium is one renderer file; a new analysis
//! never writes markup.

mod chart;
mod escape;
mod html;
mod markdown;
pub mod svg;
mod table;
mod terminal;

pub use chart::{
    Bar, BarChart, Chart, HeatChart, HeatRow, IntervalChart, IntervalRow, LineChart, ScatterChart,
    ScatterPoint, Series, Unit,
};
pub use html::{html, html_escape, html_head, table as html_table};
pub use markdown::{escape as markdown_escape, markdown, markdown_page, table as markdown_table};
pub use table::{Align, Cell, CellKind, Column, Row, Table, Tone};
pub use terminal::{stdout_columns, terminal, terminal_fitted, DEFAULT_COLUMNS};

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
    /// A section with an anchor that tools and links find (`report.html#results`); it runs to
    /// the next section or the end.
    Section {
        id: String,
        title: String,
    },
    /// A heading inside a section.
    Subheading(String),
    /// A paragraph.
    Text(Text),
    /// A paragraph with a role the medium may show (a legend, a warning), maybe an anchor.
    Para(Para),
    /// A list of items, each a line.
    List(Vec<Text>),
    /// The remarks under a table (its rows' flags), set apart from the text.
    Remarks(Vec<Text>),
    Table(Table),
    Chart(Chart),
}

/// What a paragraph is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    #[default]
    Plain,
    /// What a table's columns and marks mean.
    Legend,
    /// A remark on the figures that follow (no clear winner, how sampling stopped).
    Note,
    /// Something the reader must weigh before trusting the figures.
    Warning,
    /// A side remark, or the line that stands in for an empty section.
    Muted,
}

/// Each chart of `doc` a page draws as SVG, in the order it shows them: its block's index,
/// the file a Markdown page links (`chart-1.svg` on) and the drawing.
pub fn svg_charts(doc: &Document) -> Vec<(usize, String, svg::Drawing)> {
    let drawings = doc.blocks.iter().enumerate().filter_map(|(i, b)| match b {
        Block::Chart(chart) => svg::drawing(chart).map(|d| (i, d)),
        _ => None,
    });
    drawings
        .enumerate()
        .map(|(n, (i, d))| (i, format!("chart-{}.svg", n + 1), d))
        .collect()
}

/// Whether the heading at `i` heads nothing a medium shows: every block up to the next
/// heading is a chart that medium does not draw (`drawn` says which it draws).
fn heads_nothing(blocks: &[Block], i: usize, drawn: impl Fn(&Chart) -> bool) -> bool {
    blocks[i + 1..]
        .iter()
        .take_while(|b| {
            !matches!(
                b,
                Block::Heading(_) | Block::Section { .. } | Block::Subheading(_)
            )
        })
        .all(|b| matches!(b, Block::Chart(c) if !drawn(c)))
}

/// A paragraph with its role and, where tools or links look for it, an anchor.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Para {
    pub role: Role,
    pub id: Option<String>,
    pub text: Text,
}

impl Para {
    pub fn new(role: Role, text: Text) -> Self {
        Para {
            role,
            id: None,
            text,
        }
    }

    pub fn with_id(mut self, id: &str) -> Self {
        self.id = Some(id.to_string());
        self
    }
}

/// A run of words, with what it is for: plain, emphasised (`Strong`), a name or an id
/// (`Code`), a side remark (`Muted`), or an outcome that needs attention (`Status`: failed,
/// unsupported).
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    Plain(String),
    Strong(String),
    Code(String),
    Muted(String),
    Status(String),
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
                Span::Plain(t)
                | Span::Strong(t)
                | Span::Code(t)
                | Span::Muted(t)
                | Span::Status(t) => t.as_str(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
