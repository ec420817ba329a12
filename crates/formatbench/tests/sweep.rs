#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Which layout would serve your queries (issue 44, item 3): `--row-group-rows 10k,100k` and
//! `--sort-by COLUMN` re-write the native parquet file of the user's table with those row
//! groups and that order, each file a competitor of its own keys, read beside the default file
//! and the file as given, every read verified; the report sets their times and bytes against
//! their sizes. The input is built here: 200,000 rows in 4 row groups of 50,000.

mod common;

use arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use common::{formatbench, run_dir, samples, stderr};
use formatbench::results::{read_records, ArtifactRecord, Record, SampleStatus};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ROWS: i64 = 200_000;
const GROUPS: i64 = 4;

fn part(index: i64) -> RecordBatch {
    let rows = ROWS / GROUPS;
    let ids: Vec<i64> = (index * rows..(index + 1) * rows).collect();
    let mixed = |id: &i64| (*id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids.clone())),
        Arc::new(Float64Array::from_iter_values(
            ids.iter().map(|i| (mixed(i) % 100_000) as f64 / 7.0),
        )),
        Arc::new(StringArray::from_iter_values(
            ids.iter().map(|i| format!("w{:x}", mixed(i) >> 44)),
        )),
    ];
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("x", DataType::Float64, false),
        Field::new("s", DataType::Utf8, false),
    ]);
    RecordBatch::try_new(Arc::new(schema), columns).unwrap()
}

fn parquet_file(dir: &Path) -> PathBuf {
    use parquet::arrow::ArrowWriter;
    let path = dir.join("events.parquet");
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = ArrowWriter::try_new(file, part(0).schema(), None).unwrap();
    for i in 0..GROUPS {
        writer.write(&part(i)).unwrap();
        writer.flush().unwrap();
    }
    writer.close().unwrap();
    path
}

fn sweep_args<'a>(input: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "--input",
        input,
        "--index",
        "id",
        "--backends",
        "parquet",
        "--profiles",
        "default,as-given",
        "--ops",
        "range,take,project",
        "--cache",
        "cold",
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

