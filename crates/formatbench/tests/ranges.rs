#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `range` by an index the user names: bounds come from the index's sorted values, so an
//! unsorted or null-bearing column still selects the middle of its values, and a column with
//! nothing to select stops the run with one clear error.

mod common;

use common::{formatbench, run_dir, samples, stderr};
use formatbench::results::SampleStatus;

/// 100 rows: `flight` holds 0..80 in a scrambled order and 20 empty (null) cells between them.
fn flights_csv(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::from("flight,carrier,delay\n");
    for row in 0..100u64 {
        let flight = if row % 5 == 2 {
            String::new()
        } else {
            // 37 is coprime with 80: a permutation of 0..80 over the non-null rows.
            let k = row - row / 5 - u64::from(row % 5 > 2);
            ((k * 37) % 80).to_string()
        };
        text.push_str(&format!("{flight},c{},{}\n", row % 7, row as f64 * 0.5));
    }
    let path = dir.join("flights.csv");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_unsorted_index_with_nulls_selects_the_middle_of_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let csv = flights_csv(dir.path());
    let out = dir.path().join("out");
    let args = [
        "run",
        "--input",
        csv.to_str().unwrap(),
        "--index",
        "flight",
        "--ops",
        "range",
        "--backends",
        "csv,ipc,parquet",
        "--rounds",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ];
    let result = formatbench(&args);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    // 80 values 0..80: the bounds are the values at sorted places 30 and 50, [30, 50).
    assert!(
        stderr(&result).contains("'range' selects 20 of 100 rows (flight in [30, 50))"),
        "{}",
        stderr(&result)
    );
    let ranges: Vec<_> = samples(&run_dir(&out))
        .into_iter()
        .filter(|s| s.cell.op == "range")
        .collect();
    assert!(!ranges.is_empty());
    for s in &ranges {
        assert_eq!(
            s.status,
            SampleStatus::Ok,
            "{}: {:?}",
            s.cell.backend,
            s.reason
        );
        assert_eq!(s.rows_returned, Some(20), "{}", s.cell.backend);
    }
}

fn assert_one_error(input: &std::path::Path, expect: &str) {
    let out = input.with_extension("out");
    let result = formatbench(&[
        "run",
        "--input",
        input.to_str().unwrap(),
        "--index",
        "flight",
        "--ops",
        "range",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = stderr(&result);
    assert_eq!(result.status.code(), Some(2), "{err}");
    assert!(err.contains(expect), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.contains("error")).count(),
        1,
        "{err}"
    );
}

#[test]
fn an_index_without_values_is_a_plan_error() {
    use arrow::array::{ArrayRef, Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    // An integer column that is null in every row.
    let schema = Arc::new(Schema::new(vec![
        Field::new("flight", DataType::Int64, true),
        Field::new("carrier", DataType::Utf8, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![None::<i64>; 3])),
        Arc::new(StringArray::from(vec!["a", "b", "c"])),
    ];
    let batch = arrow::array::RecordBatch::try_new(schema.clone(), columns).unwrap();
    let ipc = dir.path().join("nulls.arrow");
    formatbench_worker_kit::source::write_ipc(&ipc, &schema, &[batch]).unwrap();
    assert_one_error(&ipc, "index column 'flight' holds no values");
    // In a CSV the same column has no type at all.
    let csv = dir.path().join("nulls.csv");
    std::fs::write(&csv, "flight,carrier\n,a\n,b\n,c\n").unwrap();
    assert_one_error(&csv, "--index flight: the column is Null, not an integer");
}
