//! Lance 14 (file format 2.x): a dataset directory per artifact, written with lance's defaults
//! and read through its scanner and `take`. Threads are capped with `LANCE_CPU_THREADS`,
//! `LANCE_IO_THREADS` and the tokio runtime's worker count; the study found Lance above one
//! core even when asked for one, so `parallelism` is worth reading in the results.

use arrow::array::{RecordBatch, RecordBatchIterator};
use arrow::datatypes::SchemaRef;
use formatbench_protocol::{ObjectTarget, Op};
use formatbench_worker_kit::layout::ArrayForm;
use formatbench_worker_kit::{
    ranges_unsupported, Backend, Context, KitError, Loaded, Request, TABLE_FORMAT_OPS,
};
use futures::TryStreamExt;
use lance::dataset::builder::DatasetBuilder;
use lance::dataset::{
    ProjectionRequest, WriteMode, WriteParams, DEFAULT_INDEX_CACHE_SIZE,
    DEFAULT_METADATA_CACHE_SIZE,
};
use lance::io::RecordBatchStream;
use lance::session::Session;
use lance::Dataset;
use lance_file::reader::FileReaderOptions;
use lance_file::version::{ConcreteFileVersion, LanceFileVersion};
use lance_file::writer::FileWriterOptions;
use lance_io::object_store::{
    ObjectStore, ObjectStoreParams, ObjectStoreProvider, ObjectStoreRegistry,
    DEFAULT_CLOUD_IO_PARALLELISM, DEFAULT_DOWNLOAD_RETRY_COUNT,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

mod gather;
mod pages;
#[cfg(test)]
mod tests;

pub struct Lance;

/// The profile that writes Lance's file format 2.0 (`data_storage_version`), whose plain pages
/// of fixed-width values decode without the 2.1+ full-zip pass; `default` writes Lance's own
/// choice (2.2 in Lance 14).
const FORMAT_2_0: &str = "format-2.0";

/// File format 2.0 with pages of up to [`LARGE_PAGE_BYTES`] per column: the 2.0 writer cuts a
/// column into a page whenever 8 MiB of it are buffered, 32 MiB at most (2.1+ splits pages
/// when reading instead), and a scan that spans two pages concatenates them, a copy of every
/// value.
const FORMAT_2_0_LARGE_PAGES: &str = "format-2.0-large-pages";

/// The most bytes of one column the `format-2.0-large-pages` profile buffers into one page.
const LARGE_PAGE_BYTES: u64 = 256 << 20;

/// The largest single read of a local float matrix ([`whole_page_reads`]): Lance splits a
/// page's byte range into 8 MiB chunks and a request into 16 MiB reads by default, and puts
/// each range's pieces back together by a copy; one `pread` per range is what the `.npy`
/// floor does.
const LOCAL_READ_BYTES: u64 = 1 << 30;

/// Whether this worker's reads take each page in one read: a local table with a float list
/// column (the array layout's matrix, read whole by every matrix operation). Other tables keep
/// Lance's split reads, which let decoding start before a large request has all arrived (the
/// mixed table's `scan` was 6–22 % slower with whole reads); over S3 the pieces are GETs in
/// parallel. Decided once per worker: Lance reads its I/O size once per process.
fn whole_page_reads(ctx: &Context) -> bool {
    ctx.remote.is_none() && gather::FloatLists::held(ctx.schema)
}

/// Wide reads naming more than this share of the columns scan everything and select instead:
/// lance spends about 1.35 ms per named column (the layout study), so naming 8,192 features
/// costs seconds while a full scan returns the same values in a fraction of that.
const SCAN_THEN_SELECT_SHARE: f64 = 0.5;

fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("lance: {e}"))
}

/// The dataset directory inside the artifact.
const DATASET: &str = "data.lance";

fn uri(dir: &Path) -> Result<String, KitError> {
    let path: PathBuf = dir.join(DATASET);
    path.to_str()
        .map(str::to_string)
        .ok_or_else(|| KitError::Invalid(format!("{} is not UTF-8", path.display())))
}

/// The kit's runtime, with lance's own pools capped first: lance reads these variables once,
/// before its first pool starts or store opens, and the worker is still one thread here. A
/// worker process serves one target and one table, so the read size fits the whole process.
fn runtime(ctx: &Context) -> Result<&'static tokio::runtime::Runtime, KitError> {
    static CAPPED: OnceLock<()> = OnceLock::new();
    CAPPED.get_or_init(|| {
        let threads = ctx.threads.max(1).to_string();
        std::env::set_var("LANCE_CPU_THREADS", &threads);
        std::env::set_var("LANCE_IO_THREADS", &threads);
        if whole_page_reads(ctx) {
            std::env::set_var("LANCE_MAX_IOP_SIZE", LOCAL_READ_BYTES.to_string());
        }
    });
    formatbench_worker_kit::runtime::runtime(ctx.threads)
}

