//! Delta Lake through delta-rs (deltalake 1.1.2, DataFusion 55): a reader of the tables
//! delta-kernel writes. `DeltaTable::scan_table` is delta-rs's own read of a table into Arrow
//! (DataFusion's scan of its table provider, partitions coalesced into one stream), deletion
//! vectors applied. DataFusion plans its default partitions; the work runs on a tokio runtime
//! with the thread cap's workers.

use arrow::array::RecordBatch;
use formatbench_worker_kit::delta::{collect, DeltaLibrary, Scan};
use formatbench_worker_kit::runtime::runtime;
use formatbench_worker_kit::{Context, KitError};
use futures::StreamExt;
use std::collections::BTreeMap;
use std::path::Path;

pub struct DeltaRs;

fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("delta-rs: {e}"))
}

impl DeltaLibrary for DeltaRs {
    fn name(&self) -> &'static str {
        "delta-rs"
    }

    /// deltalake 1.1.2 reaches S3 through its `s3` feature (the AWS SDK) or a store it is given
    /// on object_store 0.13; formatbench's S3 client is built on object_store 0.14.
    fn object_storage(&self) -> Result<(), String> {
        Err(
            "deltalake 1.1.2 reads S3 through its `s3` feature (the AWS SDK, not in this \
             build) or an object_store 0.13 store, and formatbench's S3 client is built on \
             object_store 0.14: no route yet; py-deltalake (delta-rs's Python package) reads \
             the same tables over S3"
                .into(),
        )
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
        let dir = std::fs::canonicalize(dir)?;
        let url = url::Url::from_directory_path(&dir).map_err(|()| {
            KitError::Invalid(format!("{} is not an absolute path", dir.display()))
        })?;
        let batches = runtime(ctx.threads)?.block_on(async {
            let table = deltalake::open_table(url).await.map_err(library)?;
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
