//! A logical digest of a table: equal for equal values whatever the batch splits and string
//! representation (Utf8, LargeUtf8, Utf8View and dictionary-encoded strings hash alike).
//! Used for the dataset fingerprint (results are digested by the runner's own oracle).

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::cast;
use arrow::datatypes::{DataType, SchemaRef};
use arrow::error::ArrowError;
use xxhash_rust::xxh3::Xxh3;

/// The type a column is hashed as; string and binary encodings collapse to one each.
pub fn canonical_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::LargeUtf8 | DataType::Utf8View => DataType::Utf8,
        DataType::LargeBinary | DataType::BinaryView => DataType::Binary,
        DataType::Dictionary(_, value) => canonical_type(value),
        other => other.clone(),
    }
}

/// Casts a column to its canonical type (a no-op for most columns).
pub fn canonical_array(array: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    let target = canonical_type(array.data_type());
    if &target == array.data_type() {
        Ok(array.clone())
    } else {
        cast(array, &target)
    }
}

/// Streams batches into per-column hashers.
pub struct TableDigest {
    schema_text: String,
    /// Per column: one stream of fixed-width data (values, lengths, validity) and one of
    /// variable-length bytes, each independent of where batches split.
    columns: Vec<(Xxh3, Xxh3)>,
    rows: u64,
}

impl TableDigest {
    pub fn new(schema: &SchemaRef) -> Self {
        let schema_text = schema
            .fields()
            .iter()
            .map(|f| format!("{}:{}", f.name(), canonical_type(f.data_type())))
            .collect::<Vec<_>>()
            .join(",");
        TableDigest {
            schema_text,
            columns: schema
                .fields()
                .iter()
                .map(|_| (Xxh3::new(), Xxh3::new()))
                .collect(),
            rows: 0,
        }
    }

