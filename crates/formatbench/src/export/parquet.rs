use super::Table;
use crate::Error;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::path::Path;

pub fn write(table: &Table, path: &Path) -> Result<(), Error> {
    let batch = table.to_batch()?;
    let cannot = || format!("cannot write {}", path.display());
    let level = ZstdLevel::try_new(3).map_err(Error::failed(cannot()))?;
    // A fixed created_by keeps the export byte-identical when regenerated.
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_created_by("formatbench export".into())
        .build();
    let file = std::fs::File::create(path).map_err(Error::at("write", path))?;
    let mut writer =
        ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(Error::failed(cannot()))?;
    writer.write(&batch).map_err(Error::failed(cannot()))?;
    writer.close().map_err(Error::failed(cannot()))?;
    Ok(())
}
