//! Mutations of one value: the first value (columns in order, then rows) that a mutation can
//! change is changed, and nothing else, so each check is tested on the smallest wrong answer.
//! Each returns `None` when the result holds no such value (no null, no empty string, no zone,
//! …), so the worker can say so instead of answering right by accident.

use arrow::array::{
    make_array, Array, ArrayRef, ArrowPrimitiveType, AsArray, Date64Array, DictionaryArray,
    GenericListArray, GenericStringArray, OffsetSizeTrait, PrimitiveArray, RecordBatch,
    StructArray,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{
    ArrowDictionaryKeyType, ArrowNativeType, DataType, Date32Type, Date64Type, Float32Type,
    Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, Schema, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow::error::ArrowError;
use std::sync::Arc;

/// A changed column, or `None` when this column holds nothing the mutation changes.
type Column = Result<Option<ArrayRef>, ArrowError>;

/// `batch` with its first column that `mutate` changes, changed (its field takes the new
/// column's type); `None` when no column changes.
pub fn first_column(
    batch: &RecordBatch,
    mutate: fn(&ArrayRef) -> Column,
) -> Result<Option<RecordBatch>, ArrowError> {
    for (at, column) in batch.columns().iter().enumerate() {
        let Some(new) = mutate(column)? else {
            continue;
        };
        let schema = batch.schema();
        let mut fields: Vec<_> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        fields[at] = fields[at].clone().with_data_type(new.data_type().clone());
        let mut columns = batch.columns().to_vec();
        columns[at] = new;
        let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
        return Ok(Some(RecordBatch::try_new(Arc::new(schema), columns)?));
    }
    Ok(None)
}

/// The primitive column with the value at the first row that `change` changes replaced.
fn primitive<T: ArrowPrimitiveType>(
    array: &ArrayRef,
    mut change: impl FnMut(Option<T::Native>) -> Option<Option<T::Native>>,
) -> Column {
    let values = array.as_primitive::<T>();
    let Some((row, new)) = values
        .iter()
        .enumerate()
        .find_map(|(r, v)| change(v).map(|n| (r, n)))
    else {
        return Ok(None);
    };
    let out: PrimitiveArray<T> = values
        .iter()
        .enumerate()
        .map(|(r, v)| if r == row { new } else { v })
        .collect();
    // The parameters of the type (a zone, a decimal's scale) stay as they were.
    Ok(Some(Arc::new(
        out.with_data_type(array.data_type().clone()),
    )))
}

/// A float's bits changed by `change` (`None`: this value is left alone), for either width.
fn float_bits(array: &ArrayRef, change: impl Fn(u64, u32) -> Option<u64>) -> Column {
    match array.data_type() {
        DataType::Float64 => primitive::<Float64Type>(array, |v| {
            let bits = v?.to_bits();
            change(bits, 64).map(|b| Some(f64::from_bits(b)))
        }),
        DataType::Float32 => primitive::<Float32Type>(array, |v| {
            let bits = v?.to_bits();
            change(u64::from(bits), 32).map(|b| Some(f32::from_bits(b as u32)))
        }),
        _ => Ok(None),
    }
}

/// The first finite float one unit in the last place away.
pub fn float_ulp(array: &ArrayRef) -> Column {
    float_bits(array, |bits, width| {
        let exponent_all_ones = match width {
            64 => (bits >> 52) & 0x7FF == 0x7FF,
            _ => (bits >> 23) & 0xFF == 0xFF,
        };
        // The largest finite value has no next one: it steps down instead.
        let max = if width == 64 {
            0x7FEF_FFFF_FFFF_FFFF
        } else {
            0x7F7F_FFFF
        };
        match (exponent_all_ones, bits & !(1 << (width - 1)) == max) {
            (true, _) => None,
            (false, true) => Some(bits - 1),
            (false, false) => Some(bits + 1),
        }
    })
}

/// The first +0.0 as −0.0 (equal under `==`, a different value by its bits).
pub fn negative_zero(array: &ArrayRef) -> Column {
    float_bits(array, |bits, width| (bits == 0).then_some(1 << (width - 1)))
}

/// The first NaN with another payload (still a NaN).
pub fn nan_payload(array: &ArrayRef) -> Column {
    float_bits(array, |bits, width| {
        let (exponent, mantissa) = match width {
            64 => ((bits >> 52) & 0x7FF == 0x7FF, bits & ((1 << 52) - 1)),
            _ => ((bits >> 23) & 0xFF == 0xFF, bits & ((1 << 23) - 1)),
        };
        if !exponent || mantissa == 0 {
            return None;
        }
        // Flipping the lowest bit of a payload of exactly 1 would make it infinity.
        Some(if mantissa == 1 { bits ^ 2 } else { bits ^ 1 })
    })
}

/// The first null of a numeric column as zero.
pub fn null_to_zero(array: &ArrayRef) -> Column {
    fn zero<T: ArrowPrimitiveType>(array: &ArrayRef) -> Column {
        primitive::<T>(array, |v| v.is_none().then_some(Some(T::Native::default())))
    }
    use DataType as T;
    match array.data_type() {
        T::Int8 => zero::<Int8Type>(array),
        T::Int16 => zero::<Int16Type>(array),
        T::Int32 => zero::<Int32Type>(array),
        T::Int64 => zero::<Int64Type>(array),
        T::UInt8 => zero::<UInt8Type>(array),
        T::UInt16 => zero::<UInt16Type>(array),
        T::UInt32 => zero::<UInt32Type>(array),
        T::UInt64 => zero::<UInt64Type>(array),
        T::Float32 => zero::<Float32Type>(array),
        T::Float64 => zero::<Float64Type>(array),
        _ => Ok(None),
    }
}

/// A string column with the first value `change` changes replaced.
fn strings(array: &ArrayRef, change: impl Fn(Option<&str>) -> Option<Option<&str>>) -> Column {
    fn of<O: OffsetSizeTrait>(
        array: &ArrayRef,
        change: impl Fn(Option<&str>) -> Option<Option<&str>>,
    ) -> Column {
        let values = array.as_string::<O>();
        let Some(row) = values.iter().position(|v| change(v).is_some()) else {
            return Ok(None);
        };
        let out: GenericStringArray<O> = values
            .iter()
            .enumerate()
            .map(|(r, v)| if r == row { change(v).flatten() } else { v })
            .collect();
        Ok(Some(Arc::new(out)))
    }
    match array.data_type() {
        DataType::Utf8 => of::<i32>(array, change),
        DataType::LargeUtf8 => of::<i64>(array, change),
        _ => Ok(None),
    }
}

/// The first null string as an empty one.
pub fn null_to_empty_string(array: &ArrayRef) -> Column {
    strings(array, |v| v.is_none().then_some(Some("")))
}

/// The first empty string as a null.
pub fn empty_string_to_null(array: &ArrayRef) -> Column {
    strings(array, |v| (v == Some("")).then_some(None))
}

/// The first timestamp an hour later, in its own unit and zone.
pub fn timestamp_hour(array: &ArrayRef) -> Column {
    fn later<T: ArrowPrimitiveType<Native = i64>>(array: &ArrayRef, per_second: i64) -> Column {
        primitive::<T>(array, |v| v.map(|t| Some(t + 3_600 * per_second)))
    }
    match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => later::<TimestampSecondType>(array, 1),
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            later::<TimestampMillisecondType>(array, 1_000)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            later::<TimestampMicrosecondType>(array, 1_000_000)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            later::<TimestampNanosecondType>(array, 1_000_000_000)
        }
        _ => Ok(None),
    }
}

