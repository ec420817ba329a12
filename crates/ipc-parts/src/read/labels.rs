//! Finding listed labels and gathering their rows. A read of millions of labels must not cost
//! millions of allocations: labels are looked at one by one (from `Key`s or straight from an
//! Arrow array), located rows are kept as runs of consecutive rows, and runs long enough are
//! returned as zero-copy slices of the mapped batches.

use crate::error::{listing, Result, StoreError};
use crate::key::{self, Key, KeyKind, Keys};
use crate::table::Table;
use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use std::borrow::Cow;
use std::cmp::Ordering;

/// Runs of at least this many consecutive rows are returned as zero-copy slices; shorter
/// ones are gathered.
const SLICE_RUN: usize = 64;

/// The labels of a list read, one at a time.
pub(crate) enum LabelList<'a> {
    Keys(&'a [Key]),
    Array(Box<dyn Keys + 'a>),
}

impl<'a> LabelList<'a> {
    /// The labels of an Arrow array for an index of `kind`: a type of that kind, no nulls.
    /// The kind is checked here once, not label by label.
    pub(crate) fn of_array(array: &'a ArrayRef, kind: KeyKind) -> Result<LabelList<'a>> {
        if KeyKind::of(array.data_type())? != kind {
            return Err(StoreError::IndexType(format!(
                "labels of type {} do not match the index type ({kind:?})",
                array.data_type()
            )));
        }
        if array.null_count() > 0 {
            return Err(StoreError::Invalid("a label list cannot hold nulls".into()));
        }
        Ok(LabelList::Array(key::keys(array)?))
    }

    fn len(&self) -> usize {
        match self {
            LabelList::Keys(keys) => keys.len(),
            LabelList::Array(keys) => keys.len(),
        }
    }

    /// Label `i`; only string labels from an array allocate.
    fn get(&self, i: usize) -> Cow<'_, Key> {
        match self {
            LabelList::Keys(keys) => Cow::Borrowed(&keys[i]),
            LabelList::Array(keys) => Cow::Owned(keys.key(i)),
        }
    }
}

/// Labels not found, with their positions in the list.
pub(crate) type Missing = Vec<(usize, Key)>;

/// Consecutive rows `row..row + len` of decoded batch `batch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    pub batch: usize,
    pub row: usize,
    pub len: usize,
}

/// Located rows in request order, consecutive ones merged into runs.
#[derive(Debug, Default)]
pub(crate) struct Runs(Vec<Run>);

impl Runs {
    pub(crate) fn push(&mut self, batch: usize, row: usize) {
        match self.0.last_mut() {
            Some(last) if last.batch == batch && last.row + last.len == row => last.len += 1,
            _ => self.0.push(Run { batch, row, len: 1 }),
        }
    }

    /// The row right after the last one located, if there was one.
    fn next(&self) -> Option<(usize, usize)> {
        self.0.last().map(|r| (r.batch, r.row + r.len))
    }

    /// The rows as batches: long runs as zero-copy slices, the rest gathered into new batches.
    pub(crate) fn gather(
        &self,
        batches: &[RecordBatch],
        schema: &SchemaRef,
    ) -> Result<Vec<RecordBatch>> {
        let mut out = Vec::new();
        let mut scattered: Vec<(usize, usize)> = Vec::new();
        let flush = |scattered: &mut Vec<(usize, usize)>, out: &mut Vec<RecordBatch>| {
            if !scattered.is_empty() {
                let refs: Vec<&RecordBatch> = batches.iter().collect();
                out.push(arrow::compute::interleave_record_batch(&refs, scattered)?);
                scattered.clear();
            }
            Ok::<_, StoreError>(())
        };
        for run in &self.0 {
            if run.len >= SLICE_RUN {
                flush(&mut scattered, &mut out)?;
                out.push(batches[run.batch].slice(run.row, run.len));
            } else {
                scattered.extend((run.row..run.row + run.len).map(|row| (run.batch, row)));
            }
        }
        flush(&mut scattered, &mut out)?;
        if out.is_empty() {
            out.push(RecordBatch::new_empty(schema.clone()));
        }
        Ok(out)
    }
}

