//! The operations on feature matrices (`matrix`, `random_rows`, `feature_project`, `mixed`,
//! `vector_norm`), done through each backend's own access paths: a wide layout names the
//! feature columns it needs; an array layout reads its one field; the floor reads its matrix.

use crate::backend::{Backend, BackendError, Context, Loaded, MatrixData, Request};
use crate::layout::ArrayForm;
use crate::names::FEATURES;
use crate::KitError;
use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field, Schema};
use formatbench_protocol::{Op, OpParams};
use std::path::Path;
use std::sync::Arc;

pub use crate::float_matrix::{interleave, FloatMatrix};

/// The column `vector_norm` returns.
pub const NORM_COLUMN: &str = "l2_norm";

/// What a matrix operation returns.
#[derive(Debug, Clone)]
pub enum MatrixResult {
    /// A matrix whose columns are the named features.
    Matrix(FloatMatrix, Vec<String>),
    /// A table (`mixed`: metadata plus features; `vector_norm`: the norms).
    Table(Vec<RecordBatch>),
}

/// How one matrix operation will run: what to ask the backend, decided before the timer.
pub struct MatrixPlan {
    op: Op,
    form: Option<ArrayForm>,
    /// Every feature of the source, in stored order.
    features: Vec<String>,
    /// The features the operation returns (all, or the picked few).
    wanted: Vec<String>,
    /// Their positions among `features`.
    wanted_at: Vec<usize>,
    /// The columns a wide read names, or the metadata an array read keeps (`mixed`).
    columns: Vec<String>,
    rows: Vec<u64>,
}

impl MatrixPlan {
    /// `form` is `None` for the wide layout. `source` is the source's (wide) schema.
    pub fn new(
        op: Op,
        form: Option<ArrayForm>,
        source: &Schema,
        params: &OpParams,
    ) -> Result<Self, KitError> {
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
        // By name through a map: a wide table asks for thousands of features.
        let mut position = std::collections::HashMap::with_capacity(features.len());
        for (i, f) in features.iter().enumerate() {
            position.entry(f.as_str()).or_insert(i);
        }
        let wanted: Vec<String> = requested
            .iter()
            .filter(|n| position.contains_key(n.as_str()))
            .cloned()
            .collect();
        let wanted_at = wanted
            .iter()
            .filter_map(|n| position.get(n.as_str()).copied())
            .collect();
        let metadata: Vec<String> = requested
            .iter()
            .filter(|n| !position.contains_key(n.as_str()))
            .cloned()
            .collect();
        if metadata.iter().any(|m| source.index_of(m).is_err()) {
            return Err(KitError::Invalid(format!(
                "'{op}' names a column the table lacks: {}",
                metadata.join(", ")
            )));
        }
        let rows = match op {
            Op::RandomRows | Op::Mixed => params.rows.clone().ok_or_else(|| missing("rows"))?,
            _ => Vec::new(),
        };
        if op == Op::Mixed && form == Some(ArrayForm::Bare) {
            return Err(KitError::Unsupported(
                "the bare matrix keeps no metadata columns for 'mixed'".into(),
            ));
        }
        let columns = match (form, op) {
            (None, _) => requested,
            (Some(_), _) => metadata,
        };
        Ok(MatrixPlan {
            op,
            form,
            features,
            wanted,
            wanted_at,
            columns,
            rows,
        })
    }

