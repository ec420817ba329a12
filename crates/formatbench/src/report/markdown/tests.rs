//! Tests of the Markdown report.

use super::super::fixture::{fixture, DATASET};
use super::*;

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
        "| Backend | Profile | Median | Min–max | First call | Warm calls | Ratio [95 % CI] | \
         CPU ratio [95 % CI] | Parallelism | Calls | Size | B/value | Peak mem | Resident | \
         Read bytes | Read amplification | Method | Settings |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | \
         ---: | ---: | ---: | ---: | --- | --- |\n"
    ));
    assert!(warm.contains(
        "| ipc | plain | 12.3 ms | 11.1 ms – 18.5 ms | — | — | 1.00× | 1.00× | 1.90 | 1 |"
    ));
    assert!(warm.contains(
        "| parquet! | zstd | 16.7 ms\\* | 15.0 ms – 25.0 ms | — | — | 1.36× [1.30–1.41] | \
         0.87× [0.80–0.95] | 1.00 | 1 | 11.8 MiB | 2.02 | 200 MiB | 40 % | — | — | mmap | "
    ));
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
    assert!(text.contains("| Measured slots | 3 |"));
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
