//! Reads: rows by inclusive label ranges or label lists, columns by list or like-pattern;
//! only the partitions that can hold the rows are opened, only the wanted columns decoded,
//! and inside a partition only the blocks holding wanted rows (see `blocks`).

mod blocks;
mod labels;

use crate::error::{listing, Result, StoreError};
use crate::file::Access;
use crate::key::Key;
use crate::like;
use crate::parallel::in_parallel;
use crate::table::Table;
use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use labels::{LabelList, Opened, Runs};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which rows, by index label. Bounds are inclusive and need not exist in the table.
#[derive(Debug, Clone, PartialEq)]
pub enum Rows {
    All,
    /// Labels at most this one.
    Before(Key),
    /// Labels at least this one.
    After(Key),
    /// Labels from the first to the second, both included.
    Between(Key, Key),
    /// Exactly these labels, in this order; a missing one is an error naming it.
    Labels(Vec<Key>),
    /// The same as `Labels`, the labels held as an Arrow array (a type an index can have, no
    /// nulls): a list of millions costs no `Key` per label.
    LabelArray(ArrayRef),
    /// The rows at these positions (0 is the first row of the table), in this order.
    Positions(Vec<u64>),
}

/// Which columns. Except with `Only`, the index is always returned, first unless a list
/// places it (FeatherStore's semantics).
#[derive(Debug, Clone, PartialEq)]
pub enum Cols {
    All,
    /// These columns in this order.
    List(Vec<String>),
    /// Columns whose names match a FeatherStore like-pattern (`%`, `?`), in stored order.
    Like(String),
    /// Exactly these columns in this order: the index only if listed. A reader that does not
    /// want the labels back then reads none of the index's bytes where the rows do not need
    /// it (a projection, rows by position).
    Only(Vec<String>),
}

#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    pub access: Access,
    /// Partitions read at once with plain reads (mapping needs no threads).
    pub threads: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            access: Access::Mmap,
            threads: 1,
        }
    }
}

/// A read's result and which partitions it opened.
#[derive(Debug, Clone)]
pub struct Selection {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
    /// Positions of the partitions opened, ascending.
    pub partitions_opened: Vec<usize>,
    /// Record batches (blocks) decoded with the read's columns, over all the partitions
    /// opened; blocks whose index column alone was read, to find a label range's rows, are
    /// not counted.
    pub blocks_decoded: usize,
}

impl Selection {
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
    /// The result as one batch (copies when it spans several).
    pub fn concat(&self) -> Result<RecordBatch> {
        Ok(arrow::compute::concat_batches(&self.schema, &self.batches)?)
    }
}

impl Table {
    pub fn read(&self, rows: &Rows, cols: &Cols, options: &ReadOptions) -> Result<Selection> {
        let order = self.column_order(cols)?;
        let projection = Projection::new(&self.schema, order)?;
        let (partitions, batches, blocks_decoded) = match rows {
            Rows::Labels(labels) => {
                self.read_labels(&LabelList::Keys(labels), &projection, options)?
            }
            Rows::LabelArray(labels) => {
                let labels = LabelList::of_array(labels, self.meta.index.kind)?;
                self.read_labels(&labels, &projection, options)?
            }
            Rows::Positions(positions) => self.read_positions(positions, &projection, options)?,
            _ => {
                let partitions: Vec<usize> = self.partition_range(rows)?.collect();
                let loaded = self.each_partition(options, &partitions, |p| {
                    self.range_in_partition(p, rows, &projection, options.access)
                })?;
                let mut out = Vec::new();
                let mut decoded = 0;
                for (batches, blocks) in loaded {
                    out.extend(batches.into_iter().filter(|b| b.num_rows() > 0));
                    decoded += blocks;
                }
                (partitions, out, decoded)
            }
        };
        Ok(Selection {
            schema: projection.schema,
            batches,
            partitions_opened: partitions,
            blocks_decoded,
        })
    }

