//! `selftest-mutant`: a backend that answers every operation wrongly in one chosen way, chosen
//! by its profile (issue 42's mutation suite; docs/protocol.md, "Mutation suite"). It computes
//! the operation's correct result from the canonical source, changes it as its mutation says,
//! times that, and writes the changed result wherever the job asks for it. The verifier must
//! fail every one of them; `honest` answers right, the control that must pass.
//!
//! A profile's mutation applies in every job (the verification run included), or with the
//! `later-` prefix in every job but the cell's verification run (`job.verification`): those
//! pass verification and must be caught in the measured samples, by whatever checks them.
//! `right-digest-wrong-file` is such a later mutation that also reports the digest of the right
//! answer: only a runner that checks the file rather than the worker's word catches it.

/// The correct answers, which `selftest-variant` re-encodes too.
pub(crate) mod correct;
mod kind;
mod reshape;
#[cfg(test)]
mod tests;
mod values;

use correct::Source;
use formatbench_protocol::{measure_repeated, Answer, Job, Op, OpParams, RangeSpec};
use formatbench_worker_arrow::{digest, source, WorkerError};
use kind::{Mutation, When};
use std::sync::LazyLock;

pub use kind::{HONEST, LATER, MUTATIONS};

/// The backend's name.
pub const BACKEND: &str = "selftest-mutant";

/// Every profile, built once: the catalog takes profiles as `&'static str`, and these names are
/// made from the mutation table (a `later-` form of each), so they are leaked for the process.
static PROFILES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    kind::profile_names()
        .into_iter()
        .map(|name| &*Box::leak(name.into_boxed_str()))
        .collect()
});

/// The control, each mutation, then each mutation's `later-` form.
pub fn profiles() -> &'static [&'static str] {
    PROFILES.as_slice()
}

/// The table operations and the matrix operations: every operation a mutation has a wrong
/// answer for.
pub fn ops() -> Vec<Op> {
    let mut ops = formatbench_protocol::ALL_OPS.to_vec();
    ops.extend(formatbench_protocol::MATRIX_OPS);
    ops
}

pub fn run(job: &Job) -> Answer {
    try_run(job).unwrap_or_else(WorkerError::into_answer)
}

fn try_run(job: &Job) -> Result<Answer, WorkerError> {
    let profile = kind::parse(&job.profile).map_err(WorkerError::Invalid)?;
    // Every read takes the source itself: there is no artifact to prepare.
    if job.prepare {
        return Ok(Answer::ok());
    }
    if job.layout != "wide" || job.target != "arrow" || job.storage.is_some() {
        return Err(WorkerError::Unsupported(crate::local_only(BACKEND)));
    }
    let source = Source::read(&job.source)?;
    // A later mutation answers the cell's verification run right: the runner marks it.
    let mutation = match profile {
        Some((mutation, When::Always)) => Some(mutation),
        Some((mutation, When::Later)) if !job.verification => Some(mutation),
        _ => None,
    };
    let written = (job.op == Op::Write).then(|| job.artifact.join("data.arrow"));
    if written.is_some() {
        let _ = std::fs::remove_dir_all(&job.artifact);
        std::fs::create_dir_all(&job.artifact)?;
    }
    let (result, measured) = measure_repeated(job.calls(), || {
        let batch = answer(job, &source, mutation)?;
        if let Some(path) = &written {
            source::write_ipc(path, &batch.schema(), std::slice::from_ref(&batch))?;
        }
        Ok::<_, WorkerError>(batch)
    })?;
    // The lie this mutation tells: the digest of the right answer (the one its verification
    // run gave) beside a wrong file. The runner ignores reported digests; this one checks that
    // it does.
    let reported = match mutation {
        Some(Mutation::RightDigestWrongFile) => {
            let right = source.result(job, job.op, &job.params)?;
            digest::digest_batches(&right.schema(), std::slice::from_ref(&right))?
        }
        _ => digest::digest_batches(&result.schema(), std::slice::from_ref(&result))?,
    };
    if let Some(out) = &job.verify_out {
        source::write_ipc(out, &result.schema(), std::slice::from_ref(&result))?;
    }
    let mut answer = Answer::ok().with_measurement(&measured);
    answer.rows = Some(result.num_rows() as u64);
    answer.columns = Some(result.num_columns() as u64);
    answer.digest = Some(reported);
    if let Some(path) = &written {
        answer.size_bytes = Some(std::fs::metadata(path)?.len());
    }
    let applied = mutation.map_or("none", name);
    answer.settings.insert("mutation".into(), applied.into());
    answer.settings.insert(
        "method".into(),
        format!("the source in memory; mutation: {applied}"),
    );
    Ok(answer)
}

fn name(mutation: Mutation) -> &'static str {
    MUTATIONS
        .iter()
        .find(|(_, m)| *m == mutation)
        .map_or("?", |(n, _)| n)
}

