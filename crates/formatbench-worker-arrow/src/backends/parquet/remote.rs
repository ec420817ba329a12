//! Parquet in object storage, read as object_store users read it: parquet's async reader over
//! `ParquetObjectReader`. The footer comes with a suffix GET, the page index with ranged GETs
//! when a selection needs it, and each projected column chunk (or page run) with ranged GETs
//! the reader coalesces; the server counts every one of them.
//!
//! `ParquetObjectReader` is deprecated in parquet 60 in favour of a reader of one's own
//! (apache/arrow-rs#10308); it is still the one object_store users run today, so it is the one
//! measured here.
#![allow(deprecated)]

use super::{
    column_indices, in_request_order, row_groups_overlapping, sorted_rows, taken_columns, Context,
    Loaded, Request,
};
use crate::remote::Remote;
use crate::rows::index_mask;
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::compute::concat_batches;
use formatbench_protocol::{ObjectTarget, RangeSpec};
use futures::TryStreamExt;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderMetadata, ArrowReaderOptions, RowFilter, RowSelection,
};
use parquet::arrow::async_reader::{ParquetObjectReader, ParquetRecordBatchStreamBuilder};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::PageIndexPolicy;

/// The artifact's one file, as an object below the artifact's key.
const DATA_OBJECT: &str = "data.parquet";

type StreamBuilder = ParquetRecordBatchStreamBuilder<ParquetObjectReader>;

struct Opened {
    remote: &'static Remote,
    reader: ParquetObjectReader,
    metadata: ArrowReaderMetadata,
}

impl Opened {
    /// The footer (and, when `page_index`, the column and offset indexes).
    fn new(target: &ObjectTarget, page_index: bool) -> Result<Opened, WorkerError> {
        let remote = Remote::get(target)?;
        let path = Remote::path(target, DATA_OBJECT);
        let mut reader = ParquetObjectReader::new(remote.store.clone(), path);
        let policy = if page_index {
            PageIndexPolicy::Optional
        } else {
            PageIndexPolicy::Skip
        };
        let options = ArrowReaderOptions::new().with_page_index_policy(policy);
        let metadata = remote.block_on(ArrowReaderMetadata::load_async(&mut reader, options))?;
        Ok(Opened {
            remote,
            reader,
            metadata,
        })
    }

    fn rows(&self) -> usize {
        self.metadata.metadata().file_metadata().num_rows() as usize
    }

    /// The columns `indices`, one stream per thread's group of columns, each configured alike.
    fn read(
        &self,
        threads: usize,
        indices: &[usize],
        configure: impl Fn(StreamBuilder) -> Result<StreamBuilder, WorkerError> + Sync,
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        crate::parallel::by_columns(threads, indices, |group| {
            let builder = ParquetRecordBatchStreamBuilder::new_with_metadata(
                self.reader.clone(),
                self.metadata.clone(),
            );
            let rows = super::batch_rows_of(builder.parquet_schema().num_columns());
            let builder = builder.with_batch_size(rows);
            let mask = ProjectionMask::roots(builder.parquet_schema(), group);
            let stream = configure(builder.with_projection(mask))?.build()?;
            let stream = stream.inspect_ok(|_| formatbench_protocol::phases::first_batch());
            Ok(self.remote.block_on(stream.try_collect::<Vec<_>>())?)
        })
    }
}

pub(super) fn read(
    ctx: &Context,
    target: &ObjectTarget,
    request: Request,
) -> Result<(Loaded, &'static str), WorkerError> {
    let all: Vec<usize> = (0..ctx.schema.fields().len()).collect();
    let selects_rows = matches!(request, Request::Range(_) | Request::Take(..));
    let file = Opened::new(target, selects_rows)?;
    let (batches, how) = match request {
        Request::All => (
            file.read(ctx.threads, &all, Ok)?,
            "async reader: suffix GET for the footer, ranged GETs of every column chunk",
        ),
        Request::Columns(names) => (
            file.read(ctx.threads, &column_indices(ctx.schema, names)?, Ok)?,
            "async reader: suffix GET for the footer, ranged GETs of the projected column chunks",
        ),
        Request::Range(RangeSpec::Position { start, end }) => {
            let total = file.rows();
            let (start, end) = (*start as usize, (*end as usize).min(total));
            let batches =
                file.read(ctx.threads, &all, |builder| {
                    let ranges = std::iter::once(start..end);
                    Ok(builder
                        .with_row_selection(RowSelection::from_consecutive_ranges(ranges, total)))
                })?;
            (
                batches,
                "async reader: footer and page index, then ranged GETs of the selected pages",
            )
        }
        Request::Range(RangeSpec::Index { column, start, end }) => {
            let index = ctx.schema.index_of(column).map_err(|_| {
                WorkerError::Invalid(format!("index column '{column}' is not in the table"))
            })?;
            let (lo, hi) = (*start, *end);
            let groups = row_groups_overlapping(file.metadata.metadata(), index, lo, hi);
            let batches = file.read(ctx.threads, &all, |builder| {
                let mask = ProjectionMask::roots(builder.parquet_schema(), [index]);
                let name = column.clone();
                let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
                    index_mask(&batch, &name, lo, hi)
                });
                Ok(builder
                    .with_row_groups(groups.clone())
                    .with_row_filter(RowFilter::new(vec![Box::new(predicate)])))
            })?;
            (
                batches,
                "async reader: row groups pruned by statistics, filter on the index column",
            )
        }
        Request::Take(rows, columns) => {
            let total = file.rows();
            let (indices, schema) = taken_columns(ctx, columns)?;
            let sorted = sorted_rows(rows, total)?;
            let found =
                file.read(ctx.threads, &indices, |builder| {
                    let ranges = sorted.iter().map(|&r| r..r + 1);
                    Ok(builder
                        .with_row_selection(RowSelection::from_consecutive_ranges(ranges, total)))
                })?;
            let found = concat_batches(&schema, &found)?;
            (
                vec![in_request_order(&found, rows, &sorted)?],
                "async reader: footer and page index, ranged GETs of the pages holding the rows + reorder",
            )
        }
    };
    Ok((Loaded::Table(batches), how))
}
