//! Vortex 0.90.0: one `data.vortex` file per artifact, written from the Arrow batches with
//! vortex's default write strategy (BtrBlocks cascading compression over 8,192-row blocks) or,
//! for the `compact` profile, the same strategy with BtrBlocks' compact preset (Pco for numbers,
//! Zstd for strings), or, for `uncompressed`, with no compression scheme and chunks of whole row
//! blocks (random float32 features are ALP-RD-encoded by default, saving ~12 % at three decoding
//! passes per value, in 32-row chunks). Reads are scans: a projection pushed into the scan, row
//! indices for `take`, exported to Arrow in the stored table's schema.
//!
//! Threads: vortex's `CurrentThreadRuntime` drives work on the thread that blocks on it, plus a
//! worker pool of `threads - 1`, so `threads` threads run vortex's tasks; its blocking file-read
//! pool is capped at `threads` through `BLOCKING_MAX_THREADS`. Both are set once per process.
//! Over object storage, the HTTP requests run on a tokio runtime of `threads` workers of its own.

use arrow::array::{Array, ArrayRef, FixedSizeListArray, RecordBatch, UInt32Array};
use arrow::compute::{cast, concat_batches, take_record_batch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use formatbench_protocol::{ObjectTarget, Op};
use formatbench_s3_client::v013::{
    self, object_store::path::Path as ObjectPath, object_store::ObjectStore,
};
use formatbench_worker_kit::layout::ArrayForm;
use formatbench_worker_kit::runtime::runtime;
use formatbench_worker_kit::{
    ranges_unsupported, Backend, Context, KitError, Loaded, Request, TABLE_FORMAT_OPS,
};
use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use vortex::array::expr::{get_item, root, select};
use vortex::array::iter::ArrayIteratorAdapter;
use vortex::arrow::ArrowSessionExt;
use vortex::buffer::Buffer;
use vortex::compressor::BtrBlocksCompressorBuilder;
use vortex::file::{
    OpenOptionsSessionExt, VortexFile, WriteOptionsSessionExt, WriteStrategyBuilder,
};
use vortex::io::runtime::current::{CurrentThreadRuntime, CurrentThreadWorkerPool};
use vortex::io::runtime::BlockingRuntime;
use vortex::io::session::RuntimeSessionExt;
use vortex::scan::strict_sorted_buffer::StrictSortedBuffer;
use vortex::session::VortexSession;
use vortex::VortexSessionDefault;

pub struct Vortex;

const VERSION: &str = "0.90.0";
const FILE: &str = "data.vortex";
/// The profiles besides `default` (Vortex's own write strategy).
const COMPACT: &str = "compact";
const UNCOMPRESSED: &str = "uncompressed";

fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("vortex: {e}"))
}

fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The runtime, its worker pool and a session bound to it, created once per process and sized
/// by the first job's thread cap (a worker runs one job).
struct Vx {
    runtime: CurrentThreadRuntime,
    session: VortexSession,
    threads: usize,
    // Kept alive: dropping the pool stops its workers.
    _pool: CurrentThreadWorkerPool,
}

fn vx(threads: usize) -> Result<&'static Vx, KitError> {
    static VX: OnceLock<Result<Vx, String>> = OnceLock::new();
    VX.get_or_init(|| {
        let threads = threads.max(1);
        // Read by vortex's blocking I/O pool; the worker is still one thread here.
        std::env::set_var("BLOCKING_MAX_THREADS", threads.to_string());
        catch_unwind(|| {
            let runtime = CurrentThreadRuntime::new();
            let pool = runtime.new_pool();
            // The thread blocking on the runtime is the first of `threads`.
            pool.set_workers(threads - 1);
            let session = VortexSession::default().with_handle(runtime.handle());
            Vx {
                runtime,
                session,
                threads,
                _pool: pool,
            }
        })
        .map_err(|p| panic_message(p.as_ref()))
    })
    .as_ref()
    .map_err(|e| KitError::Library(format!("vortex: cannot start its runtime: {e}")))
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs library code, turning a panic inside vortex into an error with its message.
fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, KitError>) -> Result<T, KitError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(KitError::Library(format!(
            "vortex panicked during {what}: {}",
            panic_message(p.as_ref())
        )))
    })
}

