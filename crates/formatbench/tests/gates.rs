#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! What ends a command non-zero, through the real binary: a run that measured nothing (every
//! cell unavailable) exits 2 and names what to build; a folder the run cannot write in is a
//! setup error (exit 2, one line), not a failed cell; a suite file is checked key by key whatever
//! the flags, each error at its key's own line. (`compare`'s gate: tests/compare.rs.)

mod common;

use common::{formatbench, stderr};
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The one line a command said on stderr that names `what`, checked to be the only such line.
fn one_line<'a>(err: &'a str, what: &str) -> &'a str {
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(what)).collect();
    assert_eq!(lines.len(), 1, "one line naming {what:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    lines[0]
}

/// Whether the heavy worker of delta-kernel is missing here, as in a checkout that never ran
/// `workers/rust/build` (else the cells below would run, and the test has nothing to check).
/// The tests that need it missing have `heavy` or `delta` in their names, so that CI runs them
/// after its workers are built (they skip), never while one may appear mid-test.
fn delta_kernel_missing() -> bool {
    let listed = formatbench(&["backends"]);
    let text = common::stdout(&listed);
    let missing = text
        .lines()
        .any(|l| l.starts_with("delta-kernel ") && l.contains("not built"));
    if !missing {
        println!("skipped: the delta-kernel worker is built here, so its cells are measured");
    }
    missing
}

#[test]
fn a_run_whose_heavy_worker_is_missing_exits_2_and_names_what_to_build() {
    if !delta_kernel_missing() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let ran = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "100",
        "--per-type",
        "1",
        "--backends",
        "delta-kernel",
        "--ops",
        "read,first_row",
        "--samples",
        "1",
        "--out",
        s(out.path()),
    ]);
    let err = stderr(&ran);
    assert_eq!(ran.status.code(), Some(2), "{err}");
    let line = one_line(&err, "nothing was measured");
    assert!(
        line.contains("all 2 cells are unavailable or unsupported here")
            && line.contains("`workers/rust/build delta-kernel`"),
        "{line}"
    );
    // The run and its report are still written: nothing already recorded is lost.
    let dir = common::run_dir(out.path());
    assert!(dir.join("results.jsonl").is_file() && dir.join("report.md").is_file());
}

#[test]
fn a_run_of_unsupported_cells_only_exits_2_and_says_why() {
    let out = tempfile::tempdir().unwrap();
    let ran = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "100",
        "--per-type",
        "1",
        "--backends",
        "csv",
        "--profiles",
        "default",
        "--ops",
        "session",
        "--samples",
        "1",
        "--out",
        s(out.path()),
    ]);
    let err = stderr(&ran);
    assert_eq!(ran.status.code(), Some(2), "{err}");
    let line = one_line(&err, "nothing was measured");
    assert!(
        line.contains("its one cell is unavailable or unsupported here; csv: csv does not do"),
        "{line}"
    );
}

#[test]
fn the_delta_s3_suite_without_its_workers_exits_2_and_names_all_three() {
    if !delta_kernel_missing() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let ran = formatbench(&["suite", "delta-s3", "--quick", "--out", s(out.path())]);
    let err = stderr(&ran);
    if err.contains("could be set up here") {
        println!("skipped: this machine cannot shape the suite's networks: {err}");
        return;
    }
    assert_eq!(ran.status.code(), Some(2), "{err}");
    // One run per network, each of which measured nothing: each says so, with one command.
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("nothing was measured"))
        .collect();
    assert!(!lines.is_empty(), "{err}");
    for line in lines {
        assert!(line.contains("all 28 cells are unavailable"), "{line}");
        let command = line
            .split("`workers/rust/build ")
            .nth(1)
            .and_then(|rest| rest.split('`').next())
            .unwrap_or_default();
        let mut features: Vec<&str> = command.split_whitespace().collect();
        features.sort_unstable();
        assert_eq!(
            features,
            ["delta-arrow-reader", "delta-kernel", "delta-rs"],
            "{line}"
        );
    }
}

/// A small run into `out`; its exit code and stderr.
fn run_into(out: &str) -> (Option<i32>, String) {
    let ran = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "100",
        "--per-type",
        "1",
        "--backends",
        "csv",
        "--ops",
        "read",
        "--samples",
        "1",
        "--out",
        out,
    ]);
    (ran.status.code(), stderr(&ran))
}

fn assert_setup_error(out: &str, expect: &str) {
    let (code, err) = run_into(out);
    assert_eq!(code, Some(2), "--out {out}: {err}");
    assert_eq!(
        err.trim().lines().count(),
        1,
        "--out {out}: one line: {err}"
    );
    let line = one_line(&err, "error");
    assert!(line.contains(&format!("--out {out}: ")), "{line}");
    assert!(line.contains(expect), "--out {out}: {line}");
}

