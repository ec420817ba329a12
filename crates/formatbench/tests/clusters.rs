#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Cluster peers through the real runner: each sample starts a real multi-process cluster
//! (Dask's LocalCluster of executor processes, a Ray cluster of worker nodes for Daft, a Spark
//! standalone master with a worker and an executor JVM per executor), its
//! results are verified against the source at every executor count, its accounting sums the
//! cluster's processes, and a killed executor fails its sample while the run goes on with no
//! process of the cluster left behind. Needs
//! `formatbench peers install`; skipped without it unless FORMATBENCH_REQUIRE_ALL=1.

mod common;

use common::process::processes_tagged;
use common::{ready, run_dir, samples, stderr};
use formatbench::results::{read_records, Record, SampleStatus};
use std::collections::BTreeSet;
use std::process::Command;

const DASK: &str = "py-dask-parquet";

/// A small mixed table (timestamps, uint64, strings).
const MIXED: &[&str] = &["--dataset", "mixed", "--rows", "4000", "--per-type", "1"];

/// `formatbench run` of a small mixed table at `executors`, into `out`, with `extra` arguments
/// and `env` set.
fn cluster_run(
    backends: &str,
    executors: &str,
    ops: &str,
    out: &std::path::Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    run_of(MIXED, backends, executors, ops, out, extra, env)
}

