#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! docs/results.md's table of operations follows the operations table in code
//! (`formatbench_protocol::OPERATIONS`): the same operations in the same order, each with the
//! parameters its row lists; and docs/adding-an-operation.md names only files and symbols
//! that exist, so its checklist cannot drift from the code it walks through.

use formatbench_protocol::{Param, OPERATIONS};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The rows of the table under "## Operations": (op, parameters cell).
fn documented_operations() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo().join("docs/results.md")).unwrap();
    let section = text.split_once("\n## Operations\n").unwrap().1;
    section
        .lines()
        .skip_while(|l| !l.starts_with("| op |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.split(" | ").collect();
            let op = cells[0]
                .trim_start_matches("| ")
                .trim_matches('`')
                .to_string();
            (op, cells[2].to_string())
        })
        .collect()
}

/// The parameter names a cell names in backticks.
fn named_params(cell: &str) -> Vec<&'static str> {
    let all = [Param::Columns, Param::Range, Param::Rows, Param::Queries];
    all.iter()
        .map(|p| p.name())
        .filter(|name| cell.contains(&format!("`{name}`")))
        .collect()
}

#[test]
fn the_documented_operations_are_the_operations_table() {
    let documented = documented_operations();
    let names: Vec<&str> = documented.iter().map(|(op, _)| op.as_str()).collect();
    let table: Vec<&str> = OPERATIONS.iter().map(|s| s.name).collect();
    assert_eq!(
        names, table,
        "docs/results.md lists other operations or another order"
    );
    for ((op, params), spec) in documented.iter().zip(&OPERATIONS) {
        let mut listed: Vec<&str> = spec.params.iter().map(|p| p.name()).collect();
        listed.sort_unstable();
        let mut named = named_params(params);
        named.sort_unstable();
        assert_eq!(
            named, listed,
            "{op}: the parameters column names {params:?}"
        );
    }
}

#[test]
fn the_protocol_names_every_operation_a_job_may_hold() {
    let text = std::fs::read_to_string(repo().join("docs/protocol.md")).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("| `op` |"))
        .expect("docs/protocol.md describes a job's `op`");
    for spec in &OPERATIONS {
        assert!(
            row.contains(&format!("`{}`", spec.name)),
            "docs/protocol.md's `op` row does not name {}",
            spec.name
        );
    }
}

/// Every `path` then `symbol` pair of the checklist ("`crates/x.rs`: `SYMBOL`").
fn checklist_references(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("- [ ] `") else {
            continue;
        };
        let Some((path, after)) = rest.split_once("`: `") else {
            continue;
        };
        let symbol = after.split('`').next().unwrap_or_default();
        out.push((path.to_string(), symbol.to_string()));
    }
    out
}

#[test]
fn the_guide_to_adding_an_operation_names_files_and_symbols_that_exist() {
    let guide = std::fs::read_to_string(repo().join("docs/adding-an-operation.md")).unwrap();
    let steps = checklist_references(&guide);
    assert!(steps.len() >= 10, "the checklist lost its steps: {steps:?}");
    for (path, symbol) in &steps {
        let file = repo().join(path);
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("docs/adding-an-operation.md names {path}: {e}"));
        assert!(
            text.contains(symbol.as_str()),
            "docs/adding-an-operation.md: {path} holds no `{symbol}`"
        );
    }
    // Every place that decides per operation is in the checklist: the operations table, the
    // plan, the oracle, every worker (Rust kit, Python, R), and this document's table.
    for must in [
        "crates/formatbench-protocol/src/operations.rs",
        "crates/formatbench-protocol/src/job.rs",
        "crates/formatbench/src/plan/inputs.rs",
        "crates/formatbench-oracle/src/expected.rs",
        "workers/rust/kit/src/execute.rs",
        "workers/python/formatbench_worker/job.py",
        "workers/r/formatbench/job.R",
        "docs/results.md",
    ] {
        assert!(
            steps.iter().any(|(path, _)| path == must),
            "docs/adding-an-operation.md has no step in {must}"
        );
    }
}

#[test]
fn a_checklist_line_is_read_as_a_path_and_a_symbol() {
    let text = "- [ ] `crates/a.rs`: `Op::Write` — the variant\n- plain line\n";
    assert_eq!(
        checklist_references(text),
        vec![("crates/a.rs".to_string(), "Op::Write".to_string())]
    );
}