    /// Runs the operation on what `backend` wrote in `dir`; this is what the timer covers.
    pub fn run<E: BackendError>(
        &self,
        backend: &dyn Backend<Error = E>,
        ctx: &Context,
        dir: &Path,
    ) -> Result<(MatrixResult, String), E> {
        let features_only = [FEATURES.to_string()];
        let mut with_features = self.columns.clone();
        with_features.push(FEATURES.to_string());
        let request = match (self.op, self.form) {
            (Op::RandomRows, None) => Request::Take(&self.rows, Some(&self.features)),
            (Op::RandomRows, Some(ArrayForm::Bare)) => Request::Take(&self.rows, None),
            (Op::RandomRows, Some(_)) => Request::Take(&self.rows, Some(&features_only)),
            (Op::Mixed, None) => Request::Take(&self.rows, Some(&self.columns)),
            (Op::Mixed, Some(_)) => Request::Take(&self.rows, Some(&with_features)),
            (Op::FeatureProject, None | Some(ArrayForm::Bare)) => Request::Columns(&self.wanted),
            (_, None) => Request::Columns(&self.features),
            (_, Some(ArrayForm::Bare)) => Request::All,
            (_, Some(_)) => Request::Columns(&features_only),
        };
        let (loaded, how) = backend.read(ctx, dir, request)?;
        let method = match (self.op, self.form) {
            (_, None) => "feature columns named in the read",
            (Op::FeatureProject, Some(ArrayForm::Bare)) => "matrix read, columns gathered",
            (Op::FeatureProject | Op::Mixed, Some(_)) => {
                "array field read, picked features gathered"
            }
            (_, Some(_)) => "array field read as the matrix",
        };
        let method = format!("{method}; {how}");
        if self.op == Op::Mixed {
            return Ok((MatrixResult::Table(self.mixed(loaded)?), method));
        }
        let matrix = self.matrix(loaded)?;
        let picked = self.form.is_some() && self.op == Op::FeatureProject;
        let matrix = match (picked, self.form) {
            (true, Some(ArrayForm::FixedList | ArrayForm::PackedText)) => {
                matrix.select(&self.wanted_at)
            }
            _ => matrix,
        };
        if self.op == Op::VectorNorm {
            let norms = matrix.norms();
            let schema = Arc::new(Schema::new(vec![Field::new(
                NORM_COLUMN,
                DataType::Float32,
                false,
            )]));
            let batch = RecordBatch::try_new(schema, vec![Arc::new(norms)])?;
            return Ok((MatrixResult::Table(vec![batch]), method));
        }
        Ok((MatrixResult::Matrix(matrix, self.wanted.clone()), method))
    }

    fn matrix(&self, loaded: Loaded) -> Result<FloatMatrix, KitError> {
        let width = match (self.op, self.form) {
            (Op::FeatureProject, None | Some(ArrayForm::Bare)) => self.wanted.len(),
            _ => self.features.len(),
        };
        match loaded {
            Loaded::Matrix(m) => match m.data {
                MatrixData::F32(values) => Ok(FloatMatrix {
                    rows: m.rows,
                    cols: m.names.len(),
                    values: values.into(),
                }),
                MatrixData::F64(_) => Err(KitError::Invalid(
                    "the matrix is float64, not float32".into(),
                )),
            },
            Loaded::Table(batches) if self.form.is_none() => {
                let names = match self.op {
                    Op::FeatureProject => &self.wanted,
                    _ => &self.features,
                };
                FloatMatrix::from_wide(&batches, names)
            }
            Loaded::Table(batches) => {
                let parts = batches
                    .iter()
                    .map(|b| {
                        let column = b.column_by_name(FEATURES).ok_or_else(|| {
                            KitError::Invalid(format!("the read has no '{FEATURES}' column"))
                        })?;
                        FloatMatrix::from_array_column(column, width)
                    })
                    .collect::<Result<Vec<_>, KitError>>()?;
                Ok(FloatMatrix::concat(parts, width))
            }
        }
    }

    /// `mixed`: the metadata as read, then the picked features as float32 columns.
    fn mixed(&self, loaded: Loaded) -> Result<Vec<RecordBatch>, KitError> {
        let Loaded::Table(batches) = loaded else {
            return Err(KitError::Invalid("'mixed' reads a table".into()));
        };
        if self.form.is_none() {
            return Ok(batches);
        }
        batches
            .iter()
            .map(|b| {
                let column = b.column_by_name(FEATURES).ok_or_else(|| {
                    KitError::Invalid(format!("the read has no '{FEATURES}' column"))
                })?;
                let picked = FloatMatrix::from_array_column(column, self.features.len())?
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
