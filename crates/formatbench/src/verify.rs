//! Verification: a cell's result is compared with what the source says it must be, before any
//! of its timings counts. The oracle that decides is the crate `formatbench-oracle`, which has
//! no dependency on any reader it checks (its README; its `tests/boundary.rs` checks the
//! dependency graph). This module is its facade for the runner: the same items, with
//! formatbench's [`Error`], and a panic in arrow's reader on a corrupt file caught as one line.

pub use formatbench_oracle::{
    compare, expected_batches, BatchStream, Leeway, RowOrder, Verification, BUCKET_BYTES,
};

pub mod partitions;

use crate::Error;
use formatbench_protocol::{Op, OpParams};
use std::path::Path;

/// The result digest (docs/protocol.md, "Result digest"): the oracle's, with formatbench's
/// error.
pub mod digest {
    pub use formatbench_oracle::digest::*;

    use crate::Error;
    use std::path::Path;

    /// The digest of the Arrow IPC file at `path`; an error when it is missing or unreadable.
    pub fn file_digest(path: &Path, rows: Rows) -> Result<String, Error> {
        Ok(formatbench_oracle::digest::file_digest(path, rows)?)
    }
}

/// Checks the Arrow IPC file a worker wrote (`actual`) against the source.
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
    let what = format!("verification output {}", actual.display());
    crate::error::reading(&what, || {
        Ok(formatbench_oracle::verify_output_in_buckets(
            source,
            op,
            params,
            actual,
            leeway,
            order,
            bucket_bytes,
        )?)
    })
}
