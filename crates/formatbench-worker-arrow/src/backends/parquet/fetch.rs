//! parquet's async reader over an object, with requests planned by the run's network
//! ([`Coalesce`]): the footer in two suffix GETs, the page index of only the columns read, and
//! the column chunks (or page runs) merged only where a gap costs less than a round trip.
//! parquet's `ParquetObjectReader` merges every gap under 1 MiB and fetches the page index of
//! every column, which on a 1,000-column table fetched ten times what a projection needs.

use bytes::Bytes;
use formatbench_s3_client::object_store::aws::AmazonS3;
use formatbench_s3_client::object_store::path::Path as ObjectPath;
use formatbench_s3_client::object_store::{GetOptions, GetRange, ObjectStore};
use formatbench_s3_client::ranges::{get_ranges, Coalesce};
use futures::future::BoxFuture;
use futures::FutureExt;
use parquet::arrow::arrow_reader::ArrowReaderOptions;
use parquet::arrow::async_reader::{AsyncFileReader, MetadataFetch, MetadataSuffixFetch};
use parquet::arrow::ProjectionMask;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{
    ColumnChunkMask, PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader,
};
use std::ops::Range;
use std::sync::Arc;

#[derive(Clone)]
pub(super) struct RuledReader {
    store: Arc<AmazonS3>,
    path: ObjectPath,
    rule: Coalesce,
    /// The root columns whose page index a read needs (`None`: every column's).
    indexed_roots: Option<Arc<Vec<usize>>>,
}

impl RuledReader {
    pub(super) fn new(
        store: Arc<AmazonS3>,
        path: ObjectPath,
        rule: Coalesce,
        indexed_roots: Option<Vec<usize>>,
    ) -> RuledReader {
        RuledReader {
            store,
            path,
            rule,
            indexed_roots: indexed_roots.map(Arc::new),
        }
    }

    fn ranges(&self, ranges: Vec<Range<u64>>) -> BoxFuture<'static, Result<Vec<Bytes>>> {
        let (store, path, rule) = (self.store.clone(), self.path.clone(), self.rule);
        async move {
            get_ranges(store.as_ref(), &path, &ranges, rule)
                .await
                .map_err(|e| ParquetError::External(Box::new(e)))
        }
        .boxed()
    }
}

impl MetadataSuffixFetch for &mut RuledReader {
    fn fetch_suffix(&mut self, suffix: usize) -> BoxFuture<'_, Result<Bytes>> {
        let options = GetOptions {
            range: Some(GetRange::Suffix(suffix as u64)),
            ..Default::default()
        };
        let (store, path) = (self.store.clone(), self.path.clone());
        async move {
            let got = store.get_opts(&path, options).await;
            let got = got.map_err(|e| ParquetError::External(Box::new(e)))?;
            got.bytes()
                .await
                .map_err(|e| ParquetError::External(Box::new(e)))
        }
        .boxed()
    }
}

impl AsyncFileReader for RuledReader {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        let fetched = self.ranges(vec![range]);
        async move {
            let mut fetched = fetched.await?;
            fetched
                .pop()
                .ok_or_else(|| ParquetError::General("no bytes came back".into()))
        }
        .boxed()
    }

    fn get_byte_ranges(&mut self, ranges: Vec<Range<u64>>) -> BoxFuture<'_, Result<Vec<Bytes>>> {
        self.ranges(ranges)
    }

    /// The footer, then (when `options` ask for one) the page index of the columns read.
    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, Result<Arc<ParquetMetaData>>> {
        async move {
            let metadata_options = options.map(|o| o.metadata_options().clone());
            let footer = ParquetMetaDataReader::new()
                .with_metadata_options(metadata_options.clone())
                .load_via_suffix_and_finish(&mut *self)
                .await?;
            let (offsets, columns) = options
                .map(|o| (o.offset_index_policy(), o.column_index_policy()))
                .unwrap_or((PageIndexPolicy::Skip, PageIndexPolicy::Skip));
            if offsets == PageIndexPolicy::Skip && columns == PageIndexPolicy::Skip {
                return Ok(Arc::new(footer));
            }
            let mask = match &self.indexed_roots {
                Some(roots) => {
                    let schema = footer.file_metadata().schema_descr();
                    let projection = ProjectionMask::roots(schema, roots.iter().copied());
                    ColumnChunkMask::from_projection(&projection, schema)
                }
                None => ColumnChunkMask::all(),
            };
            let pieces = index_pieces(&footer, &mask, offsets, columns);
            let mut reader = ParquetMetaDataReader::new_with_metadata(footer)
                .with_metadata_options(metadata_options)
                .with_offset_index_policy(offsets)
                .with_column_index_policy(columns)
                .with_offset_index_mask(mask.clone())
                .with_column_index_mask(mask);
            reader
                .load_page_index(Pieces {
                    reader: self,
                    wanted: pieces,
                })
                .await?;
            Ok(Arc::new(reader.finish()?))
        }
        .boxed()
    }
}

/// The byte ranges of the page index entries of the masked column chunks.
fn index_pieces(
    metadata: &ParquetMetaData,
    mask: &ColumnChunkMask,
    offsets: PageIndexPolicy,
    columns: PageIndexPolicy,
) -> Vec<Range<u64>> {
    let mut wanted = Vec::new();
    for rg in mask.row_group_indices(metadata.num_row_groups()) {
        let group = metadata.row_group(rg);
        for c in mask.column_indices(group.num_columns()) {
            let chunk = group.column(c);
            if offsets != PageIndexPolicy::Skip {
                wanted.extend(chunk.offset_index_range());
            }
            if columns != PageIndexPolicy::Skip {
                wanted.extend(chunk.column_index_range());
            }
        }
    }
    wanted
}

/// Answers the one span parquet asks for the page index with only the masked entries in
/// place (the rest zeros): its parser reads the masked entries alone, so the unmasked
/// columns' index bytes are never fetched.
struct Pieces<'a> {
    reader: &'a mut RuledReader,
    wanted: Vec<Range<u64>>,
}

impl MetadataFetch for Pieces<'_> {
    fn fetch(&mut self, span: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        let wanted: Vec<Range<u64>> = self
            .wanted
            .iter()
            .filter(|r| r.start >= span.start && r.end <= span.end)
            .cloned()
            .collect();
        let fetched = self.reader.ranges(wanted.clone());
        async move {
            let fetched = fetched.await?;
            let length = usize::try_from(span.end - span.start)?;
            let mut out = vec![0u8; length];
            for (range, bytes) in wanted.iter().zip(fetched) {
                let at = usize::try_from(range.start - span.start)?;
                let place = out.get_mut(at..at + bytes.len()).ok_or_else(|| {
                    ParquetError::General(format!("page index entry {range:?} outside {span:?}"))
                })?;
                place.copy_from_slice(&bytes);
            }
            Ok(Bytes::from(out))
        }
        .boxed()
    }
}
