//! `selftest-variant`: a backend that answers every operation right, in another representation
//! of the same values, chosen by its profile (issue 42's companion to the mutation suite;
//! docs/protocol.md, "Equal-value variants"). It computes the correct result from the
//! canonical source with `selftest-mutant`'s code, re-encodes it (at every depth: inside lists,
//! structs and dictionaries too), times that, and writes it wherever the job asks for it. The
//! verifier must pass every one of them, and note each type it changes in the verification
//! record's `representation`: a verifier that compares representations instead of values
//! fails here where the mutation suite cannot tell.

mod dictionary;
mod encode;
mod garbage;
mod kind;
mod nested;
#[cfg(test)]
mod tests;

use crate::mutant::correct::Source;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use formatbench_protocol::{measure_repeated, Answer, Job, Op};
use formatbench_worker_arrow::{source, WorkerError};

pub use kind::{changes_types, parse, Variant, PROFILES, VARIANTS};

/// The backend's name.
pub const BACKEND: &str = "selftest-variant";

/// Every profile: one representation each.
pub fn profiles() -> &'static [&'static str] {
    &PROFILES
}

/// The table operations: the variants are representations of table columns.
pub fn ops() -> Vec<Op> {
    formatbench_protocol::ALL_OPS.to_vec()
}

pub fn run(job: &Job) -> Answer {
    try_run(job).unwrap_or_else(WorkerError::into_answer)
}

fn try_run(job: &Job) -> Result<Answer, WorkerError> {
    let variant = parse(&job.profile).map_err(WorkerError::Invalid)?;
    // Every read takes the source itself: there is no artifact to prepare.
    if job.prepare {
        return Ok(Answer::ok());
    }
    if job.layout != "wide" || job.target != "arrow" || job.storage.is_some() {
        return Err(WorkerError::Unsupported(crate::local_only(BACKEND)));
    }
    let source = Source::read(&job.source)?;
    let written = (job.op == Op::Write).then(|| job.artifact.join("data.arrow"));
    if written.is_some() {
        let _ = std::fs::remove_dir_all(&job.artifact);
        std::fs::create_dir_all(&job.artifact)?;
    }
    let (batches, measured) = measure_repeated(job.calls(), || {
        let right = source.result(job, job.op, &job.params)?;
        let batches = represented(&right, variant)?;
        if let Some(path) = &written {
            source::write_ipc(path, &schema_of(&batches)?, &batches)?;
        }
        Ok::<_, WorkerError>(batches)
    })?;
    let schema = schema_of(&batches)?;
    // No digest is reported: the runner digests the file itself, and ignores a worker's word.
    if let Some(out) = &job.verify_out {
        source::write_ipc(out, &schema, &batches)?;
    }
    let mut answer = Answer::ok().with_measurement(&measured);
    answer.rows = Some(batches.iter().map(|b| b.num_rows() as u64).sum());
    answer.columns = Some(schema.fields().len() as u64);
    if let Some(path) = &written {
        answer.size_bytes = Some(std::fs::metadata(path)?.len());
    }
    answer
        .settings
        .insert("variant".into(), job.profile.clone());
    answer.settings.insert(
        "method".into(),
        format!("the source in memory; variant: {}", job.profile),
    );
    Ok(answer)
}

/// The schema the batches share: `represented` always returns at least one batch.
fn schema_of(batches: &[RecordBatch]) -> Result<SchemaRef, WorkerError> {
    batches
        .first()
        .map(|b| b.schema())
        .ok_or_else(|| WorkerError::Invalid(format!("{BACKEND} made no batch")))
}

/// The right answer in the representation `variant` names, as the batches it is returned in.
pub fn represented(right: &RecordBatch, variant: Variant) -> Result<Vec<RecordBatch>, WorkerError> {
    Ok(match variant {
        Variant::OneRowBatches => {
            // An empty result is still one (empty) batch, so that its schema travels.
            let rows = right.num_rows();
            if rows == 0 {
                vec![right.clone()]
            } else {
                (0..rows).map(|r| right.slice(r, 1)).collect()
            }
        }
        Variant::GarbageUnderNulls => {
            vec![nested::map_columns(right, |_, column| {
                garbage::column(column)
            })?]
        }
        _ => vec![encode::encoded(right, variant)?],
    })
}
