//! Tests of the report helpers shared by every renderer, and of the files it writes.

use super::fixture::{self, fixture, DATASET};
use super::rows::{detail_fields, manifest, rows, shows_residency, Field};
use super::*;

#[test]
fn rows_format_numbers_once() {
    let summary = fixture();
    let read = &summary.groups[1];
    let rows = rows(read, &summary.artifacts);
    assert_eq!(rows[0].median, "12.3 ms");
    assert_eq!(rows[0].ratio, "1.00×");
    assert_eq!(rows[0].cpu_short, "1.0×");
    assert_eq!(rows[1].ratio, "1.36× [1.30–1.41]");
    assert_eq!(rows[1].cpu_ratio, "0.87× [0.80–0.95]");
    assert_eq!(rows[1].cpu_short, "0.87×");
    assert_eq!(rows[1].parallelism, "1.00");
    assert_eq!(rows[0].parallelism, "1.90");
    assert_eq!(rows[1].resident, "40 %");
    assert!(rows[1].noisy && !rows[0].noisy);
    assert_eq!(rows[2].median, DASH);
    assert_eq!(rows[2].ratio, DASH);
    assert_eq!(rows[0].profile, "plain");
    assert!(!rows[1].flags.is_empty() && rows[0].flags.is_empty());
}

#[test]
fn untrusted_ratios_show_a_dash() {
    let summary = fixture();
    let write = &summary.groups[0];
    let rows = rows(write, &summary.artifacts);
    assert_eq!(write.cells[1].status, SampleStatus::Ok);
    assert_eq!(rows[1].ratio, DASH);
    assert_eq!(rows[1].cpu_short, DASH);
    assert_eq!(rows[1].median, "850 ns");
}

#[test]
fn titles_and_notes() {
    let summary = fixture();
    let titles: Vec<String> = summary.groups.iter().map(group_title).collect();
    assert_eq!(
        titles,
        [
            format!("{DATASET} · write · threads 1"),
            format!("{DATASET} · read · cache warm · threads 2"),
            format!("{DATASET} · read · cache cold · threads 2"),
            format!("{DATASET} · scan · cache warm · threads 2"),
        ]
    );
    assert_eq!(group_notes(&summary.groups[2]), [NO_CLEAR_WINNER]);
    assert_eq!(
        group_notes(&summary.groups[1]),
        [
            "warning: competitors differ in measured parallelism (1.00–1.90, highest: \
          ipc/plain): compare CPU-time ratios too"
        ]
    );
    assert!(group_notes(&summary.groups[3]).is_empty());
}

#[test]
fn residency_columns_only_where_they_matter() {
    let summary = fixture();
    let has = |i: usize| detail_fields(&summary.groups[i]).contains(&Field::Resident);
    // Cold always; warm only when some cell was not resident; never for writes here.
    assert!(has(2) && has(1) && !has(3) && !has(0));
    assert!(shows_residency(&summary.groups[2]));
    assert_eq!(
        detail_fields(&summary.groups[3]).last(),
        Some(&Field::Settings)
    );
}

#[test]
fn manifest_keeps_the_fairness_keys_in_order() {
    let summary = fixture();
    let key = &summary.groups[1].cells[1].cell;
    assert_eq!(
        manifest(&summary.artifacts, key),
        "profile_settings=zstd <level 3> | dictionary off; codecs=ZSTD(3); \
         encodings=PLAIN RLE; row_groups=2"
    );
    let ipc = &summary.groups[1].cells[0].cell;
    assert_eq!(manifest(&summary.artifacts, ipc), "codec=none; blocks=2");
    let csv = &summary.groups[1].cells[2].cell;
    assert_eq!(manifest(&summary.artifacts, csv), DASH);
}

#[test]
fn mixed_layouts_are_told_apart() {
    let summary = fixture();
    let mut group = summary.groups[1].clone();
    group.cells[1].cell.layout = "sorted".into();
    assert_eq!(rows(&group, &summary.artifacts)[1].profile, "zstd · sorted");
}

#[test]
fn winner_and_runner_up() {
    let summary = fixture();
    assert_eq!(winner(&summary.groups[1]), Some(0));
    let second = runner_up(&summary.groups[1]).map(|c| c.cell.backend.as_str());
    assert_eq!(second, Some("parquet"));
    assert!(runner_up(&summary.groups[3]).is_none());
    assert_eq!(not_measured(&summary).len(), 2);
}

#[test]
fn environment_shows_clock_build_and_schedule() {
    let rows = environment_rows(&fixture());
    let get = |k: &str| {
        rows.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("Clock resolution"), Some("20.0 ns"));
    assert_eq!(get("Worker build"), Some("xxh3:feedbeef"));
    assert_eq!(get("Schedule hash"), Some("xxh3:0123abcd"));
    assert_eq!(get("Scheduled slots"), Some("3"));
    assert_eq!(get("Measured samples"), Some("3"));
    assert!(get("Machine load").is_some_and(|l| l.starts_with("busy during 0 of 3 samples")));
    assert_eq!(get("Schedule blocks"), Some("2"));
    assert!(environment_rows(&RunSummary::default()).is_empty());
}

