//! A document as plain text for a terminal, in two forms: [`terminal`] (a title, headings as
//! lines of their own, tables lined up) and [`terminal_fitted`], the summary a command prints
//! after its work, fitted to the terminal's width. No colours in either: the output is as
//! often piped into a file or a CI log as read on a terminal. Charts are left to the tables
//! that hold their numbers.

mod fit;

use super::{heads_nothing, Block, Document, Text};
pub use fit::DEFAULT_COLUMNS;
use fit::{lined, Layout};

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
                let every: Vec<usize> = (0..table.columns.len()).collect();
                out.push_str(&lined(table, &every, &Layout::FLUSH));
            }
            Block::Chart(_) => {}
        }
    }
    if let Some(summary) = &doc.summary {
        out.push_str(&format!("\n{}\n", line(summary)));
    }
    out
}

/// The summary a command prints when it ends, at most `columns` wide where it can be: no title
/// (the command is its title), headings as lines, each table indented and fitted by leaving out
/// its droppable columns (named under it), a blank line after each table and its remarks, the
/// document's summary last, and prose wider than `columns` wrapped with a hanging indent.
pub fn terminal_fitted(doc: &Document, columns: usize) -> String {
    let mut out = String::new();
    for (i, block) in doc.blocks.iter().enumerate() {
        let table_ends = !matches!(doc.blocks.get(i + 1), Some(Block::Remarks(_)));
        match block {
            Block::Heading(text) | Block::Section { title: text, .. } | Block::Subheading(text) => {
                out.push_str(&format!("{text}\n"))
            }
            Block::Text(text) => out.push_str(&format!("{}\n", line(text))),
            Block::Para(para) => out.push_str(&format!("{}\n", line(&para.text))),
            Block::List(items) => {
                for item in items {
                    out.push_str(&format!("  {}\n", line(item)));
                }
            }
            Block::Remarks(items) => {
                for item in items {
                    out.push_str(&format!("  {}\n", line(item)));
                }
                out.push('\n');
            }
            Block::Table(table) => {
                out.push_str(&fit::fitted(table, columns));
                if table_ends {
                    out.push('\n');
                }
            }
            Block::Chart(_) => {}
        }
    }
    if let Some(summary) = &doc.summary {
        out.push_str(&format!("\n{}\n", line(summary)));
    }
    fit::wrap_long_lines(&out, columns)
}

/// The terminal's width: stdout's window size when it is a terminal, else `COLUMNS`, else
/// [`DEFAULT_COLUMNS`].
pub fn stdout_columns() -> usize {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ only writes the winsize it is given.
    let got = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
    if got == 0 && size.ws_col > 0 {
        return usize::from(size.ws_col);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c: &usize| c > 0)
        .unwrap_or(DEFAULT_COLUMNS)
}

fn line(text: &Text) -> String {
    text.words()
}