/// The operation's result from the source, changed by `mutation` when there is one.
fn answer(
    job: &Job,
    source: &Source,
    mutation: Option<Mutation>,
) -> Result<arrow::array::RecordBatch, WorkerError> {
    let right = source.result(job, job.op, &job.params)?;
    let Some(mutation) = mutation else {
        return Ok(right);
    };
    mutated(job, source, mutation, right)?.ok_or_else(|| {
        WorkerError::Unsupported(format!(
            "{BACKEND}: '{}' finds nothing to change in the result of '{}' here",
            name(mutation),
            job.op
        ))
    })
}

/// `right` changed by `mutation`; `None` when this result holds nothing it changes (no null to
/// fill, an operation it does not concern), so that it never answers right by accident.
fn mutated(
    job: &Job,
    source: &Source,
    mutation: Mutation,
    right: arrow::array::RecordBatch,
) -> Result<Option<arrow::array::RecordBatch>, WorkerError> {
    use Mutation as M;
    let first = values::first_column;
    let matrix = job.op.is_matrix();
    Ok(match mutation {
        M::RowMissing | M::RightDigestWrongFile => reshape::row_missing(&right)?,
        M::RowDuplicated => reshape::row_duplicated(&right)?,
        M::RowsSwapped => reshape::rows_swapped(&right)?,
        M::FloatUlp => first(&right, values::float_ulp)?,
        M::NullToZero => first(&right, values::null_to_zero)?,
        M::NullToEmptyString => first(&right, values::null_to_empty_string)?,
        M::EmptyStringToNull => first(&right, values::empty_string_to_null)?,
        M::TimestampHour => first(&right, values::timestamp_hour)?,
        M::TimezoneDropped => first(&right, values::timezone_dropped)?,
        M::DateWithinDay => first(&right, values::date_within_day)?,
        M::ColumnRenamed => reshape::column_renamed(&right)?,
        M::ColumnsReordered => reshape::columns_reordered(&right)?,
        M::TypeWidened => reshape::type_widened(&right)?,
        M::DictionaryWrongKey => first(&right, values::dictionary_wrong_key)?,
        M::ListNullToEmpty => first(&right, values::list_null_to_empty)?,
        M::StructFieldsSwapped => first(&right, values::struct_fields_swapped)?,
        M::NegativeZero => first(&right, values::negative_zero)?,
        M::NanPayload => first(&right, values::nan_payload)?,
        M::MatrixTransposed if matrix => reshape::matrix_transposed(&right)?,
        M::MatrixFeatureShifted if matrix => reshape::matrix_feature_shifted(&right)?,
        M::MatrixTransposed | M::MatrixFeatureShifted => None,
        M::TakeSorted | M::RangeInclusive | M::ProjectionExtraColumn => {
            // The right answer to a slightly different question.
            let Some(params) = wrong_request(job, source, mutation) else {
                return Ok(None);
            };
            let wrong = source.result(job, job.op, &params)?;
            differs(&wrong, &right).then_some(wrong)
        }
    })
}

/// Whether two results differ in their columns or any value.
fn differs(a: &arrow::array::RecordBatch, b: &arrow::array::RecordBatch) -> bool {
    a.schema() != b.schema()
        || a.num_rows() != b.num_rows()
        || a.columns()
            .iter()
            .zip(b.columns())
            .any(|(x, y)| x.to_data() != y.to_data())
}

/// The request a mutation answers instead of the job's: rows in sorted order (`take`), the
/// range's upper bound included (`range`), one column more than asked (`project`,
/// `feature_project`); `None` when the operation is another one or nothing would differ.
fn wrong_request(job: &Job, source: &Source, mutation: Mutation) -> Option<OpParams> {
    let mut params = job.params.clone();
    match (mutation, job.op) {
        (Mutation::TakeSorted, Op::Take) => {
            let rows = params.rows.as_mut()?;
            let asked = rows.clone();
            rows.sort_unstable();
            (*rows != asked).then_some(params)
        }
        (Mutation::RangeInclusive, Op::Range) => {
            params.range = Some(match params.range? {
                RangeSpec::Index { column, start, end } => RangeSpec::Index {
                    column,
                    start,
                    end: end.checked_add(1)?,
                },
                RangeSpec::Position { start, end } => RangeSpec::Position {
                    start,
                    end: end.checked_add(1)?,
                },
            });
            Some(params)
        }
        (Mutation::ProjectionExtraColumn, Op::Project | Op::FeatureProject) => {
            let asked = params.columns.clone()?;
            // A feature projection keeps only features: its extra column must be one.
            let features_only = job.op == Op::FeatureProject;
            let schema = source.schema();
            let extra = schema.fields().iter().find(|f| {
                !asked.contains(f.name())
                    && (!features_only || f.data_type() == &arrow::datatypes::DataType::Float32)
            })?;
            // In stored order, as a projection returns its columns.
            let columns = schema
                .fields()
                .iter()
                .map(|f| f.name())
                .filter(|n| asked.contains(n) || *n == extra.name())
                .cloned()
                .collect();
            params.columns = Some(columns);
            Some(params)
        }
        _ => None,
    }
}
