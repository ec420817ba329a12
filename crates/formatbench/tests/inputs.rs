#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Bad input gets one clear error line and exit 2, before anything is written; a run touches
//! nothing outside --out that it does not need.

mod common;

use common::{formatbench, run_dir, samples, stderr};
use std::process::Command;

/// Runs formatbench with `args` and `--out OUT`; asserts exit 2, one error line containing
/// `expect`, no panic, and no run folder left in OUT.
fn refused(args: &[&str], expect: &str) {
    let out = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    all.extend(["--out", out.path().to_str().unwrap()]);
    let result = formatbench(&all);
    let err = stderr(&result);
    assert_eq!(result.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(expect), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(
        err.lines().filter(|l| l.contains("error")).count(),
        1,
        "{args:?}: {err}"
    );
    let left: Vec<_> = std::fs::read_dir(out.path()).unwrap().collect();
    assert!(left.is_empty(), "{args:?} left {left:?}");
}

#[test]
fn an_unterminated_quote_is_an_error_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("bad_quote.csv");
    std::fs::write(&csv, "a,b\n1,x\n2,\"y\n3,z\n4,w\n").unwrap();
    refused(
        &["run", "--input", csv.to_str().unwrap()],
        "the quote opened on line 3 is never closed",
    );
    // Quoted fields across lines and doubled quotes are fine.
    let good = dir.path().join("good.csv");
    std::fs::write(&good, "a,b\n1,\"two\nlines\"\n2,\"say \"\"hi\"\"\"\n").unwrap();
    let out = dir.path().join("out");
    let result = common::quick_ipc_read(&["--input", good.to_str().unwrap()], &[], &out);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
}

#[test]
fn a_directory_as_input_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    refused(&["run", "--input", path], &format!("{path} is a directory"));
}

#[test]
fn a_source_too_big_for_the_machine_is_refused_with_the_figures() {
    refused(
        &["run", "--rows", "1000000000000"],
        "its source would take about",
    );
    refused(
        &[
            "run",
            "--dataset",
            "features",
            "--rows",
            "1",
            "--features",
            "100000000",
        ],
        "is available",
    );
    refused(&["run", "--rows", "0"], "--rows 0 makes an empty dataset");
}

#[test]
fn a_run_without_samples_has_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("results.jsonl"), "").unwrap();
    let result = formatbench(&["report", run.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("no samples to report"),
        "{}",
        stderr(&result)
    );
    assert!(!run.join("report.md").exists());
}

#[test]
fn an_input_named_with_dots_stays_inside_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("...csv");
    std::fs::write(&csv, "a,b\n1,2\n3,4\n").unwrap();
    let out = dir.path().join("out");
    let result = common::quick_ipc_read(
        &["--input", csv.to_str().unwrap()],
        &["--keep-artifacts"],
        &out,
    );
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let run = run_dir(&out);
    assert!(samples(&run).iter().all(|s| s.cell.dataset == "input"));
    // Nothing was written beside the run folder.
    let beside: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
    assert_eq!(beside.len(), 1);
    assert!(run.join("scratch/artifacts/input").exists());
}

