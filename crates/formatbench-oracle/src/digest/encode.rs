//! The bytes the digest hashes for each value: a tag (0 null, 1 a value) and then the value in
//! a canonical form of its logical type, recursing into nested values.

use crate::Error;
use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{
    DataType, Date32Type, Date64Type, Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type,
    DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType,
    Field, Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    IntervalDayTimeType, IntervalMonthDayNanoType, IntervalUnit, IntervalYearMonthType,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use std::ops::Range;
use std::sync::Arc;

const NULL: u8 = 0;
const VALUE: u8 = 1;

/// Types the digest has no canonical form for (unions, run-end encoding): named, so the sample
/// fails with the reason instead of passing on a guess.
pub fn check_supported(data_type: &DataType) -> Result<(), String> {
    use DataType as T;
    match data_type {
        T::Union(..) | T::RunEndEncoded(..) => Err(format!("type {data_type} has no digest")),
        T::List(item)
        | T::LargeList(item)
        | T::ListView(item)
        | T::LargeListView(item)
        | T::FixedSizeList(item, _)
        | T::Map(item, _) => check_supported(item.data_type()),
        T::Struct(fields) => fields
            .iter()
            .try_for_each(|f| check_supported(f.data_type())),
        T::Dictionary(_, values) => check_supported(values),
        _ => Ok(()),
    }
}

/// The column with every dictionary, at any depth, replaced by its values: a dictionary's
/// keys are a representation, what they point to is the value.
pub fn without_dictionaries(column: &ArrayRef) -> Result<ArrayRef, Error> {
    let plain = plain_type(column.data_type());
    if &plain == column.data_type() {
        return Ok(Arc::clone(column));
    }
    Ok(arrow::compute::cast(column, &plain)?)
}

fn plain_type(data_type: &DataType) -> DataType {
    use DataType as T;
    let field =
        |f: &Arc<Field>| Arc::new(f.as_ref().clone().with_data_type(plain_type(f.data_type())));
    match data_type {
        T::Dictionary(_, values) => plain_type(values),
        T::List(item) => T::List(field(item)),
        T::LargeList(item) => T::LargeList(field(item)),
        T::ListView(item) => T::ListView(field(item)),
        T::LargeListView(item) => T::LargeListView(field(item)),
        T::FixedSizeList(item, n) => T::FixedSizeList(field(item), *n),
        T::Struct(fields) => T::Struct(fields.iter().map(field).collect()),
        T::Map(entries, sorted) => T::Map(field(entries), *sorted),
        other => other.clone(),
    }
}

macro_rules! each {
    ($array:expr, $rows:expr, $out:expr, |$a:ident, $row:ident| $bytes:expr) => {{
        let $a = $array;
        for $row in $rows {
            if $a.is_null($row) {
                $out.push(NULL);
            } else {
                $out.push(VALUE);
                $out.extend_from_slice(&$bytes);
            }
        }
    }};
}

/// Integers of every width and sign as 16-byte integers, one encoding of a value; the width
/// is in the column's type name.
macro_rules! integer {
    ($array:expr, $t:ty, $rows:expr, $out:expr) => {
        each!($array.as_primitive::<$t>(), $rows, $out, |a, row| {
            i128::from(a.value(row)).to_le_bytes()
        })
    };
}

/// Values of a temporal or decimal type as 8-byte integers of their unit.
macro_rules! signed {
    ($array:expr, $t:ty, $rows:expr, $out:expr) => {
        each!($array.as_primitive::<$t>(), $rows, $out, |a, row| {
            i64::from(a.value(row)).to_le_bytes()
        })
    };
}

/// Appends the encoding of `rows` of `array` to `out`.
pub fn values(array: &dyn Array, rows: Range<usize>, out: &mut Vec<u8>) -> Result<(), Error> {
    use DataType as T;
    match array.data_type() {
        T::Null => out.extend(rows.map(|_| NULL)),
        T::Boolean => each!(array.as_boolean(), rows, out, |a, row| [u8::from(
            a.value(row)
        )]),
        T::Int8 => integer!(array, Int8Type, rows, out),
        T::Int16 => integer!(array, Int16Type, rows, out),
        T::Int32 => integer!(array, Int32Type, rows, out),
        T::Int64 => integer!(array, Int64Type, rows, out),
        T::UInt8 => integer!(array, UInt8Type, rows, out),
        T::UInt16 => integer!(array, UInt16Type, rows, out),
        T::UInt32 => integer!(array, UInt32Type, rows, out),
        T::UInt64 => integer!(array, UInt64Type, rows, out),
        // Floats by their bits, at their own width: −0.0, NaN payloads and signalling NaNs are
        // values a reader must give back.
        T::Float16 => each!(array.as_primitive::<Float16Type>(), rows, out, |a, row| a
            .value(row)
            .to_bits()
            .to_le_bytes()),
        T::Float32 => each!(array.as_primitive::<Float32Type>(), rows, out, |a, row| a
            .value(row)
            .to_bits()
            .to_le_bytes()),
        T::Float64 => each!(array.as_primitive::<Float64Type>(), rows, out, |a, row| a
            .value(row)
            .to_bits()
            .to_le_bytes()),
        T::Decimal32(..) => signed!(array, Decimal32Type, rows, out),
        T::Decimal64(..) => signed!(array, Decimal64Type, rows, out),
        T::Decimal128(..) => each!(
            array.as_primitive::<Decimal128Type>(),
            rows,
            out,
            |a, row| a.value(row).to_le_bytes()
        ),
        T::Decimal256(..) => each!(
            array.as_primitive::<Decimal256Type>(),
            rows,
            out,
            |a, row| a.value(row).to_le_bytes()
        ),
        T::Date32 => signed!(array, Date32Type, rows, out),
        T::Date64 => signed!(array, Date64Type, rows, out),
        T::Time32(TimeUnit::Second) => signed!(array, Time32SecondType, rows, out),
        T::Time32(_) => signed!(array, Time32MillisecondType, rows, out),
        T::Time64(TimeUnit::Microsecond) => signed!(array, Time64MicrosecondType, rows, out),
        T::Time64(_) => signed!(array, Time64NanosecondType, rows, out),
        T::Timestamp(TimeUnit::Second, _) => signed!(array, TimestampSecondType, rows, out),
        T::Timestamp(TimeUnit::Millisecond, _) => {
            signed!(array, TimestampMillisecondType, rows, out)
        }
        T::Timestamp(TimeUnit::Microsecond, _) => {
            signed!(array, TimestampMicrosecondType, rows, out)
        }
        T::Timestamp(TimeUnit::Nanosecond, _) => {
            signed!(array, TimestampNanosecondType, rows, out)
        }
        T::Duration(TimeUnit::Second) => signed!(array, DurationSecondType, rows, out),
        T::Duration(TimeUnit::Millisecond) => signed!(array, DurationMillisecondType, rows, out),
        T::Duration(TimeUnit::Microsecond) => signed!(array, DurationMicrosecondType, rows, out),
        T::Duration(TimeUnit::Nanosecond) => signed!(array, DurationNanosecondType, rows, out),
        T::Interval(IntervalUnit::YearMonth) => signed!(array, IntervalYearMonthType, rows, out),
        T::Interval(IntervalUnit::DayTime) => {
            each!(
                array.as_primitive::<IntervalDayTimeType>(),
                rows,
                out,
                |a, row| {
                    let v = a.value(row);
                    concat(&v.days.to_le_bytes(), &v.milliseconds.to_le_bytes())
                }
            )
        }
        T::Interval(IntervalUnit::MonthDayNano) => {
            each!(
                array.as_primitive::<IntervalMonthDayNanoType>(),
                rows,
                out,
                |a, row| {
                    let v = a.value(row);
                    let mut bytes = [0u8; 16];
                    bytes[..4].copy_from_slice(&v.months.to_le_bytes());
                    bytes[4..8].copy_from_slice(&v.days.to_le_bytes());
                    bytes[8..].copy_from_slice(&v.nanoseconds.to_le_bytes());
                    bytes
                }
            )
        }
        T::Utf8 => bytes(array.as_string::<i32>(), rows, out, |a, r| {
            a.value(r).as_bytes()
        }),
        T::LargeUtf8 => bytes(array.as_string::<i64>(), rows, out, |a, r| {
            a.value(r).as_bytes()
        }),
        T::Utf8View => bytes(array.as_string_view(), rows, out, |a, r| {
            a.value(r).as_bytes()
        }),
        T::Binary => bytes(array.as_binary::<i32>(), rows, out, |a, r| a.value(r)),
        T::LargeBinary => bytes(array.as_binary::<i64>(), rows, out, |a, r| a.value(r)),
        T::BinaryView => bytes(array.as_binary_view(), rows, out, |a, r| a.value(r)),
        T::FixedSizeBinary(_) => bytes(array.as_fixed_size_binary(), rows, out, |a, r| a.value(r)),
        T::List(_) => {
            let a = array.as_list::<i32>();
            let offsets = a.value_offsets();
            lists(a, rows, out, |r| {
                (offsets[r] as usize, offsets[r + 1] as usize)
            })?;
        }
        T::LargeList(_) => {
            let a = array.as_list::<i64>();
            let offsets = a.value_offsets();
            lists(a, rows, out, |r| {
                (offsets[r] as usize, offsets[r + 1] as usize)
            })?;
        }
        T::ListView(_) => {
            let a = array.as_list_view::<i32>();
            let (offsets, sizes) = (a.value_offsets(), a.value_sizes());
            lists(a, rows, out, |r| {
                (offsets[r] as usize, (offsets[r] + sizes[r]) as usize)
            })?;
        }
        T::LargeListView(_) => {
            let a = array.as_list_view::<i64>();
            let (offsets, sizes) = (a.value_offsets(), a.value_sizes());
            lists(a, rows, out, |r| {
                (offsets[r] as usize, (offsets[r] + sizes[r]) as usize)
            })?;
        }
        T::FixedSizeList(..) => {
            let a = array.as_fixed_size_list();
            let n = a.value_length() as usize;
            lists(a, rows, out, |r| {
                let start = a.value_offset_at(r);
                (start, start + n)
            })?;
        }
        T::Map(..) => {
            let a = array.as_map();
            let offsets = a.value_offsets();
            for row in rows {
                if a.is_null(row) {
                    out.push(NULL);
                    continue;
                }
                let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
                out.push(VALUE);
                out.extend_from_slice(&((end - start) as u64).to_le_bytes());
                for entry in start..end {
                    values(a.keys().as_ref(), entry..entry + 1, out)?;
                    values(a.values().as_ref(), entry..entry + 1, out)?;
                }
            }
        }
        T::Struct(_) => {
            let a = array.as_struct();
            for row in rows {
                if a.is_null(row) {
                    out.push(NULL);
                    continue;
                }
                out.push(VALUE);
                for child in a.columns() {
                    values(child.as_ref(), row..row + 1, out)?;
                }
            }
        }
        other => {
            return Err(Error::Input(format!(
                "the result digest has no form for type {other}"
            )))
        }
    }
    Ok(())
}

fn concat(a: &[u8; 4], b: &[u8; 4]) -> [u8; 8] {
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(a);
    bytes[4..].copy_from_slice(b);
    bytes
}

/// Strings and binaries: their length, then their bytes.
fn bytes<A: Array>(
    array: &A,
    rows: Range<usize>,
    out: &mut Vec<u8>,
    value: impl Fn(&A, usize) -> &[u8],
) {
    for row in rows {
        if array.is_null(row) {
            out.push(NULL);
        } else {
            let value = value(array, row);
            out.push(VALUE);
            out.extend_from_slice(&(value.len() as u64).to_le_bytes());
            out.extend_from_slice(value);
        }
    }
}

/// Lists of every kind: their length, then each item as a value of its own (a null item is
/// not an empty list, nor an absent one).
fn lists<A: ListLike>(
    array: &A,
    rows: Range<usize>,
    out: &mut Vec<u8>,
    bounds: impl Fn(usize) -> (usize, usize),
) -> Result<(), Error> {
    for row in rows {
        if array.is_null(row) {
            out.push(NULL);
            continue;
        }
        let (start, end) = bounds(row);
        out.push(VALUE);
        out.extend_from_slice(&(end.saturating_sub(start) as u64).to_le_bytes());
        values(array.items().as_ref(), start..end, out)?;
    }
    Ok(())
}

/// What a list of any kind holds its items in.
trait ListLike: Array {
    fn items(&self) -> &ArrayRef;
}

impl<O: arrow::array::OffsetSizeTrait> ListLike for arrow::array::GenericListArray<O> {
    fn items(&self) -> &ArrayRef {
        self.values()
    }
}

impl<O: arrow::array::OffsetSizeTrait> ListLike for arrow::array::GenericListViewArray<O> {
    fn items(&self) -> &ArrayRef {
        self.values()
    }
}

impl ListLike for arrow::array::FixedSizeListArray {
    fn items(&self) -> &ArrayRef {
        self.values()
    }
}
