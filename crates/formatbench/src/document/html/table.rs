//! A table as HTML: columns a narrow page would waste joined into one, long text about how each
//! row was done folded under the table, the best row marked, and each row's identity in `data-`
//! attributes for tools that read the page.

use super::super::escape::html_escape as esc;
use super::super::{Align, Cell, CellKind, Column, Row, Table, Tone};
use crate::units::truncate;
use std::fmt::Write;

/// Text longer than this is folded into `<details>` so that its table fits a laptop's window.
pub const FOLD_AFTER: usize = 72;

/// A rendered column: the model's columns it shows (one, or several joined).
struct Shown<'a> {
    header: &'a str,
    align: Align,
    columns: Vec<usize>,
}

/// The columns the main table shows: every column not folded, consecutive ones that share a
/// `joined` header as one.
fn shown(columns: &[Column]) -> Vec<Shown<'_>> {
    let mut out: Vec<Shown> = Vec::new();
    for (i, column) in columns.iter().enumerate().filter(|(_, c)| !c.folded) {
        match (column.joined, out.last_mut()) {
            (Some(joined), Some(last))
                if last.header == joined && last.columns.last() == Some(&(i - 1)) =>
            {
                last.columns.push(i)
            }
            (Some(joined), _) => out.push(Shown {
                header: joined,
                align: column.align,
                columns: vec![i],
            }),
            (None, _) => out.push(Shown {
                header: &column.header,
                align: column.align,
                columns: vec![i],
            }),
        }
    }
    out
}

/// A table element in a box that scrolls sideways when the table is wider than the page, then
/// the fold of its folded columns, if any.
pub fn table(table: &Table) -> String {
    let shown = shown(&table.columns);
    let mut out = String::from("<div class=\"scroll\"><table>\n");
    if let Some(caption) = &table.caption {
        let _ = writeln!(out, "<caption>{}</caption>", esc(caption));
    }
    head(&mut out, shown.iter().map(|s| (s.header, s.align)));
    out.push_str("<tbody>\n");
    for row in &table.rows {
        out.push_str(&row_tag(row));
        let mut spanned_until = 0;
        for (s, column) in shown.iter().enumerate() {
            let first = column.columns[0];
            if first < spanned_until {
                continue;
            }
            let cell = row.cells.get(first);
            if let Some(Cell {
                kind: CellKind::Status { reason, span },
                text,
                ..
            }) = cell
            {
                spanned_until = first + span;
                let colspan = shown[s..]
                    .iter()
                    .take_while(|c| c.columns[0] < spanned_until)
                    .count();
                let _ = write!(
                    out,
                    "<td colspan=\"{colspan}\"><span class=\"status\">{}</span>",
                    esc(text)
                );
                if !reason.is_empty() {
                    let _ = write!(out, " {}", esc(reason));
                }
                out.push_str("</td>");
                continue;
            }
            if column.columns.len() > 1 {
                let texts: Vec<&str> = column
                    .columns
                    .iter()
                    .filter_map(|&i| row.cells.get(i).map(|c| c.text.as_str()))
                    .collect();
                let joined = Cell::of_kind(texts.join(" · "), CellKind::Parts);
                out.push_str(&td(&joined, column.align, None));
                continue;
            }
            if first == 0 && table.row_headers {
                let text = cell.map_or("", |c| c.text.as_str());
                let _ = write!(out, "<th scope=\"row\">{}</th>", esc(text));
                continue;
            }
            let badge = row.badge.filter(|_| first == 0);
            out.push_str(&cell.map(|c| td(c, column.align, badge)).unwrap_or_default());
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    out.push_str(&fold(table));
    out
}

/// The folded columns of every row, beside the row's first two cells that name it.
fn fold(table: &Table) -> String {
    let folded: Vec<usize> = (0..table.columns.len())
        .filter(|&i| table.columns[i].folded)
        .collect();
    if folded.is_empty() {
        return String::new();
    }
    let columns: Vec<usize> = (0..table.columns.len().min(2)).chain(folded).collect();
    let mut out = format!(
        "<details class=\"methods\"><summary>{}</summary>\n<div class=\"scroll\"><table>\n",
        esc(table.fold_title.unwrap_or("More"))
    );
    head(
        &mut out,
        columns
            .iter()
            .map(|&i| (table.columns[i].header.as_str(), Align::Left)),
    );
    out.push_str("<tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for &i in &columns {
            let text = row.cells.get(i).map_or("", |c| c.text.as_str());
            let kind = match i < 2 {
                true => CellKind::Plain,
                false => CellKind::Long,
            };
            out.push_str(&td(&Cell::of_kind(text, kind), Align::Left, None));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</details>\n");
    out
}

fn head<'a>(out: &mut String, columns: impl Iterator<Item = (&'a str, Align)>) {
    out.push_str("<thead><tr>");
    for (header, align) in columns {
        let _ = write!(
            out,
            "<th scope=\"col\"{}>{}</th>",
            class(&[align_class(align)]),
            esc(header)
        );
    }
    out.push_str("</tr></thead>\n");
}

/// A row's opening tag: its identity, where it has one, for tools that read the page.
fn row_tag(row: &Row) -> String {
    if row.key.is_empty() {
        return "<tr>".to_string();
    }
    let attributes: String = row
        .key
        .iter()
        .map(|(name, value)| format!(" data-{name}=\"{}\"", esc(value)))
        .collect();
    format!("<tr class=\"cell\"{attributes}>")
}

fn td(cell: &Cell, align: Align, badge: Option<&str>) -> String {
    let marks = format!(
        "{}{}",
        match cell.flagged {
            true => "<span class=\"flag\" title=\"flagged\">!</span>",
            false => "",
        },
        badge
            .map(|b| format!("<span class=\"badge\">{}</span>", esc(b)))
            .unwrap_or_default()
    );
    let tone = tone_class(cell.tone);
    match &cell.kind {
        CellKind::Code => format!("<td><code>{}</code></td>", esc(&cell.text)),
        CellKind::Long if cell.text.chars().count() > FOLD_AFTER => format!(
            "<td class=\"long\"><details><summary>{}</summary>{}</details></td>",
            esc(&truncate(&cell.text, FOLD_AFTER - 11)),
            esc(&cell.text)
        ),
        CellKind::Parts => format!(
            "<td{}>{}{marks}</td>",
            class(&["num", "parts", tone]),
            breakable_parts(&cell.text)
        ),
        CellKind::Time { noisy } if cell.value.is_some() => format!(
            "<td class=\"median\" data-seconds=\"{}\">{}{}</td>",
            cell.value.unwrap_or_default(),
            esc(&cell.text),
            match noisy {
                true => "<span title=\"noisy\">*</span>",
                false => "",
            }
        ),
        _ => format!(
            "<td{}>{}{marks}</td>",
            class(&[align_class(align), tone]),
            esc(&cell.text)
        ),
    }
}

fn align_class(align: Align) -> &'static str {
    match align {
        Align::Right => "num",
        Align::Left => "",
    }
}

