//! Inside a partition, only the blocks (record batches) holding wanted rows are decoded. Rows
//! by position: each block's row count (from its header) says which blocks hold them. A label
//! range: a partition wholly inside the range is read whole; otherwise each block's index
//! column is read first, then the other columns of only the blocks whose labels fall in the
//! range (a contiguous run, the index being sorted), the index read once. Read by ranges (an
//! object in a bucket) this fetches the index, then those blocks; through a memory map it
//! touches only their pages, and stays zero-copy.

use super::{Projection, Rows};
use crate::error::Result;
use crate::file::Access;
use crate::key::{self, Key};
use crate::meta::PartitionMeta;
use crate::table::Table;
use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use std::cmp::Ordering;

impl Table {
    /// The rows of partition `p` inside the label range `rows`, with the projection's
    /// columns, and how many blocks were decoded with them.
    pub(super) fn range_in_partition(
        &self,
        p: usize,
        rows: &Rows,
        projection: &Projection,
        access: Access,
    ) -> Result<(Vec<RecordBatch>, usize)> {
        let file = self.open_file(p, access)?;
        let blocks: Vec<usize> = (0..file.block_rows().len())
            .filter(|&i| file.block_rows()[i] > 0)
            .collect();
        let inside = self.meta.partitions.get(p).is_some_and(|m| inside(rows, m));
        if inside {
            let decoder = file.decoder(Some(projection.stored.clone()))?;
            let batches = file
                .decode_blocks(&decoder, &blocks)?
                .into_iter()
                .map(|b| projection.arrange(b))
                .collect::<Result<Vec<_>>>()?;
            return Ok((batches, blocks.len()));
        }
        let keys = file.decode_blocks(&file.decoder(Some(vec![0]))?, &blocks)?;
        let mut matching: Vec<(usize, usize, usize, ArrayRef)> = Vec::new();
        for (&block, keyed) in blocks.iter().zip(&keys) {
            let index = keyed.column(0);
            let (lo, hi) = bounds(index, rows)?;
            if lo < hi {
                matching.push((block, lo, hi, index.clone()));
            }
        }
        // The index is read already: the other columns are decoded without it.
        let rest: Vec<usize> = projection
            .stored
            .iter()
            .copied()
            .filter(|&c| c != 0)
            .collect();
        let wanted: Vec<usize> = matching.iter().map(|m| m.0).collect();
        let decoded = match rest.is_empty() {
            true => Vec::new(),
            false => file.decode_blocks(&file.decoder(Some(rest.clone()))?, &wanted)?,
        };
        let mut out = Vec::with_capacity(matching.len());
        for (k, (_, lo, hi, index)) in matching.into_iter().enumerate() {
            let columns = projection
                .order
                .iter()
                .map(|&c| match (c, decoded.get(k)) {
                    (0, _) => Ok(index.clone()),
                    (c, Some(batch)) => {
                        Ok(batch.column(rest.binary_search(&c).unwrap_or(0)).clone())
                    }
                    (_, None) => Err(crate::StoreError::Corrupt(format!(
                        "{}: a block decoded to fewer batches than asked",
                        self.meta.partitions[p].file
                    ))),
                })
                .collect::<Result<Vec<_>>>()?;
            let options = RecordBatchOptions::new().with_row_count(Some(index.len()));
            let batch =
                RecordBatch::try_new_with_options(projection.schema.clone(), columns, &options)?;
            out.push(batch.slice(lo, hi - lo));
        }
        Ok((out, wanted.len()))
    }

    /// The blocks of partition `p` (whose first row is row `first` of the table) that hold
    /// rows `held` (sorted table positions inside the partition), decoded with the
    /// projection's columns, each with its first row in the table.
    pub(super) fn positions_in_partition(
        &self,
        p: usize,
        first: u64,
        held: &[u64],
        projection: &Projection,
        access: Access,
    ) -> Result<Vec<(u64, RecordBatch)>> {
        let file = self.open_file(p, access)?;
        let mut blocks = Vec::new();
        let mut start = first;
        let mut rest = held;
        for (i, &rows) in file.block_rows().iter().enumerate() {
            let end = start + rows;
            let here = rest.partition_point(|&r| r < end);
            if here > 0 {
                blocks.push((i, start));
            }
            rest = &rest[here..];
            start = end;
            if rest.is_empty() {
                break;
            }
        }
        let indices: Vec<usize> = blocks.iter().map(|b| b.0).collect();
        let decoder = file.decoder(Some(projection.stored.clone()))?;
        file.decode_blocks(&decoder, &indices)?
            .into_iter()
            .zip(blocks)
            .map(|(batch, (_, start))| Ok((start, projection.arrange(batch)?)))
            .collect()
    }
}

/// Whether every label of the partition lies inside the range (then no block needs its
/// index read first). An empty partition does.
fn inside(rows: &Rows, part: &PartitionMeta) -> bool {
    let (Some(min), Some(max)) = (&part.min, &part.max) else {
        return true;
    };
    let at_least = |x: &Key, bound: &Key| {
        matches!(x.compare(bound), Some(Ordering::Greater | Ordering::Equal))
    };
    let at_most =
        |x: &Key, bound: &Key| matches!(x.compare(bound), Some(Ordering::Less | Ordering::Equal));
    match rows {
        Rows::All => true,
        Rows::Before(b) => at_most(max, b),
        Rows::After(a) => at_least(min, a),
        Rows::Between(a, b) => at_least(min, a) && at_most(max, b),
        Rows::Labels(_) | Rows::LabelArray(_) | Rows::Positions(_) => false,
    }
}

/// The rows `lo..hi` of a block's sorted index inside the range.
fn bounds(index: &ArrayRef, rows: &Rows) -> Result<(usize, usize)> {
    let keys = key::keys(index)?;
    Ok(match rows {
        Rows::Before(x) => (0, key::upper_bound(keys.as_ref(), x)),
        Rows::After(x) => (key::lower_bound(keys.as_ref(), x), keys.len()),
        Rows::Between(a, b) => (
            key::lower_bound(keys.as_ref(), a),
            key::upper_bound(keys.as_ref(), b),
        ),
        Rows::All | Rows::Labels(_) | Rows::LabelArray(_) | Rows::Positions(_) => (0, keys.len()),
    })
}
