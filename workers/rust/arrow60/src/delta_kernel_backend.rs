//! Delta Lake through delta_kernel 0.30.1 and its default engine: the writer of the tables every
//! Delta reader reads (it is the one Rust library that writes deletion vectors), and a reader.
//!
//! A table is the source cut into files as the job's [`FileSplit`] says, each written by
//! `DefaultEngine::write_parquet` and added in one commit; the `dv` profile then deletes one row
//! of every file through deletion vectors (all in one DV file, one commit), as the Delta reader
//! study's generated table does.

mod write;

use arrow::array::RecordBatch;
use delta_kernel::engine::arrow_data::ArrowEngineData;
use delta_kernel::object_store::local::LocalFileSystem;
use delta_kernel::object_store::ObjectStore;
use delta_kernel::Snapshot;
use delta_kernel_default_engine::executor::tokio::TokioMultiThreadExecutor;
use delta_kernel_default_engine::{DefaultEngine, DefaultEngineBuilder};
use formatbench_protocol::{phases, ObjectTarget, Op};
use formatbench_worker_kit::delta::{self, collect, DeltaLibrary, Scan};
use formatbench_worker_kit::{Backend, Context, KitError, Loaded, Request};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

pub struct DeltaKernel;

const ENGINE_INFO: &str = "formatbench";

pub(crate) fn kernel_error(e: delta_kernel::KernelError) -> KitError {
    KitError::Library(format!("delta_kernel: {e}"))
}

pub(crate) type Engine = DefaultEngine<TokioMultiThreadExecutor>;

/// The default engine on local files, or on the bucket of `remote` (formatbench's S3 client),
/// its tasks on a runtime of `threads` workers.
pub(crate) fn engine(
    threads: usize,
    remote: Option<&ObjectTarget>,
) -> Result<Arc<Engine>, KitError> {
    let executor = TokioMultiThreadExecutor::new_owned_runtime(Some(threads), Some(threads.max(2)))
        .map_err(kernel_error)?;
    let store: Arc<dyn ObjectStore> = match remote {
        None => Arc::new(LocalFileSystem::new()),
        Some(target) => Arc::new(formatbench_s3_client::client(target).map_err(KitError::Invalid)?),
    };
    Ok(Arc::new(
        DefaultEngineBuilder::new(store)
            .with_task_executor(Arc::new(executor))
            .build(),
    ))
}

/// The table's URL: its directory, or `s3://bucket/key/` when it lives in a bucket.
pub(crate) fn table_url(dir: &Path, remote: Option<&ObjectTarget>) -> Result<url::Url, KitError> {
    if let Some(target) = remote {
        let url = format!("{}/", target.url().trim_end_matches('/'));
        return url::Url::parse(&url).map_err(|e| KitError::Invalid(format!("{url}: {e}")));
    }
    let dir = std::fs::canonicalize(dir)?;
    url::Url::from_directory_path(&dir)
        .map_err(|()| KitError::Invalid(format!("{} is not an absolute path", dir.display())))
}

/// Runs a built scan: its batches as `scan` keeps them (deletion vectors applied), the first
/// one marked as the time to first batch.
fn execute(
    built: delta_kernel::scan::Scan,
    engine: Arc<Engine>,
    scan: Scan,
) -> Result<Vec<RecordBatch>, KitError> {
    let mut out = Vec::new();
    for data in built.execute(engine).map_err(kernel_error)? {
        let data = ArrowEngineData::try_from_engine_data(data.map_err(kernel_error)?)
            .map_err(kernel_error)?;
        phases::first_batch();
        if !collect(&mut out, data.record_batch().clone(), scan) {
            break;
        }
    }
    Ok(out)
}

