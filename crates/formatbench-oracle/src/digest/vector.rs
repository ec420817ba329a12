//! docs/protocol.md's test vector for the result digest: a table of the values readers get
//! wrong (nulls with bytes under them, −0.0, NaN, empty strings and lists, a null inside a
//! list, zones, dictionaries), its known digest, and the flat part every worker can carry
//! (workers without Arrow exchange flat tables only).

use arrow::array::{
    ArrayRef, BooleanArray, Date32Array, DictionaryArray, Float64Array, Int32Array, ListArray,
    RecordBatch, StringArray, StructArray, TimestampMicrosecondArray, UInt64Array,
};
use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{DataType, Field, Fields, Int32Type, Schema};
use std::sync::Arc;

/// The known answer: docs/protocol.md's test vector, as every worker's result must digest.
pub const TEST_VECTOR_DIGEST: &str = "rd1:d78f9d8d5a5c164a6361a737c4158b96";

pub(super) fn list_of_strings(
    items: StringArray,
    offsets: Vec<i32>,
    valid: Vec<bool>,
) -> ListArray {
    let item = Arc::new(Field::new("item", DataType::Utf8, true));
    ListArray::new(
        item,
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Arc::new(items),
        Some(NullBuffer::from(valid)),
    )
}

/// docs/protocol.md's test vector: four rows of the values readers get wrong. Built in code,
/// without `unwrap`: its parts are consistent by construction, checked by `try_new`.
pub fn test_vector() -> Result<RecordBatch, arrow::error::ArrowError> {
    // 16,711,935 under the null: the value an in-band null marker would hash like.
    let ints = Int32Array::new(
        ScalarBuffer::from(vec![1, 16_711_935, -7, 0]),
        Some(NullBuffer::from(vec![true, false, true, true])),
    );
    let uints = UInt64Array::from(vec![Some(u64::MAX), Some(0), None, Some(42)]);
    let floats = Float64Array::from(vec![Some(0.0), Some(-0.0), Some(f64::NAN), None]);
    let strings = StringArray::from(vec![Some(""), None, Some("é"), Some("a,b")]);
    let bools = BooleanArray::from(vec![Some(true), Some(false), None, Some(true)]);
    let dates = Date32Array::from(vec![Some(0), Some(19_000), None, Some(-1)]);
    let times = TimestampMicrosecondArray::from(vec![Some(1), None, Some(-1), Some(0)])
        .with_timezone("UTC");
    // [null], [""], [], null.
    let lists = list_of_strings(
        StringArray::from(vec![None, Some("")]),
        vec![0, 1, 2, 2, 2],
        vec![true, true, true, false],
    );
    let structs = StructArray::new(
        Fields::from(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ]),
        vec![
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3), Some(4)])) as ArrayRef,
            Arc::new(StringArray::from(vec![
                Some("x"),
                Some("y"),
                None,
                Some(""),
            ])),
        ],
        Some(NullBuffer::from(vec![true, true, true, false])),
    );
    let labels: DictionaryArray<Int32Type> = vec![Some("b"), Some("a"), None, Some("b")]
        .into_iter()
        .collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ints),
        Arc::new(uints),
        Arc::new(floats),
        Arc::new(strings),
        Arc::new(bools),
        Arc::new(dates),
        Arc::new(times),
        Arc::new(lists),
        Arc::new(structs),
        Arc::new(labels),
    ];
    let names = [
        "i32", "u64", "f64", "utf8", "bool", "date", "ts_utc", "list", "struct", "label",
    ];
    let fields: Vec<Field> = names
        .iter()
        .zip(&columns)
        .map(|(name, c)| Field::new(*name, c.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
}

/// The digest of [`flat_test_vector`].
pub const FLAT_TEST_VECTOR_DIGEST: &str = "rd1:1e5bfefc00281ff24ee7c259818aefc7";

/// The test vector's columns every worker's exchange carries exactly (integers, finite floats,
/// strings, booleans, dates), with an `id` to keep its row order by.
pub fn flat_test_vector() -> Result<RecordBatch, arrow::error::ArrowError> {
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int32Array::from(vec![0, 1, 2, 3]))),
        (
            "i32",
            Arc::new(Int32Array::new(
                ScalarBuffer::from(vec![1, 16_711_935, -7, 0]),
                Some(NullBuffer::from(vec![true, false, true, true])),
            )),
        ),
        (
            "f64",
            Arc::new(Float64Array::from(vec![
                Some(1.5),
                None,
                Some(-2.25),
                Some(1e300),
            ])),
        ),
        (
            "utf8",
            Arc::new(StringArray::from(vec![
                Some(""),
                None,
                Some("é"),
                Some("a,b"),
            ])),
        ),
        (
            "bool",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                Some(true),
            ])),
        ),
        (
            "date",
            Arc::new(Date32Array::from(vec![
                Some(0),
                Some(19_000),
                None,
                Some(-1),
            ])),
        ),
    ];
    RecordBatch::try_from_iter_with_nullable(
        columns
            .into_iter()
            .map(|(name, column)| (name, column, true)),
    )
}
