//! The comparison on stdout: what differs between the environments first, then one line per
//! cell either run measured, then the counts.

use super::model::Comparison;
use super::rows::{listing, short};
use unicode_width::UnicodeWidthStr;

/// Every measured cell is listed on a terminal; the exports are the short forms.
const ALL: usize = usize::MAX;

pub fn render(cmp: &Comparison) -> String {
    let mut out = format!(
        "BASE {} ({})\nNEW  {} ({})\n",
        cmp.base.run_id,
        cmp.base.dir.display(),
        cmp.new.run_id,
        cmp.new.dir.display()
    );
    if cmp.differences.is_empty() {
        out.push_str("environments: no difference recorded\n");
    } else {
        out.push_str("what differs between the environments:\n");
        for d in &cmp.differences {
            out.push_str(&format!("  {}\n", short(&d.text(), 160)));
        }
    }
    out.push_str(&format!("{}\n\n", cmp.rule_text()));
    let listing = listing(cmp, ALL);
    let header = [
        "cell",
        "base",
        "new",
        "NEW ÷ BASE [95 %]",
        "peak mem",
        "verdict",
    ];
    let table: Vec<[String; 6]> = listing
        .rows
        .iter()
        .map(|r| {
            [
                r.label.clone(),
                r.base.clone(),
                r.new.clone(),
                r.ratio.clone(),
                r.memory.clone(),
                r.verdict_text.clone(),
            ]
        })
        .collect();
    let mut widths = header.map(UnicodeWidthStr::width);
    for row in &table {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            let pad = " ".repeat(w.saturating_sub(cell.width()));
            // Names and verdicts read left to right; figures line up on the right.
            if i == 0 || i == 5 {
                text.push_str(&format!("{cell}{pad}"));
            } else {
                text.push_str(&format!("{pad}{cell}"));
            }
            text.push_str(if i < 5 { "  " } else { "" });
        }
        format!("{}\n", text.trim_end())
    };
    out.push_str(&line(header));
    for row in &table {
        out.push_str(&line([
            &row[0], &row[1], &row[2], &row[3], &row[4], &row[5],
        ]));
    }
    if listing.not_measured > 0 {
        out.push_str(&format!(
            "({} cells measured in neither run are not listed)\n",
            listing.not_measured
        ));
    }
    out.push_str(&format!("\n{}\n", cmp.counts_text()));
    out
}
