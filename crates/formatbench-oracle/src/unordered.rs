//! Comparing a result that keeps no row order (Delta) with the source in bounded memory: both
//! sides are cut into buckets by the index column's value and each bucket is sorted and
//! compared on its own, reading the two files again for every bucket. A result small enough
//! for one bucket is sorted whole, as before; a large one costs passes, not memory.

use super::compare::{compare, Verification};
use super::expected::{expected_batches, BatchStream};
use super::oracle;
use super::representation::Leeway;
use crate::Error;
use arrow::array::{AsArray, BooleanArray, RecordBatch};
use arrow::compute::{cast, filter_record_batch};
use arrow::datatypes::{DataType, Int64Type, SchemaRef};
use formatbench_protocol::{Op, OpParams};
use std::path::Path;

/// Bytes of result one bucket may hold: sorting copies it about three times over.
pub const BUCKET_BYTES: u64 = 128 << 20;

/// Which rows a bucket holds: index values from `lo` up to (not including) `hi`, either end
/// open when `None`, or the rows with no index value.
#[derive(Debug, Clone, Copy)]
enum Bucket {
    Values { lo: Option<i64>, hi: Option<i64> },
    NoValue,
}

impl Bucket {
    fn holds(self, value: Option<i64>) -> bool {
        match (self, value) {
            (Bucket::Values { lo, hi }, Some(v)) => {
                lo.is_none_or(|lo| lo <= v) && hi.is_none_or(|hi| v < hi)
            }
            (Bucket::NoValue, None) => true,
            _ => false,
        }
    }

    fn mask(self, batch: &RecordBatch, column: &str) -> Result<BooleanArray, Error> {
        let values = batch
            .column_by_name(column)
            .ok_or_else(|| Error::Input(format!("index column '{column}' is not in the result")))?;
        let values = cast(values, &DataType::Int64)?;
        let values = values.as_primitive::<Int64Type>();
        Ok(values.iter().map(|v| Some(self.holds(v))).collect())
    }
}

/// The buckets that split the index range `[min, max]` into `count` parts (the first and last
/// open-ended, so every returned value falls in one), then the rows without a value.
fn buckets(min: i64, max: i64, count: u64) -> Vec<Bucket> {
    let span = max as i128 - min as i128 + 1;
    let count = (count as i128).clamp(1, span.max(1));
    let edge = |k: i128| (min as i128 + span * k / count) as i64;
    (0..count)
        .map(|k| Bucket::Values {
            lo: (k > 0).then(|| edge(k)),
            hi: (k < count - 1).then(|| edge(k + 1)),
        })
        .chain([Bucket::NoValue])
        .collect()
}

/// The smallest and largest index value of the expected rows, in one streaming pass.
fn index_bounds(stream: BatchStream, column: &str) -> Result<Option<(i64, i64)>, Error> {
    let mut bounds: Option<(i64, i64)> = None;
    for batch in stream {
        let batch = batch?;
        let Some(values) = batch.column_by_name(column) else {
            return Ok(None);
        };
        let values = cast(values, &DataType::Int64)?;
        let values = values.as_primitive::<Int64Type>();
        for v in values.iter().flatten() {
            bounds = Some(bounds.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
        }
    }
    Ok(bounds)
}

/// The rows of `stream` in `bucket`, sorted as `oracle::sorted` orders them.
fn bucket_rows(
    stream: BatchStream,
    column: &str,
    bucket: Bucket,
) -> Result<Vec<RecordBatch>, Error> {
    let mut kept = Vec::new();
    for batch in stream {
        let batch = batch?;
        let rows = filter_record_batch(&batch, &bucket.mask(&batch, column)?)?;
        if rows.num_rows() > 0 {
            kept.push(rows);
        }
    }
    oracle::sorted(&kept, Some(column))
}

/// Where the two sides come from: each call streams them from their files afresh.
pub struct Sides<'a> {
    pub source: &'a Path,
    pub op: Op,
    pub params: &'a OpParams,
    pub actual: &'a Path,
    pub actual_schema: SchemaRef,
}

impl Sides<'_> {
    fn expected(&self) -> Result<(SchemaRef, BatchStream), Error> {
        expected_batches(self.source, self.op, self.params)
    }

    fn actual(&self) -> Result<BatchStream, Error> {
        let file = std::fs::File::open(self.actual)
            .map_err(Error::io("the worker wrote no verification output"))?;
        let reader = arrow::ipc::reader::FileReader::try_new_buffered(file, None)
            .map_err(Error::unreadable("verification output"))?;
        Ok(Box::new(reader.map(|b| b.map_err(Error::from))))
    }
}

/// Compares the sides as sets of rows ordered by `column`, in buckets of at most about
/// `bucket_bytes` of result each; the first bucket that differs fails the check.
pub fn compare_in_buckets(
    sides: &Sides<'_>,
    column: &str,
    leeway: Leeway,
    bucket_bytes: u64,
) -> Result<Verification, Error> {
    let result_bytes = std::fs::metadata(sides.actual)
        .map_err(Error::io("the worker wrote no verification output"))?
        .len();
    let count = result_bytes.div_ceil(bucket_bytes.max(1)).max(1);
    let (expected_schema, stream) = sides.expected()?;
    // Cut only by an integer column both sides hold (a projection may leave the index out;
    // then every column orders, and a missing column fails the comparison itself).
    let integer_in = |schema: &SchemaRef| {
        schema
            .field_with_name(column)
            .is_ok_and(|f| f.data_type().is_integer())
    };
    if count == 1 || !integer_in(&expected_schema) || !integer_in(&sides.actual_schema) {
        let lead = integer_in(&expected_schema).then_some(column);
        return whole(sides, lead, leeway);
    }
    let Some((min, max)) = index_bounds(stream, column)? else {
        // No index values to cut by (an empty selection): one bucket holds everything.
        return whole(sides, Some(column), leeway);
    };
    let mut checked = Verification {
        ok: true,
        reason: None,
        representation: Vec::new(),
        rows: 0,
    };
    for bucket in buckets(min, max, count) {
        let expected = bucket_rows(sides.expected()?.1, column, bucket)?;
        let actual = bucket_rows(sides.actual()?, column, bucket)?;
        let verdict = compare(
            &expected_schema,
            Box::new(expected.into_iter().map(Ok)),
            &sides.actual_schema,
            Box::new(actual.into_iter().map(Ok)),
            leeway,
        )?;
        checked.rows += verdict.rows;
        for note in verdict.representation {
            if !checked.representation.contains(&note) {
                checked.representation.push(note);
            }
        }
        if !verdict.ok {
            checked.ok = false;
            checked.reason = verdict.reason;
            return Ok(checked);
        }
    }
    Ok(checked)
}

/// Both sides sorted whole: for results without an index column to cut by.
pub fn whole(sides: &Sides<'_>, lead: Option<&str>, leeway: Leeway) -> Result<Verification, Error> {
    let (expected_schema, expected) = sides.expected()?;
    let expected: Vec<_> = expected.collect::<Result<_, _>>()?;
    let actual: Vec<_> = sides.actual()?.collect::<Result<_, _>>()?;
    compare(
        &expected_schema,
        Box::new(oracle::sorted(&expected, lead)?.into_iter().map(Ok)),
        &sides.actual_schema,
        Box::new(oracle::sorted(&actual, lead)?.into_iter().map(Ok)),
        leeway,
    )
}
