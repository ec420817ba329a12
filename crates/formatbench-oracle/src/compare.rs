//! Streaming logical comparison of two tables, chunk by chunk, whatever their batch splits.

use super::expected::BatchStream;
use super::representation::{common_type, to_common, Leeway};
use crate::Error;
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
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
    /// A check that failed for `reason`, with the representation differences found so far.
    pub fn failed(reason: String, representation: Vec<String>, rows: u64) -> Self {
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
    leeway: Leeway,
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
    // One common type per column, decided once from the schemas (docs/protocol.md,
    // "Representation differences"); each difference is recorded.
    let mut common = Vec::with_capacity(expected_schema.fields().len());
    for (e, a) in expected_schema.fields().iter().zip(actual_schema.fields()) {
        match common_type(
            e.name(),
            e.data_type(),
            a.data_type(),
            &leeway,
            &mut representation,
        ) {
            Ok(t) => common.push(t),
            Err(why) => return Ok(Verification::failed(why, representation, 0)),
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
                    let sides = to_common(e_chunk.column(i), &common[i])
                        .map_err(|e| format!("the source: {e}"))
                        .and_then(|want| Ok((want, to_common(a_chunk.column(i), &common[i])?)));
                    let (want, got) = match sides {
                        Ok(sides) => sides,
                        Err(why) => {
                            return Ok(Verification::failed(
                                format!(
                                    "column '{}', rows {row}..{}: {why}",
                                    field.name(),
                                    row + n as u64
                                ),
                                representation,
                                row,
                            ))
                        }
                    };
                    if let Some(at) = first_difference(&want, &got, leeway.float_tolerance) {
                        return Ok(Verification::failed(
                            format!(
                                "column '{}', row {}: expected {}, got {}",
                                field.name(),
                                row + at as u64,
                                value_text(&want, at),
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
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#[path = "compare/tests.rs"]
mod tests;