#[test]
fn a_native_run_reads_git_without_its_lock_and_leaves_the_peers_alone() {
    let dir = tempfile::tempdir().unwrap();
    // A git that records how it was asked, then runs the real one.
    let real = String::from_utf8(Command::new("which").arg("git").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    if !common::available("git", !real.is_empty()) {
        return;
    }
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.path().join("git.log");
    let script = format!(
        "#!/bin/sh\necho \"locks=${{GIT_OPTIONAL_LOCKS:-unset}} $*\" >> {}\nexec {real} \"$@\"\n",
        log.display()
    );
    let fake = bin.join("git");
    std::fs::write(&fake, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let peers = dir.path().join("peers");
    let out = dir.path().join("out");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let result = Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args([
            "run",
            "--dataset",
            "mixed",
            "--rows",
            "100",
            "--per-type",
            "1",
            "--backends",
            "ipc",
            "--ops",
            "read",
            "--rounds",
            "1",
            "--min-sample-ms",
            "0",
            "--out",
        ])
        .arg(&out)
        .env("PATH", path)
        .env("FORMATBENCH_PEERS", &peers)
        .output()
        .unwrap();
    assert_eq!(
        result.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!calls.is_empty(), "the run read its commit");
    for call in calls.lines() {
        assert!(
            call.starts_with("locks=0 "),
            "git without its optional locks: {call}"
        );
    }
    assert!(!peers.exists(), "no peer was probed for a native plan");
}

/// A CSV of `columns` integer columns (`c0`, `c1`, …) and `rows` rows.
fn wide_csv(path: &std::path::Path, columns: usize, rows: usize) {
    let header: Vec<String> = (0..columns).map(|c| format!("c{c}")).collect();
    let mut text = header.join(",") + "\n";
    for row in 0..rows {
        let values: Vec<String> = (0..columns)
            .map(|c| (row * columns + c).to_string())
            .collect();
        text += &(values.join(",") + "\n");
    }
    std::fs::write(path, text).unwrap();
}

/// The runner's own peak memory as its last lines state it.
fn runner_peak(err: &str) -> u64 {
    let line = err
        .lines()
        .find_map(|l| l.split_once("the runner's own peak memory: "))
        .map(|(_, size)| size.to_string())
        .unwrap_or_else(|| panic!("no peak line: {err}"));
    formatbench::units::parse_bytes(&line).unwrap_or_else(|| panic!("unreadable peak: {line}"))
}

#[test]
fn a_wide_csv_is_ingested_and_run_in_bounded_memory() {
    use std::os::unix::process::CommandExt;
    const GIB: u64 = 1 << 30;
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("wide.csv");
    wide_csv(&csv, 10_001, 3);
    let out = dir.path().join("out");
    let mut command = Command::new(env!("CARGO_BIN_EXE_formatbench"));
    command.args(["run", "--input", csv.to_str().unwrap()]);
    command.args(["--backends", "ipc,csv", "--profiles", "default"]);
    command.args([
        "--ops",
        "write,read",
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
    ]);
    command.arg(&out);
    // An address-space limit on the runner (and its workers, which inherit it): reading in
    // batches of 65,536 rows asked for 5 GB here and aborted. Twice the resident bound, for
    // what threads and the allocator reserve without touching.
    let limit = libc::rlimit {
        rlim_cur: 2 * GIB,
        rlim_max: 2 * GIB,
    };
    // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let result = command.output().unwrap();
    let err = stderr(&result);
    assert_eq!(result.status.code(), Some(0), "{err}");
    assert!(!err.contains("memory allocation"), "{err}");
    let peak = runner_peak(&err);
    assert!(peak < GIB, "the runner's peak was {peak} bytes: {err}");
    let run = run_dir(&out);
    let measured = samples(&run);
    assert!(
        !measured.is_empty()
            && measured
                .iter()
                .all(|s| s.status == formatbench::results::SampleStatus::Ok),
        "{err}"
    );
}

#[test]
fn reading_a_users_file_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("mine.csv");
    std::fs::write(&csv, "a,b\n1,2\n3,4\n").unwrap();
    let out = dir.path().join("out");
    let result = common::quick_ipc_read(&["--input", csv.to_str().unwrap()], &[], &out);
    let err = stderr(&result);
    assert_eq!(result.status.code(), Some(0), "{err}");
    let said = format!(
        "dataset mine: reading {} into the canonical source",
        csv.display()
    );
    assert!(err.contains(&said), "{err}");
    assert!(!err.contains("generating"), "{err}");
}

#[test]
fn an_index_without_an_input_is_refused_instead_of_ignored() {
    let out = tempfile::tempdir().unwrap();
    let result = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "100",
        "--index",
        "id",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("--index") && stderr(&result).contains("it needs --input"),
        "{}",
        stderr(&result)
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

#[test]
fn a_three_row_file_ranges_over_one_row_instead_of_being_called_empty() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("tiny.csv");
    std::fs::write(&input, "id,x\n1,2.5\n2,3.5\n3,4.5\n").unwrap();
    let out = dir.path().join("out");
    let args = [
        "--backends",
        "parquet",
        "--profiles",
        "default",
        "--ops",
        "range,take",
    ];
    let result = common::one_sample_of(&input, &args, &out);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(stderr(&result).contains("'range' selects 1 of 3 rows"));
    let all = samples(&run_dir(&out));
    assert_eq!(all.len(), 2);
    assert!(all
        .iter()
        .all(|s| s.status == formatbench::results::SampleStatus::Ok));
}
