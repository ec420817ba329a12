//! The HTML elements every section of the report is built from: headers, cells, a section's
//! opening and its empty-state line.

use super::super::format::{html_escape as esc, truncate};
use std::fmt::Write;

/// A header cell list; numeric columns get the right-aligning class.
pub(super) fn thead(out: &mut String, columns: &[(&str, bool)]) {
    out.push_str("<thead><tr>");
    for (name, right) in columns {
        let class = if *right { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th scope=\"col\"{class}>{}</th>", esc(name));
    }
    out.push_str("</tr></thead>\n");
}

pub(super) fn td(out: &mut String, text: &str) {
    let _ = write!(out, "<td>{}</td>", esc(text));
}

/// Text longer than this is folded into `<details>` so that its table fits a laptop's window.
pub(super) const FOLD_AFTER: usize = 72;

/// A cell whose long text (settings, kernel parameters) is folded: its start shows, the rest
/// opens on a click.
pub(super) fn td_folded(out: &mut String, text: &str) {
    if text.chars().count() <= FOLD_AFTER {
        return td(out, text);
    }
    let _ = write!(
        out,
        "<td class=\"long\"><details><summary>{}</summary>{}</details></td>",
        esc(&truncate(text, FOLD_AFTER - 11)),
        esc(text)
    );
}

pub(super) fn td_num(out: &mut String, text: &str) {
    let _ = write!(out, "<td class=\"num\">{}</td>", esc(text));
}

pub(super) fn section(out: &mut String, id: &str, title: &str) {
    let _ = writeln!(out, "<section id=\"{id}\">\n<h2>{}</h2>", esc(title));
}

pub(super) fn empty(out: &mut String, text: &str) {
    let _ = writeln!(out, "<p class=\"muted\">{}</p>\n</section>", esc(text));
}
