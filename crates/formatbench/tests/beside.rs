#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Two runs measuring on one machine at once: each says so, flags the samples it measured
//! beside the other and counts them at the end.

mod common;

use common::{run_dir, samples, stderr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `run` of `backends` on a small table into `out`, entered in the directory of active runs
/// `active` (this test's own, so runs of other tests are not beside these).
fn spawn_run(active: &Path, out: &Path, backends: &str, rounds: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .env("FORMATBENCH_ACTIVE_DIR", active)
        .args([
            "run",
            "--dataset",
            "mixed",
            "--rows",
            "50",
            "--per-type",
            "1",
        ])
        .args([
            "--min-sample-ms",
            "0",
            "--ops",
            "read",
            "--backends",
            backends,
        ])
        .args(["--rounds", rounds, "--out", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The flag of a sample measured beside another run (docs/results.md, `flags`).
const BESIDE_FLAG: &str = "measured while another formatbench run was measuring on this machine";

fn measured(out: &Path) -> Vec<formatbench::results::SampleRecord> {
    let entries = std::fs::read_dir(out).unwrap().count();
    if entries == 0 || !run_dir(out).join("results.jsonl").exists() {
        return Vec::new();
    }
    samples(&run_dir(out))
        .into_iter()
        .filter(|s| s.round.is_some())
        .collect()
}

fn flagged(samples: &[formatbench::results::SampleRecord]) -> usize {
    samples
        .iter()
        .filter(|s| s.flags.iter().any(|f| f == BESIDE_FLAG))
        .count()
}

#[test]
fn two_runs_measuring_at_once_each_flag_the_samples_taken_beside_the_other() {
    let active = tempfile::tempdir().unwrap();
    let (out_a, out_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // A: sleeps of 20 and 40 ms, 10 blocks (80 samples): measuring long after B has ended.
    let a = spawn_run(active.path(), out_a.path(), "selftest-sleep", "10");
    let deadline = Instant::now() + Duration::from_secs(60);
    while measured(out_a.path()).is_empty() {
        assert!(Instant::now() < deadline, "A never measured");
        std::thread::sleep(Duration::from_millis(25));
    }
    let alone = measured(out_a.path());
    assert_eq!(flagged(&alone), 0, "A measured alone so far");
    // B: a quick run from start to end while A measures.
    let b = spawn_run(active.path(), out_b.path(), "selftest-noop", "1");
    let b_pid = b.id();
    let b = b.wait_with_output().unwrap();
    let said_b = stderr(&b);
    assert_eq!(b.status.code(), Some(0), "{said_b}");
    let of_b = measured(out_b.path());
    assert!(!of_b.is_empty());
    assert_eq!(flagged(&of_b), of_b.len(), "every sample of B was beside A");
    assert!(
        said_b.contains(&format!(
            "another formatbench run is measuring on this machine (pid {}, run {}",
            a.id(),
            run_dir(out_a.path()).display()
        )) && said_b.contains(&format!(
            "{} samples were measured while another formatbench run was measuring",
            of_b.len()
        )),
        "{said_b}"
    );
    let report = std::fs::read_to_string(run_dir(out_b.path()).join("report.md")).unwrap();
    assert!(report.contains(BESIDE_FLAG), "{report}");
    // A is stopped: it saw B come and flagged what it measured beside it.
    // SAFETY: signalling a process this test started.
    unsafe {
        libc::kill(a.id() as i32, libc::SIGINT);
    }
    let a = a.wait_with_output().unwrap();
    let said_a = stderr(&a);
    assert_eq!(a.status.code(), Some(130), "{said_a}");
    assert!(
        said_a.contains(&format!(
            "another formatbench run is measuring on this machine (pid {b_pid}, run {}",
            run_dir(out_b.path()).display()
        )),
        "{said_a}"
    );
    let of_a = measured(out_a.path());
    assert!(flagged(&of_a) >= 1, "{said_a}");
    assert!(
        flagged(&of_a) < of_a.len(),
        "A measured alone before and after B"
    );
    assert_eq!(
        std::fs::read_dir(active.path()).unwrap().count(),
        0,
        "each run removes its entry"
    );
}
