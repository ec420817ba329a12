//! `ipc-parts`: the range-partitioned Arrow IPC table store (crates/ipc-parts), FeatherStore's
//! model done natively: partitions of 128 MiB of Arrow data written concurrently, reads that
//! open only the partitions holding the rows and decode zero-copy from a memory map, and
//! changes committed atomically. The write's sync-and-rename is its `commit` phase.
//!
//! Its profiles are FeatherStore's trade-off (seed 000): the partition size (smaller partitions
//! let range and label reads skip more rows, larger ones make full reads and writes cheaper)
//! and memory-mapped against plain reads.

use super::{Backend, Change, Commit, Context, LabelRead, Loaded, Request};
use crate::WorkerError;
use arrow::array::RecordBatch;
use formatbench_protocol::{Op, RangeSpec};
use ipc_parts::{
    Access, Cols, Key, ReadOptions, Rows, Selection, StoreError, Table, WriteOptions,
    DEFAULT_PARTITION_BYTES,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

pub struct IpcParts;

/// The profiles: the default (128 MiB partitions, memory-mapped reads), other partition sizes,
/// and plain reads (each partition file read into memory, then decoded).
const PROFILES: [&str; 5] = ["default", "8mib", "32mib", "512mib", "no-mmap"];

/// The Arrow bytes a partition holds under a profile.
fn partition_bytes(profile: &str) -> u64 {
    const MIB: u64 = 1 << 20;
    match profile {
        "8mib" => 8 * MIB,
        "32mib" => 32 * MIB,
        "512mib" => 512 * MIB,
        _ => DEFAULT_PARTITION_BYTES,
    }
}

fn access(profile: &str) -> Access {
    match profile {
        "no-mmap" => Access::Plain,
        _ => Access::Mmap,
    }
}

impl From<StoreError> for WorkerError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Arrow(e) => WorkerError::Arrow(e),
            StoreError::IndexType(reason) => WorkerError::Unsupported(reason),
            other => WorkerError::Invalid(other.to_string()),
        }
    }
}

fn open(dir: &Path) -> Result<Table, WorkerError> {
    trusted(Table::open(dir)?)
}

/// The table a read opens: its directory, or, in object storage, its objects (the metadata
/// fetched whole, each partition the read needs by ranges).
fn open_for_read(ctx: &Context, dir: &Path) -> Result<Table, WorkerError> {
    match ctx.remote {
        Some(target) => trusted(Table::open_remote(
            dir,
            Arc::new(crate::remote::ObjectFiles::new(target)),
        )?),
        None => open(dir),
    }
}

fn trusted(table: Table) -> Result<Table, WorkerError> {
    // SAFETY: the table is this run's own artifact, written by this store, and every result
    // is compared value by value with the source before its timings count (as `ipc` does).
    Ok(unsafe { table.trusted() })
}

fn staged(pending: ipc_parts::Pending) -> Commit {
    Box::new(move |sync| {
        if sync {
            pending.commit()?;
        } else {
            pending.commit_without_sync()?;
        }
        Ok(())
    })
}

