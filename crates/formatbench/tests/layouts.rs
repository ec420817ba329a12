#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Feature matrices in the wide and array layouts: every native backend does every matrix
//! operation it claims, each verified against the source before it counts.

mod common;

use common::{mixed_run, run_dir, samples, stderr};
use formatbench::results::SampleStatus;
use std::collections::BTreeSet;

#[test]
fn both_layouts_verify_every_matrix_operation() {
    let out = tempfile::tempdir().unwrap();
    let result = common::both_layouts("native", "write,read,features", out.path());
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let samples = samples(&run_dir(out.path()));
    let failed: Vec<_> = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Failed)
        .map(|s| (&s.cell, &s.reason))
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    let ok: BTreeSet<(String, String, String)> = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Ok)
        .map(|s| {
            (
                s.cell.backend.clone(),
                s.cell.layout.clone(),
                s.cell.op.clone(),
            )
        })
        .collect();
    for backend in ["parquet", "ipc", "ipc-mmap", "csv"] {
        for layout in ["wide", "array"] {
            for op in [
                "read",
                "matrix",
                "random_rows",
                "feature_project",
                "mixed",
                "vector_norm",
            ] {
                let key = (backend.to_string(), layout.to_string(), op.to_string());
                assert!(ok.contains(&key), "{key:?} measured and verified");
            }
        }
    }
    // The floor: .npy holds the bare matrix, so it does the matrix operations but not `mixed`.
    for op in [
        "write",
        "matrix",
        "random_rows",
        "feature_project",
        "vector_norm",
    ] {
        let key = ("npy".to_string(), "array".to_string(), op.to_string());
        assert!(ok.contains(&key), "{key:?}");
    }
    let npy_mixed = samples
        .iter()
        .find(|s| s.cell.backend == "npy" && s.cell.layout == "array" && s.cell.op == "mixed")
        .unwrap();
    assert_eq!(npy_mixed.status, SampleStatus::Unsupported);
    // Layout is its own key: the array artifact holds the feature-name sidecar.
    let sizes = |layout: &str| {
        samples
            .iter()
            .find(|s| {
                s.cell.backend == "ipc"
                    && s.cell.profile == "default"
                    && s.cell.layout == layout
                    && s.status == SampleStatus::Ok
            })
            .and_then(|s| s.size_bytes)
            .unwrap()
    };
    assert!(sizes("wide") > 0 && sizes("array") > 0);
}

#[test]
fn matrix_operations_on_a_table_without_features_are_unsupported() {
    let out = tempfile::tempdir().unwrap();
    let args = ["--backends", "parquet", "--ops", "matrix", "--samples", "1"];
    let result = mixed_run(200, &args, out.path());
    // A run that measured nothing exits 2, saying why, and keeps its records.
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(stderr(&result).contains("nothing was measured"));
    let samples = samples(&run_dir(out.path()));
    assert!(!samples.is_empty());
    for s in &samples {
        assert_eq!(s.status, SampleStatus::Unsupported);
        assert!(s
            .reason
            .as_deref()
            .unwrap()
            .contains("float32 feature columns"));
    }
}
