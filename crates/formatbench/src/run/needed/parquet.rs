//! Parquet: what a reader must fetch, from the file's footer and page index. The footer always;
//! each read leaf column's chunk in each row group it reads; with a row selection and an
//! offset index, only the chunk's dictionary page and the data pages whose rows meet the
//! selection, plus the offset index entries that located them; for a range by index value,
//! the index column's pages whose column-index bounds meet the range (and those entries).

use super::read::{Read, Rows};
use super::spans::{holds, read_at, Needed, NeededError, Spans};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use parquet::basic::{ConvertedType, LogicalType};
use parquet::file::metadata::{
    ColumnChunkMetaData, PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader,
};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::statistics::Statistics;
use std::fs::File;
use std::ops::Range;
use std::path::Path;

/// The needed bytes of `read` on the Parquet file at `path`; `None` where the yardstick does
/// not say (an encrypted footer, a column the file lacks, an index column that is not one
/// integer leaf).
pub(super) fn needed(path: &Path, read: &Read) -> Result<Option<Needed>, NeededError> {
    let file = File::open(path).map_err(NeededError::io(path))?;
    let size = file.metadata().map_err(NeededError::io(path))?.len();
    if size < 12 {
        return Err(NeededError::malformed(path, "shorter than a Parquet file"));
    }
    // The footer: the metadata, its 4-byte length and the magic.
    let tail = read_at(&file, path, size - 8, 8)?;
    if tail[4..] != *b"PAR1" {
        return Ok(None);
    }
    let metadata_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    let footer_start = size
        .checked_sub(8 + metadata_len)
        .ok_or_else(|| NeededError::malformed(path, "its metadata is longer than the file"))?;
    let meta = ParquetMetaDataReader::new()
        .with_page_index_policy(PageIndexPolicy::Optional)
        .parse_and_finish(&file)
        .map_err(NeededError::parquet(path))?;
    let schema = meta.file_metadata().schema_descr();
    let roots = schema.root_schema().get_fields();
    let root_of = |name: &str| roots.iter().position(|f| f.name() == name);
    let mut read_roots = vec![read.columns.named().is_none(); roots.len()];
    for name in read.columns.named().unwrap_or_default() {
        match root_of(name) {
            Some(root) => read_roots[root] = true,
            None => return Ok(None),
        }
    }
    let leaves: Vec<usize> = (0..schema.num_columns())
        .filter(|&leaf| read_roots[schema.get_column_root_idx(leaf)])
        .collect();
    let mut spans = Spans::default();
    spans.add(footer_start..size);
    let (rows, index) = match &read.rows {
        Rows::All => {
            for group in meta.row_groups() {
                for &leaf in &leaves {
                    spans.add(chunk_range(group.column(leaf)));
                }
            }
            return Ok(Some(spans.needed()));
        }
        Rows::Positions(rows) => (rows.clone(), None),
        Rows::Index { column, lo, hi } => {
            let Some(root) = root_of(column) else {
                return Ok(None);
            };
            let mut of_root =
                (0..schema.num_columns()).filter(|&leaf| schema.get_column_root_idx(leaf) == root);
            let (Some(leaf), None) = (of_root.next(), of_root.next()) else {
                return Ok(None);
            };
            let descr = schema.column(leaf);
            let unsigned = matches!(
                descr.converted_type(),
                ConvertedType::UINT_32 | ConvertedType::UINT_64
            ) || matches!(
                descr.logical_type_ref(),
                Some(LogicalType::Integer(int)) if !int.is_signed
            );
            let filter = IndexFilter {
                leaf,
                lo: *lo,
                hi: *hi,
                unsigned,
            };
            (index_positions(&file, path, root, *lo, *hi)?, Some(filter))
        }
    };
    let mut group_start = 0u64;
    for (g, group) in meta.row_groups().iter().enumerate() {
        let group_rows = group.num_rows().max(0) as u64;
        let span = group_start..group_start + group_rows;
        group_start = span.end;
        // The selected rows of this group, counted from its first row.
        let held: Vec<Range<u64>> = rows
            .iter()
            .filter_map(|r| {
                let (lo, hi) = (r.start.max(span.start), r.end.min(span.end));
                (lo < hi).then(|| lo - span.start..hi - span.start)
            })
            .collect();
        // The index leaf is read wherever its statistics do not rule the range out.
        let candidate = index
            .as_ref()
            .filter(|f| f.group_may_hold(group.column(f.leaf)));
        let mut chunks = leaves.clone();
        if let Some(filter) = candidate {
            if !chunks.contains(&filter.leaf) {
                chunks.push(filter.leaf);
            }
        }
        for leaf in chunks {
            let filter = candidate.filter(|f| f.leaf == leaf);
            if held.is_empty() && filter.is_none() {
                continue;
            }
            let values = filter.and_then(|f| {
                let column = meta.page_index()?.column_index(g, leaf)?;
                Some((f, column))
            });
            chunk_pages(
                &meta,
                g,
                leaf,
                group_rows,
                &held,
                filter.is_some(),
                values,
                &mut spans,
            );
        }
    }
    Ok(Some(spans.needed()))
}

