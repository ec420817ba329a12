//! The canonical source: an Arrow IPC file the runner prepared (generated or ingested).

use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

pub fn open(path: &Path) -> Result<FileReader<std::io::BufReader<File>>, WorkerError> {
    let file = File::open(path)
        .map_err(|e| WorkerError::Invalid(format!("cannot open source {}: {e}", path.display())))?;
    Ok(FileReader::try_new_buffered(file, None)?)
}

pub fn schema(path: &Path) -> Result<SchemaRef, WorkerError> {
    Ok(open(path)?.schema())
}

/// The whole source in memory (what a write starts from; loaded before the timer).
pub fn read_all(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), WorkerError> {
    let reader = open(path)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    Ok((schema, batches))
}

/// Writes batches to an uncompressed Arrow IPC file (verification outputs, test fixtures).
pub fn write_ipc(
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
) -> Result<(), WorkerError> {
    let mut writer = FileWriter::try_new(BufWriter::new(File::create(path)?), schema)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.finish()?;
    Ok(())
}
