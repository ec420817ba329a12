//! Creating a table, and what every change shares: cutting rows into partitions, writing the
//! partition files (concurrently when threads allow), and the commit.

use crate::error::{at, Result, StoreError};
use crate::file::{write_into, Compression};
use crate::key::{self, KeyKind};
use crate::meta::{
    partition_file, sync_dir, ColumnMeta, IndexMeta, PartitionMeta, TableMeta, FORMAT, VERSION,
};
use crate::parallel::in_parallel;
use crate::table::Table;
use arrow::array::{ArrayRef, Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// FeatherStore's default partition size: 128 MiB of Arrow data.
pub const DEFAULT_PARTITION_BYTES: u64 = 128 << 20;
/// The name of the index the store adds when none is given (pandas' and FeatherStore's).
pub const ROW_NUMBER_INDEX: &str = "__index_level_0__";

#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// The index column; `None` adds the row number as an int64 column `__index_level_0__`.
    pub index: Option<String>,
    /// Target partition size in bytes of Arrow data; `None`: one partition.
    pub partition_bytes: Option<u64>,
    /// Partition files written at once.
    pub threads: usize,
    pub compression: Compression,
    /// Replace a table already in the directory (its files are removed after the commit).
    pub replace: bool,
    /// Sort rows whose index is out of order instead of refusing them.
    pub sort: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            index: None,
            partition_bytes: Some(DEFAULT_PARTITION_BYTES),
            threads: 1,
            compression: Compression::None,
            replace: false,
            sort: true,
        }
    }
}

/// What a change read and wrote: the footprint the store promises (an append touches only the
/// end of the table; an update only the partitions holding its rows).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Positions (in the table before the change) of the partitions read and rewritten.
    pub partitions_rewritten: Vec<usize>,
    /// Partitions kept as they were.
    pub partitions_kept: usize,
    /// New partition files.
    pub files_written: usize,
    pub bytes_written: u64,
}

/// A change whose partition files are written and closed but not yet committed: until
/// `commit`, the table is unchanged for every reader.
#[must_use = "a change takes effect only when committed"]
pub struct Pending {
    pub(crate) dir: PathBuf,
    pub(crate) meta: TableMeta,
    pub(crate) schema: SchemaRef,
    pub(crate) written: Vec<String>,
    pub(crate) obsolete: Vec<String>,
    pub(crate) footprint: Footprint,
    pub(crate) threads: usize,
    pub(crate) trusted: bool,
}

impl Pending {
    pub fn footprint(&self) -> &Footprint {
        &self.footprint
    }
    /// The metadata the commit will store.
    pub fn meta(&self) -> &TableMeta {
        &self.meta
    }

    /// Syncs the new files and the directory, then replaces the metadata atomically; only
    /// then removes the files the new metadata no longer lists (readers that mapped them keep
    /// their mapping).
    pub fn commit(self) -> Result<Table> {
        self.finish(true)
    }

    /// Commits without syncing anything: the metadata is still renamed into place whole, so a
    /// process that dies leaves the old table or the new one, but a power loss may lose the
    /// change. For scratch tables (a benchmark's untimed set-up).
    pub fn commit_without_sync(self) -> Result<Table> {
        self.finish(false)
    }

    fn finish(self, sync: bool) -> Result<Table> {
        if sync {
            let sync_file = |name: &String| -> Result<()> {
                let path = self.dir.join(name);
                std::fs::File::open(&path)
                    .and_then(|f| f.sync_all())
                    .map_err(at(&path))
            };
            in_parallel(self.threads, &self.written, |names| {
                names.iter().map(sync_file).collect::<Result<Vec<()>>>()
            })?;
            sync_dir(&self.dir)?;
        }
        self.meta.store(&self.dir, sync)?;
        for name in &self.obsolete {
            // A file left behind is removed by the next change (`remove_unreferenced`).
            let _ = std::fs::remove_file(self.dir.join(name));
        }
        Ok(Table {
            dir: self.dir,
            meta: self.meta,
            schema: self.schema,
            trusted: self.trusted,
            remote: None,
        })
    }
}

