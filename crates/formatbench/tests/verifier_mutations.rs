#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The mutation suite (issue 42; docs/protocol.md, "Mutation suite"): `selftest-mutant` answers
//! every operation wrongly in one way per profile, and the real runner must fail each one, in
//! the verification run (`MUTATION`) and in later samples (`later-MUTATION`, and
//! `right-digest-wrong-file`, which reports its first answer's digest for a wrong file), while
//! the `honest` profile, the same backend answering right, passes every sample.
//!
//! A mutation that finds nothing to change in a result (no null in the columns a projection
//! picked) answers `unsupported` rather than right; each mutation must still be caught on the
//! operations listed for it in `must_catch`, where its data is always there.

mod common;

use common::cells::{run_cells, Cells, Outcome};
use common::fidelity;
use formatbench::results::SampleStatus;
use formatbench_worker_selftest::mutant::{HONEST, LATER, MUTATIONS};
use std::path::Path;

const TABLE_OPS: [&str; 6] = ["write", "read", "scan", "project", "range", "take"];
const MATRIX_OPS: [&str; 5] = [
    "matrix",
    "random_rows",
    "feature_project",
    "mixed",
    "vector_norm",
];

/// Measured samples per cell: a later mutation must fail in each, not only in the first.
const SAMPLES: &str = "2";

/// The operations on which `mutation` always finds something to change, in the run of
/// `ops`: there it must be caught. Elsewhere it may say it has nothing to change.
fn must_catch<'a>(mutation: &str, ops: &[&'a str]) -> Vec<&'a str> {
    let on = |wanted: &[&str]| -> Vec<&'a str> {
        ops.iter().copied().filter(|o| wanted.contains(o)).collect()
    };
    match mutation {
        "take-sorted" => on(&["take"]),
        "range-inclusive" => on(&["range"]),
        "projection-extra-column" => on(&["project", "feature_project"]),
        // A vector of norms has one column: nothing to transpose.
        "matrix-transposed" => on(&["matrix", "random_rows", "feature_project", "mixed"]),
        "matrix-feature-shifted" => on(&MATRIX_OPS),
        // Whole rows and columns: every result has them.
        "row-missing"
        | "row-duplicated"
        | "rows-swapped"
        | "column-renamed"
        | "columns-reordered"
        | "right-digest-wrong-file" => ops.to_vec(),
        // One value of a type: every result with every column has it; a projection may not.
        _ => on(&["write", "read", "scan", "range", "take"]),
    }
}

/// The fidelity table with a float column of the values no generated dataset holds: +0.0 and
/// NaN.
fn types_input(dir: &Path) -> std::path::PathBuf {
    fidelity::types_input(dir, "types.arrow", &[fidelity::special_floats])
}

fn run(dataset: &[&str], ops: &[&str], profiles: &[String], out: &Path) -> Cells {
    run_cells(dataset, "selftest-mutant", ops, profiles, SAMPLES, out)
}

/// A mutant's way of saying a result held nothing its mutation changes.
fn nothing_to_change(reason: &Option<String>) -> bool {
    reason
        .as_deref()
        .is_some_and(|r| r.contains("finds nothing to change"))
}

