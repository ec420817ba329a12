//! The canonical source and verification outputs: Arrow IPC files, the only thing that crosses
//! from one worker (or Arrow major) to another.

use crate::KitError;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::{FileWriter, StreamWriter};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;

fn reader(path: &Path) -> Result<FileReader<BufReader<File>>, KitError> {
    let file = File::open(path).map_err(|e| {
        KitError::Invalid(format!("cannot open the source {}: {e}", path.display()))
    })?;
    Ok(FileReader::try_new(BufReader::new(file), None)?)
}

/// Every batch of the source, with its schema.
pub fn read_all(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), KitError> {
    let reader = reader(path)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    Ok((schema, batches))
}

pub fn schema(path: &Path) -> Result<SchemaRef, KitError> {
    Ok(reader(path)?.schema())
}

pub fn write_ipc(path: &Path, schema: &SchemaRef, batches: &[RecordBatch]) -> Result<(), KitError> {
    let mut writer = FileWriter::try_new(BufWriter::new(File::create(path)?), schema)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.finish()?;
    Ok(())
}

/// A digest of a result: xxh3 of its IPC stream encoding. Equal for equal results of one
/// backend (what the runner checks across samples); not comparable across backends.
pub fn digest(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<String, KitError> {
    let mut bytes = Vec::new();
    {
        let mut writer = StreamWriter::try_new(&mut bytes, schema)?;
        for batch in batches {
            writer.write(batch)?;
        }
        writer.finish()?;
    }
    Ok(format!(
        "ipc-xxh3:{:016x}",
        xxhash_rust::xxh3::xxh3_64(&bytes)
    ))
}