fn tone_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Plain => "",
        Tone::Muted => "muted",
        Tone::Worse => "t-worse",
        Tone::Better => "t-better",
        Tone::Unsure => "t-unsure",
    }
}

/// A class attribute of the non-empty names, or nothing.
fn class(names: &[&str]) -> String {
    let names: Vec<&str> = names.iter().copied().filter(|c| !c.is_empty()).collect();
    match names.is_empty() {
        true => String::new(),
        false => format!(" class=\"{}\"", names.join(" ")),
    }
}

/// The text escaped with every space non-breaking except one beside each separator: after
/// `·` and `–`, before `of` (so that "of" starts its line).
fn breakable_parts(text: &str) -> String {
    const NBSP: &str = "\u{a0}";
    esc(text)
        .replace(' ', NBSP)
        .replace(&format!("{NBSP}·{NBSP}"), &format!("{NBSP}· "))
        .replace(&format!("{NBSP}–{NBSP}"), &format!("{NBSP}– "))
        .replace(&format!("{NBSP}of{NBSP}"), &format!(" of{NBSP}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multi_part_cell_breaks_only_between_its_parts() {
        let nb = '\u{a0}';
        assert_eq!(
            breakable_parts("0 % · 100 KiB of 1.5 MiB · 16×"),
            format!("0{nb}%{nb}· 100{nb}KiB of{nb}1.5{nb}MiB{nb}· 16×")
        );
        assert_eq!(
            breakable_parts("437 µs – 735 µs"),
            format!("437{nb}µs{nb}– 735{nb}µs")
        );
        assert_eq!(breakable_parts("a<b"), "a&lt;b");
    }

    #[test]
    fn long_text_folds_so_tables_fit_a_laptop_window() {
        let short = td(&Cell::of_kind("short", CellKind::Long), Align::Left, None);
        assert_eq!(short, "<td>short</td>");
        let long = "codec=zstd; ".repeat(12);
        let folded = td(
            &Cell::of_kind(long.as_str(), CellKind::Long),
            Align::Left,
            None,
        );
        assert!(folded.starts_with("<td class=\"long\"><details><summary>codec=zstd;"));
        assert!(folded.contains("…</summary>") && folded.ends_with("</details></td>"));
        assert!(folded.contains(&long), "the whole text stays, folded");
    }

    #[test]
    fn a_status_spans_the_columns_it_stands_for_joined_or_not() {
        let mut columns = vec![Column::left("name"), Column::right("median")];
        for header in ["first", "warm"] {
            columns.push(Column {
                joined: Some("first · warm"),
                ..Column::right(header)
            });
        }
        columns.push(Column::right("ratio"));
        let status = Cell::of_kind(
            "failed",
            CellKind::Status {
                reason: "crashed".into(),
                span: 4,
            },
        );
        let dash = || Cell::text("—");
        let rows = vec![
            Row::from(vec![
                Cell::text("a"),
                Cell::text("1 ms"),
                Cell::text("2 ms"),
                Cell::text("1 ms"),
                Cell::text("1.00×"),
            ]),
            Row::from(vec![Cell::text("b"), status, dash(), dash(), dash()]),
        ];
        let html = table(&Table::new(columns, rows));
        // name, median, first · warm, ratio: the status covers the last three.
        assert_eq!(html.matches("<th scope=\"col\"").count(), 4);
        assert!(html.contains("<td class=\"num parts\">2\u{a0}ms\u{a0}· 1\u{a0}ms</td>"));
        assert!(html.contains(
            "<tr><td>b</td><td colspan=\"3\"><span class=\"status\">failed</span> crashed</td></tr>"
        ));
    }
}
