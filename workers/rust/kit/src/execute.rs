//! The job runner: checks a job against its backend, then runs the untimed preparation, the
//! timed operation, and the untimed result output the runner checks. A worker supplies its
//! backends; this runs the job.

mod change;
mod labels;
mod output;
mod read;
mod write;

use crate::backend::{Backend, BackendError, Context, Uploader};
use crate::KitError;
use arrow::datatypes::SchemaRef;
use formatbench_protocol::{Answer, Job, Op};

pub use output::{dir_size, matrix_to_batch};

/// The backends of one worker, all with its error type.
pub type Backends<'a, E> = &'a [&'a dyn Backend<Error = E>];

pub fn execute<E: BackendError>(job: &Job, backends: Backends<E>) -> Answer {
    execute_with(job, backends, None)
}

/// Runs a job; `uploader` puts what writes write into object storage (`job.storage`).
pub fn execute_with<E: BackendError>(
    job: &Job,
    backends: Backends<E>,
    uploader: Option<&dyn Uploader>,
) -> Answer {
    match try_execute(job, backends, uploader) {
        Ok(answer) => answer,
        Err(e) => match e.unsupported() {
            Some(reason) => Answer::unsupported(reason.to_string()),
            None => Answer::failed(e.to_string()),
        },
    }
}

fn try_execute<E: BackendError>(
    job: &Job,
    backends: Backends<E>,
    uploader: Option<&dyn Uploader>,
) -> Result<Answer, E> {
    let backend = backends
        .iter()
        .copied()
        .find(|b| b.name() == job.backend)
        .ok_or_else(|| KitError::Invalid(format!("unknown backend '{}'", job.backend)))?;
    backend.available().map_err(KitError::Unsupported)?;
    let as_given = job.profile == formatbench_protocol::AS_GIVEN && backend.given_file().is_some();
    if as_given && job.op == Op::Write {
        return Err(KitError::Unsupported(format!(
            "{} does not write the as-given file: it is the user's, read as it is",
            job.backend
        ))
        .into());
    }
    if !as_given && !backend.profiles().contains(&job.profile.as_str()) {
        return Err(KitError::Invalid(format!(
            "backend '{}' has no profile '{}'",
            job.backend, job.profile
        ))
        .into());
    }
    let layouts = backend.layouts();
    let Some((_, ops)) = layouts.iter().find(|(name, _)| *name == job.layout) else {
        return Err(KitError::Unsupported(format!(
            "layout '{}' is not implemented by {}",
            job.layout, job.backend
        ))
        .into());
    };
    let preparing = job.prepare && job.op == Op::Write;
    if !preparing && !ops.contains(&job.op) {
        return Err(KitError::Unsupported(format!(
            "{} does not do '{}' natively on the {} layout",
            job.backend, job.op, job.layout
        ))
        .into());
    }
    if job.target != "arrow" {
        return Err(KitError::Unsupported(format!(
            "{} reads into Arrow only, not '{}'",
            job.backend, job.target
        ))
        .into());
    }
    if job.storage.is_some() {
        backend.object_storage().map_err(KitError::Unsupported)?;
        let refusal = match job.op {
            op if op.is_mutation() => Some("changes stored tables on local files only"),
            Op::Write if uploader.is_none() => Some("cannot upload to object storage here"),
            _ => None,
        };
        if let Some(refusal) = refusal {
            return Err(KitError::Unsupported(format!("{} {refusal}", job.backend)).into());
        }
    }
    let mut answer = match job.op {
        Op::Write => write::write(job, backend, uploader)?,
        op if op.is_mutation() => change::change(job, backend)?,
        op if op.is_matrix() => read::matrix(job, backend)?,
        _ => read::read(job, backend)?,
    };
    answer
        .settings
        .insert("threads".into(), job.threads.to_string());
    Ok(answer)
}

/// The settings of a job's backend calls, on the stored table's `schema`.
fn context<'a>(job: &'a Job, schema: &'a SchemaRef) -> Context<'a> {
    Context {
        profile: &job.profile,
        profile_settings: &job.profile_settings,
        layout: &job.layout,
        schema,
        threads: job.threads.max(1) as usize,
        index: job.params.options.get("index").map(String::as_str),
        split: job.params.files,
        remote: job.storage.as_ref(),
        row_group_rows: formatbench_protocol::rewrite::row_group_rows(&job.params),
    }
}

/// The stored table's schema: the source's, or its array layout's in the backend's form.
fn stored_schema<E: BackendError>(
    job: &Job,
    backend: &dyn Backend<Error = E>,
    source: &SchemaRef,
) -> Result<(Option<crate::layout::ArrayForm>, SchemaRef), E> {
    match array_form(job, backend)? {
        Some(form) => Ok((Some(form), crate::layout::array_schema_as(form, source)?)),
        None => Ok((None, source.clone())),
    }
}

/// The array form of the job's layout; `None` for the wide layout.
fn array_form<E: BackendError>(
    job: &Job,
    backend: &dyn Backend<Error = E>,
) -> Result<Option<crate::layout::ArrayForm>, E> {
    if job.layout == crate::layout::WIDE {
        return Ok(None);
    }
    backend.array_form().map(Some).ok_or_else(|| {
        KitError::Unsupported(format!("{} has no '{}' layout", job.backend, job.layout)).into()
    })
}

/// The proof of the cache state, taken just before the clock starts: the share of the local
/// artifact in the page cache; `None` for an artifact in object storage.
fn resident(job: &Job) -> Option<f64> {
    job.storage
        .is_none()
        .then(|| {
            formatbench_protocol::resident_fraction(&formatbench_protocol::files_under(
                &job.artifact,
            ))
        })
        .flatten()
}

/// Runs staged commits (synced), timing them together: the `commit` phase, or `None` when
/// the backend stages none.
fn run_commits<E>(commits: Vec<crate::Commit<E>>) -> Result<Option<f64>, E> {
    if commits.is_empty() {
        return Ok(None);
    }
    let start = std::time::Instant::now();
    for commit in commits {
        commit(true)?;
    }
    Ok(Some(start.elapsed().as_secs_f64()))
}
