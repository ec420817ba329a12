#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! docs/protocol.md's digest test vector, read back through each worker language: the runner's
//! digest of what a worker returned must be the vector's known answer (Rust: the native
//! worker; Python: pyarrow; R, whose exchange carries flat tables: RDS, of the flat part).

mod common;

use common::{formatbench, ready, run_dir, stderr};
use formatbench::results::{Record, SampleStatus, VerificationRecord};
use formatbench::verify::digest;
use std::path::Path;

/// Runs `backends` reading (and writing) the vector given as the user's own file, and returns
/// the verification records.
fn verified(
    vector: &arrow::array::RecordBatch,
    backends: &str,
    dir: &Path,
) -> Vec<VerificationRecord> {
    let input = dir.join("vector.arrow");
    formatbench_worker_kit::source::write_ipc(
        &input,
        &vector.schema(),
        std::slice::from_ref(vector),
    )
    .unwrap();
    let out = dir.join("out");
    let result = formatbench(&[
        "run",
        "--input",
        input.to_str().unwrap(),
        "--backends",
        backends,
        "--ops",
        "write,read",
        "--rounds",
        "1",
        // The verification is what is checked: one measured sample a cell, not a balanced
        // round of every competitor in every position.
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    // A cell that fails verification fails the run's exit; its record says why (below).
    assert!(result.status.code().is_some(), "{}", stderr(&result));
    let text = std::fs::read_to_string(run_dir(&out).join("results.jsonl")).unwrap();
    text.lines()
        .filter_map(|line| match serde_json::from_str::<Record>(line) {
            Ok(Record::Verification(v)) => Some(v),
            _ => None,
        })
        .collect()
}

/// Every cell of `backends` verified, with the vector's own digest.
fn assert_known_digest(records: &[VerificationRecord], backends: &[&str], known: &str) {
    for backend in backends {
        let cells: Vec<_> = records
            .iter()
            .filter(|v| v.cell.backend == *backend && v.cell.profile == "default")
            .collect();
        assert!(!cells.is_empty(), "{backend}: no cell");
        for v in cells {
            assert_eq!(v.status, SampleStatus::Ok, "{:?}: {:?}", v.cell, v.reason);
            assert_eq!(v.digest.as_deref(), Some(known), "{:?}", v.cell);
        }
    }
}

#[test]
fn the_native_worker_reproduces_the_vectors_digest() {
    let dir = tempfile::tempdir().unwrap();
    let vector = digest::test_vector().unwrap();
    let records = verified(&vector, "ipc,parquet", dir.path());
    assert_known_digest(&records, &["ipc", "parquet"], digest::TEST_VECTOR_DIGEST);
}

#[test]
fn the_python_worker_reproduces_the_vectors_digest() {
    let backends = ["py-pyarrow-parquet", "py-pyarrow-feather"];
    if !backends.iter().all(|b| ready("Python peer", b)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vector = digest::test_vector().unwrap();
    let records = verified(&vector, &backends.join(","), dir.path());
    assert_known_digest(&records, &backends, digest::TEST_VECTOR_DIGEST);
}

#[test]
fn the_r_worker_reproduces_the_flat_vectors_digest() {
    // RDS keeps R's values exactly (a CSV's cannot tell an empty string from a null).
    let backends = ["r-rds"];
    if !backends.iter().all(|b| ready("R peer", b)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vector = digest::flat_test_vector().unwrap();
    let records = verified(&vector, &backends.join(","), dir.path());
    assert_known_digest(&records, &backends, digest::FLAT_TEST_VECTOR_DIGEST);
}
