//! Changes to a table: append, insert, update, drop rows, drop columns. Each rewrites only the
//! partitions it must, into new files, and takes effect at `Pending::commit`.

use crate::error::{listing, Result, StoreError};
use crate::file::Access;
use crate::key::{self, Key};
use crate::parallel::in_parallel;
use crate::read::Rows;
use crate::table::Table;
use crate::write::{
    column_meta, increasing, sorted_unique, split, with_row_numbers, write_partitions, Footprint,
    Pending,
};
use arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow::compute::{cast, concat_batches, filter_record_batch, interleave};
use arrow::datatypes::SchemaRef;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

mod merge;

/// An append rewrites the last partition only when it holds fewer rows than this share of
/// `rows_per_partition`; otherwise new rows start new partitions. So an append costs the new
/// rows plus at most a quarter partition (FeatherStore always rewrites the last partition).
const APPEND_MERGE_SHARE: u64 = 4;

/// An update's rows in one partition, per stored batch: (row there, row in the update).
type BatchChanges = Vec<Vec<(usize, usize)>>;

/// One partition's replacement: its position, and the rows that replace it (none: removed).
struct Rewrite {
    partition: usize,
    pieces: Vec<Vec<RecordBatch>>,
}

impl Table {
    /// Appends rows whose labels all come after the stored ones. A row-number index is
    /// continued: the new rows must then leave it out.
    pub fn append(&self, batches: &[RecordBatch], threads: usize) -> Result<Pending> {
        self.remove_unreferenced()?;
        let batches = if self.meta.index.row_number {
            let start = self.meta.rows as i64;
            let (_, numbered) = with_row_numbers(&self.data_schema(batches)?, batches, start)?;
            self.conform(&numbered)?
        } else {
            self.conform(batches)?
        };
        let last_label = self.meta.partitions.last().and_then(|p| p.max.clone());
        let mut all = batches.iter().filter(|b| b.num_rows() > 0).peekable();
        if let (Some(last), Some(first)) = (&last_label, all.peek()) {
            let keys = key::keys(first.column(0))?;
            if keys.cmp_at(0, last).is_le() {
                return Err(StoreError::IndexOrder(format!(
                    "appended labels must come after the last stored one ({last}); the first is {}",
                    keys.key(0)
                )));
            }
        }
        increasing(&batches).map_err(|r| StoreError::IndexOrder(format!("appended rows: {r}")))?;
        let per = self.meta.rows_per_partition;
        let last = self.meta.partitions.len() - 1;
        let small = self.meta.partitions[last].rows * APPEND_MERGE_SHARE < per;
        let (first_rewritten, rows) = if small {
            let mut rows = self.load(last, None, Access::Mmap)?;
            rows.extend(batches);
            (last, rows)
        } else {
            (last + 1, batches)
        };
        let rewrites = vec![Rewrite {
            partition: first_rewritten,
            pieces: split(&rows, per),
        }];
        self.rewrite(rewrites, threads, |meta| {
            meta.rows = meta.partitions.iter().map(|p| p.rows).sum();
        })
    }

    /// Inserts rows whose labels are not in the table, each into the partition whose range
    /// holds it (at a seam, the preceding one); a partition grown past 1.5 × its size splits.
    /// Each touched partition is merged with its new rows in one pass, straight from the map.
    pub fn insert(&self, batches: &[RecordBatch], threads: usize) -> Result<Pending> {
        self.remove_unreferenced()?;
        let batches = sorted_unique(&self.schema, self.conform(batches)?, true)?;
        let new = concat_batches(&self.schema, &batches)?;
        let keys = key::keys(new.column(0))?;
        // New rows are sorted, so each partition's share is one run.
        let mut runs: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
        for i in 0..keys.len() {
            let p = self.partitions_starting_by(&keys.key(i)).saturating_sub(1);
            runs.entry(p)
                .and_modify(|r| r.1 = i + 1)
                .or_insert((i, i + 1));
        }
        let mut merges = Vec::with_capacity(runs.len());
        let mut existing = Vec::new();
        for (p, (start, end)) in runs {
            let stored = self.load(p, None, Access::Mmap)?;
            let rows = new.slice(start, end - start);
            let order = merge::merge_order(&stored, &rows)?;
            existing.extend(order.clashes.iter().cloned());
            merges.push((p, stored, rows, order));
        }
        if !existing.is_empty() {
            return Err(StoreError::RowsExist(listing(&existing)));
        }
        let per = self.meta.rows_per_partition;
        let rewrites = in_parallel(threads, &merges, |group| {
            group
                .iter()
                .map(|(p, stored, rows, order)| {
                    let merged = vec![merge::gather(&self.schema, stored, rows, order)?];
                    let total = merged[0].num_rows() as u64;
                    Ok(Rewrite {
                        partition: *p,
                        pieces: if total * 2 > per * 3 {
                            split(&merged, per)
                        } else {
                            vec![merged]
                        },
                    })
                })
                .collect()
        })?;
        self.rewrite(rewrites, threads, |meta| {
            meta.rows = meta.partitions.iter().map(|p| p.rows).sum();
        })
    }

