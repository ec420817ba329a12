//! Layouts of a feature matrix (the layout study's): `wide` stores one float32 column per
//! feature; `array` stores every feature of a row in one field. How that field looks depends on
//! the format (a fixed-size list, packed text, or the bare matrix), so each backend names its
//! [`ArrayForm`]. The matrix operations that read these layouts are in [`matrix`].

pub mod matrix;

use crate::WorkerError;
use arrow::array::{
    ArrayRef, AsArray, FixedSizeListArray, Float32Array, RecordBatch, StringBuilder,
};
use arrow::datatypes::{DataType, Field, Float32Type, Schema, SchemaRef};
use std::path::Path;
use std::sync::Arc;

/// One column per field: the table as the source holds it.
pub const WIDE: &str = "wide";
/// Every feature of a row in one field.
pub const ARRAY: &str = "array";
/// The array layout's field.
pub const FEATURES: &str = "features";
/// The feature names of a layout that drops them, counted in the artifact's size.
pub const SIDECAR: &str = "feature_names.json";
/// Separator of packed text cells (the study's `delimited_array`).
pub const PACKED_SEPARATOR: char = ';';

/// How a format holds the array layout's field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayForm {
    /// `FixedSizeList<float32, D>` (Parquet, Arrow IPC).
    FixedList,
    /// One text cell of `;`-separated shortest round-trip floats (CSV).
    PackedText,
    /// The matrix alone, metadata dropped (.npy, the floor).
    Bare,
}

/// The feature columns of a table: its float32 columns, in stored order.
pub fn feature_indices(schema: &Schema) -> Vec<usize> {
    schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| f.data_type() == &DataType::Float32)
        .map(|(i, _)| i)
        .collect()
}

pub fn feature_names(schema: &Schema) -> Vec<String> {
    feature_indices(schema)
        .into_iter()
        .map(|i| schema.field(i).name().clone())
        .collect()
}

fn list_field() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Float32, false))
}

/// The schema a table of `source`'s schema has in the array layout: the features replaced by one
/// field where the first of them stood.
pub fn array_schema(form: ArrayForm, source: &Schema) -> Result<SchemaRef, WorkerError> {
    let features = feature_indices(source);
    let Some(&first) = features.first() else {
        return Err(WorkerError::Unsupported(
            "the array layout needs float32 feature columns; this table has none".into(),
        ));
    };
    if form == ArrayForm::Bare {
        return Ok(Arc::new(source.project(&features)?));
    }
    let field_type = match form {
        ArrayForm::FixedList => DataType::FixedSizeList(list_field(), features.len() as i32),
        _ => DataType::Utf8,
    };
    let mut fields = Vec::new();
    for (i, field) in source.fields().iter().enumerate() {
        if i == first {
            fields.push(Field::new(FEATURES, field_type.clone(), false));
        } else if !features.contains(&i) {
            fields.push(field.as_ref().clone());
        }
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// Row-major values of the float32 columns `features` of `batch`.
fn interleave(batch: &RecordBatch, features: &[usize]) -> Vec<f32> {
    let width = features.len();
    let mut values = vec![0f32; batch.num_rows() * width];
    for (j, &c) in features.iter().enumerate() {
        let column = batch.column(c).as_primitive::<Float32Type>();
        for (r, v) in column.values().iter().enumerate() {
            values[r * width + j] = *v;
        }
    }
    values
}

/// One batch of the source in the array layout (`schema` from [`array_schema`]).
pub fn to_array(
    form: ArrayForm,
    schema: &SchemaRef,
    batch: &RecordBatch,
) -> Result<RecordBatch, WorkerError> {
    let source = batch.schema();
    let features = feature_indices(&source);
    if form == ArrayForm::Bare {
        return Ok(batch.project(&features)?);
    }
    let width = features.len();
    let values = interleave(batch, &features);
    let packed: ArrayRef = match form {
        ArrayForm::FixedList => Arc::new(FixedSizeListArray::try_new(
            list_field(),
            width as i32,
            Arc::new(Float32Array::from(values)),
            None,
        )?),
        _ => {
            let mut cells = StringBuilder::with_capacity(batch.num_rows(), values.len() * 12);
            let mut text = String::new();
            let mut floats = ryu::Buffer::new();
            for row in values.chunks(width.max(1)) {
                text.clear();
                for (j, v) in row.iter().enumerate() {
                    if j > 0 {
                        text.push(PACKED_SEPARATOR);
                    }
                    text.push_str(floats.format(*v));
                }
                cells.append_value(&text);
            }
            Arc::new(cells.finish())
        }
    };
    let first = features.first().copied().unwrap_or(0);
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (i, column) in batch.columns().iter().enumerate() {
        if i == first {
            columns.push(packed.clone());
        } else if !features.contains(&i) {
            columns.push(column.clone());
        }
    }
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// A batch read from the array layout back in the source's wide shape, for verification.
pub fn to_wide(batch: &RecordBatch, source: &Schema) -> Result<RecordBatch, WorkerError> {
    let Some(position) = batch.schema().index_of(FEATURES).ok() else {
        return Ok(batch.clone());
    };
    let names = feature_names(source);
    let unpacked = matrix::FloatMatrix::from_array_column(batch.column(position), names.len())?;
    let wide = unpacked.to_batch(&names)?;
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (i, field) in batch.schema().fields().iter().enumerate() {
        if i == position {
            fields.extend(wide.schema().fields().iter().map(|f| f.as_ref().clone()));
            columns.extend(wide.columns().iter().cloned());
        } else {
            fields.push(field.as_ref().clone());
            columns.push(batch.column(i).clone());
        }
    }
    let options = arrow::array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        columns,
        &options,
    )?)
}

/// Writes the feature names beside a layout that drops them.
pub fn write_sidecar(dir: &Path, names: &[String]) -> Result<(), WorkerError> {
    let text = serde_json::to_string(names)
        .map_err(|e| WorkerError::Invalid(format!("cannot encode feature names: {e}")))?;
    std::fs::write(dir.join(SIDECAR), text)?;
    Ok(())
}
