//! Tables lined up by display width, and fitted to a terminal's width by leaving out the
//! columns the table says it can spare, the least telling first.

use super::super::{Align, Cell, CellKind, Table};
use crate::units::truncate;
use unicode_width::UnicodeWidthStr;

/// The width when stdout is not a terminal (a pipe, a file, a CI log) and `COLUMNS` is unset.
pub const DEFAULT_COLUMNS: usize = 100;
const GAP: &str = "  ";
/// A status's reason is cut to what its line has left, within these bounds.
const REASON_WIDTH: (usize, usize) = (40, 70);

/// Where a table's lines start, and how wide they may be (for a status's reason).
pub struct Layout {
    indent: &'static str,
    columns: usize,
}

impl Layout {
    /// Flush left, as wide as it takes.
    pub const FLUSH: Layout = Layout {
        indent: "",
        columns: usize::MAX,
    };
}

/// Columns a text takes on a terminal (wide characters two, combining marks none).
fn width(s: &str) -> usize {
    s.width()
}

fn pad(s: &str, to: usize, align: Align) -> String {
    let fill = " ".repeat(to.saturating_sub(width(s)));
    match align {
        Align::Left => format!("{s}{fill}"),
        Align::Right => format!("{fill}{s}"),
    }
}

/// A cell as a terminal prints it: `!` after a flagged one, and a time's one-character slot
/// for the noisy mark (`*`), so times line up on their units whether or not they carry it.
fn text(cell: &Cell) -> String {
    let flag = if cell.flagged { "!" } else { "" };
    match cell.kind {
        CellKind::Time { noisy } => format!("{}{flag}{}", cell.text, if noisy { "*" } else { " " }),
        _ => format!("{}{flag}", cell.text),
    }
}

/// The `kept` columns of `table`, each padded to its widest cell, two spaces apart, no
/// trailing spaces. A row with a status shows its cells up to the status, then the status
/// and its reason, cut to the room the line has left.
pub fn lined(table: &Table, kept: &[usize], layout: &Layout) -> String {
    let timed = |i: usize| {
        table
            .rows
            .iter()
            .any(|r| matches!(r.cells.get(i).map(|c| &c.kind), Some(CellKind::Time { .. })))
    };
    // A time's header sits over its digits, not over the noisy mark.
    let headers: Vec<String> = kept
        .iter()
        .map(|&i| match timed(i) {
            true => format!("{} ", table.columns[i].header),
            false => table.columns[i].header.clone(),
        })
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| width(h)).collect();
    let rows: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|row| {
            kept.iter()
                .map(|&i| row.cells.get(i).map(text).unwrap_or_default())
                .collect()
        })
        .collect();
    for (row, texts) in table.rows.iter().zip(&rows) {
        for (k, (w, t)) in widths.iter_mut().zip(texts).enumerate() {
            if is_status(row.cells.get(kept[k])) {
                break;
            }
            *w = (*w).max(width(t));
        }
    }
    let align = |k: usize| table.columns[kept[k]].align;
    let mut out = String::new();
    let push = |out: &mut String, fields: Vec<String>| {
        out.push_str(layout.indent);
        out.push_str(fields.join(GAP).trim_end());
        out.push('\n');
    };
    push(
        &mut out,
        headers
            .iter()
            .enumerate()
            .map(|(k, h)| pad(h, widths[k], align(k)))
            .collect(),
    );
    for (row, texts) in table.rows.iter().zip(rows) {
        let mut fields = Vec::new();
        for (k, t) in texts.iter().enumerate() {
            match row.cells.get(kept[k]) {
                Some(Cell {
                    kind: CellKind::Status { reason, .. },
                    text,
                    ..
                }) => {
                    let mut note = text.clone();
                    if !reason.is_empty() {
                        let used = width(layout.indent)
                            + widths[..k].iter().sum::<usize>()
                            + k * width(GAP);
                        let room = layout
                            .columns
                            .saturating_sub(used + width(&note) + 2)
                            .clamp(REASON_WIDTH.0, REASON_WIDTH.1);
                        note = format!("{note}: {}", truncate(reason, room));
                    }
                    fields.push(note);
                    break;
                }
                _ => fields.push(pad(t, widths[k], align(k))),
            }
        }
        push(&mut out, fields);
    }
    out
}

