#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `formatbench compare`: a run against itself and a copy is `no change`; a copy with every
//! time doubled is `slower` and fails `--fail-on regression`; baselines; the exports; bad input.
//! NEW runs are made by rewriting BASE's results, so no assertion depends on timing.

mod common;

use common::{formatbench, run_dir, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One small run: the `ipc` backend's three profiles reading 3,000 rows, 6 samples a cell.
fn small_run(out: &Path, extra: &[&str]) -> PathBuf {
    let source = ["--dataset", "mixed", "--rows", "3000", "--per-type", "1"];
    let ran = common::quick_ipc_read(&source, extra, out);
    assert!(ran.status.success(), "{}", stderr(&ran));
    // The run beside `baselines/`, when the run saved one.
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("results.jsonl").is_file())
        .unwrap_or_else(|| run_dir(out))
}

/// A copy of `run`; with `scale`, every time replaced by a made-up one (1 ms × `scale`, a few
/// per cent apart by round), so verdicts never depend on how noisy the machine was; with
/// `fail`, that profile's samples failed.
fn rewritten(run: &Path, into: &Path, scale: Option<f64>, fail: Option<&str>) -> PathBuf {
    std::fs::create_dir_all(into).unwrap();
    let text = std::fs::read_to_string(run.join("results.jsonl")).unwrap();
    let mut lines = Vec::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["kind"] == "sample" {
            let round = v["round"].as_f64().unwrap_or(0.0);
            for key in ["wall_s", "first_call_s", "warm_call_s", "process_wall_s"] {
                if let (Some(_), Some(scale)) = (v[key].as_f64(), scale) {
                    v[key] = Value::from(scale * 1e-3 * (1.0 + 0.02 * (round % 5.0)));
                }
            }
            if fail.is_some_and(|p| v["profile"] == p) {
                v["status"] = Value::from("failed");
                v["reason"] = Value::from("worker crashed (made up by the test)");
                v["wall_s"] = Value::Null;
                v["warm_call_s"] = Value::Null;
                v["first_call_s"] = Value::Null;
            }
        }
        lines.push(serde_json::to_string(&v).unwrap());
    }
    std::fs::write(into.join("results.jsonl"), lines.join("\n") + "\n").unwrap();
    into.to_path_buf()
}

