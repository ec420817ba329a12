//! The "needed bytes" yardstick of a read from object storage: how many bytes, in how many
//! disjoint ranges, an operation must fetch by its file's own metadata (footer, page index or
//! block headers, then the selected pages or buffers). The S3 server counts what a reader
//! fetched; this says what it could have fetched, so a report can show the ratio.
//!
//! It is computed from the artifact's local copy (written under the run's scratch directory,
//! then uploaded), and it parses the files itself with arrow's and parquet's metadata readers
//! instead of reusing any worker's code: a yardstick that shared the measured reader's logic
//! would share its mistakes.

mod ipc;
mod parquet;
mod parts;
mod read;
mod spans;

pub use spans::{Needed, NeededError};

use arrow::datatypes::Schema;
use formatbench_protocol::{Op, OpParams};
use read::Read;
use std::path::Path;

/// The file formats the yardstick reads, by the backend that wrote the artifact.
enum Format {
    Parquet,
    Ipc,
    IpcParts,
}

fn format_of(backend: &str) -> Option<Format> {
    match backend {
        "parquet" => Some(Format::Parquet),
        "ipc" | "ipc-mmap" => Some(Format::Ipc),
        "ipc-parts" => Some(Format::IpcParts),
        _ => None,
    }
}

/// What `op` with `params` needs of the artifact in `dir`, written by `backend` in `layout`
/// from a source of `schema`. `Ok(None)` for what the yardstick does not cover: other
/// backends' formats, operations that write or change a table or read by label, sessions,
/// other layouts, and an artifact with no local file.
pub fn needed(
    dir: &Path,
    backend: &str,
    layout: &str,
    op: Op,
    params: &OpParams,
    schema: &Schema,
) -> Result<Option<Needed>, NeededError> {
    let (Some(format), Some(read)) = (format_of(backend), Read::of(op, layout, params, schema))
    else {
        return Ok(None);
    };
    if let (Format::Parquet, Some(parts)) = (&format, parquet_parts(dir)?) {
        // A table cut into files (the sweep's shared files): each part is an object of its
        // own, read with its own footer. Rows by position count across the whole table, not
        // within a part (and are not run on one: plan/sweep.rs).
        if matches!(read.rows, read::Rows::Positions(_)) {
            return Ok(None);
        }
        let mut total = Needed::default();
        for part in parts {
            match parquet::needed(&part, &read)? {
                Some(one) => total = total.plus(one),
                None => return Ok(None),
            }
        }
        return Ok(Some(total));
    }
    let file = match format {
        Format::Parquet => dir.join("data.parquet"),
        Format::Ipc => dir.join("data.arrow"),
        Format::IpcParts => dir.join("table.json"),
    };
    // A user's object read where it lies has no local copy here.
    if !file.exists() {
        return Ok(None);
    }
    match format {
        Format::Parquet => parquet::needed(&file, &read),
        Format::Ipc => ipc::needed(&file, &read),
        Format::IpcParts => parts::needed(dir, &read),
    }
}

/// The `part-NNNNN.parquet` files of a table cut into files, in name order; `None` where the
/// directory holds no such file.
fn parquet_parts(dir: &Path) -> Result<Option<Vec<std::path::PathBuf>>, NeededError> {
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut parts = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(NeededError::io(dir))? {
        let path = entry.map_err(NeededError::io(dir))?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.starts_with("part-") && name.ends_with(".parquet") {
            parts.push(path);
        }
    }
    parts.sort();
    Ok((!parts.is_empty()).then_some(parts))
}

/// [`needed`] for a cell's records: a failure is said on stderr and leaves the figure out
/// (the yardstick is a reference beside the measurement, never a reason to stop a run).
pub fn for_cell(
    dir: &Path,
    backend: &str,
    layout: &str,
    op: Op,
    params: &OpParams,
    schema: &Schema,
) -> Option<Needed> {
    match needed(dir, backend, layout, op, params, schema) {
        Ok(needed) => needed,
        Err(e) => {
            crate::progress::say(&format!(
                "the bytes {backend} '{op}' needs are not known: {e}"
            ));
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
