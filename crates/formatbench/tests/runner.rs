#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Process isolation: every sample is a fresh worker behind the launcher. Crashes, hangs and
//! garbage are recorded as failed while the run completes; memory is the worker's own.

mod common;

use common::process::{kill, spawn, wait_for};
use common::{
    formatbench, measured_samples, mixed_run, mixed_run_args, recommendation, records, report_md,
    run_dir, samples, stderr, stdout,
};
use formatbench::results::SampleStatus;
use std::time::Duration;

/// Rows of the small mixed table most runs here measure.
const SMALL_ROWS: u64 = 200;

#[test]
fn crash_hang_and_garbage_are_recorded_and_the_run_completes() {
    let out = tempfile::tempdir().unwrap();
    let args = [
        "--backends",
        "selftest-noop,selftest-crash,selftest-hang,selftest-garbage",
        "--ops",
        "read",
        "--rounds",
        "1",
        "--timeout",
        "1",
        "-q",
    ];
    let started = std::time::Instant::now();
    let result = mixed_run(SMALL_ROWS, &args, out.path());
    assert_eq!(
        result.status.code(),
        Some(1),
        "a failed cell exits 1: {}",
        stderr(&result)
    );
    // Even quiet, the exit status comes with why: how many cells failed, the first with its
    // reason.
    let said = stderr(&result);
    assert!(
        said.contains("3 cells failed, first mixed-")
            && said.contains("(all under \"Not measured\""),
        "{said}"
    );
    assert!(
        started.elapsed().as_secs() < 60,
        "hangs are cut by the timeout"
    );
    let dir = run_dir(out.path());
    let samples = samples(&dir);
    let reasons = |backend: &str| -> Vec<(SampleStatus, String)> {
        samples
            .iter()
            .filter(|s| s.cell.backend == backend && s.round.is_some())
            .map(|s| (s.status, s.reason.clone().unwrap_or_default()))
            .collect()
    };
    // One balanced block of four competitors: 2 × 4 rounds.
    let noop = reasons("selftest-noop");
    assert_eq!(noop.len(), 8);
    assert!(noop.iter().all(|(s, _)| *s == SampleStatus::Ok), "{noop:?}");
    for (backend, expect) in [
        ("selftest-crash", "killed by SIGABRT"),
        ("selftest-hang", "timed out after 1 s"),
        ("selftest-garbage", "garbled answer"),
    ] {
        let got = reasons(backend);
        assert_eq!(got.len(), 8, "{backend}: every round recorded: {got:?}");
        for (status, reason) in got {
            assert_eq!(status, SampleStatus::Failed, "{backend}");
            assert!(reason.contains(expect), "{backend}: {reason}");
        }
    }
    assert!(dir.join("report.html").exists() && dir.join("report.md").exists());
    assert!(stdout(&result).contains("selftest-noop"));
    assert!(!stderr(&result).contains("panicked"));
}

#[test]
fn peak_memory_is_the_workers_own() {
    let out = tempfile::tempdir().unwrap();
    let args = [
        "--backends",
        "selftest-alloc",
        "--profiles",
        "256mib",
        "--ops",
        "read",
        "--rounds",
        "2",
    ];
    let result = mixed_run(SMALL_ROWS, &args, out.path());
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let target = 256.0 * 1024.0 * 1024.0;
    let measured = measured_samples(&run_dir(out.path()));
    // Two blocks of one competitor: 2 × 2 rounds.
    assert_eq!(measured.len(), 4);
    for s in measured {
        let peak = s.peak_rss_bytes.unwrap() as f64;
        assert!(
            (peak / target - 1.0).abs() <= 0.10,
            "VmHWM {peak} vs 256 MiB"
        );
        // wait4 through the launcher is not inflated by the runner's own memory either.
        let maxrss = s.process_maxrss_bytes.unwrap() as f64;
        assert!(
            (maxrss / target - 1.0).abs() <= 0.10,
            "ru_maxrss {maxrss} vs 256 MiB"
        );
    }
}

