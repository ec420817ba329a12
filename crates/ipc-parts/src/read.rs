//! Reads: rows by inclusive label ranges or label lists, columns by list or like-pattern;
//! only the partitions that can hold the rows are opened, only the wanted columns decoded.

mod labels;

use crate::error::{listing, Result, StoreError};
use crate::file::Access;
use crate::key::{self, Key};
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

/// Which columns. The index is always returned, first unless a list places it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cols {
    All,
    /// These columns in this order.
    List(Vec<String>),
    /// Columns whose names match a FeatherStore like-pattern (`%`, `?`), in stored order.
    Like(String),
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
        let schema = Arc::new(self.schema.project(&order)?);
        // Files are decoded with the columns in stored order, then put in the asked order.
        let mut stored = order.clone();
        stored.sort_unstable();
        let reorder: Vec<usize> = order
            .iter()
            .map(|c| stored.iter().position(|s| s == c).unwrap_or(0))
            .collect();
        let index_at = reorder.iter().position(|&r| stored[r] == 0).unwrap_or(0);
        let decode = |partitions: &[usize]| -> Result<Vec<Vec<RecordBatch>>> {
            let threads = match options.access {
                crate::Access::Mmap => 1,
                crate::Access::Plain => options.threads,
            };
            in_parallel(threads, partitions, |group| {
                group
                    .iter()
                    .map(|&p| {
                        self.load(p, Some(stored.clone()), options.access)?
                            .into_iter()
                            .map(|b| Ok(b.project(&reorder)?.with_schema(schema.clone())?))
                            .collect::<Result<Vec<_>>>()
                    })
                    .collect()
            })
        };
        let (partitions, batches) = match rows {
            Rows::Labels(labels) => {
                self.read_labels(&LabelList::Keys(labels), index_at, &schema, decode)?
            }
            Rows::LabelArray(labels) => {
                let labels = LabelList::of_array(labels, self.meta.index.kind)?;
                self.read_labels(&labels, index_at, &schema, decode)?
            }
            Rows::Positions(positions) => self.read_positions(positions, &schema, decode)?,
            _ => {
                let range = self.partition_range(rows)?;
                let partitions: Vec<usize> = range.collect();
                let loaded = decode(&partitions)?;
                let mut out = Vec::new();
                for batch in loaded.into_iter().flatten() {
                    let narrowed = narrow(&batch, index_at, rows)?;
                    if narrowed.num_rows() > 0 {
                        out.push(narrowed);
                    }
                }
                (partitions, out)
            }
        };
        Ok(Selection {
            schema,
            batches,
            partitions_opened: partitions,
        })
    }

    /// File column positions in output order: the index first unless the list places it.
    fn column_order(&self, cols: &Cols) -> Result<Vec<usize>> {
        let fields = self.schema.fields();
        let mut order: Vec<usize> = match cols {
            Cols::All => return Ok((0..fields.len()).collect()),
            Cols::List(names) => {
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
        if !order.contains(&0) {
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

    fn read_labels(
        &self,
        labels: &LabelList,
        index_at: usize,
        schema: &SchemaRef,
        decode: impl Fn(&[usize]) -> Result<Vec<Vec<RecordBatch>>>,
    ) -> Result<(Vec<usize>, Vec<RecordBatch>)> {
        let (wanted, mut missing) = self.partitions_of(labels)?;
        let opened = opened(&wanted, decode(&wanted)?);
        let runs = self.locate(labels, &opened, index_at, &mut missing)?;
        if !missing.is_empty() {
            return Err(labels::not_found(missing));
        }
        Ok((wanted, runs.gather(&opened.batches, schema)?))
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
    fn read_positions(
        &self,
        positions: &[u64],
        schema: &SchemaRef,
        decode: impl Fn(&[usize]) -> Result<Vec<Vec<RecordBatch>>>,
    ) -> Result<(Vec<usize>, Vec<RecordBatch>)> {
        // The first row of each partition, then of each decoded batch.
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
        let mut wanted: Vec<usize> = positions.iter().map(|&p| partition_of(p)).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let loaded = decode(&wanted)?;
        let mut batches = Vec::new();
        let mut batch_starts: BTreeMap<usize, Vec<(u64, usize)>> = BTreeMap::new();
        for (p, partition) in wanted.iter().zip(loaded) {
            let mut row = starts[*p];
            for batch in partition.into_iter().filter(|b| b.num_rows() > 0) {
                batch_starts
                    .entry(*p)
                    .or_default()
                    .push((row, batches.len()));
                row += batch.num_rows() as u64;
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
        Ok((wanted, runs.gather(&batches, schema)?))
    }
}

/// The rows of one decoded batch inside the range (the index column at `index_at`).
fn narrow(batch: &RecordBatch, index_at: usize, rows: &Rows) -> Result<RecordBatch> {
    let keys = key::keys(batch.column(index_at))?;
    let (lo, hi) = match rows {
        Rows::Before(x) => (0, key::upper_bound(keys.as_ref(), x)),
        Rows::After(x) => (key::lower_bound(keys.as_ref(), x), keys.len()),
        Rows::Between(a, b) => (
            key::lower_bound(keys.as_ref(), a),
            key::upper_bound(keys.as_ref(), b),
        ),
        Rows::All | Rows::Labels(_) | Rows::LabelArray(_) | Rows::Positions(_) => (0, keys.len()),
    };
    Ok(batch.slice(lo, hi.saturating_sub(lo)))
}
