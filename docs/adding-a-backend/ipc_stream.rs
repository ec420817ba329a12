//! The Arrow IPC stream format (what `pyarrow.ipc.new_stream` writes, `.arrows`): record
//! batches one after another with no footer, so a reader cannot seek to a batch or a column's
//! buffers; every read decodes the stream from its start.

use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;
use formatbench_protocol::Op;
use formatbench_worker_kit::{column_indices, Backend, Context, Loaded, Request};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};

pub struct IpcStream;

fn data_file(dir: &Path) -> PathBuf {
    dir.join("data.arrows")
}

impl Backend for IpcStream {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        "ipc-stream"
    }
    fn version(&self) -> String {
        crate::ARROW_VERSION.into()
    }
    fn about(&self) -> &'static str {
        "Arrow IPC stream format via arrow-ipc (no footer: every read decodes from the start)"
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default"]
    }
    /// What it does natively; the runner marks every other operation `unsupported`.
    fn ops(&self) -> &'static [Op] {
        &[Op::Write, Op::Read, Op::Scan, Op::Project]
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        let file = BufWriter::new(File::create(data_file(dir))?);
        let mut writer = StreamWriter::try_new(file, ctx.schema)?;
        for batch in batches {
            writer.write(batch)?;
        }
        writer.finish()?;
        // Flushed and closed before the timer stops, with any error reported.
        writer
            .into_inner()?
            .into_inner()
            .map_err(|e| e.into_error())?;
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        let (projection, method) = match request {
            Request::All => (None, "stream decoded whole"),
            Request::Columns(names) => (
                Some(column_indices(ctx.schema, names)?),
                "stream decoded, only the named columns' buffers",
            ),
            // Not in `ops`, so the runner never asks.
            _ => return Err(WorkerError::Unsupported("a stream has no row index".into())),
        };
        let file = BufReader::new(File::open(data_file(dir))?);
        let batches = StreamReader::try_new(file, projection)?.collect::<Result<Vec<_>, _>>()?;
        Ok((Loaded::Table(batches), method))
    }

    /// What the files hold, read back untimed, for the fairness manifest.
    fn settings(&self, _ctx: &Context, _dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::from([("compression".to_string(), "none".to_string())])
    }
}
