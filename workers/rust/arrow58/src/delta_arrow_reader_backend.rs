//! Delta Lake through delta-arrow-reader 0.9.2 (delta_kernel 0.25 inside, its own Parquet
//! scheduling, no DataFusion): a reader of the tables delta-kernel writes. A scan streams Arrow
//! batches with deletion vectors applied, the thread cap as its partition target; `first_row`
//! is a scan with a limit of one row.

use arrow::array::RecordBatch;
use delta_arrow_reader::DeltaTableBuilder;
use formatbench_worker_kit::delta::{DeltaLibrary, Scan};
use formatbench_worker_kit::runtime::runtime;
use formatbench_worker_kit::{Context, KitError};
use std::collections::BTreeMap;
use std::path::Path;

pub struct DeltaArrowReader;

fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("delta-arrow-reader: {e}"))
}

impl DeltaLibrary for DeltaArrowReader {
    fn name(&self) -> &'static str {
        "delta-arrow-reader"
    }

    /// Reads `s3://` tables with its own object_store S3 client, given the endpoint and
    /// credentials as storage options.
    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }

    fn about(&self) -> &'static str {
        "delta-arrow-reader 0.9.2 (delta_kernel 0.25, no DataFusion) reading the tables \
         delta-kernel writes: DeltaTableBuilder, then a streaming scan with the thread cap as its \
         partition target; deletion vectors applied while scanning"
    }

    fn version(&self) -> String {
        delta_arrow_reader::VERSION.to_string()
    }

    fn scan(
        &self,
        ctx: &Context,
        dir: &Path,
        scan: Scan,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        let builder = match ctx.remote {
            Some(target) => DeltaTableBuilder::new(target.url()).with_storage_options(
                formatbench_s3_client::storage_options(target).map_err(KitError::Invalid)?,
            ),
            None => DeltaTableBuilder::new(
                dir.to_str()
                    .ok_or_else(|| KitError::Invalid(format!("{} is not UTF-8", dir.display())))?,
            ),
        };
        let batches = runtime(ctx.threads)?.block_on(async {
            let table = builder.load_table().await.map_err(library)?;
            let mut builder = table
                .scan()
                .with_target_partitions(ctx.threads)
                .map_err(library)?;
            match scan {
                Scan::Columns(names) => builder = builder.with_projection(names.iter().cloned()),
                Scan::FirstRow => builder = builder.with_limit(1),
                Scan::All => {}
            }
            let mut stream = builder.build().await.map_err(library)?.into_stream();
            let mut out = Vec::new();
            while let Some(batch) = stream.next_batch().await.map_err(library)? {
                out.push(batch);
            }
            Ok::<_, KitError>(out)
        })?;
        let method = match scan {
            Scan::All => "load_table, scan, every batch of the stream kept",
            Scan::Columns(_) => "load_table, scan with_projection",
            Scan::FirstRow => "load_table, scan with_limit(1)",
        };
        Ok((batches, method))
    }

    fn settings(&self, ctx: &Context, _dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::from([("target_partitions".into(), ctx.threads.to_string())])
    }
}
