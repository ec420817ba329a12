//! The correct result of a job's operation, computed from the canonical source: what an honest
//! backend returns. Rows are selected with the native worker's helpers and the matrix
//! operations run through the kit's plan, so the result has the shape the built-in backends
//! give it (a mutation of anything else would test the wrong thing).

use arrow::array::RecordBatch;
use arrow::compute::concat_batches;
use arrow::datatypes::SchemaRef;
use formatbench_protocol::{Job, Op, OpParams, RangeSpec};
use formatbench_worker_arrow::backends::{column_indices, Backend, Context, Loaded, Request};
use formatbench_worker_arrow::{rows, source, WorkerError};
use formatbench_worker_kit::matrix::{MatrixPlan, MatrixResult};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The canonical source in memory, read through the kit's `Backend` interface so that the
/// kit's matrix plan can ask it what it asks every backend.
pub struct Source {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl Source {
    pub fn read(path: &Path) -> Result<Self, WorkerError> {
        let (schema, batches) = source::read_all(path)?;
        Ok(Source { schema, batches })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn batch(&self, i: usize) -> Result<RecordBatch, WorkerError> {
        self.batches
            .get(i)
            .cloned()
            .ok_or_else(|| WorkerError::Invalid(format!("the source has no batch {i}")))
    }

    /// What `request` selects, in the order the protocol defines.
    fn select(&self, request: Request) -> Result<Vec<RecordBatch>, WorkerError> {
        let block_rows = rows::batch_rows(&self.batches);
        Ok(match request {
            Request::All => self.batches.clone(),
            Request::Columns(names) => {
                let indices = column_indices(&self.schema, names)?;
                self.batches
                    .iter()
                    .map(|b| b.project(&indices))
                    .collect::<Result<_, _>>()?
            }
            Request::Range(RangeSpec::Index { column, start, end }) => self
                .batches
                .iter()
                .map(|b| rows::filter_index_range(b, column, *start, *end))
                .collect::<Result<_, _>>()?,
            Request::Range(RangeSpec::Position { start, end }) => {
                rows::position_range(&block_rows, *start, *end, |i| self.batch(i))?
            }
            Request::Take(positions, columns) => {
                let taken = rows::take_positions(&block_rows, positions, |i| self.batch(i))?;
                let taken: Vec<RecordBatch> = taken.into_iter().collect();
                match columns {
                    Some(names) => {
                        let indices = column_indices(&self.schema, names)?;
                        taken
                            .iter()
                            .map(|b| b.project(&indices))
                            .collect::<Result<_, _>>()?
                    }
                    None => taken,
                }
            }
        })
    }

    /// The result of `op` with `params`, as one batch.
    pub fn result(&self, job: &Job, op: Op, params: &OpParams) -> Result<RecordBatch, WorkerError> {
        let missing = |what: &str| WorkerError::Invalid(format!("'{op}' needs {what}"));
        let request = match op {
            Op::Write | Op::Read | Op::Scan => Request::All,
            Op::Project => Request::Columns(
                params
                    .columns
                    .as_deref()
                    .ok_or_else(|| missing("columns"))?,
            ),
            Op::Range => Request::Range(params.range.as_ref().ok_or_else(|| missing("a range"))?),
            Op::Take => Request::Take(params.rows.as_deref().ok_or_else(|| missing("rows"))?, None),
            op if op.is_matrix() => return self.matrix(job, op, params),
            other => {
                return Err(WorkerError::Unsupported(format!(
                    "selftest-mutant does not do '{other}'"
                )))
            }
        };
        let batches = self.select(request)?;
        let schema = match (batches.first(), request) {
            (Some(b), _) => b.schema(),
            (None, Request::Columns(names)) => {
                Arc::new(self.schema.project(&column_indices(&self.schema, names)?)?)
            }
            (None, _) => self.schema.clone(),
        };
        Ok(concat_batches(&schema, &batches)?)
    }

    /// A matrix operation on the wide layout, through the kit's plan.
    fn matrix(&self, job: &Job, op: Op, params: &OpParams) -> Result<RecordBatch, WorkerError> {
        let plan = MatrixPlan::new(op, None, &self.schema, params)?;
        let ctx = Context {
            profile_settings: &job.profile_settings,
            ..Context::local(&job.profile, &job.layout, &self.schema, 1)
        };
        let (result, _) = plan.run(self, &ctx, &job.artifact)?;
        let batches = match result {
            MatrixResult::Matrix(matrix, names) => vec![matrix.to_batch(&names)?],
            MatrixResult::Table(batches) => batches,
        };
        let schema = batches
            .first()
            .map(|b| b.schema())
            .ok_or_else(|| WorkerError::Invalid("the matrix operation returned nothing".into()))?;
        Ok(concat_batches(&schema, &batches)?)
    }
}

impl Backend for Source {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        "selftest-mutant"
    }
    fn about(&self) -> &'static str {
        "the canonical source, read in memory"
    }
    fn profiles(&self) -> &'static [&'static str] {
        &[]
    }
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }
    fn ops(&self) -> &'static [Op] {
        &[]
    }
    fn write(&self, _: &Context, _: &[RecordBatch], _: &Path) -> Result<(), WorkerError> {
        Err(WorkerError::Unsupported(
            "the source is read, never written".into(),
        ))
    }
    fn read(
        &self,
        _: &Context,
        _: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        Ok((Loaded::Table(self.select(request)?), "the source in memory"))
    }
    fn settings(&self, _: &Context, _: &Path) -> BTreeMap<String, String> {
        BTreeMap::new()
    }
}
