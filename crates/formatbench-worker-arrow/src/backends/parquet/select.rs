//! Which rows of which row groups a row-selective read decodes. Position ranges and takes keep
//! only the row groups holding their rows; index ranges keep the row groups whose statistics
//! may hold a value in the range, and inside them only the pages whose minimum and maximum in
//! the page index may. A reader given the plan opens only its row groups and, with the offset
//! index loaded, fetches only the pages holding selected rows.

use crate::rows::index_mask;
use crate::WorkerError;
use arrow::array::RecordBatch;
use parquet::arrow::arrow_reader::{ArrowPredicateFn, ArrowReaderBuilder, RowFilter, RowSelection};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::statistics::Statistics;
use std::ops::Range;

/// Rows to decode, as sorted, disjoint ranges of row positions in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RowPlan {
    pub ranges: Vec<Range<usize>>,
}

impl RowPlan {
    /// Rows `ranges` (sorted; overlapping or touching ones are merged).
    pub fn new(ranges: impl IntoIterator<Item = Range<usize>>) -> RowPlan {
        let mut merged: Vec<Range<usize>> = Vec::new();
        for range in ranges.into_iter().filter(|r| r.start < r.end) {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        RowPlan { ranges: merged }
    }

    /// The rows `rows`, one contiguous run.
    pub fn span(rows: Range<usize>) -> RowPlan {
        RowPlan::new(std::iter::once(rows))
    }

    pub fn rows(&self) -> usize {
        self.ranges.iter().map(|r| r.len()).sum()
    }

    /// The row groups holding selected rows, and the selection over those groups' rows (the
    /// reader counts rows of the groups it opens only).
    fn groups_and_selection(&self, meta: &ParquetMetaData) -> (Vec<usize>, RowSelection) {
        let mut groups = Vec::new();
        let mut selected = Vec::new();
        let mut kept_rows = 0;
        let mut group_start = 0;
        let mut next = 0;
        for (group, row_group) in meta.row_groups().iter().enumerate() {
            let rows = row_group.num_rows().max(0) as usize;
            let group_end = group_start + rows;
            let mut held = false;
            while let Some(range) = self.ranges.get(next).filter(|r| r.start < group_end) {
                let (lo, hi) = (range.start.max(group_start), range.end.min(group_end));
                if lo < hi {
                    held = true;
                    selected.push(kept_rows + lo - group_start..kept_rows + hi - group_start);
                }
                if range.end > group_end {
                    break;
                }
                next += 1;
            }
            if held {
                groups.push(group);
                kept_rows += rows;
            }
            group_start = group_end;
        }
        let selection = RowSelection::from_consecutive_ranges(selected.into_iter(), kept_rows);
        (groups, selection)
    }

    /// Whether this plan leaves something unread: a row group holding none of its rows or,
    /// where the offset index says where pages lie, a page holding none (what a method may
    /// then call pruned).
    pub fn prunes(&self, meta: &ParquetMetaData) -> bool {
        let holds = |rows: Range<usize>| {
            let first = self.ranges.partition_point(|r| r.end <= rows.start);
            self.ranges.get(first).is_some_and(|r| r.start < rows.end)
        };
        let index = meta.page_index().filter(|i| i.has_offset_indexes());
        let mut group_start = 0;
        for (group, row_group) in meta.row_groups().iter().enumerate() {
            let rows = row_group.num_rows().max(0) as usize;
            let group_rows = group_start..group_start + rows;
            if !holds(group_rows.clone()) {
                return true;
            }
            for leaf in 0..row_group.num_columns() {
                let Some(offsets) = index.and_then(|i| i.offset_index(group, leaf)) else {
                    continue;
                };
                let pages = offsets.page_locations();
                for (page, location) in pages.iter().enumerate() {
                    let start = group_start + location.first_row_index.max(0) as usize;
                    let end = pages.get(page + 1).map_or(group_rows.end, |next| {
                        group_start + next.first_row_index.max(0) as usize
                    });
                    if start < end && !holds(start..end) {
                        return true;
                    }
                }
            }
            group_start = group_rows.end;
        }
        false
    }

    /// `builder` reading only this plan's rows.
    pub fn apply<T>(&self, builder: ArrowReaderBuilder<T>) -> ArrowReaderBuilder<T> {
        let (groups, selection) = self.groups_and_selection(builder.metadata());
        builder
            .with_row_groups(groups)
            .with_row_selection(selection)
    }

    /// The rows of this plan where `matches` (one flag per planned row, in order) is true.
    pub fn narrowed(&self, matches: impl IntoIterator<Item = bool>) -> RowPlan {
        let mut flags = matches.into_iter();
        let mut kept: Vec<Range<usize>> = Vec::new();
        for range in &self.ranges {
            for row in range.clone() {
                if flags.next() != Some(true) {
                    continue;
                }
                match kept.last_mut() {
                    Some(last) if last.end == row => last.end = row + 1,
                    _ => kept.push(row..row + 1),
                }
            }
        }
        RowPlan { ranges: kept }
    }
}

/// The rows a reader decodes: a plan's, optionally with the index column's filter deciding
/// each of them as it reads them.
pub(super) enum Rows<'a> {
    Plan(&'a RowPlan),
    Filtered(&'a RowPlan, &'a IndexFilter),
}

/// `lo <= column < hi` on the top-level integer column `root` named `name`.
pub(super) struct IndexFilter {
    pub root: usize,
    pub name: String,
    pub lo: i64,
    pub hi: i64,
}

impl IndexFilter {
    /// The filter of `column` in `[start, end)` on `schema`, and how its values are compared.
    pub fn of(
        schema: &arrow::datatypes::Schema,
        column: &str,
        start: i64,
        end: i64,
    ) -> Result<(IndexFilter, IndexKind), WorkerError> {
        let root = schema.index_of(column).map_err(|_| {
            WorkerError::Invalid(format!("index column '{column}' is not in the table"))
        })?;
        let kind = IndexKind::of(schema.field(root).data_type());
        let filter = IndexFilter {
            root,
            name: column.to_string(),
            lo: start,
            hi: end,
        };
        Ok((filter, kind))
    }
}

impl Rows<'_> {
    pub fn apply<T>(&self, builder: ArrowReaderBuilder<T>) -> ArrowReaderBuilder<T> {
        match self {
            Rows::Plan(plan) => plan.apply(builder),
            Rows::Filtered(plan, filter) => {
                let mask = root_mask(builder.metadata(), filter.root);
                let (name, lo, hi) = (filter.name.clone(), filter.lo, filter.hi);
                let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
                    index_mask(&batch, &name, lo, hi)
                });
                plan.apply(builder)
                    .with_row_filter(RowFilter::new(vec![Box::new(predicate)]))
            }
        }
    }
}

