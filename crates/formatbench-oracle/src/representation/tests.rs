//! The table row by row: which pairs of types stand for each other, in which common type.

use super::*;
use arrow::datatypes::TimeUnit::{Microsecond, Millisecond, Nanosecond, Second};

fn decide(expected: &DataType, actual: &DataType, leeway: Leeway) -> Result<DataType, String> {
    common_type("c", expected, actual, &leeway, &mut Vec::new())
}

fn list(name: &str, item: DataType) -> DataType {
    DataType::List(Arc::new(Field::new(name, item, true)))
}

#[test]
fn each_row_of_the_table_gives_its_common_type() {
    use DataType as T;
    let dict = |v: DataType| T::Dictionary(Box::new(T::Int32), Box::new(v));
    let utc = |u: TimeUnit, z: &str| T::Timestamp(u, Some(z.into()));
    let exact = [
        (T::Utf8, T::LargeUtf8, T::Utf8),
        (T::Utf8, T::Utf8View, T::Utf8),
        (T::Binary, T::BinaryView, T::Binary),
        (dict(T::Utf8), T::Utf8, T::Utf8),
        (T::Utf8, dict(T::LargeUtf8), T::Utf8),
        (
            T::Timestamp(Second, None),
            T::Timestamp(Millisecond, None),
            T::Timestamp(Millisecond, None),
        ),
        (
            utc(Nanosecond, "UTC"),
            utc(Microsecond, "Etc/UTC"),
            utc(Nanosecond, "UTC"),
        ),
        (T::Date32, T::Date64, T::Date64),
        (
            T::Date32,
            T::Timestamp(Microsecond, None),
            T::Timestamp(Microsecond, None),
        ),
        (
            list("element", T::Utf8),
            T::LargeList(Arc::new(Field::new("l", T::LargeUtf8, false))),
            list("element", T::Utf8),
        ),
        (
            T::FixedSizeList(Arc::new(Field::new("item", T::Float32, true)), 4),
            list("item", T::Float32),
            list("item", T::Float32),
        ),
    ];
    for (expected, actual, common) in exact {
        let mut notes = Vec::new();
        let got = common_type("c", &expected, &actual, &Leeway::EXACT, &mut notes);
        assert_eq!(got, Ok(common), "{expected} as {actual}");
        assert!(!notes.is_empty(), "{expected} as {actual} left no note");
    }
}

#[test]
fn types_that_change_values_are_refused() {
    use DataType as T;
    let refused = [
        (T::Int8, T::Int64),
        (T::UInt32, T::Int32),
        (T::Float32, T::Float64),
        (T::Float64, T::Float32),
        (T::Utf8, T::Binary),
        (
            T::Timestamp(Microsecond, Some("UTC".into())),
            T::Timestamp(Microsecond, None),
        ),
        (
            T::Timestamp(Microsecond, None),
            T::Timestamp(Microsecond, Some("UTC".into())),
        ),
        (T::Date32, T::Timestamp(Microsecond, Some("UTC".into()))),
        (list("item", T::Int8), list("item", T::Int64)),
        (
            T::FixedSizeList(Arc::new(Field::new("item", T::Float32, true)), 4),
            T::FixedSizeList(Arc::new(Field::new("item", T::Float32, true)), 3),
        ),
        (T::Int64, T::Utf8),
    ];
    for (expected, actual) in refused {
        assert!(
            decide(&expected, &actual, Leeway::EXACT).is_err(),
            "{expected} as {actual} passed"
        );
    }
}

#[test]
fn declared_widths_widen_to_a_type_that_holds_both() {
    use DataType as T;
    let widths = Leeway {
        float_tolerance: None,
        other_widths: true,
    };
    assert_eq!(decide(&T::Int8, &T::Int64, widths), Ok(T::Int64));
    assert_eq!(decide(&T::UInt16, &T::Int32, widths), Ok(T::Int64));
    assert_eq!(
        decide(&T::UInt64, &T::Int64, widths),
        Ok(T::Decimal128(20, 0))
    );
    assert_eq!(decide(&T::Float32, &T::Float64, widths), Ok(T::Float32));
    assert!(decide(&T::Float64, &T::Float32, widths).is_err());
    // Spark's uint64: decimal(20, 0), compared in a decimal that holds every integer.
    assert_eq!(
        decide(&T::UInt64, &T::Decimal128(20, 0), widths),
        Ok(T::Decimal128(38, 0))
    );
    assert!(decide(&T::UInt64, &T::Decimal128(20, 0), Leeway::EXACT).is_err());
    // A decimal with a fraction is not an integer's representation.
    assert!(decide(&T::Int64, &T::Decimal128(20, 2), widths).is_err());
}

#[test]
fn an_integer_as_a_decimal_keeps_every_value_or_is_a_mismatch() {
    use arrow::array::{Decimal128Array, UInt64Array};
    let common = DataType::Decimal128(38, 0);
    let source: ArrayRef = Arc::new(UInt64Array::from(vec![Some(u64::MAX), None, Some(0)]));
    let spark: ArrayRef = Arc::new(
        Decimal128Array::from(vec![Some(i128::from(u64::MAX)), None, Some(0)])
            .with_precision_and_scale(20, 0)
            .unwrap(),
    );
    assert_eq!(
        to_common(&source, &common).unwrap().as_ref(),
        to_common(&spark, &common).unwrap().as_ref()
    );
}

#[test]
fn a_value_a_cast_cannot_hold_is_an_error_not_a_null() {
    use arrow::array::TimestampSecondArray;
    let far: ArrayRef = Arc::new(TimestampSecondArray::from(vec![i64::MAX / 2]));
    let finer = DataType::Timestamp(Nanosecond, None);
    assert!(to_common(&far, &finer).is_err());
}