/// Every column vortex can store, or which one it cannot and why.
fn check_types(vx: &Vx, schema: &Schema) -> Result<(), KitError> {
    let arrow = vx.session.arrow();
    for field in schema.fields() {
        if let Err(e) = arrow.from_arrow_field(field) {
            return Err(KitError::Unsupported(format!(
                "vortex {VERSION}: column '{}' is {}, which vortex cannot store: {e}",
                field.name(),
                field.data_type()
            )));
        }
    }
    Ok(())
}

/// The file in `dir`, or its object in the bucket of `remote`: ranged GETs through
/// formatbench's S3 client (object_store 0.13), its requests on a tokio runtime of their own,
/// since vortex's executor is not tokio.
fn open(vx: &Vx, dir: &Path, remote: Option<&ObjectTarget>) -> Result<VortexFile, KitError> {
    let Some(target) = remote else {
        return vx
            .runtime
            .block_on(vx.session.open_options().open_path(path(dir)))
            .map_err(library);
    };
    let io = runtime(vx.threads)?.handle().clone();
    let store: Arc<dyn ObjectStore> =
        Arc::new(v013::client_spawned(target, io).map_err(KitError::Invalid)?);
    let key = ObjectPath::from(target.key_of(FILE));
    vx.runtime
        .block_on(vx.session.open_options().open_object_store(&store, key))
        .map_err(library)
}

fn known(schema: &Schema, names: &[String]) -> Result<Vec<usize>, KitError> {
    names
        .iter()
        .map(|n| {
            schema
                .index_of(n)
                .map_err(|_| KitError::Invalid(format!("no column named '{n}'")))
        })
        .collect()
}

/// The batch in exactly the target schema: a column vortex exported as a different but
/// equivalent type (e.g. a FixedSizeList whose item field differs) is rebuilt or cast.
fn conform(batch: RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, KitError> {
    if batch.schema().fields() == schema.fields() {
        if batch.schema().metadata() == schema.metadata() {
            return Ok(batch);
        }
        return Ok(batch.with_schema(schema.clone())?);
    }
    if batch.num_columns() != schema.fields().len() {
        return Err(KitError::Library(format!(
            "vortex returned {} columns where {} were asked for",
            batch.num_columns(),
            schema.fields().len()
        )));
    }
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(column, field)| conform_column(column, field))
        .collect::<Result<Vec<_>, KitError>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

fn conform_column(column: &ArrayRef, field: &Field) -> Result<ArrayRef, KitError> {
    let target = field.data_type();
    if column.data_type() == target {
        return Ok(column.clone());
    }
    if let (DataType::FixedSizeList(item, size), DataType::FixedSizeList(_, got)) =
        (target, column.data_type())
    {
        if size == got {
            let list = column
                .as_any()
                .downcast_ref::<FixedSizeListArray>()
                .ok_or_else(|| KitError::Library("vortex: list column is not a list".into()))?;
            let values = conform_column(list.values(), item)?;
            return Ok(Arc::new(FixedSizeListArray::try_new(
                item.clone(),
                *size,
                values,
                list.nulls().cloned(),
            )?));
        }
    }
    Ok(cast(column, target)?)
}

/// A scan of the file into Arrow batches of `schema` (the projected columns, in that order).
fn scan(
    vx: &Vx,
    file: &VortexFile,
    schema: &SchemaRef,
    names: Option<&[String]>,
    rows: Option<Vec<u64>>,
) -> Result<Vec<RecordBatch>, KitError> {
    let mut builder = file.scan().map_err(library)?;
    if let Some(names) = names {
        let projection = select(names.iter().map(String::as_str).collect::<Vec<_>>(), root())
            .bind(file.dtype())
            .and_then(|e| e.optimize_recursive())
            .map_err(library)?;
        builder = builder.with_projection(projection);
    }
    if let Some(rows) = rows {
        let indices = StrictSortedBuffer::try_new(Buffer::from_iter(rows)).map_err(library)?;
        builder = builder.with_row_indices(indices);
    }
    let reader = builder
        .into_record_batch_reader(schema.clone(), &vx.runtime)
        .map_err(library)?;
    reader
        .map(|b| conform(b.map_err(library)?, schema))
        .collect()
}

/// The stored schema restricted to `names`, in that order.
fn projected(schema: &SchemaRef, names: &[String]) -> Result<SchemaRef, KitError> {
    let indices = known(schema, names)?;
    Ok(Arc::new(schema.project(&indices)?))
}

fn take(
    vx: &Vx,
    file: &VortexFile,
    schema: &SchemaRef,
    rows: &[u64],
    names: Option<&[String]>,
) -> Result<RecordBatch, KitError> {
    let count = file.row_count();
    if let Some(bad) = rows.iter().find(|&&r| r >= count) {
        return Err(KitError::Invalid(format!(
            "row {bad} is past the file's {count} rows"
        )));
    }
    let mut sorted = rows.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let batches = scan(vx, file, schema, names, Some(sorted.clone()))?;
    let batch = concat_batches(schema, &batches)?;
    if batch.num_rows() != sorted.len() {
        return Err(KitError::Library(format!(
            "vortex returned {} rows for {} row indices",
            batch.num_rows(),
            sorted.len()
        )));
    }
    let positions = rows
        .iter()
        .map(|r| sorted.binary_search(r).map(|p| p as u32))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| KitError::Library("row index lost while sorting".into()))?;
    Ok(take_record_batch(&batch, &UInt32Array::from(positions))?)
}

