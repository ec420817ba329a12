//! A decoder for CSV text without quotes or carriage returns (what the csv backend writes):
//! fields are found with memchr instead of csv_core's byte-at-a-time state machine, which took a
//! third of a read, and second timestamps and dates in the writer's `YYYY-MM-DDTHH:MM:SS` form
//! are converted directly instead of through chrono. Values parse with arrow's own parsers, so
//! a file decodes to what arrow-csv gives; text in any other form (a field count that differs, a
//! value the fast paths do not take) returns `None` and the caller uses arrow-csv, which also
//! words the error for text that is malformed.

use arrow::array::{
    ArrayRef, BooleanBuilder, PrimitiveBuilder, RecordBatch, StringBuilder, TimestampSecondBuilder,
};
use arrow::compute::kernels::cast_utils::Parser;
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, Schema, SchemaRef, TimeUnit, UInt16Type, UInt32Type, UInt64Type,
    UInt8Type,
};
use std::sync::Arc;

const SECONDS_PER_DAY: i64 = 86_400;

/// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn digits(text: &[u8]) -> Option<i64> {
    text.iter().try_fold(0i64, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + i64::from(b - b'0'))
    })
}

/// `YYYY-MM-DD` as days since the epoch, for valid dates only.
fn parse_date(text: &[u8]) -> Option<i64> {
    if text.len() != 10 || text[4] != b'-' || text[7] != b'-' {
        return None;
    }
    let (year, month, day) = (
        digits(&text[..4])?,
        digits(&text[5..7])?,
        digits(&text[8..])?,
    );
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let valid = (1..=12).contains(&month) && day >= 1 && day <= month_days[(month - 1) as usize];
    valid.then(|| days_from_civil(year, month, day))
}

/// `YYYY-MM-DDTHH:MM:SS` (or a space for `T`) as seconds since the epoch.
fn parse_timestamp(text: &[u8]) -> Option<i64> {
    if text.len() != 19 || !matches!(text[10], b'T' | b' ') || text[13] != b':' || text[16] != b':'
    {
        return None;
    }
    let days = parse_date(&text[..10])?;
    let (h, m, s) = (
        digits(&text[11..13])?,
        digits(&text[14..16])?,
        digits(&text[17..])?,
    );
    (h < 24 && m < 60 && s < 60).then(|| days * SECONDS_PER_DAY + h * 3600 + m * 60 + s)
}

enum Builder {
    Int8(PrimitiveBuilder<Int8Type>),
    Int16(PrimitiveBuilder<Int16Type>),
    Int32(PrimitiveBuilder<Int32Type>),
    Int64(PrimitiveBuilder<Int64Type>),
    UInt8(PrimitiveBuilder<UInt8Type>),
    UInt16(PrimitiveBuilder<UInt16Type>),
    UInt32(PrimitiveBuilder<UInt32Type>),
    UInt64(PrimitiveBuilder<UInt64Type>),
    Float32(PrimitiveBuilder<Float32Type>),
    Float64(PrimitiveBuilder<Float64Type>),
    Boolean(BooleanBuilder),
    Utf8(StringBuilder),
    Date32(PrimitiveBuilder<Date32Type>),
    TimestampSecond(TimestampSecondBuilder),
}

fn fill_with<'t, T: ArrowPrimitiveType>(
    b: &mut PrimitiveBuilder<T>,
    fields: impl Iterator<Item = &'t str>,
    parse: impl Fn(&[u8]) -> Option<T::Native>,
) -> Option<()> {
    for field in fields {
        if field.is_empty() {
            b.append_null();
        } else {
            b.append_value(parse(field.as_bytes())?);
        }
    }
    Some(())
}

fn fill_parsed<'t, T: ArrowPrimitiveType + Parser>(
    b: &mut PrimitiveBuilder<T>,
    fields: impl Iterator<Item = &'t str>,
) -> Option<()> {
    for field in fields {
        if field.is_empty() {
            b.append_null();
        } else {
            b.append_value(T::parse(field)?);
        }
    }
    Some(())
}

