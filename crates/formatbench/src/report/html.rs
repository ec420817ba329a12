//! One self-contained HTML5 page: inline CSS only, no scripts, no fonts or images to fetch, so
//! it opens the same offline, from an archive, or attached to a CI run.

mod elements;
mod tables;
mod tradeoffs;

use super::format::{self, html_escape as esc, DASH};
use super::{
    artifact_settings, artifact_size, charts, environment_rows, group_title, not_measured,
    recommendation,
};
use crate::stats::RunSummary;
use elements::{empty, section, td, td_folded, td_num, thead};
use std::fmt::Write;
use tables::{overall, results};

const STYLE: &str = r#"
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d1d9e0; --head: #f6f8fa;
  --win: #dafbe1; --win-edge: #1a7f37; --bad: #cf222e;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --head: #151b23;
    --win: #12361f; --win-edge: #3fb950; --bad: #f85149;
  }
}
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 86rem; margin: 0 auto; padding: 1.5rem 1rem; }
h1 { margin-top: 0; }
h2 { border-bottom: 1px solid var(--border); padding-bottom: 0.2rem; margin-top: 2rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-variant-numeric: tabular-nums;
  font-size: 0.88em; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border: 1px solid var(--border); padding: 0.25rem 0.45rem; text-align: left; vertical-align: top; }
th { background: var(--head); }
.num { text-align: right; white-space: nowrap; }
th.num { white-space: normal; }
td.parts { white-space: normal; }
tr:has(> td > .badge) td { background: var(--win); font-weight: 600; }
tr:has(> td > .badge) td:first-child { box-shadow: inset 4px 0 0 var(--win-edge); }
figure { margin: 0; }
td.median { text-align: right; white-space: nowrap; }
#recommendation { border-left: 4px solid var(--win-edge); background: var(--head);
  padding: 0.4rem 0.8rem; margin: 0.5rem 0 1rem; }
.badge { display: inline-block; margin-left: 0.4rem; padding: 0 0.4rem; border-radius: 0.6rem;
  font-size: 0.75em; font-weight: 600; color: var(--bg); background: var(--win-edge); }
