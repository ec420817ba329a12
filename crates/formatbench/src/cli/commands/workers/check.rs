//! `formatbench workers check MANIFEST`: a worker's conformance to the protocol, shown by the
//! normal runner. Every operation its manifest declares (those the mixed table has) runs once on
//! a small generated table, verified against the source; then each measured sample is held to
//! the timing protocol: start-up (interpreter, imports, connections) outside the timer, warm
//! calls after the first, and the 50 ms rule. One line per problem.

use super::super::resolve;
use crate::catalog::external::{self, ExternalWorker};
use crate::catalog::{parse_described, BackendInfo};
use crate::cli::{Cli, Command};
use crate::results::{Record, SampleRecord, SampleStatus};
use crate::run::execute_plan;
use crate::Error;
use clap::Parser;
use formatbench_protocol::Op;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The operations the generated mixed table can check (the table operations); the others
/// need other data.
const CHECKED_OPS: [Op; 6] = formatbench_protocol::ALL_OPS;

/// Times `--describe` runs before the check's run (and again after it): the least is the
/// worker's start-up.
const STARTS: usize = 3;

/// How long a `--describe` may take.
const DESCRIBE_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// A sample's untimed part below this share of the worker's start-up means the timer took
/// start-up in: a correct worker leaves all of it (and the source's load) outside.
const UNTIMED_SHARE_OF_START: f64 = 0.5;

/// ... by at least this much: a start-up of a few milliseconds (a native program) is within
/// the jitter of starting a process, and an error that small moves no ranking.
const START_UP_MARGIN_S: f64 = 0.010;

/// The 50 ms rule, less the clock's and the last call's granularity.
const SHARE_OF_MIN_SAMPLE: f64 = 0.9;