fn chunk_range(chunk: &ColumnChunkMetaData) -> Range<u64> {
    let (start, len) = chunk.byte_range();
    start..start + len
}

/// The needed bytes of one column chunk under a row selection (`held`, from the group's first
/// row); with `by_index`, its pages that may hold a value of the range (`values`: the filter
/// and the chunk's column index, where it has one; every page where it has none).
#[allow(clippy::too_many_arguments)]
fn chunk_pages(
    meta: &ParquetMetaData,
    group: usize,
    leaf: usize,
    group_rows: u64,
    held: &[Range<u64>],
    by_index: bool,
    values: Option<(&IndexFilter, &ColumnIndexMetaData)>,
    spans: &mut Spans,
) {
    let chunk = meta.row_group(group).column(leaf);
    let Some(offsets) = meta.page_index().and_then(|p| p.offset_index(group, leaf)) else {
        // Without an offset index a reader cannot find pages: it fetches the chunk.
        spans.add(chunk_range(chunk));
        return;
    };
    let pages = offsets.page_locations();
    let may_hold = |page: usize| match values {
        Some((filter, column)) => filter.page_may_hold(column, page, pages.len()),
        None => by_index,
    };
    let mut any = false;
    for (page, location) in pages.iter().enumerate() {
        let first = location.first_row_index.max(0) as u64;
        let end = pages
            .get(page + 1)
            .map_or(group_rows, |next| next.first_row_index.max(0) as u64);
        if holds(held, first..end) || may_hold(page) {
            let start = location.offset.max(0) as u64;
            spans.add(start..start + location.compressed_page_size.max(0) as u64);
            any = true;
        }
    }
    if any {
        // The dictionary page: the bytes before the first data page.
        if let Some(first) = pages.first() {
            spans.add(chunk_range(chunk).start..first.offset.max(0) as u64);
        }
    }
    if let Some(range) = chunk.offset_index_range() {
        spans.add(range);
    }
    if let (true, Some(range)) = (by_index, chunk.column_index_range()) {
        spans.add(range);
    }
}

/// A range by index value on the file's integer leaf `leaf`.
struct IndexFilter {
    leaf: usize,
    lo: i64,
    hi: i64,
    /// Parquet keeps unsigned integers in signed physical types.
    unsigned: bool,
}

impl IndexFilter {
    fn widen32(&self, v: i32) -> i128 {
        match self.unsigned {
            true => i128::from(v as u32),
            false => i128::from(v),
        }
    }

    fn widen64(&self, v: i64) -> i128 {
        match self.unsigned {
            true => i128::from(v as u64),
            false => i128::from(v),
        }
    }

    /// Whether `[min, max]` may hold a value of `[lo, hi)`; an unknown bound may.
    fn overlaps(&self, min: Option<i128>, max: Option<i128>) -> bool {
        max.is_none_or(|max| max >= i128::from(self.lo))
            && min.is_none_or(|min| min < i128::from(self.hi))
    }

    fn group_may_hold(&self, chunk: &ColumnChunkMetaData) -> bool {
        match chunk.statistics() {
            Some(Statistics::Int64(s)) => self.overlaps(
                s.min_opt().map(|&v| self.widen64(v)),
                s.max_opt().map(|&v| self.widen64(v)),
            ),
            Some(Statistics::Int32(s)) => self.overlaps(
                s.min_opt().map(|&v| self.widen32(v)),
                s.max_opt().map(|&v| self.widen32(v)),
            ),
            _ => true,
        }
    }

    /// Whether page `page` of `pages` may hold a value of the range by the column index.
    fn page_may_hold(&self, column: &ColumnIndexMetaData, page: usize, pages: usize) -> bool {
        if column.num_pages() as usize != pages {
            return true;
        }
        if column.is_null_page(page) {
            return false;
        }
        let (min, max) = match column {
            ColumnIndexMetaData::INT64(i) => (
                i.min_value(page).map(|&v| self.widen64(v)),
                i.max_value(page).map(|&v| self.widen64(v)),
            ),
            ColumnIndexMetaData::INT32(i) => (
                i.min_value(page).map(|&v| self.widen32(v)),
                i.max_value(page).map(|&v| self.widen32(v)),
            ),
            _ => (None, None),
        };
        self.overlaps(min, max)
    }
}

/// The positions of the rows whose value of the top-level column `root` lies in `[lo, hi)`,
/// read from the local file (the yardstick's own reading, not the measured reader's).
fn index_positions(
    file: &File,
    path: &Path,
    root: usize,
    lo: i64,
    hi: i64,
) -> Result<Vec<Range<u64>>, NeededError> {
    let file = file.try_clone().map_err(NeededError::io(path))?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(NeededError::parquet(path))?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), [root]);
    let reader = builder
        .with_projection(mask)
        .build()
        .map_err(NeededError::parquet(path))?;
    super::spans::index_rows(reader, path, lo, hi)
}
