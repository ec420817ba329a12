//! The job skeleton: the untimed preparation, the timed operation, the untimed digest and
//! verification output. A worker supplies its backends; this runs the job.

use crate::backend::{Backend, Context, Request};
use crate::layout::{self, ARRAY, WIDE};
use crate::matrix::MatrixPlan;
use crate::{source, KitError};
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use formatbench_protocol::{
    files_under, measure_repeated, resident_fraction, Answer, Job, Op, Phase,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The worker's `--describe` object.
pub fn describe(worker: &str, backends: &[&dyn Backend]) -> serde_json::Value {
    let listed: Vec<serde_json::Value> = backends
        .iter()
        .map(|b| {
            let layouts: serde_json::Map<String, serde_json::Value> = b
                .layouts()
                .iter()
                .map(|(name, ops)| {
                    let ops: Vec<&str> = ops.iter().map(|op| op.name()).collect();
                    (name.to_string(), serde_json::json!(ops))
                })
                .collect();
            let wide: Vec<&str> = b
                .layouts()
                .iter()
                .find(|(name, _)| *name == WIDE)
                .map(|(_, ops)| ops.iter().map(|op| op.name()).collect())
                .unwrap_or_default();
            serde_json::json!({
                "name": b.name(),
                "profiles": b.profiles(),
                "ops": wide,
                "layouts": layouts,
                "targets": ["arrow"],
                "lossy": false,
                "about": b.about(),
                "version": b.version(),
                "unavailable": b.available().err(),
                "unordered": b.unordered(),
                "artifact_from": b.artifact_from(),
                "deletion_profiles": b.deletion_profiles(),
            })
        })
        .collect();
    serde_json::json!({ "worker": worker, "backends": listed })
}

pub fn execute(job: &Job, backends: &[&dyn Backend]) -> Answer {
    match try_execute(job, backends) {
        Ok(answer) => answer,
        Err(KitError::Unsupported(reason)) => Answer::unsupported(reason),
        Err(e) => Answer::failed(e.to_string()),
    }
}

fn try_execute(job: &Job, backends: &[&dyn Backend]) -> Result<Answer, KitError> {
    let backend = backends
        .iter()
        .copied()
        .find(|b| b.name() == job.backend)
        .ok_or_else(|| KitError::Invalid(format!("unknown backend '{}'", job.backend)))?;
    backend.available().map_err(KitError::Unsupported)?;
    if !backend.profiles().contains(&job.profile.as_str()) {
        return Err(KitError::Invalid(format!(
            "backend '{}' has no profile '{}'",
            job.backend, job.profile
        )));
    }
    let layouts = backend.layouts();
    let Some((_, ops)) = layouts.iter().find(|(name, _)| *name == job.layout) else {
        return Err(KitError::Unsupported(format!(
            "layout '{}' is not implemented by {}",
            job.layout, job.backend
        )));
    };
    let preparing = job.prepare && job.op == Op::Write;
    if !preparing && !ops.contains(&job.op) {
        return Err(KitError::Unsupported(format!(
            "{} does not do '{}' natively on the {} layout",
            job.backend, job.op, job.layout
        )));
    }
    if job.target != "arrow" {
        return Err(KitError::Unsupported(format!(
            "{} reads into Arrow only, not '{}'",
            job.backend, job.target
        )));
    }
    let mut answer = match job.op {
        Op::Write => write(job, backend)?,
        _ => read(job, backend)?,
    };
    answer
        .settings
        .insert("threads".into(), job.threads.to_string());
    Ok(answer)
}

const REPEAT_PREFIX: &str = ".repeat-";

fn write(job: &Job, backend: &dyn Backend) -> Result<Answer, KitError> {
    let load_start = Instant::now();
    let (source_schema, batches) = source::read_all(&job.source)?;
    let array = job.layout == ARRAY;
    let (schema, batches) = if array {
        let schema = layout::array_schema(&source_schema)?;
        let batches = batches
            .iter()
            .map(|b| layout::to_array(&schema, b))
            .collect::<Result<Vec<_>, _>>()?;
        (schema, batches)
    } else {
        (source_schema.clone(), batches)
    };
    let names = layout::feature_names(&source_schema);
    let load_s = load_start.elapsed().as_secs_f64();
    let ctx = Context {
        profile: &job.profile,
        layout: &job.layout,
        schema: &schema,
        threads: job.threads.max(1) as usize,
        split: job.params.files,
    };
    let write_all = |dir: &Path| -> Result<(), KitError> {
        backend.write(&ctx, &batches, dir)?;
        if array {
            layout::write_sidecar(dir, &names)?;
        }
        Ok(())
    };
    if job.artifact.exists() {
        std::fs::remove_dir_all(&job.artifact)?;
    }
    std::fs::create_dir_all(&job.artifact)?;
    // Every call writes fresh files; repeats go to directories removed after the timer.
    let mut call = 0usize;
    let ((), measured) = measure_repeated(job.calls(), || {
        call += 1;
        if call == 1 {
            return write_all(&job.artifact);
        }
        let dir = job.artifact.join(format!("{REPEAT_PREFIX}{call}"));
        std::fs::create_dir_all(&dir)?;
        write_all(&dir)
    })?;
    for path in std::fs::read_dir(&job.artifact)?
        .flatten()
        .map(|e| e.path())
    {
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(REPEAT_PREFIX))
        {
            std::fs::remove_dir_all(&path)?;
        }
    }
    let mut answer = Answer::ok().with_measurement(&measured);
    answer.phases.insert(
        0,
        Phase {
            name: "load".into(),
            seconds: load_s,
        },
    );
    answer.rows = Some(batches.iter().map(|b| b.num_rows() as u64).sum());
    answer.columns = Some(schema.fields().len() as u64);
    drop(batches);
    let files = files(&job.artifact)?;
    answer.size_bytes = Some(files.iter().map(|(_, len)| len).sum());
    // Databases stamp their files; a write is then checked by what it reads back.
    let (read_back, _how) = backend.read(&ctx, &job.artifact, Request::All)?;
    let read_back = in_order(backend, job, read_back)?;
    answer.digest = Some(format!(
        "read-back:{}",
        source::digest(&schema, &read_back)?
    ));
    if let Some(out) = &job.verify_out {
        verify_output(out, &schema, read_back, array.then_some(&source_schema))?;
    }
    answer.settings = backend.settings(&ctx, &job.artifact);
    Ok(answer)
}

