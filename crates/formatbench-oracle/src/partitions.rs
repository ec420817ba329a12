//! Verification at scale (docs/protocol.md, "Partition digests"): a cluster's result may not fit
//! one process, so each partition is digested where it lies, by this crate's program (not the
//! engine's code), and the runner adds the parts up. The result digest without row order is a
//! sum of row hashes, so the parts combine into exactly the digest of the whole result.
//!
//! Each partition is digested in the common types of the source's columns and its own (the
//! table of representation differences), and so is the source's expected result: an engine
//! that returns a uint64 as decimal(20, 0) or a timestamp in nanoseconds digests alike when
//! its values are the same, and a value that does not survive the lossless cast is an error.

use crate::digest::{self, any_order_digest, named_columns, plain_columns, row_hash_sum};
use crate::representation::{common_type, to_common};
use crate::{expected_batches, Error, Leeway};
use arrow::array::RecordBatch;
use arrow::datatypes::{Field, Schema, SchemaRef};
use formatbench_protocol::{Op, OpParams, PartialDigest};
use std::path::Path;
use std::sync::Arc;

/// The schema `actual`'s columns are digested in against `expected`'s: the same names in the
/// same order, each of the common type; `Err` says why `actual` cannot stand for `expected`.
pub fn common_schema(
    expected: &Schema,
    actual: &Schema,
    leeway: &Leeway,
) -> Result<SchemaRef, Error> {
    let names =
        |s: &Schema| -> Vec<String> { s.fields().iter().map(|f| f.name().clone()).collect() };
    if names(expected) != names(actual) {
        return Err(Error::Input(format!(
            "columns differ: expected {:?}, got {:?}",
            names(expected),
            names(actual)
        )));
    }
    let mut notes = Vec::new();
    let fields = expected
        .fields()
        .iter()
        .zip(actual.fields())
        .map(|(e, a)| {
            common_type(e.name(), e.data_type(), a.data_type(), leeway, &mut notes)
                .map(|t| Field::new(e.name(), t, true))
                .map_err(Error::Input)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Schema::new(fields);
    digest::check_schema(&schema)?;
    Ok(Arc::new(schema))
}

/// `batch` with every column cast to `common`'s type (casts that lose no value: one that
/// does not survive is an error naming the column).
fn in_common(batch: &RecordBatch, common: &SchemaRef) -> Result<RecordBatch, Error> {
    let columns = batch
        .columns()
        .iter()
        .zip(common.fields())
        .map(|(column, field)| {
            to_common(column, field.data_type())
                .map_err(|why| Error::Input(format!("column '{}': {why}", field.name())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new(Arc::clone(common), columns)?)
}

/// The partial digest of one partition (`batches` of `actual`), in the common types with the
/// source's `expected` columns. A partition without rows digests no columns: an engine may
/// give its empty partitions types of their own (pandas' object columns).
pub fn partial(
    expected: &Schema,
    actual: &Schema,
    batches: impl Iterator<Item = Result<RecordBatch, Error>>,
    leeway: &Leeway,
) -> Result<PartialDigest, Error> {
    let mut rows = 0u64;
    let mut row_sum = 0u128;
    let mut common = None;
    for batch in batches {
        let batch = batch?;
        if batch.num_rows() == 0 {
            continue;
        }
        if common.is_none() {
            common = Some(common_schema(expected, actual, leeway)?);
        }
        let Some(schema) = &common else { continue };
        let cast = in_common(&batch, schema)?;
        rows += cast.num_rows() as u64;
        row_sum = row_sum.wrapping_add(row_hash_sum(&plain_columns(&cast)?, cast.num_rows())?);
    }
    Ok(PartialDigest {
        rows,
        row_sum: format!("{row_sum:032x}"),
        columns: common.map(|c| named_columns(&c)).unwrap_or_default(),
    })
}

/// The digest the partitions add up to, whose result's columns are `common` (from
/// [`common_schema`] of the source's expected columns and the result's); every partition with
/// rows must have digested those columns in those types.
pub fn combine(parts: &[PartialDigest], common: &Schema) -> Result<String, Error> {
    let columns = named_columns(common);
    let mut rows = 0u64;
    let mut row_sum = 0u128;
    for (i, part) in parts.iter().enumerate() {
        if part.rows > 0 && part.columns != columns {
            return Err(Error::Input(format!(
                "partition {i} digested columns {:?}, the result has {columns:?}",
                part.columns
            )));
        }
        let sum = u128::from_str_radix(&part.row_sum, 16).map_err(|_| {
            Error::Input(format!(
                "partition {i}: row sum '{}' is not hexadecimal",
                part.row_sum
            ))
        })?;
        rows += part.rows;
        row_sum = row_sum.wrapping_add(sum);
    }
    Ok(any_order_digest(&columns, row_sum, rows))
}

/// What the partitions must add up to: the digest, without row order, of what `op` with
/// `params` returns from the source at `source`, in `common`'s types.
pub fn expected_digest(
    source: &Path,
    op: Op,
    params: &OpParams,
    common: &SchemaRef,
) -> Result<String, Error> {
    let (_, batches) = expected_batches(source, op, params)?;
    let common_batches = batches.map(|b| b.and_then(|b| in_common(&b, common)));
    digest::digest(common, common_batches, digest::Rows::AnyOrder)
}

/// The schema of the expected result of `op` with `params` on the source at `source`.
pub fn expected_schema(source: &Path, op: Op, params: &OpParams) -> Result<SchemaRef, Error> {
    Ok(expected_batches(source, op, params)?.0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#[path = "partitions/tests.rs"]
mod tests;