    /// Sets the given columns of the rows with the given labels (column 0 of `batch` is the
    /// index, by name). A null sets a null (FeatherStore keeps the old value instead). Only
    /// the partitions holding those rows are rewritten; their rows and bounds are unchanged.
    pub fn update(&self, batch: &RecordBatch, threads: usize) -> Result<Pending> {
        self.remove_unreferenced()?;
        let index_name = &self.meta.index.name;
        let index = batch.schema_ref().index_of(index_name).map_err(|_| {
            StoreError::SchemaMismatch(format!("an update needs the index column '{index_name}'"))
        })?;
        let mut targets: Vec<(usize, ArrayRef)> = Vec::new();
        let mut unknown = Vec::new();
        for (i, field) in batch.schema_ref().fields().iter().enumerate() {
            if i == index {
                continue;
            }
            match self.schema.index_of(field.name()) {
                Ok(at) => {
                    let stored = self.schema.field(at).data_type();
                    let values = cast(batch.column(i), stored).map_err(|e| {
                        StoreError::SchemaMismatch(format!(
                            "column '{}' cannot be stored as {stored}: {e}",
                            field.name()
                        ))
                    })?;
                    targets.push((at, values));
                }
                Err(_) => unknown.push(format!("'{}'", field.name())),
            }
        }
        if !unknown.is_empty() {
            return Err(StoreError::UnknownColumns(listing(&unknown)));
        }
        let keys = key::keys(batch.column(index))?;
        // The partitions holding updated rows, as stored (mapped, not copied), and per stored
        // batch the rows updated there.
        let mut loaded: BTreeMap<usize, Vec<RecordBatch>> = BTreeMap::new();
        let mut by_batch: BTreeMap<usize, BatchChanges> = BTreeMap::new();
        let mut missing = Vec::new();
        let mut seen = BTreeSet::new();
        for i in 0..keys.len() {
            let label = keys.key(i);
            let Some(p) = self.partition_holding(&label) else {
                missing.push(label);
                continue;
            };
            if let std::collections::btree_map::Entry::Vacant(slot) = loaded.entry(p) {
                let stored = self.load(p, None, Access::Mmap)?;
                by_batch.insert(p, vec![Vec::new(); stored.len()]);
                slot.insert(stored);
            }
            let Some((b, row)) = locate(&loaded[&p], &label)? else {
                missing.push(label);
                continue;
            };
            if !seen.insert((p, b, row)) {
                return Err(StoreError::IndexOrder(format!(
                    "the update names {label} twice"
                )));
            }
            if let Some(rows) = by_batch.get_mut(&p).and_then(|batches| batches.get_mut(b)) {
                rows.push((row, i));
            }
        }
        if !missing.is_empty() {
            return Err(StoreError::RowsNotFound(listing(&missing)));
        }
        let jobs: Vec<(usize, BatchChanges)> = by_batch.into_iter().collect();
        // Columns not updated stay as stored (zero-copy from the map); updated ones are
        // gathered once, batch by batch.
        let rewrites = in_parallel(threads, &jobs, |group| {
            group
                .iter()
                .map(|(p, per_batch)| {
                    let stored = loaded.get(p).map(Vec::as_slice).unwrap_or_default();
                    let pieces = stored
                        .iter()
                        .zip(per_batch)
                        .map(|(old, rows)| {
                            let mut columns: Vec<ArrayRef> = old.columns().to_vec();
                            if !rows.is_empty() {
                                let mut pick: Vec<(usize, usize)> =
                                    (0..old.num_rows()).map(|r| (0, r)).collect();
                                for &(row, i) in rows {
                                    pick[row] = (1, i);
                                }
                                for (at, values) in &targets {
                                    let sources = [old.column(*at).as_ref(), values.as_ref()];
                                    columns[*at] = interleave(&sources, &pick)?;
                                }
                            }
                            Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
                        })
                        .collect::<Result<Vec<_>>>()?;
                    Ok(Rewrite {
                        partition: *p,
                        pieces: vec![pieces],
                    })
                })
                .collect()
        })?;
        self.rewrite(rewrites, threads, |_| {})
    }

