//! `formatbench workers check MANIFEST`: a worker's conformance to the protocol, shown by the
//! normal runner. Every operation its manifest declares that a generated table has (the table
//! operations on a mixed table, the matrix operations and other layouts' on a feature matrix)
//! runs once in each declared profile, verified against the source; then each measured sample
//! is held to the timing protocol (timing.rs): start-up (interpreter, imports, connections)
//! outside the timer, warm calls after the first, the 50 ms rule, and the parts timed inside a
//! call within it. One line per problem.

use crate::catalog::external::{self, ExternalWorker};
use crate::catalog::{parse_described, BackendInfo};
use crate::results::{Record, SampleRecord, SampleStatus};
use crate::Error;
use formatbench_protocol::Op;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod runs;
mod timing;

use runs::{check_runs, checked_on, op_list, run_once, MATRIX_OPS, TABLE_OPS, WIDE};
use timing::{phase_problems, timing_problems};

/// Times `--describe` runs before the check's run (and again after it): the least is the
/// worker's start-up.
const STARTS: usize = 3;

/// How long a `--describe` may take.
const DESCRIBE_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

pub fn check(manifest: &Path, rows: u64, out: Option<PathBuf>) -> Result<i32, Error> {
    external::register(&[manifest.to_path_buf()])?;
    let worker = external::registered()
        .first()
        .cloned()
        .ok_or_else(|| Error::Input(format!("{}: nothing registered", manifest.display())))?;
    let mut problems: Vec<String> = Vec::new();
    let before = start_up(&worker, &mut problems);
    let runs = check_runs(&worker.backends);
    if runs.is_empty() {
        for problem in &problems {
            println!("{problem}");
        }
        let checked: Vec<Op> = TABLE_OPS.into_iter().chain(MATRIX_OPS).collect();
        return Err(Error::Input(format!(
            "{}: it declares none of the operations the check runs ({})",
            manifest.display(),
            op_list(&checked)
        )));
    }
    let (dir, temporary) = match out {
        Some(dir) => (dir, false),
        None => (
            std::env::temp_dir().join(format!("formatbench-check-{}", std::process::id())),
            true,
        ),
    };
    let records = runs
        .iter()
        .map(|run| {
            let results = run_once(&worker, run, rows, &dir)?;
            crate::results::read_records(&results)
        })
        .collect::<Result<Vec<_>, Error>>()
        .map(|runs| runs.concat());
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let records = match records {
        Ok(records) => records,
        Err(e) => {
            for problem in &problems {
                println!("{problem}");
            }
            return Err(e);
        }
    };
    // Timed again after the run, the least of all: a machine busy at one moment or the other
    // makes start-up look longer, never shorter.
    let mut later = Vec::new();
    let after = start_up(&worker, &mut later);
    let start_s = match (before, after) {
        (Some(b), Some(a)) => Some(b.min(a)),
        (one, other) => one.or(other),
    };
    for backend in &worker.backends {
        for (layout, ops) in &backend.layouts {
            for op in ops {
                let Some(dataset) = checked_on(layout, *op) else {
                    println!(
                        "{} {op} ({layout}): not checked (the check's generated tables have no \
                         such operation)",
                        backend.name
                    );
                    continue;
                };
                for profile in &backend.profiles {
                    let cell = CheckedCell {
                        backend: &backend.name,
                        profile,
                        layout,
                        dataset,
                        op: *op,
                    };
                    cell_problems(&records, &cell, start_s, &mut problems);
                }
            }
        }
    }
    for problem in &problems {
        println!("{problem}");
    }
    let names: Vec<&str> = worker.backends.iter().map(|b| b.name.as_str()).collect();
    if problems.is_empty() {
        println!(
            "{}: every checked operation verified, and timed as the protocol asks (start-up {})",
            names.join(", "),
            start_s.map_or_else(|| "not known".into(), crate::units::duration)
        );
        Ok(0)
    } else {
        crate::progress::fail(&format!(
            "{}: {} problem(s) with {}",
            names.join(", "),
            problems.len(),
            manifest.display()
        ));
        Ok(1)
    }
}

/// The least of [`STARTS`] timings of `--describe` (a start and nothing more), after checking
/// that the worker describes what its manifest declares.
fn start_up(worker: &ExternalWorker, problems: &mut Vec<String>) -> Option<f64> {
    let mut least: Option<f64> = None;
    let mut answer = Vec::new();
    for _ in 0..STARTS {
        let mut args = worker.args.clone();
        args.push("--describe".into());
        let started = Instant::now();
        let output = external::output_within(&worker.program, &args, DESCRIBE_LIMIT);
        let took = started.elapsed().as_secs_f64();
        match output {
            Ok(output) if output.status.success() => {
                least = Some(least.map_or(took, |l: f64| l.min(took)));
                answer = output.stdout;
            }
            Ok(output) => {
                problems.push(format!(
                    "--describe: exits {}: {} (its start-up is not known, so the timer's start is not checked)",
                    output.status,
                    String::from_utf8_lossy(&output.stderr).lines().last().unwrap_or("no message")
                ));
                return None;
            }
            Err(e) => {
                problems.push(format!("--describe: {e}"));
                return None;
            }
        }
    }
    match parse_described(&answer, crate::catalog::WorkerKind::External(0)) {
        Ok(described) => {
            for declared in &worker.backends {
                match described.iter().find(|d| d.name == declared.name) {
                    None => problems.push(format!(
                        "{}: its --describe answer does not list it",
                        declared.name
                    )),
                    Some(d) => problems.extend(disagreements(declared, d)),
                }
            }
        }
        Err(why) => problems.push(format!("--describe: {why}")),
    }
    least
}

