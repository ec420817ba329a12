#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The equal-value variants (issue 42; docs/protocol.md, "Equal-value variants"): backends
//! that answer right in another representation of the same values, one per profile, in every
//! worker language (`selftest-variant` in Rust, `py-selftest-variant`, `r-selftest-variant`).
//! The real runner must pass every verification and every measured sample of each, and record
//! in the verification record's `representation` the type each profile changed. The mutation
//! suite (tests/verifier_mutations.rs) shows the verifier catches wrong answers; this shows it
//! does so by values, not by the representation it happens to expect.

mod common;

use common::cells::{run_cells, Cells, Outcome};
use common::{fidelity, ready};
use formatbench::results::SampleStatus;
use formatbench_worker_selftest::variant;
use std::path::Path;

/// Measured samples per cell: a later sample must verify (by digest) as the first did.
const SAMPLES: &str = "2";

const TABLE_OPS: [&str; 6] = ["write", "read", "scan", "project", "range", "take"];

/// The fidelity table with deeper nesting: lists of strings and of zoned timestamps, and a
/// struct of a zoned timestamp, a date, a list, a dictionary and a binary, so that every
/// variant has something to change below the top level too.
fn variants_input(dir: &Path) -> std::path::PathBuf {
    fidelity::types_input(
        dir,
        "variants.arrow",
        &[
            fidelity::special_floats,
            fidelity::list_of_strings,
            fidelity::list_of_timestamps,
            fidelity::nested_struct,
        ],
    )
}

/// Whether the verification of `op` sees every column (a projection may pick none a profile
/// changes).
fn all_columns(op: &str) -> bool {
    op != "project"
}

/// The note (part of it) a profile's representation difference leaves in the verification
/// record's `representation`, for the profiles that change a type (in every language: the
/// profile names are shared where a language has the variant).
fn expected_note(profile: &str) -> Option<&'static str> {
    Some(match profile {
        "large-offsets" | "views" => "offsets",
        "dictionary" => "dictionary",
        "list-item-name" => "list item name",
        "zone-name" => "zone name",
        "finer-unit" => "finer unit",
        // R's: strings as factors, factors as strings.
        "factors" => "dictionary-encoded",
        "strings" => "dictionary decoded",
        _ => return None,
    })
}

/// What the runner decided for each cell, one line a cell on stderr, and what is wrong: every
/// verification and every measured sample must be ok, and a profile that changes a type must
/// have its note recorded (where the operation returns every column).
fn outcomes(language: &str, cells: &Cells, ops: &[&str], profiles: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    for profile in profiles {
        for op in ops {
            let cell = format!("{language} {profile} {op}");
            let Outcome {
                verified,
                samples,
                ok,
            } = match cells.outcome(profile, op) {
                Ok(outcome) => outcome,
                Err(why) => {
                    problems.push(format!("{cell}: {why}"));
                    continue;
                }
            };
            eprintln!(
                "{cell}: verification {:?} {} | {ok} of {} samples ok | representation: {:?}",
                verified.status,
                verified.reason.clone().unwrap_or_default(),
                samples.len(),
                verified.representation
            );
            if verified.status != SampleStatus::Ok {
                problems.push(format!(
                    "{cell}: verification {:?}: {}",
                    verified.status,
                    verified.reason.clone().unwrap_or_default()
                ));
                continue;
            }
            if samples.is_empty() || ok < samples.len() {
                problems.push(format!(
                    "{cell}: {ok} of {} samples ok: {:?}",
                    samples.len(),
                    samples.iter().find_map(|s| s.reason.clone())
                ));
            }
            let noted = |note: &str| verified.representation.iter().any(|r| r.contains(note));
            match expected_note(profile) {
                Some(note) if all_columns(op) && !noted(note) => problems.push(format!(
                    "{cell}: verified, but no '{note}' difference was recorded: {:?}",
                    verified.representation
                )),
                _ => {}
            }
        }
    }
    problems
}

fn assert_none(problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn types_dataset(input: &Path) -> [&str; 4] {
    [
        "--input",
        input.to_str().unwrap(),
        "--index",
        formatbench::datasets::TYPES_INDEX,
    ]
}

#[test]
fn every_rust_variant_verifies_on_every_operation() {
    let dir = tempfile::tempdir().unwrap();
    let input = variants_input(dir.path());
    let profiles: Vec<String> = variant::PROFILES.iter().map(|p| p.to_string()).collect();
    // The notes this test expects are those of the profiles that change a type.
    for profile in &profiles {
        let changes = variant::parse(profile).is_ok_and(variant::changes_types);
        assert_eq!(expected_note(profile).is_some(), changes, "{profile}");
    }
    let cells = run_cells(
        &types_dataset(&input),
        variant::BACKEND,
        &TABLE_OPS,
        &profiles,
        SAMPLES,
        &dir.path().join("out"),
    );
    assert_none(outcomes("rust", &cells, &TABLE_OPS, &profiles));
}

#[test]
fn every_python_variant_verifies() {
    const BACKEND: &str = "py-selftest-variant";
    if !ready("Python peer", BACKEND) {
        return;
    }
    // The Python twin has every profile of the Rust one: pyarrow expresses each.
    let profiles = formatbench::run::find(BACKEND).unwrap().profiles;
    assert_eq!(profiles, variant::PROFILES.to_vec());
    let dir = tempfile::tempdir().unwrap();
    let input = variants_input(dir.path());
    let ops = ["write", "read"];
    let cells = run_cells(
        &types_dataset(&input),
        BACKEND,
        &ops,
        &profiles,
        SAMPLES,
        &dir.path().join("out"),
    );
    assert_none(outcomes("python", &cells, &ops, &profiles));
}

/// The fidelity table's columns R's exchange carries exactly (docs/protocol.md §6b;
/// `formatbench fidelity --backends r-rds`): no zoned or nanosecond timestamps (R returns naive
/// microseconds), no int64 (its minimum is R's NA) or uint64 (values above 2^63 − 1), no
/// decimal, time, duration, binary or nested columns.
const R_COLUMNS: [&str; 17] = [
    formatbench::datasets::TYPES_INDEX,
    "bool",
    "int8",
    "int16",
    "int32",
    "uint8",
    "uint16",
    "uint32",
    "float32",
    "float64",
    "date32",
    "timestamp_s",
    "timestamp_ms",
    "timestamp_us",
    "utf8",
    "large_utf8",
    "dictionary",
];

#[test]
fn every_r_variant_verifies() {
    const BACKEND: &str = "r-selftest-variant";
    if !ready("R peer", BACKEND) {
        return;
    }
    let profiles = formatbench::run::find(BACKEND).unwrap().profiles;
    assert_eq!(profiles, ["factors", "strings"]);
    let dir = tempfile::tempdir().unwrap();
    let input = fidelity::flat_input(dir.path(), "flat.arrow", &R_COLUMNS);
    let ops = ["read"];
    let cells = run_cells(
        &types_dataset(&input),
        BACKEND,
        &ops,
        &profiles,
        SAMPLES,
        &dir.path().join("out"),
    );
    assert_none(outcomes("r", &cells, &ops, &profiles));
}
