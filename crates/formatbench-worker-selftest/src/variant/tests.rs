//! Each variant holds the right answer's values in another representation: cast back to the
//! source's types every column equals the source's, at every depth, after an IPC round trip
//! too; and each says what it changed.

use super::{garbage, represented, Variant, VARIANTS};
use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Date32Array, Decimal128Array,
    DictionaryArray, FixedSizeListArray, Int32Array, Int64Array, LargeStringArray, ListArray,
    RecordBatch, StringArray, StructArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampSecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::compute::{cast, concat_batches};
use arrow::datatypes::{DataType, Field, Int32Type, Int64Type, Schema, TimeUnit};
use std::sync::Arc;

/// Null at every third row.
fn valid(rows: usize) -> Vec<bool> {
    (0..rows).map(|r| r % 3 != 2).collect()
}

fn opt<T>(rows: usize, value: impl Fn(usize) -> T) -> Vec<Option<T>> {
    (0..rows).map(|r| (r % 3 != 2).then(|| value(r))).collect()
}

const TEXTS: [&str; 4] = ["a", "", "ünï, \"q\"", "b"];

fn list_of(item: Field, lengths: &[usize], values: ArrayRef) -> ArrayRef {
    Arc::new(
        ListArray::try_new(
            Arc::new(item),
            OffsetBuffer::from_lengths(lengths.iter().copied()),
            values,
            Some(NullBuffer::from(valid(lengths.len()))),
        )
        .unwrap(),
    )
}

/// A column of every kind a variant changes, flat and nested, nulls in each.
fn table(rows: usize) -> RecordBatch {
    let text = |r: usize| TEXTS[r % TEXTS.len()];
    let lengths: Vec<usize> = (0..rows)
        .map(|r| if r % 3 == 2 { 0 } else { r % 3 + 1 })
        .collect();
    let items: usize = lengths.iter().sum();
    let item_texts: ArrayRef = Arc::new(StringArray::from(
        (0..items)
            .map(|i| (i % 4 != 1).then(|| text(i)))
            .collect::<Vec<_>>(),
    ));
    let item_times: ArrayRef = Arc::new(
        TimestampMicrosecondArray::from_iter_values((0..items as i64).map(|i| i * 1_001))
            .with_timezone("UTC"),
    );
    let dict: ArrayRef = Arc::new(
        opt(rows, |r| ["red", "green", "blue"][r % 3])
            .into_iter()
            .collect::<DictionaryArray<Int32Type>>(),
    );
    let struct_fields = vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
        Field::new(
            "c",
            list_of(
                Field::new("item", DataType::Int32, true),
                &[0],
                Arc::new(Int32Array::from(Vec::<i32>::new())),
            )
            .data_type()
            .clone(),
            true,
        ),
        Field::new("d", dict.data_type().clone(), true),
        Field::new(
            "t",
            DataType::Timestamp(TimeUnit::Second, Some("UTC".into())),
            true,
        ),
        Field::new("dt", DataType::Date32, true),
    ];
    let int_items: ArrayRef = Arc::new(Int32Array::from(
        (0..items as i32)
            .map(|i| (i % 5 != 0).then_some(i))
            .collect::<Vec<_>>(),
    ));
    let children: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(opt(rows, |r| r as i64 * 7))),
        Arc::new(StringArray::from(opt(rows, text))),
        list_of(
            Field::new("item", DataType::Int32, true),
            &lengths,
            int_items,
        ),
        dict.clone(),
        Arc::new(TimestampSecondArray::from(opt(rows, |r| r as i64 * 86_399)).with_timezone("UTC")),
        Arc::new(Date32Array::from(opt(rows, |r| r as i32 * 400 - 719_162))),
    ];
    let structs: ArrayRef = Arc::new(
        StructArray::try_new(
            struct_fields.into(),
            children,
            Some(NullBuffer::from(
                (0..rows).map(|r| r % 4 != 3).collect::<Vec<_>>(),
            )),
        )
        .unwrap(),
    );
    let fixed: ArrayRef = Arc::new(
        FixedSizeListArray::try_new(
            Arc::new(Field::new("item", DataType::Utf8, true)),
            2,
            Arc::new(StringArray::from_iter_values((0..rows * 2).map(text))),
            Some(NullBuffer::from(valid(rows))),
        )
        .unwrap(),
    );
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from_iter_values(0..rows as i64))),
        ("utf8", Arc::new(StringArray::from(opt(rows, text)))),
        ("large", Arc::new(LargeStringArray::from(opt(rows, text)))),
        (
            "binary",
            Arc::new(BinaryArray::from(opt(rows, |r| text(r).as_bytes()))),
        ),
        (
            "bool",
            Arc::new(BooleanArray::from(opt(rows, |r| r % 2 == 0))),
        ),
        (
            "decimal",
            Arc::new(
                Decimal128Array::from(opt(rows, |r| r as i128 - 5))
                    .with_precision_and_scale(18, 3)
                    .unwrap(),
            ),
        ),
        (
            "date",
            Arc::new(Date32Array::from(opt(rows, |r| r as i32 - 3))),
        ),
        (
            "ts_s",
            Arc::new(TimestampSecondArray::from(opt(rows, |r| r as i64 * 3_601))),
        ),
        (
            "ts_ms_zone",
            Arc::new(
                TimestampMillisecondArray::from(opt(rows, |r| r as i64 * 1_234))
                    .with_timezone("America/New_York"),
            ),
        ),
        (
            "ts_us_utc",
            Arc::new(
                TimestampMicrosecondArray::from(opt(rows, |r| r as i64 * 999)).with_timezone("UTC"),
            ),
        ),
        ("dictionary", dict),
        (
            "list_utf8",
            list_of(
                Field::new("item", DataType::Utf8, true),
                &lengths,
                item_texts,
            ),
        ),
        (
            "list_ts",
            list_of(
                Field::new("item", item_times.data_type().clone(), true),
                &lengths,
                item_times,
            ),
        ),
        ("struct", structs),
        ("fixed", fixed),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), *n != "id"))
        .collect();
    RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap()
}