/// The first zoned timestamp column with its zone dropped: the same instants, read as local
/// times nobody can place.
pub fn timezone_dropped(array: &ArrayRef) -> Column {
    let DataType::Timestamp(unit, Some(_)) = array.data_type() else {
        return Ok(None);
    };
    let naive = DataType::Timestamp(*unit, None);
    Ok(Some(make_array(
        array.to_data().into_builder().data_type(naive).build()?,
    )))
}

/// 13 hours in milliseconds: a shift that stays within the day it starts on at midnight.
const WITHIN_DAY_MS: i64 = 13 * 3_600_000;

/// A date 13 hours off, within its day: a Date32 column comes back as Date64 (which holds
/// milliseconds) with one value at 13:00 instead of midnight. The value is the first on or
/// after 1970 where there is one: a cast back to days truncates towards zero, so only there
/// does a lossy comparison land on the right day and miss the change.
pub fn date_within_day(array: &ArrayRef) -> Column {
    match array.data_type() {
        DataType::Date64 => primitive::<Date64Type>(array, |v| v.map(|d| Some(d + WITHIN_DAY_MS))),
        DataType::Date32 => {
            let days = array.as_primitive::<Date32Type>();
            let valid = |r: &usize| days.is_valid(*r);
            let Some(row) = (0..days.len())
                .filter(valid)
                .find(|&r| days.value(r) >= 0)
                .or_else(|| (0..days.len()).find(valid))
            else {
                return Ok(None);
            };
            let out: Date64Array = days
                .iter()
                .enumerate()
                .map(|(r, d)| {
                    let ms = i64::from(d?) * 86_400_000;
                    Some(if r == row { ms + WITHIN_DAY_MS } else { ms })
                })
                .collect();
            Ok(Some(Arc::new(out)))
        }
        _ => Ok(None),
    }
}