fn open(ctx: &Context, dir: &Path) -> Result<Dataset, KitError> {
    let runtime = runtime(ctx)?;
    let Some(target) = ctx.remote else {
        let uri = uri(dir)?;
        return runtime.block_on(Dataset::open(&uri)).map_err(library);
    };
    let uri = format!("s3://{}/{}", target.bucket, target.key_of(DATASET));
    let registry = ObjectStoreRegistry::default();
    registry.insert("s3", Arc::new(FormatbenchS3(target.clone())));
    let session = Session::new(
        DEFAULT_INDEX_CACHE_SIZE,
        DEFAULT_METADATA_CACHE_SIZE,
        Arc::new(registry),
    );
    runtime
        .block_on(
            DatasetBuilder::from_uri(&uri)
                .with_session(Arc::new(session))
                .load(),
        )
        .map_err(library)
}

/// Lance's stores for `s3://` URLs: formatbench's S3 client (object_store 0.14, as Lance 14's),
/// in place of Lance's own, which comes with its `aws` feature (the AWS SDK and aws-lc's C
/// build). Lance's reading (block size, parallel ranged GETs) is its own as for any store.
#[derive(Debug)]
struct FormatbenchS3(ObjectTarget);

#[async_trait::async_trait]
impl ObjectStoreProvider for FormatbenchS3 {
    async fn new_store(
        &self,
        base_path: url::Url,
        params: &ObjectStoreParams,
    ) -> lance::Result<ObjectStore> {
        let client = formatbench_s3_client::client(&self.0).map_err(lance::Error::invalid_input)?;
        Ok(ObjectStore::new(
            Arc::new(client),
            base_path,
            params.block_size,
            None,
            false,
            // S3 lists keys in lexical order.
            true,
            DEFAULT_CLOUD_IO_PARALLELISM,
            DEFAULT_DOWNLOAD_RETRY_COUNT,
            params.storage_options(),
        ))
    }
}

fn scan(
    ctx: &Context,
    ds: &Dataset,
    columns: Option<&[String]>,
) -> Result<Vec<RecordBatch>, KitError> {
    runtime(ctx)?.block_on(async {
        // The dataset's row count sizes a float matrix once; other scans need none.
        let matrix_rows = match gather::FloatLists::selected(ctx.schema, columns) {
            true => Some(ds.count_rows(None).await.map_err(library)?),
            false => None,
        };
        let mut scanner = ds.scan();
        // File format 2.0 hands a plain page's values on without decoding them (a slice of
        // the bytes read), so the array layout's matrix comes in one batch with no copy; 2.1+
        // decodes every value, which batches of a few MiB do side by side.
        let plain_pages = ds.manifest().data_storage_format.version == ConcreteFileVersion::V2_0;
        match matrix_rows.filter(|_| plain_pages) {
            Some(rows) => scanner.batch_size(rows.max(1)),
            None => scanner.batch_size(gather::batch_rows(ctx.schema, columns)),
        };
        if whole_page_reads(ctx) {
            scanner.with_file_reader_options(FileReaderOptions {
                read_chunk_size: LOCAL_READ_BYTES,
                ..Default::default()
            });
        }
        if let Some(columns) = columns {
            scanner.project(columns).map_err(library)?;
        }
        let stream = scanner.try_into_stream().await.map_err(library)?;
        let schema = stream.schema();
        match (gather::FloatLists::of(&schema), matrix_rows) {
            // The array layout's lone list column: one array of the batches' values.
            (Some(lists), Some(rows)) => lists.gather(stream, rows).await,
            _ => stream.try_collect::<Vec<_>>().await.map_err(library),
        }
    })
}

fn known(schema: &SchemaRef, names: &[String]) -> Result<(), KitError> {
    match names.iter().find(|n| schema.index_of(n).is_err()) {
        Some(missing) => Err(KitError::Invalid(format!("no column named '{missing}'"))),
        None => Ok(()),
    }
}

impl Backend for Lance {
    type Error = KitError;

