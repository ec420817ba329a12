//! The fidelity table: an index and one column per logical type a user's data may hold, each
//! with every fifth value null, values at the edges of their type (integer extremes, unsigned
//! values past the signed range, sub-second timestamps, named zones, empty strings beside
//! nulls, text with commas, quotes and non-ASCII letters, bytes with zeros), seeded like the
//! generators. `formatbench fidelity` writes each column but the index to a table of its own
//! and sends it through every backend.

use crate::rng::Rng;
use crate::Error;
use arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, DictionaryArray,
    DurationMicrosecondArray, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array,
    Int8Array, LargeStringArray, ListArray, RecordBatch, StringArray, StructArray,
    Time64MicrosecondArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray, TimestampSecondArray, UInt16Array, UInt32Array, UInt64Array,
    UInt8Array,
};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, Field, Int32Type, Schema};
use std::sync::Arc;

/// The name of the fidelity table's index column.
pub const TYPES_INDEX: &str = "index";

/// Every value at a row with this remainder (mod 5) is null.
const NULL_EVERY: usize = 5;

/// Texts with the characters formats trip on.
const TEXTS: [&str; 6] = [
    "plain",
    "with, a comma",
    "a \"quoted\" word",
    "ünïcödé ✓",
    "",
    "two\nlines",
];

/// 2021-01-01T00:00:00Z in seconds.
const EPOCH_2021: i64 = 1_609_459_200;

fn null_at(row: usize) -> bool {
    row % NULL_EVERY == NULL_EVERY - 1
}

/// `value(row)` at every row, null at every fifth.
fn values<T>(rows: usize, mut value: impl FnMut(usize) -> T) -> Vec<Option<T>> {
    (0..rows).map(|r| (!null_at(r)).then(|| value(r))).collect()
}

/// Integer values that cover the type: its minimum, maximum, zero, then seeded ones in
/// [lo, hi) (the wrapping add keeps the whole i64 range exact).
fn integers(rows: usize, rng: &mut Rng, lo: i64, hi: i64) -> Vec<Option<i64>> {
    values(rows, |r| match r {
        0 => lo,
        1 => hi,
        2 => 0,
        _ => lo.wrapping_add(rng.below(hi.abs_diff(lo)) as i64),
    })
}

/// Values known to fit a narrower integer type, as an array of it.
fn narrow<A, T>(values: &[Option<i64>]) -> A
where
    A: FromIterator<Option<T>>,
    T: TryFrom<i64>,
{
    values
        .iter()
        .map(|v| v.and_then(|x| T::try_from(x).ok()))
        .collect()
}

