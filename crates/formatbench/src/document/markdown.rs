//! A document as Markdown that survives being pasted into an issue: no relative links, no
//! HTML, a pipe table per table (figures right-aligned), charts left to their tables.

use super::{Align, Block, Document, Span, Table, Text};

pub fn markdown(doc: &Document) -> String {
    let mut out = format!("### {}\n\n", escape(&doc.title));
    if let Some(summary) = &doc.summary {
        out.push_str(&format!("{}  \n", inline(summary)));
    }
    for (i, block) in doc.blocks.iter().enumerate() {
        match block {
            // Charts are left to their tables here, and so are headings over nothing else.
            Block::Heading(_) if matches!(doc.blocks.get(i + 1), Some(Block::Chart(_))) => {}
            Block::Heading(text) => out.push_str(&format!("\n#### {}\n", escape(text))),
            // A hard line break (two spaces) keeps consecutive lines of a header apart.
            Block::Text(text) => out.push_str(&format!("{}  \n", inline(text))),
            Block::List(items) => {
                for item in items {
                    out.push_str(&format!("- {}\n", inline(item)));
                }
                out.push('\n');
            }
            Block::Table(t) => out.push_str(&format!("\n{}\n", table(t))),
            Block::Chart(_) => {}
        }
    }
    out
}

/// A table as Markdown rows: its header, the alignment rule (figures right), then a row per
/// row, every cell escaped.
pub fn table(table: &Table) -> String {
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(table.columns.iter().map(|c| escape(&c.header)).collect());
    let rules = table.columns.iter().map(|c| match c.align {
        Align::Left => "---".to_string(),
        Align::Right => "---:".to_string(),
    });
    out.push_str(&line(rules.collect()));
    for row in &table.rows {
        out.push_str(&line(row.iter().map(|c| escape(&c.text)).collect()));
    }
    out
}

fn inline(text: &Text) -> String {
    text.spans
        .iter()
        .map(|span| {
            let (words, marked) = match span {
                Span::Plain(t) | Span::Muted(t) => (t, escape(t)),
                Span::Strong(t) => (t, format!("**{}**", escape(t))),
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
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
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
