//! Merging new sorted rows into a partition's sorted rows: the order is found by binary search
//! over the stored labels, and each column is then gathered once, straight from the stored
//! (memory-mapped) batches. No concatenation, no sort: the partition is copied once.

use crate::error::Result;
use crate::key::{self, Key};
use arrow::array::{Array, RecordBatch, RecordBatchOptions};
use arrow::compute::interleave;
use arrow::datatypes::SchemaRef;

/// Where each merged row comes from: `(batch, row)`, the stored batches first, the new rows
/// as the batch after them.
pub(crate) struct MergeOrder {
    picks: Vec<(usize, usize)>,
    /// New labels the partition already holds.
    pub clashes: Vec<Key>,
}

/// The merged order of `stored` (sorted, unique labels in column 0, across its batches) and
/// `new` (likewise, and sorted).
pub(crate) fn merge_order(stored: &[RecordBatch], new: &RecordBatch) -> Result<MergeOrder> {
    let stored_keys = stored
        .iter()
        .map(|b| key::keys(b.column(0)))
        .collect::<Result<Vec<_>>>()?;
    let new_keys = key::keys(new.column(0))?;
    let total = stored.iter().map(|b| b.num_rows()).sum::<usize>() + new.num_rows();
    let mut picks = Vec::with_capacity(total);
    let mut clashes = Vec::new();
    // The next stored row not yet placed: batch `b`, row `i`.
    let (mut b, mut i) = (0usize, 0usize);
    for j in 0..new_keys.len() {
        let label = new_keys.key(j);
        while let Some(keys) = stored_keys.get(b) {
            // Rows before `i` are below an earlier new label, so below this one too.
            let stop = key::lower_bound(keys.as_ref(), &label).max(i);
            picks.extend((i..stop).map(|r| (b, r)));
            if stop < keys.len() {
                if keys.cmp_at(stop, &label).is_eq() {
                    clashes.push(label.clone());
                }
                i = stop;
                break;
            }
            (b, i) = (b + 1, 0);
        }
        picks.push((stored.len(), j));
    }
    for (batch, keys) in stored_keys.iter().enumerate().skip(b) {
        let from = if batch == b { i } else { 0 };
        picks.extend((from..keys.len()).map(|r| (batch, r)));
    }
    Ok(MergeOrder { picks, clashes })
}

/// The merged rows: every column gathered once in `order`.
pub(crate) fn gather(
    schema: &SchemaRef,
    stored: &[RecordBatch],
    new: &RecordBatch,
    order: &MergeOrder,
) -> Result<RecordBatch> {
    let columns = (0..schema.fields().len())
        .map(|c| {
            let sources: Vec<&dyn Array> = stored
                .iter()
                .chain(std::iter::once(new))
                .map(|batch| batch.column(c).as_ref())
                .collect();
            interleave(&sources, &order.picks)
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(order.picks.len()));
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &options,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{AsArray, Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Int64Type, Schema};
    use std::sync::Arc;

    fn batch(schema: &SchemaRef, labels: &[i64]) -> RecordBatch {
        let names: Vec<String> = labels.iter().map(|l| format!("row {l}")).collect();
        RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(labels.to_vec())),
                Arc::new(StringArray::from(names)),
            ],
        )
        .unwrap()
    }

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("index", DataType::Int64, false),
            Field::new("name", DataType::Utf8, false),
        ]))
    }

    fn labels(batch: &RecordBatch) -> Vec<i64> {
        batch
            .column(0)
            .as_primitive::<Int64Type>()
            .values()
            .to_vec()
    }

    #[test]
    fn merges_across_stored_batches_before_between_and_after() {
        let schema = schema();
        let stored = [batch(&schema, &[2, 4, 6]), batch(&schema, &[8, 10])];
        let new = batch(&schema, &[0, 5, 7, 9, 11, 12]);
        let order = merge_order(&stored, &new).unwrap();
        assert!(order.clashes.is_empty());
        let merged = gather(&schema, &stored, &new, &order).unwrap();
        assert_eq!(labels(&merged), [0, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        let names = merged.column(1).as_string::<i32>();
        assert_eq!(names.value(3), "row 5");
        assert_eq!(names.value(10), "row 12");
    }

    #[test]
    fn reports_every_label_already_stored() {
        let schema = schema();
        let stored = [batch(&schema, &[1, 3]), batch(&schema, &[5])];
        let new = batch(&schema, &[3, 4, 5]);
        let order = merge_order(&stored, &new).unwrap();
        assert_eq!(order.clashes, vec![Key::Int(3), Key::Int(5)]);
    }

    #[test]
    fn empty_sides_keep_the_other() {
        let schema = schema();
        let new = batch(&schema, &[1, 2]);
        let order = merge_order(&[], &new).unwrap();
        assert_eq!(labels(&gather(&schema, &[], &new, &order).unwrap()), [1, 2]);
        let stored = [batch(&schema, &[1, 2])];
        let none = batch(&schema, &[]);
        let order = merge_order(&stored, &none).unwrap();
        assert_eq!(
            labels(&gather(&schema, &stored, &none, &order).unwrap()),
            [1, 2]
        );
    }
}