.status, .flag { color: var(--bad); font-weight: 600; }
.warning { color: var(--bad); margin: 0.3rem 0; }
.note { font-weight: 600; margin: 0.3rem 0; }
ul.flags { margin-top: -1rem; color: var(--muted); }
h3 { margin-bottom: 0.3rem; }
.muted, .legend { color: var(--muted); }
td.long { max-width: 40rem; overflow-wrap: anywhere; }
td.long summary { cursor: pointer; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
"#;

pub fn render(summary: &RunSummary, sections: &[super::Section]) -> String {
    let mut out = format::html_head("formatbench report");
    out.push_str(STYLE);
    out.push_str(&charts::html_style());
    out.push_str("</style>\n</head>\n<body>\n<main>\n<h1>formatbench report</h1>\n");
    let charts = charts::all(summary);
    // The answer first; what it was measured on after the results.
    glance(&mut out, summary);
    results(&mut out, summary, &charts);
    overall(&mut out, summary, &charts);
    tradeoffs::tradeoffs(&mut out, summary, &charts);
    for section in sections {
        study_section(&mut out, section, &charts);
    }
    cache_table(&mut out, summary);
    missing(&mut out, summary);
    environment(&mut out, summary);
    datasets(&mut out, summary);
    artifacts(&mut out, summary);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn glance(out: &mut String, summary: &RunSummary) {
    section(out, "glance", "At a glance");
    if summary.groups.is_empty() {
        return empty(out, "No results were recorded.");
    }
    if let Some(text) = recommendation(summary) {
        let _ = writeln!(
            out,
            "<p id=\"recommendation\"><strong>Recommendation:</strong> {}</p>",
            esc(&text)
        );
    }
    let _ = writeln!(
        out,
        "<p id=\"call\">Times are {}.</p>",
        esc(summary.call.describe())
    );
    out.push_str(&crate::document::html_table(&super::glance::table(summary)));
    let _ = writeln!(
        out,
        "<p class=\"legend\">{}</p>",
        esc(super::glance::LEGEND)
    );
    out.push_str("</section>\n");
}

fn key_value_table(out: &mut String, rows: &[(String, String)]) {
    out.push_str("<div class=\"scroll\"><table>\n<tbody>\n");
    for (key, value) in rows {
        let _ = write!(out, "<tr><th scope=\"row\">{}</th>", esc(key));
        td_folded(out, value);
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
}

fn environment(out: &mut String, summary: &RunSummary) {
    section(out, "environment", "Environment");
    let rows = environment_rows(summary);
    if rows.is_empty() {
        return empty(out, "No environment was recorded.");
    }
    key_value_table(out, &rows);
}

fn datasets(out: &mut String, summary: &RunSummary) {
    section(out, "datasets", "Datasets");
    if summary.datasets.is_empty() {
        return empty(out, "No datasets were recorded.");
    }
    out.push_str("<div class=\"scroll\"><table>\n");
    let columns = [
        ("Dataset", false),
        ("Rows", true),
        ("Columns", true),
        ("Fingerprint", false),
        ("Source size", true),
    ];
    thead(out, &columns);
    out.push_str("<tbody>\n");
    for d in &summary.datasets {
        out.push_str("<tr>");
        td(out, &d.dataset);
        td_num(out, &format::count(d.rows));
        td_num(out, &format::count(d.columns));
        let _ = write!(out, "<td><code>{}</code></td>", esc(&d.dataset_fingerprint));
        td_num(out, &format::bytes(d.source_bytes));
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
}

fn artifacts(out: &mut String, summary: &RunSummary) {
    section(out, "artifacts", "Artifacts and settings");
    if summary.artifacts.is_empty() {
        return empty(out, "No artifacts were recorded.");
    }
    out.push_str("<div class=\"scroll\"><table>\n");
    let columns = [
        ("Dataset", false),
        ("Backend", false),
        ("Profile", false),
        ("Layout", false),
        ("Size", true),
        ("B/value", true),
        ("Settings", false),
    ];
    thead(out, &columns);
    out.push_str("<tbody>\n");
    for a in &summary.artifacts {
        out.push_str("<tr>");
        for text in [&a.dataset, &a.backend, &a.profile, &a.layout] {
            td(out, text);
        }
        td_num(out, &artifact_size(a));
        td_num(
            out,
            &a.bytes_per_value
                .map_or_else(|| DASH.to_string(), format::per_value),
        );
        td_folded(out, &artifact_settings(a));
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
}

fn missing(out: &mut String, summary: &RunSummary) {
    section(out, "not-measured", "Not measured");
    let cells = not_measured(summary);
    let shortfall = super::shortfall(summary);
    if shortfall.is_none() && cells.is_empty() {
        return empty(out, "Every cell was measured.");
    }
    if let Some((why, short)) = shortfall {
        let _ = writeln!(
            out,
            "<p id=\"incomplete\"><strong>{}</strong></p>",
            esc(&why)
        );
        out.push_str("<ul>\n");
        for line in short {
            let _ = writeln!(out, "<li>{}</li>", esc(&line));
        }
        out.push_str("</ul>\n");
    }
    if cells.is_empty() {
        out.push_str("</section>\n");
        return;
    }
    out.push_str("<ul>\n");
    for (group, c) in cells {
        let _ = write!(
            out,
            "<li>{} · {} {} ({}, {}): <span class=\"status\">{}</span>",
            esc(&group_title(group)),
            esc(&c.cell.backend),
            esc(&c.cell.shown_profile()),
            esc(&c.cell.layout),
            esc(&c.cell.target),
            c.status.name(),
        );
        if let Some(reason) = c.reason.as_deref().filter(|r| !r.trim().is_empty()) {
            let _ = write!(out, " — {}", esc(&format::one_line(reason)));
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ul>\n</section>\n");
}

/// A section after the results: its charts, each followed by its own table, then its tables
/// with their legends.
fn study_section(out: &mut String, s: &super::Section, charts: &[charts::Chart]) {
    let placed: Vec<&charts::Chart> = charts
        .iter()
        .filter(|c| Some(&c.place) == s.place.as_ref())
        .collect();
    if placed.is_empty() && s.tables.is_empty() {
        return;
    }
    section(out, s.id, s.heading);
    for chart in placed {
        let _ = writeln!(out, "<h3>{}</h3>", esc(&chart.title));
        out.push_str("<figure class=\"scroll\">\n");
        out.push_str(&chart.inline());
        out.push_str("</figure>\n");
        if let Some(t) = &chart.table {
            tradeoffs::plain_table(out, "", &t.headers, &t.rows);
        }
    }
    for table in &s.tables {
        let _ = writeln!(
            out,
            "<h3>{}</h3>\n<p class=\"legend\">{}.</p>",
            esc(&table.title),
            esc(table.legend)
        );
        out.push_str(&crate::document::html_table(&table.document()));
    }
    out.push_str("</section>\n");
}

fn cache_table(out: &mut String, summary: &RunSummary) {
    let rows = super::cache::rows(summary);
    if rows.is_empty() {
        return;
    }
    section(out, "cache", "Cold cache against warm");
    let _ = writeln!(
        out,
        "<p class=\"legend\">{}.</p>",
        esc(super::cache::LEGEND)
    );
    out.push_str("<div class=\"scroll\"><table>\n");
    let columns: Vec<(&str, bool)> = super::cache::HEADERS
        .iter()
        .enumerate()
        .map(|(i, h)| (*h, i >= 3))
        .collect();
    thead(out, &columns);
    out.push_str("<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            if i >= 3 {
                td_num(out, cell);
            } else {
                td(out, cell);
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::super::fixture::fixture;
    use super::*;

    #[test]
    fn self_contained_and_themed() {
        let text = render(&fixture(), &crate::report::sections(&fixture(), None));
        assert!(text.starts_with("<!DOCTYPE html>\n"));
        assert!(text.ends_with("</html>\n"));
        assert!(!text.to_ascii_lowercase().contains("<script"));
        assert!(!text.contains("http://") && !text.contains("https://") && !text.contains("<link"));
        assert!(text.contains("@media (prefers-color-scheme: dark)"));
        assert!(text.contains("var(--bg)"));
    }

    #[test]
    fn glance_names_the_winner_and_the_margin() {
        let text = render(&fixture(), &crate::report::sections(&fixture(), None));
        let glance = text
            .split("<section id=\"glance\">")
            .nth(1)
            .and_then(|s| s.split("</section>").next())
            .unwrap_or_default();
        assert!(glance.contains(
            "<td>mixed-100000x61 · read · cache warm · threads 2</td><td>ipc/plain (default)</td>\
             <td class=\"num\">12.3 ms</td><td class=\"num\">1.36× [1.30–1.41]</td>"
        ));
        assert!(glance.contains(
            "<td>mixed-100000x61 · read · cache cold · threads 2</td><td>ipc/plain (default)</td>\
             <td class=\"num\">30.0 ms</td><td class=\"num\">1.02× [0.97–1.08]</td>"
        ));
        assert!(glance.contains("no clear winner"));
        assert!(glance.contains(
            "<td>parquet/zstd (default)</td><td class=\"num\">1.24 s</td><td class=\"num\">—</td>"
        ));
        assert!(glance.contains("<td class=\"num\">500 ms</td><td class=\"num\">—</td>"));
        // Size beside speed: the smallest format of each operation, with its size.
        assert!(glance.contains(">Smallest</th>"));
        assert!(glance.contains("<td>parquet/zstd (default) (11.8 MiB)</td>"));
    }

    #[test]
    fn long_settings_fold_so_tables_fit_a_laptop_window() {
        let mut out = String::new();
        elements::td_folded(&mut out, "short");
        assert_eq!(out, "<td>short</td>");
        let long = "codec=zstd; ".repeat(12);
        let mut out = String::new();
        elements::td_folded(&mut out, &long);
        assert!(out.starts_with("<td class=\"long\"><details><summary>codec=zstd;"));
        assert!(out.contains("…</summary>") && out.ends_with("</details></td>"));
        assert!(out.contains(&long), "the whole text stays, folded");
    }

    #[test]
    fn same_summary_same_bytes() {
        assert_eq!(
            render(&fixture(), &crate::report::sections(&fixture(), None)),
            render(&fixture(), &crate::report::sections(&fixture(), None))
        );
        let empty = render(&RunSummary::default(), &[]);
        assert!(empty.contains("No results were recorded.") && !empty.contains("winner\">"));
        assert!(!empty.contains("id=\"overall\""));
    }
}
