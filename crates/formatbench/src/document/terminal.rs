//! A document as plain text for a terminal: headings as lines of their own, tables with their
//! columns lined up by display width (names left, figures right), charts left to the table
//! that holds their numbers.

use super::{Align, Block, Document, Table, Text};
use unicode_width::UnicodeWidthStr;

pub fn terminal(doc: &Document) -> String {
    let mut out = format!("{}\n", doc.title);
    for (i, block) in doc.blocks.iter().enumerate() {
        match block {
            // A heading over nothing but a chart would head nothing here.
            Block::Heading(_) if matches!(doc.blocks.get(i + 1), Some(Block::Chart(_))) => {}
            Block::Heading(text) => out.push_str(&format!("\n{text}:\n")),
            Block::Text(text) => out.push_str(&format!("{}\n", line(text))),
            Block::List(items) => {
                for item in items {
                    out.push_str(&format!("  {}\n", line(item)));
                }
            }
            Block::Table(table) => out.push_str(&lined_up(table)),
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

/// The table's columns padded to their widest cell, two spaces apart, no trailing spaces.
fn lined_up(table: &Table) -> String {
    let mut widths: Vec<usize> = table.columns.iter().map(|c| c.header.width()).collect();
    for row in &table.rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.text.width());
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
    for row in &table.rows {
        out.push_str(&render(row.iter().map(|c| c.text.as_str()).collect()));
    }
    out
}