    pub fn update(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        for ((fixed, bytes), column) in self.columns.iter_mut().zip(batch.columns()) {
            let column = canonical_array(column)?;
            if !hash_bulk(fixed, bytes, &column) {
                hash_array(fixed, bytes, &column);
            }
        }
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    /// `xxh3:` followed by 16 hex digits.
    pub fn finish(self) -> String {
        let mut total = Xxh3::new();
        total.update(self.schema_text.as_bytes());
        total.update(&self.rows.to_le_bytes());
        for (fixed, bytes) in &self.columns {
            total.update(&fixed.digest().to_le_bytes());
            total.update(&bytes.digest().to_le_bytes());
        }
        format!("xxh3:{:016x}", total.digest())
    }
}

pub fn digest_batches(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<String, ArrowError> {
    let mut digest = TableDigest::new(schema);
    for batch in batches {
        digest.update(batch)?;
    }
    Ok(digest.finish())
}

const NULL_MARK: &[u8] = &[0xFF, 0x00, 0xFF, 0x00];

/// Null-free strings and booleans in a few large updates instead of one per value: lengths (or
/// bits as bytes) go to the fixed stream, string bytes to the other. Returns false when the
/// column needs the general path.
fn hash_bulk(fixed: &mut Xxh3, bytes: &mut Xxh3, array: &ArrayRef) -> bool {
    if array.null_count() > 0 {
        return false;
    }
    match array.data_type() {
        DataType::Utf8 => {
            let strings = array.as_string::<i32>();
            let offsets = strings.value_offsets();
            let lengths: Vec<u8> = offsets
                .windows(2)
                .flat_map(|w| ((w[1] - w[0]) as u32).to_le_bytes())
                .collect();
            fixed.update(&lengths);
            let (first, last) = (offsets[0] as usize, offsets[offsets.len() - 1] as usize);
            bytes.update(&strings.values()[first..last]);
            true
        }
        DataType::Boolean => {
            let bools = array.as_boolean();
            let values: Vec<u8> = bools.values().iter().map(u8::from).collect();
            fixed.update(&values);
            true
        }
        _ => false,
    }
}

/// The general path, value by value; each value adds to the streams exactly what `hash_bulk`
/// adds for it, so mixing the paths across batches gives the same digest.
fn hash_array(hasher: &mut Xxh3, bytes: &mut Xxh3, array: &ArrayRef) {
    let data_type = array.data_type();
    if let Some(width) = data_type.primitive_width() {
        let data = array.to_data();
        let start = data.offset() * width;
        let bytes = &data.buffers()[0].as_slice()[start..start + data.len() * width];
        if array.null_count() == 0 {
            hasher.update(bytes);
        } else {
            for (row, value) in bytes.chunks_exact(width).enumerate() {
                hasher.update(if array.is_null(row) { NULL_MARK } else { value });
            }
        }
        return;
    }
    match data_type {
        DataType::Boolean => {
            let bools = array.as_boolean();
            for row in 0..bools.len() {
                let byte: &[u8] = match bools.is_valid(row).then(|| bools.value(row)) {
                    None => NULL_MARK,
                    Some(true) => &[1],
                    Some(false) => &[0],
                };
                hasher.update(byte);
            }
        }
        DataType::Utf8 => {
            let strings = array.as_string::<i32>();
            for row in 0..strings.len() {
                if strings.is_null(row) {
                    hasher.update(NULL_MARK);
                } else {
                    let value = strings.value(row).as_bytes();
                    hasher.update(&(value.len() as u32).to_le_bytes());
                    bytes.update(value);
                }
            }
        }
        DataType::Binary => {
            let binary = array.as_binary::<i32>();
            for row in 0..binary.len() {
                if binary.is_null(row) {
                    hasher.update(NULL_MARK);
                } else {
                    let value = binary.value(row);
                    hasher.update(&(value.len() as u32).to_le_bytes());
                    hasher.update(value);
                }
            }
        }
        DataType::FixedSizeList(_, _) => {
            let list = array.as_fixed_size_list();
            for row in 0..list.len() {
                if list.is_null(row) {
                    hasher.update(NULL_MARK);
                } else {
                    hash_array(hasher, bytes, &list.value(row));
                }
            }
        }
        _ => hash_display(hasher, array),
    }
}

/// Types without a fast path hash their display text: slower, but still logical.
fn hash_display(hasher: &mut Xxh3, array: &ArrayRef) {
    use arrow::util::display::{ArrayFormatter, FormatOptions};
    match ArrayFormatter::try_new(array.as_ref(), &FormatOptions::default()) {
        Ok(formatter) => {
            for row in 0..array.len() {
                if array.is_null(row) {
                    hasher.update(NULL_MARK);
                } else {
                    let text = formatter.value(row).to_string();
                    hasher.update(&(text.len() as u32).to_le_bytes());
                    hasher.update(text.as_bytes());
                }
            }
        }
        Err(_) => hasher.update(format!("{array:?}").as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, LargeStringArray, StringArray, StringViewArray};
    use arrow::datatypes::{Field, Schema};
    use std::sync::Arc;

    fn table(strings: ArrayRef) -> (SchemaRef, RecordBatch) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("s", strings.data_type().clone(), true),
        ]));
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3, 4]));
        let batch = RecordBatch::try_new(schema.clone(), vec![ints, strings]).unwrap_or_else(|e| {
            unreachable!("{e}");
        });
        (schema, batch)
    }

    #[test]
    fn digest_ignores_batch_splits_and_string_encoding() {
        let values = vec![Some("ab"), None, Some("c"), Some("")];
        let (schema, whole) = table(Arc::new(StringArray::from(values.clone())));
        let one = digest_batches(&schema, std::slice::from_ref(&whole));
        let split = digest_batches(&schema, &[whole.slice(0, 1), whole.slice(1, 3)]);
        assert_eq!(one.as_ref().ok(), split.as_ref().ok());
        let (large_schema, large) = table(Arc::new(LargeStringArray::from(values.clone())));
        let (view_schema, view) = table(Arc::new(StringViewArray::from(values)));
        assert_eq!(
            one.as_ref().ok(),
            digest_batches(&large_schema, &[large]).as_ref().ok()
        );
        assert_eq!(
            one.as_ref().ok(),
            digest_batches(&view_schema, &[view]).as_ref().ok()
        );
    }

    #[test]
    fn digest_sees_a_changed_value() {
        let (schema, a) = table(Arc::new(StringArray::from(vec!["a", "b", "c", "d"])));
        let (_, b) = table(Arc::new(StringArray::from(vec!["a", "b", "c", "e"])));
        assert_ne!(
            digest_batches(&schema, &[a]).ok(),
            digest_batches(&schema, &[b]).ok()
        );
    }
}