impl Table {
    /// Writes a new table into `dir` (created if missing) from `batches` of `schema`. The index
    /// column (moved first) must be unique; out-of-order rows are sorted when `options.sort`.
    pub fn create(
        dir: &Path,
        schema: SchemaRef,
        batches: &[RecordBatch],
        options: &WriteOptions,
    ) -> Result<Pending> {
        std::fs::create_dir_all(dir).map_err(at(dir))?;
        let old = match Table::open(dir) {
            Ok(old) if options.replace => Some(old),
            Ok(_) => return Err(StoreError::Exists(dir.to_path_buf())),
            Err(StoreError::NotATable(_)) => None,
            Err(e) if options.replace => {
                // An unreadable table is replaced, as the caller asked.
                let _ = e;
                None
            }
            Err(e) => return Err(e),
        };
        let (schema, batches, row_number) = with_index_first(&schema, batches, options)?;
        let kind = KeyKind::of(schema.field(0).data_type())?;
        let batches = sorted_unique(&schema, batches, options.sort)?;
        let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
        let bytes: u64 = batches.iter().map(arrow_bytes).sum();
        let rows_per_partition = match options.partition_bytes {
            None => rows.max(1),
            Some(target) => {
                let estimate = (rows as f64 * target as f64 / bytes.max(1) as f64).round();
                (estimate as u64).max(1)
            }
        };
        let generation = old.as_ref().map_or(1, |t| t.meta.generation + 1);
        let pieces = split(&batches, rows_per_partition);
        let (partitions, written) = write_partitions(
            dir,
            &schema,
            generation,
            0,
            pieces,
            options.compression,
            options.threads,
        )?;
        let meta = TableMeta {
            format: FORMAT.into(),
            version: VERSION,
            generation,
            index: IndexMeta {
                name: schema.field(0).name().clone(),
                kind,
                row_number,
            },
            columns: column_meta(&schema),
            rows,
            partition_bytes: options.partition_bytes,
            rows_per_partition,
            compression: options.compression,
            partitions,
        };
        let footprint = Footprint {
            files_written: written.len(),
            bytes_written: meta.partitions.iter().map(|p| p.bytes).sum(),
            ..Default::default()
        };
        Ok(Pending {
            dir: dir.to_path_buf(),
            meta,
            schema,
            written,
            obsolete: old
                .map(|t| t.meta.partitions.into_iter().map(|p| p.file).collect())
                .unwrap_or_default(),
            footprint,
            threads: options.threads,
            trusted: false,
        })
    }
}

pub(crate) fn column_meta(schema: &Schema) -> Vec<ColumnMeta> {
    schema
        .fields()
        .iter()
        .map(|f| ColumnMeta {
            name: f.name().clone(),
            data_type: f.data_type().to_string(),
        })
        .collect()
}

/// Bytes of Arrow data in a batch (of its slice only), the size FeatherStore's rule divides.
pub(crate) fn arrow_bytes(batch: &RecordBatch) -> u64 {
    batch
        .columns()
        .iter()
        .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0) as u64)
        .sum()
}

/// The schema and batches with the index as column 0: the named column moved first, or the
/// row number added (then the third value is true).
fn with_index_first(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    options: &WriteOptions,
) -> Result<(SchemaRef, Vec<RecordBatch>, bool)> {
    match &options.index {
        Some(name) => {
            let position = schema
                .index_of(name)
                .map_err(|_| StoreError::UnknownColumns(format!("'{name}' (the index)")))?;
            let order: Vec<usize> = std::iter::once(position)
                .chain((0..schema.fields().len()).filter(|&i| i != position))
                .collect();
            let projected = Arc::new(schema.project(&order)?);
            let batches = batches
                .iter()
                .map(|b| Ok(b.project(&order)?.with_schema(projected.clone())?))
                .collect::<Result<Vec<_>>>()?;
            Ok((projected, batches, false))
        }
        None => {
            if schema.index_of(ROW_NUMBER_INDEX).is_ok() {
                return Err(StoreError::Invalid(format!(
                    "the data already has a column named {ROW_NUMBER_INDEX}; name it as the index"
                )));
            }
            let (schema, batches) = with_row_numbers(schema, batches, 0)?;
            Ok((schema, batches, true))
        }
    }
}

/// Prepends the row number (from `start`) as the int64 column `__index_level_0__`.
pub(crate) fn with_row_numbers(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    start: i64,
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let mut fields = vec![Arc::new(Field::new(
        ROW_NUMBER_INDEX,
        DataType::Int64,
        false,
    ))];
    fields.extend(schema.fields().iter().cloned());
    let out_schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let mut next = start;
    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        let n = batch.num_rows() as i64;
        let index: ArrayRef = Arc::new(Int64Array::from_iter_values(next..next + n));
        next += n;
        let mut columns = vec![index];
        columns.extend(batch.columns().iter().cloned());
        out.push(RecordBatch::try_new(out_schema.clone(), columns)?);
    }
    Ok((out_schema, out))
}

/// The batches with their index strictly increasing: as given when it already is; sorted when
/// `sort` allows; a duplicate label is always an error.
pub(crate) fn sorted_unique(
    schema: &SchemaRef,
    batches: Vec<RecordBatch>,
    sort: bool,
) -> Result<Vec<RecordBatch>> {
    match increasing(&batches) {
        Ok(()) => return Ok(batches),
        Err(reason) if !sort || reason.starts_with("duplicate") || reason.contains("null") => {
            return Err(StoreError::IndexOrder(format!(
                "the index is not usable: {reason}"
            )))
        }
        Err(_) => {}
    }
    let all = arrow::compute::concat_batches(schema, &batches)?;
    let order = arrow::compute::sort_to_indices(all.column(0), None, None)?;
    let sorted = arrow::compute::take_record_batch(&all, &order)?;
    let sorted = vec![sorted];
    increasing(&sorted)
        .map_err(|reason| StoreError::IndexOrder(format!("the index is not usable: {reason}")))?;
    Ok(sorted)
}