impl Builder {
    fn new(data_type: &DataType, rows: usize) -> Option<Self> {
        Some(match data_type {
            DataType::Int8 => Builder::Int8(PrimitiveBuilder::with_capacity(rows)),
            DataType::Int16 => Builder::Int16(PrimitiveBuilder::with_capacity(rows)),
            DataType::Int32 => Builder::Int32(PrimitiveBuilder::with_capacity(rows)),
            DataType::Int64 => Builder::Int64(PrimitiveBuilder::with_capacity(rows)),
            DataType::UInt8 => Builder::UInt8(PrimitiveBuilder::with_capacity(rows)),
            DataType::UInt16 => Builder::UInt16(PrimitiveBuilder::with_capacity(rows)),
            DataType::UInt32 => Builder::UInt32(PrimitiveBuilder::with_capacity(rows)),
            DataType::UInt64 => Builder::UInt64(PrimitiveBuilder::with_capacity(rows)),
            DataType::Float32 => Builder::Float32(PrimitiveBuilder::with_capacity(rows)),
            DataType::Float64 => Builder::Float64(PrimitiveBuilder::with_capacity(rows)),
            DataType::Boolean => Builder::Boolean(BooleanBuilder::with_capacity(rows)),
            DataType::Utf8 => Builder::Utf8(StringBuilder::with_capacity(rows, rows * 8)),
            DataType::Date32 => Builder::Date32(PrimitiveBuilder::with_capacity(rows)),
            DataType::Timestamp(TimeUnit::Second, None) => {
                Builder::TimestampSecond(TimestampSecondBuilder::with_capacity(rows))
            }
            _ => return None,
        })
    }

    /// Appends fields in order; an empty field is null, as in arrow-csv. `None`: a value is not
    /// in a form the fast path takes. One call per column and batch, so the loop over values
    /// runs for one type at a time instead of branching on the type for every field.
    fn fill<'t>(&mut self, fields: impl Iterator<Item = &'t str>) -> Option<()> {
        match self {
            Builder::Int8(b) => fill_parsed(b, fields),
            Builder::Int16(b) => fill_parsed(b, fields),
            Builder::Int32(b) => fill_parsed(b, fields),
            Builder::Int64(b) => fill_parsed(b, fields),
            Builder::UInt8(b) => fill_parsed(b, fields),
            Builder::UInt16(b) => fill_parsed(b, fields),
            Builder::UInt32(b) => fill_parsed(b, fields),
            Builder::UInt64(b) => fill_parsed(b, fields),
            Builder::Float32(b) => fill_parsed(b, fields),
            Builder::Float64(b) => fill_parsed(b, fields),
            Builder::Boolean(b) => {
                for field in fields {
                    if field.is_empty() {
                        b.append_null();
                    } else if field.eq_ignore_ascii_case("true") {
                        b.append_value(true);
                    } else if field.eq_ignore_ascii_case("false") {
                        b.append_value(false);
                    } else {
                        return None;
                    }
                }
                Some(())
            }
            Builder::Utf8(b) => {
                for field in fields {
                    if field.is_empty() {
                        b.append_null();
                    } else {
                        b.append_value(field);
                    }
                }
                Some(())
            }
            Builder::Date32(b) => fill_with(b, fields, |f| i32::try_from(parse_date(f)?).ok()),
            Builder::TimestampSecond(b) => fill_with(b, fields, parse_timestamp),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int8(b) => Arc::new(b.finish()),
            Builder::Int16(b) => Arc::new(b.finish()),
            Builder::Int32(b) => Arc::new(b.finish()),
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::UInt8(b) => Arc::new(b.finish()),
            Builder::UInt16(b) => Arc::new(b.finish()),
            Builder::UInt32(b) => Arc::new(b.finish()),
            Builder::UInt64(b) => Arc::new(b.finish()),
            Builder::Float32(b) => Arc::new(b.finish()),
            Builder::Float64(b) => Arc::new(b.finish()),
            Builder::Boolean(b) => Arc::new(b.finish()),
            Builder::Utf8(b) => Arc::new(b.finish()),
            Builder::Date32(b) => Arc::new(b.finish()),
            Builder::TimestampSecond(b) => Arc::new(b.finish()),
        }
    }
}

