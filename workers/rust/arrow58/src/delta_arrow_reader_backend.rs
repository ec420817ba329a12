//! Delta Lake through delta-arrow-reader 0.9.2 (delta_kernel 0.25 inside, its own Parquet
//! scheduling, no DataFusion): a reader of the tables delta-kernel writes. A scan streams Arrow
//! batches with deletion vectors applied; `first_row` is a scan with a limit of one row.

use arrow::array::RecordBatch;
use delta_arrow_reader::DeltaTableBuilder;
use formatbench_protocol::Op;
use formatbench_worker_kit::runtime::runtime;
use formatbench_worker_kit::{delta, Backend, Context, KitError, Request};
use std::collections::BTreeMap;
use std::path::Path;

pub struct DeltaArrowReader;

fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("delta-arrow-reader: {e}"))
}

/// Loads the table and streams one scan: every column or `columns`, up to `limit` rows.
fn scan(
    ctx: &Context,
    dir: &Path,
    columns: Option<&[String]>,
    limit: Option<usize>,
) -> Result<Vec<RecordBatch>, KitError> {
    let location = dir
        .to_str()
        .ok_or_else(|| KitError::Invalid(format!("{} is not UTF-8", dir.display())))?
        .to_string();
    runtime(ctx.threads)?.block_on(async {
        let table = DeltaTableBuilder::new(location)
            .load_table()
            .await
            .map_err(library)?;
        let mut builder = table
            .scan()
            .with_target_partitions(ctx.threads)
            .map_err(library)?;
        if let Some(names) = columns {
            builder = builder.with_projection(names.iter().cloned());
        }
        if let Some(limit) = limit {
            builder = builder.with_limit(limit);
        }
        let scan = builder.build().await.map_err(library)?;
        let mut stream = scan.into_stream();
        let mut out = Vec::new();
        while let Some(batch) = stream.next_batch().await.map_err(library)? {
            out.push(batch);
        }
        Ok(out)
    })
}

impl Backend for DeltaArrowReader {
    fn name(&self) -> &'static str {
        "delta-arrow-reader"
    }

    fn about(&self) -> &'static str {
        "delta-arrow-reader 0.9.2 (delta_kernel 0.25, no DataFusion) reading the tables \
         delta-kernel writes: DeltaTableBuilder, then a streaming scan with the thread cap as its \
         partition target; deletion vectors applied while scanning"
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
        delta_arrow_reader::VERSION.to_string()
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
                scan(ctx, dir, None, None)?,
                "load_table, scan, every batch of the stream kept",
            )),
            Request::Columns(names) => Ok((
                scan(ctx, dir, Some(names), None)?,
                "load_table, scan with_projection",
            )),
            Request::Take(..) => Err(KitError::Unsupported(
                "delta-arrow-reader has no row take".into(),
            )),
        }
    }

    fn first_row(
        &self,
        ctx: &Context,
        dir: &Path,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        Ok((
            scan(ctx, dir, None, Some(1))?,
            "load_table, scan with_limit(1)",
        ))
    }

    fn settings(&self, ctx: &Context, _dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::from([("target_partitions".into(), ctx.threads.to_string())])
    }
}
