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

/// A numeric cell of several parts ("2 % · 11.8 MiB of 13.7 MiB · 0.26×", "1.2 ms – 3.4 ms"):
/// it may wrap between parts, never inside one, so that a wide table still fits a laptop's
/// window without breaking a number from its unit.
pub(super) fn td_parts(out: &mut String, text: &str) {
    let _ = write!(
        out,
        "<td class=\"num parts\">{}</td>",
        breakable_parts(text)
    );
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

pub(super) fn section(out: &mut String, id: &str, title: &str) {
    let _ = writeln!(out, "<section id=\"{id}\">\n<h2>{}</h2>", esc(title));
}

pub(super) fn empty(out: &mut String, text: &str) {
    let _ = writeln!(out, "<p class=\"muted\">{}</p>\n</section>", esc(text));
}

#[cfg(test)]
mod tests {
    use super::breakable_parts;

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
}
