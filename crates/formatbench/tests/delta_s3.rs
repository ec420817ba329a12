//! seed 003's object-store questions (`suite delta-s3`): the Delta tables delta-kernel writes,
//! uploaded once by the runner into formatbench's S3 server and read there by delta-kernel
//! (formatbench's S3 client) and delta-rs's Python package and Polars (their object_store
//! client); a `session` whose initialization, planning and execution are timed apart; one run
//! per network profile, reported together.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use common::{samples, stderr};
use formatbench::results::SampleStatus;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dirs_in(out: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn delta_readers_run_sessions_from_s3_under_each_network_reported_together() {
    let readers = ["delta-kernel", "py-deltalake", "py-polars-delta"];
    if !readers.iter().all(|r| common::ready("Delta backend", r)) {
        return;
    }
    // Two profiles: loopback as it is, and a shaped one where this machine allows it.
    let networks = if common::namespaces_possible() {
        "local,lan"
    } else {
        "local"
    };
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args(["run", "--dataset", "long", "--rows", "4000", "--files", "4"])
        .args(["--storage", "s3", "--network", networks])
        .args(["--backends", &readers.join(",")])
        .args(["--ops", "session,first_row", "--queries", "3"])
        .args(["--rounds", "1", "--samples", "2", "--min-sample-ms", "0"])
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    let said = stderr(&out);
    assert!(out.status.success(), "{said}");
    let dirs = dirs_in(dir.path());
    let runs: Vec<&PathBuf> = dirs
        .iter()
        .filter(|d| d.join("results.jsonl").exists())
        .collect();
    let expected_runs = networks.split(',').count();
    assert_eq!(runs.len(), expected_runs, "{dirs:?}");
    for (run, network) in runs.iter().zip(networks.split(',')) {
        let samples = samples(run);
        for reader in readers {
            for profile in ["default", "dv"] {
                let cell = |op: &str| {
                    samples
                        .iter()
                        .filter(|s| {
                            s.cell.backend == reader && s.cell.profile == profile && s.cell.op == op
                        })
                        .collect::<Vec<_>>()
                };
                let sessions = cell("session");
                assert!(!sessions.is_empty(), "{reader}/{profile}: no session");
                for s in sessions {
                    assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
                    assert_eq!(s.cell.network, network);
                    // Phases are per call as `warm_call_s` is (the calls after the first).
                    let wall = s.warm_call_s.or(s.wall_s).unwrap();
                    let parts: f64 = ["init", "plan", "execute"]
                        .iter()
                        .map(|p| {
                            let v = s.phases.get(*p).copied();
                            assert!(v.is_some_and(|v| v > 0.0), "{reader}: {p} {:?}", s.phases);
                            v.unwrap_or(0.0)
                        })
                        .sum();
                    // The parts lie inside the session's own time.
                    assert!(
                        parts <= wall * 1.01 + 1e-4,
                        "{parts} of {wall}: {:?}",
                        s.phases
                    );
                    // Every byte came from the server: the table's log and its files.
                    let traffic = s.object_traffic.as_ref().expect("traffic counted");
                    assert!(traffic.bytes_sent > 0 && traffic.get + traffic.get_range > 0);
                }
            }
        }
        // delta-kernel and delta-rs's Python package hand batches over one by one and mark
        // the first: from the call's start, inside the call. Polars collects a whole frame.
        for reader in ["delta-kernel", "py-deltalake"] {
            let first_rows: Vec<_> = samples
                .iter()
                .filter(|s| s.cell.backend == reader && s.cell.op == "first_row")
                .collect();
            assert!(!first_rows.is_empty(), "{reader}: no first_row");
            for s in first_rows {
                let first = s.phases.get("first_batch").copied().unwrap_or(-1.0);
                let wall = s.warm_call_s.or(s.wall_s).unwrap();
                assert!(first > 0.0 && first <= wall, "{reader}: {:?}", s.phases);
            }
        }
    }
    // One report of every network's run (of the one run, with one network), sessions and
    // crossovers included.
    let reported = match expected_runs {
        1 => runs[0].clone(),
        _ => dirs
            .iter()
            .find(|d| d.to_string_lossy().ends_with("-networks"))
            .expect("a report of the networks together")
            .clone(),
    };
    let report = std::fs::read_to_string(reported.join("report.md")).unwrap();
    assert!(report.contains("## Sessions"), "{report}");
    for network in networks.split(',') {
        assert!(
            report.contains(&format!("· network {network}")),
            "no session table for {network}"
        );
    }
}

/// delta-rs (given formatbench's object_store 0.13 client as its storage backend) and
/// delta-arrow-reader (its own S3 client, given the endpoint as options) read the tables the
/// runner uploaded, deletion vectors applied, every byte from the server.
#[test]
fn the_heavy_delta_readers_read_the_tables_from_s3() {
    let readers = ["delta-kernel", "delta-rs", "delta-arrow-reader"];
    if !readers.iter().all(|r| common::ready("Delta backend", r)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args(["run", "--dataset", "long", "--rows", "4000", "--files", "4"])
        .args(["--storage", "s3", "--backends", &readers.join(",")])
        .args(["--ops", "read,project,first_row"])
        .args(["--rounds", "1", "--samples", "2", "--min-sample-ms", "0"])
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&common::run_dir(dir.path()));
    for reader in &readers[1..] {
        for profile in ["default", "dv"] {
            for op in ["read", "project", "first_row"] {
                let cell: Vec<_> = samples
                    .iter()
                    .filter(|s| {
                        s.cell.backend == *reader && s.cell.profile == profile && s.cell.op == op
                    })
                    .collect();
                assert!(!cell.is_empty(), "{reader}/{profile}/{op}: no sample");
                for s in cell {
                    // Ok means the verifier found the source's rows less the deleted ones.
                    assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
                    let traffic = s.object_traffic.as_ref().expect("traffic counted");
                    assert!(traffic.bytes_sent > 0 && traffic.get + traffic.get_range > 0);
                }
            }
        }
    }
}
