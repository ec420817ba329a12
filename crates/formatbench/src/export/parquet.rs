use super::Table;
use crate::Error;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::path::Path;

pub fn write(table: &Table, path: &Path) -> Result<(), Error> {
    let batch = table.to_batch()?;
    let io = |e: &dyn std::fmt::Display| Error::Io(format!("cannot write {}: {e}", path.display()));
    let level = ZstdLevel::try_new(3).map_err(|e| io(&e))?;
    // A fixed created_by keeps the export byte-identical when regenerated.
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_created_by("formatbench export".into())
        .build();
    let file = std::fs::File::create(path).map_err(|e| io(&e))?;
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(|e| io(&e))?;
    writer.write(&batch).map_err(|e| io(&e))?;
    writer.close().map_err(|e| io(&e))?;
    Ok(())
}
