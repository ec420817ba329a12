//! What a job reports after its timer: the result's size, the written files' size, and the
//! result itself (a table in the source's shape), which the runner digests and checks.

use crate::backend::{Loaded, Matrix, MatrixData};
use crate::{layout, source, KitError};
use arrow::array::{ArrayRef, Float32Array, Float64Array, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{Field, Schema, SchemaRef};
use formatbench_protocol::Answer;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The result's rows, columns and in-memory bytes.
pub(super) fn describe_result(
    answer: &mut Answer,
    schema: &SchemaRef,
    batches: &[RecordBatch],
) -> Result<(), KitError> {
    // The bytes of the values themselves: arrays decoded from one block share its buffer,
    // whose whole capacity `get_array_memory_size` would count once per array.
    answer.result_bytes = Some(
        batches
            .iter()
            .flat_map(|b| b.columns())
            .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0) as u64)
            .sum(),
    );
    answer.rows = Some(batches.iter().map(|b| b.num_rows() as u64).sum());
    answer.columns = Some(schema.fields().len() as u64);
    Ok(())
}

/// A read's result as Arrow batches (a matrix as one batch of float columns).
pub(super) fn to_batches(loaded: Loaded) -> Result<Vec<RecordBatch>, KitError> {
    match loaded {
        Loaded::Table(batches) => Ok(batches),
        Loaded::Matrix(matrix) => Ok(vec![matrix_to_batch(&matrix)?]),
    }
}

/// A matrix as a table of one float column per named column.
pub fn matrix_to_batch(matrix: &Matrix) -> Result<RecordBatch, KitError> {
    let cols = matrix.names.len();
    let column = |c: usize| -> ArrayRef {
        match &matrix.data {
            MatrixData::F32(v) => Arc::new(Float32Array::from_iter_values(
                v.iter().skip(c).step_by(cols.max(1)).copied(),
            )),
            MatrixData::F64(v) => Arc::new(Float64Array::from_iter_values(
                v.iter().skip(c).step_by(cols.max(1)).copied(),
            )),
        }
    };
    let arrays: Vec<ArrayRef> = (0..cols).map(column).collect();
    let fields: Vec<Field> = matrix
        .names
        .iter()
        .zip(&arrays)
        .map(|(n, a)| Field::new(n, a.data_type().clone(), false))
        .collect();
    // A matrix without columns still has its rows.
    let options = RecordBatchOptions::new().with_row_count(Some(matrix.rows));
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        arrays,
        &options,
    )?)
}

/// Writes a result for verification; a read of the array layout is first put back in the
/// source's wide shape (`source`), outside the timer.
pub(super) fn write_verify_output(
    out: &Path,
    schema: &SchemaRef,
    batches: Vec<RecordBatch>,
    source: Option<&Schema>,
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

/// Every file under `dir`, in path order.
fn files(dir: &Path) -> Result<Vec<PathBuf>, KitError> {
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
pub fn dir_size(dir: &Path) -> Result<u64, KitError> {
    let mut total = 0;
    for path in files(dir)? {
        total += std::fs::metadata(&path)?.len();
    }
    Ok(total)
}