#[test]
fn a_small_default_matrix_verifies_every_cell() {
    let out = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "--rows",
        "1000",
        "--rounds",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out.path().to_str().unwrap(),
    ];
    let result = formatbench(&args);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let samples = samples(&run_dir(out.path()));
    let ok = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Ok)
        .count();
    let unsupported: Vec<_> = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Unsupported)
        .collect();
    // One block of 2n rounds per group. Writes: csv, parquet ×2, ipc ×3, ipc-parts,
    // floor-memcpy (8; the suite leaves gzip CSV out). read, scan, project: those and ipc-mmap
    // (9). range, take: all but the floor (8).
    assert_eq!(
        ok,
        8 * 16 + 3 * 9 * 18 + 2 * 8 * 16,
        "every claimed cell measured 2n times"
    );
    assert!(
        samples
            .iter()
            .all(|s| (s.cell.backend.as_str(), s.cell.profile.as_str()) != ("csv", "compact")),
        "the default suite leaves csv/compact out"
    );
    // Each competitor takes each position exactly twice in its group.
    let mut positions = std::collections::HashMap::new();
    for s in samples.iter().filter(|s| s.status == SampleStatus::Ok) {
        *positions
            .entry((s.cell.clone(), s.position.unwrap()))
            .or_insert(0) += 1;
    }
    assert!(positions.values().all(|&k| k == 2), "balanced positions");
    // npy cannot store strings (6 ops); ipc-mmap does not write; the floor reads whole files
    // only (no range, no take).
    assert_eq!(unsupported.len(), 9);
    assert!(samples.iter().all(|s| s.status != SampleStatus::Failed));
    // Every ok sample's result was digested by the runner from the file it wrote, and equals
    // the digest of its cell's verified result.
    let verified = verified_digests(&run_dir(out.path()));
    for s in samples.iter().filter(|s| s.status == SampleStatus::Ok) {
        let digest = s.digest.as_deref().expect("a checked digest");
        assert!(digest.starts_with("rd1:"), "{digest}");
        assert_eq!(Some(digest), verified.get(&s.cell).map(String::as_str));
        assert!(
            s.wall_s.unwrap() > 0.0 && s.peak_rss_bytes.unwrap() > 0 && s.size_bytes.unwrap() > 0
        );
        assert_eq!(
            s.cell.threads as usize,
            std::thread::available_parallelism().unwrap().get()
        );
    }
    let table = stdout(&result);
    for op in ["write", "read", "scan", "project", "range", "take"] {
        assert!(table.contains(&format!("· {op} ·")), "summary has {op}");
    }
}

/// Each cell's verified digest, from results.jsonl's verification records.
fn verified_digests(
    run: &std::path::Path,
) -> std::collections::HashMap<formatbench::results::CellKey, String> {
    records(run)
        .into_iter()
        .filter_map(|record| match record {
            formatbench::results::Record::Verification(v) => Some((v.cell, v.digest?)),
            _ => None,
        })
        .collect()
}