/// Checks that the index (column 0) increases strictly across all the batches.
pub(crate) fn increasing(batches: &[RecordBatch]) -> Result<(), String> {
    let mut last = None;
    for batch in batches.iter().filter(|b| b.num_rows() > 0) {
        let keys = key::keys(batch.column(0)).map_err(|e| e.to_string())?;
        key::check_increasing(keys.as_ref(), last.as_ref())?;
        last = Some(keys.key(keys.len() - 1));
    }
    Ok(())
}

/// Cuts rows into runs of `rows_per_partition` (zero-copy slices), merging a last run shorter
/// than half of that into the one before (FeatherStore's rule). No rows: one empty run.
pub(crate) fn split(batches: &[RecordBatch], rows_per_partition: u64) -> Vec<Vec<RecordBatch>> {
    let total: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
    let per = rows_per_partition.max(1);
    let mut bounds: Vec<(u64, u64)> = (0..total.div_ceil(per))
        .map(|k| (k * per, ((k + 1) * per).min(total)))
        .collect();
    if bounds.len() > 1 {
        if let Some(&(start, end)) = bounds.last() {
            if (end - start) * 2 < per {
                bounds.pop();
                if let Some(previous) = bounds.last_mut() {
                    previous.1 = end;
                }
            }
        }
    }
    if bounds.is_empty() {
        return vec![batches.iter().take(1).map(|b| b.slice(0, 0)).collect()];
    }
    bounds
        .into_iter()
        .map(|(start, end)| slice_rows(batches, start, end))
        .collect()
}

/// Rows `[start, end)` of the batches taken together, as zero-copy slices.
pub(crate) fn slice_rows(batches: &[RecordBatch], start: u64, end: u64) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    let mut offset = 0u64;
    for batch in batches {
        let n = batch.num_rows() as u64;
        let (lo, hi) = (start.max(offset), end.min(offset + n));
        if lo < hi {
            out.push(batch.slice((lo - offset) as usize, (hi - lo) as usize));
        }
        offset += n;
        if offset >= end {
            break;
        }
    }
    out
}

/// Writes each run of rows as one partition file named for `generation` (sequence numbers
/// from `first`), `threads` files at a time. Returns their metadata and names, in run order.
pub(crate) fn write_partitions(
    dir: &Path,
    schema: &SchemaRef,
    generation: u64,
    first: usize,
    pieces: Vec<Vec<RecordBatch>>,
    compression: Compression,
    threads: usize,
) -> Result<(Vec<PartitionMeta>, Vec<String>)> {
    // Every file is created (and closed, so that thousands of partitions need no thousands of
    // descriptors) before any is written: creating a file looks up the directory, and once
    // gigabytes are being written back, that lookup waits behind the data for the directory's
    // block (measured at 10M x 60: 0.5 s of each write's thread time). Opening an existing
    // file to write finds it in the dentry cache.
    let jobs: Vec<(String, Vec<RecordBatch>)> = pieces
        .into_iter()
        .enumerate()
        .map(|(i, batches)| {
            let name = partition_file(generation, first + i);
            let path = dir.join(&name);
            File::create(&path).map_err(at(&path))?;
            Ok((name, batches))
        })
        .collect::<Result<_>>()?;
    let metas = in_parallel(threads, &jobs, |group| {
        group
            .iter()
            .map(|(name, batches)| {
                let path = dir.join(name);
                let file = OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(at(&path))?;
                // Files are written `threads` at a time: one thread compresses each.
                let bytes = write_into(&file, &path, schema, batches, compression, 1)?;
                partition_meta(name, batches, bytes)
            })
            .collect::<Result<Vec<_>>>()
    })?;
    let names = jobs.into_iter().map(|(name, _)| name).collect();
    Ok((metas, names))
}

fn partition_meta(name: &str, batches: &[RecordBatch], bytes: u64) -> Result<PartitionMeta> {
    let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
    let nonempty: Vec<&RecordBatch> = batches.iter().filter(|b| b.num_rows() > 0).collect();
    let label = |batch: Option<&&RecordBatch>, last: bool| -> Result<_> {
        batch
            .map(|b| {
                let keys = key::keys(b.column(0))?;
                Ok(keys.key(if last { keys.len() - 1 } else { 0 }))
            })
            .transpose()
    };
    Ok(PartitionMeta {
        file: name.to_string(),
        rows,
        bytes,
        min: label(nonempty.first(), false)?,
        max: label(nonempty.last(), true)?,
    })
}
