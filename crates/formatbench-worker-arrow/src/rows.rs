//! Row selection over block-structured data (IPC blocks, CSV batches, the runner's source):
//! which blocks a range or a take needs, and assembling rows in the requested order.

use crate::WorkerError;
use arrow::array::{Array, AsArray, BooleanArray, RecordBatch};
use arrow::compute::kernels::cmp::{gt_eq, lt};
use arrow::compute::{and, cast, filter_record_batch, interleave_record_batch};
use arrow::datatypes::{DataType, Int64Type};
use arrow::error::ArrowError;
use std::collections::BTreeMap;

/// Cumulative starts of blocks with the given row counts: `starts[i]` is block i's first row.
fn starts(block_rows: &[u64]) -> Vec<u64> {
    let mut acc = 0;
    block_rows
        .iter()
        .map(|&n| {
            let s = acc;
            acc += n;
            s
        })
        .collect()
}

/// Rows `[start, end)` by position, decoding only the blocks that hold them.
pub fn position_range(
    block_rows: &[u64],
    start: u64,
    end: u64,
    mut decode: impl FnMut(usize) -> Result<RecordBatch, WorkerError>,
) -> Result<Vec<RecordBatch>, WorkerError> {
    let mut out = Vec::new();
    for (block, (&first, &n)) in starts(block_rows).iter().zip(block_rows).enumerate() {
        let last = first + n;
        if last <= start || first >= end || n == 0 {
            continue;
        }
        let from = start.max(first) - first;
        let to = end.min(last) - first;
        let batch = decode(block)?;
        out.push(batch.slice(from as usize, (to - from) as usize));
    }
    Ok(out)
}

/// Rows at `positions`, in request order, decoding each needed block once.
pub fn take_positions(
    block_rows: &[u64],
    positions: &[u64],
    mut decode: impl FnMut(usize) -> Result<RecordBatch, WorkerError>,
) -> Result<Option<RecordBatch>, WorkerError> {
    let block_starts = starts(block_rows);
    let total: u64 = block_rows.iter().sum();
    let mut needed: BTreeMap<usize, usize> = BTreeMap::new();
    let mut located = Vec::with_capacity(positions.len());
    for &row in positions {
        if row >= total {
            return Err(WorkerError::Invalid(format!(
                "row {row} is past the end ({total} rows)"
            )));
        }
        let block = block_starts.partition_point(|&s| s <= row) - 1;
        let next = needed.len();
        let slot = *needed.entry(block).or_insert(next);
        located.push((slot, (row - block_starts[block]) as usize));
    }
    let mut decoded = vec![None; needed.len()];
    for (&block, &slot) in &needed {
        decoded[slot] = Some(decode(block)?);
    }
    let batches: Vec<RecordBatch> = decoded.into_iter().flatten().collect();
    if batches.is_empty() {
        return Ok(None);
    }
    let refs: Vec<&RecordBatch> = batches.iter().collect();
    Ok(Some(interleave_record_batch(&refs, &located)?))
}

/// A boolean mask of `lo <= column < hi` for an integer column.
pub fn index_mask(
    batch: &RecordBatch,
    column: &str,
    lo: i64,
    hi: i64,
) -> Result<BooleanArray, ArrowError> {
    let values = batch.column_by_name(column).ok_or_else(|| {
        ArrowError::SchemaError(format!("index column '{column}' is not in the table"))
    })?;
    if !values.data_type().is_integer() {
        return Err(ArrowError::SchemaError(format!(
            "index column '{column}' is {}, not an integer",
            values.data_type()
        )));
    }
    let values = cast(values, &DataType::Int64)?;
    let values = values.as_primitive::<Int64Type>();
    let lo = arrow::array::Int64Array::new_scalar(lo);
    let hi = arrow::array::Int64Array::new_scalar(hi);
    and(&gt_eq(values, &lo)?, &lt(values, &hi)?)
}

/// Rows whose `column` lies in `[lo, hi)`, keeping block order.
pub fn filter_index_range(
    batch: &RecordBatch,
    column: &str,
    lo: i64,
    hi: i64,
) -> Result<RecordBatch, ArrowError> {
    let mask = index_mask(batch, column, lo, hi)?;
    filter_record_batch(batch, &mask)
}

/// Row counts of in-memory batches, for the helpers above.
pub fn batch_rows(batches: &[RecordBatch]) -> Vec<u64> {
    batches.iter().map(|b| b.num_rows() as u64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, Int64Array};
    use arrow::datatypes::{Field, Schema};
    use std::sync::Arc;

    fn blocks() -> Vec<RecordBatch> {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "index",
            DataType::Int64,
            false,
        )]));
        (0..4)
            .map(|b| {
                let values: ArrayRef = Arc::new(Int64Array::from_iter_values(b * 10..b * 10 + 10));
                RecordBatch::try_new(schema.clone(), vec![values]).unwrap()
            })
            .collect()
    }

    fn values(batches: &[RecordBatch]) -> Vec<i64> {
        batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect()
    }

    #[test]
    fn take_returns_request_order_and_decodes_each_block_once() {
        let data = blocks();
        let mut decoded = Vec::new();
        let rows = [35, 2, 17, 3, 39];
        let out = take_positions(&batch_rows(&data), &rows, |i| {
            decoded.push(i);
            Ok(data[i].clone())
        })
        .unwrap()
        .unwrap();
        assert_eq!(values(&[out]), vec![35, 2, 17, 3, 39]);
        decoded.sort();
        assert_eq!(decoded, vec![0, 1, 3]);
    }

    #[test]
    fn position_range_spans_blocks() {
        let data = blocks();
        let out = position_range(&batch_rows(&data), 8, 22, |i| Ok(data[i].clone())).unwrap();
        assert_eq!(values(&out), (8..22).collect::<Vec<_>>());
    }

    #[test]
    fn take_past_the_end_is_an_error() {
        let data = blocks();
        assert!(take_positions(&batch_rows(&data), &[40], |i| Ok(data[i].clone())).is_err());
    }

    #[test]
    fn index_range_filters_by_value() {
        let data = blocks();
        let out = filter_index_range(&data[1], "index", 12, 15).unwrap();
        assert_eq!(values(&[out]), vec![12, 13, 14]);
    }
}
