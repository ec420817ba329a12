#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A write read back by another implementation of its format (docs/protocol.md §6): arrow-rs's
//! Parquet, IPC and CSV files through pyarrow, pyarrow's and DuckDB's through arrow-rs. A writer bug
//! its own reader shares (arrow-rs stored second timestamps as bare integers, which only
//! arrow-rs read back as times) fails the cell.

mod common;

use common::{formatbench, ready, run_dir, stderr};
use formatbench::results::{Record, SampleStatus, VerificationRecord};

fn write_verifications(backends: &str, dir: &std::path::Path) -> Vec<VerificationRecord> {
    let out = dir.to_str().unwrap();
    let result = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "500",
        "--backends",
        backends,
        "--ops",
        "write",
        "--rounds",
        "1",
        // The verification is what is checked: one measured sample a cell, not a balanced
        // round of every competitor in every position.
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out,
    ]);
    assert!(result.status.code().is_some(), "{}", stderr(&result));
    let text = std::fs::read_to_string(run_dir(dir).join("results.jsonl")).unwrap();
    text.lines()
        .filter_map(|line| match serde_json::from_str::<Record>(line) {
            Ok(Record::Verification(v)) if v.cell.op == "write" => Some(v),
            _ => None,
        })
        .collect()
}

#[test]
fn native_and_python_writes_are_read_back_by_the_other_implementation() {
    let readers = ["py-pyarrow-parquet", "py-pyarrow-feather", "py-pyarrow-csv"];
    if !readers.iter().all(|b| ready("Python peer", b)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let records = write_verifications(
        "parquet,ipc,csv,ipc-parts,py-pyarrow-parquet,py-duckdb-parquet,py-pyarrow-csv",
        dir.path(),
    );
    let check = |backend: &str| {
        let v = records
            .iter()
            .find(|v| v.cell.backend == backend)
            .unwrap_or_else(|| panic!("{backend}: no write verified"));
        assert_eq!(v.status, SampleStatus::Ok, "{backend}: {:?}", v.reason);
        v.independent_check.clone().unwrap_or_default()
    };
    assert!(check("parquet").starts_with("read back by py-pyarrow-parquet"));
    assert!(check("ipc").starts_with("read back by py-pyarrow-feather"));
    assert!(check("py-pyarrow-parquet").starts_with("read back by parquet"));
    assert!(check("py-duckdb-parquet").starts_with("read back by parquet"));
    assert!(check("csv").starts_with("read back by py-pyarrow-csv"));
    assert!(check("py-pyarrow-csv").starts_with("read back by csv"));
    // Said, not skipped silently.
    assert!(
        check("ipc-parts").starts_with("no independent reader"),
        "{}",
        check("ipc-parts")
    );
}