impl DeltaLibrary for DeltaKernel {
    fn name(&self) -> &'static str {
        "delta-kernel"
    }

    fn about(&self) -> &'static str {
        "Delta Lake through delta_kernel's default engine: writes the table of Parquet files \
         (and, in the dv profile, its deletion vectors); reads with Scan::execute, deletion \
         vectors applied"
    }

    fn version(&self) -> String {
        "0.30.1".into()
    }

    fn scan(
        &self,
        ctx: &Context,
        dir: &Path,
        scan: Scan,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        let engine = engine(ctx.threads, ctx.remote)?;
        let snapshot = Snapshot::builder_for(table_url(dir, ctx.remote)?)
            .build(engine.as_ref())
            .map_err(kernel_error)?;
        let mut builder = snapshot.clone().scan_builder();
        if let Scan::Columns(names) = scan {
            builder = builder.with_schema(snapshot.schema().project(names).map_err(kernel_error)?);
        }
        let out = execute(builder.build().map_err(kernel_error)?, engine, scan)?;
        let method = match scan {
            Scan::All => "Scan::execute, every batch kept",
            Scan::Columns(_) => "Scan::execute with the projected schema",
            Scan::FirstRow => "Scan::execute, stopped after the first batch with a row",
        };
        Ok((out, method))
    }

    fn settings(&self, _ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        write::table_settings(dir)
    }
}

impl Backend for DeltaKernel {
    type Error = KitError;

    fn name(&self) -> &'static str {
        DeltaLibrary::name(self)
    }

    fn about(&self) -> &'static str {
        DeltaLibrary::about(self)
    }

    fn profiles(&self) -> &'static [&'static str] {
        delta::PROFILES
    }

    fn deletion_profiles(&self) -> &'static [&'static str] {
        delta::DELETION_PROFILES
    }

    fn unordered(&self) -> bool {
        true
    }

    /// Delta has no unsigned integers: they are stored signed (`write::delta_schema`).
    fn other_widths(&self) -> bool {
        true
    }

    fn ops(&self) -> &'static [Op] {
        &delta::WRITER_OPS
    }

    fn format(&self) -> Option<String> {
        Some(delta::DELTA_FORMAT.into())
    }

    /// Reads through the default engine on formatbench's S3 client (object_store).
    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }

    fn version(&self) -> String {
        DeltaLibrary::version(self)
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError> {
        write::write_table(
            ctx,
            batches,
            dir,
            delta::DELETION_PROFILES.contains(&ctx.profile),
        )
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), KitError> {
        delta::read(self, ctx, dir, request).map(|(batches, how)| (batches.into(), how))
    }

    fn first_row(&self, ctx: &Context, dir: &Path) -> Result<(Loaded, &'static str), KitError> {
        DeltaLibrary::scan(self, ctx, dir, Scan::FirstRow)
            .map(|(batches, how)| (batches.into(), how))
    }

    /// The kernel plans lazily: initialization reads the log's protocol and metadata, a query's
    /// plan is its scan (schema and predicate), and the file list and deletion vectors are
    /// replayed from the log as each query executes.
    fn session(
        &self,
        ctx: &Context,
        dir: &Path,
        columns: &[String],
        queries: u64,
    ) -> Result<(Loaded, &'static str), KitError> {
        let (engine, snapshot) = phases::timed("init", || {
            let engine = engine(ctx.threads, ctx.remote)?;
            let snapshot = Snapshot::builder_for(table_url(dir, ctx.remote)?)
                .build(engine.as_ref())
                .map_err(kernel_error)?;
            Ok::<_, KitError>((engine, snapshot))
        })?;
        let mut out = Vec::new();
        for _ in 0..queries {
            let built = phases::timed("plan", || {
                let schema = snapshot.schema().project(columns).map_err(kernel_error)?;
                snapshot
                    .clone()
                    .scan_builder()
                    .with_schema(schema)
                    .build()
                    .map_err(kernel_error)
            })?;
            out = phases::timed("execute", || {
                execute(built, engine.clone(), Scan::Columns(columns))
            })?;
        }
        Ok((
            out.into(),
            "Snapshot once, then per query scan_builder().with_schema().build() and \
             Scan::execute",
        ))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        DeltaLibrary::settings(self, ctx, dir)
    }
}
