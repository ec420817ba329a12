//! The verifier's own row and column selection. It shares no code with the readers it checks
//! (the native worker's `rows` module, the backends): this crate cannot depend on them, so a
//! bug there must show up as a mismatch, not pass in both places. It is deliberately plain: a
//! loop builds each mask, arrow's own kernels (`filter`, `take`, `concat`, `lexsort`) do the
//! rest.

use crate::Error;
use arrow::array::{Array, AsArray, BooleanArray, RecordBatch, UInt32Array};
use arrow::compute::{cast, concat_batches, filter_record_batch, take_record_batch};
use arrow::datatypes::{DataType, Int64Type, Schema, SchemaRef};
use std::collections::BTreeMap;

/// The rows of `batch` whose integer `column` lies in `[lo, hi)`; a null is never in range.
pub fn index_range(
    batch: &RecordBatch,
    column: &str,
    lo: i64,
    hi: i64,
) -> Result<RecordBatch, Error> {
    let values = batch
        .column_by_name(column)
        .ok_or_else(|| Error::Input(format!("index column '{column}' is not in the source")))?;
    if !values.data_type().is_integer() {
        return Err(Error::Input(format!(
            "index column '{column}' is {}, not an integer",
            values.data_type()
        )));
    }
    let values = cast(values, &DataType::Int64)?;
    let values = values.as_primitive::<Int64Type>();
    let mut keep = Vec::with_capacity(values.len());
    for i in 0..values.len() {
        keep.push(values.is_valid(i) && lo <= values.value(i) && values.value(i) < hi);
    }
    Ok(filter_record_batch(batch, &BooleanArray::from(keep))?)
}

/// The rows at `positions` of the stream, in request order (a position may repeat): one pass
/// copies each batch's requested rows out, then the pieces are put in request order.
pub fn take_rows(
    schema: &SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, Error>>,
    positions: &[u64],
) -> Result<Option<RecordBatch>, Error> {
    if positions.is_empty() {
        return Ok(None);
    }
    // position → the request slots that ask for it.
    let mut wanted: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (slot, &row) in positions.iter().enumerate() {
        wanted.entry(row).or_default().push(slot);
    }
    let mut pieces = Vec::new();
    // For each request slot, its row within the concatenated pieces.
    let mut placed = vec![None; positions.len()];
    let (mut offset, mut copied) = (0u64, 0u32);
    for batch in batches {
        let batch = batch?;
        let end = offset + batch.num_rows() as u64;
        let mut rows = Vec::new();
        for (&row, slots) in wanted.range(offset..end) {
            rows.push((row - offset) as u32);
            for &slot in slots {
                placed[slot] = Some(copied);
            }
            copied += 1;
        }
        if !rows.is_empty() {
            pieces.push(take_record_batch(&batch, &UInt32Array::from(rows))?);
        }
        offset = end;
    }
    let order: Vec<u32> = placed
        .iter()
        .zip(positions)
        .map(|(p, row)| {
            p.ok_or_else(|| {
                Error::Input(format!(
                    "row {row} is past the end of the source ({offset} rows)"
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let all = concat_batches(schema, &pieces)?;
    Ok(Some(take_record_batch(&all, &UInt32Array::from(order))?))
}

/// The positions of `names` in `schema`, in the order asked.
pub fn column_positions(schema: &Schema, names: &[String]) -> Result<Vec<usize>, Error> {
    names
        .iter()
        .map(|name| {
            schema
                .index_of(name)
                .map_err(|_| Error::Input(format!("column '{name}' is not in the source")))
        })
        .collect()
}

/// The batches as one, sorted by `lead` (when present) and then by every column, so equal
/// leads still come in one order: how results of readers that keep no row order are compared.
pub fn sorted(batches: &[RecordBatch], lead: Option<&str>) -> Result<Vec<RecordBatch>, Error> {
    let Some(first) = batches.first() else {
        return Ok(Vec::new());
    };
    let schema = first.schema();
    let whole = concat_batches(&schema, batches)?;
    let lead = lead.and_then(|c| schema.index_of(c).ok());
    let keys = |columns: Vec<usize>| -> Vec<arrow::compute::SortColumn> {
        columns
            .into_iter()
            .map(|i| arrow::compute::SortColumn {
                values: whole.column(i).clone(),
                options: None,
            })
            .collect()
    };
    let every: Vec<usize> = lead
        .into_iter()
        .chain((0..schema.fields().len()).filter(|i| Some(*i) != lead))
        .collect();
    // Some column types (lists, structs) cannot be sorted on; then the lead alone orders.
    let order = match arrow::compute::lexsort_to_indices(&keys(every), None) {
        Ok(order) => order,
        Err(_) if lead.is_some() => {
            arrow::compute::lexsort_to_indices(&keys(lead.into_iter().collect()), None)?
        }
        Err(e) => return Err(e.into()),
    };
    Ok(vec![take_record_batch(&whole, &order)?])
}

#[cfg(test)]
#[path = "oracle/tests.rs"]
mod tests;