/// The first dictionary value pointing at another entry of its dictionary.
pub fn dictionary_wrong_key(array: &ArrayRef) -> Column {
    fn of<K: ArrowDictionaryKeyType>(array: &ArrayRef) -> Column {
        let dict = array.as_dictionary::<K>();
        let (keys, values) = (dict.keys(), dict.values());
        let entry = |i: usize| values.slice(i, 1).to_data();
        for row in (0..keys.len()).filter(|&r| keys.is_valid(r)) {
            let key = keys.value(row).as_usize();
            let Some(other) = (0..values.len()).find(|&i| entry(i) != entry(key)) else {
                continue;
            };
            let Some(other) = K::Native::from_usize(other) else {
                continue;
            };
            let new_keys: PrimitiveArray<K> = keys
                .iter()
                .enumerate()
                .map(|(r, k)| if r == row { Some(other) } else { k })
                .collect();
            return Ok(Some(Arc::new(DictionaryArray::<K>::try_new(
                new_keys,
                values.clone(),
            )?)));
        }
        Ok(None)
    }
    use arrow::datatypes::DataType as T;
    let DataType::Dictionary(key, _) = array.data_type() else {
        return Ok(None);
    };
    match key.as_ref() {
        T::Int8 => of::<Int8Type>(array),
        T::Int16 => of::<Int16Type>(array),
        T::Int32 => of::<Int32Type>(array),
        T::Int64 => of::<Int64Type>(array),
        T::UInt8 => of::<UInt8Type>(array),
        T::UInt16 => of::<UInt16Type>(array),
        T::UInt32 => of::<UInt32Type>(array),
        T::UInt64 => of::<UInt64Type>(array),
        _ => Ok(None),
    }
}

/// The first null list (of no elements) as a valid empty list.
pub fn list_null_to_empty(array: &ArrayRef) -> Column {
    fn of<O: OffsetSizeTrait>(array: &ArrayRef) -> Column {
        let list = array.as_list::<O>();
        let offsets = list.offsets();
        let empty_null = |r: usize| list.is_null(r) && offsets[r] == offsets[r + 1];
        let Some(row) = (0..list.len()).find(|&r| empty_null(r)) else {
            return Ok(None);
        };
        let valid: Vec<bool> = (0..list.len())
            .map(|r| r == row || list.is_valid(r))
            .collect();
        let (DataType::List(field) | DataType::LargeList(field)) = array.data_type() else {
            return Ok(None);
        };
        Ok(Some(Arc::new(GenericListArray::<O>::try_new(
            field.clone(),
            offsets.clone(),
            list.values().clone(),
            Some(NullBuffer::from(valid)),
        )?)))
    }
    match array.data_type() {
        DataType::List(_) => of::<i32>(array),
        DataType::LargeList(_) => of::<i64>(array),
        _ => Ok(None),
    }
}

/// The first struct column with its first two fields in each other's place.
pub fn struct_fields_swapped(array: &ArrayRef) -> Column {
    let DataType::Struct(fields) = array.data_type() else {
        return Ok(None);
    };
    if fields.len() < 2 {
        return Ok(None);
    }
    let (fields, mut children, nulls) = array.as_struct().clone().into_parts();
    let mut fields: Vec<_> = fields.iter().cloned().collect();
    fields.swap(0, 1);
    children.swap(0, 1);
    Ok(Some(Arc::new(StructArray::try_new(
        fields.into(),
        children,
        nulls,
    )?)))
}
