//! The variants that change a type: each node of a column's tree (children first) becomes the
//! same values in another representation, by the verifier's table of representation
//! differences (docs/protocol.md).

use super::dictionary;
use super::kind::Variant;
use super::nested::map_batch;
use arrow::array::{make_array, Array, ArrayData, AsArray, RecordBatch};
use arrow::compute::cast;
use arrow::datatypes::{DataType, FieldRef, Int64Type, TimeUnit};
use arrow::error::ArrowError;
use std::sync::Arc;

/// `batch` in the representation `variant` names, at every depth. Variants that change no
/// type (junk under nulls, batch splits) are done elsewhere and leave it as it is.
pub fn encoded(batch: &RecordBatch, variant: Variant) -> Result<RecordBatch, ArrowError> {
    // Which spelling of UTC comes next: the zone-name variant alternates them.
    let mut zones = 0usize;
    // The dictionary variant re-encodes a dictionary whole: its values are not walked into
    // (they would become a dictionary inside a dictionary).
    let dictionaries = variant != Variant::Dictionary;
    map_batch(batch, dictionaries, &mut |data, depth| match variant {
        Variant::LargeOffsets => large_offsets(data),
        Variant::Views => views(data),
        Variant::Dictionary => dictionary::encoded(data),
        Variant::ListItemName => renamed_item(data, depth),
        Variant::ZoneName => respelled_zone(data, &mut zones),
        Variant::FinerUnit => finer_unit(data),
        Variant::GarbageUnderNulls | Variant::OneRowBatches => Ok(data),
    })
}

/// `data` cast to `to` (a cast between representations of the same values: offsets widened,
/// views built, list kinds changed).
fn cast_to(data: ArrayData, to: DataType) -> Result<ArrayData, ArrowError> {
    Ok(cast(&make_array(data), &to)?.to_data())
}

/// Utf8 → LargeUtf8, Binary → LargeBinary, List → LargeList (64-bit offsets).
fn large_offsets(data: ArrayData) -> Result<ArrayData, ArrowError> {
    use DataType as T;
    let to = match data.data_type() {
        T::Utf8 => T::LargeUtf8,
        T::Binary => T::LargeBinary,
        T::List(item) => T::LargeList(item.clone()),
        _ => return Ok(data),
    };
    cast_to(data, to)
}

/// Strings and binaries as views, lists as list views (offsets and sizes).
fn views(data: ArrayData) -> Result<ArrayData, ArrowError> {
    use DataType as T;
    let to = match data.data_type() {
        T::Utf8 | T::LargeUtf8 => T::Utf8View,
        T::Binary | T::LargeBinary => T::BinaryView,
        T::List(item) => T::ListView(item.clone()),
        T::LargeList(item) => T::LargeListView(item.clone()),
        _ => return Ok(data),
    };
    cast_to(data, to)
}

/// A list's item field under another name: `element` (Parquet's, pyarrow's) for columns and
/// `l` (Polars' older writer) below them, or the other one where the item already has it.
fn renamed_item(data: ArrayData, depth: usize) -> Result<ArrayData, ArrowError> {
    use DataType as T;
    let rename = |item: &FieldRef| {
        let preferred = if depth == 0 { "element" } else { "l" };
        let other = if depth == 0 { "l" } else { "element" };
        let name = if item.name() == preferred {
            other
        } else {
            preferred
        };
        Arc::new(item.as_ref().clone().with_name(name))
    };
    let renamed = match data.data_type() {
        T::List(item) => T::List(rename(item)),
        T::LargeList(item) => T::LargeList(rename(item)),
        T::ListView(item) => T::ListView(rename(item)),
        T::LargeListView(item) => T::LargeListView(rename(item)),
        T::FixedSizeList(item, n) => T::FixedSizeList(rename(item), *n),
        _ => return Ok(data),
    };
    data.into_builder().data_type(renamed).build()
}

/// The spellings of UTC this variant writes, in turn.
const UTC_SPELLINGS: [&str; 2] = ["Etc/UTC", "+00:00"];

/// Whether a zone names UTC (the spellings the verifier's digest takes as one zone).
fn is_utc(zone: &str) -> bool {
    matches!(
        zone,
        "UTC" | "utc" | "Etc/UTC" | "Etc/UCT" | "UCT" | "Z" | "GMT" | "Etc/GMT" | "+00:00"
    )
}

/// A UTC timestamp's zone spelled another way: `Etc/UTC` and `+00:00` alternately, each
/// different from the spelling it had.
fn respelled_zone(data: ArrayData, turn: &mut usize) -> Result<ArrayData, ArrowError> {
    let DataType::Timestamp(unit, Some(zone)) = data.data_type() else {
        return Ok(data);
    };
    if !is_utc(zone) {
        return Ok(data);
    }
    let mut spelling = UTC_SPELLINGS[*turn % UTC_SPELLINGS.len()];
    *turn += 1;
    if spelling == zone.as_ref() {
        spelling = UTC_SPELLINGS[*turn % UTC_SPELLINGS.len()];
    }
    let respelled = DataType::Timestamp(*unit, Some(spelling.into()));
    data.into_builder().data_type(respelled).build()
}

/// Milliseconds in a day: a Date64 at midnight of a Date32's day.
const MS_PER_DAY: i64 = 86_400_000;

/// Timestamps in the next finer unit, every value multiplied exactly (nanoseconds have none
/// finer); Date32 as the Date64 of its midnight. A column whose values would overflow the
/// finer unit stays as it was: this backend answers right, always.
fn finer_unit(data: ArrayData) -> Result<ArrayData, ArrowError> {
    use DataType as T;
    use TimeUnit as U;
    let (to, factor) = match data.data_type() {
        T::Timestamp(U::Second, zone) => (T::Timestamp(U::Millisecond, zone.clone()), 1_000),
        T::Timestamp(U::Millisecond, zone) => (T::Timestamp(U::Microsecond, zone.clone()), 1_000),
        T::Timestamp(U::Microsecond, zone) => (T::Timestamp(U::Nanosecond, zone.clone()), 1_000),
        T::Date32 => (T::Date64, MS_PER_DAY),
        _ => return Ok(data),
    };
    // Timestamps are i64 of their unit already; a Date32's days are widened first.
    let integers = cast(&make_array(data.clone()), &T::Int64)?;
    let scaled = integers
        .as_primitive::<Int64Type>()
        .try_unary::<_, Int64Type, _>(|v| v.checked_mul(factor).ok_or(()));
    match scaled {
        Ok(values) => values.to_data().into_builder().data_type(to).build(),
        Err(()) => Ok(data),
    }
}
