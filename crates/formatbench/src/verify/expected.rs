//! What an operation must return, computed from the canonical source by streaming it.

use crate::Error;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use formatbench_protocol::{Op, OpParams, RangeSpec};
use formatbench_worker_arrow::backends::column_indices;
use formatbench_worker_arrow::rows::{filter_index_range, take_positions};
use formatbench_worker_arrow::source;
use std::path::Path;

pub type BatchStream = Box<dyn Iterator<Item = Result<RecordBatch, Error>>>;

fn missing(what: &str) -> Error {
    Error::Input(format!("the operation needs {what}"))
}

/// The expected schema and batches of `op` with `params` on the source at `path`.
pub fn expected_batches(
    path: &Path,
    op: Op,
    params: &OpParams,
) -> Result<(SchemaRef, BatchStream), Error> {
    let reader = source::open(path)?;
    let schema = reader.schema();
    let all: BatchStream = Box::new(reader.map(|b| b.map_err(Error::from)));
    Ok(match op {
        Op::Write | Op::Read | Op::Scan => (schema, all),
        Op::Project => {
            let names = params
                .columns
                .as_deref()
                .ok_or_else(|| missing("columns"))?;
            let indices = column_indices(&schema, names)?;
            let projected = std::sync::Arc::new(schema.project(&indices)?);
            let stream = all.map(move |b| b.and_then(|b| b.project(&indices).map_err(Error::from)));
            (projected, Box::new(stream))
        }
        Op::Range => match params.range.clone().ok_or_else(|| missing("a range"))? {
            RangeSpec::Index { column, start, end } => {
                let stream = all
                    .map(move |b| b.and_then(|b| Ok(filter_index_range(&b, &column, start, end)?)));
                (schema, Box::new(stream))
            }
            RangeSpec::Position { start, end } => {
                let mut offset = 0u64;
                let stream = all.filter_map(move |b| {
                    let b = match b {
                        Ok(b) => b,
                        Err(e) => return Some(Err(e)),
                    };
                    let (first, n) = (offset, b.num_rows() as u64);
                    offset += n;
                    let from = start.max(first);
                    let to = end.min(first + n);
                    (from < to).then(|| Ok(b.slice((from - first) as usize, (to - from) as usize)))
                });
                (schema, Box::new(stream))
            }
        },
        Op::Take => {
            let rows = params.rows.as_deref().ok_or_else(|| missing("rows"))?;
            let block_rows: Vec<u64> = source::open(path)?
                .map(|b| b.map(|b| b.num_rows() as u64))
                .collect::<Result<_, _>>()?;
            let mut reader = source::open(path)?;
            let taken = take_positions(&block_rows, rows, |i| {
                reader.set_index(i)?;
                reader
                    .next()
                    .ok_or_else(|| {
                        formatbench_worker_arrow::WorkerError::Invalid("missing block".into())
                    })?
                    .map_err(Into::into)
            })?;
            (schema, Box::new(taken.into_iter().map(Ok)))
        }
    })
}
