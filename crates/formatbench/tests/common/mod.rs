//! Shared helpers of the integration tests.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used, clippy::panic)]

pub mod cells;
pub mod fidelity;
pub mod outside;
pub mod own_store;
pub mod process;

use formatbench::datasets::{DatasetKind, DatasetSpec, Source};
use formatbench::results::{read_records, CellKey, Record, SampleRecord, SampleStatus};
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

pub fn formatbench<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args(args)
        .output()
        .expect("the formatbench binary runs")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn generated(
    kind: DatasetKind,
    rows: u64,
    per_type: usize,
    features: usize,
    seed: u64,
) -> DatasetSpec {
    DatasetSpec::Generated {
        kind,
        rows,
        per_type,
        features,
        seed,
        shape: Default::default(),
    }
}

pub fn mixed_source(dir: &Path, rows: u64) -> Source {
    generated(DatasetKind::Mixed, rows, 1, 0, 42)
        .materialize(dir)
        .expect("generates")
}

/// The one run directory a test's `--out` holds.
pub fn run_dir(out: &Path) -> std::path::PathBuf {
    let mut dirs: Vec<_> = std::fs::read_dir(out)
        .expect("out dir exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(dirs.len(), 1, "one run directory in {}", out.display());
    dirs.remove(0)
}

/// Every record of a run's results.jsonl.
pub fn records(run_dir: &Path) -> Vec<Record> {
    read_records(&run_dir.join("results.jsonl")).expect("results parse")
}

pub fn samples(run_dir: &Path) -> Vec<SampleRecord> {
    records(run_dir)
        .into_iter()
        .filter_map(|r| match r {
            Record::Sample(s) => Some(*s),
            _ => None,
        })
        .collect()
}

/// Every failed sample and verification of a run, a line each, for a failing test's message.
pub fn failed_samples(run_dir: &Path) -> String {
    records(run_dir)
        .into_iter()
        .filter_map(|r| match r {
            Record::Sample(s) if s.status == formatbench::results::SampleStatus::Failed => {
                Some(format!(
                    "sample {} {} {} {} {}: {:?}",
                    s.cell.dataset,
                    s.cell.backend,
                    s.cell.target,
                    s.cell.op,
                    s.cell.profile,
                    s.reason
                ))
            }
            Record::Verification(v) if v.status == formatbench::results::SampleStatus::Failed => {
                Some(format!(
                    "verification {} {} {} {}: {:?}",
                    v.cell.dataset, v.cell.backend, v.cell.target, v.cell.op, v.reason
                ))
            }
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The measured samples of a run (those of a round: no warm-up or refused cell).
pub fn measured_samples(run_dir: &Path) -> Vec<SampleRecord> {
    samples(run_dir)
        .into_iter()
        .filter(|s| s.round.is_some())
        .collect()
}

/// Whether a cell that `pick` chooses has a verification that passed.
pub fn verified(records: &[Record], pick: impl Fn(&CellKey) -> bool) -> bool {
    records.iter().any(
        |r| matches!(r, Record::Verification(v) if v.status == SampleStatus::Ok && pick(&v.cell)),
    )
}

/// A run's report.md.
pub fn report_md(run_dir: &Path) -> String {
    std::fs::read_to_string(run_dir.join("report.md")).expect("report.md is written")
}

/// The recommendation line of a run's or report's summary on stdout ("" when it has none).
pub fn recommendation(out: &Output) -> String {
    stdout(out)
        .lines()
        .find(|l| l.starts_with("Recommendation"))
        .unwrap_or_default()
        .to_string()
}

/// `run` on a generated mixed table of `rows` rows (one column a type), no repetition to a
/// minimum sample length, with `extra` arguments (backends, operations, rounds, …), into `out`.
pub fn mixed_run_args(rows: u64, extra: &[&str], out: &Path) -> Vec<String> {
    let rows = rows.to_string();
    let out = out.to_str().expect("a UTF-8 path");
    let head = [
        "run",
        "--dataset",
        "mixed",
        "--rows",
        rows.as_str(),
        "--per-type",
        "1",
    ];
    let tail = ["--min-sample-ms", "0", "--out", out];
    [&head[..], extra, &tail[..]]
        .concat()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The run of [`mixed_run_args`], to its end.
pub fn mixed_run(rows: u64, extra: &[&str], out: &Path) -> Output {
    formatbench(&mixed_run_args(rows, extra, out))
}

/// Skips (returns false) with a printed reason, or fails when every optional part is required
/// (FORMATBENCH_REQUIRE_ALL=1, as in CI).
pub fn available(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    if std::env::var("FORMATBENCH_REQUIRE_ALL").as_deref() == Ok("1") {
        panic!("required but missing: {what}");
    }
    eprintln!("skipped: {what} is missing");
    false
}

/// Whether a backend (a heavy worker's, or a peer) is ready to test: skipped with the reason
/// when it is missing, failed instead under FORMATBENCH_REQUIRE_ALL=1. A heavy backend named in
/// FORMATBENCH_HEAVY_SKIP is skipped with that reason even then: CI leaves out the heavy
/// workers whose cold build does not fit its budget (lance, delta-rs), says so in its last
/// lines, and `workers/rust/check-heavy` tests them.
///
/// A test that needs a heavy worker must have `heavy` or `delta` in its name: CI runs the others
/// while the workers build and those once they are built, selected by name.
pub fn ready(kind: &str, name: &str) -> bool {
    let heavy = formatbench::catalog::HEAVY_BACKENDS
        .iter()
        .any(|(backend, _, _)| *backend == name);
    // libtest names each test's thread after the test ("main" when it runs on one thread).
    if let Some(test) = std::thread::current().name().filter(|t| *t != "main") {
        assert!(
            !heavy || test.contains("heavy") || test.contains("delta"),
            "{test} needs the heavy backend {name}: name it with `heavy` or `delta`, which CI \
             runs after building the heavy workers (.ci/run)"
        );
    }
    if let Ok(skip) = std::env::var("FORMATBENCH_HEAVY_SKIP") {
        if skip.split([',', ' ']).any(|s| s == name) {
            eprintln!("skipped: the {kind} {name} (FORMATBENCH_HEAVY_SKIP={skip})");
            return false;
        }
    }
    let reason = formatbench::run::find(name).map(|b| b.available);
    let what = match &reason {
        Some(Err(why)) => format!("the {kind} {name} ({why})"),
        _ => format!("the {kind} {name}"),
    };
    available(&what, matches!(reason, Some(Ok(()))))
}

/// One quick measured run: `source` (e.g. `["--input", path]` or a generated dataset) read by
/// the `ipc` backend once a round, one block, into `out`, plus `extra` arguments.
pub fn quick_ipc_read(source: &[&str], extra: &[&str], out: &Path) -> Output {
    let mut args = vec!["run"];
    args.extend(source);
    args.extend([
        "--backends",
        "ipc",
        "--ops",
        "read",
        "--rounds",
        "1",
        "--min-sample-ms",
        "0",
    ]);
    args.extend(extra);
    let out = out.to_str().expect("a UTF-8 path");
    args.extend(["--out", out]);
    formatbench(&args)
}

/// One sample a cell of a user's file: `run --input INPUT` with `args` (backends, operations,
/// profiles, …), no repetition to a minimum sample length, into `out`.
pub fn one_sample_of(input: &Path, args: &[&str], out: &Path) -> Output {
    let mut all = vec!["run", "--input", input.to_str().expect("a UTF-8 path")];
    all.extend(args);
    all.extend(["--samples", "1", "--min-sample-ms", "0"]);
    all.extend(["--out", out.to_str().expect("a UTF-8 path")]);
    formatbench(&all)
}

/// A small generated table for [`quick_ipc_read`].
pub const SMALL_MIXED: [&str; 6] = ["--dataset", "mixed", "--rows", "100", "--per-type", "1"];

/// One sample of every cell of a small feature matrix (300 × 40) in both layouts: `backends`
/// doing `ops`, into `out`.
pub fn both_layouts(backends: &str, ops: &str, out: &Path) -> Output {
    let out = out.to_str().expect("a UTF-8 path");
    formatbench(&[
        "run",
        "--dataset",
        "features",
        "--rows",
        "300",
        "--features",
        "40",
        "--backends",
        backends,
        "--layouts",
        "all",
        "--ops",
        ops,
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out,
    ])
}

/// Root and iproute2 (network namespaces for `--network` profiles), or the reason a test that
/// needs them is skipped.
pub fn namespaces_possible() -> bool {
    // SAFETY: geteuid only reads this process's credentials.
    let root = unsafe { libc::geteuid() } == 0;
    let ip = Command::new("ip")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    available("root and iproute2 (network namespaces)", root && ip)
}