fn assert_input_error(args: &[&str], expect: &str) {
    let out = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    all.extend(["--out", out.path().to_str().unwrap()]);
    let result = formatbench(&all);
    let err = stderr(&result);
    assert_eq!(result.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(expect), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(
        err.trim().lines().filter(|l| l.contains("error")).count(),
        1,
        "{args:?}: one error line: {err}"
    );
}

#[test]
fn bad_input_gets_one_clear_error_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("bad.parquet");
    std::fs::write(&garbage, b"PAR1 this is not really parquet").unwrap();
    let ragged = dir.path().join("ragged.csv");
    std::fs::write(&ragged, "a,b\n1,2\n3\n4,5,6\n").unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        "name = \"x\"\nrounds = \"five\"\n[[datasets]]\nkind = \"mixed\"\nrows = 10\n",
    )
    .unwrap();
    let missing = dir.path().join("missing.csv");
    assert_input_error(
        &["run", "--input", missing.to_str().unwrap()],
        "cannot open",
    );
    assert_input_error(
        &["run", "--input", garbage.to_str().unwrap()],
        "malformed Parquet",
    );
    assert_input_error(
        &["run", "--input", ragged.to_str().unwrap(), "--rounds", "1"],
        "malformed",
    );
    assert_input_error(&["run", "--backends", "nosuch"], "unknown backend 'nosuch'");
    assert_input_error(&["run", "--dataset", "nosuch"], "unknown dataset 'nosuch'");
    assert_input_error(&["run", "--ops", "fly"], "unknown operation 'fly'");
    assert_input_error(&["suite", "nosuch"], "unknown suite 'nosuch'");
    assert_input_error(&["suite", suite.to_str().unwrap()], "bad suite file");
    assert_input_error(
        &["run", "--threads", "zero"],
        "invalid value 'zero' for '--threads",
    );
    assert_input_error(
        &["run", "--cache", "tepid"],
        "[possible values: warm, cold, both]",
    );
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_finished_samples() {
    let out = tempfile::tempdir().unwrap();
    let args = mixed_run_args(
        SMALL_ROWS,
        &[
            "--backends",
            "selftest-noop,selftest-hang",
            "--ops",
            "read",
            "--rounds",
            "3",
            "--timeout",
            "60",
        ],
        out.path(),
    );
    let child = spawn(&args);
    // Wait until the first hanging sample is in flight (after noop's first sample was written).
    wait_for("a sample to be written", Duration::from_secs(30), || {
        std::fs::read_dir(out.path())
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .is_some_and(|e| !measured_samples(&e.path()).is_empty())
    });
    std::thread::sleep(Duration::from_millis(300));
    kill(child.id() as i32, libc::SIGINT);
    let result = child.wait_with_output().unwrap();
    assert_eq!(result.status.code(), Some(130), "{}", stderr(&result));
    assert!(stderr(&result).contains("interrupted"));
    let dir = run_dir(out.path());
    let kept = samples(&dir);
    assert!(kept
        .iter()
        .any(|s| s.cell.backend == "selftest-noop" && s.status == SampleStatus::Ok));
    // The sample in flight was dropped, not recorded as a failure.
    assert!(
        kept.iter().all(|s| s.status == SampleStatus::Ok),
        "{kept:?}"
    );
    // The report says the run is partial, which cells are short, and recommends nothing.
    let report = report_md(&dir);
    assert!(
        report.contains("**Incomplete: the run stopped after"),
        "{report}"
    );
    assert!(
        report.contains("selftest-hang default (wide, arrow): 0 of 12 samples"),
        "{report}"
    );
    assert!(!report.contains("Every cell was measured."), "{report}");
    assert!(
        report.contains("**Recommendation:** none: the run stopped"),
        "{report}"
    );
    assert!(!dir.join("scratch").exists(), "scratch removed");
}

#[test]
fn progress_goes_to_stderr_and_quiet_silences_it() {
    let out = tempfile::tempdir().unwrap();
    let mut args = mixed_run_args(
        SMALL_ROWS,
        &["--backends", "selftest-noop", "--ops", "read"],
        out.path(),
    );
    let normal = formatbench(&args);
    assert_eq!(normal.status.code(), Some(0));
    let err = stderr(&normal);
    assert!(err.contains("measure 2 done in 00:0"), "{err}");
    assert!(
        !stdout(&normal).contains("measure 2 done"),
        "stdout carries only the summary"
    );
    args.push("--quiet".into());
    let quiet = formatbench(&args);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(stderr(&quiet), "", "quiet");
    assert!(stdout(&quiet).contains("selftest-noop"));
}

/// The self-test spin's `profiles` read on one thread from a 16-row mixed table, each sample
/// repeated to `min_sample_ms`, into `out`.
fn spin_run(profiles: &str, min_sample_ms: &str, out: &std::path::Path) -> std::process::Output {
    formatbench(&[
        "run",
        "--out",
        out.to_str().unwrap(),
        "--dataset",
        "mixed",
        "--rows",
        "16",
        "--per-type",
        "1",
        "--backends",
        "selftest-spin",
        "--profiles",
        profiles,
        "--ops",
        "read",
        "--threads",
        "1",
        "--min-sample-ms",
        min_sample_ms,
    ])
}

#[test]
fn cpu_time_is_per_call_like_wall_time() {
    // A one-thread spin short enough to repeat inside every sample: per call, its CPU time
    // cannot exceed its wall time, while the whole sample's CPU would be `calls` times that.
    let out = tempfile::tempdir().unwrap();
    let result = spin_run("short-x1", "500", out.path());
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let ok: Vec<_> = samples(&run_dir(out.path()))
        .into_iter()
        .filter(|s| s.status == SampleStatus::Ok)
        .collect();
    assert!(!ok.is_empty());
    for s in ok {
        let calls = s.calls.unwrap();
        assert!(
            calls >= 3,
            "the spin repeats inside its sample: {calls} calls"
        );
        let cpu = s.cpu_user_s.unwrap() + s.cpu_sys_s.unwrap();
        let wall = s.wall_s.unwrap();
        assert!(
            cpu <= wall * 1.25 + 1e-3,
            "CPU {cpu} s a call against wall {wall} s a call ({calls} calls)"
        );
        assert!(s.cpu_per_call);
    }
}