/// The table: `rows` rows (at least 10, so every edge value and a null appear).
pub fn types_table(rows: usize, seed: u64) -> Result<RecordBatch, Error> {
    let rows = rows.max(10);
    let mut rng = Rng::new(seed, 0x7F1D);
    let mut columns: Vec<(&str, ArrayRef)> = Vec::new();
    let index: Vec<i64> = (0..rows as i64).collect();
    columns.push((TYPES_INDEX, Arc::new(Int64Array::from(index))));
    columns.push((
        "bool",
        Arc::new(BooleanArray::from(values(rows, |r| r % 3 == 0))),
    ));
    let i8s = integers(rows, &mut rng, i8::MIN.into(), i8::MAX.into());
    columns.push(("int8", Arc::new(narrow::<Int8Array, i8>(&i8s))));
    let i16s = integers(rows, &mut rng, i16::MIN.into(), i16::MAX.into());
    columns.push(("int16", Arc::new(narrow::<Int16Array, i16>(&i16s))));
    let i32s = integers(rows, &mut rng, i32::MIN.into(), i32::MAX.into());
    columns.push(("int32", Arc::new(narrow::<Int32Array, i32>(&i32s))));
    let i64s = integers(rows, &mut rng, i64::MIN, i64::MAX);
    columns.push(("int64", Arc::new(Int64Array::from(i64s))));
    let u8s = integers(rows, &mut rng, 0, u8::MAX.into());
    columns.push(("uint8", Arc::new(narrow::<UInt8Array, u8>(&u8s))));
    let u16s = integers(rows, &mut rng, 0, u16::MAX.into());
    columns.push(("uint16", Arc::new(narrow::<UInt16Array, u16>(&u16s))));
    let u32s = integers(rows, &mut rng, 0, u32::MAX.into());
    columns.push(("uint32", Arc::new(narrow::<UInt32Array, u32>(&u32s))));
    // Past i64::MAX at row 1: the value a signed reader cannot hold.
    let u64s = values(rows, |r| match r {
        0 => 0,
        1 => u64::MAX,
        _ => rng.next_u64(),
    });
    columns.push(("uint64", Arc::new(UInt64Array::from(u64s))));
    let f32s = values(rows, |r| match r {
        0 => f32::MIN_POSITIVE,
        1 => f32::MAX,
        _ => (rng.normal() * 1e3) as f32,
    });
    columns.push(("float32", Arc::new(Float32Array::from(f32s))));
    let f64s = values(rows, |r| match r {
        0 => f64::MIN_POSITIVE,
        1 => f64::MAX,
        _ => rng.normal() * 1e6,
    });
    columns.push(("float64", Arc::new(Float64Array::from(f64s))));
    // Decimal(18, 3): cents-like exact values a float would round.
    let decimals = values(rows, |r| match r {
        0 => 999_999_999_999_999_999_i128,
        1 => -1,
        _ => rng.range_i64(-1_000_000_000, 1_000_000_000) as i128,
    });
    columns.push((
        "decimal128",
        Arc::new(Decimal128Array::from(decimals).with_precision_and_scale(18, 3)?),
    ));
    // Days since 1970: before the epoch, far past and far future included.
    let days = values(rows, |r| match r {
        0 => -719_162,  // 0001-01-01
        1 => 2_932_896, // 9999-12-31
        _ => rng.range_i64(-20_000, 30_000) as i32,
    });
    columns.push(("date32", Arc::new(Date32Array::from(days))));
    let seconds = values(rows, |_| {
        EPOCH_2021 + rng.range_i64(-1_000_000_000, 1_000_000_000)
    });
    columns.push((
        "timestamp_s",
        Arc::new(TimestampSecondArray::from(seconds.clone())),
    ));
    let with_fraction = |scale: i64, rng: &mut Rng| -> Vec<Option<i64>> {
        seconds
            .iter()
            .map(|s| s.map(|s| s * scale + rng.range_i64(0, scale - 1)))
            .collect()
    };
    let millis = with_fraction(1_000, &mut rng);
    columns.push((
        "timestamp_ms",
        Arc::new(TimestampMillisecondArray::from(millis)),
    ));
    let micros = with_fraction(1_000_000, &mut rng);
    columns.push((
        "timestamp_us",
        Arc::new(TimestampMicrosecondArray::from(micros.clone())),
    ));
    let nanos = with_fraction(1_000_000_000, &mut rng);
    columns.push((
        "timestamp_ns",
        Arc::new(TimestampNanosecondArray::from(nanos)),
    ));
    columns.push((
        "timestamp_us_utc",
        Arc::new(TimestampMicrosecondArray::from(micros.clone()).with_timezone("UTC")),
    ));
    columns.push((
        "timestamp_us_zone",
        Arc::new(TimestampMicrosecondArray::from(micros).with_timezone("America/New_York")),
    ));
    let times = values(rows, |_| rng.range_i64(0, 86_400_000_000 - 1));
    columns.push(("time64_us", Arc::new(Time64MicrosecondArray::from(times))));
    let durations = values(rows, |_| rng.range_i64(-86_400_000_000, 86_400_000_000));
    columns.push((
        "duration_us",
        Arc::new(DurationMicrosecondArray::from(durations)),
    ));
    let text = |r: usize| TEXTS[r % TEXTS.len()];
    columns.push(("utf8", Arc::new(StringArray::from(values(rows, text)))));
    columns.push((
        "large_utf8",
        Arc::new(LargeStringArray::from(values(rows, text))),
    ));
    let bytes: Vec<Option<Vec<u8>>> = values(rows, |r| vec![0, (r % 256) as u8, 0xFF]);
    columns.push((
        "binary",
        Arc::new(BinaryArray::from_iter(bytes.iter().map(|b| b.as_deref()))),
    ));
    let categories: DictionaryArray<Int32Type> = values(rows, |r| ["red", "green", "blue"][r % 3])
        .into_iter()
        .collect();
    columns.push(("dictionary", Arc::new(categories)));
    columns.push(("list_int64", list_column(rows, &mut rng)?));
    columns.push(("struct", struct_column(rows)?));
    let schema = Schema::new(
        columns
            .iter()
            .map(|(name, array)| Field::new(*name, array.data_type().clone(), *name != TYPES_INDEX))
            .collect::<Vec<_>>(),
    );
    Ok(RecordBatch::try_new(
        Arc::new(schema),
        columns.into_iter().map(|(_, a)| a).collect(),
    )?)
}

/// Lists of 0 to 3 int64s, null every fifth row.
fn list_column(rows: usize, rng: &mut Rng) -> Result<ArrayRef, Error> {
    let mut lengths = Vec::with_capacity(rows);
    let mut items = Vec::new();
    let mut valid = Vec::with_capacity(rows);
    for r in 0..rows {
        let n = if null_at(r) { 0 } else { r % 4 };
        for _ in 0..n {
            items.push(rng.range_i64(-1_000, 1_000));
        }
        lengths.push(n);
        valid.push(!null_at(r));
    }
    let field = Arc::new(Field::new("item", DataType::Int64, true));
    Ok(Arc::new(ListArray::try_new(
        field,
        OffsetBuffer::from_lengths(lengths),
        Arc::new(Int64Array::from(items)),
        Some(valid.into()),
    )?))
}

/// `{a: int64, b: utf8}`, null every fifth row.
fn struct_column(rows: usize) -> Result<ArrayRef, Error> {
    let a: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..rows as i64).map(|r| r * 7),
    ));
    let b: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|r| TEXTS[r % TEXTS.len()]),
    ));
    let fields = vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ];
    let valid: Vec<bool> = (0..rows).map(|r| !null_at(r)).collect();
    Ok(Arc::new(StructArray::try_new(
        fields.into(),
        vec![a, b],
        Some(valid.into()),
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_column_per_type_with_nulls_and_edge_values() {
        let table = types_table(20, 42).unwrap();
        assert_eq!(table.num_rows(), 20);
        let schema = table.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names[0], TYPES_INDEX);
        assert!(names.contains(&"uint64") && names.contains(&"struct"));
        for (i, column) in table.columns().iter().enumerate().skip(1) {
            assert_eq!(column.null_count(), 4, "{}", names[i]);
        }
        let u64s = table.column(names.iter().position(|n| *n == "uint64").unwrap());
        assert_eq!(
            u64s.as_any()
                .downcast_ref::<UInt64Array>()
                .unwrap()
                .value(1),
            u64::MAX
        );
        // Seeded: the same seed gives the same table, another seed another one.
        assert_eq!(types_table(20, 42).unwrap(), table);
        assert_ne!(types_table(20, 43).unwrap(), table);
    }
}