fn read(job: &Job, backend: &dyn Backend) -> Result<Answer, KitError> {
    let source_schema = source::schema(&job.source)?;
    let array = job.layout == ARRAY;
    let schema = if array {
        layout::array_schema(&source_schema)?
    } else {
        source_schema.clone()
    };
    let ctx = Context {
        profile: &job.profile,
        layout: &job.layout,
        schema: &schema,
        threads: job.threads.max(1) as usize,
        split: job.params.files,
    };
    let missing = |what: &str| KitError::Invalid(format!("'{}' needs {what}", job.op));
    let params = &job.params;
    let plan = if job.op.is_matrix() {
        Some(MatrixPlan::new(job.op, array, &source_schema, params)?)
    } else {
        None
    };
    let request = match job.op {
        Op::Project => Request::Columns(
            params
                .columns
                .as_deref()
                .ok_or_else(|| missing("columns"))?,
        ),
        Op::Take => Request::Take(params.rows.as_deref().ok_or_else(|| missing("rows"))?, None),
        _ => Request::All,
    };
    let scan = job.op == Op::Scan;
    let first_row = job.op == Op::FirstRow;
    let resident = resident_fraction(&files_under(&job.artifact));
    let ((batches, method), measured) =
        measure_repeated(job.calls(), || -> Result<_, KitError> {
            if let Some(plan) = &plan {
                let (result, method) = plan.run(backend, &ctx, &job.artifact)?;
                return Ok((Output::Matrix(result), method));
            }
            let (batches, method) = if first_row {
                backend.first_row(&ctx, &job.artifact)?
            } else {
                backend.read(&ctx, &job.artifact, request)?
            };
            if scan {
                std::hint::black_box(crate::scan::fold_batches(&batches));
            }
            Ok((Output::Table(batches), method.to_string()))
        })?;
    let batches = match batches {
        Output::Matrix(result) => result.into_batches()?,
        Output::Table(batches) => in_order(backend, job, batches)?,
    };
    let mut answer = Answer::ok().with_measurement(&measured);
    answer.resident_fraction = resident;
    let result_schema = batches
        .first()
        .map_or_else(|| schema.clone(), |b| b.schema());
    answer.result_bytes = Some(
        batches
            .iter()
            .map(|b| b.get_array_memory_size() as u64)
            .sum(),
    );
    answer.rows = Some(batches.iter().map(|b| b.num_rows() as u64).sum());
    answer.columns = Some(result_schema.fields().len() as u64);
    answer.digest = Some(source::digest(&result_schema, &batches)?);
    answer.settings = backend.settings(&ctx, &job.artifact);
    answer.settings.insert("method".into(), method);
    if let Some(out) = &job.verify_out {
        let wide = array && plan.is_none();
        verify_output(out, &result_schema, batches, wide.then_some(&source_schema))?;
    }
    Ok(answer)
}

/// A result in the source's row order: an unordered backend's, sorted by the job's `order_by`
/// column (after the timer).
fn in_order(
    backend: &dyn Backend,
    job: &Job,
    batches: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>, KitError> {
    match (&job.params.order_by, backend.unordered()) {
        (Some(column), true) => source::sort_by(batches, column),
        _ => Ok(batches),
    }
}

enum Output {
    Matrix(crate::matrix::MatrixResult),
    Table(Vec<RecordBatch>),
}

/// Writes a result for verification, an array-layout table back in the source's wide shape.
fn verify_output(
    out: &Path,
    schema: &SchemaRef,
    batches: Vec<RecordBatch>,
    source: Option<&SchemaRef>,
) -> Result<(), KitError> {
    let batches = match source {
        Some(source) => batches
            .iter()
            .map(|b| layout::to_wide(b, source))
            .collect::<Result<Vec<_>, _>>()?,
        None => batches,
    };
    let schema = batches
        .first()
        .map_or_else(|| schema.clone(), |b| b.schema());
    source::write_ipc(out, &schema, &batches)
}

/// Every file under `dir` with its size.
fn files(dir: &Path) -> Result<Vec<(PathBuf, u64)>, KitError> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let len = std::fs::metadata(&path)?.len();
                out.push((path, len));
            }
        }
    }
    Ok(out)
}
