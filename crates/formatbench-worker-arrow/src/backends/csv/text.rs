//! Rows as CSV text, column by typed column: integers through itoa, floats through ryu (the
//! shortest text that reads back to the same value, as arrow-csv writes them), dates and
//! second timestamps through a civil-calendar conversion. arrow-csv formats every value through
//! a dynamic formatter and the csv crate's record buffer, which took over half of a write; the
//! output here is byte for byte what arrow-csv writes (a test holds it to that). Types without a
//! fast path use arrow's own formatter.

use crate::WorkerError;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{
    DataType, Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Schema, TimeUnit, TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use std::io::Write;

const SECONDS_PER_DAY: i64 = 86_400;

/// Appends a field, quoted when it holds a delimiter, a quote or a line break.
fn push_text(out: &mut Vec<u8>, text: &[u8]) {
    if memchr::memchr3(b',', b'"', b'\n', text).is_none() && memchr::memchr(b'\r', text).is_none() {
        out.extend_from_slice(text);
        return;
    }
    out.push(b'"');
    for &b in text {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// Year, month and day of a day count since 1970-01-01 (Howard Hinnant's civil_from_days).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn put_two(text: &mut [u8; 19], at: usize, n: u32) {
    text[at] = b'0' + (n / 10) as u8;
    text[at + 1] = b'0' + (n % 10) as u8;
}

/// `YYYY-MM-DD` into `text[..10]`, or `None` outside years 0–9999 (arrow writes those
/// differently).
fn date_text(text: &mut [u8; 19], days: i64) -> Option<()> {
    let (year, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let year = year as u32;
    put_two(text, 0, year / 100);
    put_two(text, 2, year % 100);
    text[4] = b'-';
    put_two(text, 5, month);
    text[7] = b'-';
    put_two(text, 8, day);
    Some(())
}

fn push_date(out: &mut Vec<u8>, days: i64) -> Option<()> {
    let mut text = [0u8; 19];
    date_text(&mut text, days)?;
    out.extend_from_slice(&text[..10]);
    Some(())
}

/// `YYYY-MM-DDTHH:MM:SS` for seconds since the epoch.
fn push_timestamp(out: &mut Vec<u8>, seconds: i64) -> Option<()> {
    let mut text = [0u8; 19];
    date_text(&mut text, seconds.div_euclid(SECONDS_PER_DAY))?;
    let of_day = seconds.rem_euclid(SECONDS_PER_DAY) as u32;
    text[10] = b'T';
    put_two(&mut text, 11, of_day / 3600);
    text[13] = b':';
    put_two(&mut text, 14, of_day / 60 % 60);
    text[16] = b':';
    put_two(&mut text, 17, of_day % 60);
    out.extend_from_slice(&text);
    Some(())
}

/// One column, resolved to its typed values once per batch so the row loop does not dispatch on
/// the data type for every value.
enum Values<'a> {
    Int8(&'a [i8]),
    Int16(&'a [i16]),
    Int32(&'a [i32]),
    Int64(&'a [i64]),
    UInt8(&'a [u8]),
    UInt16(&'a [u16]),
    UInt32(&'a [u32]),
    UInt64(&'a [u64]),
    Float32(&'a [f32]),
    Float64(&'a [f64]),
    Boolean(&'a arrow::array::BooleanArray),
    Utf8(&'a arrow::array::StringArray),
    LargeUtf8(&'a arrow::array::LargeStringArray),
    Utf8View(&'a arrow::array::StringViewArray),
    Date32(&'a [i32]),
    TimestampSecond(&'a [i64]),
    /// arrow's own formatter, for every other type.
    Other,
}

struct Column<'a> {
    values: Values<'a>,
    nulls: Option<arrow::buffer::NullBuffer>,
    /// arrow's formatter: the path for `Other`, and for dates outside years 0–9999.
    fallback: ArrayFormatter<'a>,
}

impl<'a> Column<'a> {
    fn new(array: &'a ArrayRef, options: &FormatOptions<'a>) -> Result<Self, WorkerError> {
        let values = match array.data_type() {
            DataType::Int8 => Values::Int8(array.as_primitive::<Int8Type>().values()),
            DataType::Int16 => Values::Int16(array.as_primitive::<Int16Type>().values()),
            DataType::Int32 => Values::Int32(array.as_primitive::<Int32Type>().values()),
            DataType::Int64 => Values::Int64(array.as_primitive::<Int64Type>().values()),
            DataType::UInt8 => Values::UInt8(array.as_primitive::<UInt8Type>().values()),
            DataType::UInt16 => Values::UInt16(array.as_primitive::<UInt16Type>().values()),
            DataType::UInt32 => Values::UInt32(array.as_primitive::<UInt32Type>().values()),
            DataType::UInt64 => Values::UInt64(array.as_primitive::<UInt64Type>().values()),
            DataType::Float32 => Values::Float32(array.as_primitive::<Float32Type>().values()),
            DataType::Float64 => Values::Float64(array.as_primitive::<Float64Type>().values()),
            DataType::Boolean => Values::Boolean(array.as_boolean()),
            DataType::Utf8 => Values::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Values::LargeUtf8(array.as_string::<i64>()),
            DataType::Utf8View => Values::Utf8View(array.as_string_view()),
            DataType::Date32 => Values::Date32(array.as_primitive::<Date32Type>().values()),
            DataType::Timestamp(TimeUnit::Second, None) => {
                Values::TimestampSecond(array.as_primitive::<TimestampSecondType>().values())
            }
            _ => Values::Other,
        };
        Ok(Column {
            values,
            nulls: array.logical_nulls(),
            fallback: ArrayFormatter::try_new(array.as_ref(), options)?,
        })
    }

    fn push(&self, row: usize, out: &mut Vec<u8>, scratch: &mut String) -> Result<(), WorkerError> {
        let mut integer = itoa::Buffer::new();
        let mut float = ryu::Buffer::new();
        let text: &[u8] = match &self.values {
            Values::Int8(v) => integer.format(v[row]).as_bytes(),
            Values::Int16(v) => integer.format(v[row]).as_bytes(),
            Values::Int32(v) => integer.format(v[row]).as_bytes(),
            Values::Int64(v) => integer.format(v[row]).as_bytes(),
            Values::UInt8(v) => integer.format(v[row]).as_bytes(),
            Values::UInt16(v) => integer.format(v[row]).as_bytes(),
            Values::UInt32(v) => integer.format(v[row]).as_bytes(),
            Values::UInt64(v) => integer.format(v[row]).as_bytes(),
            Values::Float32(v) => float.format(v[row]).as_bytes(),
            Values::Float64(v) => float.format(v[row]).as_bytes(),
            Values::Boolean(v) => {
                if v.value(row) {
                    b"true"
                } else {
                    b"false"
                }
            }
            Values::Utf8(v) => {
                push_text(out, v.value(row).as_bytes());
                return Ok(());
            }
            Values::LargeUtf8(v) => {
                push_text(out, v.value(row).as_bytes());
                return Ok(());
            }
            Values::Utf8View(v) => {
                push_text(out, v.value(row).as_bytes());
                return Ok(());
            }
            Values::Date32(v) => {
                if push_date(out, i64::from(v[row])).is_some() {
                    return Ok(());
                }
                return self.push_fallback(row, out, scratch);
            }
            Values::TimestampSecond(v) => {
                if push_timestamp(out, v[row]).is_some() {
                    return Ok(());
                }
                return self.push_fallback(row, out, scratch);
            }
            Values::Other => return self.push_fallback(row, out, scratch),
        };
        out.extend_from_slice(text);
        Ok(())
    }

    fn push_fallback(
        &self,
        row: usize,
        out: &mut Vec<u8>,
        scratch: &mut String,
    ) -> Result<(), WorkerError> {
        scratch.clear();
        self.fallback.value(row).write(scratch)?;
        push_text(out, scratch.as_bytes());
        Ok(())
    }
}

/// The header line: the column names, quoted where needed.
pub fn push_header(schema: &Schema, out: &mut Vec<u8>) {
    for (i, field) in schema.fields().iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_text(out, field.name().as_bytes());
    }
    out.push(b'\n');
}

/// Appends the rows of `batch` (nulls as empty fields).
pub fn push_rows(batch: &RecordBatch, out: &mut Vec<u8>) -> Result<(), WorkerError> {
    let options = FormatOptions::default();
    let columns = batch
        .columns()
        .iter()
        .map(|array| Column::new(array, &options))
        .collect::<Result<Vec<_>, WorkerError>>()?;
    let single_column = columns.len() == 1;
    let mut scratch = String::new();
    for row in 0..batch.num_rows() {
        let line_start = out.len();
        for (i, column) in columns.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            if column.nulls.as_ref().is_none_or(|n| n.is_valid(row)) {
                column.push(row, out, &mut scratch)?;
            }
        }
        // A line with one empty field would read as a blank line: quote it, as csv does.
        if single_column && out.len() == line_start {
            out.extend_from_slice(b"\"\"");
        }
        out.push(b'\n');
    }
    Ok(())
}

/// Rows formatted per `write` call: the text buffer stays a few MiB and is reused, instead of
/// growing to the size of the file (reallocations and fresh pages showed as system time).
const ROWS_PER_WRITE: usize = 8_192;

/// Writes `batches` as CSV with a header, a slice of rows at a time.
pub fn write(batches: &[RecordBatch], schema: &Schema, out: impl Write) -> Result<(), WorkerError> {
    let mut out = out;
    let mut text = Vec::with_capacity(1 << 22);
    push_header(schema, &mut text);
    for batch in batches {
        for start in (0..batch.num_rows()).step_by(ROWS_PER_WRITE) {
            let rows = ROWS_PER_WRITE.min(batch.num_rows() - start);
            push_rows(&batch.slice(start, rows), &mut text)?;
            out.write_all(&text)?;
            text.clear();
        }
    }
    out.write_all(&text)?;
    out.flush()?;
    Ok(())
}

/// The text of rows `[start, end)` of `batches`, with the header first when asked; sized from
/// the first rows' text so it is allocated once, not grown by doubling.
pub fn rows_text(
    batches: &[RecordBatch],
    start: usize,
    end: usize,
    header: bool,
) -> Result<Vec<u8>, WorkerError> {
    let slices = crate::rows::position_range(
        &crate::rows::batch_rows(batches),
        start as u64,
        end as u64,
        |i| Ok(batches[i].clone()),
    )?;
    let mut out = Vec::new();
    if let (true, Some(first)) = (header, batches.first()) {
        push_header(first.schema_ref(), &mut out);
    }
    let mut sized = false;
    for slice in &slices {
        let probe = slice.num_rows().min(1024);
        let before = out.len();
        push_rows(&slice.slice(0, probe), &mut out)?;
        if !sized && probe > 0 {
            let per_row = (out.len() - before) / probe + 1;
            out.reserve(per_row * (end - start) * 21 / 20);
            sized = true;
        }
        push_rows(&slice.slice(probe, slice.num_rows() - probe), &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        BooleanArray, Date32Array, Float32Array, Float64Array, Int64Array, StringArray,
        TimestampMillisecondArray, TimestampSecondArray, UInt64Array,
    };
    use arrow::datatypes::Field;
    use std::sync::Arc;

    #[test]
    fn rows_are_byte_for_byte_what_arrow_csv_writes() {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![
                Some(-5),
                None,
                Some(i64::MAX),
                Some(0),
            ])),
            Arc::new(UInt64Array::from(vec![
                Some(0),
                Some(u64::MAX),
                None,
                Some(7),
            ])),
            Arc::new(Float64Array::from(vec![
                Some(0.1),
                Some(1e300),
                Some(f64::NAN),
                Some(-2.0),
            ])),
            Arc::new(Float32Array::from(vec![
                Some(0.1f32),
                None,
                Some(1e-7),
                Some(3.0),
            ])),
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                Some(true),
            ])),
            Arc::new(StringArray::from(vec![
                Some(" lead"),
                Some("a,b"),
                Some("say \"hi\"\nthere"),
                None,
            ])),
            Arc::new(Date32Array::from(vec![
                Some(0),
                Some(-719_528),
                Some(19_000),
                None,
            ])),
            Arc::new(TimestampSecondArray::from(vec![
                Some(0),
                Some(-1),
                Some(1_700_000_000),
                Some(253_402_300_800),
            ])),
            Arc::new(TimestampMillisecondArray::from(vec![
                Some(1),
                None,
                Some(-1500),
                Some(0),
            ])),
        ];
        let fields: Vec<Field> = columns
            .iter()
            .enumerate()
            .map(|(i, a)| Field::new(format!("c{i}"), a.data_type().clone(), true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();

        let mut expected = Vec::new();
        let mut writer = arrow::csv::WriterBuilder::new()
            .with_header(true)
            .build(&mut expected);
        writer.write(&batch).unwrap();
        drop(writer);
        let mut ours = Vec::new();
        write(std::slice::from_ref(&batch), &schema, &mut ours).unwrap();
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }

    #[test]
    fn civil_dates_match_the_calendar() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(-719_528), (0, 1, 1));
    }
}