/// Decodes header-less lines into batches of `batch_rows`, keeping the `projection` columns
/// (all when `None`); `None` when the text or the schema is not one the fast path takes.
pub fn decode(
    schema: &SchemaRef,
    text: &[u8],
    projection: Option<&[usize]>,
    batch_rows: usize,
) -> Option<Vec<RecordBatch>> {
    if memchr::memchr2(b'"', b'\r', text).is_some() {
        return None;
    }
    // One check of the whole text: every field then starts and ends at an ASCII comma or
    // newline, so each is valid UTF-8 by itself.
    let text = std::str::from_utf8(text).ok()?;
    let all: Vec<usize> = (0..schema.fields().len()).collect();
    let kept = projection.unwrap_or(&all);
    // For each column of a line: the builder it goes to, if it is kept.
    let mut slot = vec![None; schema.fields().len()];
    for (i, &column) in kept.iter().enumerate() {
        *slot.get_mut(column)? = Some(i);
    }
    let output = Arc::new(Schema::new(
        kept.iter()
            .map(|&c| schema.field(c).clone())
            .collect::<Vec<_>>(),
    ));
    let batch_rows = batch_rows.max(1);
    let body = text.strip_suffix('\n').unwrap_or(text);
    let columns = slot.len();
    if body.is_empty() {
        return Some(Vec::new());
    }
    // Pass 1: where every field ends (SIMD memchr over the whole text), checked to make rows
    // of exactly `columns` fields.
    let bytes = body.as_bytes();
    u32::try_from(bytes.len()).ok()?;
    let mut ends: Vec<u32> = Vec::with_capacity(bytes.len() / 8);
    ends.extend(memchr::memchr2_iter(b',', b'\n', bytes).map(|e| e as u32));
    ends.push(bytes.len() as u32);
    if columns == 0 || !ends.len().is_multiple_of(columns) {
        return None;
    }
    let rows = ends.len() / columns;
    for (i, &end) in ends.iter().enumerate() {
        let newline = bytes.get(end as usize).is_none_or(|&b| b == b'\n');
        if newline != (i + 1).is_multiple_of(columns) {
            return None;
        }
    }
    let start_of = |i: usize| if i == 0 { 0 } else { ends[i - 1] as usize + 1 };
    // Every kept column needs a fast builder; checked before any parsing is spent.
    if kept
        .iter()
        .any(|&c| Builder::new(schema.field(c).data_type(), 0).is_none())
    {
        return None;
    }
    // Pass 2: each kept column of each batch, one type at a time.
    let mut batches = Vec::with_capacity(rows.div_ceil(batch_rows));
    for first in (0..rows).step_by(batch_rows) {
        let last = (first + batch_rows).min(rows);
        let mut arrays = Vec::with_capacity(kept.len());
        for &column in kept {
            let mut builder = Builder::new(schema.field(column).data_type(), last - first)?;
            let fields = (first..last).map(|row| {
                let i = row * columns + column;
                let field = &bytes[start_of(i)..ends[i] as usize];
                // SAFETY: `body` is valid UTF-8 (checked above) and every field starts and ends
                // at an ASCII separator or an end of the text, so the field is valid UTF-8 too;
                // `str` slicing would check both char boundaries again for every field.
                unsafe { std::str::from_utf8_unchecked(field) }
            });
            builder.fill(fields)?;
            arrays.push(builder.finish());
        }
        batches.push(RecordBatch::try_new(output.clone(), arrays).ok()?);
    }
    Some(batches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::csv::ReaderBuilder;
    use arrow::datatypes::Field;

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("u", DataType::UInt64, true),
            Field::new("f", DataType::Float64, true),
            Field::new("g", DataType::Float32, true),
            Field::new("b", DataType::Boolean, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("d", DataType::Date32, true),
            Field::new("t", DataType::Timestamp(TimeUnit::Second, None), true),
        ]))
    }

    fn arrow_csv(text: &str, projection: Option<&[usize]>) -> Vec<RecordBatch> {
        let mut builder = ReaderBuilder::new(schema())
            .with_header(false)
            .with_batch_size(2);
        if let Some(p) = projection {
            builder = builder.with_projection(p.to_vec());
        }
        builder
            .build(text.as_bytes())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn decodes_what_arrow_csv_decodes() {
        let text = "-5,0,0.1,0.1,true, lead ,2000-02-29,1969-12-31T23:59:59\n\
                    ,18446744073709551615,1e300,,FALSE,,1970-01-01,2023-11-14T22:13:20\n\
                    7,,NaN,-2,,x y,,\n";
        for projection in [None, Some(&[5usize, 0, 7][..])] {
            let ours = decode(&schema(), text.as_bytes(), projection, 2).unwrap();
            let theirs = arrow_csv(text, projection);
            assert_eq!(ours.len(), theirs.len());
            for (a, b) in ours.iter().zip(&theirs) {
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn other_forms_go_back_to_arrow_csv() {
        let schema = schema();
        let ok = "1,2,3,4,true,s,2000-01-01,2000-01-01T00:00:00\n";
        assert!(decode(&schema, ok.as_bytes(), None, 8).is_some());
        for other in [
            "1,2,3,4,true,s,2000-01-01\n",
            "1,2,3,4,true,s,2000-01-01,2000-01-01T00:00:00,extra\n",
            "1,2,3,4,yes,s,2000-01-01,2000-01-01T00:00:00\n",
            "1,2,3,4,true,s,2000-02-30,2000-01-01T00:00:00\n",
            "1,2,3,4,true,s,2000-01-01,2000-01-01T00:00:00.5\n",
            "1,2,3,4,true,\"s\",2000-01-01,2000-01-01T00:00:00\n",
            "1,2,3,4,true,s,2000-01-01,2000-01-01T00:00:00\r\n",
        ] {
            assert!(
                decode(&schema, other.as_bytes(), None, 8).is_none(),
                "{other}"
            );
        }
    }
}
