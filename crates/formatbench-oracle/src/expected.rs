//! What an operation must return, computed from the canonical source by streaming it.

use super::oracle::{column_positions, index_range, take_rows};
use crate::Error;
use arrow::array::{AsArray, Float32Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Float32Type, Schema, SchemaRef};
use arrow::ipc::reader::FileReader;
use formatbench_protocol::{Op, OpParams, RangeSpec, Selection};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

pub type BatchStream = Box<dyn Iterator<Item = Result<RecordBatch, Error>>>;

/// The canonical source (an Arrow IPC file) as a reader of its batches, opened by arrow's own
/// reader: no reader under test opens it for the oracle.
fn open_source(path: &Path) -> Result<FileReader<BufReader<File>>, Error> {
    let what = || format!("source {}", path.display());
    let file = File::open(path).map_err(Error::io(format!("cannot open the {}", what())))?;
    FileReader::try_new_buffered(file, None).map_err(Error::unreadable(what()))
}

fn missing(what: &str) -> Error {
    Error::Input(format!("the operation needs {what}"))
}

/// The expected schema and batches of `op` with `params` on the source at `path`, from the
/// operation's `selection` (its row of the operations table) alone.
pub fn expected_batches(
    path: &Path,
    op: Op,
    params: &OpParams,
) -> Result<(SchemaRef, BatchStream), Error> {
    let reader = open_source(path)?;
    let schema = reader.schema();
    let all: BatchStream = Box::new(reader.map(|b| b.map_err(Error::from)));
    let all = match params.files.filter(|split| split.deletions) {
        Some(split) => without_deleted(all, split.deleted_rows(source_rows(path)?)),
        None => all,
    };
    Ok(match op.spec().selection {
        // A change is verified by the table it leaves: the whole source.
        Selection::Everything => (schema, all),
        // A session's result is its last query's: the projection.
        Selection::Columns => {
            let names = params
                .columns
                .as_deref()
                .ok_or_else(|| missing("columns"))?;
            let indices = column_positions(&schema, names)?;
            let projected = std::sync::Arc::new(schema.project(&indices)?);
            let stream = all.map(move |b| b.and_then(|b| b.project(&indices).map_err(Error::from)));
            (projected, Box::new(stream))
        }
        Selection::RangeRows => match params.range.clone().ok_or_else(|| missing("a range"))? {
            RangeSpec::Index { column, start, end } => {
                let stream = all.map(move |b| b.and_then(|b| index_range(&b, &column, start, end)));
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
        selection @ (Selection::Features | Selection::FeatureNorms) => {
            let indices = feature_indices(&schema);
            let projected = std::sync::Arc::new(schema.project(&indices)?);
            let stream = all.map(move |b| b.and_then(|b| b.project(&indices).map_err(Error::from)));
            if selection == Selection::Features {
                (projected, Box::new(stream))
            } else {
                let stream = stream.map(|b| b.and_then(|b| row_norms(&b)));
                (norm_schema(), Box::new(stream))
            }
        }
        selection @ (Selection::FeaturesOfRows | Selection::ColumnsOfRows) => {
            let (schema, taken) = expected_batches(path, Op::Take, params)?;
            let indices = match selection {
                Selection::FeaturesOfRows => feature_indices(&schema),
                _ => column_positions(
                    &schema,
                    params
                        .columns
                        .as_deref()
                        .ok_or_else(|| missing("columns"))?,
                )?,
            };
            let projected = std::sync::Arc::new(schema.project(&indices)?);
            let stream =
                taken.map(move |b| b.and_then(|b| b.project(&indices).map_err(Error::from)));
            (projected, Box::new(stream))
        }
        Selection::AnyOneRow => {
            return Err(Error::Input(format!(
                "'{op}' is checked against the row it returned (verify_output)"
            )))
        }
        Selection::TakenRows => {
            let rows = params.rows.as_deref().ok_or_else(|| missing("rows"))?;
            // Positions address the source as written (as the readers are asked them).
            let source_batches = open_source(path)?.map(|b| b.map_err(Error::from));
            let taken = take_rows(&schema, source_batches, rows)?;
            (schema, Box::new(taken.into_iter().map(Ok)))
        }
    })
}

/// Rows in the source.
fn source_rows(path: &Path) -> Result<u64, Error> {
    let mut rows = 0u64;
    for batch in open_source(path)? {
        rows += batch?.num_rows() as u64;
    }
    Ok(rows)
}

/// The stream without the rows at the `deleted` positions (sorted).
fn without_deleted(all: BatchStream, deleted: Vec<u64>) -> BatchStream {
    let mut offset = 0u64;
    Box::new(all.map(move |batch| {
        let batch = batch?;
        let (first, n) = (offset, batch.num_rows() as u64);
        offset += n;
        let start = deleted.partition_point(|&r| r < first);
        let end = deleted.partition_point(|&r| r < first + n);
        if start == end {
            return Ok(batch);
        }
        let mut keep = vec![true; n as usize];
        for &row in &deleted[start..end] {
            keep[(row - first) as usize] = false;
        }
        Ok(arrow::compute::filter_record_batch(
            &batch,
            &arrow::array::BooleanArray::from(keep),
        )?)
    }))
}

/// The features of a feature matrix: the float32 columns, in stored order.
fn feature_indices(schema: &arrow::datatypes::Schema) -> Vec<usize> {
    schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| f.data_type() == &DataType::Float32)
        .map(|(i, _)| i)
        .collect()
}

/// `vector_norm`'s result: one float32 column.
pub fn norm_schema() -> SchemaRef {
    std::sync::Arc::new(Schema::new(vec![Field::new(
        NORM_COLUMN,
        DataType::Float32,
        false,
    )]))
}

/// The column `vector_norm` returns.
pub const NORM_COLUMN: &str = "l2_norm";

/// Each row's L2 norm over every column of `batch` (all float32), summed in f64.
fn row_norms(batch: &RecordBatch) -> Result<RecordBatch, Error> {
    let mut sums = vec![0f64; batch.num_rows()];
    for column in batch.columns() {
        let values = column.as_primitive::<Float32Type>();
        for (sum, v) in sums.iter_mut().zip(values.values().iter()) {
            *sum += f64::from(*v) * f64::from(*v);
        }
    }
    let norms: Float32Array = sums.iter().map(|s| s.sqrt() as f32).collect();
    Ok(RecordBatch::try_new(
        norm_schema(),
        vec![std::sync::Arc::new(norms)],
    )?)
}
