//! Tables for peers without an Arrow reader or writer (R): the source goes to them as CSV with a
//! typed JSON schema beside it, and what they read comes back the same way, converted here to
//! Arrow IPC so that it is verified like any other result (docs/protocol.md §6b).
//!
//! Floats go out as hexadecimal (exact; R's decimal parsers are off by an ulp now and then)
//! and come back with 17 significant digits (exact for arrow's correctly rounded parser). Dates
//! travel as days, timestamps as integers of their unit, nulls as `\N`.

use crate::Error;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Float32Type, Float64Type, Schema, TimeUnit, UInt64Type};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How a null is written, in both directions.
pub const NULL_TEXT: &str = "\\N";

#[derive(Serialize, Deserialize)]
struct ExchangeSchema {
    columns: Vec<ExchangeColumn>,
}

#[derive(Serialize, Deserialize)]
struct ExchangeColumn {
    name: String,
    #[serde(rename = "type")]
    kind: String,
}

/// The schema file that sits beside an exchange CSV.
pub fn schema_path(csv: &Path) -> PathBuf {
    let mut name = csv.as_os_str().to_owned();
    name.push(".schema.json");
    PathBuf::from(name)
}

/// The exchange name of a source column's type, or why the column cannot cross.
fn exchange_type(field: &Field) -> Result<String, String> {
    let unit = |u: &TimeUnit| match u {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    };
    Ok(match field.data_type() {
        DataType::Int8 => "int8".into(),
        DataType::Int16 => "int16".into(),
        DataType::Int32 => "int32".into(),
        DataType::Int64 => "int64".into(),
        DataType::UInt8 => "uint8".into(),
        DataType::UInt16 => "uint16".into(),
        DataType::UInt32 => "uint32".into(),
        DataType::UInt64 => "uint64".into(),
        DataType::Float32 => "float32".into(),
        DataType::Float64 => "float64".into(),
        DataType::Boolean => "bool".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "utf8".into(),
        DataType::Dictionary(_, value)
            if matches!(**value, DataType::Utf8 | DataType::LargeUtf8) =>
        {
            "categorical".into()
        }
        DataType::Date32 | DataType::Date64 => "date32".into(),
        DataType::Timestamp(u, _) => format!("timestamp[{}]", unit(u)),
        other => {
            return Err(format!(
                "column '{}' has type {other}, which the R worker cannot receive",
                field.name()
            ))
        }
    })
}

/// A float as C99 hexadecimal (`0x1.8p+1`), which R's `as.numeric` parses exactly.
pub fn hex_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Inf" } else { "-Inf" }.into();
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let mantissa = bits & ((1u64 << 52) - 1);
    if exponent == 0 && mantissa == 0 {
        return format!("{sign}0x0p+0");
    }
    // Subnormals have no implicit leading one and the smallest normal exponent.
    let (lead, power) = if exponent == 0 {
        (0, -1022)
    } else {
        (1, exponent - 1023)
    };
    format!("{sign}0x{lead}.{mantissa:013x}p{power:+}")
}

fn hex_strings(values: impl Iterator<Item = Option<f64>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(values.map(|v| v.map(hex_float))))
}

/// A column as the rendition writes it.
fn text_column(field: &Field, array: &ArrayRef) -> Result<Result<ArrayRef, String>, Error> {
    Ok(Ok(match array.data_type() {
        DataType::Float32 => hex_strings(
            array
                .as_primitive::<Float32Type>()
                .iter()
                .map(|v| v.map(f64::from)),
        ),
        DataType::Float64 => hex_strings(array.as_primitive::<Float64Type>().iter()),
        DataType::UInt64 => {
            let values = array.as_primitive::<UInt64Type>();
            if values.iter().flatten().any(|v| v > i64::MAX as u64) {
                return Ok(Err(format!(
                    "column '{}' holds values above 2^63 - 1, which R's integer64 cannot hold",
                    field.name()
                )));
            }
            array.clone()
        }
        DataType::Date32 => cast(array, &DataType::Int32)?,
        DataType::Date64 => cast(&cast(array, &DataType::Date32)?, &DataType::Int32)?,
        DataType::Timestamp(_, _) => cast(array, &DataType::Int64)?,
        DataType::Dictionary(_, _) | DataType::LargeUtf8 | DataType::Utf8View => {
            cast(array, &DataType::Utf8)?
        }
        _ => array.clone(),
    }))
}

/// Writes the source as the exchange CSV and its schema; `Ok(Err(reason))` when a column
/// cannot cross (the cells are then unsupported, not failed).
pub fn write_rendition(source: &Path, csv: &Path) -> Result<Result<(), String>, Error> {
    let file = File::open(source).map_err(Error::at("open", source))?;
    let reader = arrow::ipc::reader::FileReader::try_new_buffered(file, None)?;
    let schema = reader.schema();
    let mut columns = Vec::new();
    for field in schema.fields() {
        match exchange_type(field) {
            Ok(kind) => columns.push(ExchangeColumn {
                name: field.name().clone(),
                kind,
            }),
            Err(reason) => return Ok(Err(reason)),
        }
    }
    let partial = csv.with_extension("csv.partial");
    let out = File::create(&partial).map_err(Error::at("write", &partial))?;
    let mut writer = arrow::csv::WriterBuilder::new()
        .with_header(true)
        .with_null(NULL_TEXT.into())
        .build(BufWriter::with_capacity(1 << 20, out));
    for batch in reader {
        let batch = batch?;
        let mut text = Vec::with_capacity(batch.num_columns());
        for (field, array) in schema.fields().iter().zip(batch.columns()) {
            match text_column(field, array)? {
                Ok(column) => text.push(column),
                Err(reason) => return Ok(Err(reason)),
            }
        }
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .zip(&text)
            .map(|(f, a)| Field::new(f.name(), a.data_type().clone(), true))
            .collect();
        writer.write(&RecordBatch::try_new(Arc::new(Schema::new(fields)), text)?)?;
    }
    drop(writer);
    let described = serde_json::to_vec(&ExchangeSchema { columns })
        .map_err(Error::failed("cannot describe the exchange schema"))?;
    std::fs::write(schema_path(csv), described)?;
    std::fs::rename(&partial, csv)?;
    Ok(Ok(()))
}

