use super::{Column, Table};
use crate::Error;
use serde_json::{Map, Value};
use std::path::Path;

/// An array of objects, one per row; nulls stay null.
pub fn write(table: &Table, path: &Path) -> Result<(), Error> {
    let rows: Vec<Value> = (0..table.rows)
        .map(|i| {
            let mut row = Map::new();
            for (name, column) in &table.columns {
                let value = match column {
                    Column::Text(v) => v[i].clone().map_or(Value::Null, Value::from),
                    Column::Float(v) => v[i].map_or(Value::Null, Value::from),
                    Column::Count(v) => v[i].map_or(Value::Null, Value::from),
                    Column::Flag(v) => v[i].map_or(Value::Null, Value::from),
                };
                row.insert((*name).to_string(), value);
            }
            Value::Object(row)
        })
        .collect();
    let text =
        serde_json::to_vec_pretty(&Value::Array(rows)).map_err(Error::encode("the JSON export"))?;
    std::fs::write(path, text).map_err(Error::at("write", path))
}
