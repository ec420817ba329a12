//! The charts in the page, and the sections that are mostly charts: size against time with the
//! Pareto frontier of each dataset, and scaling with rows.

use super::super::charts::{Chart, Place};
use super::super::format::html_escape as esc;
use super::super::pareto::{frontiers, LEGEND};
use super::super::pick::dataset_names;
use super::elements::{section, td, td_num, thead};
use crate::stats::RunSummary;
use std::fmt::Write;

/// Every chart that belongs at `place`, inline.
pub(super) fn charts_at(out: &mut String, charts: &[Chart], place: &Place) {
    for chart in charts.iter().filter(|c| c.place == *place) {
        out.push_str("<figure class=\"scroll\">\n");
        out.push_str(&chart.inline());
        out.push_str("</figure>\n");
    }
}

/// A table whose first column is text and the rest numbers.
pub(super) fn plain_table(
    out: &mut String,
    caption: &str,
    headers: &[String],
    rows: &[Vec<String>],
) {
    out.push_str("<div class=\"scroll\"><table>\n");
    if !caption.is_empty() {
        let _ = writeln!(out, "<caption>{}</caption>", esc(caption));
    }
    let columns: Vec<(&str, bool)> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), i > 0))
        .collect();
    thead(out, &columns);
    out.push_str("<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            if i == 0 {
                td(out, cell);
            } else {
                td_num(out, cell);
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
}

/// Per dataset: size against time, then the frontier's members with their figures.
pub(super) fn tradeoffs(out: &mut String, summary: &RunSummary, charts: &[Chart]) {
    let frontiers = frontiers(summary);
    if frontiers.is_empty() {
        return;
    }
    section(out, "tradeoffs", "Trade-offs");
    let _ = writeln!(
        out,
        "<p class=\"legend\">Pareto frontier: {}.</p>",
        esc(LEGEND)
    );
    for dataset in dataset_names(summary) {
        let Some(f) = frontiers.iter().find(|f| f.dataset == dataset) else {
            continue;
        };
        let _ = writeln!(out, "<h3>{}</h3>", esc(&dataset));
        charts_at(out, charts, &Place::Dataset(dataset.clone()));
        let headers: Vec<String> = f.headers().iter().map(|h| h.to_string()).collect();
        let caption = format!("Pareto frontier ({})", f.sources.join("; "));
        plain_table(out, &caption, &headers, &f.rows());
        let off = f.dominated_text();
        if !off.is_empty() {
            let _ = writeln!(
                out,
                "<p class=\"muted\">Off the frontier: {}.</p>",
                esc(&off.join("; "))
            );
        }
    }
    out.push_str("</section>\n");
}