impl Vortex {
    fn do_write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError> {
        let vx = vx(ctx.threads)?;
        check_types(vx, ctx.schema)?;
        let dtype = vx
            .session
            .arrow()
            .from_arrow_schema(ctx.schema)
            .map_err(library)?;
        let session = vx.session.clone();
        let schema = ctx.schema.clone();
        // The writer wants a 'static iterator: the batches are cloned (their buffers shared).
        let owned: Vec<RecordBatch> = batches.to_vec();
        let chunks = owned
            .into_iter()
            .map(move |b| session.arrow().from_arrow_record_batch(b, &schema));
        let mut options = vx.session.write_options();
        let strategy = match ctx.profile {
            COMPACT => Some(
                WriteStrategyBuilder::from_session(&vx.session).with_btrblocks_builder(
                    BtrBlocksCompressorBuilder::from_session(&vx.session).with_compact(),
                ),
            ),
            // No scheme to try, so every chunk stays as it is; and chunks of whole row blocks,
            // since the 1 MiB byte target exists to size compressed chunks (on a 32 KiB row it
            // cuts 32-row chunks, each a task and a batch of its own on the read).
            UNCOMPRESSED => Some(
                WriteStrategyBuilder::from_session(&vx.session)
                    .with_btrblocks_builder(BtrBlocksCompressorBuilder::empty())
                    .with_data_block_target_bytes(None),
            ),
            _ => None,
        };
        if let Some(strategy) = strategy {
            options = options.with_strategy(strategy.build());
        }
        let mut out = BufWriter::new(std::fs::File::create(path(dir))?);
        options
            .blocking(&vx.runtime)
            .write(&mut out, ArrayIteratorAdapter::new(dtype, chunks))
            .map_err(library)?;
        out.flush()?;
        Ok(())
    }

    fn do_read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        let vx = vx(ctx.threads)?;
        let file = open(vx, dir, ctx.remote)?;
        match request {
            Request::All => Ok((
                scan(vx, &file, ctx.schema, None, None)?,
                "scan, every column",
            )),
            Request::Columns(names) => {
                let schema = projected(ctx.schema, names)?;
                Ok((
                    scan(vx, &file, &schema, Some(names), None)?,
                    "scan with the projection pushed down",
                ))
            }
            Request::Range(_) => Err(ranges_unsupported(self.name())),
            Request::Take(rows, columns) => {
                let (schema, names) = match columns {
                    Some(names) => (projected(ctx.schema, names)?, Some(names)),
                    None => (ctx.schema.clone(), None),
                };
                let batch = take(vx, &file, &schema, rows, names)?;
                Ok((
                    vec![batch],
                    "scan with sorted row indices, then request order restored",
                ))
            }
        }
    }
}