    fn name(&self) -> &'static str {
        "lance"
    }

    fn format(&self) -> Option<String> {
        Some("lance".into())
    }

    /// Reads through formatbench's S3 client, registered as Lance's store for `s3://`.
    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }
    fn about(&self) -> &'static str {
        "Lance 14.0.2 dataset via the lance crate (default: Lance's file format choice, 2.2; format-2.0: file format 2.0; format-2.0-large-pages: 2.0 with pages of up to 256 MiB a column); scanner reads in batches of about 4 MiB (a 2.0 float matrix in one; a local matrix's pages in one read each), take by row offsets"
    }
    fn profiles(&self) -> &'static [&'static str] {
        // The study found no verified compact setting for Lance; the older file format is a
        // setting its users choose for speed.
        &["default", FORMAT_2_0, FORMAT_2_0_LARGE_PAGES]
    }
    fn ops(&self) -> &'static [Op] {
        &TABLE_FORMAT_OPS
    }
    fn array_form(&self) -> Option<ArrayForm> {
        Some(ArrayForm::FixedList)
    }
    fn version(&self) -> String {
        "14.0.2".into()
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError> {
        // Owned batches: Dataset::write takes a 'static reader, which a borrowing iterator is not
        // (clippy's `iter().cloned()` suggestion does not compile).
        #[allow(clippy::unnecessary_to_owned)]
        let reader =
            RecordBatchIterator::new(batches.to_vec().into_iter().map(Ok), ctx.schema.clone());
        let format_2_0 = [FORMAT_2_0, FORMAT_2_0_LARGE_PAGES].contains(&ctx.profile);
        let params = WriteParams {
            mode: WriteMode::Create,
            data_storage_version: format_2_0.then_some(LanceFileVersion::V2_0),
            file_writer_options: (ctx.profile == FORMAT_2_0_LARGE_PAGES).then(|| {
                FileWriterOptions {
                    // A page is what a column buffers: up to LARGE_PAGE_BYTES, uncut.
                    data_cache_bytes: Some(LARGE_PAGE_BYTES * ctx.schema.fields().len() as u64),
                    max_page_bytes: Some(LARGE_PAGE_BYTES),
                    // The batches outlive the write; buffering them needs no copy.
                    keep_original_array: Some(true),
                }
            }),
            ..Default::default()
        };
        let uri = uri(dir)?;
        runtime(ctx)?
            .block_on(Dataset::write(reader, uri.as_str(), Some(params)))
            .map_err(library)?;
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), KitError> {
        let read = || -> Result<(Vec<RecordBatch>, &'static str), KitError> {
            let ds = open(ctx, dir)?;
            match request {
                Request::All => Ok((scan(ctx, &ds, None)?, "scanner, every column")),
                Request::Columns(names) => {
                    known(ctx.schema, names)?;
                    let share = names.len() as f64 / ctx.schema.fields().len().max(1) as f64;
                    if share > SCAN_THEN_SELECT_SHARE {
                        let all = scan(ctx, &ds, None)?;
                        let selected = all
                            .iter()
                            .map(|b| {
                                let indices = names
                                    .iter()
                                    .map(|n| b.schema().index_of(n))
                                    .collect::<Result<Vec<_>, _>>()?;
                                Ok(b.project(&indices)?)
                            })
                            .collect::<Result<Vec<_>, KitError>>()?;
                        Ok((selected, "full scan, then columns selected"))
                    } else {
                        Ok((scan(ctx, &ds, Some(names))?, "scanner projection"))
                    }
                }
                Request::Range(_) => Err(ranges_unsupported(self.name())),
                Request::Take(rows, columns) => {
                    let names: Vec<String> = match columns {
                        Some(names) => {
                            known(ctx.schema, names)?;
                            names.to_vec()
                        }
                        None => ctx
                            .schema
                            .fields()
                            .iter()
                            .map(|f| f.name().clone())
                            .collect(),
                    };
                    let projection = ProjectionRequest::from_columns(names.iter(), ds.schema());
                    let batch = runtime(ctx)?
                        .block_on(ds.take(rows, projection))
                        .map_err(library)?;
                    Ok((vec![batch], "take by row offsets (request order)"))
                }
            }
        };
        read().map(|(batches, how)| (batches.into(), how))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::from([("library".to_string(), "lance 14.0.2".to_string())]);
        if let Ok(ds) = open(ctx, dir) {
            let format = &ds.manifest().data_storage_format;
            out.insert(
                "data_storage_version".into(),
                format!("{} {:?}", format.file_format, format.version),
            );
            out.insert("fragments".into(), ds.count_fragments().to_string());
            if let Ok(Ok(pages)) = runtime(ctx).map(|r| r.block_on(pages::count(&ds))) {
                out.insert("pages".into(), pages.to_string());
            }
        }
        if ctx.profile == FORMAT_2_0_LARGE_PAGES {
            out.insert("max_page_bytes".into(), LARGE_PAGE_BYTES.to_string());
        }
        out
    }
}