/// [`cluster_run`] of the table `table` names.
fn run_of(
    table: &[&str],
    backends: &str,
    executors: &str,
    ops: &str,
    out: &std::path::Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .arg("run")
        .args(table)
        .args([
            "--backends",
            backends,
            "--executors",
            executors,
            "--ops",
            ops,
            "--threads",
            "1",
            "--rounds",
            "1",
            "--samples",
            "1",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .envs(env.iter().copied())
        .output()
        .expect("formatbench starts")
}

const WRITE_READ_RANGE: &[&str] = &["write", "read", "range"];

/// Every table operation a cluster peer has. The peers' round trip leaves the cluster peers to
/// these tests, so each of their operations is verified here at least once.
const EVERY_TABLE_OP: &[&str] = &["write", "read", "scan", "project", "range"];

#[test]
fn dask_reads_are_verified_at_each_executor_count_with_the_cluster_accounted() {
    verified_at_each_executor_count(DASK, &[1, 2], EVERY_TABLE_OP);
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn daft_on_ray_reads_are_verified_at_each_executor_count_with_the_cluster_accounted() {
    // A Ray cluster starts in ~7 s here: the whole-table operations at both counts, the
    // selective ones at one.
    verified_at_each_executor_count("py-daft-ray", &[1, 2], WRITE_READ_RANGE);
    verified_at_each_executor_count("py-daft-ray", &[1], &["scan", "project"]);
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn daft_on_ray_reads_the_lance_datasets_pylance_writes_verified_in_the_engine() {
    // Two executors only: the executor counts' keys and accounting are the Parquet tests'.
    verified_beside_its_writer(
        "py-daft-ray-lance",
        Some("py-lance"),
        &[2],
        &["read", "project", "range"],
    );
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn dask_csv_reads_are_verified_at_each_executor_count_with_the_cluster_accounted() {
    verified_at_each_executor_count("py-dask-csv", &[1, 2], WRITE_READ_RANGE);
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn daft_on_ray_csv_is_verified_and_digested_in_the_engine() {
    // Two executors only: the executor counts' keys and accounting are the Parquet tests'.
    verified_at_each_executor_count("py-daft-ray-csv", &[2], &["write", "read", "project"]);
}

// Spark's JVMs start in ~15–25 s per sample here (a master, a worker and an executor JVM per
// executor, and the driver's), so CI verifies Spark at one executor in four cells: each write
// read back by the oracle, Spark's reads through its filter (range) and its projection
// (project); whole reads and scans take the same path. The peers' round trip leaves Spark to
// these tests, and the two-executor run is left to a check by hand (its name says
// `beyond_ci`: CI skips it and names it in its closing lines).
#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn spark_parquet_and_csv_are_verified_at_one_executor_with_the_cluster_accounted() {
    verified_at_each_executor_count("py-spark-parquet", &[1], &["write", "range"]);
    verified_at_each_executor_count("py-spark-csv", &[1], &["write", "project"]);
}

#[test]
#[ignore = "Spark at two executors, beyond CI's budget: `cargo test --test clusters -- --ignored beyond_ci`"]
fn spark_parquet_is_verified_at_two_executors_beyond_ci() {
    verified_at_each_executor_count("py-spark-parquet", &[2], &["write", "range"]);
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn daft_on_ray_reads_the_delta_tables_delta_kernel_writes_deleted_rows_left_out() {
    delta_tables_read_with_deleted_rows_left_out("py-daft-ray-delta", &["read", "first_row"]);
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn dask_reads_the_delta_tables_delta_kernel_writes_and_refuses_deletion_vectors() {
    delta_tables_read_with_deleted_rows_left_out("py-dask-delta", &["read", "project"]);
}

/// `backend` (a cluster reader of delta-kernel's tables) at two executors on the Delta study's
/// long table with and without deletion vectors: each of `ops` verified with the deleted rows
/// left out, or refused with a reason; never a table with its deleted rows counted as read.
fn delta_tables_read_with_deleted_rows_left_out(backend: &str, ops: &[&str]) {
    if !ready("Delta backend", "delta-kernel") || !ready("Python peer", backend) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let run = run_of(
        &["--dataset", "long", "--rows", "3000", "--files", "4"],
        &format!("delta-kernel,{backend}"),
        "2",
        &format!("write,{}", ops.join(",")),
        out.path(),
        &["--profiles", "default,dv"],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let records = read_records(&run_dir(out.path()).join("results.jsonl")).unwrap();
    for profile in ["default", "dv"] {
        for &op in ops {
            let outcome = records.iter().find_map(|r| match r {
                Record::Verification(v)
                    if v.cell.backend == backend
                        && v.cell.profile == profile
                        && v.cell.op == op =>
                {
                    Some((v.status, v.reason.clone()))
                }
                Record::Sample(s)
                    if s.cell.backend == backend
                        && s.cell.profile == profile
                        && s.cell.op == op
                        && s.status == SampleStatus::Unsupported =>
                {
                    Some((s.status, s.reason.clone()))
                }
                _ => None,
            });
            if (profile, op) == ("default", "read") {
                // Digested partition by partition on the executors too.
                let digested = records.iter().any(|r| {
                    matches!(r, Record::Verification(v)
                        if v.cell.backend == backend && v.cell.op == op
                            && v.cell.profile == profile
                            && v.engine_digest.as_deref().is_some_and(|d| d.ends_with("the source's")))
                });
                assert!(digested, "{profile} {op}: no partition digests");
            }
            let (status, reason) = outcome.unwrap_or_else(|| panic!("{profile} {op}: no record"));
            match (profile, status) {
                ("default", SampleStatus::Ok) | ("dv", SampleStatus::Ok) => {}
                ("dv", SampleStatus::Unsupported) => assert!(reason.is_some()),
                _ => panic!("{profile} {op}: {status:?} {reason:?}"),
            }
        }
    }
}

/// `backend`'s `ops` at each of `executors`: every cell verified, every sample with the
/// cluster's processes summed and its start apart, the count in the report.
fn verified_at_each_executor_count(backend: &str, executors: &[u32], ops: &[&str]) {
    verified_beside_its_writer(backend, None, executors, ops);
}

/// [`verified_at_each_executor_count`] of a reader of what `writer` (a single-process
/// backend, in the same run) writes.
fn verified_beside_its_writer(
    backend: &str,
    writer: Option<&str>,
    executors: &[u32],
    ops: &[&str],
) {
    if !ready("Python peer", backend) || writer.is_some_and(|w| !ready("Python peer", w)) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let counts: Vec<String> = executors.iter().map(u32::to_string).collect();
    let backends = match writer {
        Some(writer) => format!("{writer},{backend}"),
        None => backend.to_string(),
    };
    let run = cluster_run(
        &backends,
        &counts.join(","),
        &ops.join(","),
        out.path(),
        &[],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let dir = run_dir(out.path());
    let verifications: Vec<_> = read_records(&dir.join("results.jsonl"))
        .unwrap()
        .into_iter()
        .filter_map(|r| match r {
            Record::Verification(v)
                if v.status == SampleStatus::Ok && v.cell.backend == backend =>
            {
                Some(v)
            }
            _ => None,
        })
        .collect();
    let verified: BTreeSet<(Option<u32>, String)> = verifications
        .iter()
        .map(|v| (v.cell.executors, v.cell.op.clone()))
        .collect();
    // Every read was also digested partition by partition in the engine and added up to the
    // source's digest; Dask's and Spark's CSV floats, compared within a tolerance, are not
    // asked to (Daft's CSV round trip of the mixed table is exact).
    for v in verifications.iter().filter(|v| v.cell.op != "write") {
        let said = v.engine_digest.as_deref().unwrap_or_default();
        let ok = if ["py-dask-csv", "py-spark-csv"].contains(&backend) {
            said.starts_with("not asked")
        } else {
            said.contains("digested in the engine") && said.ends_with("the source's")
        };
        assert!(ok, "{} at {:?}: {said:?}", v.cell.op, v.cell.executors);
    }
    for &executors in executors {
        for op in ops {
            assert!(
                verified.contains(&(Some(executors), op.to_string())),
                "{op} at {executors} executors not verified: {verified:?}"
            );
        }
    }
    let measured: Vec<_> = samples(&dir)
        .into_iter()
        .filter(|s| s.cell.backend == backend)
        .collect();
    assert!(!measured.is_empty());
    for s in &measured {
        assert_eq!(s.status, SampleStatus::Ok, "{:?}", s.reason);
        let executors = u64::from(s.cell.executors.unwrap());
        // The driver and at least one process per executor were summed.
        let processes = s.accounted_processes.unwrap();
        assert!(
            processes > executors,
            "{processes} processes at {executors} executors"
        );
        assert!(s.cluster_start_s.unwrap() > 0.0);
        // Its start is not part of the operation's phases.
        assert!(!s.phases.contains_key("cluster_start"));
    }
    // The executor count is the cell's own key, and the report names it.
    let report = common::report_md(&dir);
    for &executors in executors {
        let label = match executors {
            1 => "1 executor".to_string(),
            n => format!("{n} executors"),
        };
        assert!(report.contains(&label), "{label}: {report}");
    }
}

#[test]
fn a_cluster_and_single_processes_read_the_same_shared_parquet_files_each_partitioning_verified() {
    if !ready("Python peer", DASK) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let run = cluster_run(
        &format!("parquet,py-pyarrow-parquet,{DASK}"),
        "1",
        "read,range",
        out.path(),
        &["--parquet-files", "1,3", "--row-group-bytes", "64KiB"],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let dir = run_dir(out.path());
    let records = read_records(&dir.join("results.jsonl")).unwrap();
    let shared: Vec<_> = records
        .iter()
        .filter_map(|r| match r {
            Record::Artifact(a) if a.parquet_files.is_some() => Some(a),
            _ => None,
        })
        .collect();
    // The native writer wrote each partitioning once; every reader records the same files.
    for files in [1, 3] {
        let of: Vec<_> = shared
            .iter()
            .filter(|a| a.parquet_files == Some(files) && a.profile == "default")
            .collect();
        let readers: BTreeSet<&str> = of.iter().map(|a| a.backend.as_str()).collect();
        assert_eq!(
            readers,
            BTreeSet::from(["parquet", "py-pyarrow-parquet", DASK]),
            "{files} file(s)"
        );
        let sizes: BTreeSet<(Option<u64>, Option<u64>)> = of
            .iter()
            .map(|a| (a.size_bytes, a.row_group_rows))
            .collect();
        assert_eq!(sizes.len(), 1, "one set of files, one size: {sizes:?}");
        let (_, rows) = sizes.into_iter().next().unwrap();
        // 64 KiB of the source's Arrow data a group: fewer rows than the table's 4,000.
        assert!(rows.is_some_and(|r| r > 0 && r < 4_000), "{rows:?}");
        let reader = of.iter().find(|a| a.backend == DASK).unwrap();
        assert!(reader.settings["written_by"].starts_with("parquet"));
        assert_eq!(
            reader.settings.get("files").map(String::as_str),
            (files > 1).then_some("3")
        );
    }
    // Every read of every partitioning verified against the source, the cluster's included.
    let verified: Vec<_> = records
        .iter()
        .filter_map(|r| match r {
            Record::Verification(v) if v.cell.parquet_files.is_some() => Some(v),
            _ => None,
        })
        .collect();
    let defaults = verified.iter().filter(|v| v.cell.profile == "default");
    assert_eq!(
        defaults.count(),
        3 * 2 * 2,
        "3 readers × 2 partitionings × 2 operations (and native compact files of its own)"
    );
    for v in &verified {
        assert_eq!(v.status, SampleStatus::Ok, "{:?}: {:?}", v.cell, v.reason);
    }
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        report.contains("the shared Parquet files: 3 files"),
        "no table of them"
    );
}

/// The shared files in formatbench's S3 server: a cluster and the native reader read the
/// same objects, each verified, and each read's fetched bytes stand beside what the files' own
/// metadata says it needs (bytes are deterministic; the native reader fetches no more).
#[test]
fn shared_parquet_files_in_s3_are_read_by_a_cluster_and_natively_each_fetch_beside_its_need() {
    if !ready("Python peer", DASK) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let run = cluster_run(
        &format!("parquet,{DASK}"),
        "1",
        "read,project,range",
        out.path(),
        &[
            "--storage",
            "s3",
            "--parquet-files",
            "3",
            "--row-group-bytes",
            "64KiB",
            "--profiles",
            "default",
        ],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let dir = run_dir(out.path());
    let records = read_records(&dir.join("results.jsonl")).unwrap();
    let mut read_shared = BTreeSet::new();
    for record in &records {
        match record {
            Record::Verification(v) => {
                assert_eq!(v.status, SampleStatus::Ok, "{:?}: {:?}", v.cell, v.reason)
            }
            Record::Sample(s) if s.cell.parquet_files == Some(3) => {
                assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
                assert_eq!(s.cell.storage, "s3");
                let fetched = s.object_traffic.as_ref().expect("traffic").bytes_sent;
                let needed = s.needed_bytes.expect("the files' own need");
                assert!(fetched >= needed / 2 && needed > 0, "{:?}", s.cell);
                if s.cell.backend == "parquet" {
                    let over = fetched as f64 / needed as f64;
                    assert!(over <= 1.1, "{} fetched {over:.2}× its need", s.cell.op);
                }
                read_shared.insert((s.cell.backend.clone(), s.cell.op.clone()));
            }
            _ => {}
        }
    }
    assert_eq!(read_shared.len(), 2 * 3, "{read_shared:?}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("| default · 3 files, "), "{report}");
}

#[test]
fn results_kept_in_the_cluster_are_verified_by_their_partition_digests_alone() {
    kept_in_the_cluster_are_verified(DASK, "read,project,range");
    // Nothing else checks a kept result: partitions that miss a row fail the cell.
    digests_that_miss_a_row_fail_the_cell(&["--targets", "cluster"]);
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn daft_on_ray_results_kept_in_the_cluster_are_verified_by_their_partition_digests() {
    kept_in_the_cluster_are_verified("py-daft-ray", "read");
}

#[test]
#[ignore = "Spark's kept results, beyond CI's budget: `cargo test --test clusters -- --ignored beyond_ci`"]
fn spark_results_kept_in_the_cluster_are_verified_beyond_ci() {
    kept_in_the_cluster_are_verified("py-spark-parquet", "read");
}

/// `backend`'s `ops` at two executors on the cluster target: each verified by its partition
/// digests alone (no result file of rows exists), and each sample's partitions add up to the
/// verified digest.
fn kept_in_the_cluster_are_verified(backend: &str, ops: &str) {
    if !ready("Python peer", backend) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let run = cluster_run(
        backend,
        "2",
        ops,
        out.path(),
        &["--targets", "cluster"],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let dir = run_dir(out.path());
    let records = read_records(&dir.join("results.jsonl")).unwrap();
    for op in ops.split(',') {
        let verified = records.iter().find_map(|r| match r {
            Record::Verification(v) if v.cell.op == op && v.cell.target == "cluster" => Some(v),
            _ => None,
        });
        let v = verified.unwrap_or_else(|| panic!("{op}: no verification"));
        assert_eq!(v.status, SampleStatus::Ok, "{op}: {:?}", v.reason);
        let said = v.engine_digest.as_deref().unwrap_or_default();
        assert!(
            said.contains("the source's") && said.contains("stayed in the cluster"),
            "{op}: {said}"
        );
        assert!(v.rows.is_some_and(|rows| rows > 0), "{op}");
    }
    let measured = samples(&dir);
    assert!(!measured.is_empty());
    for s in &measured {
        assert_eq!(s.cell.target, "cluster");
        assert_eq!(s.status, SampleStatus::Ok, "{:?}", s.reason);
    }
}

#[test]
fn partition_digests_that_miss_a_row_fail_the_cell_whose_collected_result_is_right() {
    // The result the driver collects keeps every row.
    digests_that_miss_a_row_fail_the_cell(&[]);
}

/// A Dask read (with `extra` arguments) whose partitions' digests each leave their first row
/// out fails its cell, saying the parts do not add up to the source.
fn digests_that_miss_a_row_fail_the_cell(extra: &[&str]) {
    if !ready("Python peer", DASK) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let run = cluster_run(
        DASK,
        "2",
        "read",
        out.path(),
        extra,
        &[("FORMATBENCH_FAULT", "drop-row-in-digest")],
    );
    assert_ne!(run.status.code(), Some(0), "{}", stderr(&run));
    let records = read_records(&run_dir(out.path()).join("results.jsonl")).unwrap();
    let verification = records
        .iter()
        .find_map(|r| match r {
            Record::Verification(v) => Some(v),
            _ => None,
        })
        .expect("a verification record");
    assert_eq!(verification.status, SampleStatus::Failed);
    let reason = verification.reason.as_deref().unwrap_or_default();
    assert!(
        reason.contains("do not add up to the source") && reason.contains("rows"),
        "{reason}"
    );
}

#[test]
fn a_killed_executor_fails_its_sample_and_leaves_no_process_behind() {
    killed_executor_fails_its_sample(DASK, "2", "KilledWorker", &[]);
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn a_killed_spark_executor_fails_its_sample_and_leaves_no_process_behind() {
    // Spark retries no task (`task.maxFailures` 1): the executor's loss fails the job.
    killed_executor_fails_its_sample("py-spark-parquet", "1", "ExecutorLostFailure", &[]);
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn a_killed_ray_executor_fails_its_sample_and_leaves_no_process_behind() {
    // Daft reruns a task whose executor died, without a limit, and every run of this task
    // kills its executor again: the run's timeout ends the sample (cluster start included).
    killed_executor_fails_its_sample("py-daft-ray", "2", "timed out", &["--timeout", "60"]);
}

/// A read of `backend` at `executors` whose first task kills the executor running it
/// (clusters.py, FAULT_ENV) fails with `said` in its reason; `parquet` beside it is measured;
/// no process the run started is left, not the driver nor any of the cluster's.
fn killed_executor_fails_its_sample(backend: &str, executors: &str, said: &str, extra: &[&str]) {
    if !ready("Python peer", backend) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let tag = format!(
        "FORMATBENCH_TEST_TAG=killed-executor-{}-{backend}",
        std::process::id()
    );
    let (key, value) = tag.split_once('=').unwrap();
    let run = cluster_run(
        &format!("{backend},parquet"),
        executors,
        "read",
        out.path(),
        extra,
        &[("FORMATBENCH_FAULT", "kill-executor"), (key, value)],
    );
    // Cells failed: the run says so in its exit code, and still measured the others.
    assert_ne!(run.status.code(), Some(0), "{}", stderr(&run));
    let dir = run_dir(out.path());
    let records = read_records(&dir.join("results.jsonl")).unwrap();
    let failure = records.iter().find_map(|r| match r {
        Record::Verification(v) if v.cell.backend == backend && v.cell.op == "read" => {
            Some((v.status, v.reason.clone().unwrap_or_default()))
        }
        Record::Sample(s) if s.cell.backend == backend && s.cell.op == "read" => {
            Some((s.status, s.reason.clone().unwrap_or_default()))
        }
        _ => None,
    });
    let (status, reason) = failure.expect("a record of the cluster's read");
    assert_eq!(status, SampleStatus::Failed, "{reason}");
    assert!(reason.contains(said), "{reason}");
    let parquet: Vec<_> = samples(&dir)
        .into_iter()
        .filter(|s| s.cell.backend == "parquet" && s.cell.op == "read")
        .collect();
    assert!(!parquet.is_empty());
    assert!(parquet.iter().all(|s| s.status == SampleStatus::Ok));
    let left = processes_tagged(&tag);
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

#[test]
fn dask_reads_and_writes_through_s3fs_counted_by_the_server() {
    if !ready("Python peer", DASK) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let run = cluster_run(
        DASK,
        "2",
        "write,read,project",
        out.path(),
        &["--storage", "s3"],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let measured = samples(&run_dir(out.path()));
    for op in ["write", "read", "project"] {
        let s = measured
            .iter()
            .find(|s| s.cell.op == op)
            .unwrap_or_else(|| panic!("no {op} sample"));
        assert_eq!(s.status, SampleStatus::Ok, "{op}: {:?}", s.reason);
        assert_eq!(s.cell.storage, "s3");
        // The executors fetch or upload the bytes; the server counts them.
        let traffic = s.object_traffic.as_ref().expect("traffic");
        match op {
            "write" => assert!(traffic.bytes_received > 0, "{traffic:?}"),
            _ => assert!(traffic.bytes_sent > 0, "{traffic:?}"),
        }
    }
}

#[test]
fn a_cluster_url_of_no_known_engine_is_refused_in_one_line() {
    for url in ["http://127.0.0.1:8786", "dask://127.0.0.1", "dask://:8786"] {
        let run = Command::new(env!("CARGO_BIN_EXE_formatbench"))
            .args(["run", "--backends", DASK, "--cluster", url])
            .output()
            .unwrap();
        assert_ne!(run.status.code(), Some(0), "{url}");
        assert!(
            stderr(&run).contains("use dask://HOST:PORT, ray://HOST:PORT or spark://HOST:PORT"),
            "{url}: {}",
            stderr(&run)
        );
    }
}

/// A cluster started as a user starts one, its processes stopped (SIGTERM, the last started
/// first) when dropped.
struct UserCluster {
    processes: Vec<std::process::Child>,
    port: u16,
}

/// A free port on loopback.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl UserCluster {
    fn running(&mut self) -> bool {
        self.processes
            .iter_mut()
            .all(|p| p.try_wait().unwrap().is_none())
    }
}

impl Drop for UserCluster {
    fn drop(&mut self) {
        for p in self.processes.iter_mut().rev() {
            // SIGTERM: Dask's nannies stop their worker processes on it, and `ray start
            // --block` the node's processes.
            let _ = Command::new("kill")
                .args(["-TERM", &p.id().to_string()])
                .status();
            let _ = p.wait();
        }
    }
}

impl UserCluster {
    /// A Dask scheduler and its workers (`dask scheduler`, `dask worker`).
    fn dask(workers: u32) -> Self {
        let python = formatbench::peers::python_command().unwrap().0;
        let port = free_port();
        let address = format!("tcp://127.0.0.1:{port}");
        let dask = |args: &[&str]| {
            Command::new(&python)
                .args(["-m", "dask"])
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        };
        let port_text = port.to_string();
        let mut processes = vec![dask(&[
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            &port_text,
            "--no-dashboard",
        ])];
        let workers_text = workers.to_string();
        processes.push(dask(&[
            "worker",
            &address,
            "--host",
            "127.0.0.1",
            "--nworkers",
            &workers_text,
            "--nthreads",
            "1",
            "--no-dashboard",
        ]));
        let cluster = UserCluster { processes, port };
        // Ready when every worker has registered with the scheduler.
        let waited = Command::new(&python)
            .args([
                "-c",
                &format!(
                    "from distributed import Client; \
                     Client('{address}', timeout=60).wait_for_workers({workers}, timeout=60)"
                ),
            ])
            .output()
            .unwrap();
        assert!(waited.status.success(), "{}", stderr(&waited));
        cluster
    }

    /// A Ray head and its worker nodes (`ray start --head`, `ray start --address` per node,
    /// on loopback, each `--block`ing in the foreground).
    fn ray(workers: u32) -> Self {
        let python = formatbench::peers::python_command().unwrap().0;
        let ray = std::path::Path::new(&python).with_file_name("ray");
        let port = free_port();
        let address = format!("127.0.0.1:{port}");
        let start = |args: &[&str]| {
            Command::new(&ray)
                .arg("start")
                .args(["--node-ip-address", "127.0.0.1", "--block"])
                .args(args)
                .env("RAY_USAGE_STATS_ENABLED", "0")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        };
        let port_text = port.to_string();
        let mut processes = vec![start(&[
            "--head",
            "--port",
            &port_text,
            "--num-cpus",
            "0",
            "--include-dashboard",
            "false",
        ])];
        // The worker nodes join once the head answers.
        let joined = |nodes: u32| {
            // Bounded: a Ray that never answers (a stale auth token in ~/.ray once held
            // `ray.init` for 33 min) fails the test instead of hanging it.
            Command::new("timeout")
                .arg("180")
                .arg(&python)
                .args([
                    "-c",
                    &format!(
                        "import time, ray\n\
                         for _ in range(120):\n\
                         \ttry:\n\
                         \t\tray.init(address='{address}', logging_level='ERROR')\n\
                         \t\tbreak\n\
                         \texcept Exception:\n\
                         \t\ttime.sleep(0.5)\n\
                         for _ in range(240):\n\
                         \tif sum(1 for n in ray.nodes() if n['Alive'] and n['Resources'].get('CPU', 0) > 0) >= {nodes}: break\n\
                         \ttime.sleep(0.5)\n\
                         else: raise SystemExit('the worker nodes did not join')"
                    ),
                ])
                .output()
                .unwrap()
        };
        let head = joined(0);
        assert!(head.status.success(), "{}", stderr(&head));
        let mut cluster = UserCluster {
            processes: Vec::new(),
            port,
        };
        cluster.processes.append(&mut processes);
        // One node at a time: started at once here, they did not all join.
        for node in 1..=workers {
            cluster
                .processes
                .push(start(&["--address", &address, "--num-cpus", "1"]));
            let waited = joined(node);
            assert!(waited.status.success(), "{}", stderr(&waited));
        }
        cluster
    }
}

impl UserCluster {
    /// A Spark standalone master and its workers, each a JVM started through pyspark's own
    /// `bin/spark-class` in the foreground, as `start-master.sh` and `start-worker.sh` start
    /// them (those scripts daemonise, which a test could not stop by its children).
    fn spark(workers: u32) -> Self {
        let python = formatbench::peers::python_command().unwrap().0;
        let home = Command::new(&python)
            .args([
                "-c",
                "import os, pyspark; print(os.path.dirname(pyspark.__file__))",
            ])
            .output()
            .unwrap();
        assert!(home.status.success(), "{}", stderr(&home));
        let home = String::from_utf8(home.stdout).unwrap().trim().to_string();
        let spark_class = std::path::Path::new(&home).join("bin").join("spark-class");
        let scratch = tempfile::tempdir().unwrap().keep();
        let port = free_port();
        let class = |args: &[&str]| {
            Command::new(&spark_class)
                .args(args)
                .env("SPARK_HOME", &home)
                .env("SPARK_LOG_DIR", &scratch)
                .env("SPARK_WORKER_DIR", scratch.join("work"))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        };
        let port_text = port.to_string();
        let master = class(&[
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            &port_text,
            "--webui-port",
            "0",
        ]);
        // Workers that find no master retry only after seconds: start them once it listens.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(std::time::Instant::now() < deadline, "no Spark master");
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        let url = format!("spark://127.0.0.1:{port}");
        let mut processes = vec![master];
        for _ in 0..workers {
            processes.push(class(&[
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                "127.0.0.1",
                "--cores",
                "1",
                "--memory",
                "1g",
                "--webui-port",
                "0",
                &url,
            ]));
        }
        // The run's driver waits for every executor to register (its start timeout).
        UserCluster { processes, port }
    }
}

/// Spark's attach route, beyond CI's budget like its other two-executor runs.
#[test]
#[ignore = "Spark attached at two executors, beyond CI's budget: `cargo test --test clusters -- --ignored beyond_ci`"]
fn a_run_attaches_to_the_users_spark_cluster_and_leaves_it_running_beyond_ci() {
    if !ready("Python peer", "py-spark-parquet") {
        return;
    }
    let mut cluster = UserCluster::spark(2);
    let url = format!("spark://127.0.0.1:{}", cluster.port);
    let out = tempfile::tempdir().unwrap();
    // The executors' Python workers run the driver's interpreter, which has pyarrow.
    let python = formatbench::peers::python_command().unwrap().0;
    let python = python.to_string_lossy().to_string();
    let run = cluster_run(
        "py-spark-parquet",
        "2",
        "write,read,range",
        out.path(),
        &["--cluster", &url],
        &[("PYSPARK_PYTHON", python.as_str())],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let dir = run_dir(out.path());
    let records = read_records(&dir.join("results.jsonl")).unwrap();
    for op in ["write", "read", "range"] {
        assert!(
            records.iter().any(|r| matches!(r,
                Record::Verification(v) if v.cell.op == op && v.status == SampleStatus::Ok)),
            "{op} not verified"
        );
    }
    for s in samples(&dir) {
        assert_eq!(s.status, SampleStatus::Ok, "{:?}", s.reason);
        assert_eq!(s.accounted_processes, None);
    }
    assert!(common::report_md(&dir).contains(&format!("attached to {url}")));
    assert!(cluster.running());
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn a_run_attaches_to_the_users_ray_cluster_and_leaves_it_running() {
    if !ready("Python peer", "py-daft-ray") {
        return;
    }
    let mut cluster = UserCluster::ray(2);
    let url = format!("ray://127.0.0.1:{}", cluster.port);
    let out = tempfile::tempdir().unwrap();
    let run = cluster_run(
        "py-daft-ray",
        "2",
        "write,read",
        out.path(),
        &["--cluster", &url],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let dir = run_dir(out.path());
    let records = read_records(&dir.join("results.jsonl")).unwrap();
    for op in ["write", "read"] {
        let verified = records.iter().find_map(|r| match r {
            Record::Verification(v) if v.cell.op == op => Some(v),
            _ => None,
        });
        let v = verified.unwrap_or_else(|| panic!("{op}: no verification"));
        assert_eq!(v.status, SampleStatus::Ok, "{op}: {:?}", v.reason);
    }
    for s in samples(&dir) {
        assert_eq!(s.status, SampleStatus::Ok, "{:?}", s.reason);
        assert_eq!(s.accounted_processes, None);
    }
    assert!(cluster.running());
}

#[test]
fn a_run_attaches_to_the_users_dask_cluster_accounts_only_its_driver_and_leaves_it_running() {
    if !ready("Python peer", DASK) {
        return;
    }
    let mut cluster = UserCluster::dask(2);
    let url = format!("dask://127.0.0.1:{}", cluster.port);
    let out = tempfile::tempdir().unwrap();
    let run = cluster_run(
        DASK,
        "2",
        "write,read",
        out.path(),
        &["--cluster", &url],
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let dir = run_dir(out.path());
    let records = read_records(&dir.join("results.jsonl")).unwrap();
    let environment = records
        .iter()
        .find_map(|r| match r {
            Record::Environment(e) => Some(e),
            _ => None,
        })
        .unwrap();
    assert_eq!(environment.settings.cluster.as_deref(), Some(url.as_str()));
    for op in ["write", "read"] {
        assert!(
            records.iter().any(|r| matches!(r,
                Record::Verification(v) if v.cell.op == op && v.status == SampleStatus::Ok)),
            "{op} not verified"
        );
    }
    // The artifact the reads read was written on the user's cluster, and says so.
    let artifact = records
        .iter()
        .find_map(|r| match r {
            Record::Artifact(a) => Some(a),
            _ => None,
        })
        .unwrap();
    assert!(
        artifact.settings["cluster"].starts_with(&format!("attached to {url}")),
        "{:?}",
        artifact.settings
    );
    for s in samples(&dir) {
        assert_eq!(s.status, SampleStatus::Ok, "{:?}", s.reason);
        // Only the driver: the user's processes are not the run's to read.
        assert_eq!(s.accounted_processes, None);
        assert!(s.cluster_start_s.is_some());
    }
    let report = common::report_md(&dir);
    assert!(report.contains(&format!("attached to {url}")), "{report}");
    // The user's cluster outlives the run.
    assert!(cluster.running());
    // A cluster with another count of executors fails the sample, saying why.
    let other = tempfile::tempdir().unwrap();
    let run = cluster_run(DASK, "3", "read", other.path(), &["--cluster", &url], &[]);
    assert_ne!(run.status.code(), Some(0));
    assert!(
        stderr(&run).contains("has 2 executors; the run asked for 3"),
        "{}",
        stderr(&run)
    );
    assert!(cluster.running());
}
