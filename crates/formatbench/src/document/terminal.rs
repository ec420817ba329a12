//! A document as plain text for a terminal: headings as lines of their own, tables with their
//! columns lined up by display width (names left, figures right), charts left to the table
//! that holds their numbers.

use super::{heads_nothing, Align, Block, CellKind, Document, Row, Table, Text};
use unicode_width::UnicodeWidthStr;

pub fn terminal(doc: &Document) -> String {
    let mut out = format!("{}\n", doc.title);
    for (i, block) in doc.blocks.iter().enumerate() {
        match block {
            // A heading over nothing but charts would head nothing here.
            Block::Heading(_) | Block::Subheading(_)
                if heads_nothing(&doc.blocks, i, |_| false) => {}
            Block::Heading(text) | Block::Section { title: text, .. } => {
                out.push_str(&format!("\n{text}:\n"))
            }
            Block::Subheading(text) => out.push_str(&format!("\n{text}\n")),
            Block::Text(text) => out.push_str(&format!("{}\n", line(text))),
            Block::Para(para) => out.push_str(&format!("{}\n", line(&para.text))),
            Block::List(items) | Block::Remarks(items) => {
                for item in items {
                    out.push_str(&format!("  {}\n", line(item)));
                }
            }
            Block::Table(table) => {
                if let Some(caption) = &table.caption {
                    out.push_str(&format!("{caption}:\n"));
                }
                out.push_str(&lined_up(table))
            }
            Block::Chart(_) => {}
        }
    }
    if let Some(summary) = &doc.summary {
        out.push_str(&format!("\n{}\n", line(summary)));
    }
    out
}

fn line(text: &Text) -> String {
    text.words()
}

/// A row's cells as text, with their marks: `!` flagged, `*` noisy.
fn texts(row: &Row) -> Vec<String> {
    row.cells
        .iter()
        .map(|cell| {
            let noisy = matches!(cell.kind, CellKind::Time { noisy: true });
            format!(
                "{}{}{}",
                cell.text,
                if cell.flagged { "!" } else { "" },
                if noisy { "*" } else { "" }
            )
        })
        .collect()
}

/// The table's columns padded to their widest cell, two spaces apart, no trailing spaces.
fn lined_up(table: &Table) -> String {
    let rows: Vec<Vec<String>> = table.rows.iter().map(texts).collect();
    let mut widths: Vec<usize> = table.columns.iter().map(|c| c.header.width()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let last = table.columns.len().saturating_sub(1);
    let render = |cells: Vec<&str>| {
        let mut text = String::new();
        for (i, ((cell, w), column)) in cells.iter().zip(&widths).zip(&table.columns).enumerate() {
            let pad = " ".repeat(w.saturating_sub(cell.width()));
            match column.align {
                Align::Left => text.push_str(&format!("{cell}{pad}")),
                Align::Right => text.push_str(&format!("{pad}{cell}")),
            }
            if i < last {
                text.push_str("  ");
            }
        }
        format!("{}\n", text.trim_end())
    };
    let mut out = render(table.columns.iter().map(|c| c.header.as_str()).collect());
    for row in &rows {
        out.push_str(&render(row.iter().map(String::as_str).collect()));
    }
    out
}