    /// `work` on each partition, several at once for plain reads (mapping needs no threads;
    /// a table in object storage fetches each partition's ranges concurrently already).
    fn each_partition<R: Send>(
        &self,
        options: &ReadOptions,
        partitions: &[usize],
        work: impl Fn(usize) -> Result<R> + Sync,
    ) -> Result<Vec<R>> {
        let threads = match options.access {
            Access::Mmap => 1,
            Access::Plain => options.threads,
        };
        in_parallel(threads, partitions, |group| {
            group.iter().map(|&p| work(p)).collect()
        })
    }

    /// File column positions in output order: the index first unless the list places it (or,
    /// with `Only`, leaves it out).
    fn column_order(&self, cols: &Cols) -> Result<Vec<usize>> {
        let fields = self.schema.fields();
        let mut order: Vec<usize> = match cols {
            Cols::All => return Ok((0..fields.len()).collect()),
            Cols::List(names) | Cols::Only(names) => {
                let mut missing = Vec::new();
                let found: Vec<usize> = names
                    .iter()
                    .filter_map(|n| {
                        let found = self.schema.index_of(n).ok();
                        if found.is_none() {
                            missing.push(format!("'{n}'"));
                        }
                        found
                    })
                    .collect();
                if !missing.is_empty() {
                    return Err(StoreError::UnknownColumns(listing(&missing)));
                }
                found
            }
            Cols::Like(pattern) => (1..fields.len())
                .filter(|&i| like::matches(pattern, fields[i].name()))
                .collect(),
        };
        let mut seen = std::collections::BTreeSet::new();
        order.retain(|c| seen.insert(*c));
        if !order.contains(&0) && !matches!(cols, Cols::Only(_)) {
            order.insert(0, 0);
        }
        Ok(order)
    }

    /// The partitions a range request must open (§6 of the FeatherStore notes, made tight:
    /// a bound that falls between two partitions opens neither neighbour needlessly).
    fn partition_range(&self, rows: &Rows) -> Result<std::ops::Range<usize>> {
        let kind = self.meta.index.kind;
        let all = self.meta.partitions.len();
        Ok(match rows {
            Rows::All | Rows::Labels(_) | Rows::LabelArray(_) | Rows::Positions(_) => 0..all,
            Rows::Before(x) => {
                kind.admits(x)?;
                0..self.partitions_starting_by(x)
            }
            Rows::After(x) => {
                kind.admits(x)?;
                self.first_partition_reaching(x)..all
            }
            Rows::Between(a, b) => {
                kind.admits(a)?;
                kind.admits(b)?;
                let start = self.first_partition_reaching(a);
                start..self.partitions_starting_by(b).max(start)
            }
        })
    }

    /// The rows of `labels`, in list order. Finding them needs the index: read along when
    /// the columns leave it out, and dropped after.
    fn read_labels(
        &self,
        labels: &LabelList,
        projection: &Projection,
        options: &ReadOptions,
    ) -> Result<(Vec<usize>, Vec<RecordBatch>, usize)> {
        let mut work = projection.order.clone();
        let added = !work.contains(&0);
        if added {
            work.push(0);
        }
        let index_at = work.iter().position(|&c| c == 0).unwrap_or(0);
        let work = Projection::new(&self.schema, work)?;
        let (wanted, mut missing) = self.partitions_of(labels)?;
        let loaded = self.each_partition(options, &wanted, |p| {
            let file = self.open_file(p, options.access)?;
            let all: Vec<usize> = (0..file.block_rows().len()).collect();
            let decoder = file.decoder(Some(work.stored.clone()))?;
            file.decode_blocks(&decoder, &all)?
                .into_iter()
                .map(|b| work.arrange(b))
                .collect::<Result<Vec<_>>>()
        })?;
        let opened = opened(&wanted, loaded);
        let decoded = opened.batches.len();
        let runs = self.locate(labels, &opened, index_at, &mut missing)?;
        if !missing.is_empty() {
            return Err(labels::not_found(missing));
        }
        let mut batches = runs.gather(&opened.batches, &work.schema)?;
        if added {
            let keep: Vec<usize> = (0..projection.order.len()).collect();
            batches = batches
                .iter()
                .map(|b| Ok(b.project(&keep)?.with_schema(projection.schema.clone())?))
                .collect::<Result<_>>()?;
        }
        Ok((wanted, batches, decoded))
    }
}

