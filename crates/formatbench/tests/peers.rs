#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The peers through the real runner: every available Python and R peer runs every operation it
//! claims, into every target it offers, on two small tables, and each result is verified
//! against the source; a table a format cannot store is refused with a reason, never failed.
//! The Python peers need `formatbench peers install`, the R peers Debian's R packages; each
//! test is skipped without them unless FORMATBENCH_REQUIRE_ALL=1.

mod common;

use common::{available, formatbench, run_dir, stderr, stdout};
use formatbench::results::{read_records, Record, SampleStatus};
use std::collections::{BTreeMap, BTreeSet};

/// `formatbench backends` rows of the peers named `prefix…`: name → (available, operations).
fn peers(prefix: &str) -> BTreeMap<String, (bool, Vec<String>)> {
    let out = formatbench(&["backends"]);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let ops = words[4].split(',').map(str::to_string).collect();
            (words[0].to_string(), (words[5] == "available", ops))
        })
        .collect()
}

/// (backend, `key` of the cell, operation) of every cell of `run` verified equal to its source.
fn verified_cells(
    run: &std::path::Path,
    key: impl Fn(&formatbench::results::CellKey) -> String,
) -> BTreeSet<(String, String, String)> {
    read_records(&run.join("results.jsonl"))
        .unwrap()
        .into_iter()
        .filter_map(|r| match r {
            Record::Verification(v) if v.status == SampleStatus::Ok => {
                Some((v.cell.backend.clone(), key(&v.cell), v.cell.op))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn every_backend_that_runs_here_names_the_format_of_its_files() {
    // The report holds a cluster to the fastest single process of its format: every backend a
    // user can run declares one, but the memory floor (it stores nothing) and the self-tests.
    let catalog = formatbench::run::catalog();
    let runs_here: Vec<&formatbench::catalog::BackendInfo> = catalog
        .iter()
        .filter(|b| b.available.is_ok() && !b.hidden && b.name != formatbench::catalog::FLOOR)
        .collect();
    for b in &runs_here {
        let format = b
            .format
            .as_deref()
            .unwrap_or_else(|| panic!("{} names no format", b.name));
        assert!(
            formatbench_protocol::is_format_name(format),
            "{}: {format}",
            b.name
        );
    }
    let format = |name: &str| {
        catalog
            .iter()
            .find(|b| b.name == name)
            .and_then(|b| b.format.clone())
    };
    assert_eq!(format("parquet").as_deref(), Some("parquet"));
    assert_eq!(format("ipc-mmap").as_deref(), Some("arrow-ipc"));
    let python = catalog.iter().any(|b| b.name.starts_with("py-"));
    if available("the Python peers (run `formatbench peers install`)", python) {
        // Cluster peers name what they read, whatever their class inherits.
        for (peer, expected) in [
            ("py-dask-delta", "delta"),
            ("py-daft-ray-csv", "csv"),
            ("py-daft-ray-lance", "lance"),
            ("py-pyarrow-feather", "arrow-ipc"),
        ] {
            assert_eq!(format(peer).as_deref(), Some(expected), "{peer}");
        }
    }
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn every_available_python_peer_round_trips_a_small_table() {
    // Each peer's default profile: the Python peers are many and start slowly.
    round_trip(
        "py-",
        "default",
        "the Python peers (run `formatbench peers install`)",
        false,
    );
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn every_available_r_peer_round_trips_a_small_table() {
    round_trip(
        "r-",
        "all",
        "the R peers (apt-get install r-base-core r-cran-data.table r-cran-bit64 r-cran-vroom \
         r-cran-jsonlite r-cran-yaml)",
        true,
    );
}

fn round_trip(prefix: &str, profiles: &str, what: &str, position_ranges: bool) {
    let peers = peers(prefix);
    // Readers of another backend's tables (the Delta readers) are tested in tests/delta.rs.
    let ready: Vec<&String> = peers
        .iter()
        .filter(|(_, (ok, _))| *ok)
        .map(|(n, _)| n)
        // The cluster peers start a cluster for every sample (Ray's in ~7 s, Spark's JVMs in
        // ~15–25 s): tests/clusters.rs verifies each of them at its executor counts.
        .filter(|n| {
            formatbench::run::find(n)
                .is_some_and(|b| b.table.artifact_from.is_none() && !b.executors)
        })
        .collect();
    if !available(what, !ready.is_empty()) {
        return;
    }
    let names: Vec<&str> = ready.iter().map(|n| n.as_str()).collect();
    let dir = tempfile::tempdir().unwrap();
    // Two tables: the mixed one (timestamps, uint64, bools) and the long one (dates, no unsigned
    // columns), which formats without unsigned integers (Delta Lake) can store.
    let suite = dir.path().join("peers.toml");
    std::fs::write(
        &suite,
        r#"name = "peers-test"
backends = ["peers"]
ops = ["all"]
rounds = 1

[[datasets]]
kind = "mixed"
rows = 2_000
per_type = 1

[[datasets]]
kind = "long"
rows = 2_000
"#,
    )
    .unwrap();
    let common = |out: &std::path::Path| -> Vec<String> {
        [
            "--backends",
            &names.join(","),
            "--profiles",
            profiles,
            "--targets",
            "all",
            "--samples",
            "1",
            "--min-sample-ms",
            "0",
            "--threads",
            "2",
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    let mut runs = vec![("suite", dir.path().join("out"))];
    let mut args = vec!["suite".to_string(), suite.to_str().unwrap().to_string()];
    args.extend(common(&runs[0].1));
    let mut invocations = vec![args];
    if position_ranges {
        // A file without an index column: `range` then selects rows by position, which is all
        // that readers without a filter (fread, vroom) can do natively.
        let csv = dir.path().join("plain.csv");
        let mut text = String::from("n,name,x\n");
        for i in 0..500 {
            text.push_str(&format!("{},item {i},{}\n", i * 7 % 13, f64::from(i) / 8.0));
        }
        std::fs::write(&csv, text).unwrap();
        runs.push(("plain", dir.path().join("out-plain")));
        let mut args = vec![
            "run".to_string(),
            "--input".into(),
            csv.to_str().unwrap().into(),
        ];
        args.extend(["--ops".to_string(), "range".into()]);
        args.extend(common(&runs[1].1));
        invocations.push(args);
    }
    let mut verified: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut samples = Vec::new();
    for ((_, out_dir), args) in runs.iter().zip(&invocations) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = formatbench(&args);
        let run = run_dir(out_dir);
        assert!(
            out.status.success(),
            "run failed ({}): {}\n{}",
            out.status,
            stderr(&out),
            common::failed_samples(&run)
        );
        verified.extend(verified_cells(&run, |c| c.target.clone()));
        samples.extend(common::samples(&run));
    }
    for s in &samples {
        assert!(
            matches!(
                s.status,
                SampleStatus::Ok | SampleStatus::Unsupported | SampleStatus::Unavailable
            ),
            "{}/{} {} {}: {:?} {:?}",
            s.cell.backend,
            s.cell.target,
            s.cell.op,
            s.cell.profile,
            s.status,
            s.reason
        );
    }
    for name in ready {
        // The suite runs the table operations ("all"); the store operations have their own
        // test (tests/stores.rs).
        let ran = |op: &&String| {
            formatbench_protocol::ALL_OPS
                .iter()
                .any(|o| o.name() == op.as_str())
        };
        let ops = &peers[name].1;
        for op in ops.iter().filter(ran) {
            let ok = samples.iter().any(|s| {
                &s.cell.backend == name && &s.cell.op == op && s.status == SampleStatus::Ok
            });
            assert!(ok, "{name} {op}: no measured sample");
            assert!(
                verified.iter().any(|(b, _, o)| b == name && o == op),
                "{name} {op}: not verified"
            );
        }
    }
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn every_python_peer_of_the_layout_study_runs_its_layouts_and_matrix_operations() {
    // The layout study's libraries (seed 004).
    let study = [
        "py-pyarrow-parquet",
        "py-pyarrow-feather",
        "py-lance",
        "py-vortex",
        "py-zarr",
        "py-tiledb",
        "py-duckdb",
        "py-numpy-npy",
        "py-pandas-csv",
    ];
    let peers = peers("py-");
    let ready: Vec<&str> = study
        .iter()
        .copied()
        .filter(|n| peers.get(*n).is_some_and(|(ok, _)| *ok))
        .collect();
    if !available(
        "the layout study's Python peers (run `formatbench peers install`)",
        ready.len() == study.len(),
    ) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let ran = common::both_layouts(
        &ready.join(","),
        "write,read,matrix,random_rows,feature_project,mixed,vector_norm",
        out.path(),
    );
    assert!(ran.status.success(), "run failed: {}", stderr(&ran));
    let run = run_dir(out.path());
    let verified = verified_cells(&run, |c| c.layout.clone());
    let samples = common::samples(&run);
    let failed: Vec<_> = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Failed)
        .map(|s| (&s.cell.backend, &s.cell.layout, &s.cell.op, &s.reason))
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    let matrix_ops = [
        "matrix",
        "random_rows",
        "feature_project",
        "mixed",
        "vector_norm",
    ];
    for name in ready {
        // .npy holds the bare matrix only (no index column, so no `mixed`, and no wide layout);
        // packed CSV text has no table to read back.
        let (layouts, skipped): (&[&str], &[&str]) = match name {
            "py-numpy-npy" => (&["array"], &["mixed"]),
            "py-pandas-csv" => (&["wide", "array"], &[]),
            _ => (&["wide", "array"], &[]),
        };
        for layout in layouts {
            for op in matrix_ops.iter().filter(|op| !skipped.contains(op)) {
                let key = (name.to_string(), layout.to_string(), op.to_string());
                assert!(verified.contains(&key), "{key:?} measured and verified");
                assert!(
                    samples.iter().any(|s| (
                        s.cell.backend.as_str(),
                        s.cell.layout.as_str(),
                        s.cell.op.as_str()
                    ) == (name, *layout, *op)
                        && s.status == SampleStatus::Ok),
                    "{key:?} has a measured sample"
                );
            }
        }
    }
}

/// Seed 001's design in one command: `suite r-study --quick` (the long table at 100,000 rows)
/// through every R package and profile the study named that runs here, beside Feather, Parquet,
/// arrow's CSV and DuckDB by the Python peers and formatbench's own readers; the packages
/// Debian lacks are reported unavailable with the reason, and the report sets the study's
/// conclusions beside the run.
#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn the_r_study_runs_quick_through_the_r_and_python_peers() {
    if !common::ready("peer", "r-data.table") || !common::ready("peer", "py-pyarrow-feather") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let ran = formatbench(&[
        "suite",
        "r-study",
        "--quick",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    let run = run_dir(out.path());
    let samples = common::samples(&run);
    let measured = |backend: &str, profile: &str, op: &str| {
        samples.iter().any(|s| {
            (
                s.cell.backend.as_str(),
                s.cell.profile.as_str(),
                s.cell.op.as_str(),
            ) == (backend, profile, op)
                && s.status == SampleStatus::Ok
                && s.round.is_some()
        })
    };
    for (backend, profile) in [
        ("r-data.table", "default"),
        ("r-data.table", "yaml"),
        ("r-vroom", "default"),
        ("r-vroom", "eager"),
        ("r-rds", "default"),
        ("r-rds", "uncompressed"),
        ("py-pyarrow-feather", "default"),
        ("py-pyarrow-parquet", "default"),
        ("py-pyarrow-csv", "default"),
        ("py-duckdb", "default"),
        ("ipc", "default"),
        ("parquet", "default"),
    ] {
        for op in ["write", "read"] {
            assert!(measured(backend, profile, op), "{backend}/{profile} {op}");
        }
    }
    // Only the 100,000-row table under --quick, and only the two operations.
    assert!(samples
        .iter()
        .all(|s| s.cell.dataset == "long-100000x12"
            && ["write", "read"].contains(&s.cell.op.as_str())));
    for backend in ["r-qs", "r-fst", "r-arrow-feather", "r-arrow-parquet"] {
        let theirs: Vec<_> = samples
            .iter()
            .filter(|s| s.cell.backend == backend)
            .collect();
        assert!(!theirs.is_empty(), "{backend} is in the plan");
        for s in theirs {
            let unavailable = s.status == SampleStatus::Unavailable
                && s.reason
                    .as_deref()
                    .is_some_and(|r| r.contains("not installed"));
            assert!(s.status == SampleStatus::Ok || unavailable, "{s:?}");
        }
    }
    let markdown = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        markdown.contains("long-100000x12: seed 001's conclusions beside this run"),
        "{markdown}"
    );
}
