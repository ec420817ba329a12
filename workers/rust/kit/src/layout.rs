//! The layout study's layouts: `wide` (one float32 column per feature) and `array` (every
//! feature of a row in one `FixedSizeList<float32, D>` field, the names in a sidecar).

use crate::matrix::FloatMatrix;
use crate::KitError;
use arrow::array::RecordBatchOptions;
use arrow::array::{ArrayRef, AsArray, FixedSizeListArray, Float32Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Float32Type, Schema, SchemaRef};
use std::path::Path;
use std::sync::Arc;

pub const WIDE: &str = "wide";
pub const ARRAY: &str = "array";
/// The array layout's field.
pub const FEATURES: &str = "features";
/// The feature names of the array layout, counted in the artifact's size.
pub const SIDECAR: &str = "feature_names.json";

/// The features of a table: its float32 columns, in stored order.
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

/// The array layout's schema: the features replaced by one list where the first stood.
pub fn array_schema(source: &Schema) -> Result<SchemaRef, KitError> {
    let features = feature_indices(source);
    let Some(&first) = features.first() else {
        return Err(KitError::Unsupported(
            "the array layout needs float32 feature columns; this table has none".into(),
        ));
    };
    let list = DataType::FixedSizeList(list_field(), features.len() as i32);
    let mut fields = Vec::new();
    for (i, field) in source.fields().iter().enumerate() {
        if i == first {
            fields.push(Field::new(FEATURES, list.clone(), false));
        } else if !features.contains(&i) {
            fields.push(field.as_ref().clone());
        }
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// One source batch in the array layout.
pub fn to_array(schema: &SchemaRef, batch: &RecordBatch) -> Result<RecordBatch, KitError> {
    let features = feature_indices(&batch.schema());
    let width = features.len();
    let mut values = vec![0f32; batch.num_rows() * width];
    for (j, &c) in features.iter().enumerate() {
        let column = batch.column(c).as_primitive::<Float32Type>();
        for (r, v) in column.values().iter().enumerate() {
            values[r * width + j] = *v;
        }
    }
    let list: ArrayRef = Arc::new(FixedSizeListArray::try_new(
        list_field(),
        width as i32,
        Arc::new(Float32Array::from(values)),
        None,
    )?);
    let first = features.first().copied().unwrap_or(0);
    let mut columns = Vec::new();
    for (i, column) in batch.columns().iter().enumerate() {
        if i == first {
            columns.push(list.clone());
        } else if !features.contains(&i) {
            columns.push(column.clone());
        }
    }
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// A batch read from the array layout back in the source's wide shape, for verification.
pub fn to_wide(batch: &RecordBatch, source: &Schema) -> Result<RecordBatch, KitError> {
    let Ok(position) = batch.schema().index_of(FEATURES) else {
        return Ok(batch.clone());
    };
    let names = feature_names(source);
    let matrix = FloatMatrix::from_list(batch.column(position), names.len())?;
    let wide = matrix.to_batch(&names)?;
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
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        columns,
        &options,
    )?)
}

pub fn write_sidecar(dir: &Path, names: &[String]) -> Result<(), KitError> {
    let text = serde_json::to_string(names)
        .map_err(|e| KitError::Invalid(format!("cannot encode feature names: {e}")))?;
    std::fs::write(dir.join(SIDECAR), text)?;
    Ok(())
}
