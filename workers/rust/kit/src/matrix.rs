//! The operations on feature matrices through a backend's own access paths: the wide layout
//! names the feature columns it needs, the array layout reads its one list field.

use crate::execute::{Backend, Context, Request};
use crate::layout::{FEATURES, PACKED_SEPARATOR};
use crate::KitError;
use arrow::array::{Array, ArrayRef, AsArray, Float32Array, RecordBatch, RecordBatchOptions};
use arrow::buffer::ScalarBuffer;
use arrow::datatypes::{DataType, Field, Float32Type, Schema};
use formatbench_protocol::{Op, OpParams};
use std::path::Path;
use std::sync::Arc;

/// The column `vector_norm` returns.
pub const NORM_COLUMN: &str = "l2_norm";

/// An N × D row-major float32 matrix; shares the reader's buffer where it already is one.
#[derive(Debug, Clone)]
pub struct FloatMatrix {
    pub rows: usize,
    pub cols: usize,
    pub values: ScalarBuffer<f32>,
}

impl FloatMatrix {
    /// The values of a `FixedSizeList<float32, width>` column (its child buffer, shared).
    pub fn from_list(column: &ArrayRef, width: usize) -> Result<Self, KitError> {
        Self::from_array_column(column, width)
    }

    /// The values of an array-layout column: a fixed-size list (its child buffer, shared) or
    /// packed text (parsed).
    pub fn from_array_column(column: &ArrayRef, width: usize) -> Result<Self, KitError> {
        match column.data_type() {
            DataType::Utf8 => Self::from_packed_text(column.as_string::<i32>(), width),
            DataType::FixedSizeList(_, size) if *size as usize == width => {
                let list = column.as_fixed_size_list();
                let child = list
                    .values()
                    .as_primitive_opt::<Float32Type>()
                    .ok_or_else(|| KitError::Invalid("the list items are not float32".into()))?;
                let rows = list.len();
                Ok(FloatMatrix {
                    rows,
                    cols: width,
                    values: child.values().slice(list.offset() * width, rows * width),
                })
            }
            other => Err(KitError::Invalid(format!(
                "the '{FEATURES}' column is {other}, not a list of {width} float32"
            ))),
        }
    }

    fn from_packed_text(cells: &arrow::array::StringArray, width: usize) -> Result<Self, KitError> {
        let rows = cells.len();
        let mut values = Vec::with_capacity(rows * width);
        for cell in cells.iter() {
            let before = values.len();
            for text in cell.unwrap_or_default().split(PACKED_SEPARATOR) {
                let value = text.parse::<f32>().map_err(|_| {
                    KitError::Invalid(format!("'{text}' in a packed cell is no float"))
                })?;
                values.push(value);
            }
            if values.len() - before != width {
                return Err(KitError::Invalid(format!(
                    "a packed cell holds {} values, not {width}",
                    values.len() - before
                )));
            }
        }
        Ok(FloatMatrix {
            rows,
            cols: width,
            values: values.into(),
        })
    }

    /// Every row of `parts` (each `cols` wide), one after another; no copy for a single part.
    pub fn concat(mut parts: Vec<FloatMatrix>, cols: usize) -> FloatMatrix {
        if parts.len() == 1 {
            if let Some(only) = parts.pop() {
                return only;
            }
        }
        let rows = parts.iter().map(|p| p.rows).sum();
        let mut values = Vec::with_capacity(rows * cols);
        for part in &parts {
            values.extend_from_slice(&part.values);
        }
        FloatMatrix {
            rows,
            cols,
            values: values.into(),
        }
    }

    /// The named float32 columns of a wide table, interleaved into rows.
    pub fn from_wide(batches: &[RecordBatch], names: &[String]) -> Result<Self, KitError> {
        let cols = names.len();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        let mut values = vec![0f32; rows * cols];
        let mut first_row = 0;
        for batch in batches {
            let columns = names
                .iter()
                .map(|name| {
                    batch
                        .column_by_name(name)
                        .and_then(|c| c.as_primitive_opt::<Float32Type>())
                        .map(|c| c.values().as_ref())
                        .ok_or_else(|| KitError::Invalid(format!("no float32 column '{name}'")))
                })
                .collect::<Result<Vec<&[f32]>, _>>()?;
            let end = (first_row + batch.num_rows()) * cols;
            interleave(&columns, &mut values[first_row * cols..end]);
            first_row += batch.num_rows();
        }
        Ok(FloatMatrix {
            rows,
            cols,
            values: values.into(),
        })
    }

    /// The columns at `picks`, in that order.
    pub fn select(&self, picks: &[usize]) -> FloatMatrix {
        let mut values = Vec::with_capacity(self.rows * picks.len());
        for row in self.values.chunks(self.cols.max(1)) {
            values.extend(picks.iter().map(|&c| row[c]));
        }
        FloatMatrix {
            rows: self.rows,
            cols: picks.len(),
            values: values.into(),
        }
    }

    /// Each row's L2 norm (summed in f64, as the verifier does, so only rounding differs).
    pub fn norms(&self) -> Float32Array {
        self.values
            .chunks(self.cols.max(1))
            .take(self.rows)
            .map(|row| {
                let sum: f64 = row.iter().map(|v| f64::from(*v) * f64::from(*v)).sum();
                sum.sqrt() as f32
            })
            .collect()
    }

    /// The matrix as a wide table of float32 columns named `names`.
    pub fn to_batch(&self, names: &[String]) -> Result<RecordBatch, KitError> {
        let cols = self.cols.max(1);
        let arrays: Vec<ArrayRef> = (0..self.cols)
            .map(|c| {
                Arc::new(Float32Array::from_iter_values(
                    self.values.iter().skip(c).step_by(cols).copied(),
                )) as ArrayRef
            })
            .collect();
        let fields: Vec<Field> = names
            .iter()
            .map(|n| Field::new(n, DataType::Float32, false))
            .collect();
        let options = RecordBatchOptions::new().with_row_count(Some(self.rows));
        Ok(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &options,
        )?)
    }
}

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

/// Rows of at most this many are interleaved at a time: the destination block (64 rows × D
/// floats) stays in cache while every column writes into it, instead of one write per 4·D bytes.
const INTERLEAVE_ROWS: usize = 64;

/// Writes `columns` (each `out.len() / columns.len()` long) into `out` row by row: the
/// column-to-row transpose a wide layout pays for a row-major matrix, done in cache-sized blocks.
pub fn interleave(columns: &[&[f32]], out: &mut [f32]) {
    let cols = columns.len();
    if cols == 0 {
        return;
    }
    let rows = out.len() / cols;
    for start in (0..rows).step_by(INTERLEAVE_ROWS) {
        let end = (start + INTERLEAVE_ROWS).min(rows);
        let block = &mut out[start * cols..end * cols];
        for (j, column) in columns.iter().enumerate() {
            for (r, v) in column[start..end].iter().enumerate() {
                block[r * cols + j] = *v;
            }
        }
    }
}
