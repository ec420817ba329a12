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

use arrow::array::{ArrayRef, Float64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use common::{formatbench, run_dir, stderr};
use formatbench::results::{read_records, Record, SampleRecord, SampleStatus, VerificationRecord};
use formatbench_worker_selftest::mutant::{HONEST, LATER, MUTATIONS};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

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

/// The fidelity table (a column of every type, every fifth value null, empty strings, zones,
/// dates, a dictionary, lists, a struct) and a float column with the values no generated
/// dataset holds: +0.0 and NaN.
fn types_input(dir: &Path) -> std::path::PathBuf {
    let table = formatbench::datasets::types_table(200, 42).unwrap();
    let special: ArrayRef = Arc::new(Float64Array::from_iter_values(
        (0..table.num_rows()).map(|r| [0.0, f64::NAN, 1.5][r % 3]),
    ));
    let mut fields: Vec<Field> = table
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("special", DataType::Float64, false));
    let mut columns = table.columns().to_vec();
    columns.push(special);
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    let path = dir.join("types.arrow");
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = arrow::ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    path
}

/// The run's verification records and measured samples of the mutant, by profile and op.
struct Cells {
    verified: BTreeMap<(String, String), VerificationRecord>,
    samples: BTreeMap<(String, String), Vec<SampleRecord>>,
    /// Why a cell was never run, when the runner says so itself (no round).
    not_run: BTreeMap<(String, String), String>,
}

fn run(dataset: &[&str], ops: &[&str], profiles: &[String], out: &Path) -> Cells {
    let out_dir = out.to_str().unwrap();
    let ops_arg = ops.join(",");
    let profiles_arg = profiles.join(",");
    let mut args = vec!["run"];
    args.extend(dataset);
    args.extend([
        "--backends",
        "selftest-mutant",
        "--profiles",
        &profiles_arg,
        "--ops",
        &ops_arg,
        "--samples",
        SAMPLES,
        "--min-sample-ms",
        "0",
        "--threads",
        "1",
        "--timeout",
        "60",
        "--quiet",
        "--out",
        out_dir,
    ]);
    let result = formatbench(&args);
    // Failed cells make the run exit 1; anything else is the runner's own failure.
    assert!(
        matches!(result.status.code(), Some(0 | 1)) && !stderr(&result).contains("panicked"),
        "{}",
        stderr(&result)
    );
    let records = read_records(&run_dir(out).join("results.jsonl")).unwrap();
    let mut cells = Cells {
        verified: BTreeMap::new(),
        samples: BTreeMap::new(),
        not_run: BTreeMap::new(),
    };
    for record in records {
        match record {
            Record::Verification(v) => {
                let key = (v.cell.profile.clone(), v.cell.op.clone());
                cells.verified.insert(key, v);
            }
            Record::Sample(s) if s.round.is_some() => {
                let key = (s.cell.profile.clone(), s.cell.op.clone());
                cells.samples.entry(key).or_default().push(*s);
            }
            Record::Sample(s) => {
                let key = (s.cell.profile.clone(), s.cell.op.clone());
                cells.not_run.insert(key, s.reason.unwrap_or_default());
            }
            _ => {}
        }
    }
    cells
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
            let key = (profile.clone(), op.to_string());
            let cell = format!("{profile} {op}");
            let Some(verified) = cells.verified.get(&key) else {
                let why = cells.not_run.get(&key).cloned().unwrap_or_default();
                found.push(format!("{cell}: never run: {why}"));
                continue;
            };
            let samples = cells.samples.get(&key).map(Vec::as_slice).unwrap_or(&[]);
            let ok = samples
                .iter()
                .filter(|s| s.status == SampleStatus::Ok)
                .count();
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
