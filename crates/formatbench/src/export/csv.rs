use super::Table;
use crate::Error;
use std::path::Path;

pub fn write(table: &Table, path: &Path) -> Result<(), Error> {
    let batch = table.to_batch()?;
    let file = std::fs::File::create(path).map_err(Error::at("write", path))?;
    let mut writer = arrow::csv::WriterBuilder::new()
        .with_header(true)
        .build(file);
    writer
        .write(&batch)
        .map_err(Error::failed(format!("cannot write {}", path.display())))
}
