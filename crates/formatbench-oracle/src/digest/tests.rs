use super::vector::{list_of_strings, test_vector as vector, TEST_VECTOR_DIGEST as VECTOR_DIGEST};
use super::*;
use arrow::array::{
    ArrayRef, DictionaryArray, Float64Array, Int32Array, LargeListArray, LargeStringArray,
    StringArray, StringViewArray, TimestampMicrosecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{Field, Int32Type, Schema};
use std::sync::Arc;

fn of(batches: &[RecordBatch]) -> String {
    digest(
        &batches[0].schema(),
        batches.iter().cloned().map(Ok),
        Rows::Ordered,
    )
    .unwrap()
}

fn with_column(batch: &RecordBatch, name: &str, column: ArrayRef) -> RecordBatch {
    let schema = batch.schema();
    let index = schema.index_of(name).unwrap();
    let mut columns = batch.columns().to_vec();
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields[index] = Field::new(name, column.data_type().clone(), true);
    columns[index] = column;
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

#[test]
fn the_test_vector_has_its_known_digest() {
    assert_eq!(of(&[vector().unwrap()]), VECTOR_DIGEST);
}

#[test]
fn representations_of_the_same_values_digest_alike() {
    let v = vector().unwrap();
    let expected = of(std::slice::from_ref(&v));
    let split = [v.slice(0, 1), v.slice(1, 0), v.slice(1, 3)];
    let large = with_column(
        &v,
        "utf8",
        Arc::new(LargeStringArray::from(vec![
            Some(""),
            None,
            Some("é"),
            Some("a,b"),
        ])),
    );
    let view = with_column(
        &v,
        "utf8",
        Arc::new(StringViewArray::from(vec![
            Some(""),
            None,
            Some("é"),
            Some("a,b"),
        ])),
    );
    // Another item name, large offsets, and garbage under the null list's slot.
    let element = Arc::new(Field::new("element", DataType::LargeUtf8, true));
    let large_list = with_column(
        &v,
        "list",
        Arc::new(LargeListArray::new(
            element,
            OffsetBuffer::new(ScalarBuffer::from(vec![0i64, 1, 2, 2, 3])),
            Arc::new(LargeStringArray::from(vec![None, Some(""), Some("junk")])),
            Some(NullBuffer::from(vec![true, true, true, false])),
        )),
    );
    let plain_labels = with_column(
        &v,
        "label",
        Arc::new(StringArray::from(vec![
            Some("b"),
            Some("a"),
            None,
            Some("b"),
        ])),
    );
    let etc_utc = with_column(
        &v,
        "ts_utc",
        Arc::new(
            TimestampMicrosecondArray::from(vec![Some(1), None, Some(-1), Some(0)])
                .with_timezone("Etc/UTC"),
        ),
    );
    let other_garbage = with_column(
        &v,
        "i32",
        Arc::new(Int32Array::new(
            ScalarBuffer::from(vec![1, 0, -7, 0]),
            Some(NullBuffer::from(vec![true, false, true, true])),
        )),
    );
    for (what, batches) in [
        ("batch splits", split.to_vec()),
        ("LargeUtf8", vec![large]),
        ("Utf8View", vec![view]),
        ("LargeList<LargeUtf8> named element", vec![large_list]),
        ("a plain column for a dictionary", vec![plain_labels]),
        ("Etc/UTC for UTC", vec![etc_utc]),
        ("other bytes under a null", vec![other_garbage]),
    ] {
        assert_eq!(of(&batches), expected, "{what}");
    }
}

#[test]
fn every_changed_value_changes_the_digest() {
    let v = vector().unwrap();
    let expected = of(std::slice::from_ref(&v));
    let ints = |values: Vec<Option<i32>>| Arc::new(Int32Array::from(values)) as ArrayRef;
    let floats = |values: Vec<Option<f64>>| Arc::new(Float64Array::from(values)) as ArrayRef;
    let lists = |items: Vec<Option<&str>>, offsets: Vec<i32>| {
        Arc::new(list_of_strings(
            StringArray::from(items),
            offsets,
            vec![true, true, true, false],
        )) as ArrayRef
    };
    let nan_payload = f64::from_bits(f64::NAN.to_bits() | 1);
    let mutants = [
        // The in-band marker value where the null was.
        (
            "null as 16,711,935",
            with_column(
                &v,
                "i32",
                ints(vec![Some(1), Some(16_711_935), Some(-7), Some(0)]),
            ),
        ),
        (
            "null as 0",
            with_column(&v, "i32", ints(vec![Some(1), Some(0), Some(-7), Some(0)])),
        ),
        (
            "-0.0 as 0.0",
            with_column(
                &v,
                "f64",
                floats(vec![Some(0.0), Some(0.0), Some(f64::NAN), None]),
            ),
        ),
        (
            "another NaN payload",
            with_column(
                &v,
                "f64",
                floats(vec![Some(0.0), Some(-0.0), Some(nan_payload), None]),
            ),
        ),
        (
            "[null] as []",
            lists_variant(&v, lists(vec![Some("")], vec![0, 0, 1, 1, 1])),
        ),
        (
            "[null] as [\"\"]",
            lists_variant(&v, lists(vec![Some(""), Some("")], vec![0, 1, 2, 2, 2])),
        ),
        (
            "[] as [null]",
            lists_variant(&v, lists(vec![None, Some(""), None], vec![0, 1, 2, 3, 3])),
        ),
        (
            "rows swapped",
            arrow::compute::take_record_batch(
                &v,
                &arrow::array::UInt32Array::from(vec![1, 0, 2, 3]),
            )
            .unwrap(),
        ),
        ("a row missing", v.slice(0, 3)),
        (
            "a zone dropped",
            with_column(
                &v,
                "ts_utc",
                Arc::new(TimestampMicrosecondArray::from(vec![
                    Some(1),
                    None,
                    Some(-1),
                    Some(0),
                ])),
            ),
        ),
        (
            "a wrong dictionary key",
            with_column(
                &v,
                "label",
                Arc::new(
                    vec![Some("a"), Some("a"), None, Some("b")]
                        .into_iter()
                        .collect::<DictionaryArray<Int32Type>>(),
                ),
            ),
        ),
        ("a column renamed", renamed(&v, "bool", "boolean")),
        (
            "columns reordered",
            v.project(&[1, 0, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap(),
        ),
    ];
    for (what, mutant) in mutants {
        assert_ne!(of(&[mutant]), expected, "{what}");
    }
}

fn lists_variant(v: &RecordBatch, column: ArrayRef) -> RecordBatch {
    with_column(v, "list", column)
}

fn renamed(v: &RecordBatch, from: &str, to: &str) -> RecordBatch {
    let fields: Vec<Field> = v
        .schema()
        .fields()
        .iter()
        .map(|f| match f.name() == from {
            true => f.as_ref().clone().with_name(to),
            false => f.as_ref().clone(),
        })
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), v.columns().to_vec()).unwrap()
}

#[test]
fn rows_in_any_order_digest_alike_only_when_order_is_no_part_of_the_value() {
    let v = vector().unwrap();
    let reversed =
        arrow::compute::take_record_batch(&v, &arrow::array::UInt32Array::from(vec![3, 2, 1, 0]))
            .unwrap();
    let any = |b: &RecordBatch| {
        digest(&b.schema(), std::iter::once(Ok(b.clone())), Rows::AnyOrder).unwrap()
    };
    assert_eq!(any(&v), any(&reversed));
    assert_ne!(
        of(std::slice::from_ref(&v)),
        of(std::slice::from_ref(&reversed))
    );
    // Still every value: a duplicated row in place of another is not the same multiset.
    let duplicated =
        arrow::compute::take_record_batch(&v, &arrow::array::UInt32Array::from(vec![0, 0, 2, 3]))
            .unwrap();
    assert_ne!(any(&v), any(&duplicated));
}

#[test]
fn a_missing_or_unreadable_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(file_digest(&dir.path().join("none.arrow"), Rows::Ordered).is_err());
    let garbage = dir.path().join("garbage.arrow");
    std::fs::write(&garbage, b"not arrow").unwrap();
    assert!(file_digest(&garbage, Rows::Ordered).is_err());
}

#[test]
fn the_flat_test_vector_has_its_known_digest() {
    let flat = super::flat_test_vector().unwrap();
    assert_eq!(of(&[flat]), super::FLAT_TEST_VECTOR_DIGEST);
}
