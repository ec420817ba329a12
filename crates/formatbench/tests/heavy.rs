#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The heavy native backends (DuckDB, Lance, Vortex, Zarr), each a worker program on its own
//! Arrow major built by `workers/rust/build`: every operation each claims is measured and
//! verified on a small feature matrix in both layouts, and on the mixed table. A backend that is
//! not built is skipped with the reason (and fails under FORMATBENCH_REQUIRE_ALL=1).

mod common;

use common::{formatbench, run_dir, samples, stderr};
use formatbench::catalog::HEAVY_BACKENDS;
use formatbench::results::SampleStatus;
use formatbench::run::find;

fn built(name: &str) -> bool {
    common::ready("heavy backend", name)
}

fn run(args: &[&str]) -> Vec<formatbench::results::SampleRecord> {
    let out = tempfile::tempdir().unwrap();
    let mut all = vec!["run", "--out", out.path().to_str().unwrap()];
    all.extend(args);
    all.extend(["--samples", "1", "--min-sample-ms", "0"]);
    let result = formatbench(&all);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    samples(&run_dir(out.path()))
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn every_heavy_backend_verifies_each_operation_it_claims() {
    for (name, _, _) in HEAVY_BACKENDS {
        if !built(name) {
            continue;
        }
        let info = find(name).unwrap();
        if info.table.is_table_of_files() {
            // The Delta backends: tests/delta.rs.
            continue;
        }
        // Feature matrices in every layout it stores.
        let samples = run(&[
            "--dataset",
            "features",
            "--rows",
            "300",
            "--features",
            "24",
            "--backends",
            name,
            "--layouts",
            "all",
            "--ops",
            "write,read,scan,project,take,features",
        ]);
        for (layout, ops) in &info.layouts {
            for op in ops {
                let sample = samples
                    .iter()
                    .find(|s| &s.cell.layout == layout && s.cell.op == op.name())
                    .unwrap_or_else(|| panic!("{name} {layout} {op}: no sample"));
                assert_eq!(
                    sample.status,
                    SampleStatus::Ok,
                    "{name} {layout} {op}: {:?}",
                    sample.reason
                );
            }
        }
        // The mixed table: what the format cannot store is unsupported with a reason, never a
        // failure.
        let samples = run(&[
            "--dataset",
            "mixed",
            "--rows",
            "500",
            "--per-type",
            "1",
            "--backends",
            name,
        ]);
        for s in &samples {
            assert_ne!(
                s.status,
                SampleStatus::Failed,
                "{name} mixed {}: {:?}",
                s.cell.op,
                s.reason
            );
            if s.status != SampleStatus::Ok {
                assert!(!s.reason.clone().unwrap_or_default().is_empty());
            }
        }
    }
}

#[test]
fn a_heavy_backend_that_is_not_built_says_how_to_build_it() {
    for (name, _, feature) in HEAVY_BACKENDS {
        let info = find(name).expect("every heavy backend is listed");
        if let Err(reason) = &info.available {
            assert!(
                reason.contains("workers/rust/build") || reason.contains("cannot"),
                "{name}: {reason}"
            );
            assert!(reason.contains(feature) || !reason.contains("not built"));
        }
    }
}