    /// Removes rows by label range or list (a missing label is an error). Removing every row
    /// is refused; a partition left empty is removed.
    pub fn drop_rows(&self, rows: &Rows, threads: usize) -> Result<Pending> {
        self.remove_unreferenced()?;
        let selection = self.read(rows, &crate::Cols::List(vec![]), &Default::default())?;
        let doomed: Vec<Key> = selection
            .batches
            .iter()
            .flat_map(|b| match key::keys(b.column(0)) {
                Ok(keys) => (0..keys.len()).map(|i| Ok(keys.key(i))).collect::<Vec<_>>(),
                Err(e) => vec![Err(e)],
            })
            .collect::<Result<_>>()?;
        if doomed.len() as u64 >= self.meta.rows && self.meta.rows > 0 {
            return Err(StoreError::Invalid(
                "cannot drop every row of a table".into(),
            ));
        }
        let mut by_partition: BTreeMap<usize, Vec<Key>> = BTreeMap::new();
        for label in doomed {
            if let Some(p) = self.partition_holding(&label) {
                by_partition.entry(p).or_default().push(label);
            }
        }
        let mut rewrites = Vec::new();
        for (p, labels) in by_partition {
            let old = concat_batches(&self.schema, &self.load(p, None, Access::Mmap)?)?;
            let stored = key::keys(old.column(0))?;
            let mut keep = vec![true; old.num_rows()];
            for label in &labels {
                let row = key::lower_bound(stored.as_ref(), label);
                if let Some(slot) = keep.get_mut(row) {
                    *slot = false;
                }
            }
            let kept = filter_record_batch(&old, &BooleanArray::from(keep))?;
            rewrites.push(Rewrite {
                partition: p,
                pieces: if kept.num_rows() == 0 {
                    vec![]
                } else {
                    vec![vec![kept]]
                },
            });
        }
        self.rewrite(rewrites, threads, |meta| {
            meta.rows = meta.partitions.iter().map(|p| p.rows).sum();
        })
    }

