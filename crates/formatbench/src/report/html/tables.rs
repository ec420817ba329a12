//! The per-operation result tables and the summary across operations of the HTML page.

use super::super::charts::{Chart, Place};
use super::super::format::{html_escape as esc, truncate};
use super::super::overall::{geo_tables, LEGEND_GEOMEAN};
use super::super::rows::{detail_fields, flag_list, rows, Field, Row};
use super::super::{
    group_notes, group_title, ran, winner, LEGEND_BYTES, LEGEND_CPU, LEGEND_FLAG, LEGEND_NOISY,
    LEGEND_PAR, LEGEND_RATIO, SHORT_REASON,
};
use super::elements::{empty, section, td, td_num, td_parts, thead};
use super::tradeoffs::charts_at;
use crate::results::SampleStatus;
use crate::stats::{CellSummary, RunSummary};
use std::fmt::Write;

/// The opening tag of a results row: a cell that ran carries its identity for tools that read
/// the page (`class="cell"` and `data-*`); the others are plain rows.
fn row_tag(c: &CellSummary) -> String {
    if !ran(c) {
        return "<tr>".to_string();
    }
    let k = &c.cell;
    format!(
        "<tr class=\"cell\" data-backend=\"{}\" data-profile=\"{}\" data-op=\"{}\" \
         data-cache=\"{}\" data-threads=\"{}\" data-dataset=\"{}\">",
        esc(&k.backend),
        esc(&k.profile),
        esc(&k.op),
        esc(&k.cache),
        k.threads,
        esc(&k.dataset)
    )
}

/// A column of the HTML table: one field, or two that read together in one cell (fewer,
/// narrower columns, so the table fits a laptop's window).
enum Column {
    One(Field),
    Joined(&'static [Field], &'static str),
}

impl Column {
    fn header(&self) -> &'static str {
        match self {
            Column::One(f) => f.name(),
            Column::Joined(_, header) => header,
        }
    }
}

/// Fields shown together in one cell each: first · warm calls, size · bytes per value, and a
/// cold read's residency · bytes read · read amplification.
const JOINED: [(&[Field], &str); 3] = [
    (&[Field::FirstCall, Field::WarmCall], "First · warm calls"),
    (&[Field::Size, Field::PerValue], "Size · B/value"),
    (
        &[Field::Resident, Field::Read, Field::Amplification],
        "Resident · read · amplification",
    ),
];

fn paired(fields: &[Field]) -> Vec<Column> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fields.len() {
        let joined = JOINED
            .iter()
            .find(|(group, _)| fields[i..].starts_with(group));
        match joined {
            Some(&(group, header)) => {
                out.push(Column::Joined(group, header));
                i += group.len();
            }
            None => {
                out.push(Column::One(fields[i]));
                i += 1;
            }
        }
    }
    out
}

