//! The types a CSV artifact holds: what the reader parses each stored column as, and the
//! columns it cannot parse back from text at all (a write then answers unsupported, naming
//! them, instead of every cell failing with arrow-csv's "Unsupported data type").

use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use std::sync::Arc;

/// A string column as the reader parses it: pandas and Polars write `LargeUtf8`, Arrow's newer
/// writers `Utf8View`, and arrow-csv parses `Utf8`. The values are the same (the verifier
/// compares values across these representations), so no cast is paid inside the timer.
fn readable_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::LargeUtf8 | DataType::Utf8View => DataType::Utf8,
        DataType::Dictionary(key, value) => {
            DataType::Dictionary(key.clone(), Box::new(readable_type(value)))
        }
        other => other.clone(),
    }
}

/// `schema` as the reader parses it (`readable_type`); the same schema when nothing changes.
pub fn readable(schema: &SchemaRef) -> SchemaRef {
    if schema
        .fields()
        .iter()
        .all(|f| readable_type(f.data_type()) == *f.data_type())
    {
        return schema.clone();
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            f.as_ref()
                .clone()
                .with_data_type(readable_type(f.data_type()))
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// Whether arrow-csv's reader parses this type from text.
fn parses(data_type: &DataType) -> bool {
    use DataType::*;
    match readable_type(data_type) {
        Null | Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64
        | Float16 | Float32 | Float64 | Decimal32(..) | Decimal64(..) | Decimal128(..)
        | Decimal256(..) | Date32 | Date64 | Timestamp(..) | Utf8 => true,
        Time32(unit) => matches!(unit, TimeUnit::Second | TimeUnit::Millisecond),
        Time64(unit) => matches!(unit, TimeUnit::Microsecond | TimeUnit::Nanosecond),
        Dictionary(key, value) => key.is_integer() && *value == Utf8,
        _ => false,
    }
}

/// Why the CSV backend cannot store `schema`: its first column that text cannot hold (a nested
/// one) or the reader cannot parse back, named with its type.
pub fn unsupported(schema: &Schema) -> Option<String> {
    let field = schema
        .fields()
        .iter()
        .find(|f| f.data_type().is_nested() || !parses(f.data_type()))?;
    Some(if field.data_type().is_nested() {
        format!(
            "CSV cannot store the nested column '{}' ({})",
            field.name(),
            field.data_type()
        )
    } else {
        format!(
            "CSV's reader cannot parse column '{}' ({}) back from text",
            field.name(),
            field.data_type()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_and_view_strings_read_as_strings_and_binary_is_named() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::LargeUtf8, true),
            Field::new("tag", DataType::Utf8View, true),
            Field::new(
                "kind",
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::LargeUtf8)),
                true,
            ),
        ]));
        let read = readable(&schema);
        let types: Vec<&DataType> = read.fields().iter().map(|f| f.data_type()).collect();
        assert_eq!(
            types[..3],
            [&DataType::Int64, &DataType::Utf8, &DataType::Utf8]
        );
        assert_eq!(
            types[3],
            &DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
        );
        assert_eq!(unsupported(&schema), None);
        let binary = Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("blob", DataType::LargeBinary, true),
        ]);
        assert_eq!(
            unsupported(&binary).as_deref(),
            Some("CSV's reader cannot parse column 'blob' (LargeBinary) back from text")
        );
    }
}
