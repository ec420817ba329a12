//! The label reads (FeatherStore's `range_before`, `range_after`, `range_between`, `labels`):
//! their labels looked up in the source before the timer.

use crate::backend::LabelRead;
use crate::{source, KitError};
use arrow::array::{AsArray, Int64Array};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Int64Type};
use formatbench_protocol::{Job, Op, RangeSpec};

/// A label read with its labels owned.
pub(super) enum LabelReadOwned {
    Before(i64),
    After(i64),
    Between(i64, i64),
    Labels(Int64Array),
}

impl LabelReadOwned {
    pub(super) fn borrowed(&self) -> LabelRead<'_> {
        match self {
            LabelReadOwned::Before(x) => LabelRead::Before(*x),
            LabelReadOwned::After(x) => LabelRead::After(*x),
            LabelReadOwned::Between(a, b) => LabelRead::Between(*a, *b),
            LabelReadOwned::Labels(labels) => LabelRead::Labels(labels),
        }
    }
}

pub(super) fn needs(job: &Job, what: &str) -> KitError {
    KitError::Invalid(format!("'{}' needs {what}", job.op))
}

pub(super) fn index_column(job: &Job) -> Result<&str, KitError> {
    job.params
        .options
        .get("index")
        .map(String::as_str)
        .ok_or_else(|| needs(job, "an index column"))
}

/// The label read a job asks for; `None` for every other operation. `[start, end)` of
/// integer labels becomes FeatherStore's inclusive bounds.
pub(super) fn label_read(job: &Job) -> Result<Option<LabelReadOwned>, KitError> {
    let range = || {
        job.params
            .range
            .as_ref()
            .ok_or_else(|| needs(job, "a range"))
    };
    let by_value = || match range()? {
        RangeSpec::Index { start, end, .. } => Ok((*start, end.saturating_sub(1))),
        RangeSpec::Position { .. } => Err(needs(job, "a range of index values")),
    };
    Ok(Some(match job.op {
        Op::RangeBefore => LabelReadOwned::Before(by_value()?.1),
        Op::RangeAfter => LabelReadOwned::After(by_value()?.0),
        Op::RangeBetween => {
            let (a, b) = by_value()?;
            LabelReadOwned::Between(a, b)
        }
        Op::Labels => match range()? {
            RangeSpec::Position { start, end } => {
                LabelReadOwned::Labels(source_labels(job, index_column(job)?, *start, *end)?)
            }
            RangeSpec::Index { .. } => return Err(needs(job, "a range of positions")),
        },
        _ => return Ok(None),
    }))
}

/// The index labels of source rows `[start, end)`.
fn source_labels(job: &Job, column: &str, start: u64, end: u64) -> Result<Int64Array, KitError> {
    let mut out = Vec::with_capacity(end.saturating_sub(start) as usize);
    let mut offset = 0u64;
    for batch in source::open(&job.source)? {
        let batch = batch?;
        let n = batch.num_rows() as u64;
        let (lo, hi) = (start.max(offset), end.min(offset + n));
        if lo < hi {
            let values = batch
                .column_by_name(column)
                .ok_or_else(|| KitError::Invalid(format!("no index column '{column}'")))?;
            let values = cast(
                &values.slice((lo - offset) as usize, (hi - lo) as usize),
                &DataType::Int64,
            )?;
            out.extend(values.as_primitive::<Int64Type>().values().iter().copied());
        }
        offset += n;
    }
    Ok(Int64Array::from(out))
}