/// Each row's method and settings, folded under its table.
fn methods(out: &mut String, rows: &[Row<'_>]) {
    out.push_str(
        "<details class=\"methods\"><summary>How each was done, and its settings</summary>\n\
         <div class=\"scroll\"><table>\n",
    );
    thead(
        out,
        &[
            ("Backend", false),
            ("Profile", false),
            ("Method", false),
            ("Settings", false),
        ],
    );
    out.push_str("<tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        td(out, r.backend);
        td(out, &r.profile);
        super::elements::td_folded(out, r.text(Field::Method));
        super::elements::td_folded(out, r.text(Field::Settings));
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</details>\n");
}

pub(super) fn results(out: &mut String, summary: &RunSummary, charts: &[Chart]) {
    section(out, "results", "Results");
    if summary.groups.is_empty() {
        return empty(out, "No results were recorded.");
    }
    let _ = writeln!(
        out,
        "<p class=\"legend\">Rows are fastest first; the fastest is highlighted. \
         * {}. ! {}. Ratio = {}. CPU ratio = {}. Parallelism = {}. Read bytes = {}. \
         Settings: the artifact’s fairness manifest.</p>",
        esc(LEGEND_NOISY),
        esc(LEGEND_FLAG),
        esc(LEGEND_RATIO),
        esc(LEGEND_CPU),
        esc(LEGEND_PAR),
        esc(LEGEND_BYTES)
    );
    for (index, group) in summary.groups.iter().enumerate() {
        let _ = writeln!(out, "<h3>{}</h3>", esc(&group_title(group)));
        for note in group_notes(group) {
            let class = if note.starts_with("warning: ") {
                "warning"
            } else {
                "note"
            };
            let _ = writeln!(out, "<p class=\"{class}\">{}</p>", esc(&note));
        }
        charts_at(out, charts, &Place::Group(index));
        out.push_str("<div class=\"scroll\"><table>\n");
        // How each cell was done and what it wrote are long text: they go in a fold under
        // the table, so the numbers fit a laptop's window.
        let fields: Vec<Field> = detail_fields(group)
            .into_iter()
            .filter(|f| !matches!(f, Field::Method | Field::Settings))
            .collect();
        let cells = paired(&fields);
        let mut columns = vec![("Backend", false), ("Profile", false), ("Median", true)];
        columns.extend(cells.iter().map(|c| (c.header(), true)));
        thead(out, &columns);
        out.push_str("<tbody>\n");
        let best = winner(group);
        let rows = rows(group, &summary.artifacts);
        for (i, (r, c)) in rows.iter().zip(&group.cells).enumerate() {
            let badge = if Some(i) == best {
                "<span class=\"badge\">fastest</span>"
            } else {
                ""
            };
            let flag = if r.flags.is_empty() {
                ""
            } else {
                "<span class=\"flag\" title=\"flagged\">!</span>"
            };
            let _ = write!(
                out,
                "{}<td>{}{flag}{badge}</td>",
                row_tag(c),
                esc(r.backend)
            );
            td(out, &r.profile);
            if r.status == SampleStatus::Ok {
                let mark = if r.noisy {
                    "<span title=\"noisy\">*</span>"
                } else {
                    ""
                };
                match c.wall.filter(|_| ran(c)) {
                    Some(wall) => {
                        let _ = write!(
                            out,
                            "<td class=\"median\" data-seconds=\"{}\">{}{mark}</td>",
                            wall.median,
                            esc(&r.median)
                        );
                    }
                    None => td_num(out, &r.median),
                }
                for cell in &cells {
                    match cell {
                        Column::One(f) if !f.right() => td(out, r.text(*f)),
                        Column::One(f) => td_parts(out, r.text(*f)),
                        Column::Joined(group, _) => {
                            let texts: Vec<&str> = group.iter().map(|f| r.text(*f)).collect();
                            td_parts(out, &texts.join(" · "))
                        }
                    }
                }
            } else {
                // The median and every column up to the settings.
                let _ = write!(
                    out,
                    "<td colspan=\"{}\"><span class=\"status\">{}</span>",
                    cells.len(),
                    r.status.name()
                );
                if !r.reason.is_empty() {
                    let _ = write!(out, " {}", esc(&truncate(&r.reason, SHORT_REASON)));
                }
                out.push_str("</td>");
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table></div>\n");
        methods(out, &rows);
        let flags = flag_list(&rows);
        if !flags.is_empty() {
            out.push_str("<ul class=\"flags\">\n");
            for (label, flag) in flags {
                let _ = writeln!(out, "<li>! {}: {}</li>", esc(&label), esc(&flag));
            }
            out.push_str("</ul>\n");
        }
    }
    out.push_str("</section>\n");
}

pub(super) fn overall(out: &mut String, summary: &RunSummary, charts: &[Chart]) {
    let tables = geo_tables(summary);
    if tables.is_empty() {
        return;
    }
    section(out, "overall", "Summary across operations");
    let _ = writeln!(
        out,
        "<p class=\"legend\">Geomean ratio = {}. Rows are best first.</p>",
        esc(LEGEND_GEOMEAN)
    );
    let columns = [
        ("Backend", false),
        ("Profile", false),
        ("Geomean ratio", true),
        ("Ops", true),
    ];
    for (index, t) in tables.iter().enumerate() {
        let _ = writeln!(out, "<h3>{}</h3>", esc(&t.heading()));
        charts_at(out, charts, &Place::Geo(index));
        out.push_str("<div class=\"scroll\"><table>\n");
        thead(out, &columns);
        out.push_str("<tbody>\n");
        for r in &t.rows {
            out.push_str("<tr>");
            td(out, &r.backend);
            td(out, &r.profile);
            td_num(out, &r.ratio);
            td_num(out, &r.ops);
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table></div>\n");
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::super::super::fixture::fixture;
    use super::super::render;

    /// The HTML report of the test fixture.
    fn page() -> String {
        render(&fixture(), &crate::report::sections(&fixture(), None))
    }

    #[test]
    fn reasons_and_settings_are_escaped() {
        let text = page();
        assert!(text.contains("worker crashed: &lt;signal 11&gt; | core dumped"));
        assert!(!text.contains("<signal") && !text.contains("<level"));
        // Long settings are folded, whole and escaped.
        assert!(text.contains(
            "profile_settings=zstd &lt;level 3&gt; | dictionary off; \
             codecs=ZSTD(3); encodings=PLAIN RLE; row_groups=2</details></td></tr>"
        ));
    }

    #[test]
    fn tables_highlight_the_winner_and_list_flags() {
        let text = page();
        assert_eq!(
            text.matches("<span class=\"badge\">fastest</span>").count(),
            4
        );
        assert!(text.contains(
            "<tr class=\"cell\" data-backend=\"ipc\" data-profile=\"plain\" data-op=\"read\" \
             data-cache=\"warm\" data-threads=\"2\" data-dataset=\"mixed-100000x61\">\
             <td>ipc<span class=\"badge\">fastest</span></td><td>plain</td>\
             <td class=\"median\" data-seconds=\"0.0123\">12.3 ms</td>"
        ));
        assert!(text.contains(
            "<tr class=\"cell\" data-backend=\"parquet\" data-profile=\"zstd\" data-op=\"read\" \
             data-cache=\"warm\" data-threads=\"2\" data-dataset=\"mixed-100000x61\">\
             <td>parquet<span class=\"flag\" title=\"flagged\">!</span></td><td>zstd</td>\
             <td class=\"median\" data-seconds=\"0.0167\">16.7 ms<span title=\"noisy\">*</span></td>"
        ));
        // A cell that did not run is a plain row without a median.
        assert!(text.contains("<tr><td>csv</td><td>default</td><td colspan="));
        assert!(text.contains("data-op=\"write\" data-cache=\"n/a\" data-threads=\"1\""));
        assert!(text.contains("<li>! parquet/zstd: cache state missed: 40 % resident</li>"));
        assert!(text.contains("<h3>mixed-100000x61 · scan · cache warm · threads 2</h3>"));
        assert!(text.contains(
            "<h3>mixed-100000x61 · read · cache cold · threads 2</h3>\n\
             <p class=\"note\">no clear winner: the runner-up&#39;s 95 % interval includes 1</p>"
        ));
        assert!(text.contains("<p class=\"warning\">warning: competitors differ"));
        assert!(text.contains("<span class=\"status\">unsupported</span> scan is not supported"));
        assert!(text.contains("<th scope=\"row\">CPU</th><td>AMD EPYC 7763</td>"));
        assert!(text.contains("<th scope=\"row\">Schedule hash</th><td>xxh3:0123abcd</td>"));
    }

    #[test]
    fn cold_columns_and_failed_rows_keep_the_table_shape() {
        let text = page();
        let cold = text
            .split("<h3>mixed-100000x61 · read · cache cold · threads 2</h3>")
            .nth(1)
            .and_then(|t| t.split("</table>").next())
            .unwrap_or_default();
        // Residency, bytes read and amplification read together in one column.
        assert!(
            cold.contains("<th scope=\"col\" class=\"num\">Resident · read · amplification</th>")
        );
        assert!(cold
            .contains("<td class=\"num parts\">2\u{a0}%\u{a0}· 11.8\u{a0}MiB\u{a0}· 0.26×</td>"));
        let scan = text
            .split("<h3>mixed-100000x61 · scan · cache warm · threads 2</h3>")
            .nth(1)
            .and_then(|t| t.split("</table>").next())
            .unwrap_or_default();
        assert!(!scan.contains("Resident"));
        let headers = scan.matches("<th scope=\"col\"").count();
        // Backend, profile, and the status cell spanning every other column.
        assert!(scan.contains(&format!("<td colspan=\"{}\">", headers - 3)));
    }

    #[test]
    fn summary_across_operations() {
        let text = page();
        let overall = text
            .split("<section id=\"overall\">")
            .nth(1)
            .unwrap_or_default();
        assert!(overall.contains(
            "<h3>mixed-100000x61 · cache warm · threads 2 (read, scan)</h3>\n<figure class=\"scroll\">\n\
             <svg class=\"chart\""
        ));
        let ipc = overall.find("<td>ipc</td><td>plain</td><td class=\"num\">1.00×</td>");
        let parquet = overall.find("<td>parquet</td><td>zstd</td><td class=\"num\">1.17×</td>");
        assert!(ipc.is_some() && ipc < parquet);
    }
}
