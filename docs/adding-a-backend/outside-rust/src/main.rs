//! A toy format written outside formatbench's repository: one Arrow IPC file per column, each
//! holding the column's batches. Run by formatbench through manifest.toml beside it.

use formatbench_worker_kit::arrow::array::RecordBatch;
use formatbench_worker_kit::arrow::datatypes::Schema;
use formatbench_worker_kit::arrow::ipc::reader::FileReader;
use formatbench_worker_kit::arrow::ipc::writer::FileWriter;
use formatbench_worker_kit::{
    column_indices, unsupported, worker_main, Backend, Context, KitError, Loaded, Op, Request,
};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct IpcColumns;

fn column_file(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("{index:05}.arrow"))
}

impl Backend for IpcColumns {
    type Error = KitError;

    fn name(&self) -> &'static str {
        "ext-ipc-columns" // the manifest's name for it
    }
    fn about(&self) -> &'static str {
        "one Arrow IPC file per column"
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default"]
    }
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }
    fn ops(&self) -> &'static [Op] {
        &[Op::Write, Op::Read, Op::Project]
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError> {
        for (index, field) in ctx.schema.fields().iter().enumerate() {
            let schema = Arc::new(Schema::new(vec![field.clone()]));
            let mut writer = FileWriter::try_new(File::create(column_file(dir, index))?, &schema)?;
            for batch in batches {
                writer.write(&RecordBatch::try_new(
                    schema.clone(),
                    vec![batch.column(index).clone()],
                )?)?;
            }
            writer.finish()?;
        }
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), KitError> {
        let indices = match request {
            Request::All => (0..ctx.schema.fields().len()).collect(),
            Request::Columns(names) => column_indices(ctx.schema, names)?,
            _ => return Err(unsupported("no row index".into())),
        };
        // Every column file holds the same batches: the n-th batches of each make one.
        let mut columns = Vec::new();
        for &index in &indices {
            let reader = FileReader::try_new(File::open(column_file(dir, index))?, None)?;
            columns.push(reader.collect::<Result<Vec<_>, _>>()?);
        }
        let schema = Arc::new(ctx.schema.project(&indices)?);
        let batches = (0..columns.first().map_or(0, Vec::len))
            .map(|n| {
                let arrays = columns.iter().map(|c| c[n].column(0).clone()).collect();
                RecordBatch::try_new(schema.clone(), arrays)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((Loaded::Table(batches), "one IPC file read per column"))
    }

    fn settings(&self, _ctx: &Context, _dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::from([("files".to_string(), "one per column".to_string())])
    }
}

fn main() {
    std::process::exit(worker_main("ipc-columns", &[&IpcColumns], &[]));
}