fn artifact(records: &[Record], rows: Option<u64>, sort_by: Option<&str>) -> ArtifactRecord {
    records
        .iter()
        .find_map(|r| match r {
            Record::Artifact(a)
                if a.profile == "default"
                    && a.row_group_rows == rows
                    && a.sort_by.as_deref() == sort_by =>
            {
                Some(a.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("an artifact of {rows:?} rows/group sorted by {sort_by:?}"))
}

#[test]
fn a_row_group_sweep_reads_each_rewritten_file_verified_and_reports_it() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let input = parquet_file(dir.path());
    let out = dir.path().join("out");
    let (input, out_text) = (input.to_str().unwrap(), out.to_str().unwrap());
    let result = formatbench(&sweep_args(
        input,
        out_text,
        &["--row-group-rows", "10k,100k", "--sort-by", "x"],
    ));
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let run = run_dir(&out);
    let records = read_records(&run.join("results.jsonl")).unwrap();

    // Each file's footer: 20 groups of 10,000 rows, 2 of 100,000, sorted or not.
    for sort_by in [None, Some("x")] {
        for (rows, groups) in [(10_000, "20"), (100_000, "2")] {
            let a = artifact(&records, Some(rows), sort_by);
            assert_eq!(a.status, SampleStatus::Ok, "{a:?}");
            assert_eq!(a.settings["row_groups"], groups, "{a:?}");
            assert_eq!(
                a.settings.get("sorted_by").map(|s| s.starts_with("x ")),
                sort_by.map(|_| true),
                "{a:?}"
            );
        }
    }
    assert_eq!(artifact(&records, None, None).settings["row_groups"], "1");

    let all = samples(&run);
    // Every sweep point is its own cell (its keys), never written in a timed cell.
    let points: Vec<_> = all.iter().filter(|s| s.cell.is_sweep_point()).collect();
    assert!(!points.iter().any(|s| s.cell.op == "write"));
    for s in &points {
        assert_eq!(s.cell.backend, "parquet");
        assert_eq!(s.cell.profile, "default");
        let by_position = s.cell.op == "take";
        match (&s.cell.sort_by, by_position) {
            (Some(_), true) => {
                assert_eq!(s.status, SampleStatus::Unsupported, "{s:?}");
                let reason = s.reason.as_deref().unwrap_or_default();
                assert!(reason.contains("sorted by x"), "{reason}");
            }
            _ => assert_eq!(s.status, SampleStatus::Ok, "{s:?}"),
        }
    }
    assert_eq!(points.len(), 2 * 2 * 3, "2 sizes × 2 orders × 3 operations");
    // Every measured number was verified against the source: sorted files as sets of rows.
    let verified: Vec<_> = records
        .iter()
        .filter_map(|r| match r {
            Record::Verification(v) if v.cell.is_sweep_point() => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(
        verified.len(),
        2 * 2 * 3 - 2,
        "every point's cells but sorted takes"
    );
    assert!(
        verified.iter().all(|v| v.status == SampleStatus::Ok),
        "{verified:?}"
    );
    let range_rows = verified
        .iter()
        .find(|v| v.cell.op == "range" && v.cell.sort_by.is_some())
        .and_then(|v| v.rows);
    assert_eq!(
        range_rows,
        Some(ROWS as u64 / 4),
        "a quarter of the ids, in any order"
    );

    // Smaller groups: a cold range by id fetches less (statistics prune more of the file).
    let range_bytes = |rows: u64| {
        let s = points
            .iter()
            .find(|s| {
                s.cell.op == "range"
                    && s.cell.row_group_rows == Some(rows)
                    && s.cell.sort_by.is_none()
            })
            .unwrap();
        let read = s.read_bytes.unwrap();
        let bytes = if read > 0 {
            read
        } else {
            s.requested_bytes.unwrap()
        };
        println!("range on {rows} rows/group: {bytes} bytes");
        bytes
    };
    assert!(range_bytes(10_000) < range_bytes(100_000));

    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    let section = report
        .split("## Row-group sweep")
        .nth(1)
        .unwrap_or_else(|| panic!("a row-group sweep section: {report}"));
    assert!(
        section.contains("### events: row-group sweep (cache cold)"),
        "{section}"
    );
    assert!(
        section.contains("| parquet | as-given | 50,000 |"),
        "{section}"
    );
    assert!(
        section.contains("| parquet | default | 1,048,576 (default) | — | 1 |"),
        "{section}"
    );
    assert!(
        section.contains("| parquet | default | 10k | — | 20 |"),
        "{section}"
    );
    assert!(
        section.contains("| parquet | default | 100k | x | 2 |"),
        "{section}"
    );
    assert!(section.contains("| unsupported |"), "{section}");
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(html.contains("Row-group sweep"));
    let summary = common::stdout(&result);
    assert!(
        summary.contains("events: row-group sweep (cache cold): bytes read per call"),
        "{summary}"
    );
}

#[test]
fn bad_sweep_values_exit_2_in_one_line() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let input = parquet_file(dir.path());
    let out = dir.path().join("out");
    let (input, out_text) = (input.to_str().unwrap(), out.to_str().unwrap());
    for (extra, said) in [
        (&["--row-group-rows", "10q"][..], "rows per row group"),
        (&["--row-group-rows", "0"][..], "rows per row group"),
        (&["--sort-by", "nosuch"][..], "no such column"),
    ] {
        let result = formatbench(&sweep_args(input, out_text, extra));
        let text = stderr(&result);
        assert_eq!(result.status.code(), Some(2), "{extra:?}: {text}");
        assert!(text.contains(said), "{extra:?}: {text}");
        assert!(!text.contains("panicked"), "{text}");
    }
    let mut args = sweep_args(input, out_text, &["--row-group-rows", "10k"]);
    let backends = args.iter().position(|a| *a == "parquet").unwrap();
    args[backends] = "ipc";
    args.retain(|a| *a != "default,as-given" && *a != "--profiles");
    let result = formatbench(&args);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("--backends parquet"),
        "{}",
        stderr(&result)
    );
}

/// The scale-out suite's shared partitionings are for the Parquet readers among its backends:
/// narrowed by `--backends` to none of them, the suite runs without them instead of failing.
#[test]
fn a_suites_shared_files_are_left_out_when_no_chosen_backend_reads_them() {
    let records = quick_scale_out("ipc", &[]);
    assert!(records
        .iter()
        .any(|r| matches!(r, Record::Sample(s) if s.cell.backend == "ipc")));
    assert!(!records.iter().any(|r| matches!(
        r,
        Record::Artifact(a) if a.parquet_files.is_some() || a.row_group_rows.is_some()
    )));
}

/// Two sizes in bytes that come to the same rows for a dataset (both past its 2,000 rows) are
/// one competitor, written and measured once; a size in rows on the command line replaces the
/// suite's sizes.
#[test]
fn sizes_that_come_to_the_same_rows_are_one_competitor_and_the_command_line_replaces_the_suites() {
    let points_of = |extra: &[&str]| -> Vec<(Option<u64>, Option<u64>)> {
        let records = quick_scale_out("parquet", extra);
        let mut points: Vec<_> = records
            .iter()
            .filter_map(|r| match r {
                Record::Artifact(a) if a.row_group_rows.is_some() => {
                    Some((a.row_group_rows, a.parquet_files))
                }
                _ => None,
            })
            .collect();
        points.sort();
        points
    };
    let both = points_of(&["--row-group-bytes", "8MiB,128MiB", "--parquet-files", "2"]);
    assert_eq!(
        both,
        [(Some(2_000), Some(2))],
        "one file set of 2,000-row groups"
    );
    // The quick suite's 16 files stay; its 8 MiB groups give way to 500 rows.
    assert_eq!(
        points_of(&["--row-group-rows", "500"]),
        [(Some(500), Some(16))]
    );
}

/// The records of `suite scale-out --quick` on 2,000 rows, `read` by `backends` only, with
/// `extra` arguments; the run must succeed.
fn quick_scale_out(backends: &str, extra: &[&str]) -> Vec<Record> {
    let out = tempfile::tempdir().unwrap();
    let out_text = out.path().to_str().unwrap();
    let mut args = vec![
        "suite",
        "scale-out",
        "--quick",
        "--rows",
        "2000",
        "--backends",
        backends,
        "--ops",
        "read",
        "--samples",
        "1",
        "--out",
        out_text,
    ];
    args.extend(extra);
    let result = formatbench(&args);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    read_records(&run_dir(out.path()).join("results.jsonl")).unwrap()
}
