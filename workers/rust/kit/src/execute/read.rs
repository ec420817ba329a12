//! Read-type jobs: a table read (`read`, `scan`, `project`, `range`, `take`, `first_row`,
//! `session`, the label reads) and the matrix operations, each timed alone; the result is written for the runner after the timer.

use super::output::{self, to_batches};
use super::{context, labels, resident, stored_schema};
use crate::backend::{column_indices, Backend, BackendError, Request};
use crate::matrix::{MatrixPlan, MatrixResult};
use crate::{source, KitError};
use arrow::array::RecordBatch;
use formatbench_protocol::{measure_repeated, Answer, Job, Op};
use std::sync::Arc;

pub(super) fn read<E: BackendError>(
    job: &Job,
    backend: &dyn Backend<Error = E>,
) -> Result<Answer, E> {
    let source_schema = source::schema(&job.source)?;
    let (form, schema) = stored_schema(job, backend, &source_schema)?;
    let ctx = context(job, &schema);
    let params = &job.params;
    let missing = |what: &str| KitError::Invalid(format!("'{}' needs {what}", job.op));
    let labels = labels::label_read(job)?;
    let request = match job.op {
        _ if labels.is_some() => Request::All,
        Op::Read | Op::Scan | Op::FirstRow => Request::All,
        Op::Project | Op::Session => Request::Columns(
            params
                .columns
                .as_deref()
                .ok_or_else(|| missing("columns"))?,
        ),
        Op::Range => Request::Range(params.range.as_ref().ok_or_else(|| missing("a range"))?),
        Op::Take => Request::Take(params.rows.as_deref().ok_or_else(|| missing("rows"))?, None),
        other => return Err(KitError::Invalid(format!("'{other}' is not a table read")).into()),
    };
    let scan = job.op == Op::Scan;
    let resident = resident(job);
    let ((loaded, method, fold), measured) = measure_repeated(job.calls(), || {
        let (loaded, method) = match &labels {
            Some(read) => backend.read_labels(&ctx, &job.artifact, read.borrowed())?,
            None if job.op == Op::FirstRow => backend.first_row(&ctx, &job.artifact)?,
            None if job.op == Op::Session => match request {
                Request::Columns(names) => {
                    let queries = formatbench_protocol::session_queries(params);
                    backend.session(&ctx, &job.artifact, names, queries)?
                }
                _ => return Err(missing("columns").into()),
            },
            None => backend.read(&ctx, &job.artifact, request)?,
        };
        // A fold over every byte, inside the timer, so a lazy result cannot look free.
        let fold = scan.then(|| crate::scan::fold_loaded(&loaded));
        Ok::<_, E>((loaded, method, fold))
    })?;

    let batches = in_order(backend, job, to_batches(loaded)?)?;
    let result_schema = match (batches.first(), request) {
        (Some(batch), _) => batch.schema(),
        // An empty result still has the requested columns.
        (None, Request::Columns(names)) => {
            Arc::new(schema.project(&column_indices(&schema, names)?)?)
        }
        (None, _) => schema.clone(),
    };
    let mut answer = Answer::ok().with_measurement(&measured);
    answer.resident_fraction = resident;
    output::describe_result(&mut answer, &result_schema, &batches)?;
    answer.settings = backend.settings(&ctx, &job.artifact);
    answer.settings.insert("method".into(), method.into());
    if let Some(fold) = fold {
        answer
            .settings
            .insert("scan_fold".into(), format!("{fold:016x}"));
    }
    if let Some(out) = &job.verify_out {
        let wide = form.map(|_| source_schema.as_ref());
        output::write_verify_output(out, &result_schema, batches, wide)?;
    }
    Ok(answer)
}

/// A matrix operation: planned before the timer, run inside it, its result converted to a
/// table (for the runner to check) after.
pub(super) fn matrix<E: BackendError>(
    job: &Job,
    backend: &dyn Backend<Error = E>,
) -> Result<Answer, E> {
    let source_schema = source::schema(&job.source)?;
    let (form, schema) = stored_schema(job, backend, &source_schema)?;
    let plan = MatrixPlan::new(job.op, form, &source_schema, &job.params)?;
    let ctx = context(job, &schema);
    let resident = resident(job);
    let ((result, method), measured) =
        measure_repeated(job.calls(), || plan.run(backend, &ctx, &job.artifact))?;
    let batches = match result {
        MatrixResult::Matrix(matrix, names) => vec![matrix.to_batch(&names)?],
        MatrixResult::Table(batches) => in_order(backend, job, batches)?,
    };
    let Some(result_schema) = batches.first().map(|b| b.schema()) else {
        return Err(KitError::Invalid("the matrix operation returned nothing".into()).into());
    };
    let mut answer = Answer::ok().with_measurement(&measured);
    answer.resident_fraction = resident;
    output::describe_result(&mut answer, &result_schema, &batches)?;
    answer.settings = backend.settings(&ctx, &job.artifact);
    answer.settings.insert("method".into(), method);
    if let Some(out) = &job.verify_out {
        source::write_ipc(out, &result_schema, &batches)?;
    }
    Ok(answer)
}

/// A result in the source's row order: an unordered backend's, sorted by the job's `order_by`
/// column (after the timer).
pub(super) fn in_order<E: BackendError>(
    backend: &dyn Backend<Error = E>,
    job: &Job,
    batches: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>, E> {
    match (&job.params.order_by, backend.unordered()) {
        (Some(column), true) => Ok(source::sort_by(batches, column)?),
        _ => Ok(batches),
    }
}