/// The batches through an Arrow IPC file and back (the runner's reader validates them).
fn round_trip(batches: &[RecordBatch]) -> Vec<RecordBatch> {
    let mut bytes = Vec::new();
    let mut writer =
        arrow::ipc::writer::FileWriter::try_new(&mut bytes, &batches[0].schema()).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.finish().unwrap();
    drop(writer);
    let reader =
        arrow::ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
    reader.collect::<Result<Vec<_>, _>>().unwrap()
}

/// Every column of `batches` cast back to the source's type equals the source's column.
fn assert_same_values(name: &str, source: &RecordBatch, batches: &[RecordBatch]) {
    let whole = concat_batches(&batches[0].schema(), batches).unwrap();
    assert_eq!(whole.num_rows(), source.num_rows(), "{name}");
    for (i, field) in source.schema().fields().iter().enumerate() {
        let column = whole.column(i);
        column.to_data().validate_full().unwrap();
        let back = cast(column, field.data_type())
            .unwrap_or_else(|e| panic!("{name}: {} does not cast back: {e}", field.name()));
        assert_eq!(&back, source.column(i), "{name}: {}", field.name());
    }
}

#[test]
fn every_variant_holds_the_same_values_after_an_ipc_round_trip() {
    let source = table(23);
    for (name, variant) in VARIANTS {
        let batches = represented(&source, variant).unwrap();
        assert_same_values(name, &source, &batches);
        assert_same_values(name, &source, &round_trip(&batches));
        let (before, after) = (source.schema(), batches[0].schema());
        let changed: Vec<&str> = before
            .fields()
            .iter()
            .zip(after.fields())
            .filter(|(s, v)| s.data_type() != v.data_type())
            .map(|(s, _)| s.name().as_str())
            .collect();
        if super::changes_types(variant) {
            assert!(!changed.is_empty(), "{name} changed no type");
        } else {
            assert!(changed.is_empty(), "{name} changed {changed:?}");
        }
    }
}

fn type_of(batch: &RecordBatch, column: &str) -> DataType {
    batch
        .schema()
        .field_with_name(column)
        .unwrap()
        .data_type()
        .clone()
}

