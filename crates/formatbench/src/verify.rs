//! Verification: a cell's result is compared with what the source says it must be, logically
//! (same columns in order, same rows in the requested order, equal values), before any of its
//! timings counts. Representation differences (string encodings, timestamp units, batch splits)
//! are allowed and recorded; floats get a tolerance only where the format is lossy.

mod compare;
mod expected;

pub use compare::{compare, Verification};
pub use expected::expected_batches;

use crate::Error;
use formatbench_protocol::{Op, OpParams};
use std::path::Path;

/// Checks the Arrow IPC file a worker wrote (`actual`) against the source.
pub fn verify_output(
    source: &Path,
    op: Op,
    params: &OpParams,
    actual: &Path,
    float_tolerance: Option<f64>,
) -> Result<Verification, Error> {
    let (expected_schema, expected) = expected_batches(source, op, params)?;
    let file = std::fs::File::open(actual)
        .map_err(|e| Error::Io(format!("the worker wrote no verification output: {e}")))?;
    let reader = arrow::ipc::reader::FileReader::try_new_buffered(file, None)
        .map_err(|e| Error::Io(format!("unreadable verification output: {e}")))?;
    let actual_schema = reader.schema();
    compare(
        &expected_schema,
        expected,
        &actual_schema,
        Box::new(reader.map(|b| b.map_err(Error::from))),
        float_tolerance,
    )
}
