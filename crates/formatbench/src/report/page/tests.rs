//! Tests of the run report's document, as Markdown and as a page.

use super::super::fixture::{fixture, DATASET};
use crate::stats::RunSummary;

/// The HTML report of the test fixture.
fn page() -> String {
    crate::report::html(&fixture())
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
    assert!(cold.contains("<th scope=\"col\" class=\"num\">Resident · read · amplification</th>"));
    assert!(
        cold.contains("<td class=\"num parts\">2\u{a0}%\u{a0}· 11.8\u{a0}MiB\u{a0}· 0.26×</td>")
    );
    let scan = text
        .split("<h3>mixed-100000x61 · scan · cache warm · threads 2</h3>")
        .nth(1)
        .and_then(|t| t.split("</table>").next())
        .unwrap_or_default();
    assert!(!scan.contains("Resident"));
    let headers = scan.matches("<th scope=\"col\"").count();
    // Backend, profile, and the status cell spanning every other column: the median's too.
    assert!(scan.contains(&format!("<td colspan=\"{}\">", headers - 2)));
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

#[test]
fn self_contained_and_themed() {
    let text = crate::report::html(&fixture());
    assert!(text.starts_with("<!DOCTYPE html>\n"));
    assert!(text.ends_with("</html>\n"));
    assert!(!text.to_ascii_lowercase().contains("<script"));
    assert!(!text.contains("http://") && !text.contains("https://") && !text.contains("<link"));
    assert!(text.contains("@media (prefers-color-scheme: dark)"));
    assert!(text.contains("var(--bg)"));
}

#[test]
fn glance_names_the_winner_and_the_margin() {
    let text = crate::report::html(&fixture());
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
fn same_summary_same_bytes() {
    assert_eq!(
        crate::report::html(&fixture()),
        crate::report::html(&fixture())
    );
    let empty = crate::report::html(&RunSummary::default());
    assert!(empty.contains("No results were recorded.") && !empty.contains("winner\">"));
    assert!(!empty.contains("id=\"overall\""));
}

// Markdown.

/// The text of one `###` section, up to the next heading.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text.find(&format!("### {heading}\n")).unwrap_or(text.len());
    let rest = &text[start..];
    let end = rest[4..].find("\n#").map_or(rest.len(), |e| e + 4);
    &rest[..end]
}

#[test]
fn tables_have_headers_and_escaped_pipes() {
    let text = crate::report::markdown(&fixture());
    assert!(text.starts_with("# formatbench report\n"));
    let warm = section(&text, "mixed-100000x61 · read · cache warm · threads 2");
    assert!(warm.contains(
        "| Backend | Profile | Median | Min–max | First call | Warm calls | Throughput | \
         Ratio [95 % CI] | CPU ratio [95 % CI] | Parallelism | Calls | Size | B/value | Peak mem | \
         Resident | Read bytes | Read amplification | Method | Settings |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | \
         ---: | ---: | ---: | ---: | --- | --- |\n"
    ));
    assert!(
        warm.contains(
            "| ipc | plain | 12.3 ms | 11.1 ms – 18.5 ms | — | — | 3.90 GB/s · 8.13 M rows/s | \
         1.00× | 1.00× | 1.90 | 1 |"
        ),
        "{warm}"
    );
    assert!(warm.contains(
        "| parquet! | zstd | 16.7 ms\\* | 15.0 ms – 25.0 ms | — | — | 2.87 GB/s · 5.99 M rows/s | \
         1.36× [1.30–1.41] | 0.87× [0.80–0.95] | 1.00 | 1 | 11.8 MiB | 2.02 | 200 MiB | 40 % | — | — | \
         mmap | "
    ), "{warm}");
    assert!(warm.contains("| csv | default | **failed** | — |"));
    // The reason's pipe must not split a cell, and its `<` must not open a tag.
    assert!(text.contains("worker crashed: &lt;signal 11> \\| core dumped"));
    assert!(!text.contains("<signal"));
}

#[test]
fn settings_column_holds_the_escaped_manifest() {
    let text = crate::report::markdown(&fixture());
    let warm = section(&text, "mixed-100000x61 · read · cache warm · threads 2");
    assert!(warm.contains(
        "| mmap | profile_settings=zstd &lt;level 3> \\| dictionary off; codecs=ZSTD(3); \
         encodings=PLAIN RLE; row_groups=2 |\n"
    ));
    assert!(warm.contains("| mmap | codec=none; blocks=2 |\n"));
    // A failed cell still shows what it would have read.
    assert!(warm.contains("| — | — | — |\n"));
}

#[test]
fn notes_flags_and_cold_columns() {
    let text = crate::report::markdown(&fixture());
    let cold = section(&text, "mixed-100000x61 · read · cache cold · threads 2");
    assert!(cold.contains(
        "\n\nno clear winner: the runner-up's 95 % interval includes 1\n\n\
         ![mixed-100000x61 · read · cache cold · threads 2: median wall time (first calls)](chart-3.svg)\n\n\
         | Backend"
    ));
    assert!(cold.contains("| 0 % | 45.8 MiB | 1.0× | mmap |"));
    let warm = section(&text, "mixed-100000x61 · read · cache warm · threads 2");
    assert!(warm.contains("\n\nwarning: competitors differ in measured parallelism"));
    assert!(warm.contains("\n- ! parquet/zstd: cache state missed: 40 % resident\n"));
    let scan = section(&text, "mixed-100000x61 · scan · cache warm · threads 2");
    assert!(!scan.contains("Resident") && !scan.contains("- !"));
    let write = section(&text, "mixed-100000x61 · write · threads 1");
    assert!(write.contains("| npy! | default | 850 ns | 765 ns – 1.28 µs | — | — |"));
}

#[test]
fn summary_across_operations_sorted_by_ratio() {
    let text = crate::report::markdown(&fixture());
    let overall = text
        .split("## Summary across operations")
        .nth(1)
        .unwrap_or_default();
    assert!(overall.contains(
        "### mixed-100000x61 · cache warm · threads 2 (read, scan)\n\n\
         ![mixed-100000x61 · cache warm · threads 2 (read, scan): ratio to the fastest](chart-5.svg)\n\n\
         | Backend | Profile | Geomean ratio | Ops |\n\
         | --- | --- | ---: | ---: |\n\
         | ipc | plain | 1.00× | 1 of 2 |\n\
         | parquet | zstd | 1.17× | 2 |\n"
    ));
    assert!(text.find("## Results") < text.find("## Summary across operations"));
}

#[test]
fn environment_datasets_and_artifacts() {
    let text = crate::report::markdown(&fixture());
    assert!(text.contains("| CPU | AMD EPYC 7763 |"));
    assert!(text.contains("| Memory | 64.0 GiB |"));
    assert!(text.contains("| Git commit | abc1234 (dirty) |"));
    assert!(text.contains("| Worker build | xxh3:feedbeef |"));
    assert!(text.contains("| Clock resolution | 20.0 ns |"));
    assert!(text.contains("| Schedule hash | xxh3:0123abcd |"));
    assert!(text.contains("| Scheduled slots | 3 |"));
    assert!(text.contains("| Measured samples | 3 |"));
    assert!(text.contains("| Version of arrow | 60.1.0 |"));
    assert!(text.contains("| Setting rounds | 5 |"));
    assert!(text.contains("| Memory setting vm.dirty_ratio | 20 |"));
    assert!(text.contains(&format!(
        "| {DATASET} | 100,000 | 61 | `fp-0123` | 45.8 MiB |"
    )));
    assert!(text.contains("## Artifacts and settings"));
    assert!(text.contains("| 11.8 MiB | 2.02 | alignment=64; blocks=2; codec=none |"));
}

#[test]
fn not_measured_lists_full_reasons() {
    let mut summary = fixture();
    let long = "y".repeat(200);
    summary.groups[3].cells[1].reason = Some(long.clone());
    let text = crate::report::markdown(&summary);
    let section = text.split("## Not measured").nth(1).unwrap_or_default();
    assert!(section.contains("**failed** — worker crashed"));
    assert!(section.contains(&format!("**unsupported** — {long}")));
}

#[test]
fn empty_summary_still_renders_every_section() {
    let text = crate::report::markdown(&RunSummary::default());
    for heading in [
        "## Environment",
        "## Datasets",
        "## Results",
        "## Artifacts",
        "## Not measured",
    ] {
        assert!(text.contains(heading), "{heading}");
    }
    assert!(!text.contains("## Summary across operations"));
}

// One document, every medium.

#[test]
fn the_report_holds_the_same_numbers_in_every_medium() {
    use crate::document::{html, html_escape, markdown_escape, markdown_page, terminal, Block};
    for summary in [fixture(), super::super::fixture::sweep()] {
        let doc = crate::report::document(&summary);
        let text = terminal(&doc);
        let md = markdown_page(&doc);
        // A page lets a figure of several parts wrap only between them.
        let page = html(&doc).replace('\u{a0}', " ");
        let page_words = without_tags(&page);
        let mut cells = 0;
        for table in doc.blocks.iter().filter_map(|b| match b {
            Block::Table(t) => Some(t),
            _ => None,
        }) {
            for cell in table.rows.iter().flat_map(|r| &r.cells) {
                cells += 1;
                assert!(text.contains(&cell.text), "terminal lacks {:?}", cell.text);
                assert!(
                    md.contains(&markdown_escape(&cell.text)),
                    "md lacks {:?}",
                    cell.text
                );
                assert!(
                    page.contains(&html_escape(&cell.text)),
                    "page lacks {:?}",
                    cell.text
                );
            }
        }
        assert!(cells > 100, "{cells} cells");
        // Every heading and paragraph is in every medium too.
        for block in &doc.blocks {
            let words = match block {
                Block::Section { title, .. } | Block::Subheading(title) => title.clone(),
                Block::Para(p) => p.text.words(),
                _ => continue,
            };
            assert!(text.contains(&words), "terminal lacks {words:?}");
            assert!(
                page_words.contains(&html_escape(&words)),
                "page lacks {words:?}"
            );
        }
    }
}

/// A page's text without its tags, as a reader sees it (entities left as they are).
fn without_tags(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    let mut in_tag = false;
    for c in page.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}
