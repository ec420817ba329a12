//! Mutations of a result's shape: a row lost, doubled or out of place, a column renamed,
//! moved or widened, a feature matrix read in the wrong order. Each returns `None` when the
//! result holds nothing it could change (too few rows or columns, no type to widen), so the
//! worker can say so instead of answering right by accident.

use arrow::array::{Array, ArrayRef, AsArray, Float32Array, RecordBatch, UInt32Array};
use arrow::compute::{cast, take_record_batch};
use arrow::datatypes::{DataType, Field, Float32Type, Schema};
use arrow::error::ArrowError;
use std::sync::Arc;

/// A changed result, or `None` when there was nothing to change.
pub type Mutated = Result<Option<RecordBatch>, ArrowError>;

fn rows_in_order(batch: &RecordBatch, order: Vec<u32>) -> Mutated {
    Ok(Some(take_record_batch(batch, &UInt32Array::from(order))?))
}

/// The middle row left out.
pub fn row_missing(batch: &RecordBatch) -> Mutated {
    let n = batch.num_rows() as u32;
    if n == 0 {
        return Ok(None);
    }
    rows_in_order(batch, (0..n).filter(|&r| r != n / 2).collect())
}

/// The middle row returned twice.
pub fn row_duplicated(batch: &RecordBatch) -> Mutated {
    let n = batch.num_rows() as u32;
    if n == 0 {
        return Ok(None);
    }
    let mut order: Vec<u32> = (0..n).collect();
    order.insert((n / 2) as usize, n / 2);
    rows_in_order(batch, order)
}

/// Whether two rows hold different values in some column.
fn rows_differ(batch: &RecordBatch, a: usize, b: usize) -> bool {
    batch
        .columns()
        .iter()
        .any(|c| c.slice(a, 1).to_data() != c.slice(b, 1).to_data())
}

/// The first two neighbouring rows that differ, swapped (equal ones would swap invisibly).
pub fn rows_swapped(batch: &RecordBatch) -> Mutated {
    let n = batch.num_rows();
    let Some(at) = (1..n).find(|&r| rows_differ(batch, r - 1, r)) else {
        return Ok(None);
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.swap(at - 1, at);
    rows_in_order(batch, order)
}

/// `batch` with its fields and columns replaced, keeping the schema's metadata.
fn rebuild(batch: &RecordBatch, fields: Vec<Field>, columns: Vec<ArrayRef>) -> Mutated {
    let schema = Schema::new_with_metadata(fields, batch.schema().metadata().clone());
    Ok(Some(RecordBatch::try_new(Arc::new(schema), columns)?))
}

fn fields(batch: &RecordBatch) -> Vec<Field> {
    batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect()
}

/// The last column under another name.
pub fn column_renamed(batch: &RecordBatch) -> Mutated {
    let mut fields = fields(batch);
    let Some(last) = fields.pop() else {
        return Ok(None);
    };
    let name = format!("{}_renamed", last.name());
    fields.push(last.with_name(name));
    rebuild(batch, fields, batch.columns().to_vec())
}

/// The first two columns in each other's place.
pub fn columns_reordered(batch: &RecordBatch) -> Mutated {
    if batch.num_columns() < 2 {
        return Ok(None);
    }
    let mut fields = fields(batch);
    let mut columns = batch.columns().to_vec();
    fields.swap(0, 1);
    columns.swap(0, 1);
    rebuild(batch, fields, columns)
}

/// The type a column may be widened to without changing a value: a narrow integer or float to
/// 64 bits first (what a reader without narrow types returns), else a 64-bit integer to a
/// decimal that holds every one of its values.
fn wider(data_type: &DataType, narrow_only: bool) -> Option<DataType> {
    use DataType as T;
    match data_type {
        T::Int8 | T::Int16 | T::Int32 => Some(T::Int64),
        T::UInt8 | T::UInt16 | T::UInt32 => Some(T::UInt64),
        T::Float16 | T::Float32 => Some(T::Float64),
        T::Int64 | T::UInt64 if !narrow_only => Some(T::Decimal128(38, 0)),
        _ => None,
    }
}

/// The first column of a type that widens, widened (its values unchanged).
pub fn type_widened(batch: &RecordBatch) -> Mutated {
    let schema = batch.schema();
    let found = [true, false].into_iter().find_map(|narrow_only| {
        schema
            .fields()
            .iter()
            .enumerate()
            .find_map(|(i, f)| wider(f.data_type(), narrow_only).map(|t| (i, t)))
    });
    let Some((at, wide)) = found else {
        return Ok(None);
    };
    let mut fields = fields(batch);
    let mut columns = batch.columns().to_vec();
    columns[at] = cast(&columns[at], &wide)?;
    fields[at] = fields[at].clone().with_data_type(wide);
    rebuild(batch, fields, columns)
}

/// The feature (float32) columns' positions.
fn features(batch: &RecordBatch) -> Vec<usize> {
    batch
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| f.data_type() == &DataType::Float32)
        .map(|(i, _)| i)
        .collect()
}

/// The feature matrix read in the wrong order: its column-major values taken as row-major,
/// the classic transposition bug, with the shape (and names) of the right answer.
pub fn matrix_transposed(batch: &RecordBatch) -> Mutated {
    let at = features(batch);
    let (rows, cols) = (batch.num_rows(), at.len());
    if rows < 2 || cols < 2 {
        return Ok(None);
    }
    let mut column_major = Vec::with_capacity(rows * cols);
    for &c in &at {
        column_major.extend_from_slice(batch.column(c).as_primitive::<Float32Type>().values());
    }
    let mut columns = batch.columns().to_vec();
    for (k, &c) in at.iter().enumerate() {
        let values = (0..rows).map(|r| column_major[r * cols + k]);
        columns[c] = Arc::new(Float32Array::from_iter_values(values));
    }
    changed(batch, columns)
}

/// The last feature's values one row down (the last row's wrapped to the first).
pub fn matrix_feature_shifted(batch: &RecordBatch) -> Mutated {
    let rows = batch.num_rows() as u32;
    let Some(&last) = features(batch).last() else {
        return Ok(None);
    };
    if rows < 2 {
        return Ok(None);
    }
    let order: Vec<u32> = (0..rows).map(|r| (r + rows - 1) % rows).collect();
    let mut columns = batch.columns().to_vec();
    columns[last] = arrow::compute::take(&columns[last], &UInt32Array::from(order), None)?;
    changed(batch, columns)
}

/// The batch with `columns`, or `None` when they hold the values it already had (a matrix of
/// equal values transposes and shifts into itself).
fn changed(batch: &RecordBatch, columns: Vec<ArrayRef>) -> Mutated {
    let same = batch
        .columns()
        .iter()
        .zip(&columns)
        .all(|(a, b)| a.to_data() == b.to_data());
    if same {
        return Ok(None);
    }
    rebuild(batch, fields(batch), columns)
}