/// The selection in the source's column order (`names`: those columns only), without the
/// row-number index the store adds when the source has none.
fn shaped(
    selection: Selection,
    ctx: &Context,
    names: Option<&[String]>,
) -> Result<Vec<RecordBatch>, WorkerError> {
    let wanted: Vec<&str> = match names {
        Some(names) => names.iter().map(String::as_str).collect(),
        None => ctx
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect(),
    };
    let order = wanted
        .iter()
        .map(|n| {
            selection
                .schema
                .index_of(n)
                .map_err(|_| WorkerError::Invalid(format!("the store returned no column '{n}'")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(selection
        .batches
        .iter()
        .map(|b| b.project(&order))
        .collect::<Result<_, _>>()?)
}

fn label(ctx: &Context, read: &Rows) -> Result<(), WorkerError> {
    match (ctx.index, read) {
        (None, Rows::All | Rows::Positions(_)) => Ok(()),
        (None, _) => Err(WorkerError::Unsupported(
            "the dataset has no index column to address rows by label".into(),
        )),
        _ => Ok(()),
    }
}

impl IpcParts {
    fn select(
        &self,
        ctx: &Context,
        dir: &Path,
        rows: Rows,
        names: Option<&[String]>,
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        label(ctx, &rows)?;
        let table = open_for_read(ctx, dir)?;
        // Exactly the columns asked for: the store's default adds the index to any list, and
        // a projection would fetch its bytes for nothing (`shaped` keeps the asked ones only).
        let cols = match names {
            Some(names) => Cols::Only(names.to_vec()),
            None => Cols::All,
        };
        let options = ReadOptions {
            access: access(ctx.profile),
            threads: ctx.threads,
        };
        shaped(table.read(&rows, &cols, &options)?, ctx, names)
    }
}

impl Backend for IpcParts {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        "ipc-parts"
    }
    fn version(&self) -> String {
        // formatbench's own code (the IPC files underneath are arrow-rs's).
        env!("CARGO_PKG_VERSION").into()
    }
    fn about(&self) -> &'static str {
        "formatbench's partitioned Arrow IPC table store (FeatherStore's model): 128 MiB partitions written concurrently, min/max pruning, mmap zero-copy reads, atomic commits (8mib, 32mib, 512mib: other partition sizes; no-mmap: plain reads)"
    }
    fn profiles(&self) -> &'static [&'static str] {
        // The library also writes LZ4 and ZSTD frames; `ipc` measures those codecs already, and
        // compressed partitions give up the zero-copy reads this store is about.
        &PROFILES
    }
    // A store of IPC files and a manifest, which no single-file IPC reader reads.
    fn format(&self) -> Option<String> {
        Some("ipc-parts".into())
    }

    /// Partitions as objects: the metadata, then only the partitions a read needs, by ranges.
    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }
    fn ops(&self) -> &'static [Op] {
        &[
            Op::Write,
            Op::Read,
            Op::Scan,
            Op::Project,
            Op::Range,
            Op::Take,
            Op::RangeBefore,
            Op::RangeAfter,
            Op::RangeBetween,
            Op::Labels,
            Op::Append,
            Op::Insert,
            Op::Update,
        ]
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        match self.write_staged(ctx, batches, dir)? {
            Some(commit) => commit(true),
            None => Ok(()),
        }
    }

    fn write_staged(
        &self,
        ctx: &Context,
        batches: &[RecordBatch],
        dir: &Path,
    ) -> Result<Option<Commit>, WorkerError> {
        let options = WriteOptions {
            index: ctx.index.map(str::to_string),
            partition_bytes: Some(partition_bytes(ctx.profile)),
            threads: ctx.threads,
            compression: super::ipc_compression(ctx.profile),
            replace: true,
            sort: true,
        };
        let pending = Table::create(dir, ctx.schema.clone(), batches, &options)?;
        Ok(Some(staged(pending)))
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        let remote = ctx.remote.is_some();
        let (batches, method) = match request {
            Request::All if remote => (
                self.select(ctx, dir, Rows::All, None)?,
                "table.json fetched, then every partition by ranges (footer, block headers, blocks)",
            ),
            Request::All if access(ctx.profile) == Access::Plain => (
                self.select(ctx, dir, Rows::All, None)?,
                "every partition read whole, then decoded",
            ),
            Request::All => (
                self.select(ctx, dir, Rows::All, None)?,
                "every partition mapped, decoded zero-copy",
            ),
            Request::Columns(names) if remote => (
                self.select(ctx, dir, Rows::All, Some(names))?,
                "table.json fetched, then every partition's column buffers by ranges, decoded",
            ),
            Request::Columns(names) => (
                self.select(ctx, dir, Rows::All, Some(names))?,
                "every partition mapped, the columns decoded zero-copy",
            ),
            Request::Range(RangeSpec::Index { start, end, .. }) => (
                self.select(ctx, dir, between(*start, *end), None)?,
                "between (inclusive): the partitions holding the range; in them, each block's index column, then only the blocks holding it",
            ),
            Request::Range(RangeSpec::Position { start, end }) => (
                self.select(ctx, dir, Rows::Positions((*start..*end).collect()), None)?,
                "row positions: the blocks holding them",
            ),
            Request::Take(rows, names) => (
                self.select(ctx, dir, Rows::Positions(rows.to_vec()), names)?,
                "row positions: the blocks holding them, gathered in request order",
            ),
        };
        Ok((Loaded::Table(batches), method))
    }

    fn read_labels(
        &self,
        ctx: &Context,
        dir: &Path,
        read: LabelRead,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        let (rows, method) = match read {
            LabelRead::Before(x) => (Rows::Before(Key::Int(x)), "rows={before}"),
            LabelRead::After(x) => (Rows::After(Key::Int(x)), "rows={after}"),
            LabelRead::Between(a, b) => (Rows::Between(Key::Int(a), Key::Int(b)), "rows={between}"),
            LabelRead::Labels(labels) => (
                Rows::LabelArray(Arc::new(labels.clone())),
                "rows=[labels]: the partitions holding them, runs sliced zero-copy",
            ),
        };
        Ok((Loaded::Table(self.select(ctx, dir, rows, None)?), method))
    }

    fn change(
        &self,
        ctx: &Context,
        dir: &Path,
        change: Change,
    ) -> Result<Option<Commit>, WorkerError> {
        let table = open(dir)?;
        let pending = match change {
            Change::Append(batches) => table.append(batches, ctx.threads)?,
            Change::Insert(batches) => table.insert(batches, ctx.threads)?,
            Change::Update(batch) => table.update(batch, ctx.threads)?,
        };
        Ok(Some(staged(pending)))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let access = match (ctx.remote, access(ctx.profile)) {
            (Some(_), _) => "objects: table.json whole, partitions by ranges",
            (None, Access::Plain) => "plain reads, then decoded",
            (None, _) => "mmap, zero-copy decode",
        };
        let mut out = BTreeMap::from([
            (
                "library".to_string(),
                "ipc-parts (this repository)".to_string(),
            ),
            ("access".into(), access.into()),
        ]);
        if let Ok(table) = Table::open(dir) {
            let meta = table.meta();
            out.insert("partitions".into(), meta.partitions.len().to_string());
            out.insert(
                "rows_per_partition".into(),
                meta.rows_per_partition.to_string(),
            );
            out.insert(
                "partition_bytes".into(),
                meta.partition_bytes
                    .map_or("one partition".into(), |b| b.to_string()),
            );
            out.insert(
                "compression".into(),
                format!("{:?}", meta.compression).to_lowercase(),
            );
            out.insert("index".into(), meta.index.name.clone());
        }
        out
    }
}

/// `[start, end)` of integer labels as FeatherStore's inclusive `between`.
fn between(start: i64, end: i64) -> Rows {
    Rows::Between(Key::Int(start), Key::Int(end.saturating_sub(1)))
}
