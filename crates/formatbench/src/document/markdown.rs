//! A document as GitHub-flavoured Markdown, in two forms: a snippet that survives being
//! pasted into an issue ([`markdown`]: no relative links, no HTML, headings below the issue's
//! own) and a page of its own ([`markdown_page`], `report.md`: its drawn charts linked as the
//! SVG files written beside it).

use super::{heads_nothing, Align, Block, CellKind, Chart, Document, Row, Span, Table, Text};
use crate::units::one_line;

/// How a form sets its blocks.
struct Form {
    /// The title's heading level; sections are one below, subheadings two.
    level: usize,
    /// Paragraphs apart (a page) or lines kept together by hard breaks (a snippet).
    paragraphs: bool,
    /// Drawn charts linked as their files (a page) or left to their tables.
    images: bool,
}

const SNIPPET: Form = Form {
    level: 3,
    paragraphs: false,
    images: false,
};

const PAGE: Form = Form {
    level: 1,
    paragraphs: true,
    images: true,
};

/// A snippet for pasting into an issue or a PR comment.
pub fn markdown(doc: &Document) -> String {
    render(doc, &SNIPPET)
}

/// A page of its own, with the charts as files beside it.
pub fn markdown_page(doc: &Document) -> String {
    render(doc, &PAGE)
}

fn render(doc: &Document, form: &Form) -> String {
    let hashes = |deeper: usize| "#".repeat(form.level + deeper);
    let mut out = format!("{} {}\n", hashes(0), escape(&doc.title));
    let (para_end, block_start) = match form.paragraphs {
        true => ("\n\n", ""),
        false => ("  \n", "\n"),
    };
    if form.paragraphs {
        out.push('\n');
    }
    if let Some(summary) = &doc.summary {
        out.push_str(&format!("{}{para_end}", inline(summary)));
    }
    let files = match form.images {
        true => super::svg_charts(doc),
        false => Vec::new(),
    };
    let drawn = |chart: &Chart| form.images && !matches!(chart, Chart::Intervals(_));
    for (i, block) in doc.blocks.iter().enumerate() {
        let heading = |text: &str, deeper: usize| match form.paragraphs {
            true => format!("{} {}\n\n", hashes(deeper), escape(text)),
            false => format!("\n{} {}\n", hashes(deeper), escape(text)),
        };
        match block {
            // A heading over a chart this form leaves out would head nothing.
            Block::Heading(_) | Block::Subheading(_) if heads_nothing(&doc.blocks, i, drawn) => {}
            Block::Heading(text) | Block::Section { title: text, .. } => {
                out.push_str(&heading(text, 1))
            }
            Block::Subheading(text) => out.push_str(&heading(text, 2)),
            Block::Text(text) => out.push_str(&format!("{}{para_end}", inline(text))),
            Block::Para(para) => out.push_str(&format!("{}{para_end}", inline(&para.text))),
            Block::List(items) | Block::Remarks(items) => {
                for item in items {
                    out.push_str(&format!("- {}\n", inline(item)));
                }
                out.push('\n');
            }
            Block::Table(t) => {
                if let Some(caption) = &t.caption {
                    out.push_str(&format!("{}:{para_end}", escape(caption)));
                }
                out.push_str(&format!("{block_start}{}\n", table(t)));
            }
            Block::Chart(chart) => {
                if let Some((_, file, _)) = files.iter().find(|(at, _, _)| *at == i) {
                    let title = escape(chart.title())
                        .replace('[', "\\[")
                        .replace(']', "\\]");
                    out.push_str(&format!("![{title}]({file})\n\n"));
                }
            }
        }
    }
    out
}

/// A table as Markdown rows: its header, the alignment rule (figures right), then a row per
/// row, every cell escaped. Every column stays (Markdown cannot fold or join them); a status
/// stands in its first column and the others it spans show their own text (a dash).
pub fn table(table: &Table) -> String {
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(table.columns.iter().map(|c| escape(&c.header)).collect());
    let rules = table.columns.iter().map(|c| match c.align {
        Align::Left => "---".to_string(),
        Align::Right => "---:".to_string(),
    });
    out.push_str(&line(rules.collect()));
    for row in &table.rows {
        out.push_str(&line(cells(row)));
    }
    out
}

/// A row's cells; its badge is left to media that can set it apart (a row's order already
/// tells which is first).
fn cells(row: &Row) -> Vec<String> {
    row.cells
        .iter()
        .map(|cell| {
            let flag = if cell.flagged { "!" } else { "" };
            let text = match &cell.kind {
                CellKind::Code => code(&cell.text),
                CellKind::Status { .. } => format!("**{}**", escape(&cell.text)),
                CellKind::Time { noisy: true } => format!("{}\\*", escape(&cell.text)),
                _ => escape(&cell.text),
            };
            format!("{text}{flag}")
        })
        .collect()
}

/// Inline code when the text can be quoted that way, so hashes read as identifiers. Inside a
/// code span only the table's `|` needs escaping.
fn code(s: &str) -> String {
    if s.is_empty() || s.contains('`') {
        escape(s)
    } else {
        format!("`{}`", one_line(s).replace('|', "\\|"))
    }
}

fn inline(text: &Text) -> String {
    text.spans
        .iter()
        .map(|span| {
            let (words, marked) = match span {
                Span::Plain(t) | Span::Muted(t) => (t, escape(t)),
                Span::Strong(t) | Span::Status(t) => (t, format!("**{}**", escape(t))),
                Span::Code(t) => (t, format!("`{}`", t.trim().replace('`', "'"))),
            };
            // Escaping makes a span one line; the spaces that part it from its neighbours stay.
            let before = if words.starts_with(char::is_whitespace) {
                " "
            } else {
                ""
            };
            let after = if words.ends_with(char::is_whitespace) {
                " "
            } else {
                ""
            };
            format!("{before}{marked}{after}")
        })
        .collect()
}

/// Makes text safe inside a table cell or a list line: a `|` would end the cell, a newline
/// the row, a `<` could be taken for an HTML tag and vanish, and `*` or a backtick would start
/// emphasis or code.
pub fn escape(s: &str) -> String {
    let one_line = one_line(s);
    let mut out = String::with_capacity(one_line.len());
    for c in one_line.chars() {
        match c {
            '\\' | '|' | '*' | '`' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            _ => out.push(c),
        }
    }
    out
}