/// The ratio of short-lazy's CPU time a call to short-x1's in a run's summary.csv, ranked by
/// the call the run chose: CPU time moves with the work alone, wall time also with whatever
/// else the machine runs (tests run two at a time).
fn lazy_ratio(dir: &std::path::Path) -> (f64, String) {
    let text = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (profile, ratio, call) = (column("profile"), column("cpu_ratio"), column("call"));
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        if fields[profile] == "short-lazy" {
            return (fields[ratio].parse().unwrap(), fields[call].to_string());
        }
    }
    panic!("no short-lazy row: {text}")
}

#[test]
fn first_and_warm_calls_are_both_recorded_and_either_ranks() {
    // short-lazy's first call does four times the work of its later calls (and of short-x1's
    // calls): ranked by warm calls the two are level, ranked by first calls it is ~4x slower.
    let out = tempfile::tempdir().unwrap();
    let result = spin_run("short-x1,short-lazy", "50", out.path());
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let dir = run_dir(out.path());
    let ok: Vec<_> = samples(&dir)
        .into_iter()
        .filter(|s| s.status == SampleStatus::Ok)
        .collect();
    assert!(!ok.is_empty());
    for s in &ok {
        assert!(s.first_call_s.is_some() && s.warm_call_s.is_some());
        assert!(s.calls.unwrap() >= 2, "a warm call follows the first");
        // CPU time, not wall time: one sample's wall time moves with whatever else the
        // machine runs, its CPU time with the work alone.
        let (first, warm) = (s.first_call_cpu_s.unwrap(), s.warm_call_cpu_s.unwrap());
        if s.cell.profile == "short-lazy" {
            assert!(
                first > 2.5 * warm,
                "{first} s first against {warm} s warm (CPU)"
            );
        }
    }
    let (warm_ratio, call) = lazy_ratio(&dir);
    assert_eq!(call, "warm");
    assert!(
        (0.75..1.33).contains(&warm_ratio),
        "warm ratio {warm_ratio}"
    );
    let report = report_md(&dir);
    assert!(report.contains("Times are warm calls"), "{report}");
    // The same results, ranked by first calls.
    let first_dir = out.path().join("first");
    let again = formatbench(&[
        "report",
        dir.to_str().unwrap(),
        "--call",
        "first",
        "--out",
        first_dir.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let (first_ratio, call) = lazy_ratio(&first_dir);
    assert_eq!(call, "first");
    assert!(first_ratio > 2.5, "first-call ratio {first_ratio}");
    let report = report_md(&first_dir);
    assert!(report.contains("Times are first calls"), "{report}");
}

#[test]
fn report_ranks_an_existing_run_again_by_another_priority_and_reference() {
    let out = tempfile::tempdir().unwrap();
    let args = [
        "--backends",
        "ipc",
        "--profiles",
        "all",
        "--ops",
        "write,read",
        "--rounds",
        "1",
    ];
    let ran = mixed_run(2000, &args, out.path());
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    let dir = run_dir(out.path());
    let results = std::fs::read(dir.join("results.jsonl")).unwrap();
    let report = |extra: &[&str]| {
        let again = out.path().join(extra.join("-").replace('/', "_"));
        let mut args = vec![
            "report",
            dir.to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
        ];
        args.extend(extra);
        let printed = formatbench(&args);
        (printed, again)
    };
    let (by_size, size_dir) = report(&["--prefer", "size"]);
    assert_eq!(by_size.status.code(), Some(0), "{}", stderr(&by_size));
    let line = recommendation(&by_size);
    assert!(line.contains("For the smallest files"), "{line}");
    assert!(
        line.contains("zstd"),
        "zstd writes the smallest IPC files: {line}"
    );
    let markdown = report_md(&size_dir);
    assert!(markdown.contains("For the smallest files"));
    let (by_reference, _) = report(&["--reference", "ipc/lz4"]);
    assert_eq!(
        by_reference.status.code(),
        Some(0),
        "{}",
        stderr(&by_reference)
    );
    // Nothing was measured again: the results are as the run left them.
    assert_eq!(std::fs::read(dir.join("results.jsonl")).unwrap(), results);
    let (unknown, _) = report(&["--reference", "parquet/default"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("--reference parquet/default: not a competitor of this run"),
        "{}",
        stderr(&unknown)
    );
}