#[test]
fn every_renderer_is_reproducible() {
    for render in [terminal, markdown, html] {
        for summary in [fixture, fixture::sweep] {
            assert_eq!(render(&summary()).as_bytes(), render(&summary()).as_bytes());
        }
    }
}

#[test]
fn recommendation_in_every_report() {
    let summary = fixture::small("size");
    let text = recommendation(&summary).unwrap_or_default();
    assert!(text.starts_with("For the smallest files, parquet/zstd: 20.0 MiB on disk"));
    // Last in the terminal summary, wrapped to its width.
    let printed = super::terminal_at(&summary, 100);
    let last = printed
        .split("\nRecommendation: ")
        .nth(1)
        .unwrap_or_default();
    assert_eq!(last.replace("\n  ", " ").trim_end(), text);
    assert!(markdown(&summary).starts_with(&format!(
        "# formatbench report\n\n**Recommendation:** {text}\n\n"
    )));
    let page = html(&summary);
    let glance = page
        .split("<section id=\"glance\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .unwrap_or_default();
    // The answer opens the page: the recommendation, then the table per operation.
    let said = format!(
        "<h1>formatbench report</h1>\n<p id=\"recommendation\"><strong>Recommendation:</strong> {}</p>\n\
         <section id=\"glance\">",
        crate::document::html_escape(&text)
    );
    assert!(page.contains(&said), "{page}");
    assert!(page.find("id=\"glance\"") < page.find("id=\"environment\""));
    // The glance table and the recommendation come before any chart.
    assert!(!glance.contains("<svg"));
    assert!(page.find("</table>") < page.find("<svg"));
    assert!(!html(&RunSummary::default()).contains("id=\"recommendation\""));
}

#[test]
fn html_sections_for_charts() {
    let page = html(&fixture::sweep());
    assert!(!page.to_ascii_lowercase().contains("<script"));
    assert_eq!(
        page.matches("<svg class=\"chart\" role=\"img\"").count(),
        12
    );
    let scaling = page
        .split("<section id=\"scaling\">")
        .nth(1)
        .unwrap_or_default();
    assert!(scaling.starts_with(
        "\n<h2>Scaling with rows</h2>\n<h3>mixed-*x10 · write · threads 1: median time \
         against rows</h3>\n<figure class=\"scroll\">\n<svg class=\"chart\""
    ));
    assert!(scaling.contains("<td>ipc/mmap</td><td class=\"num\">500 µs</td>"));
    let trade = page
        .split("<section id=\"tradeoffs\">")
        .nth(1)
        .unwrap_or_default();
    assert!(trade.contains("<h3>mixed-10000x10</h3>\n<figure class=\"scroll\">\n<svg"));
    assert!(trade.contains("<caption>Pareto frontier (write: threads 1; read: cache warm"));
    assert!(trade.contains("Off the frontier: csv/default (beaten on every count by"));
    // Every ok cell of every results table carries its median in seconds.
    let cells = page.matches("<tr class=\"cell\" data-backend=").count();
    assert_eq!(cells, 20);
    assert_eq!(
        page.matches("<td class=\"median\" data-seconds=\"").count(),
        20
    );
    assert!(page.contains("<td class=\"median\" data-seconds=\"0.0005\">500 µs</td>"));
    assert!(!fixture::sweep().groups.is_empty() && !html(&fixture()).contains("id=\"scaling\""));
    let md = markdown(&fixture::sweep());
    assert!(md.contains(
        "## Scaling with rows\n\n### mixed-\\*x10 · write · threads 1: median time against rows\n\n\
         ![mixed-\\*x10 · write · threads 1: median \
         time against rows](chart-11.svg)\n\n| Competitor | 10,000 rows | 100,000 rows |"
    ));
    assert!(md.contains("## Trade-offs\n"));
}

#[test]
fn writes_both_reports() -> Result<(), Error> {
    let dir = tempfile::tempdir().map_err(|e| Error::Io(e.to_string()))?;
    write_reports(&fixture(), dir.path())?;
    assert!(dir.path().join("report.md").is_file());
    assert!(dir.path().join("report.html").is_file());
    // Four bar charts, three heat maps, one scatter; report.md links each of them.
    let md = std::fs::read_to_string(dir.path().join("report.md"))
        .map_err(|e| Error::Io(e.to_string()))?;
    for n in 1..=8 {
        let name = format!("chart-{n}.svg");
        assert!(dir.path().join(&name).is_file(), "{name}");
        assert_eq!(md.matches(&format!("]({name})")).count(), 1, "{name}");
    }
    assert!(!dir.path().join("chart-9.svg").exists());
    // A sweep writes more charts; the fixture again removes the extra ones.
    write_reports(&fixture::sweep(), dir.path())?;
    assert!(dir.path().join("chart-12.svg").is_file());
    std::fs::write(dir.path().join("chart-notes.svg"), "mine")
        .map_err(|e| Error::Io(e.to_string()))?;
    write_reports(&fixture(), dir.path())?;
    assert!(!dir.path().join("chart-9.svg").exists());
    assert!(!dir.path().join("chart-12.svg").exists());
    assert!(dir.path().join("chart-notes.svg").is_file());
    let again = tempfile::tempdir().map_err(|e| Error::Io(e.to_string()))?;
    write_reports(&fixture(), again.path())?;
    for name in ["report.md", "report.html", "chart-1.svg", "chart-8.svg"] {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap_or_default();
        assert_eq!(read(dir.path()), read(again.path()), "{name}");
    }
    let missing = dir.path().join("no/such/dir");
    let err = write_reports(&fixture(), &missing).unwrap_err();
    assert!(
        matches!(
            &err,
            Error::File {
                action: "write",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().starts_with("cannot write"), "{err}");
    Ok(())
}

/// Records of a matrix operation where the paired ratio (2.00×: the geometric mean of the
/// per-round ratios 5, 2, 1, 2 and 1.6) and the ratio of medians (5 ÷ 3 = 1.67×) differ, with
/// the `.npy` floor fastest.
fn paired_records() -> Vec<crate::results::Record> {
    matrix_records(&[
        ("npy", "array", [1.0, 2.0, 3.0, 4.0, 5.0]),
        ("parquet", "wide", [5.0, 4.0, 3.0, 8.0, 8.0]),
    ])
}

/// Verified `matrix` samples of `(backend, layout, walls by round)` on one dataset.
fn matrix_records(cells: &[(&str, &str, [f64; 5])]) -> Vec<crate::results::Record> {
    use crate::results::CellKey;
    let key = |backend: &str, layout: &str| CellKey {
        dataset: "matrix-1000x8".into(),
        dataset_fingerprint: "fp".into(),
        backend: backend.into(),
        profile: "default".into(),
        layout: layout.into(),
        target: "file".into(),
        op: "matrix".into(),
        threads: 1,
        cache: "warm".into(),
        storage: "local".into(),
        network: "n/a".into(),
        row_group_rows: None,
        parquet_files: None,
        sort_by: None,
        executors: None,
    };
    let keyed: Vec<(CellKey, &[f64])> = cells
        .iter()
        .map(|(b, l, w)| (key(b, l), w.as_slice()))
        .collect();
    super::fixture::verified_samples(&keyed)
}

#[test]
fn one_ratio_feeds_tables_charts_and_layout_tables() {
    let summary = crate::stats::summarize_run(&paired_records());
    let group = &summary.groups[0];
    let parquet = &group.cells[1];
    assert_eq!(parquet.cell.backend, "parquet");
    assert!((parquet.ratio_to_best.unwrap_or_default() - 2.0).abs() < 1e-12);
    let table = &rows(group, &summary.artifacts)[1].ratio;
    assert!(table.starts_with("2.00× ["), "{table}");
    let chart = crate::document::svg::drawing(&charts::all(&summary)[0].chart)
        .unwrap_or_else(|| panic!("the bars are drawn"));
    let estimate = parquet.ratio_to_best.unwrap_or_default();
    let (paired, of_medians) = (format::ratio(estimate), format::ratio(5.0 / 3.0));
    assert_ne!(paired, of_medians);
    assert!(
        chart.label.ends_with(&format!("wide 5.00 s ({paired})")),
        "{}",
        chart.label
    );
    assert!(chart.body.contains(&format!(">{paired}</text>")));
    assert!(!chart.body.contains(&of_medians));
    let floor = &layouts::against_floor(&summary)[0];
    assert_eq!(
        floor.rows[0][..4],
        ["parquet", "default", "wide", paired.as_str()]
    );
    assert!((summary.geomeans[1].ratio - 2.0).abs() < 1e-12);
}

#[test]
fn the_seed_floor_table_sets_the_study_ratios_beside_peer_and_native_ones() {
    let summary = crate::stats::summarize_run(&matrix_records(&[
        ("npy", "array", [1.0; 5]),
        ("py-numpy-npy", "array", [2.0; 5]),
        ("parquet", "array", [3.0; 5]),
        ("parquet", "wide", [30.0; 5]),
        ("py-pyarrow-parquet", "array", [10.0; 5]),
        ("py-pyarrow-parquet", "wide", [60.0; 5]),
    ]));
    let table = &layouts::seed::floor_table(&summary)[0];
    assert!(
        table.title.contains("py-numpy-npy 2.00 s, npy 1.00 s"),
        "{}",
        table.title
    );
    // Only Parquet ran: its two layouts, the array one the best; seed, peer, native per op.
    assert_eq!(table.rows.len(), 2, "{:?}", table.rows);
    let (r, d) = (format::ratio, format::DASH);
    assert_eq!(
        table.rows[0][..5],
        ["Parquet", "wide", &r(37.0), &r(30.0), &r(30.0)]
    );
    assert_eq!(
        table.rows[1][..5],
        ["Parquet", "array (best)", &r(8.9), &r(5.0), &r(3.0)]
    );
    // random_rows did not run: the seed's figure stands alone.
    assert_eq!(table.rows[1][5..8], [r(85.0), d.to_string(), d.to_string()]);
}