    /// Removes columns from every partition. The index and the last data column stay.
    pub fn drop_columns(&self, names: &[String], threads: usize) -> Result<Pending> {
        self.remove_unreferenced()?;
        let unknown: Vec<String> = names
            .iter()
            .filter(|n| self.schema.index_of(n).is_err())
            .map(|n| format!("'{n}'"))
            .collect();
        if !unknown.is_empty() {
            return Err(StoreError::UnknownColumns(listing(&unknown)));
        }
        if names.iter().any(|n| n == &self.meta.index.name) {
            return Err(StoreError::Invalid(
                "the index column cannot be dropped".into(),
            ));
        }
        let keep: Vec<usize> = (0..self.schema.fields().len())
            .filter(|&i| !names.contains(self.schema.field(i).name()))
            .collect();
        if keep.len() < 2 {
            return Err(StoreError::Invalid("cannot drop every data column".into()));
        }
        let schema: SchemaRef = Arc::new(self.schema.project(&keep)?);
        let rewrites = (0..self.meta.partitions.len())
            .map(|p| {
                let rows = self.load(p, Some(keep.clone()), Access::Mmap)?;
                let rows = rows
                    .into_iter()
                    .map(|b| Ok(b.with_schema(schema.clone())?))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Rewrite {
                    partition: p,
                    pieces: vec![rows],
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut pending = Table {
            schema: schema.clone(),
            ..self.clone()
        }
        .rewrite(rewrites, threads, |meta| {
            meta.columns = column_meta(&schema)
        })?;
        pending.schema = schema;
        Ok(pending)
    }

    /// Whether the table holds `label`.
    pub fn contains(&self, label: &Key) -> Result<bool> {
        let Some(p) = self.partition_holding(label) else {
            return Ok(false);
        };
        let rows = self.load(p, Some(vec![0]), Access::Mmap)?;
        for batch in rows {
            let keys = key::keys(batch.column(0))?;
            let row = key::lower_bound(keys.as_ref(), label);
            if row < keys.len() && keys.cmp_at(row, label).is_eq() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The schema of new rows for a row-number table: every stored column but the index.
    fn data_schema(&self, batches: &[RecordBatch]) -> Result<SchemaRef> {
        match batches.first() {
            Some(b) => Ok(b.schema()),
            None => Ok(Arc::new(
                self.schema
                    .project(&(1..self.schema.fields().len()).collect::<Vec<_>>())?,
            )),
        }
    }

    /// New rows with the stored columns in stored order and stored types (by name).
    fn conform(&self, batches: &[RecordBatch]) -> Result<Vec<RecordBatch>> {
        batches
            .iter()
            .map(|batch| {
                let given = batch.schema();
                let names: Vec<&str> = given.fields().iter().map(|f| f.name().as_str()).collect();
                if names.len() != self.schema.fields().len() {
                    return Err(StoreError::SchemaMismatch(format!(
                        "the table has columns {:?}, the new rows {names:?}",
                        self.meta.column_names().collect::<Vec<_>>()
                    )));
                }
                let columns = self
                    .schema
                    .fields()
                    .iter()
                    .map(|field| {
                        let at = given.index_of(field.name()).map_err(|_| {
                            StoreError::SchemaMismatch(format!(
                                "the new rows have no column '{}'",
                                field.name()
                            ))
                        })?;
                        let column = batch.column(at);
                        if column.data_type() == field.data_type() {
                            Ok(column.clone())
                        } else {
                            Err(StoreError::SchemaMismatch(format!(
                                "column '{}' is {} in the table and {} in the new rows",
                                field.name(),
                                field.data_type(),
                                column.data_type()
                            )))
                        }
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
            })
            .collect()
    }

    /// Writes the replacements (ascending partition positions; a position equal to the
    /// partition count appends) and builds the pending commit.
    fn rewrite(
        &self,
        rewrites: Vec<Rewrite>,
        threads: usize,
        finish: impl FnOnce(&mut crate::TableMeta),
    ) -> Result<Pending> {
        let generation = self.meta.generation + 1;
        let touched: Vec<usize> = rewrites.iter().map(|r| r.partition).collect();
        let counts: Vec<usize> = rewrites.iter().map(|r| r.pieces.len()).collect();
        let pieces: Vec<Vec<RecordBatch>> = rewrites.into_iter().flat_map(|r| r.pieces).collect();
        let (mut written_meta, written) = write_partitions(
            &self.dir,
            &self.schema,
            generation,
            0,
            pieces,
            self.meta.compression,
            threads,
        )?;
        let mut meta = self.meta.clone();
        meta.generation = generation;
        let mut partitions = Vec::new();
        let mut obsolete = Vec::new();
        let mut replacements = touched.iter().zip(&counts).peekable();
        let mut rewritten = Vec::new();
        for (p, old) in self.meta.partitions.iter().enumerate() {
            match replacements.peek() {
                Some((&at, &count)) if at == p => {
                    partitions.extend(written_meta.drain(..count));
                    obsolete.push(old.file.clone());
                    rewritten.push(p);
                    replacements.next();
                }
                _ => partitions.push(old.clone()),
            }
        }
        // Replacements past the end (appends).
        partitions.append(&mut written_meta);
        if partitions.is_empty() {
            return Err(StoreError::Invalid(
                "cannot drop every row of a table".into(),
            ));
        }
        meta.partitions = partitions;
        finish(&mut meta);
        if meta.index.row_number {
            meta.index.row_number = is_row_number(&meta);
        }
        let footprint = Footprint {
            partitions_kept: self.meta.partitions.len() - rewritten.len(),
            partitions_rewritten: rewritten,
            files_written: written.len(),
            bytes_written: meta
                .partitions
                .iter()
                .filter(|p| written.contains(&p.file))
                .map(|p| p.bytes)
                .sum(),
        };
        Ok(Pending {
            dir: self.dir.clone(),
            meta,
            schema: self.schema.clone(),
            written,
            obsolete,
            footprint,
            threads,
            trusted: self.trusted,
        })
    }
}

/// The stored batch and row holding `label`, if any (each batch's labels sorted, batches in
/// order).
fn locate(stored: &[RecordBatch], label: &Key) -> Result<Option<(usize, usize)>> {
    for (b, batch) in stored.iter().enumerate() {
        let keys = key::keys(batch.column(0))?;
        if keys.is_empty() || keys.cmp_at(keys.len() - 1, label).is_lt() {
            continue;
        }
        let row = key::lower_bound(keys.as_ref(), label);
        return Ok((row < keys.len() && keys.cmp_at(row, label).is_eq()).then_some((b, row)));
    }
    Ok(None)
}

/// Whether the labels are exactly 0..rows (they are unique and sorted, so the ends suffice).
fn is_row_number(meta: &crate::TableMeta) -> bool {
    let first = meta.partitions.first().and_then(|p| p.min.clone());
    let last = meta.partitions.last().and_then(|p| p.max.clone());
    match (first, last) {
        (Some(Key::Int(0)), Some(Key::Int(max))) => max as u64 + 1 == meta.rows,
        (None, None) => meta.rows == 0,
        _ => false,
    }
}