fn is_status(cell: Option<&Cell>) -> bool {
    matches!(cell.map(|c| &c.kind), Some(CellKind::Status { .. }))
}

fn widest(text: &str) -> usize {
    text.lines().map(width).max().unwrap_or(0)
}

/// The table indented, at most `columns` wide where leaving out its droppable columns (lowest
/// `drop` first) can make it so; those left out are named under it.
pub fn fitted(table: &Table, columns: usize) -> String {
    let layout = Layout {
        indent: "  ",
        columns,
    };
    let mut kept: Vec<usize> = (0..table.columns.len()).collect();
    let mut text = lined(table, &kept, &layout);
    let mut droppable: Vec<(u8, usize)> = (0..table.columns.len())
        .filter_map(|i| table.columns[i].drop.map(|rank| (rank, i)))
        .collect();
    droppable.sort();
    let mut left_out = Vec::new();
    for (_, i) in droppable {
        if widest(&text) <= columns {
            break;
        }
        kept.retain(|&k| k != i);
        left_out.push(table.columns[i].header.as_str());
        text = lined(table, &kept, &layout);
    }
    if !left_out.is_empty() {
        text.push_str(&format!(
            "{}(left out to fit {columns} columns: {}; report.md has every column)\n",
            layout.indent,
            left_out.join(", ")
        ));
    }
    text
}

/// Prose lines (warnings, legends, the recommendation) wider than `columns`, wrapped at
/// spaces with a hanging indent; tables were fitted before and pass unchanged when they fit.
pub fn wrap_long_lines(text: &str, columns: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if width(line) <= columns {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let hanging = " ".repeat(lead + 2);
        let mut current = line[..lead].to_string();
        let mut empty = true;
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            if !empty && width(&current) + 1 + width(word) > columns {
                out.push_str(&current);
                out.push('\n');
                current = hanging.clone();
                empty = true;
            }
            if !empty {
                current.push(' ');
            }
            current.push_str(word);
            empty = false;
        }
        out.push_str(&current);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::{Column, Row};
    use super::*;

    #[test]
    fn long_prose_lines_wrap_at_spaces_with_a_hanging_indent() {
        let text = wrap_long_lines("  ! one two three four five\nshort\n", 14);
        assert_eq!(text, "  ! one two\n    three four\n    five\nshort\n");
    }

    #[test]
    fn columns_are_padded_by_display_width() {
        // A wide (CJK) name takes two columns a character, a combining accent none.
        assert_eq!(width("数据"), 4);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("1.36× [1.30–1.41]"), 17);
        assert_eq!(width(&pad("数据", 6, Align::Left)), 6);
    }

    #[test]
    fn a_narrow_terminal_loses_the_spare_columns_lowest_rank_first() {
        let spare = |header: &str, rank| Column {
            drop: Some(rank),
            ..Column::right(header)
        };
        let columns = vec![
            Column::left("name"),
            spare("second", 2),
            spare("first", 1),
            Column::right("kept"),
        ];
        let row = Row::from(vec![
            Cell::text("a"),
            Cell::text("x".repeat(20)),
            Cell::text("y".repeat(20)),
            Cell::text("1"),
        ]);
        let table = Table::new(columns, vec![row]);
        let wide = fitted(&table, 200);
        assert!(wide.contains("first") && !wide.contains("left out"));
        let narrow = fitted(&table, 40);
        assert!(
            narrow.contains("second") && !narrow.contains("yyy"),
            "{narrow}"
        );
        assert!(
            narrow.contains("(left out to fit 40 columns: first;"),
            "{narrow}"
        );
        let narrowest = fitted(&table, 10);
        assert!(narrowest.contains("columns: first, second;"), "{narrowest}");
    }
}
