//! The check's runs: which generated table checks which declared operation, and one run of
//! them through the normal runner.

use crate::catalog::external::ExternalWorker;
use crate::catalog::BackendInfo;
use crate::cli::commands::{resolve, run_options};
use crate::cli::{Cli, Command};
use crate::run::execute_plan;
use crate::Error;
use clap::Parser;
use formatbench_protocol::Op;
use std::path::{Path, PathBuf};

/// The operations the generated mixed table checks (the table operations, on the wide layout).
pub(super) const TABLE_OPS: [Op; 6] = formatbench_protocol::ALL_OPS;

/// The operations a generated feature matrix checks, on every layout that declares them.
pub(super) const MATRIX_OPS: [Op; 5] = formatbench_protocol::MATRIX_OPS;

/// The layout of one column per field, where the mixed table's operations run.
pub(super) const WIDE: &str = "wide";

/// Features of the generated matrix: enough for a projection of several.
pub(super) const FEATURES: &str = "32";

pub(super) fn op_list(ops: &[Op]) -> String {
    let names: Vec<String> = ops.iter().map(Op::to_string).collect();
    names.join(",")
}

/// The generated table an operation on `layout` is checked on: the table operations on the
/// wide layout on the mixed table; the matrix operations, and the table operations of other
/// layouts (an array layout's write and read), on the feature matrix; none for the rest.
pub(super) fn checked_on(layout: &str, op: Op) -> Option<&'static str> {
    match (MATRIX_OPS.contains(&op), TABLE_OPS.contains(&op)) {
        (true, _) => Some("features"),
        (false, true) if layout == WIDE => Some("mixed"),
        (false, true) => Some("features"),
        (false, false) => None,
    }
}

/// One run of the check: a generated table, the layouts it is stored in, the operations run.
pub(super) struct CheckRun {
    dataset: &'static str,
    layouts: Vec<String>,
    ops: Vec<Op>,
}

/// The check's runs: the mixed table for the declared table operations, the feature matrix
/// for the declared matrix ones; a run with no operation is left out.
pub(super) fn check_runs(backends: &[BackendInfo]) -> Vec<CheckRun> {
    let mut runs: Vec<CheckRun> = Vec::new();
    for dataset in ["mixed", "features"] {
        let mut layouts: Vec<String> = Vec::new();
        let mut ops: Vec<Op> = Vec::new();
        let declared = backends.iter().flat_map(|b| &b.layouts);
        for (layout, layout_ops) in declared {
            let here: Vec<Op> = layout_ops
                .iter()
                .copied()
                .filter(|op| checked_on(layout, *op) == Some(dataset))
                .collect();
            if here.is_empty() {
                continue;
            }
            if !layouts.contains(layout) {
                layouts.push(layout.clone());
            }
            for op in here {
                if !ops.contains(&op) {
                    ops.push(op);
                }
            }
        }
        if !ops.is_empty() {
            runs.push(CheckRun {
                dataset,
                layouts,
                ops,
            });
        }
    }
    runs
}

/// One sample of each of the run's operations, through the normal runner, into `dir`; the
/// results file it wrote.
pub(super) fn run_once(
    worker: &ExternalWorker,
    run: &CheckRun,
    rows: u64,
    dir: &Path,
) -> Result<PathBuf, Error> {
    let names: Vec<&str> = worker.backends.iter().map(|b| b.name.as_str()).collect();
    let rows = rows.to_string();
    let backends = names.join(",");
    let ops = op_list(&run.ops);
    let layouts = run.layouts.join(",");
    let dir_text = dir.to_string_lossy();
    let shape: [&str; 2] = match run.dataset {
        "features" => ["--features", FEATURES],
        _ => ["--per-type", "1"],
    };
    let argv = [
        "formatbench",
        "run",
        "--dataset",
        run.dataset,
        "--rows",
        &rows,
        shape[0],
        shape[1],
        "--layouts",
        &layouts,
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
    Ok(execute_plan(&plan, &run_options(&plan, &args))?.results)
}