/// A folder's immutable flag, cleared again when dropped (so that the temporary folder can go).
struct Immutable(std::path::PathBuf);

impl Immutable {
    fn set(dir: &Path) -> Option<Immutable> {
        let set = std::process::Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .output()
            .is_ok_and(|o| o.status.success());
        set.then(|| Immutable(dir.to_path_buf()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .output();
    }
}

#[test]
fn an_out_folder_the_run_cannot_write_in_is_a_setup_error_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    assert_setup_error(s(&file), "not a directory");
    // A folder under a file cannot be made.
    assert_setup_error(s(&file.join("sub")), "cannot create it");
    // /proc takes no new folders, whoever asks (root included).
    if Path::new("/proc/self").is_dir() {
        assert_setup_error("/proc/formatbench-out", "cannot create it");
    }
    // An immutable folder (`chattr +i`: root, on a file system that has the flag) refuses root
    // too.
    let immutable = tmp.path().join("immutable");
    std::fs::create_dir(&immutable).unwrap();
    match Immutable::set(&immutable) {
        Some(_flag) => {
            assert_setup_error(s(&immutable), "cannot write in it");
            assert_setup_error(s(&immutable.join("sub")), "cannot create it");
        }
        None => println!("skipped the immutable folder: chattr +i is not possible here"),
    }
    // A folder without write permission: root writes there anyway, so only others are refused.
    use std::os::unix::fs::PermissionsExt;
    let locked = tmp.path().join("read-only");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        println!("skipped the mode 0555 folder: root writes in it (the file cases stand for it)");
    } else {
        assert_setup_error(s(&locked), "cannot write in it");
        assert_setup_error(s(&locked.join("sub")), "cannot create it");
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `formatbench suite FILE extra…` on a suite file of `text`: its exit code and stderr.
fn suite(text: &str, extra: &[&str]) -> (Option<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("suite.toml");
    std::fs::write(&path, text).unwrap();
    let out = tmp.path().join("out");
    let mut args = vec!["suite", s(&path), "--out", s(&out)];
    args.extend(extra);
    let ran = formatbench(&args);
    (ran.status.code(), stderr(&ran))
}

const DATASET: &str = "[[datasets]]\nkind = \"mixed\"\nrows = 100\nper_type = 1\n";

/// The suite is refused in one error line that names the file, `line` and `expect`.
fn assert_refused(text: &str, extra: &[&str], line: usize, expect: &str) {
    let (code, err) = suite(text, extra);
    assert_eq!(code, Some(2), "{text}\n{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(err.contains("bad suite file "), "{err}");
    assert!(err.contains(&format!("(line {line}): ")), "{text}\n{err}");
    assert!(err.contains(expect), "{err}");
    assert!(
        !err.contains("--samples") && !err.contains("--rounds"),
        "{err}"
    );
}

#[test]
fn an_unknown_key_is_reported_at_its_own_line() {
    let text = format!("name = \"x\"\nsamples = 1\nbackend = [\"csv\"]\n{DATASET}");
    assert_refused(&text, &[], 3, "unknown field `backend`");
    let text = format!("name = \"x\"\n\n[quick]\nrounds = 1\nfoo = 2\n{DATASET}");
    assert_refused(&text, &[], 5, "unknown field `foo`");
}

#[test]
fn precision_and_budget_are_checked_even_when_samples_override_them() {
    for flags in [&[][..], &["--samples", "1"][..], &["--rounds", "1"][..]] {
        let text = format!("name = \"x\"\nops = [\"read\"]\nprecision = \"fast\"\n{DATASET}");
        assert_refused(&text, flags, 3, "precision = \"fast\"");
        let text = format!("name = \"x\"\n\nbudget = \"-3s\"\n{DATASET}");
        assert_refused(&text, flags, 3, "budget = \"-3s\"");
    }
}

#[test]
fn a_suite_samples_0_is_blamed_on_the_suite_and_its_line() {
    let text = format!("name = \"x\"\n# a comment\nsamples = 0\n{DATASET}");
    assert_refused(&text, &[], 3, "samples = 0");
    let text = format!("name = \"x\"\n{DATASET}\n[quick]\nsamples = 0\n");
    assert_refused(&text, &["--quick"], 8, "quick.samples = 0");
    // The same key is refused when the command line's own --samples would replace it.
    let text = format!("name = \"x\"\nrounds = 0\n{DATASET}");
    assert_refused(&text, &["--rounds", "1"], 2, "rounds = 0");
    // The command line's own 0 is still blamed on the command line.
    let (code, err) = suite(&format!("name = \"x\"\n{DATASET}"), &["--samples", "0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--samples 0"), "{err}");
}
