#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The README's sample output is what `run` prints now: its tables' columns are the summary's
//! own, in its order, and its rows name every built-in backend and no other.

use std::path::Path;
use std::process::Command;

/// The code block under "A summary on stdout" in the README.
fn sample_output() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let after = readme
        .split_once("A summary on stdout")
        .expect("the README shows a summary")
        .1;
    let block = after.split_once("```\n").unwrap().1;
    block.split_once("```").unwrap().0.to_string()
}

fn columns(header: &str) -> Vec<String> {
    header
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

/// The built-in backends, as `formatbench backends` lists them (hidden self-tests aside).
fn builtin_backends() -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .arg("backends")
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" built in "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_readmes_sample_output_has_the_summarys_columns_and_backends() {
    let sample = sample_output();
    // Every column the summary can show, in its order: a wide run of one backend.
    let out = tempfile::tempdir().unwrap();
    let ran = Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .env("COLUMNS", "1000")
        .args([
            "run",
            "--dataset",
            "mixed",
            "--rows",
            "100",
            "--per-type",
            "1",
        ])
        .args(["--backends", "ipc", "--ops", "read", "--cache", "both"])
        .args(["--rounds", "1", "--min-sample-ms", "0", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let printed = String::from_utf8_lossy(&ran.stdout).to_string();
    let all: Vec<String> = printed
        .lines()
        .filter(|l| l.trim_start().starts_with("backend "))
        .map(columns)
        .max_by_key(Vec::len)
        .unwrap();
    let headers: Vec<&str> = sample
        .lines()
        .filter(|l| l.trim_start().starts_with("backend "))
        .collect();
    assert!(!headers.is_empty(), "the sample shows tables");
    for header in &headers {
        let shown = columns(header);
        // The sample's columns are the summary's, in its order (some left out to fit).
        let mut rest = all.iter();
        for column in &shown {
            assert!(
                rest.any(|c| c == column),
                "README column '{column}' is not one `run` prints, or out of order: {all:?}"
            );
        }
        assert!(
            header.chars().count() <= 100,
            "the sample fits 100 columns: {header}"
        );
    }
    let builtin = builtin_backends();
    assert!(builtin.len() >= 7, "{builtin:?}");
    // Table rows: the indented lines after a header, up to the table's end.
    let mut named = std::collections::BTreeSet::new();
    let mut in_table = false;
    for line in sample.lines() {
        if line.trim_start().starts_with("backend ") {
            in_table = true;
            continue;
        }
        in_table &= line.starts_with("  ") && !line.trim_start().starts_with('(');
        if in_table {
            named.extend(line.split_whitespace().next().map(str::to_string));
        }
    }
    for backend in &builtin {
        assert!(
            named.contains(backend),
            "the README's sample has no {backend} row"
        );
    }
    for name in &named {
        assert!(
            builtin.contains(name),
            "the README's sample names '{name}', not a built-in backend: {builtin:?}"
        );
    }
}
