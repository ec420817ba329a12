//! Delta Lake through delta-rs (deltalake 1.1.2, DataFusion 55): a reader of the tables
//! delta-kernel writes. `DeltaTable::scan_table` is delta-rs's own read of a table into Arrow
//! (DataFusion's scan of its table provider, partitions coalesced into one stream), deletion
//! vectors applied. DataFusion plans its default partitions; the work runs on a tokio runtime
//! with the thread cap's workers.

use arrow::array::RecordBatch;
use deltalake::logstore::{
    default_logstore, logstore_factories, LogStore, LogStoreFactory, ObjectStoreRef, StorageConfig,
};
use deltalake::{DeltaTable, DeltaTableBuilder};
use formatbench_s3_client::v013;
use formatbench_worker_kit::delta::{collect, DeltaLibrary, Scan};
use formatbench_worker_kit::runtime::runtime;
use formatbench_worker_kit::{Context, KitError};
use futures::StreamExt;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

pub struct DeltaRs;

fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("delta-rs: {e}"))
}

/// deltalake's log stores come from factories keyed by URL scheme; without its `s3` feature none
/// serves `s3://`, so the default log store (plain object-store reads and writes) is
/// registered for it.
struct S3LogStores;

impl LogStoreFactory for S3LogStores {
    fn with_options(
        &self,
        prefixed_store: ObjectStoreRef,
        root_store: ObjectStoreRef,
        location: &url::Url,
        options: &StorageConfig,
    ) -> deltalake::DeltaResult<Arc<dyn LogStore>> {
        Ok(default_logstore(
            prefixed_store,
            root_store,
            location,
            options,
        ))
    }
}

/// The table in `dir`, or in the bucket of [`Context::remote`] through formatbench's client.
async fn open(ctx: &Context<'_>, dir: &Path) -> Result<DeltaTable, KitError> {
    let Some(target) = ctx.remote else {
        let dir = std::fs::canonicalize(dir)?;
        let url = url::Url::from_directory_path(&dir).map_err(|()| {
            KitError::Invalid(format!("{} is not an absolute path", dir.display()))
        })?;
        return deltalake::open_table(url).await.map_err(library);
    };
    let store = v013::client(target).map_err(KitError::Invalid)?;
    let location = format!("{}/", target.url().trim_end_matches('/'));
    let location =
        url::Url::parse(&location).map_err(|e| KitError::Invalid(format!("{location}: {e}")))?;
    if let Ok(scheme) = url::Url::parse("s3://") {
        logstore_factories().insert(scheme, Arc::new(S3LogStores));
    }
    DeltaTableBuilder::from_url(location.clone())
        .map_err(library)?
        .with_storage_backend(Arc::new(store), location)
        .load()
        .await
        .map_err(library)
}

impl DeltaLibrary for DeltaRs {
    fn name(&self) -> &'static str {
        "delta-rs"
    }

    /// Reads through formatbench's S3 client on object_store 0.13, given to deltalake as the
    /// table's storage backend (its own `s3` feature would bring the AWS SDK).
    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }

    fn about(&self) -> &'static str {
        "delta-rs (deltalake 1.1.2, DataFusion 55) reading the tables delta-kernel writes: \
         open_table, then scan_table (with_columns for projections) streamed; deletion vectors \
         applied"
    }

    fn version(&self) -> String {
        "1.1.2".into()
    }

    fn scan(
        &self,
        ctx: &Context,
        dir: &Path,
        scan: Scan,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        let batches = runtime(ctx.threads)?.block_on(async {
            let table = open(ctx, dir).await?;
            let mut load = table.scan_table();
            if let Scan::Columns(names) = scan {
                load = load.with_columns(names.iter().cloned());
            }
            let (_table, mut stream) = load.await.map_err(library)?;
            let mut out = Vec::new();
            while let Some(batch) = stream.next().await {
                if !collect(&mut out, batch.map_err(library)?, scan) {
                    break;
                }
            }
            Ok::<_, KitError>(out)
        })?;
        let method = match scan {
            Scan::All => "open_table, scan_table, every batch kept",
            Scan::Columns(_) => "open_table, scan_table().with_columns",
            Scan::FirstRow => "open_table, scan_table, stopped after the first batch with a row",
        };
        Ok((batches, method))
    }

    fn settings(&self, ctx: &Context, _dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::from([("tokio_workers".into(), ctx.threads.to_string())])
    }
}