/// The type a returned column is parsed as, and the type it is then cast to.
fn returned_types(kind: &str) -> Result<(DataType, DataType), String> {
    let utf8 = DataType::Utf8;
    Ok(match kind {
        "int32" => (DataType::Int32, DataType::Int32),
        "int64" => (DataType::Int64, DataType::Int64),
        "float64" => (DataType::Float64, DataType::Float64),
        "bool" => (DataType::Boolean, DataType::Boolean),
        "utf8" => (utf8.clone(), utf8),
        "categorical" => (
            utf8.clone(),
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(utf8)),
        ),
        "date32" => (DataType::Int32, DataType::Date32),
        "timestamp[us]" => (
            DataType::Int64,
            DataType::Timestamp(TimeUnit::Microsecond, None),
        ),
        other => return Err(format!("unknown returned column type '{other}'")),
    })
}

/// Converts a peer's returned CSV and schema into an Arrow IPC file at `ipc`.
pub fn returned_to_ipc(csv: &Path, ipc: &Path) -> Result<(), String> {
    let text = std::fs::read(schema_path(csv)).map_err(|e| format!("no returned schema: {e}"))?;
    let described: ExchangeSchema = serde_json::from_slice(&text)
        .map_err(|e| format!("the returned schema is invalid: {e}"))?;
    let mut parsed = Vec::new();
    let mut finished = Vec::new();
    for column in &described.columns {
        let (read_as, final_type) = returned_types(&column.kind)?;
        parsed.push(Field::new(&column.name, read_as, true));
        finished.push(Field::new(&column.name, final_type, true));
    }
    let finished = Arc::new(Schema::new(finished));
    let null =
        regex::Regex::new(&format!("^{}$", regex::escape(NULL_TEXT))).map_err(|e| e.to_string())?;
    let file = File::open(csv).map_err(|e| format!("no returned table: {e}"))?;
    // The runner's memory stays a few MiB of batch however wide the table.
    let rows =
        formatbench_protocol::batch_rows(parsed.len(), formatbench_protocol::CSV_VALUE_BYTES);
    let reader = arrow::csv::ReaderBuilder::new(Arc::new(Schema::new(parsed)))
        .with_header(true)
        .with_batch_size(rows)
        .with_null_regex(null)
        .build(file)
        .map_err(|e| e.to_string())?;
    let out = File::create(ipc).map_err(|e| format!("cannot write {}: {e}", ipc.display()))?;
    let mut writer = arrow::ipc::writer::FileWriter::try_new(BufWriter::new(out), &finished)
        .map_err(|e| e.to_string())?;
    for batch in reader {
        let batch = batch.map_err(|e| format!("the returned table is not readable: {e}"))?;
        let columns = batch
            .columns()
            .iter()
            .zip(finished.fields())
            .map(|(array, field)| cast(array, field.data_type()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let batch = RecordBatch::try_new(finished.clone(), columns).map_err(|e| e.to_string())?;
        writer.write(&batch).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::hex_float;

    fn parse_hex(text: &str) -> f64 {
        let (sign, rest) = match text.strip_prefix('-') {
            Some(rest) => (-1.0, rest),
            None => (1.0, text),
        };
        let rest = rest.strip_prefix("0x").expect("hex prefix");
        let (digits, power) = rest.split_once('p').expect("binary exponent");
        let (lead, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let mut value = u64::from_str_radix(lead, 16).expect("lead digit") as f64;
        let mut scale = 1.0 / 16.0;
        for c in fraction.chars() {
            value += c.to_digit(16).expect("hex digit") as f64 * scale;
            scale /= 16.0;
        }
        sign * value * 2f64.powi(power.parse().expect("exponent"))
    }

    #[test]
    fn hex_floats_round_trip_exactly() {
        for x in [
            1.0,
            -2.5,
            0.1,
            1.0 / 3.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            123456.789e-300,
            f64::from(0.1f32),
            f64::from_bits(1),
        ] {
            assert_eq!(parse_hex(&hex_float(x)), x, "{x} as {}", hex_float(x));
        }
        assert_eq!(hex_float(0.0), "0x0p+0");
        assert_eq!(hex_float(-0.0), "-0x0p+0");
        assert_eq!(hex_float(3.0), "0x1.8000000000000p+1");
        assert_eq!(hex_float(f64::NAN), "NaN");
        assert_eq!(hex_float(f64::NEG_INFINITY), "-Inf");
    }
}
