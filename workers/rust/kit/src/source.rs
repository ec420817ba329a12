//! The canonical source and verification outputs: Arrow IPC files, the only thing that crosses
//! from one worker (or Arrow major) to another.

use crate::KitError;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;

mod mapped;
pub use mapped::read_all_mapped;

/// The source as a reader of its batches.
pub fn open(path: &Path) -> Result<FileReader<BufReader<File>>, KitError> {
    let file = File::open(path).map_err(|e| {
        KitError::Invalid(format!("cannot open the source {}: {e}", path.display()))
    })?;
    Ok(FileReader::try_new_buffered(file, None)?)
}

/// Every batch of the source, with its schema.
pub fn read_all(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), KitError> {
    let reader = open(path)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    Ok((schema, batches))
}

pub fn schema(path: &Path) -> Result<SchemaRef, KitError> {
    Ok(open(path)?.schema())
}

pub fn write_ipc(path: &Path, schema: &SchemaRef, batches: &[RecordBatch]) -> Result<(), KitError> {
    let mut writer = FileWriter::try_new(BufWriter::new(File::create(path)?), schema)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.finish()?;
    Ok(())
}

/// The batches as one batch in a canonical order: by `column` when the result has it, else by
/// every column (a projection without it is ordered by its values alone). This is how an
/// unordered reader's result is made comparable run to run, after the timer.
pub fn sort_by(batches: Vec<RecordBatch>, column: &str) -> Result<Vec<RecordBatch>, KitError> {
    let Some(first) = batches.first() else {
        return Ok(batches);
    };
    let schema = first.schema();
    let whole = arrow::compute::concat_batches(&schema, &batches)?;
    // The lead column (a unique index) alone orders the rows; without it, every column does.
    let keys: Vec<usize> = match schema.index_of(column) {
        Ok(i) => vec![i],
        Err(_) => (0..schema.fields().len()).collect(),
    };
    let sort_columns: Vec<arrow::compute::SortColumn> = keys
        .iter()
        .map(|&i| arrow::compute::SortColumn {
            values: whole.column(i).clone(),
            options: None,
        })
        .collect();
    let order = arrow::compute::lexsort_to_indices(&sort_columns, None)?;
    let columns = whole
        .columns()
        .iter()
        .map(|c| arrow::compute::take(c, &order, None))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(vec![RecordBatch::try_new(schema, columns)?])
}
