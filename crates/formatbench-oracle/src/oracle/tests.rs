//! The oracle against answers worked out by hand.

use super::*;
use arrow::array::{ArrayRef, Int32Array, StringArray};
use arrow::datatypes::Field;
use std::sync::Arc;

/// Two batches of an unsorted index with a null and a repeat: 7 3 null 5 | 3 9 1.
fn batches() -> (SchemaRef, Vec<RecordBatch>) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("flight", DataType::Int32, true),
        Field::new("name", DataType::Utf8, false),
    ]));
    let batch = |ids: Vec<Option<i32>>, names: Vec<&str>| {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(ids)),
            Arc::new(StringArray::from(names)),
        ];
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    };
    let first = batch(
        vec![Some(7), Some(3), None, Some(5)],
        vec!["a", "b", "c", "d"],
    );
    let second = batch(vec![Some(3), Some(9), Some(1)], vec!["e", "f", "g"]);
    (schema, vec![first, second])
}

fn names(batches: &[RecordBatch]) -> Vec<String> {
    batches
        .iter()
        .flat_map(|b| {
            let names = b.column(1).as_string::<i32>();
            (0..names.len())
                .map(|i| names.value(i).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn index_range_keeps_values_in_the_half_open_range_and_never_a_null() {
    let (_, data) = batches();
    let picked: Vec<RecordBatch> = data
        .iter()
        .map(|b| index_range(b, "flight", 3, 7).unwrap())
        .collect();
    // 3 ≤ v < 7: b (3), d (5), e (3); not a (7), not c (null).
    assert_eq!(names(&picked), ["b", "d", "e"]);
    let none = index_range(&data[0], "flight", 100, 200).unwrap();
    assert_eq!(none.num_rows(), 0);
}

#[test]
fn index_range_refuses_a_column_that_is_not_an_integer() {
    let (_, data) = batches();
    let error = index_range(&data[0], "name", 0, 1).unwrap_err().to_string();
    assert!(error.contains("not an integer"), "{error}");
    assert!(index_range(&data[0], "missing", 0, 1).is_err());
}

#[test]
fn take_rows_returns_request_order_across_batches_with_repeats() {
    let (schema, data) = batches();
    let stream = data.clone().into_iter().map(Ok);
    let taken = take_rows(&schema, stream, &[6, 0, 4, 6, 3])
        .unwrap()
        .unwrap();
    assert_eq!(names(&[taken]), ["g", "a", "e", "g", "d"]);
    let empty = take_rows(&schema, data.clone().into_iter().map(Ok), &[]).unwrap();
    assert!(empty.is_none());
    let past = take_rows(&schema, data.into_iter().map(Ok), &[7]).unwrap_err();
    assert!(past.to_string().contains("past the end"), "{past}");
}

#[test]
fn column_positions_follow_the_order_asked() {
    let (schema, _) = batches();
    let asked = ["name".to_string(), "flight".to_string()];
    assert_eq!(column_positions(&schema, &asked).unwrap(), [1, 0]);
    assert!(column_positions(&schema, &["nope".to_string()]).is_err());
}

#[test]
fn sorted_orders_by_the_lead_then_every_column() {
    let (_, data) = batches();
    let by_flight = sorted(&data, Some("flight")).unwrap();
    // Nulls first, then 1 3 3 5 7 9; the two 3s by name (b before e).
    assert_eq!(names(&by_flight), ["c", "g", "b", "e", "d", "a", "f"]);
    let reversed: Vec<RecordBatch> = data.iter().rev().cloned().collect();
    assert_eq!(
        names(&sorted(&reversed, Some("flight")).unwrap()),
        names(&by_flight)
    );
}
