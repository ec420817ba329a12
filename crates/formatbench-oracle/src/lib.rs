//! The oracle formatbench checks every result against: what an operation must return,
//! computed from the canonical source by code of its own, and the logical comparison of a
//! result with it (same columns in order, same rows in the requested order, equal values).
//! Representation differences (string encodings, timestamp units, batch splits) are allowed and
//! recorded (one table of them, `representation`); floats get a tolerance only where the format
//! is lossy, and other number widths only where the backend declares them. The result digest
//! every measured sample is checked by is here too ([`digest`]).
//!
//! The crate depends on arrow, formatbench-protocol and xxhash-rust alone: it cannot call the
//! readers it checks (the backends, their row selection, the worker kit), so a bug there shows
//! up as a mismatch instead of passing in both places. `tests/boundary.rs` checks that in the
//! resolved dependency graph (README.md).

mod compare;
pub mod digest;
mod error;
mod expected;
mod oracle;
pub mod partitions;
mod representation;
mod unordered;

pub use compare::{compare, Verification};
pub use error::Error;
pub use expected::{expected_batches, BatchStream};
pub use representation::Leeway;
pub use unordered::BUCKET_BYTES;

use arrow::array::{Array, AsArray};
use formatbench_protocol::{Op, OpParams, Selection};
use std::path::Path;

/// How a result's rows are compared with the source's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowOrder {
    /// In the order the operation defines.
    Defined,
    /// As a set: the reader keeps no row order (Delta), so both sides are put in canonical
    /// order (by the params' `order_by` column, else by every column) first.
    Any,
}

/// Checks the Arrow IPC file a worker wrote (`actual`) against the source at `source`.
///
/// arrow's IPC reader panics on some corrupt buffers; a caller that reads outside files must
/// catch that (formatbench's `verify::verify_output` does, and makes it one error line).
pub fn verify_output(
    source: &Path,
    op: Op,
    params: &OpParams,
    actual: &Path,
    leeway: Leeway,
    order: RowOrder,
) -> Result<Verification, Error> {
    verify_output_in_buckets(source, op, params, actual, leeway, order, BUCKET_BYTES)
}

/// [`verify_output`] with the bytes of result a bucket of an unordered comparison may hold
/// (tests use small buckets to compare in many passes).
pub fn verify_output_in_buckets(
    source: &Path,
    op: Op,
    params: &OpParams,
    actual: &Path,
    leeway: Leeway,
    order: RowOrder,
    bucket_bytes: u64,
) -> Result<Verification, Error> {
    let file = std::fs::File::open(actual)
        .map_err(Error::io("the worker wrote no verification output"))?;
    let reader = arrow::ipc::reader::FileReader::try_new_buffered(file, None)
        .map_err(Error::unreadable("verification output"))?;
    let actual_schema = reader.schema();
    // In a defined order both sides stream, batch by batch: the runner's memory stays that of a
    // few batches whatever the data's size. A result without row order is compared in buckets
    // of index values, each sorted on its own, so memory stays bounded there too.
    if op.spec().selection != Selection::AnyOneRow && order == RowOrder::Any {
        let sides = unordered::Sides {
            source,
            op,
            params,
            actual,
            actual_schema,
        };
        return match params.order_by.as_deref() {
            Some(column) => unordered::compare_in_buckets(&sides, column, leeway, bucket_bytes),
            None => unordered::whole(&sides, None, leeway),
        };
    }
    if op.spec().selection != Selection::AnyOneRow {
        let (expected_schema, expected) = expected_batches(source, op, params)?;
        return compare(
            &expected_schema,
            expected,
            &actual_schema,
            Box::new(reader.map(|b| b.map_err(Error::from))),
            leeway,
        );
    }
    // 'first_row': one row returned, compared with the source's row of its index value.
    let actual: Vec<_> = reader.collect::<Result<_, _>>()?;
    let (expected_schema, expected) = match first_row_expected(source, params, &actual)? {
        Ok(expected) => expected,
        Err(reason) => {
            return Ok(Verification {
                ok: false,
                reason: Some(reason),
                representation: Vec::new(),
                rows: actual.iter().map(|b| b.num_rows() as u64).sum(),
            })
        }
    };
    compare(
        &expected_schema,
        expected,
        &actual_schema,
        Box::new(actual.into_iter().map(Ok)),
        leeway,
    )
}

/// What `first_row` must return: the source's row with the index value the reader returned,
/// unless that row is deleted (then nothing, and the one row returned fails the comparison);
/// `Ok(Err(reason))` when the result is not one row with an index value.
#[allow(clippy::type_complexity)]
fn first_row_expected(
    source: &Path,
    params: &OpParams,
    actual: &[arrow::array::RecordBatch],
) -> Result<Result<(arrow::datatypes::SchemaRef, BatchStream), String>, Error> {
    let column = params.order_by.clone().ok_or_else(|| {
        Error::Input("'first_row' needs an index column to find the row it returned".into())
    })?;
    let rows: usize = actual.iter().map(|b| b.num_rows()).sum();
    let returned = actual
        .iter()
        .find(|b| b.num_rows() > 0)
        .and_then(|b| b.column_by_name(&column).cloned());
    let value = match returned {
        Some(values) if rows == 1 => {
            let values = arrow::compute::cast(&values, &arrow::datatypes::DataType::Int64)?;
            let values = values.as_primitive::<arrow::datatypes::Int64Type>();
            (!values.is_null(0)).then(|| values.value(0))
        }
        _ => None,
    };
    let Some(value) = value else {
        return Ok(Err(format!(
            "'first_row' returned {rows} rows, not one with a '{column}' value"
        )));
    };
    let mut by_value = params.clone();
    by_value.range = Some(formatbench_protocol::RangeSpec::Index {
        column,
        start: value,
        end: value.saturating_add(1),
    });
    expected_batches(source, Op::Range, &by_value).map(Ok)
}
