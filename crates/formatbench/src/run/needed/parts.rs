//! `ipc-parts` tables: the metadata object (`table.json`, fetched whole), then, in each
//! partition that may hold selected rows, what its Arrow IPC file needs. A partition whose rows
//! or index bounds rule it out is not fetched at all.

use super::ipc;
use super::read::{Read, Rows};
use super::spans::{Needed, NeededError};
use std::ops::Range;
use std::path::Path;

/// The table's metadata file, as the store names it.
const METADATA: &str = "table.json";

#[derive(serde::Deserialize)]
struct TableMeta {
    partitions: Vec<Partition>,
}

/// A partition as the metadata lists it, in index order: its file, its rows and its first
/// and last label.
#[derive(serde::Deserialize)]
struct Partition {
    file: String,
    rows: u64,
    #[serde(default)]
    min: Option<serde_json::Value>,
    #[serde(default)]
    max: Option<serde_json::Value>,
}

/// The needed bytes of `read` on the table in `dir`; `None` where some partition's are not
/// known.
pub(super) fn needed(dir: &Path, read: &Read) -> Result<Option<Needed>, NeededError> {
    let path = dir.join(METADATA);
    let text = std::fs::read_to_string(&path).map_err(NeededError::io(&path))?;
    let meta: TableMeta = serde_json::from_str(&text)
        .map_err(|e| NeededError::malformed(&path, format!("not ipc-parts metadata: {e}")))?;
    let mut total = Needed {
        bytes: text.len() as u64,
        ranges: 1,
    };
    let mut first = 0u64;
    for part in &meta.partitions {
        let span = first..first + part.rows;
        first = span.end;
        let Some(rows) = rows_in(&read.rows, part, span) else {
            continue;
        };
        let read = Read {
            columns: read.columns.clone(),
            rows,
        };
        match ipc::needed(&dir.join(&part.file), &read)? {
            Some(needed) => total = total.plus(needed),
            None => return Ok(None),
        }
    }
    Ok(Some(total))
}

/// The rows of `rows` that partition `part` (rows `span` of the table) may hold, counted
/// from its first row; `None` when it holds none.
fn rows_in(rows: &Rows, part: &Partition, span: Range<u64>) -> Option<Rows> {
    match rows {
        Rows::All => Some(Rows::All),
        Rows::Positions(positions) => {
            let local: Vec<Range<u64>> = positions
                .iter()
                .filter_map(|r| {
                    let (lo, hi) = (r.start.max(span.start), r.end.min(span.end));
                    (lo < hi).then(|| lo - span.start..hi - span.start)
                })
                .collect();
            (!local.is_empty()).then_some(Rows::Positions(local))
        }
        Rows::Index { lo, hi, .. } => {
            // Bounds that are not integers (another kind of index) rule nothing out.
            let min = part.min.as_ref().and_then(serde_json::Value::as_i64);
            let max = part.max.as_ref().and_then(serde_json::Value::as_i64);
            let may = max.is_none_or(|max| max >= *lo) && min.is_none_or(|min| min < *hi);
            may.then(|| rows.clone())
        }
    }
}
