//! Parquet in object storage: parquet's async reader over a reader of our own
//! ([`fetch::RuledReader`], as parquet 60 recommends in place of the deprecated
//! `ParquetObjectReader`). The footer comes with suffix GETs, the page index of the columns
//! read with ranged GETs when a selection needs it, and each projected column chunk (or page
//! run) with ranged GETs merged only where a gap costs less than a round trip on the run's
//! network; the server counts every one of them.

use super::fetch::RuledReader;
use super::select::{self, IndexFilter, RowPlan, Rows};
use super::{
    column_indices, in_request_order, sorted_rows, taken_columns, Context, Loaded, Request,
};
use crate::remote::Remote;
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::compute::concat_batches;
use formatbench_protocol::{ObjectTarget, RangeSpec};
use futures::TryStreamExt;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::arrow::async_reader::ParquetRecordBatchStreamBuilder;
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::PageIndexPolicy;

struct Opened {
    remote: &'static Remote,
    reader: RuledReader,
    metadata: ArrowReaderMetadata,
}

impl Opened {
    /// The footer, with `offsets` the offset index (row selections) and with `columns` the
    /// column index too (index ranges), of the root columns `indexed` (all when `None`).
    fn new(
        target: &ObjectTarget,
        object: &str,
        offsets: bool,
        columns: bool,
        indexed: Option<Vec<usize>>,
    ) -> Result<Opened, WorkerError> {
        let remote = crate::remote::client(target)?;
        let path = Remote::path(target, object);
        let rule = formatbench_s3_client::ranges::Coalesce::for_target(target);
        let mut reader = RuledReader::new(remote.store.clone(), path, rule, indexed);
        let policy = |wanted: bool| match wanted {
            true => PageIndexPolicy::Optional,
            false => PageIndexPolicy::Skip,
        };
        let options = ArrowReaderOptions::new()
            .with_offset_index_policy(policy(offsets))
            .with_column_index_policy(policy(columns && offsets));
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

    /// The columns `indices`, one stream per thread's group of columns, each reading the same
    /// `rows` (all when `None`).
    fn read(
        &self,
        threads: usize,
        indices: &[usize],
        rows: Option<Rows>,
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        crate::parallel::by_columns(threads, indices, |group| {
            let builder = ParquetRecordBatchStreamBuilder::new_with_metadata(
                self.reader.clone(),
                self.metadata.clone(),
            );
            let batch = super::batch_rows_of(builder.parquet_schema().num_columns());
            let builder = builder.with_batch_size(batch);
            let mask = ProjectionMask::roots(builder.parquet_schema(), group);
            let builder = builder.with_projection(mask);
            let builder = match &rows {
                Some(rows) => rows.apply(builder),
                None => builder,
            };
            let stream = builder.build()?;
            let stream = stream.inspect_ok(|_| formatbench_protocol::phases::first_batch());
            Ok(self.remote.block_on(stream.try_collect::<Vec<_>>())?)
        })
    }
}

/// `request` answered from the Parquet object `object` below the artifact's key.
pub(super) fn read(
    ctx: &Context,
    target: &ObjectTarget,
    object: &str,
    request: Request,
) -> Result<(Loaded, &'static str), WorkerError> {
    let all: Vec<usize> = (0..ctx.schema.fields().len()).collect();
    let selects_rows = matches!(request, Request::Range(_) | Request::Take(..));
    let by_index = matches!(request, Request::Range(RangeSpec::Index { .. }));
    // A take reads only its columns, so only their page index is fetched.
    let taken = match &request {
        Request::Take(_, columns) => Some(taken_columns(ctx, *columns)?),
        _ => None,
    };
    let indexed = taken.as_ref().map(|(indices, _)| indices.clone());
    let file = Opened::new(target, object, selects_rows, by_index, indexed)?;
    let (batches, how) = match request {
        Request::All => (
            file.read(ctx.threads, &all, None)?,
            "async reader: suffix GET for the footer, ranged GETs of every column chunk",
        ),
        Request::Columns(names) => (
            file.read(ctx.threads, &column_indices(ctx.schema, names)?, None)?,
            "async reader: suffix GET for the footer, ranged GETs of the projected column chunks",
        ),
        Request::Range(RangeSpec::Position { start, end }) => {
            let total = file.rows();
            let (start, end) = ((*start as usize).min(total), (*end as usize).min(total));
            let plan = RowPlan::span(start..end);
            let how = match plan.prunes(file.metadata.metadata()) {
                true => "async reader: footer and page index, then ranged GETs of the pages holding the range (row groups and pages outside it pruned)",
                false => "async reader: footer and page index, then ranged GETs of every page (the range touches each)",
            };
            (file.read(ctx.threads, &all, Some(Rows::Plan(&plan)))?, how)
        }
        Request::Range(RangeSpec::Index { column, start, end }) => {
            let (filter, kind) = IndexFilter::of(ctx.schema, column, *start, *end)?;
            let (batches, pruned) = select::index_range(
                file.metadata.metadata(),
                &filter,
                kind,
                ctx.threads,
                &all,
                |threads, columns, rows| file.read(threads, columns, Some(rows)),
            )?;
            let how = match pruned {
                true => "async reader: row groups pruned by statistics and pages by the page index, then a filter on the index column",
                false => "async reader: every row group and page fetched (statistics rule none out), then a filter on the index column",
            };
            (batches, how)
        }
        Request::Take(rows, columns) => {
            let total = file.rows();
            let (indices, schema) = match taken {
                Some(taken) => taken,
                None => taken_columns(ctx, columns)?,
            };
            let sorted = sorted_rows(rows, total)?;
            let plan = RowPlan::new(sorted.iter().map(|&r| r..r + 1));
            let found = file.read(ctx.threads, &indices, Some(Rows::Plan(&plan)))?;
            let found = concat_batches(&schema, &found)?;
            (
                vec![in_request_order(&found, rows, &sorted)?],
                "async reader: footer and page index, ranged GETs of the pages holding the rows + reorder",
            )
        }
    };
    Ok((Loaded::Table(batches), how))
}