/// Where a worker's `--describe` answer says otherwise than its manifest, one line each.
fn disagreements(declared: &BackendInfo, described: &BackendInfo) -> Vec<String> {
    let name = &declared.name;
    let mut lines = Vec::new();
    let as_set = |ops: &[Op]| {
        ops.iter()
            .copied()
            .collect::<std::collections::BTreeSet<Op>>()
    };
    if as_set(&declared.ops) != as_set(&described.ops) {
        lines.push(format!(
            "{name}: the manifest declares {}, its --describe answers {}",
            op_list(&declared.ops),
            op_list(&described.ops)
        ));
    }
    let as_names = |names: &[String]| {
        names
            .iter()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
    };
    if as_names(&declared.profiles) != as_names(&described.profiles) {
        lines.push(format!(
            "{name}: the manifest declares profiles {}, its --describe answers {}",
            declared.profiles.join(","),
            described.profiles.join(",")
        ));
    }
    if let Err(why) = &described.available {
        lines.push(format!("{name}: its --describe says it cannot run: {why}"));
    }
    for (key, manifest, answer) in [
        ("lossy", declared.lossy, described.lossy),
        (
            "other_widths",
            declared.other_widths,
            described.other_widths,
        ),
    ] {
        if manifest != answer {
            lines.push(format!(
                "{name}: the manifest says {key} = {manifest}, its --describe {answer}"
            ));
        }
    }
    lines
}

/// One backend's operation in one of its profiles and layouts, on one of the check's tables.
struct CheckedCell<'a> {
    backend: &'a str,
    profile: &'a str,
    layout: &'a str,
    /// The generated table's kind (`mixed`, `features`).
    dataset: &'a str,
    op: Op,
}

impl CheckedCell<'_> {
    /// `ext-x read`; `ext-x/mmap read` in a profile other than the default; `ext-x matrix
    /// (array)` in a layout other than the wide one.
    fn label(&self) -> String {
        let mut label = match self.profile {
            "default" => format!("{} {}", self.backend, self.op),
            profile => format!("{}/{profile} {}", self.backend, self.op),
        };
        if self.layout != WIDE {
            label.push_str(&format!(" ({})", self.layout));
        }
        label
    }
}

/// What is wrong with `cell` in the check's records.
fn cell_problems(
    records: &[Record],
    cell: &CheckedCell,
    start_s: Option<f64>,
    problems: &mut Vec<String>,
) {
    let op_name = cell.op.to_string();
    let label = cell.label();
    let ours = |key: &crate::results::CellKey| {
        key.backend == cell.backend
            && key.profile == cell.profile
            && key.layout == cell.layout
            && key.op == op_name
            && key.dataset.starts_with(&format!("{}-", cell.dataset))
    };
    let verification = records.iter().find_map(|r| match r {
        Record::Verification(v) if ours(&v.cell) => Some(v),
        _ => None,
    });
    let samples: Vec<&SampleRecord> = records
        .iter()
        .filter_map(|r| match r {
            Record::Sample(s) if ours(&s.cell) => Some(s.as_ref()),
            _ => None,
        })
        .collect();
    match verification.map(|v| (v.status, v.reason.as_deref().unwrap_or("no reason given"))) {
        Some((SampleStatus::Ok, _)) => {}
        Some((SampleStatus::Unsupported, why)) => {
            problems.push(format!(
                "{label}: declared, but answered unsupported: {why}"
            ));
            return;
        }
        Some((_, why)) => {
            problems.push(format!("{label}: wrong answer or failed: {why}"));
            return;
        }
        None => {
            let why = samples
                .iter()
                .find_map(|s| s.reason.clone())
                .unwrap_or_else(|| "no result was verified".into());
            problems.push(format!("{label}: not verified: {why}"));
            return;
        }
    }
    for sample in samples {
        if sample.status != SampleStatus::Ok {
            let why = sample.reason.as_deref().unwrap_or("no reason given");
            problems.push(format!("{label}: sample {:?}: {why}", sample.status));
            continue;
        }
        problems.extend(timing_problems(&label, sample, start_s));
        problems.extend(phase_problems(&label, sample));
    }
}