#[test]
fn variants_reach_inside_lists_and_structs() {
    let source = table(12);
    let one = |v: Variant| represented(&source, v).unwrap().remove(0);
    let large = one(Variant::LargeOffsets);
    let DataType::LargeList(item) = type_of(&large, "list_utf8") else {
        panic!("{:?}", type_of(&large, "list_utf8"))
    };
    assert_eq!(item.data_type(), &DataType::LargeUtf8);
    let DataType::Struct(fields) = type_of(&large, "struct") else {
        panic!()
    };
    assert_eq!(fields[1].data_type(), &DataType::LargeUtf8);
    assert!(matches!(fields[2].data_type(), DataType::LargeList(_)));
    assert_eq!(
        fields[3].data_type(),
        &DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::LargeUtf8))
    );
    let views = one(Variant::Views);
    let DataType::ListView(item) = type_of(&views, "list_utf8") else {
        panic!("{:?}", type_of(&views, "list_utf8"))
    };
    assert_eq!(item.data_type(), &DataType::Utf8View);
    assert_eq!(type_of(&views, "binary"), DataType::BinaryView);
    let dictionary = one(Variant::Dictionary);
    assert!(matches!(
        type_of(&dictionary, "utf8"),
        DataType::Dictionary(_, _)
    ));
    assert_eq!(
        type_of(&dictionary, "dictionary"),
        DataType::Dictionary(Box::new(DataType::Int16), Box::new(DataType::Utf8))
    );
    let named = one(Variant::ListItemName);
    let DataType::Struct(fields) = type_of(&named, "struct") else {
        panic!()
    };
    assert!(matches!(fields[2].data_type(), DataType::List(i) if i.name() == "l"));
    assert!(
        matches!(type_of(&named, "fixed"), DataType::FixedSizeList(i, 2) if i.name() == "element")
    );
    let zones = one(Variant::ZoneName);
    let spelled: Vec<DataType> = ["ts_us_utc", "list_ts", "struct", "ts_ms_zone"]
        .iter()
        .map(|c| type_of(&zones, c))
        .collect();
    assert_eq!(
        spelled[0],
        DataType::Timestamp(TimeUnit::Microsecond, Some("Etc/UTC".into()))
    );
    let DataType::List(item) = &spelled[1] else {
        panic!("{:?}", spelled[1])
    };
    let plus = DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into()));
    assert_eq!(
        item.data_type(),
        &plus,
        "the next column takes the other spelling"
    );
    assert_eq!(
        spelled[3],
        type_of(&source, "ts_ms_zone"),
        "another zone is not UTC's"
    );
    let finer = one(Variant::FinerUnit);
    assert_eq!(type_of(&finer, "date"), DataType::Date64);
    assert_eq!(
        type_of(&finer, "ts_s"),
        DataType::Timestamp(TimeUnit::Millisecond, None)
    );
    let batches = represented(&source, Variant::OneRowBatches).unwrap();
    assert_eq!(batches.len(), 12);
}

#[test]
fn garbage_lies_under_every_null() {
    let source = table(9);
    // Through an IPC file, as the runner reads it: the junk must reach the verifier.
    let junked = represented(&source, Variant::GarbageUnderNulls).unwrap();
    let junked = round_trip(&junked).remove(0);
    let null_row = 2;
    let ids = junked
        .column_by_name("struct")
        .unwrap()
        .as_struct()
        .column(0)
        .clone();
    // The struct's own int field at a null struct row (3) reads as junk, its nulls kept.
    assert_eq!(
        ids.as_primitive::<Int64Type>().values()[3],
        0x5A5A_5A5A_5A5A_5A5A
    );
    let text = junked
        .column_by_name("utf8")
        .unwrap()
        .as_string::<i32>()
        .clone();
    assert!(text.is_null(null_row));
    let offsets = text.offsets();
    assert_eq!(
        &text.values()[offsets[null_row] as usize..offsets[null_row + 1] as usize],
        b"ZZZZ"
    );
    let lists = junked
        .column_by_name("list_utf8")
        .unwrap()
        .as_list::<i32>()
        .clone();
    assert!(lists.is_null(null_row) && lists.value_length(null_row) == 1);
    let bools = junked.column_by_name("bool").unwrap().as_boolean().clone();
    assert!(bools.values().value(null_row));
    let dates = junked.column_by_name("date").unwrap();
    assert_eq!(dates.to_data().buffer::<i32>(0)[null_row], 0x5A5A_5A5A);
    // A column with no nulls at any depth is left as it was.
    let id = junked.column_by_name("id").unwrap();
    assert_eq!(garbage::column(id).unwrap().to_data(), id.to_data());
}
