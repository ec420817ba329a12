//! The operations on feature matrices through a backend's own access paths: the wide layout
//! names the feature columns it needs, the array layout reads its one list field.

use crate::backend::{Backend, Context, Request};
pub use crate::float_matrix::{interleave, FloatMatrix};
use crate::names::FEATURES;
use crate::KitError;
use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field, Schema};
use formatbench_protocol::{Op, OpParams};
use std::path::Path;
use std::sync::Arc;

/// The column `vector_norm` returns.
pub const NORM_COLUMN: &str = "l2_norm";

/// What a matrix operation returns.
pub enum MatrixResult {
    Matrix(FloatMatrix, Vec<String>),
    Table(Vec<RecordBatch>),
}

impl MatrixResult {
    /// As a table, for the digest and verification (after the timer).
    pub fn into_batches(self) -> Result<Vec<RecordBatch>, KitError> {
        match self {
            MatrixResult::Matrix(m, names) => Ok(vec![m.to_batch(&names)?]),
            MatrixResult::Table(batches) => Ok(batches),
        }
    }
}

/// One matrix operation, planned before the timer.
pub struct MatrixPlan {
    op: Op,
    array: bool,
    features: Vec<String>,
    wanted: Vec<String>,
    wanted_at: Vec<usize>,
    /// Wide: the columns named; array: the metadata kept beside the list (`mixed`).
    columns: Vec<String>,
    rows: Vec<u64>,
}

impl MatrixPlan {
    pub fn new(op: Op, array: bool, source: &Schema, params: &OpParams) -> Result<Self, KitError> {
        let features = crate::layout::feature_names(source);
        if features.is_empty() {
            return Err(KitError::Unsupported(
                "matrix operations need float32 feature columns; this table has none".into(),
            ));
        }
        let missing = |what: &str| KitError::Invalid(format!("'{op}' needs {what}"));
        let requested = match op {
            Op::FeatureProject | Op::Mixed => {
                params.columns.clone().ok_or_else(|| missing("columns"))?
            }
            _ => features.clone(),
        };
        let wanted: Vec<String> = requested
            .iter()
            .filter(|n| features.contains(n))
            .cloned()
            .collect();
        let wanted_at = wanted
            .iter()
            .filter_map(|n| features.iter().position(|f| f == n))
            .collect();
        let metadata: Vec<String> = requested
            .iter()
            .filter(|n| !features.contains(n))
            .cloned()
            .collect();
        let rows = match op {
            Op::RandomRows | Op::Mixed => params.rows.clone().ok_or_else(|| missing("rows"))?,
            _ => Vec::new(),
        };
        Ok(MatrixPlan {
            op,
            array,
            features,
            wanted,
            wanted_at,
            columns: if array { metadata } else { requested },
            rows,
        })
    }

    /// Runs the operation; this is what the timer covers.
    pub fn run(
        &self,
        backend: &dyn Backend,
        ctx: &Context,
        dir: &Path,
    ) -> Result<(MatrixResult, String), KitError> {
        let list = [FEATURES.to_string()];
        let mut with_list = self.columns.clone();
        with_list.push(FEATURES.to_string());
        let request = match (self.op, self.array) {
            (Op::RandomRows, false) => Request::Take(&self.rows, Some(&self.features)),
            (Op::RandomRows, true) => Request::Take(&self.rows, Some(&list)),
            (Op::Mixed, false) => Request::Take(&self.rows, Some(&self.columns)),
            (Op::Mixed, true) => Request::Take(&self.rows, Some(&with_list)),
            (Op::FeatureProject, false) => Request::Columns(&self.wanted),
            (_, false) => Request::Columns(&self.features),
            (_, true) => Request::Columns(&list),
        };
        let (batches, how) = backend.read(ctx, dir, request)?;
        let method = if self.array {
            format!("array field read; {how}")
        } else {
            format!("feature columns named in the read; {how}")
        };
        if self.op == Op::Mixed {
            return Ok((MatrixResult::Table(self.mixed(batches)?), method));
        }
        let matrix = if self.array {
            let parts = batches
                .iter()
                .map(|b| {
                    let column = b.column_by_name(FEATURES).ok_or_else(|| {
                        KitError::Invalid(format!("the read has no '{FEATURES}' column"))
                    })?;
                    FloatMatrix::from_list(column, self.features.len())
                })
                .collect::<Result<Vec<_>, _>>()?;
            let matrix = FloatMatrix::concat(parts, self.features.len());
            if self.op == Op::FeatureProject {
                matrix.select(&self.wanted_at)
            } else {
                matrix
            }
        } else if self.op == Op::FeatureProject {
            FloatMatrix::from_wide(&batches, &self.wanted)?
        } else {
            FloatMatrix::from_wide(&batches, &self.features)?
        };
        if self.op == Op::VectorNorm {
            let schema = Arc::new(Schema::new(vec![Field::new(
                NORM_COLUMN,
                DataType::Float32,
                false,
            )]));
            let batch = RecordBatch::try_new(schema, vec![Arc::new(matrix.norms())])?;
            return Ok((MatrixResult::Table(vec![batch]), method));
        }
        Ok((MatrixResult::Matrix(matrix, self.wanted.clone()), method))
    }

    fn mixed(&self, batches: Vec<RecordBatch>) -> Result<Vec<RecordBatch>, KitError> {
        if !self.array {
            return Ok(batches);
        }
        batches
            .iter()
            .map(|b| {
                let column = b.column_by_name(FEATURES).ok_or_else(|| {
                    KitError::Invalid(format!("the read has no '{FEATURES}' column"))
                })?;
                let picked = FloatMatrix::from_list(column, self.features.len())?
                    .select(&self.wanted_at)
                    .to_batch(&self.wanted)?;
                let mut fields = Vec::new();
                let mut columns = Vec::new();
                for name in &self.columns {
                    let at = b.schema().index_of(name)?;
                    fields.push(b.schema().field(at).clone());
                    columns.push(b.column(at).clone());
                }
                fields.extend(picked.schema().fields().iter().map(|f| f.as_ref().clone()));
                columns.extend(picked.columns().iter().cloned());
                Ok(RecordBatch::try_new(
                    Arc::new(Schema::new(fields)),
                    columns,
                )?)
            })
            .collect()
    }
}
