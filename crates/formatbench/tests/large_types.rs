#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Types users' tools write (issue 44, item 4): pandas and Polars write `LargeUtf8` and
//! `LargeList`, Arrow's newer writers `Utf8View`. A Parquet file of them, given with --input,
//! runs through every built-in backend with verified cells, or cells answered unsupported with
//! a reason naming the column and its type — never failed ("Unsupported data type LargeUtf8").
//! A float64 feature matrix (scikit-learn's default) enters the matrix operations with
//! `--feature-type float32`, a cast the run states and records.

mod common;

use arrow::array::{
    ArrayRef, Float64Array, Int64Array, LargeBinaryArray, LargeListBuilder, LargeStringArray,
    LargeStringBuilder, RecordBatch, StringViewArray,
};
use common::{formatbench, run_dir, samples, stderr};
use formatbench::results::SampleStatus;
use std::path::Path;
use std::sync::Arc;

const ROWS: i64 = 500;
/// The columns of the nested file, with the name of each one's type.
const COLUMNS: [(&str, &str); 6] = [
    ("id", "Int64"),
    ("name", "LargeUtf8"),
    ("city", "Utf8View"),
    ("x", "Float64"),
    ("tags", "LargeList"),
    ("blob", "LargeBinary"),
];

/// A Polars-style file: large strings and views, plus (`nested`) a large list and large binary.
fn polars_file(path: &Path, nested: bool) {
    let mut columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from_iter_values(0..ROWS))),
        (
            "name",
            Arc::new(LargeStringArray::from_iter_values(
                (0..ROWS).map(|i| format!("name {i}")),
            )),
        ),
        (
            "city",
            Arc::new(StringViewArray::from_iter_values(
                (0..ROWS).map(|i| format!("city number {}", i % 17)),
            )),
        ),
        (
            "x",
            Arc::new(Float64Array::from_iter_values(
                (0..ROWS).map(|i| i as f64 / 4.0),
            )),
        ),
    ];
    if nested {
        let mut tags = LargeListBuilder::new(LargeStringBuilder::new());
        for i in 0..ROWS {
            tags.values().append_value(format!("t{i}"));
            tags.values().append_value("u");
            tags.append(true);
        }
        columns.push(("tags", Arc::new(tags.finish())));
        columns.push((
            "blob",
            Arc::new(LargeBinaryArray::from_iter_values(
                (0..ROWS).map(|i| i.to_le_bytes()),
            )),
        ));
    }
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Runs every built-in backend's every table operation on `input`; returns the run directory.
fn run_builtin(input: &Path, out: &Path) -> std::path::PathBuf {
    let result = formatbench(&[
        "run",
        "--input",
        input.to_str().unwrap(),
        "--index",
        "id",
        "--backends",
        "builtin",
        "--ops",
        "all",
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    run_dir(out)
}

#[test]
fn large_and_view_strings_are_read_or_named_by_every_builtin_backend() {
    let dir = tempfile::tempdir().unwrap();
    let flat = dir.path().join("flat.parquet");
    polars_file(&flat, false);
    let run = run_builtin(&flat, &dir.path().join("flat-out"));
    let all = samples(&run);
    for s in &all {
        let reason = s.reason.as_deref().unwrap_or_default();
        assert_ne!(
            s.status,
            SampleStatus::Failed,
            "{} {}: {reason}",
            s.cell.backend,
            s.cell.op
        );
    }
    // CSV reads them back: its strings parse as Utf8, the same values.
    let csv: Vec<_> = all.iter().filter(|s| s.cell.backend == "csv").collect();
    assert!(!csv.is_empty());
    assert!(
        csv.iter().all(|s| s.status == SampleStatus::Ok),
        "{:?}",
        csv.iter()
            .map(|s| (&s.cell.op, &s.reason))
            .collect::<Vec<_>>()
    );

    let nested = dir.path().join("nested.parquet");
    polars_file(&nested, true);
    let run = run_builtin(&nested, &dir.path().join("nested-out"));
    for s in samples(&run) {
        let reason = s.reason.as_deref().unwrap_or_default();
        match s.status {
            SampleStatus::Ok => {}
            SampleStatus::Unsupported => assert!(
                // A reason names a column and its type (or the operation the backend lacks).
                COLUMNS.iter().any(|(column, type_name)| {
                    reason.contains(&format!("'{column}'")) && reason.contains(type_name)
                }) || reason.contains("does not do"),
                "{} {}: {reason}",
                s.cell.backend,
                s.cell.op
            ),
            other => panic!("{} {}: {other:?} {reason}", s.cell.backend, s.cell.op),
        }
    }
}

/// A scikit-learn-style matrix: an integer id and float64 features.
fn float64_matrix(path: &Path) {
    let mut columns: Vec<(String, ArrayRef)> =
        vec![("id".into(), Arc::new(Int64Array::from_iter_values(0..ROWS)))];
    for j in 0..6 {
        columns.push((
            format!("f{j}"),
            Arc::new(Float64Array::from_iter_values(
                (0..ROWS).map(|i| (i * (j + 3)) as f64 / 7.0),
            )),
        ));
    }
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

fn matrix_run(input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "run",
        "--input",
        input.to_str().unwrap(),
        "--backends",
        "parquet,npy",
        "--layouts",
        "all",
        "--ops",
        "features",
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    formatbench(&args)
}

#[test]
fn a_float64_matrix_enters_the_matrix_operations_with_a_stated_cast() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("sk.parquet");
    float64_matrix(&input);
    // Without the option nothing is measured (exit 2, said in one line), and the refusal names
    // it.
    let plain = dir.path().join("plain");
    let result = matrix_run(&input, &plain, &[]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("nothing was measured")
            && stderr(&result).contains("--feature-type float32"),
        "{}",
        stderr(&result)
    );
    let refused = samples(&run_dir(&plain));
    assert!(refused
        .iter()
        .all(|s| s.status == SampleStatus::Unsupported));
    assert!(
        refused.iter().any(|s| s
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("--feature-type float32"))),
        "{:?}",
        refused.iter().map(|s| &s.reason).collect::<Vec<_>>()
    );

    let cast = dir.path().join("cast");
    let result = matrix_run(&input, &cast, &["--feature-type", "float32"]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("--feature-type float32: 6 float64 columns cast to float32"),
        "{}",
        stderr(&result)
    );
    let run = run_dir(&cast);
    let measured = samples(&run);
    for op in [
        "matrix",
        "random_rows",
        "feature_project",
        "mixed",
        "vector_norm",
    ] {
        assert!(
            measured
                .iter()
                .any(|s| s.cell.op == op && s.status == SampleStatus::Ok),
            "{op} measured"
        );
    }
    let records = formatbench::results::read_records(&run.join("results.jsonl")).unwrap();
    let dataset = records
        .iter()
        .find_map(|r| match r {
            formatbench::results::Record::Dataset(d) => Some(d),
            _ => None,
        })
        .unwrap();
    assert!(dataset.parameters["feature_type"].starts_with("float32: 6 float64 columns"));
    assert!(dataset.schema.iter().any(|c| c == "f0: Float32"));
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("--feature-type float32: 6 float64 columns cast"));
    // Without --input there is nothing to cast: one clear error.
    let elsewhere = dir.path().join("elsewhere");
    let refused = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "10",
        "--per-type",
        "1",
        "--backends",
        "ipc",
        "--ops",
        "read",
        "--feature-type",
        "float32",
        "--out",
        elsewhere.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("needs --input"),
        "{}",
        stderr(&refused)
    );
}
