//! `--feature-type float32`: a user's float64 columns cast to float32 as the file is ingested,
//! so a float64 feature matrix (scikit-learn's and NumPy's default) enters the matrix
//! operations and the array layout, which take float32 features. The cast is stated on stderr
//! and recorded with the dataset (`feature_type`), never silent.

use crate::Error;
use arrow::array::RecordBatch;
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::error::ArrowError;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The type the feature columns of a user's file are cast to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FeatureType {
    Float32,
}

impl std::str::FromStr for FeatureType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "float32" => Ok(FeatureType::Float32),
            other => Err(Error::Input(format!(
                "--feature-type {other}: the feature type is float32"
            ))),
        }
    }
}

type Batches = Box<dyn Iterator<Item = Result<RecordBatch, ArrowError>>>;

/// `schema` and `batches` with every float64 column cast to float32, and the names cast.
/// An error when the file has no float64 column to cast (the option would change nothing).
pub(super) fn cast_features(
    schema: SchemaRef,
    batches: Batches,
    _feature_type: FeatureType,
) -> Result<(SchemaRef, Batches, Vec<String>), Error> {
    let cast_names: Vec<String> = schema
        .fields()
        .iter()
        .filter(|f| f.data_type() == &DataType::Float64)
        .map(|f| f.name().clone())
        .collect();
    if cast_names.is_empty() {
        return Err(Error::Input(
            "--feature-type float32: the input has no float64 column to cast".into(),
        ));
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Float64 => f.as_ref().clone().with_data_type(DataType::Float32),
            _ => f.as_ref().clone(),
        })
        .collect();
    let cast_schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let target = cast_schema.clone();
    let batches = batches.map(move |batch| {
        let batch = batch?;
        let columns = batch
            .columns()
            .iter()
            .zip(target.fields())
            .map(
                |(column, field)| match column.data_type() == field.data_type() {
                    true => Ok(column.clone()),
                    false => cast(column, field.data_type()),
                },
            )
            .collect::<Result<Vec<_>, _>>()?;
        RecordBatch::try_new(target.clone(), columns)
    });
    Ok((cast_schema, Box::new(batches), cast_names))
}

/// The dataset parameter that records the cast: "float32: 3 float64 columns cast (a, b, c)".
pub(super) fn described(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
    let more = if names.len() > 4 { ", …" } else { "" };
    format!(
        "float32: {} float64 column{} cast to float32, rounded to the nearest ({}{more})",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        shown.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray, Float64Array, Int64Array};
    use arrow::datatypes::Float32Type;

    #[test]
    fn float64_columns_become_float32_and_others_stay() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("f", DataType::Float64, true),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(vec![1, 2])),
                Arc::new(Float64Array::from(vec![Some(0.1), None])),
            ],
        )
        .unwrap();
        let (cast_schema, batches, names) = cast_features(
            schema.clone(),
            Box::new(std::iter::once(Ok(batch))),
            FeatureType::Float32,
        )
        .unwrap();
        assert_eq!(names, vec!["f".to_string()]);
        assert_eq!(cast_schema.field(0).data_type(), &DataType::Int64);
        assert_eq!(cast_schema.field(1).data_type(), &DataType::Float32);
        let out: Vec<RecordBatch> = batches.collect::<Result<_, _>>().unwrap();
        let f = out[0].column(1).as_primitive::<Float32Type>();
        assert_eq!((f.value(0), f.is_null(1)), (0.1f32, true));
        assert!(described(&names).starts_with("float32: 1 float64 column cast"));
        let ints = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
        assert!(cast_features(ints, Box::new(std::iter::empty()), FeatureType::Float32).is_err());
    }
}