/// The decoded partitions' non-empty batches in one list, with each partition's span of it.
fn opened(partitions: &[usize], loaded: Vec<Vec<RecordBatch>>) -> Opened {
    let mut batches: Vec<RecordBatch> = Vec::new();
    let mut spans = Vec::with_capacity(partitions.len());
    for (p, partition) in partitions.iter().zip(loaded) {
        let start = batches.len();
        batches.extend(partition.into_iter().filter(|b| b.num_rows() > 0));
        spans.push((*p, start, batches.len()));
    }
    Opened { batches, spans }
}

impl Table {
    /// The rows at `positions`, in that order; in each partition holding some, only the
    /// blocks holding them are decoded.
    fn read_positions(
        &self,
        positions: &[u64],
        projection: &Projection,
        options: &ReadOptions,
    ) -> Result<(Vec<usize>, Vec<RecordBatch>, usize)> {
        // The first row of each partition.
        let mut starts = Vec::with_capacity(self.meta.partitions.len());
        let mut total = 0u64;
        for part in &self.meta.partitions {
            starts.push(total);
            total += part.rows;
        }
        let beyond: Vec<u64> = positions.iter().copied().filter(|&p| p >= total).collect();
        if !beyond.is_empty() {
            return Err(StoreError::RowsNotFound(format!(
                "positions {} (the table has {total} rows)",
                listing(&beyond)
            )));
        }
        let partition_of = |p: u64| starts.partition_point(|&s| s <= p) - 1;
        let mut sorted = positions.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut wanted: Vec<usize> = sorted.iter().map(|&p| partition_of(p)).collect();
        wanted.dedup();
        let loaded = self.each_partition(options, &wanted, |p| {
            let first = starts[p];
            let end = first + self.meta.partitions[p].rows;
            let held = &sorted[sorted.partition_point(|&r| r < first)..];
            let held = &held[..held.partition_point(|&r| r < end)];
            self.positions_in_partition(p, first, held, projection, options.access)
        })?;
        // Each decoded block's first row in the table, by partition.
        let mut batches = Vec::new();
        let mut batch_starts: BTreeMap<usize, Vec<(u64, usize)>> = BTreeMap::new();
        for (p, partition) in wanted.iter().zip(loaded) {
            for (row, batch) in partition {
                batch_starts
                    .entry(*p)
                    .or_default()
                    .push((row, batches.len()));
                batches.push(batch);
            }
        }
        let mut runs = Runs::default();
        for &p in positions {
            let in_partition = batch_starts
                .get(&partition_of(p))
                .map(Vec::as_slice)
                .unwrap_or_default();
            let k = in_partition
                .partition_point(|(s, _)| *s <= p)
                .saturating_sub(1);
            let (start, batch) = in_partition.get(k).copied().unwrap_or((0, 0));
            runs.push(batch, (p - start) as usize);
        }
        let decoded = batches.len();
        Ok((wanted, runs.gather(&batches, &projection.schema)?, decoded))
    }
}

/// A read's columns: file positions in output order, the same sorted (as a file decodes
/// them), and the output schema.
pub(crate) struct Projection {
    order: Vec<usize>,
    stored: Vec<usize>,
    /// Where each output column lies among the stored ones.
    reorder: Vec<usize>,
    schema: SchemaRef,
}

impl Projection {
    fn new(table: &SchemaRef, order: Vec<usize>) -> Result<Projection> {
        let schema = Arc::new(table.project(&order)?);
        let mut stored = order.clone();
        stored.sort_unstable();
        let reorder = order
            .iter()
            .map(|c| stored.binary_search(c).unwrap_or(0))
            .collect();
        Ok(Projection {
            order,
            stored,
            reorder,
            schema,
        })
    }

    /// A batch decoded with the stored columns, in output order.
    fn arrange(&self, batch: RecordBatch) -> Result<RecordBatch> {
        Ok(batch
            .project(&self.reorder)?
            .with_schema(self.schema.clone())?)
    }
}
