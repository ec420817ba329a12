//! Delta Lake through delta-rs (deltalake 1.1.2, DataFusion 55): a reader of the tables
//! delta-kernel writes. `DeltaTable::scan_table` is delta-rs's own read of a table into Arrow
//! (DataFusion's scan of its table provider, partitions coalesced into one stream), deletion
//! vectors applied. DataFusion plans its default partitions; the work runs on a tokio runtime
//! with the thread cap's workers.

use arrow::array::RecordBatch;
use formatbench_protocol::Op;
use formatbench_worker_kit::runtime::runtime;
use formatbench_worker_kit::{delta, Backend, Context, KitError, Request};
use futures::StreamExt;
use std::collections::BTreeMap;
use std::path::Path;

pub struct DeltaRs;

fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("delta-rs: {e}"))
}

/// Opens the table and streams `scan_table`: every column or `columns`; `first` stops at the
/// first row.
fn scan(
    ctx: &Context,
    dir: &Path,
    columns: Option<&[String]>,
    first: bool,
) -> Result<Vec<RecordBatch>, KitError> {
    let dir = std::fs::canonicalize(dir)?;
    let url = url::Url::from_directory_path(&dir)
        .map_err(|()| KitError::Invalid(format!("{} is not an absolute path", dir.display())))?;
    runtime(ctx.threads)?.block_on(async {
        let table = deltalake::open_table(url).await.map_err(library)?;
        let mut load = table.scan_table();
        if let Some(names) = columns {
            load = load.with_columns(names.iter().cloned());
        }
        let (_table, mut stream) = load.await.map_err(library)?;
        let mut out = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(library)?;
            if first {
                if batch.num_rows() > 0 {
                    out.push(batch.slice(0, 1));
                    break;
                }
            } else {
                out.push(batch);
            }
        }
        Ok(out)
    })
}

impl Backend for DeltaRs {
    fn name(&self) -> &'static str {
        "delta-rs"
    }

    fn about(&self) -> &'static str {
        "delta-rs (deltalake 1.1.2, DataFusion 55) reading the tables delta-kernel writes: \
         open_table, then scan_table (with_columns for projections) streamed; deletion vectors \
         applied"
    }

    fn profiles(&self) -> &'static [&'static str] {
        delta::PROFILES
    }

    fn deletion_profiles(&self) -> &'static [&'static str] {
        delta::DELETION_PROFILES
    }

    fn artifact_from(&self) -> Option<&'static str> {
        Some(delta::WRITER)
    }

    fn unordered(&self) -> bool {
        true
    }

    fn layouts(&self) -> Vec<(&'static str, Vec<Op>)> {
        delta::reader_layouts()
    }

    fn version(&self) -> String {
        "deltalake 1.1.2".into()
    }

    fn write(&self, _: &Context, _: &[RecordBatch], _: &Path) -> Result<(), KitError> {
        Err(delta::no_write(self.name()))
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        match request {
            Request::All => Ok((
                scan(ctx, dir, None, false)?,
                "open_table, scan_table, every batch kept",
            )),
            Request::Columns(names) => Ok((
                scan(ctx, dir, Some(names), false)?,
                "open_table, scan_table().with_columns",
            )),
            Request::Take(..) => Err(KitError::Unsupported("delta-rs has no row take".into())),
        }
    }

    fn first_row(
        &self,
        ctx: &Context,
        dir: &Path,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        Ok((
            scan(ctx, dir, None, true)?,
            "open_table, scan_table, stopped after the first batch with a row",
        ))
    }

    fn settings(&self, ctx: &Context, _dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::from([("tokio_workers".into(), ctx.threads.to_string())])
    }
}