/// The layout tree's node kinds with their counts, e.g. `vortex.flat×3, vortex.struct×1`.
fn layout_summary(file: &VortexFile) -> Result<String, KitError> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for layout in file.footer().layout().depth_first_traversal() {
        let layout = layout.map_err(library)?;
        *counts.entry(layout.encoding_id().to_string()).or_default() += 1;
    }
    Ok(join_counts(&counts))
}

fn join_counts(counts: &BTreeMap<String, usize>) -> String {
    counts
        .iter()
        .map(|(k, n)| format!("{k}×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The array encodings of one column as stored (the chunks a scan yields before export).
fn column_encodings(vx: &Vx, file: &VortexFile, name: &str) -> Result<String, KitError> {
    let projection = get_item(name, root())
        .bind(file.dtype())
        .and_then(|e| e.optimize_recursive())
        .map_err(library)?;
    let chunks = file
        .scan()
        .map_err(library)?
        .with_projection(projection)
        .into_array_iter(&vx.runtime)
        .map_err(library)?;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for chunk in chunks {
        let chunk = chunk.map_err(library)?;
        for array in chunk.depth_first_traversal() {
            *counts.entry(array.encoding_id().to_string()).or_default() += 1;
        }
    }
    Ok(join_counts(&counts))
}

impl Backend for Vortex {
    type Error = KitError;

    fn name(&self) -> &'static str {
        "vortex"
    }

    fn format(&self) -> Option<String> {
        Some("vortex".into())
    }

    /// Reads objects by ranges through formatbench's S3 client (object_store 0.13).
    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }
    fn about(&self) -> &'static str {
        "Vortex 0.90.0 file via the vortex crate (default BtrBlocks write strategy; compact = BtrBlocks compact preset with Pco/Zstd; uncompressed = no scheme, chunks of whole 8,192-row blocks); scans with projection and row indices"
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default", COMPACT, UNCOMPRESSED]
    }
    fn ops(&self) -> &'static [Op] {
        &TABLE_FORMAT_OPS
    }
    fn array_form(&self) -> Option<ArrayForm> {
        Some(ArrayForm::FixedList)
    }
    fn version(&self) -> String {
        VERSION.into()
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError> {
        guarded("write", || self.do_write(ctx, batches, dir))
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), KitError> {
        guarded("read", || self.do_read(ctx, dir, request))
            .map(|(batches, how)| (batches.into(), how))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::from([
            ("library".to_string(), format!("vortex {VERSION}")),
            (
                "write_strategy".to_string(),
                match ctx.profile {
                    COMPACT => "BtrBlocks, compact preset (Pco, Zstd)",
                    UNCOMPRESSED => "no compression scheme; chunks of whole 8,192-row blocks (no 1 MiB byte target)",
                    _ => "BtrBlocks (vortex default)",
                }
                .to_string(),
            ),
        ]);
        let Ok(vx) = vx(ctx.threads) else {
            return out;
        };
        out.insert(
            "runtime".into(),
            format!(
                "CurrentThreadRuntime + {} pool workers, BLOCKING_MAX_THREADS={}",
                vx.threads - 1,
                vx.threads
            ),
        );
        let read_back = guarded("settings", || {
            let file = open(vx, dir, None)?;
            let mut found = vec![("rows".to_string(), file.row_count().to_string())];
            found.push(("layouts".into(), layout_summary(&file)?));
            // The first feature column (wide) or the feature list (array).
            let probe = ctx
                .schema
                .fields()
                .iter()
                .find(|f| {
                    matches!(
                        f.data_type(),
                        DataType::Float32 | DataType::FixedSizeList(_, _)
                    )
                })
                .or_else(|| ctx.schema.fields().first());
            if let Some(field) = probe {
                found.push((
                    "encodings".into(),
                    format!(
                        "column '{}': {}",
                        field.name(),
                        column_encodings(vx, &file, field.name())?
                    ),
                ));
            }
            Ok(found)
        });
        match read_back {
            Ok(found) => out.extend(found),
            Err(e) => {
                out.insert("settings_error".into(), e.to_string());
            }
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