/// What went wrong for each profile of a run: an empty list when every mutation was caught
/// where it must be and the control passed.
fn problems(cells: &Cells, ops: &[&str], profiles: &[String]) -> Vec<String> {
    // The runner refusing every cell (an operation it does not send this backend) is one
    // problem, not one per cell.
    if cells.verified.is_empty() {
        let why = cells.not_run.values().next().cloned().unwrap_or_default();
        return vec![format!("no cell of {ops:?} was run: {why}")];
    }
    let mut found = Vec::new();
    // What caught each cell, shown with a failure (and with --nocapture).
    for ((profile, op), v) in &cells.verified {
        let samples = cells.samples.get(&(profile.clone(), op.clone()));
        let later: Vec<String> = samples
            .into_iter()
            .flatten()
            .map(|s| format!("{:?} {}", s.status, s.reason.clone().unwrap_or_default()))
            .collect();
        eprintln!(
            "{profile} {op}: verification {:?} {} | samples: {later:?}",
            v.status,
            v.reason.clone().unwrap_or_default()
        );
    }
    for profile in profiles {
        let mutation = profile.strip_prefix(LATER).unwrap_or(profile);
        let later = profile.starts_with(LATER) || profile == "right-digest-wrong-file";
        let caught_on = must_catch(mutation, ops);
        for op in ops {
            let cell = format!("{profile} {op}");
            let Outcome {
                verified,
                samples,
                ok,
            } = match cells.outcome(profile, op) {
                Ok(outcome) => outcome,
                Err(why) => {
                    found.push(format!("{cell}: {why}"));
                    continue;
                }
            };
            let must = caught_on.contains(op);
            if profile == HONEST {
                if verified.status != SampleStatus::Ok || samples.is_empty() || ok < samples.len() {
                    found.push(format!(
                        "{cell}: the control did not pass: verification {:?} {:?}, {ok} of {} samples ok: {:?}",
                        verified.status,
                        verified.reason,
                        samples.len(),
                        samples.iter().find_map(|s| s.reason.clone())
                    ));
                }
            } else if !later {
                let caught = verified.status == SampleStatus::Failed
                    && verified
                        .reason
                        .as_deref()
                        .is_some_and(|r| r.contains("verification failed"));
                let excused = !must
                    && verified.status == SampleStatus::Unsupported
                    && nothing_to_change(&verified.reason);
                if verified.status == SampleStatus::Ok {
                    found.push(format!("{cell}: ESCAPED verification"));
                } else if !caught && !excused {
                    found.push(format!(
                        "{cell}: not caught by verification but {:?}: {:?}",
                        verified.status, verified.reason
                    ));
                }
                if ok > 0 {
                    found.push(format!("{cell}: {ok} samples ok"));
                }
            } else {
                // A later mutation's first answer is right: it must verify, then every
                // measured sample must fail.
                if verified.status != SampleStatus::Ok {
                    found.push(format!(
                        "{cell}: its first (right) answer did not verify: {:?} {:?}",
                        verified.status, verified.reason
                    ));
                    continue;
                }
                if samples.is_empty() {
                    found.push(format!("{cell}: no measured sample"));
                }
                if ok > 0 {
                    found.push(format!(
                        "{cell}: ESCAPED in later samples ({ok} of {} ok)",
                        samples.len()
                    ));
                }
                for s in samples.iter().filter(|s| s.status != SampleStatus::Ok) {
                    let excused = !must
                        && s.status == SampleStatus::Unsupported
                        && nothing_to_change(&s.reason);
                    if s.status != SampleStatus::Failed && !excused {
                        found.push(format!(
                            "{cell}: a later sample {:?} (not failed): {:?}",
                            s.status, s.reason
                        ));
                    }
                }
            }
        }
    }
    found
}

/// The profiles of `mutations`: each, and its later form (right-digest-wrong-file is one).
fn profiles_of(mutations: &[&str]) -> Vec<String> {
    let mut profiles = vec![HONEST.to_string()];
    for m in mutations {
        profiles.push(m.to_string());
        if *m != "right-digest-wrong-file" {
            profiles.push(format!("{LATER}{m}"));
        }
    }
    profiles
}

#[test]
fn every_mutation_fails_on_the_first_and_on_later_samples() {
    let dir = tempfile::tempdir().unwrap();
    let input = types_input(dir.path());
    let matrix_only = ["matrix-transposed", "matrix-feature-shifted"];
    let table_mutations: Vec<&str> = MUTATIONS
        .iter()
        .map(|(name, _)| *name)
        .filter(|m| !matrix_only.contains(m))
        .collect();
    let matrix_mutations = [
        "matrix-transposed",
        "matrix-feature-shifted",
        "projection-extra-column",
        "rows-swapped",
        "right-digest-wrong-file",
    ];
    // Every mutation is in one of the two runs.
    for (name, _) in MUTATIONS {
        assert!(table_mutations.contains(&name) || matrix_mutations.contains(&name));
    }
    let mut found = Vec::new();
    let types = [
        "--input",
        input.to_str().unwrap(),
        "--index",
        formatbench::datasets::TYPES_INDEX,
    ];
    let profiles = profiles_of(&table_mutations);
    let cells = run(&types, &TABLE_OPS, &profiles, &dir.path().join("types"));
    found.extend(problems(&cells, &TABLE_OPS, &profiles));
    // More features than feature_project's 8, so a projection has a feature left to add.
    let features = ["--dataset", "features", "--rows", "64", "--features", "12"];
    let profiles = profiles_of(&matrix_mutations);
    let cells = run(
        &features,
        &MATRIX_OPS,
        &profiles,
        &dir.path().join("features"),
    );
    found.extend(problems(&cells, &MATRIX_OPS, &profiles));
    assert!(
        found.is_empty(),
        "{} problems:\n{}",
        found.len(),
        found.join("\n")
    );
}