/// Rows whose index lies in the filter's range, every column of them, read by `read(threads,
/// columns, rows)`. Only the candidate rows (row groups by statistics, pages by the page index)
/// are read. With one reader its filter decides each candidate as it goes; with several, the
/// index column's candidates are read once first and each reader then reads the matching rows
/// alone (every reader evaluating the filter would read the index column once each). Also
/// says whether the candidates left row groups or pages unread.
pub(super) fn index_range(
    meta: &ParquetMetaData,
    filter: &IndexFilter,
    kind: IndexKind,
    threads: usize,
    columns: &[usize],
    read: impl Fn(usize, &[usize], Rows) -> Result<Vec<RecordBatch>, WorkerError>,
) -> Result<(Vec<RecordBatch>, bool), WorkerError> {
    let total = meta.file_metadata().num_rows().max(0) as usize;
    let candidates = match leaf_of(meta, filter.root) {
        Some(leaf) => index_candidates(meta, leaf, kind, filter.lo, filter.hi),
        None => RowPlan::span(0..total),
    };
    let pruned = candidates.prunes(meta);
    if crate::parallel::split(columns, threads).len() <= 1 {
        return Ok((
            read(threads, columns, Rows::Filtered(&candidates, filter))?,
            pruned,
        ));
    }
    let keys = read(1, &[filter.root], Rows::Plan(&candidates))?;
    let mut flags = Vec::with_capacity(candidates.rows());
    for batch in &keys {
        let mask = index_mask(batch, &filter.name, filter.lo, filter.hi)?;
        flags.extend(mask.iter().map(|m| m == Some(true)));
    }
    let matching = candidates.narrowed(flags);
    Ok((read(threads, columns, Rows::Plan(&matching))?, pruned))
}

/// Whether the file's offset index is loaded for every column chunk: then selected rows are
/// read page by page, else whole column chunks of the kept row groups are.
pub(super) fn has_offset_index(meta: &ParquetMetaData) -> bool {
    meta.page_index()
        .is_some_and(|index| index.has_offset_indexes())
}