/// The decoded batches of the partitions a list read opens, with each partition's batches.
pub(crate) struct Opened {
    pub batches: Vec<RecordBatch>,
    /// `(partition, first batch, end batch)`, ascending by partition.
    pub spans: Vec<(usize, usize, usize)>,
}

impl Table {
    /// The partitions holding `labels` (ascending), and the labels no partition can hold
    /// (with their positions in the list).
    pub(crate) fn partitions_of(&self, labels: &LabelList) -> Result<(Vec<usize>, Missing)> {
        let kind = self.meta.index.kind;
        let parts = &self.meta.partitions;
        let mut wanted = vec![false; parts.len()];
        let mut missing = Vec::new();
        let mut last: Option<usize> = None;
        for i in 0..labels.len() {
            let label = labels.get(i);
            if let LabelList::Keys(_) = labels {
                kind.admits(&label)?;
            }
            // Listed labels mostly fall in the partition of the label before them.
            let within = |p: usize| {
                let order = |bound: &Option<Key>| bound.as_ref().and_then(|b| b.compare(&label));
                let part = &parts[p];
                order(&part.min).is_some_and(|o| o != Ordering::Greater)
                    && order(&part.max).is_some_and(|o| o != Ordering::Less)
            };
            let p = match last {
                Some(p) if within(p) => Some(p),
                _ => self.partition_holding(&label),
            };
            match p {
                Some(p) => wanted[p] = true,
                None => missing.push((i, label.into_owned())),
            }
            last = p.or(last);
        }
        let wanted = (0..parts.len()).filter(|&p| wanted[p]).collect();
        Ok((wanted, missing))
    }

    /// Where each label is, in list order; labels not found are added to `missing`.
    pub(crate) fn locate(
        &self,
        labels: &LabelList,
        opened: &Opened,
        index_at: usize,
        missing: &mut Missing,
    ) -> Result<Runs> {
        let keys: Vec<Box<dyn Keys + '_>> = opened
            .batches
            .iter()
            .map(|b| key::keys(b.column(index_at)))
            .collect::<Result<_>>()?;
        let mut runs = Runs::default();
        // Labels no partition can hold were named already.
        let known: Vec<usize> = missing.iter().map(|(i, _)| *i).collect();
        let mut absent = known.into_iter().peekable();
        for i in 0..labels.len() {
            if absent.next_if_eq(&i).is_some() {
                continue;
            }
            let label = labels.get(i);
            // A list of consecutive labels finds each one right after the previous one
            // (labels are unique, so an equal label there is the one).
            if let Some((b, row)) = runs.next() {
                if row < keys[b].len() && keys[b].cmp_at(row, &label).is_eq() {
                    runs.push(b, row);
                    continue;
                }
            }
            let span = self
                .partition_holding(&label)
                .and_then(|p| opened.spans.binary_search_by_key(&p, |s| s.0).ok())
                .map(|at| opened.spans[at]);
            let found = span.and_then(|(_, start, end)| {
                let candidates = &keys[start..end];
                let b = key::partition_point(candidates.len(), |i| {
                    let k = &candidates[i];
                    k.cmp_at(k.len() - 1, &label) == Ordering::Less
                });
                let k = candidates.get(b)?;
                let row = key::lower_bound(k.as_ref(), &label);
                (row < k.len() && k.cmp_at(row, &label).is_eq()).then_some((start + b, row))
            });
            match found {
                Some((b, row)) => runs.push(b, row),
                None => missing.push((i, label.into_owned())),
            }
        }
        Ok(runs)
    }
}

/// The error naming every missing label, in the order they were asked for.
pub(crate) fn not_found(mut missing: Missing) -> StoreError {
    missing.sort_by_key(|(i, _)| *i);
    let labels: Vec<Key> = missing.into_iter().map(|(_, label)| label).collect();
    StoreError::RowsNotFound(listing(&labels))
}