fn compare(args: &[&str]) -> std::process::Output {
    let mut all = vec!["compare"];
    all.extend(args);
    formatbench(&all)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_run_against_itself_a_copy_and_a_doubled_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    let base = small_run(&out, &["--save-baseline", "main"]);
    assert!(out.join("baselines/main.json").is_file());

    // Itself, and a copy: every cell no change; --fail-on regression passes. BASE's times are
    // made up first (a few per cent apart by round), so that whether 6 samples a side pin a
    // cell within ±5 % does not depend on how busy the machine was (else: inconclusive).
    rewritten(&base, &base, Some(1.0), None);
    let copy = rewritten(&base, &tmp.path().join("copy"), None, None);
    for new in [&base, &copy] {
        let same = compare(&[s(&base), s(new), "--fail-on", "regression"]);
        assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
        let text = stdout(&same);
        assert!(text.contains("3 no change"), "{text}");
        assert_eq!(
            text.trim_end().lines().last(),
            Some("3 no change"),
            "{text}"
        );
    }

    // Every time doubled: every cell slower, and --fail-on regression exits 1.
    let doubled = rewritten(&base, &tmp.path().join("doubled"), Some(2.0), None);
    let md = tmp.path().join("cmp.md");
    let json = tmp.path().join("cmp.json");
    let html = tmp.path().join("cmp.html");
    let slow = compare(&[
        s(&base),
        s(&doubled),
        "--fail-on",
        "regression",
        "--export-markdown",
        s(&md),
        "--export-json",
        s(&json),
        "--export-html",
        s(&html),
    ]);
    assert_eq!(slow.status.code(), Some(1), "{}", stderr(&slow));
    assert!(stdout(&slow).contains("3 slower"), "{}", stdout(&slow));
    // Without --fail-on the same comparison succeeds.
    assert_eq!(compare(&[s(&base), s(&doubled)]).status.code(), Some(0));

    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.lines().count() < 60, "{markdown}");
    assert!(markdown.contains("| read · ipc/default |"), "{markdown}");
    assert!(
        markdown.contains("2.0× [") || markdown.contains("2.00× ["),
        "{markdown}"
    );
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(value["regressions"], 3);
    assert_eq!(value["counts"]["slower"], 3);
    let cells = value["cells"].as_array().unwrap();
    assert!(cells
        .iter()
        .all(|c| c["verdict"] == "slower" && c["ratio"]["lo"].as_f64().unwrap() > 1.05));
    for side in ["base", "new"] {
        let report = &value[side]["report"];
        assert!(report["recommendation"].is_string(), "{report}");
        assert!(report["pareto"].is_array() && report["geomeans"].is_array());
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && page.contains("prefers-color-scheme: dark"));
    assert!(!page.contains("<script"));

    // The saved baseline stands for BASE: NEW alone is the positional argument.
    let against = compare(&[
        "--baseline",
        "main",
        "--out",
        s(&out),
        s(&doubled),
        "--fail-on",
        "regression",
    ]);
    assert_eq!(against.status.code(), Some(1), "{}", stderr(&against));
    assert!(stdout(&against).contains("3 slower"));
    // Without --out, the baseline is looked for beside NEW: in the results directory NEW is in.
    let here = rewritten(&base, &out.join("doubled-here"), Some(2.0), None);
    let beside = compare(&["--baseline", "main", s(&here), "--fail-on", "regression"]);
    assert_eq!(beside.status.code(), Some(1), "{}", stderr(&beside));
    assert!(stdout(&beside).contains("3 slower"), "{}", stdout(&beside));

    // A cell that failed in NEW is a regression of its own kind.
    let broken = rewritten(&base, &tmp.path().join("broken"), Some(1.0), Some("lz4"));
    let failed = compare(&[s(&base), s(&broken), "--fail-on", "regression"]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(
        stdout(&failed).contains("1 failed in NEW"),
        "{}",
        stdout(&failed)
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let garbage = tmp.path().join("garbage");
    std::fs::create_dir_all(&garbage).unwrap();
    std::fs::write(
        garbage.join("results.jsonl"),
        "not json\n{\"kind\":\"x\"}\n",
    )
    .unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec![s(&missing), s(&missing)],
        vec![s(&empty), s(&empty)],
        vec![s(&garbage), s(&garbage)],
        vec!["--baseline", "unknown", "--out", s(tmp.path()), s(&empty)],
        vec!["--baseline", "../x", "--out", s(tmp.path()), s(&empty)],
        vec![s(&empty)],
        vec![s(&empty), s(&empty), "--threshold", "lots"],
    ];
    for args in cases {
        let out = compare(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("formatbench: error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// A copy of `run` whose records name another dataset (`dataset`), keeping only the records of
/// `profiles` (every one when empty): a run of other cells, or of fewer.
fn other_cells(run: &Path, into: &Path, dataset: Option<&str>, profiles: &[&str]) -> PathBuf {
    std::fs::create_dir_all(into).unwrap();
    let text = std::fs::read_to_string(run.join("results.jsonl")).unwrap();
    let mut lines = Vec::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        let left_out = v["profile"]
            .as_str()
            .is_some_and(|p| !profiles.is_empty() && !profiles.contains(&p));
        if left_out {
            continue;
        }
        if let (Some(name), true) = (dataset, v.get("dataset").is_some()) {
            v["dataset"] = Value::from(name);
        }
        lines.push(serde_json::to_string(&v).unwrap());
    }
    std::fs::write(into.join("results.jsonl"), lines.join("\n") + "\n").unwrap();
    into.to_path_buf()
}

#[test]
fn a_gate_that_compared_too_little_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let base = small_run(&tmp.path().join("results"), &[]);
    rewritten(&base, &base, Some(1.0), None);
    let gate = |new: &Path| compare(&[s(&base), s(new), "--fail-on", "regression"]);

    // Two unrelated runs: no cell in common, nothing compared, nothing slower: the gate fails.
    let unrelated = other_cells(&base, &tmp.path().join("unrelated"), Some("other"), &[]);
    let failed = gate(&unrelated);
    let err = stderr(&failed);
    assert_eq!(failed.status.code(), Some(1), "{err}");
    assert!(stdout(&failed).contains("3 only in BASE, 3 only in NEW"));
    let line: Vec<&str> = err.lines().filter(|l| l.contains("--fail-on")).collect();
    assert_eq!(line.len(), 1, "{err}");
    assert!(
        line[0].contains("compared 0 of the 3 cells BASE measured")
            && line[0].contains("at least 50 %"),
        "{err}"
    );
    // Without the gate it is said, and exits 0.
    let told = compare(&[s(&base), s(&unrelated)]);
    assert_eq!(told.status.code(), Some(0));
    assert!(stderr(&told).contains("compared 0 of the 3 cells"));

    // NEW measured 1 of BASE's 3 cells (33 %, under half): fails; 2 of 3 (67 %): passes.
    let one = other_cells(&base, &tmp.path().join("one"), None, &["default"]);
    let few = gate(&one);
    assert_eq!(few.status.code(), Some(1), "{}", stderr(&few));
    assert!(stderr(&few).contains("compared 1 of the 3 cells BASE measured"));
    let two = other_cells(&base, &tmp.path().join("two"), None, &["default", "lz4"]);
    let enough = gate(&two);
    assert_eq!(enough.status.code(), Some(0), "{}", stderr(&enough));
}