pub fn check(manifest: &Path, rows: u64, out: Option<PathBuf>) -> Result<i32, Error> {
    external::register(&[manifest.to_path_buf()])?;
    let worker = external::registered()
        .first()
        .cloned()
        .ok_or_else(|| Error::Input(format!("{}: nothing registered", manifest.display())))?;
    let mut problems: Vec<String> = Vec::new();
    let before = start_up(&worker, &mut problems);
    let ops = checked_ops(&worker.backends);
    if ops.is_empty() {
        for problem in &problems {
            println!("{problem}");
        }
        return Err(Error::Input(format!(
            "{}: it declares none of the operations the check runs ({})",
            manifest.display(),
            op_list(&CHECKED_OPS)
        )));
    }
    let (dir, temporary) = match out {
        Some(dir) => (dir, false),
        None => (
            std::env::temp_dir().join(format!("formatbench-check-{}", std::process::id())),
            true,
        ),
    };
    let outcome = run_once(&worker, &ops, rows, &dir);
    let records = outcome.and_then(|results| crate::results::read_records(&results));
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
        for profile in &backend.profiles {
            for op in backend.ops.iter().filter(|op| ops.contains(op)) {
                let cell = CheckedCell {
                    backend: &backend.name,
                    profile,
                    op: *op,
                };
                cell_problems(&records, &cell, start_s, &mut problems);
            }
        }
        for op in backend.ops.iter().filter(|op| !ops.contains(op)) {
            println!(
                "{} {op}: not checked (the mixed table has no such operation)",
                backend.name
            );
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

fn op_list(ops: &[Op]) -> String {
    let names: Vec<String> = ops.iter().map(Op::to_string).collect();
    names.join(",")
}

/// The declared operations the mixed table can check.
fn checked_ops(backends: &[BackendInfo]) -> Vec<Op> {
    CHECKED_OPS
        .into_iter()
        .filter(|op| backends.iter().any(|b| b.ops.contains(op)))
        .collect()
}

/// One sample of every declared operation, through the normal runner, into `dir`; the results
/// file it wrote.
fn run_once(worker: &ExternalWorker, ops: &[Op], rows: u64, dir: &Path) -> Result<PathBuf, Error> {
    let names: Vec<&str> = worker.backends.iter().map(|b| b.name.as_str()).collect();
    let rows = rows.to_string();
    let backends = names.join(",");
    let ops = op_list(ops);
    let dir_text = dir.to_string_lossy();
    let argv = [
        "formatbench",
        "run",
        "--dataset",
        "mixed",
        "--rows",
        &rows,
        "--per-type",
        "1",
        "--backends",
        &backends,
        "--profiles",
        "all",
        "--ops",
        &ops,
        "--rounds",
        "1",
        "--samples",
        "1",
        "--warmup",
        "0",
        "--out",
        &dir_text,
    ];
    let args = match Cli::try_parse_from(argv).map(|cli| cli.command) {
        Ok(Command::Run(args)) => args,
        Ok(_) => return Err(Error::Input("the check's run is not a run".into())),
        Err(e) => {
            let said = e.to_string();
            let first = said.lines().next().unwrap_or("no reason given");
            return Err(Error::Input(format!(
                "the check's run cannot be planned: {first}"
            )));
        }
    };
    let plan = resolve::plan(None, &args)?;
    crate::plan::limits::check_writable("--out", &args.out)?;
    Ok(execute_plan(&plan, &super::super::run_options(&plan, &args))?.results)
}

/// One backend's operation in one of its profiles.
struct CheckedCell<'a> {
    backend: &'a str,
    profile: &'a str,
    op: Op,
}

impl CheckedCell<'_> {
    /// `ext-x read`, or `ext-x/mmap read` in a profile other than the default.
    fn label(&self) -> String {
        match self.profile {
            "default" => format!("{} {}", self.backend, self.op),
            profile => format!("{}/{profile} {}", self.backend, self.op),
        }
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
        key.backend == cell.backend && key.profile == cell.profile && key.op == op_name
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

/// A session's parts, which follow one another inside a call: together no longer than it.
const DISJOINT_PHASES: [&str; 3] = ["init", "plan", "execute"];

/// The parts a worker timed inside the operation (`phases`, `first_call_phases`), held to the
/// calls they are parts of: each within its call, a session's parts within it together.
/// `load` (a write's, timed before the operation) is not a part of it.
fn phase_problems(label: &str, sample: &SampleRecord) -> Vec<String> {
    // A part measured by the same clock as its call, around less work: the margin is the
    // clock's and the rounding's.
    let within = |part: f64, call: f64| part <= call * 1.01 + 1e-4;
    let mut problems = Vec::new();
    let per_call = sample.warm_call_s.or(sample.wall_s);
    for (phases, call, which) in [
        (&sample.phases, per_call, "a call"),
        (
            &sample.first_call_phases,
            sample.first_call_s,
            "its first call",
        ),
    ] {
        let Some(call) = call else { continue };
        let parts = phases.iter().filter(|(name, _)| name.as_str() != "load");
        for (name, seconds) in parts {
            if !within(*seconds, call) {
                problems.push(format!(
                    "{label}: its phase '{name}' takes {} of {which}'s {}: a part timed \
                     outside the operation",
                    crate::units::duration(*seconds),
                    crate::units::duration(call)
                ));
            }
        }
        let disjoint: f64 = DISJOINT_PHASES
            .iter()
            .filter_map(|name| phases.get(*name))
            .sum();
        if !within(disjoint, call) {
            problems.push(format!(
                "{label}: its phases {} add up to {}, more than {which}'s {}",
                DISJOINT_PHASES.join(", "),
                crate::units::duration(disjoint),
                crate::units::duration(call)
            ));
        }
    }
    problems
}

/// The timing protocol, held against one measured sample (which asks for at least two calls
/// lasting at least `DEFAULT_MIN_SAMPLE_S` together, at most 1,000).
fn timing_problems(label: &str, sample: &SampleRecord, start_s: Option<f64>) -> Vec<String> {
    let mut problems = Vec::new();
    let (Some(per_call), Some(calls)) = (sample.wall_s, sample.calls) else {
        problems.push(format!("{label}: reports no time or no call count"));
        return problems;
    };
    let timed = per_call * calls as f64;
    let floor = crate::plan::DEFAULT_MIN_SAMPLE_S;
    let (min_calls, max_calls) = crate::plan::MEASURED_CALLS;
    if calls < min_calls {
        problems.push(format!(
            "{label}: made {calls} call(s); a measured sample makes at least {min_calls} (the \
             first, then warm ones)"
        ));
    } else if sample.warm_call_s.is_none() || sample.first_call_s.is_none() {
        problems.push(format!("{label}: reports no first-call or warm-call time"));
    }
    if calls < max_calls && timed < SHARE_OF_MIN_SAMPLE * floor {
        problems.push(format!(
            "{label}: stopped after {calls} calls, {} in all: short operations repeat until they last {} together",
            crate::units::duration(timed),
            crate::units::duration(floor)
        ));
    }
    if let (Some(start), Some(process)) = (start_s, sample.process_wall_s) {
        let untimed = process - timed;
        if untimed < UNTIMED_SHARE_OF_START * start && start - untimed > START_UP_MARGIN_S {
            problems.push(format!(
                "{label}: its calls take {} of its process's {}, leaving {} untimed where starting \
                 the worker alone takes {}: the timer includes start-up",
                crate::units::duration(timed),
                crate::units::duration(process),
                crate::units::duration(untimed.max(0.0)),
                crate::units::duration(start)
            ));
        }
    }
    problems
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::results::CellKey;

    fn sample(
        warm: f64,
        first: f64,
        phases: &[(&str, f64)],
        first_phases: &[(&str, f64)],
    ) -> SampleRecord {
        let mut s = SampleRecord::bare(
            "r",
            CellKey::example("ext-x"),
            Some(1),
            SampleStatus::Ok,
            None,
        );
        s.wall_s = Some(warm);
        s.warm_call_s = Some(warm);
        s.first_call_s = Some(first);
        s.phases = phases.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        s.first_call_phases = first_phases
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect();
        s
    }

    #[test]
    fn phases_inside_their_calls_pass_and_ones_outside_are_named() {
        let right = sample(
            0.010,
            0.030,
            &[
                ("first_batch", 0.004),
                ("init", 0.002),
                ("plan", 0.003),
                ("execute", 0.005),
                ("load", 0.5),
            ],
            &[("first_batch", 0.020)],
        );
        assert!(phase_problems("ext-x read", &right).is_empty());
        let outside = sample(
            0.010,
            0.030,
            &[("first_batch", 0.015)],
            &[("first_batch", 0.031)],
        );
        let said = phase_problems("ext-x read", &outside);
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(
            said[0].contains("'first_batch' takes 15.0 ms of a call's 10.0 ms"),
            "{}",
            said[0]
        );
        assert!(
            said[1].contains("of its first call's 30.0 ms"),
            "{}",
            said[1]
        );
        let overlapping = sample(
            0.010,
            0.010,
            &[("init", 0.004), ("plan", 0.004), ("execute", 0.004)],
            &[],
        );
        let said = phase_problems("ext-x session", &overlapping);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("add up to 12.0 ms, more than a call's 10.0 ms"),
            "{}",
            said[0]
        );
    }
}
