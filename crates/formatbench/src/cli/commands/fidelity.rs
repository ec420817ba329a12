//! `formatbench fidelity`: which logical types survive a write then a read through each backend
//! and target. Each column of the table (the built-in one with a column per type, or the first
//! rows of `--input`) becomes a table of its own, so a type one backend refuses does not hide
//! the others (nor does an index column: `npy` stores float tables only); every cell is
//! verified and nothing is timed. The matrix goes to the terminal and to fidelity.md and
//! fidelity.json in the run's folder.

use super::resolve;
use crate::cli::RunArgs;
use crate::datasets::{types_table, DatasetSpec, TYPES_INDEX};
use crate::progress::say;
use crate::run::{execute_plan, install_interrupt_handler, RunOptions};
use crate::Error;
use arrow::array::RecordBatch;
use arrow::compute::concat_batches;
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Rows of the built-in table, and of a user's file read for the matrix.
const DEFAULT_ROWS: u64 = 1_000;

pub fn fidelity(args: &RunArgs) -> Result<i32, Error> {
    // The single-column tables live beside the results until the run has ingested them.
    let inputs = args
        .out
        .join(".fidelity-inputs")
        .join(std::process::id().to_string());
    let _ = std::fs::remove_dir_all(&inputs);
    std::fs::create_dir_all(&inputs).map_err(Error::at("create", &inputs))?;
    let result = run(args, &inputs);
    let _ = std::fs::remove_dir_all(&inputs);
    if let Some(parent) = inputs.parent() {
        // Only when no other fidelity run is using it.
        let _ = std::fs::remove_dir(parent);
    }
    result
}

fn run(args: &RunArgs, inputs: &Path) -> Result<i32, Error> {
    let rows = args
        .rows
        .as_ref()
        .and_then(|r| r.first().copied())
        .unwrap_or(DEFAULT_ROWS);
    // A user's columns are all theirs, the index too; the built-in table's index is not a type.
    let (table, skipped) = match &args.input {
        Some(path) => (first_rows(path, args.index.as_deref(), rows, inputs)?, None),
        None => (types_table(rows as usize, args.seed)?, Some(TYPES_INDEX)),
    };
    let files = split(&table, skipped, inputs)?;
    let Some(first) = files.first() else {
        return Err(Error::Input("fidelity: the table has no columns".into()));
    };
    let mut run_args = args.clone();
    run_args.dataset = None;
    run_args.input = Some(first.clone());
    run_args.index = None;
    run_args.ops = Some(vec!["read".into()]);
    run_args.profiles = Some(
        args.profiles
            .clone()
            .unwrap_or_else(|| vec!["default".into()]),
    );
    run_args.targets = Some(args.targets.clone().unwrap_or_else(|| vec!["all".into()]));
    run_args.rounds = Some(1);
    run_args.samples = None;
    run_args.precision = None;
    run_args.budget = None;
    run_args.warmup = Some(1);
    let mut plan = resolve::plan(None, &run_args)?;
    plan.suite = "fidelity".into();
    plan.datasets = files
        .iter()
        .map(|path| DatasetSpec::Input {
            object: None,
            path: path.clone(),
            index: None,
            feature_type: None,
        })
        .collect();
    plan.verify_only = true;
    plan.stopping = None;
    let options = RunOptions {
        out_dir: args.out.clone(),
        resume: None,
        reuse: false,
        retry_failed: false,
        keep_artifacts: args.keep_artifacts,
        settings: resolve::settings(&plan, &run_args),
        s3_listen: args.s3_listen.clone(),
    };
    install_interrupt_handler();
    let outcome = execute_plan(&plan, &options)?;
    let records = crate::results::read_records(&outcome.results)?;
    // The run's reports (the matrix is a section of them) and exports, as after any run.
    crate::report::write_all(&records, None, &outcome.run_dir)?;
    let matrix = crate::report::fidelity(&records);
    let document = matrix.document();
    let written = |name: &str, text: &str| {
        let path = outcome.run_dir.join(name);
        std::fs::write(&path, text).map_err(Error::at("write", &path))
    };
    written("fidelity.md", &crate::document::markdown(&document))?;
    written("fidelity.html", &crate::document::html(&document))?;
    written("fidelity.json", &matrix.json()?)?;
    print!("{}", crate::document::terminal(&document));
    say(&format!(
        "fidelity of {} types: {}; fidelity.md, fidelity.html and fidelity.json in {}",
        matrix.types.len(),
        matrix.tally(),
        outcome.run_dir.display()
    ));
    Ok(if outcome.interrupted { 130 } else { 0 })
}

/// The first `rows` rows of a user's file, made canonical the way a run ingests it.
fn first_rows(
    path: &Path,
    index: Option<&str>,
    rows: u64,
    scratch: &Path,
) -> Result<RecordBatch, Error> {
    let spec = DatasetSpec::Input {
        object: None,
        path: path.to_path_buf(),
        index: index.map(str::to_string),
        feature_type: None,
    };
    let source = spec.materialize(&scratch.join("source"))?;
    let file = File::open(&source.path).map_err(Error::at("read", &source.path))?;
    let reader = FileReader::try_new(file, None)?;
    let schema = reader.schema();
    let mut batches = Vec::new();
    let mut taken = 0u64;
    for batch in reader {
        let batch = batch?;
        let keep = (rows - taken).min(batch.num_rows() as u64);
        batches.push(batch.slice(0, keep as usize));
        taken += keep;
        if taken >= rows {
            break;
        }
    }
    let table = concat_batches(&schema, &batches)?;
    let _ = std::fs::remove_dir_all(scratch.join("source"));
    Ok(table)
}

/// One IPC file per column but `skipped`, the column alone; the file's name is the column's,
/// made safe for a path (and unique).
fn split(table: &RecordBatch, skipped: Option<&str>, dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let schema = table.schema();
    let mut files = Vec::new();
    for (i, field) in schema.fields().iter().enumerate() {
        if Some(field.name().as_str()) == skipped {
            continue;
        }
        let part = table.project(&[i])?;
        let safe: String = field
            .name()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut path = dir.join(format!("{safe}.arrow"));
        if files.contains(&path) || safe.is_empty() {
            path = dir.join(format!("{safe}_{i}.arrow"));
        }
        let file = File::create(&path).map_err(Error::at("write", &path))?;
        let mut writer = FileWriter::try_new(file, &part.schema())?;
        writer.write(&part)?;
        writer.finish()?;
        files.push(path);
    }
    Ok(files)
}
