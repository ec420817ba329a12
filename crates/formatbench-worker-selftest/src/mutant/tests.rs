//! Each mutation changes exactly what it says, and says so when there is nothing to change.

use super::{reshape, values};
use arrow::array::{
    Array, ArrayRef, AsArray, Date32Array, DictionaryArray, Float32Array, Float64Array, Int64Array,
    ListArray, RecordBatch, StringArray, StructArray, TimestampMicrosecondArray,
};
use arrow::datatypes::{DataType, Date64Type, Field, Float64Type, Int32Type, Int64Type, Schema};
use std::sync::Arc;

fn batch(columns: Vec<ArrayRef>) -> RecordBatch {
    let fields: Vec<Field> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

fn floats(values: Vec<f64>) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

fn float_bits(array: &ArrayRef) -> Vec<u64> {
    floats(array.as_primitive::<Float64Type>().values().to_vec())
}

#[test]
fn float_mutations_change_one_value_by_its_bits() {
    let column: ArrayRef = Arc::new(Float64Array::from(vec![f64::MAX, 0.0, f64::NAN]));
    let up = values::float_ulp(&column).unwrap().unwrap();
    // The largest finite value steps down, never to infinity.
    assert_eq!(float_bits(&up)[0], f64::MAX.to_bits() - 1);
    assert_eq!(float_bits(&up)[1..], float_bits(&column)[1..]);
    let negative = values::negative_zero(&column).unwrap().unwrap();
    assert_eq!(float_bits(&negative)[1], (-0.0f64).to_bits());
    let payload = values::nan_payload(&column).unwrap().unwrap();
    let changed = payload.as_primitive::<Float64Type>().value(2);
    assert!(changed.is_nan() && changed.to_bits() != f64::NAN.to_bits());
    let none: ArrayRef = Arc::new(Float32Array::from(vec![1.0f32]));
    assert!(values::nan_payload(&none).unwrap().is_none());
}

#[test]
fn a_date_within_the_day_prefers_one_after_1970() {
    let dates: ArrayRef = Arc::new(Date32Array::from(vec![Some(-5), None, Some(19_000)]));
    let out = values::date_within_day(&dates).unwrap().unwrap();
    let ms = out.as_primitive::<Date64Type>();
    assert_eq!(ms.value(0), -5 * 86_400_000);
    assert!(ms.is_null(1));
    assert_eq!(ms.value(2), 19_000 * 86_400_000 + 13 * 3_600_000);
}

#[test]
fn nested_and_encoded_columns_change_where_asked() {
    let list: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
        Some(vec![Some(1)]),
        None,
    ]));
    let out = values::list_null_to_empty(&list).unwrap().unwrap();
    assert!(out.is_valid(1) && out.as_list::<i32>().value(1).is_empty());
    let dict: ArrayRef = Arc::new(
        vec!["a", "b", "a"]
            .into_iter()
            .collect::<DictionaryArray<Int32Type>>(),
    );
    let out = values::dictionary_wrong_key(&dict).unwrap().unwrap();
    let keys = out.as_dictionary::<Int32Type>().keys().clone();
    assert_eq!(keys.values().to_vec(), vec![1, 1, 0]);
    let fields = vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ];
    let children: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![1])),
        Arc::new(StringArray::from(vec!["x"])),
    ];
    let st: ArrayRef = Arc::new(StructArray::try_new(fields.into(), children, None).unwrap());
    let out = values::struct_fields_swapped(&st).unwrap().unwrap();
    assert_eq!(out.as_struct().column_names(), vec!["b", "a"]);
    let zoned: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![5]).with_timezone("UTC"));
    let naive = values::timezone_dropped(&zoned).unwrap().unwrap();
    assert_eq!(
        naive.data_type(),
        &DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, None)
    );
    assert_eq!(naive.to_data().buffers(), zoned.to_data().buffers());
}

#[test]
fn strings_and_nulls_change_once() {
    let text: ArrayRef = Arc::new(StringArray::from(vec![Some("x"), None, Some(""), None]));
    let filled = values::null_to_empty_string(&text).unwrap().unwrap();
    assert_eq!(filled.null_count(), 1);
    assert_eq!(filled.as_string::<i32>().value(1), "");
    let emptied = values::empty_string_to_null(&text).unwrap().unwrap();
    assert_eq!(emptied.null_count(), 3);
    let ints: ArrayRef = Arc::new(Int64Array::from(vec![Some(3), None]));
    let zeroed = values::null_to_zero(&ints).unwrap().unwrap();
    assert_eq!(
        zeroed.as_primitive::<Int64Type>().values().to_vec(),
        vec![3, 0]
    );
    assert_eq!(zeroed.null_count(), 0);
}

#[test]
fn reshapes_change_something_or_say_they_cannot() {
    let equal = batch(vec![Arc::new(Int64Array::from(vec![7, 7, 8]))]);
    let swapped = reshape::rows_swapped(&equal).unwrap().unwrap();
    // The equal first two rows would swap invisibly: the next pair that differs swaps.
    assert_eq!(
        swapped
            .column(0)
            .as_primitive::<Int64Type>()
            .values()
            .to_vec(),
        vec![7, 8, 7]
    );
    let one_feature = batch(vec![Arc::new(Float32Array::from(vec![1.0f32, 2.0]))]);
    assert!(reshape::matrix_transposed(&one_feature).unwrap().is_none());
    let shifted = reshape::matrix_feature_shifted(&one_feature)
        .unwrap()
        .unwrap();
    assert_eq!(
        shifted
            .column(0)
            .as_primitive::<arrow::datatypes::Float32Type>()
            .values()
            .to_vec(),
        vec![2.0, 1.0]
    );
    let widened = reshape::type_widened(&one_feature).unwrap().unwrap();
    assert_eq!(widened.schema().field(0).data_type(), &DataType::Float64);
    assert!(
        reshape::row_missing(&batch(vec![Arc::new(Int64Array::from(Vec::<i64>::new()))]))
            .unwrap()
            .is_none()
    );
}
