//! Reads: rows by inclusive label ranges or label lists, columns by list or like-pattern;
//! only the partitions that can hold the rows are opened, only the wanted columns decoded.

use crate::error::{listing, Result, StoreError};
use crate::key::{self, Key};
use crate::like;
use crate::table::Table;
use crate::write::in_parallel;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Access {
    /// Map each partition and decode zero-copy (uncompressed tables).
    #[default]
    Mmap,
    /// Read each partition's blocks into memory of their own.
    Plain,
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

/// Label runs at least this long are returned as zero-copy slices; shorter ones are gathered.
const SLICE_RUN: usize = 64;

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
            Rows::Labels(labels) => self.read_labels(labels, index_at, &schema, decode)?,
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
            Rows::All | Rows::Labels(_) | Rows::Positions(_) => 0..all,
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
        labels: &[Key],
        index_at: usize,
        schema: &SchemaRef,
        decode: impl Fn(&[usize]) -> Result<Vec<Vec<RecordBatch>>>,
    ) -> Result<(Vec<usize>, Vec<RecordBatch>)> {
        let kind = self.meta.index.kind;
        let mut missing = Vec::new();
        let mut partition_of = Vec::with_capacity(labels.len());
        for (i, label) in labels.iter().enumerate() {
            kind.admits(label)?;
            let p = self.partition_holding(label);
            if p.is_none() {
                missing.push((i, label.clone()));
            }
            partition_of.push(p);
        }
        let wanted: Vec<usize> = {
            let mut w: Vec<usize> = partition_of.iter().flatten().copied().collect();
            w.sort_unstable();
            w.dedup();
            w
        };
        let loaded = decode(&wanted)?;
        // Every decoded batch, numbered, with the label range of each partition's batches.
        let mut batches: Vec<RecordBatch> = Vec::new();
        let mut first_batch: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
        for (p, partition) in wanted.iter().zip(loaded) {
            let start = batches.len();
            batches.extend(partition.into_iter().filter(|b| b.num_rows() > 0));
            first_batch.insert(*p, (start, batches.len()));
        }
        let keys: Vec<Box<dyn key::Keys + '_>> = batches
            .iter()
            .map(|b| key::keys(b.column(index_at)))
            .collect::<Result<_>>()?;
        let mut located: Vec<(usize, usize)> = Vec::with_capacity(labels.len());
        for (i, (label, p)) in labels.iter().zip(&partition_of).enumerate() {
            let Some((start, end)) = p.and_then(|p| first_batch.get(&p).copied()) else {
                continue;
            };
            // A list of consecutive labels finds each one right after the previous one.
            if let Some(&(b, row)) = located.last() {
                let next = keys.get(b).filter(|_| (start..end).contains(&b));
                if next.is_some_and(|k| row + 1 < k.len() && k.cmp_at(row + 1, label).is_eq()) {
                    located.push((b, row + 1));
                    continue;
                }
            }
            let candidates = &keys[start..end];
            let b = key::partition_point(candidates.len(), |i| {
                let k = &candidates[i];
                k.cmp_at(k.len() - 1, label) == std::cmp::Ordering::Less
            });
            let found = candidates.get(b).and_then(|k| {
                let row = key::lower_bound(k.as_ref(), label);
                (row < k.len() && k.cmp_at(row, label).is_eq()).then_some((start + b, row))
            });
            match found {
                Some(at) => located.push(at),
                None => missing.push((i, label.clone())),
            }
        }
        if !missing.is_empty() {
            // Named in the order they were asked for.
            missing.sort_by_key(|(i, _)| *i);
            let labels: Vec<Key> = missing.into_iter().map(|(_, label)| label).collect();
            return Err(StoreError::RowsNotFound(listing(&labels)));
        }
        Ok((wanted, gather(&batches, &located, schema)?))
    }
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
        let located: Vec<(usize, usize)> = positions
            .iter()
            .map(|&p| {
                let in_partition = batch_starts
                    .get(&partition_of(p))
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                let k = in_partition
                    .partition_point(|(s, _)| *s <= p)
                    .saturating_sub(1);
                let (start, batch) = in_partition.get(k).copied().unwrap_or((0, 0));
                (batch, (p - start) as usize)
            })
            .collect();
        Ok((wanted, gather(&batches, &located, schema)?))
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
        Rows::All | Rows::Labels(_) | Rows::Positions(_) => (0, keys.len()),
    };
    Ok(batch.slice(lo, hi.saturating_sub(lo)))
}

/// The located rows in request order: long runs of consecutive rows as zero-copy slices,
/// the rest gathered into new batches.
fn gather(
    batches: &[RecordBatch],
    located: &[(usize, usize)],
    schema: &SchemaRef,
) -> Result<Vec<RecordBatch>> {
    let mut out = Vec::new();
    let mut scattered: Vec<(usize, usize)> = Vec::new();
    let flush = |scattered: &mut Vec<(usize, usize)>, out: &mut Vec<RecordBatch>| -> Result<()> {
        if !scattered.is_empty() {
            let refs: Vec<&RecordBatch> = batches.iter().collect();
            out.push(arrow::compute::interleave_record_batch(&refs, scattered)?);
            scattered.clear();
        }
        Ok(())
    };
    let mut i = 0;
    while i < located.len() {
        let (b, row) = located[i];
        let mut run = 1;
        while i + run < located.len() && located[i + run] == (b, row + run) {
            run += 1;
        }
        if run >= SLICE_RUN {
            flush(&mut scattered, &mut out)?;
            out.push(batches[b].slice(row, run));
        } else {
            scattered.extend((0..run).map(|k| (b, row + k)));
        }
        i += run;
    }
    flush(&mut scattered, &mut out)?;
    if out.is_empty() {
        out.push(RecordBatch::new_empty(schema.clone()));
    }
    Ok(out)
}
