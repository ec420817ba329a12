//! Streaming logical comparison of two tables, chunk by chunk, whatever their batch splits.

use super::expected::BatchStream;
use super::oracle::logical_type;
use crate::Error;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Float32Type, Float64Type, SchemaRef};
use arrow::util::display::{ArrayFormatter, FormatOptions};

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    pub ok: bool,
    pub reason: Option<String>,
    pub representation: Vec<String>,
    pub rows: u64,
}

impl Verification {
    pub(crate) fn failed(reason: String, representation: Vec<String>, rows: u64) -> Self {
        Verification {
            ok: false,
            reason: Some(reason),
            representation,
            rows,
        }
    }
}

/// Walks a stream of batches in chunks of any size.
struct Cursor {
    stream: BatchStream,
    current: Option<RecordBatch>,
    offset: usize,
    batches: usize,
}

impl Cursor {
    fn new(stream: BatchStream) -> Self {
        Cursor {
            stream,
            current: None,
            offset: 0,
            batches: 0,
        }
    }

    /// Rows left in the current batch, loading the next non-empty one; `None` at the end.
    fn available(&mut self) -> Result<Option<usize>, Error> {
        loop {
            if let Some(batch) = &self.current {
                if self.offset < batch.num_rows() {
                    return Ok(Some(batch.num_rows() - self.offset));
                }
            }
            match self.stream.next() {
                Some(batch) => {
                    self.current = Some(batch?);
                    self.offset = 0;
                    self.batches += 1;
                }
                None => return Ok(None),
            }
        }
    }

    fn take(&mut self, n: usize) -> Option<RecordBatch> {
        let batch = self.current.as_ref()?.slice(self.offset, n);
        self.offset += n;
        Some(batch)
    }

    fn rest(&mut self) -> Result<u64, Error> {
        let mut rows = 0;
        while let Some(n) = self.available()? {
            rows += n as u64;
            self.offset += n;
        }
        Ok(rows)
    }
}

/// Whether an actual column type may stand for the expected one (compared after a cast to the
/// expected type, which must then give equal values: an integer that does not fit casts to null
/// and fails). Readers without 64-bit or unsigned integers (R) return other integer widths;
/// readers without float32 (R, text formats) return float64, which must round to the source.
fn allowed_representation(expected: &DataType, actual: &DataType) -> bool {
    logical_type(expected) == logical_type(actual)
        || (expected.is_integer() && actual.is_integer())
        || matches!((expected, actual), (DataType::Float32, DataType::Float64))
        || matches!((expected, actual), (DataType::Timestamp(_, a), DataType::Timestamp(_, b)) if a == b)
        || matches!(
            (expected, actual),
            (
                DataType::Date32 | DataType::Date64,
                DataType::Date32 | DataType::Date64 | DataType::Timestamp(_, None)
            )
        )
}

/// The type both sides are compared in: the finer of two timestamp units, and a timestamp for
/// a date read back as one (pandas and Polars datetimes), so that no cast loses precision and a
/// wrong sub-second part cannot be truncated away.
fn comparison_type(expected: &DataType, actual: &DataType) -> DataType {
    use arrow::datatypes::TimeUnit;
    let rank = |u: &TimeUnit| match u {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 1,
        TimeUnit::Microsecond => 2,
        TimeUnit::Nanosecond => 3,
    };
    match (expected, actual) {
        (DataType::Timestamp(e, tz), DataType::Timestamp(a, _)) => {
            let unit = if rank(a) > rank(e) { a } else { e };
            DataType::Timestamp(*unit, tz.clone())
        }
        (DataType::Date32 | DataType::Date64, DataType::Timestamp(_, None)) => actual.clone(),
        _ => expected.clone(),
    }
}

fn value_text(array: &ArrayRef, row: usize) -> String {
    if array.is_null(row) {
        return "null".into();
    }
    ArrayFormatter::try_new(array.as_ref(), &FormatOptions::default())
        .map(|f| f.value(row).to_string())
        .unwrap_or_else(|_| "?".into())
}

fn floats_close(expected: &ArrayRef, actual: &ArrayRef, tolerance: f64) -> Option<usize> {
    let close = |a: f64, b: f64| {
        a == b || (a - b).abs() <= tolerance * a.abs().max(b.abs()) || (a.is_nan() && b.is_nan())
    };
    let pairs: Vec<(Option<f64>, Option<f64>)> = match expected.data_type() {
        DataType::Float64 => expected
            .as_primitive::<Float64Type>()
            .iter()
            .zip(actual.as_primitive::<Float64Type>().iter())
            .collect(),
        DataType::Float32 => expected
            .as_primitive::<Float32Type>()
            .iter()
            .zip(actual.as_primitive::<Float32Type>().iter())
            .map(|(a, b)| (a.map(f64::from), b.map(f64::from)))
            .collect(),
        _ => return None,
    };
    pairs.iter().position(|pair| match pair {
        (Some(a), Some(b)) => !close(*a, *b),
        (None, None) => false,
        _ => true,
    })
}

/// The first differing row of two equal-length arrays.
fn first_difference(
    expected: &ArrayRef,
    actual: &ArrayRef,
    tolerance: Option<f64>,
) -> Option<usize> {
    if let Some(tolerance) = tolerance {
        if matches!(expected.data_type(), DataType::Float32 | DataType::Float64) {
            return floats_close(expected, actual, tolerance);
        }
    }
    if expected.to_data() == actual.to_data() {
        return None;
    }
    (0..expected.len())
        .find(|&i| expected.slice(i, 1).to_data() != actual.slice(i, 1).to_data())
        .or(Some(0))
}

