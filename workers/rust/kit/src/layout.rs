//! The layout study's layouts: `wide` (one float32 column per feature) and `array` (every
//! feature of a row in one field, the names in a sidecar). How that field looks depends on the
//! format ([`ArrayForm`]): a `FixedSizeList<float32, D>` for most, packed text for CSV, the
//! bare matrix for `.npy`.

use crate::float_matrix::{interleave, FloatMatrix};
use crate::KitError;
use arrow::array::RecordBatchOptions;
use arrow::array::{
    ArrayRef, AsArray, FixedSizeListArray, Float32Array, RecordBatch, StringBuilder,
};
use arrow::datatypes::{DataType, Field, Float32Type, Schema, SchemaRef};
use std::path::Path;
use std::sync::Arc;

pub use crate::names::{ARRAY, FEATURES, PACKED_SEPARATOR, SIDECAR, WIDE};

/// How a format holds the array layout's field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayForm {
    /// `FixedSizeList<float32, D>` (Parquet, Arrow IPC, Lance, Vortex, DuckDB `FLOAT[D]`).
    FixedList,
    /// One text cell of `;`-separated shortest round-trip floats (CSV).
    PackedText,
    /// The matrix alone, metadata dropped (.npy, the floor).
    Bare,
}

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
    array_schema_as(ArrayForm::FixedList, source)
}

/// The array layout's schema in `form`.
pub fn array_schema_as(form: ArrayForm, source: &Schema) -> Result<SchemaRef, KitError> {
    let features = feature_indices(source);
    let Some(&first) = features.first() else {
        let wide = source
            .fields()
            .iter()
            .any(|f| f.data_type() == &DataType::Float64);
        let hint = match wide {
            true => " (its float64 columns enter with --feature-type float32)",
            false => "",
        };
        return Err(KitError::Unsupported(format!(
            "the array layout needs float32 feature columns; this table has none{hint}"
        )));
    };
    if form == ArrayForm::Bare {
        return Ok(Arc::new(source.project(&features)?));
    }
    let list = match form {
        ArrayForm::FixedList => DataType::FixedSizeList(list_field(), features.len() as i32),
        _ => DataType::Utf8,
    };
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
    to_array_as(ArrayForm::FixedList, schema, batch)
}

/// One source batch in the array layout's `form` (`schema` from [`array_schema_as`]).
pub fn to_array_as(
    form: ArrayForm,
    schema: &SchemaRef,
    batch: &RecordBatch,
) -> Result<RecordBatch, KitError> {
    let features = feature_indices(&batch.schema());
    if form == ArrayForm::Bare {
        return Ok(batch.project(&features)?);
    }
    let width = features.len();
    let mut values = vec![0f32; batch.num_rows() * width];
    let columns: Vec<&[f32]> = features
        .iter()
        .map(|&c| {
            batch
                .column(c)
                .as_primitive::<Float32Type>()
                .values()
                .as_ref()
        })
        .collect();
    interleave(&columns, &mut values);
    let list: ArrayRef = match form {
        ArrayForm::FixedList => Arc::new(FixedSizeListArray::try_new(
            list_field(),
            width as i32,
            Arc::new(Float32Array::from(values)),
            None,
        )?),
        _ => Arc::new(packed_text(&values, width, batch.num_rows())),
    };
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

/// Each row of `values` (`width` wide) as one text cell of shortest round-trip floats.
fn packed_text(values: &[f32], width: usize, rows: usize) -> arrow::array::StringArray {
    let mut cells = StringBuilder::with_capacity(rows, values.len() * 12);
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
    cells.finish()
}

/// A batch read from the array layout back in the source's wide shape, for verification.
pub fn to_wide(batch: &RecordBatch, source: &Schema) -> Result<RecordBatch, KitError> {
    let Ok(position) = batch.schema().index_of(FEATURES) else {
        return Ok(batch.clone());
    };
    let names = feature_names(source);
    let matrix = FloatMatrix::from_array_column(batch.column(position), names.len())?;
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
