//! Value-level checks of the comparison: each representation difference of the table passes
//! with equal values and fails with a changed one, at the top level and nested.

use super::*;
use arrow::array::{
    Date32Array, Date64Array, Float32Array, Float64Array, Int32Array, Int64Array, Int8Array,
    LargeListArray, LargeStringArray, ListArray, StringArray, StructArray,
    TimestampMicrosecondArray, TimestampNanosecondArray, TimestampSecondArray, UInt64Array,
};
use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{Field, Int64Type, Schema};
use std::sync::Arc;

fn one_column(array: ArrayRef) -> (SchemaRef, BatchStream) {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "t",
        array.data_type().clone(),
        true,
    )]));
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).unwrap();
    (schema, Box::new(std::iter::once(Ok(batch))))
}

fn check_with(expected: ArrayRef, actual: ArrayRef, leeway: Leeway) -> Verification {
    let (es, e) = one_column(expected);
    let (as_, a) = one_column(actual);
    compare(&es, e, &as_, a, leeway).unwrap()
}

fn check(expected: ArrayRef, actual: ArrayRef) -> Verification {
    check_with(expected, actual, Leeway::EXACT)
}

const WIDTHS: Leeway = Leeway {
    float_tolerance: None,
    other_widths: true,
};

#[test]
fn finer_timestamp_units_compare_without_truncation() {
    let seconds = Arc::new(TimestampSecondArray::from(vec![1, 2]));
    let same = Arc::new(TimestampNanosecondArray::from(vec![
        1_000_000_000,
        2_000_000_000,
    ]));
    let verdict = check(seconds.clone(), same);
    assert!(verdict.ok, "{verdict:?}");
    assert_eq!(
        verdict.representation,
        vec!["t: Timestamp(ns) (source Timestamp(s); finer unit)".to_string()]
    );
    // Half a second off: a cast of the actual to seconds would truncate it away.
    let off = Arc::new(TimestampNanosecondArray::from(vec![
        1_000_000_000,
        2_500_000_000,
    ]));
    assert!(!check(seconds, off).ok);
}

#[test]
fn dates_may_come_back_as_midnight_timestamps() {
    let dates = Arc::new(Date32Array::from(vec![0, 19_000]));
    let midnight = Arc::new(TimestampNanosecondArray::from(vec![
        0,
        19_000 * 86_400 * 1_000_000_000,
    ]));
    assert!(check(dates.clone(), midnight).ok);
    let noon = Arc::new(TimestampNanosecondArray::from(vec![
        43_200 * 1_000_000_000,
        0,
    ]));
    assert!(!check(dates, noon).ok);
}

/// Item 1: a Date64 shifted within its day used to pass, cast down to days.
#[test]
fn a_date_shifted_within_its_day_is_a_mismatch() {
    const DAY_MS: i64 = 86_400_000;
    let dates = Arc::new(Date32Array::from(vec![0, 19_000]));
    let midnight = Arc::new(Date64Array::from(vec![0, 19_000 * DAY_MS]));
    let verdict = check(dates.clone(), midnight);
    assert!(verdict.ok, "{verdict:?}");
    assert_eq!(verdict.representation.len(), 1);
    let shifted = Arc::new(Date64Array::from(vec![0, 19_000 * DAY_MS + 13 * 3_600_000]));
    let verdict = check(dates, shifted);
    assert!(!verdict.ok);
    assert!(verdict.reason.unwrap().contains("row 1"));
}

/// Item 2: a −1 where the source has a null used to cast to null and pass.
#[test]
fn a_value_where_the_source_has_a_null_is_never_cast_into_one() {
    let source = Arc::new(UInt64Array::from(vec![Some(7), None]));
    let sentinel = Arc::new(Int64Array::from(vec![7, -1]));
    assert!(!check(source.clone(), sentinel.clone()).ok);
    // Declared widths do not let it through either: the values are compared, not cast down.
    let verdict = check_with(source.clone(), sentinel, WIDTHS);
    assert!(!verdict.ok, "{verdict:?}");
    let same = Arc::new(Int64Array::from(vec![Some(7), None]));
    assert!(check_with(source, same, WIDTHS).ok);
}

#[test]
fn another_integer_width_passes_only_where_the_backend_declares_it() {
    let narrow = Arc::new(Int8Array::from(vec![1, -2]));
    let wide = Arc::new(Int64Array::from(vec![1, -2]));
    let verdict = check(narrow.clone(), wide.clone());
    assert!(!verdict.ok);
    assert!(verdict.reason.unwrap().contains("does not declare"));
    assert!(check_with(narrow, wide, WIDTHS).ok);
    let big = Arc::new(Int64Array::from(vec![5_000_000_000]));
    assert!(!check_with(big, Arc::new(Int32Array::from(vec![705_032_704])), WIDTHS).ok);
    let unsigned = Arc::new(UInt64Array::from(vec![u64::MAX]));
    assert!(!check_with(unsigned, Arc::new(Int64Array::from(vec![-1])), WIDTHS).ok);
}