/// How an integer index column's statistics compare with the range's bounds: Parquet stores
/// unsigned 32- and 64-bit integers in signed physical types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IndexKind {
    Signed,
    Unsigned,
}

impl IndexKind {
    pub fn of(data_type: &arrow::datatypes::DataType) -> IndexKind {
        use arrow::datatypes::DataType::{UInt32, UInt64};
        match data_type {
            UInt32 | UInt64 => IndexKind::Unsigned,
            _ => IndexKind::Signed,
        }
    }

    fn int32(self, v: i32) -> i128 {
        match self {
            IndexKind::Signed => i128::from(v),
            IndexKind::Unsigned => i128::from(v as u32),
        }
    }

    fn int64(self, v: i64) -> i128 {
        match self {
            IndexKind::Signed => i128::from(v),
            IndexKind::Unsigned => i128::from(v as u64),
        }
    }
}

/// The one leaf column of the top-level column `root`, or `None` for a nested column.
pub(super) fn leaf_of(meta: &ParquetMetaData, root: usize) -> Option<usize> {
    let schema = meta.file_metadata().schema_descr();
    let mut leaves =
        (0..schema.num_columns()).filter(|&leaf| schema.get_column_root_idx(leaf) == root);
    match (leaves.next(), leaves.next()) {
        (Some(leaf), None) => Some(leaf),
        _ => None,
    }
}

/// The projection of the top-level column `root` alone.
pub(super) fn root_mask(meta: &ParquetMetaData, root: usize) -> ProjectionMask {
    ProjectionMask::roots(meta.file_metadata().schema_descr(), [root])
}

/// Whether `[min, max]` may hold a value of `[lo, hi)`; unknown bounds may.
fn overlaps(min: Option<i128>, max: Option<i128>, lo: i64, hi: i64) -> bool {
    max.is_none_or(|max| max >= i128::from(lo)) && min.is_none_or(|min| min < i128::from(hi))
}

/// A row group's statistics for the leaf: may it hold a value of `[lo, hi)`?
fn group_may_hold(
    meta: &ParquetMetaData,
    group: usize,
    leaf: usize,
    kind: IndexKind,
    lo: i64,
    hi: i64,
) -> bool {
    match meta.row_group(group).column(leaf).statistics() {
        Some(Statistics::Int64(s)) => overlaps(
            s.min_opt().map(|&v| kind.int64(v)),
            s.max_opt().map(|&v| kind.int64(v)),
            lo,
            hi,
        ),
        Some(Statistics::Int32(s)) => overlaps(
            s.min_opt().map(|&v| kind.int32(v)),
            s.max_opt().map(|&v| kind.int32(v)),
            lo,
            hi,
        ),
        _ => true,
    }
}

/// The pages of a row group's leaf that may hold a value of `[lo, hi)`, as row ranges within
/// the row group; `None` when the page index does not say (every row of the group may).
fn pages_may_hold(
    meta: &ParquetMetaData,
    group: usize,
    leaf: usize,
    kind: IndexKind,
    lo: i64,
    hi: i64,
) -> Option<Vec<Range<usize>>> {
    let index = meta.page_index()?;
    let (column, offsets) = (
        index.column_index(group, leaf)?,
        index.offset_index(group, leaf)?,
    );
    let pages = offsets.page_locations();
    if column.num_pages() as usize != pages.len() {
        return None;
    }
    let rows = meta.row_group(group).num_rows().max(0) as usize;
    let bounds = |page: usize| -> (Option<i128>, Option<i128>) {
        match column {
            ColumnIndexMetaData::INT64(i) => (
                i.min_value(page).map(|&v| kind.int64(v)),
                i.max_value(page).map(|&v| kind.int64(v)),
            ),
            ColumnIndexMetaData::INT32(i) => (
                i.min_value(page).map(|&v| kind.int32(v)),
                i.max_value(page).map(|&v| kind.int32(v)),
            ),
            _ => (None, None),
        }
    };
    let mut kept = Vec::new();
    for (page, location) in pages.iter().enumerate() {
        // A page of nulls only holds no value of any range.
        if column.is_null_page(page) {
            continue;
        }
        let (min, max) = bounds(page);
        if !overlaps(min, max, lo, hi) {
            continue;
        }
        let start = location.first_row_index.max(0) as usize;
        let end = pages
            .get(page + 1)
            .map_or(rows, |next| next.first_row_index.max(0) as usize);
        kept.push(start.min(rows)..end.min(rows));
    }
    Some(kept)
}