pub fn compare(
    expected_schema: &SchemaRef,
    expected: BatchStream,
    actual_schema: &SchemaRef,
    actual: BatchStream,
    float_tolerance: Option<f64>,
) -> Result<Verification, Error> {
    let mut representation = Vec::new();
    let expected_names: Vec<&String> = expected_schema.fields().iter().map(|f| f.name()).collect();
    let actual_names: Vec<&String> = actual_schema.fields().iter().map(|f| f.name()).collect();
    if expected_names != actual_names {
        return Ok(Verification::failed(
            format!("columns differ: expected {expected_names:?}, got {actual_names:?}"),
            representation,
            0,
        ));
    }
    for (e, a) in expected_schema.fields().iter().zip(actual_schema.fields()) {
        if e.data_type() != a.data_type() {
            if !allowed_representation(e.data_type(), a.data_type()) {
                return Ok(Verification::failed(
                    format!(
                        "column '{}' is {}, expected {}",
                        e.name(),
                        a.data_type(),
                        e.data_type()
                    ),
                    representation,
                    0,
                ));
            }
            representation.push(format!(
                "{}: {} (source {})",
                e.name(),
                a.data_type(),
                e.data_type()
            ));
        }
    }
    let mut exp = Cursor::new(expected);
    let mut act = Cursor::new(actual);
    let mut row = 0u64;
    loop {
        match (exp.available()?, act.available()?) {
            (None, None) => break,
            (Some(_), None) | (None, Some(_)) => {
                let expected_rows = row + exp.rest()?;
                let actual_rows = row + act.rest()?;
                return Ok(Verification::failed(
                    format!("expected {expected_rows} rows, got {actual_rows}"),
                    representation,
                    actual_rows,
                ));
            }
            (Some(a), Some(b)) => {
                let n = a.min(b);
                let (Some(e_chunk), Some(a_chunk)) = (exp.take(n), act.take(n)) else {
                    break;
                };
                for (i, field) in expected_schema.fields().iter().enumerate() {
                    let (want, got) = (e_chunk.column(i), a_chunk.column(i));
                    let common = comparison_type(want.data_type(), got.data_type());
                    let as_common = |a: &ArrayRef| -> Result<ArrayRef, Error> {
                        Ok(if a.data_type() == &common {
                            a.clone()
                        } else {
                            cast(a, &common)?
                        })
                    };
                    let (want, got) = (&as_common(want)?, as_common(got)?);
                    if let Some(at) = first_difference(want, &got, float_tolerance) {
                        return Ok(Verification::failed(
                            format!(
                                "column '{}', row {}: expected {}, got {}",
                                field.name(),
                                row + at as u64,
                                value_text(want, at),
                                value_text(&got, at)
                            ),
                            representation,
                            row,
                        ));
                    }
                }
                row += n as u64;
            }
        }
    }
    if exp.batches != act.batches {
        representation.push(format!("{} batches (source {})", act.batches, exp.batches));
    }
    Ok(Verification {
        ok: true,
        reason: None,
        representation,
        rows: row,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Date32Array, TimestampNanosecondArray, TimestampSecondArray};
    use arrow::datatypes::{Field, Schema, TimeUnit};
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

    fn check(expected: ArrayRef, actual: ArrayRef) -> Verification {
        let (es, e) = one_column(expected);
        let (as_, a) = one_column(actual);
        compare(&es, e, &as_, a, None).unwrap()
    }

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
            vec!["t: Timestamp(ns) (source Timestamp(s))".to_string()]
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
        assert_eq!(
            comparison_type(
                &DataType::Timestamp(TimeUnit::Second, None),
                &DataType::Timestamp(TimeUnit::Millisecond, None)
            ),
            DataType::Timestamp(TimeUnit::Millisecond, None)
        );
    }

    #[test]
    fn other_integer_widths_pass_only_with_equal_values() {
        use arrow::array::{Float32Array, Float64Array, Int32Array, Int64Array, UInt64Array};
        let wide = Arc::new(UInt64Array::from(vec![1, 2_000_000_000]));
        assert!(
            check(
                wide.clone(),
                Arc::new(Int32Array::from(vec![1, 2_000_000_000]))
            )
            .ok
        );
        assert!(
            check(
                wide.clone(),
                Arc::new(Int64Array::from(vec![1, 2_000_000_000]))
            )
            .ok
        );
        // A negative value does not fit the unsigned source type: it casts to null and fails.
        assert!(!check(wide, Arc::new(Int64Array::from(vec![-1, 2_000_000_000]))).ok);
        let big = Arc::new(Int64Array::from(vec![5_000_000_000]));
        assert!(!check(big, Arc::new(Int32Array::from(vec![705_032_704]))).ok);
        // float32 read back as the float64 nearest to its text must round to the same float32.
        let single = Arc::new(Float32Array::from(vec![0.1f32, 3.5]));
        assert!(check(single.clone(), Arc::new(Float64Array::from(vec![0.1, 3.5]))).ok);
        assert!(!check(single, Arc::new(Float64Array::from(vec![0.1001, 3.5]))).ok);
    }
}
