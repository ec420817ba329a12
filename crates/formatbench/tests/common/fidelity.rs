//! The fidelity table (`types_table`: a column of every type, every fifth value null, empty
//! strings, zones, dates, a dictionary, a list, a struct) as a user's input file, with the
//! columns a verifier suite adds to it: floats no generated dataset holds (the mutation suite)
//! and deeper nesting (the equal-value variants, which must reach inside lists and structs).

use arrow::array::{
    Array, ArrayRef, BinaryArray, Date32Array, DictionaryArray, Float64Array, ListArray,
    RecordBatch, StringArray, StructArray, TimestampMicrosecondArray, TimestampMillisecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Field, Int32Type, Schema};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The fidelity table's rows in every suite.
pub const ROWS: usize = 200;

/// An extra column of `rows` rows.
pub type Extra = fn(usize) -> (Field, ArrayRef);

/// `batch` as an Arrow IPC file at `path`.
pub fn write_input(path: &Path, batch: &RecordBatch) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = arrow::ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
}

/// The fidelity table with `extra` columns after its own, written to `dir/name`.
pub fn types_input(dir: &Path, name: &str, extra: &[Extra]) -> PathBuf {
    let table = formatbench::datasets::types_table(ROWS, 42).unwrap();
    let mut fields: Vec<Field> = table
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let mut columns = table.columns().to_vec();
    for column in extra {
        let (field, array) = column(table.num_rows());
        fields.push(field);
        columns.push(array);
    }
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    let path = dir.join(name);
    write_input(&path, &batch);
    path
}

/// The fidelity table's columns named in `keep` (in its order), written to `dir/name`: a
/// table for workers whose exchange carries only flat columns (R).
pub fn flat_input(dir: &Path, name: &str, keep: &[&str]) -> PathBuf {
    let table = formatbench::datasets::types_table(ROWS, 42).unwrap();
    let schema = table.schema();
    let indices: Vec<usize> = schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| keep.contains(&f.name().as_str()))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        indices.len(),
        keep.len(),
        "every kept column is in the table"
    );
    let path = dir.join(name);
    write_input(&path, &table.project(&indices).unwrap());
    path
}

/// `special`: +0.0, NaN and 1.5 in turn, the values no generated dataset holds.
pub fn special_floats(rows: usize) -> (Field, ArrayRef) {
    let values = (0..rows).map(|r| [0.0, f64::NAN, 1.5][r % 3]);
    (
        Field::new("special", DataType::Float64, false),
        Arc::new(Float64Array::from_iter_values(values)),
    )
}

const TEXTS: [&str; 4] = ["tag", "", "ünï, \"q\"", "two\nlines"];

/// Null every `every`th row (at remainder `every - 1`).
fn nulls(rows: usize, every: usize) -> NullBuffer {
    NullBuffer::from(
        (0..rows)
            .map(|r| r % every != every - 1)
            .collect::<Vec<_>>(),
    )
}

/// Lists of 0 to 3 strings (an empty string and a null item among them), null every fifth
/// row: a `List<Utf8>` whose items' representation a variant changes too.
fn string_lists(rows: usize, every: usize) -> ArrayRef {
    let lengths: Vec<usize> = (0..rows)
        .map(|r| if r % every == every - 1 { 0 } else { r % 4 })
        .collect();
    let items: usize = lengths.iter().sum();
    let values = StringArray::from(
        (0..items)
            .map(|i| (i % 7 != 3).then_some(TEXTS[i % TEXTS.len()]))
            .collect::<Vec<_>>(),
    );
    Arc::new(
        ListArray::try_new(
            Arc::new(Field::new("item", DataType::Utf8, true)),
            OffsetBuffer::from_lengths(lengths),
            Arc::new(values),
            Some(nulls(rows, every)),
        )
        .unwrap(),
    )
}

/// `list_utf8`: `List<Utf8>`, null every fifth row.
pub fn list_of_strings(rows: usize) -> (Field, ArrayRef) {
    let array = string_lists(rows, 5);
    (
        Field::new("list_utf8", array.data_type().clone(), true),
        array,
    )
}

/// `nested`: a struct, null every seventh row, of a UTC timestamp (ms), a date, a list of
/// strings, a dictionary and a binary, each with nulls of its own: every type a variant
/// changes, below the top level.
pub fn nested_struct(rows: usize) -> (Field, ArrayRef) {
    let some = |r: usize| r % 5 != 2;
    let ts: ArrayRef = Arc::new(
        TimestampMillisecondArray::from(
            (0..rows)
                .map(|r| some(r).then_some(1_609_459_200_000 + r as i64 * 3_600_001))
                .collect::<Vec<_>>(),
        )
        .with_timezone("UTC"),
    );
    let dates: ArrayRef = Arc::new(Date32Array::from(
        (0..rows)
            .map(|r| some(r).then_some(r as i32 * 173 - 20_000))
            .collect::<Vec<_>>(),
    ));
    let labels: ArrayRef = Arc::new(
        (0..rows)
            .map(|r| some(r).then_some(["north", "south", ""][r % 3]))
            .collect::<DictionaryArray<Int32Type>>(),
    );
    let bytes: ArrayRef = Arc::new(BinaryArray::from(
        (0..rows)
            .map(|r| some(r).then_some(&b"\x00\xffz"[..r % 3]))
            .collect::<Vec<_>>(),
    ));
    let children = vec![ts, dates, string_lists(rows, 6), labels, bytes];
    let names = ["ts_utc", "date", "tags", "label", "bytes"];
    let fields: Vec<Field> = names
        .iter()
        .zip(&children)
        .map(|(n, c)| Field::new(*n, c.data_type().clone(), true))
        .collect();
    let array: ArrayRef =
        Arc::new(StructArray::try_new(fields.into(), children, Some(nulls(rows, 7))).unwrap());
    (Field::new("nested", array.data_type().clone(), true), array)
}

/// `list_ts`: `List<Timestamp(µs, UTC)>`, null every fifth row.
pub fn list_of_timestamps(rows: usize) -> (Field, ArrayRef) {
    let lengths: Vec<usize> = (0..rows)
        .map(|r| if r % 5 == 4 { 0 } else { r % 3 })
        .collect();
    let items: usize = lengths.iter().sum();
    let values = TimestampMicrosecondArray::from_iter_values(
        (0..items as i64).map(|i| 1_609_459_200_000_000 + i * 1_000_001),
    )
    .with_timezone("UTC");
    let item = Field::new("item", values.data_type().clone(), true);
    let array: ArrayRef = Arc::new(
        ListArray::try_new(
            Arc::new(item),
            OffsetBuffer::from_lengths(lengths),
            Arc::new(values),
            Some(nulls(rows, 5)),
        )
        .unwrap(),
    );
    (
        Field::new("list_ts", array.data_type().clone(), true),
        array,
    )
}
