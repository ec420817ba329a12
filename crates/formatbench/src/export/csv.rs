use super::Table;
use crate::Error;
use std::path::Path;

pub fn write(table: &Table, path: &Path) -> Result<(), Error> {
    let batch = table.to_batch()?;
    let file = std::fs::File::create(path)
        .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
    let mut writer = arrow::csv::WriterBuilder::new()
        .with_header(true)
        .build(file);
    writer
        .write(&batch)
        .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))
}
