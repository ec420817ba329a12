//! Runs one job: the untimed preparation, the timed operation, the untimed digest and output.

use crate::backends::{run_commits, Context, Loaded, Request};
use crate::layout::matrix::{MatrixPlan, MatrixResult};
use crate::layout::{self, ArrayForm};
use crate::{digest, find_backend, source, WorkerError};
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use formatbench_protocol::{
    files_under, measure_repeated, resident_fraction, Answer, Job, Op, Phase,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Directories that repeated write calls use inside the artifact directory.
const REPEAT_PREFIX: &str = ".repeat-";

pub fn execute(job: &Job) -> Answer {
    match try_execute(job) {
        Ok(answer) => answer,
        Err(WorkerError::Unsupported(reason)) => Answer::unsupported(reason),
        Err(e) => Answer::failed(e.to_string()),
    }
}

fn try_execute(job: &Job) -> Result<Answer, WorkerError> {
    let backend = find_backend(&job.backend)
        .ok_or_else(|| WorkerError::Invalid(format!("unknown backend '{}'", job.backend)))?;
    if !backend.profiles().contains(&job.profile.as_str()) {
        return Err(WorkerError::Invalid(format!(
            "backend '{}' has no profile '{}'",
            job.backend, job.profile
        )));
    }
    let layouts = backend.layouts();
    let Some((_, layout_ops)) = layouts.iter().find(|(name, _)| *name == job.layout) else {
        return Err(WorkerError::Unsupported(format!(
            "layout '{}' is not implemented by {}",
            job.layout, job.backend
        )));
    };
    let preparing = job.prepare && job.op == Op::Write;
    if !preparing && !layout_ops.contains(&job.op) {
        return Err(WorkerError::Unsupported(format!(
            "{} does not do '{}' natively",
            job.backend, job.op
        )));
    }
    if job.target != "arrow" {
        return Err(WorkerError::Unsupported(format!(
            "native backends read into Arrow only, not '{}'",
            job.target
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

/// The settings of a job's backend calls.
pub(crate) fn context<'a>(job: &'a Job, schema: &'a SchemaRef) -> Context<'a> {
    Context {
        profile: &job.profile,
        schema,
        threads: job.threads.max(1) as usize,
        index: job.params.options.get("index").map(String::as_str),
    }
}

/// Writes run without transparent huge pages (the source, loaded before, keeps them). The
/// allocator's arenas are 2 MiB-aligned, so with THP the first touch of each short-lived
/// encoding buffer zeroes a whole huge page, and may wait for the kernel to compact memory for
/// one: a Parquet write at 2 threads measured 105–175 ms with a 137 MiB peak, and 108–125 ms with
/// 95 MiB without. Reads keep them: they stream into large long-lived buffers, where huge pages
/// save faults and TLB misses (a full IPC read: 8 ms with, 9.4 ms without).
fn without_huge_pages() -> &'static str {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag on this process.
    let done = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    if done == 0 {
        "off"
    } else {
        "system default"
    }
}

fn write(job: &Job, backend: &dyn crate::Backend) -> Result<Answer, WorkerError> {
    let load_start = Instant::now();
    let (source_schema, batches) = source::read_all(&job.source)?;
    // The array layout is the in-memory table the write starts from, as a wide one is.
    let form = array_form(job, backend)?;
    let (schema, batches) = match form {
        Some(form) => {
            let schema = layout::array_schema(form, &source_schema)?;
            let batches = batches
                .iter()
                .map(|b| layout::to_array(form, &schema, b))
                .collect::<Result<Vec<_>, _>>()?;
            (schema, batches)
        }
        None => (source_schema.clone(), batches),
    };
    let feature_names = layout::feature_names(&source_schema);
    let huge_pages = without_huge_pages();
    let load_s = load_start.elapsed().as_secs_f64();
    backend
        .can_store(&schema)
        .map_err(WorkerError::Unsupported)?;
    let ctx = context(job, &schema);
    // Layouts that drop the feature names keep them beside the data (the bare matrix's own
    // writer already does).
    let write_all = |dir: &Path| -> Result<Option<crate::backends::Commit>, WorkerError> {
        let commit = backend.write_staged(&ctx, &batches, dir)?;
        if let Some(ArrayForm::FixedList | ArrayForm::PackedText) = form {
            layout::write_sidecar(dir, &feature_names)?;
        }
        Ok(commit)
    };
    if job.artifact.exists() {
        std::fs::remove_dir_all(&job.artifact)?;
    }
    std::fs::create_dir_all(&job.artifact)?;
    // Every call writes fresh files, as the first does: rewriting the same path would time the
    // truncation of the previous copy too. Repeats go to directories removed after the timer.
    let mut call = 0usize;
    // Staged commits wait outside the timer; each still runs, timed as the `commit` phase.
    let mut commits = Vec::new();
    let ((), measured) = measure_repeated(job.calls(), || {
        call += 1;
        let dir = match call {
            1 => job.artifact.clone(),
            _ => job.artifact.join(format!("{REPEAT_PREFIX}{call}")),
        };
        std::fs::create_dir_all(&dir)?;
        if let Some(commit) = write_all(&dir)? {
            commits.push(commit);
        }
        Ok::<_, WorkerError>(())
    })?;
    let commit_s = run_commits(commits)?;
    for entry in std::fs::read_dir(&job.artifact)? {
        let path = entry?.path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(REPEAT_PREFIX))
        {
            std::fs::remove_dir_all(&path)?;
        }
    }
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    drop(batches);

    let mut answer = Answer::ok().with_measurement(&measured);
    answer.phases.insert(
        0,
        Phase {
            name: "load".into(),
            seconds: load_s,
        },
    );
    if let Some(seconds) = commit_s {
        answer.phases.push(Phase {
            name: "commit".into(),
            seconds,
        });
    }
    answer.rows = Some(rows as u64);
    answer.columns = Some(schema.fields().len() as u64);
    answer.size_bytes = Some(dir_size(&job.artifact)?);
    answer.digest = Some(files_digest(&job.artifact)?);
    if let Some(out) = &job.verify_out {
        // What the write produced is verified by reading it back with the same backend.
        let (loaded, _) = backend.read(&ctx, &job.artifact, Request::All)?;
        write_verify_output(out, &schema, loaded, form.map(|_| source_schema.as_ref()))?;
    }
    answer.settings = backend.settings(&ctx, &job.artifact);
    answer
        .settings
        .insert("transparent_huge_pages".into(), huge_pages.into());
    Ok(answer)
}

/// The array form of the job's layout; `None` for the wide layout.
fn array_form(job: &Job, backend: &dyn crate::Backend) -> Result<Option<ArrayForm>, WorkerError> {
    if job.layout == layout::WIDE {
        return Ok(None);
    }
    backend.array_form().map(Some).ok_or_else(|| {
        WorkerError::Unsupported(format!("{} has no '{}' layout", job.backend, job.layout))
    })
}

fn read(job: &Job, backend: &dyn crate::Backend) -> Result<Answer, WorkerError> {
    let source_schema = source::schema(&job.source)?;
    let form = array_form(job, backend)?;
    let schema = match form {
        Some(form) => layout::array_schema(form, &source_schema)?,
        None => source_schema.clone(),
    };
    if job.op.is_matrix() {
        let plan = MatrixPlan::new(job.op, form, &source_schema, &job.params)?;
        return matrix_read(job, backend, &schema, &plan);
    }
    let ctx = context(job, &schema);
    let params = &job.params;
    let missing = |what: &str| WorkerError::Invalid(format!("'{}' needs {what}", job.op));
    if job.op.is_mutation() {
        return crate::store_ops::change(job, backend, &ctx);
    }
    let labels = crate::store_ops::label_read(job)?;
    let request = match job.op {
        _ if labels.is_some() => Request::All,
        Op::Read | Op::Scan => Request::All,
        Op::Project => Request::Columns(
            params
                .columns
                .as_deref()
                .ok_or_else(|| missing("columns"))?,
        ),
        Op::Range => Request::Range(params.range.as_ref().ok_or_else(|| missing("a range"))?),
        Op::Take => Request::Take(params.rows.as_deref().ok_or_else(|| missing("rows"))?, None),
        _ => {
            return Err(WorkerError::Invalid(format!(
                "'{}' is not a table read",
                job.op
            )))
        }
    };
    let scan = job.op == Op::Scan;
    // The proof of the cache state, taken just before the clock starts.
    let resident = resident_fraction(&files_under(&job.artifact));
    let ((loaded, method, fold), measured) = measure_repeated(job.calls(), || {
        let (loaded, method) = match &labels {
            Some(read) => backend.read_labels(&ctx, &job.artifact, read.borrowed())?,
            None => backend.read(&ctx, &job.artifact, request)?,
        };
        let fold = scan.then(|| fold(&loaded));
        Ok::<_, WorkerError>((loaded, method, fold))
    })?;

    let mut answer = Answer::ok().with_measurement(&measured);
    answer.resident_fraction = resident;
    let batches = to_batches(loaded)?;
    answer.result_bytes = Some(
        batches
            .iter()
            .map(|b| b.get_array_memory_size() as u64)
            .sum(),
    );
    let result_schema = match (batches.first(), request) {
        (Some(batch), _) => batch.schema(),
        // An empty result still has the requested columns.
        (None, Request::Columns(names)) => {
            let indices = crate::backends::column_indices(&schema, names)?;
            Arc::new(schema.project(&indices)?)
        }
        (None, _) => schema.clone(),
    };
    answer.rows = Some(batches.iter().map(|b| b.num_rows() as u64).sum());
    answer.columns = Some(result_schema.fields().len() as u64);
    answer.digest = Some(digest::digest_batches(&result_schema, &batches)?);
    answer.settings = backend.settings(&ctx, &job.artifact);
    answer.settings.insert("method".into(), method.into());
    if let Some(fold) = fold {
        answer
            .settings
            .insert("scan_fold".into(), format!("{fold:016x}"));
    }
    if let Some(out) = &job.verify_out {
        match form {
            Some(_) => write_verify_output(
                out,
                &result_schema,
                Loaded::Table(batches),
                Some(&source_schema),
            )?,
            None => crate::source::write_ipc(out, &result_schema, &batches)?,
        }
    }
    Ok(answer)
}

/// A matrix operation: planned before the timer, run inside it, its result converted to a
/// table (for the digest and verification) after.
fn matrix_read(
    job: &Job,
    backend: &dyn crate::Backend,
    schema: &SchemaRef,
    plan: &MatrixPlan,
) -> Result<Answer, WorkerError> {
    let ctx = context(job, schema);
    let resident = resident_fraction(&files_under(&job.artifact));
    let ((result, method), measured) =
        measure_repeated(job.calls(), || plan.run(backend, &ctx, &job.artifact))?;
    let mut answer = Answer::ok().with_measurement(&measured);
    answer.resident_fraction = resident;
    let batches = match result {
        MatrixResult::Matrix(matrix, names) => vec![matrix.to_batch(&names)?],
        MatrixResult::Table(batches) => batches,
    };
    let Some(result_schema) = batches.first().map(|b| b.schema()) else {
        return Err(WorkerError::Invalid(
            "the matrix operation returned nothing".into(),
        ));
    };
    answer.result_bytes = Some(
        batches
            .iter()
            .map(|b| b.get_array_memory_size() as u64)
            .sum(),
    );
    answer.rows = Some(batches.iter().map(|b| b.num_rows() as u64).sum());
    answer.columns = Some(result_schema.fields().len() as u64);
    answer.digest = Some(digest::digest_batches(&result_schema, &batches)?);
    answer.settings = backend.settings(&ctx, &job.artifact);
    answer.settings.insert("method".into(), method);
    if let Some(out) = &job.verify_out {
        crate::source::write_ipc(out, &result_schema, &batches)?;
    }
    Ok(answer)
}

fn fold(loaded: &Loaded) -> u64 {
    match loaded {
        Loaded::Table(batches) => digest::fold_batches(batches),
        Loaded::Matrix(m) => match &m.data {
            crate::MatrixData::F32(v) => v
                .iter()
                .fold(0u64, |acc, x| acc.wrapping_add(u64::from(x.to_bits()))),
            crate::MatrixData::F64(v) => {
                v.iter().fold(0u64, |acc, x| acc.wrapping_add(x.to_bits()))
            }
        },
    }
}

fn to_batches(loaded: Loaded) -> Result<Vec<RecordBatch>, WorkerError> {
    match loaded {
        Loaded::Table(batches) => Ok(batches),
        Loaded::Matrix(matrix) => Ok(vec![crate::backends::matrix_to_batch(&matrix)?]),
    }
}

/// Writes a result for verification; a read of the array layout is first put back in the
/// source's wide shape (`source`), outside the timer.
fn write_verify_output(
    out: &Path,
    schema: &SchemaRef,
    loaded: Loaded,
    source: Option<&arrow::datatypes::Schema>,
) -> Result<(), WorkerError> {
    let mut batches = to_batches(loaded)?;
    if let Some(source) = source {
        batches = batches
            .iter()
            .map(|b| layout::to_wide(b, source))
            .collect::<Result<_, _>>()?;
    }
    let schema = batches
        .first()
        .map_or_else(|| schema.clone(), |b| b.schema());
    source::write_ipc(out, &schema, &batches)
}

fn files(dir: &Path) -> Result<Vec<std::path::PathBuf>, WorkerError> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Bytes on disk of everything a backend wrote (sidecars included).
pub fn dir_size(dir: &Path) -> Result<u64, WorkerError> {
    let mut total = 0;
    for path in files(dir)? {
        total += std::fs::metadata(&path)?.len();
    }
    Ok(total)
}

/// A digest of the written bytes: equal for every sample of a deterministic writer.
fn files_digest(dir: &Path) -> Result<String, WorkerError> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for path in files(dir)? {
        let relative = path.strip_prefix(dir).unwrap_or(&path);
        hasher.update(relative.to_string_lossy().as_bytes());
        let bytes = std::fs::read(&path)?;
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(format!("files-xxh3:{:016x}", hasher.digest()))
}