#[test]
fn float32_as_float64_must_round_to_the_source() {
    let single = Arc::new(Float32Array::from(vec![0.1f32, 3.5]));
    let double = Arc::new(Float64Array::from(vec![0.1, 3.5]));
    assert!(!check(single.clone(), double.clone()).ok);
    assert!(check_with(single.clone(), double, WIDTHS).ok);
    assert!(
        !check_with(
            single.clone(),
            Arc::new(Float64Array::from(vec![0.1001, 3.5])),
            WIDTHS
        )
        .ok
    );
    // Past float32's range: it would round to infinity, another value.
    let huge = Arc::new(Float64Array::from(vec![1e300, 3.5]));
    assert!(!check_with(single, huge, WIDTHS).ok);
}

#[test]
fn zones_must_be_kept_but_may_be_spelled_otherwise() {
    let utc = Arc::new(TimestampMicrosecondArray::from(vec![1, 2]).with_timezone("UTC"));
    let etc = Arc::new(TimestampMicrosecondArray::from(vec![1, 2]).with_timezone("Etc/UTC"));
    let verdict = check(utc.clone(), etc);
    assert!(verdict.ok, "{verdict:?}");
    assert!(verdict.representation[0].contains("zone name"));
    let dropped = Arc::new(TimestampMicrosecondArray::from(vec![1, 2]));
    assert!(!check(utc.clone(), dropped).ok);
    let other = Arc::new(TimestampMicrosecondArray::from(vec![1, 2]).with_timezone("Europe/Paris"));
    assert!(!check(utc, other).ok);
}

fn int_list(item: &str, rows: &[Option<Vec<Option<i64>>>]) -> ListArray {
    let list = ListArray::from_iter_primitive::<Int64Type, _, _>(rows.iter().cloned());
    let (_, offsets, values, nulls) = list.into_parts();
    ListArray::new(
        Arc::new(Field::new(item, DataType::Int64, true)),
        offsets,
        values,
        nulls,
    )
}

/// Item 5: list item names, large offsets and nested string encodings are representations.
#[test]
fn lists_compare_by_their_items_whatever_their_item_name_or_offsets() {
    let rows = vec![Some(vec![Some(1), None]), None, Some(vec![])];
    let element = Arc::new(int_list("element", &rows));
    let renamed = Arc::new(int_list("l", &rows));
    let verdict = check(element.clone(), renamed);
    assert!(verdict.ok, "{verdict:?}");
    assert!(verdict.representation[0].contains("list item name"));
    let large = Arc::new(LargeListArray::from_iter_primitive::<Int64Type, _, _>(
        rows.clone(),
    ));
    let verdict = check(element.clone(), large);
    assert!(verdict.ok, "{verdict:?}");
    // A list's null item turned into an empty list is another value.
    let emptied = vec![Some(vec![Some(1), None]), Some(vec![]), Some(vec![])];
    assert!(!check(element.clone(), Arc::new(int_list("l", &emptied))).ok);
    let changed = vec![Some(vec![Some(1), Some(0)]), None, Some(vec![])];
    assert!(!check(element, Arc::new(int_list("element", &changed))).ok);

    let words = Arc::new(StringArray::from(vec!["a", "", "b"]));
    let large_words = Arc::new(LargeStringArray::from(vec!["a", "", "b"]));
    let offsets = OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2, 3]));
    let list = |item: ArrayRef, name: &str| -> ArrayRef {
        let field = Arc::new(Field::new(name, item.data_type().clone(), true));
        Arc::new(ListArray::new(field, offsets.clone(), item, None))
    };
    let verdict = check(list(words, "item"), list(large_words, "element"));
    assert!(verdict.ok, "{verdict:?}");
    assert_eq!(verdict.representation.len(), 2, "{verdict:?}");
}

#[test]
fn struct_fields_compare_by_name_and_value_at_every_depth() {
    let make = |strings: ArrayRef, numbers: ArrayRef, order: [&str; 2]| -> ArrayRef {
        let (a, b) = if order[0] == "s" {
            (("s", strings), ("n", numbers))
        } else {
            (("n", numbers), ("s", strings))
        };
        Arc::new(StructArray::from(vec![
            (
                Arc::new(Field::new(a.0, a.1.data_type().clone(), true)),
                a.1,
            ),
            (
                Arc::new(Field::new(b.0, b.1.data_type().clone(), true)),
                b.1,
            ),
        ]))
    };
    let strings: ArrayRef = Arc::new(StringArray::from(vec![Some("x"), None]));
    let large: ArrayRef = Arc::new(LargeStringArray::from(vec![Some("x"), None]));
    let numbers: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    let source = make(strings.clone(), numbers.clone(), ["s", "n"]);
    let verdict = check(source.clone(), make(large, numbers.clone(), ["s", "n"]));
    assert!(verdict.ok, "{verdict:?}");
    assert!(verdict.representation[0].starts_with("t.s:"));
    assert!(!check(source, make(strings, numbers, ["n", "s"])).ok);
}

#[test]
fn values_under_null_slots_are_not_values() {
    let clean = Arc::new(Int64Array::from(vec![Some(1), None, Some(3)]));
    let junk = Int64Array::new(
        ScalarBuffer::from(vec![1, 0x5A5A_5A5A, 3]),
        Some(NullBuffer::from(vec![true, false, true])),
    );
    let verdict = check(clean, Arc::new(junk));
    assert!(verdict.ok, "{verdict:?}");
    assert!(verdict.representation.is_empty());
}
