use super::{Column, Table};
use crate::Error;
use serde_json::Value;
use std::path::Path;

/// An array of objects, one per row, each with its keys in the table's column order (the order
/// docs/results.md lists them; a JSON map would sort them); nulls stay null.
pub fn write(table: &Table, path: &Path) -> Result<(), Error> {
    std::fs::write(path, text(table)?).map_err(Error::at("write", path))
}

fn text(table: &Table) -> Result<String, Error> {
    let mut rows = Vec::with_capacity(table.rows);
    for i in 0..table.rows {
        let mut fields = Vec::with_capacity(table.columns.len());
        for (name, column) in &table.columns {
            let value = match column {
                Column::Text(v) => v[i].clone().map_or(Value::Null, Value::from),
                Column::Float(v) => v[i].map_or(Value::Null, Value::from),
                Column::Count(v) => v[i].map_or(Value::Null, Value::from),
                Column::Flag(v) => v[i].map_or(Value::Null, Value::from),
            };
            let key = serde_json::to_string(name).map_err(Error::encode("the JSON export"))?;
            let value = serde_json::to_string(&value).map_err(Error::encode("the JSON export"))?;
            fields.push(format!("    {key}: {value}"));
        }
        rows.push(format!("  {{\n{}\n  }}", fields.join(",\n")));
    }
    Ok(match rows.is_empty() {
        true => "[]".to_string(),
        false => format!("[\n{}\n]", rows.join(",\n")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_the_column_order_and_the_text_is_json() {
        let mut table = Table::new(2);
        let rows = [0u64, 1];
        table.text("zeta", &rows, |r| Some(format!("z{r}")));
        table.count("alpha", &rows, |r| (*r == 1).then_some(7));
        table.float("mid", &rows, |r| Some(*r as f64 / 2.0));
        let written = text(&table).unwrap_or_default();
        let at = |key: &str| written.find(&format!("\"{key}\""));
        assert!(
            at("zeta") < at("alpha") && at("alpha") < at("mid"),
            "{written}"
        );
        let parsed: Vec<serde_json::Map<String, Value>> =
            serde_json::from_str(&written).unwrap_or_default();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0]["alpha"], Value::Null);
        assert_eq!(parsed[1]["alpha"], Value::from(7u64));
        assert_eq!(parsed[1]["mid"], Value::from(0.5));
        assert_eq!(text(&Table::new(0)).unwrap_or_default(), "[]");
    }
}