/// The rows whose index value may lie in `[lo, hi)`, judged from the row groups' statistics and
/// the page index (a superset of the matching rows; the reader's filter decides each row).
pub(super) fn index_candidates(
    meta: &ParquetMetaData,
    leaf: usize,
    kind: IndexKind,
    lo: i64,
    hi: i64,
) -> RowPlan {
    let mut ranges = Vec::new();
    let mut group_start = 0;
    for group in 0..meta.num_row_groups() {
        let rows = meta.row_group(group).num_rows().max(0) as usize;
        if group_may_hold(meta, group, leaf, kind, lo, hi) {
            match pages_may_hold(meta, group, leaf, kind, lo, hi) {
                Some(pages) => ranges.extend(
                    pages
                        .into_iter()
                        .map(|p| group_start + p.start..group_start + p.end),
                ),
                None => ranges.push(group_start..group_start + rows),
            }
        }
        group_start += rows;
    }
    RowPlan::new(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, Int64Array};
    use arrow::datatypes::{DataType, Field, Schema};
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::PageIndexPolicy;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;

    /// 1,000 rows of `id` 0..1000 in row groups of 100 rows and pages of 20.
    fn metadata() -> ParquetMetaData {
        let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(100))
            .set_data_page_row_count_limit(20)
            .set_write_batch_size(20)
            .build();
        let mut bytes = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut bytes, schema.clone(), Some(props)).unwrap();
        let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..1000));
        writer
            .write(&RecordBatch::try_new(schema, vec![ids]).unwrap())
            .unwrap();
        writer.close().unwrap();
        let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
        let meta = ArrowReaderMetadata::load(&bytes::Bytes::from(bytes), options).unwrap();
        meta.metadata().as_ref().clone()
    }

    #[test]
    fn an_index_range_keeps_only_the_pages_that_may_hold_it() {
        let meta = metadata();
        assert_eq!(meta.num_row_groups(), 10);
        let plan = index_candidates(&meta, 0, IndexKind::Signed, 250, 330);
        // Pages [240, 260) … [320, 340): row groups 2 and 3, nothing else.
        assert_eq!(plan.ranges, vec![240..340]);
        let (groups, selection) = plan.groups_and_selection(&meta);
        assert_eq!(groups, vec![2, 3]);
        assert_eq!(selection.row_count(), 100);
        assert_eq!(selection.skipped_row_count(), 100);
        assert!(index_candidates(&meta, 0, IndexKind::Signed, 2000, 3000)
            .ranges
            .is_empty());
    }

    #[test]
    fn rows_map_to_the_row_groups_that_hold_them() {
        let meta = metadata();
        let plan = RowPlan::new([5..6, 150..260, 990..1000]);
        let (groups, selection) = plan.groups_and_selection(&meta);
        assert_eq!(groups, vec![0, 1, 2, 9]);
        assert_eq!(selection.row_count(), 1 + 110 + 10);
        assert_eq!(selection.row_count() + selection.skipped_row_count(), 400);
        assert_eq!(
            plan.narrowed([true, false].into_iter().cycle()).ranges[..2],
            [5..6, 151..152]
        );
    }

    #[test]
    fn a_plan_prunes_only_what_holds_none_of_its_rows() {
        let meta = metadata();
        assert!(RowPlan::span(250..330).prunes(&meta));
        assert!(!RowPlan::span(0..1000).prunes(&meta));
        // A row in every page of 20 rows: nothing left unread.
        assert!(!RowPlan::new((0..50).map(|p| p * 20 + 3..p * 20 + 4)).prunes(&meta));
        assert!(RowPlan::new((1..50).map(|p| p * 20 + 3..p * 20 + 4)).prunes(&meta));
    }

    #[test]
    fn unsigned_statistics_compare_as_unsigned() {
        assert_eq!(IndexKind::Unsigned.int64(-1), i128::from(u64::MAX));
        assert!(overlaps(
            Some(IndexKind::Unsigned.int32(-1)),
            None,
            i64::from(u32::MAX),
            i64::MAX
        ));
        assert!(!overlaps(
            Some(IndexKind::Signed.int32(-1)),
            Some(-1),
            0,
            10
        ));
    }
}
