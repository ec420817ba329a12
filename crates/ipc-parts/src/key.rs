//! Index labels: the values of the index column, compared without copying the column.

use crate::error::{Result, StoreError};
use arrow::array::{Array, ArrayRef, AsArray, GenericStringArray, OffsetSizeTrait, PrimitiveArray};
use arrow::datatypes::*;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// One index label. Integer-like types (integers, dates, times, timestamps, durations) are
/// `Int` in their stored unit, except `UInt64`, which is `UInt`; floats are `Float`; strings
/// are `Str`. In the metadata file a label is a JSON number or string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Key {
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Int(v) => write!(f, "{v}"),
            Key::UInt(v) => write!(f, "{v}"),
            Key::Float(v) => write!(f, "{v}"),
            Key::Str(v) => write!(f, "{v:?}"),
        }
    }
}

impl Key {
    fn as_i128(&self) -> Option<i128> {
        match self {
            Key::Int(v) => Some(*v as i128),
            Key::UInt(v) => Some(*v as i128),
            _ => None,
        }
    }

    /// Total order of two labels of one index; `None` when their kinds differ.
    pub fn compare(&self, other: &Key) -> Option<Ordering> {
        match (self, other) {
            (Key::Float(a), Key::Float(b)) => Some(a.total_cmp(b)),
            (Key::Str(a), Key::Str(b)) => Some(a.cmp(b)),
            (a, b) => Some(a.as_i128()?.cmp(&b.as_i128()?)),
        }
    }
}

/// What kind of label an index column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyKind {
    Int,
    Float,
    Str,
}

impl KeyKind {
    /// The kind of an index of this type, or why the type cannot be an index.
    pub fn of(data_type: &DataType) -> Result<KeyKind> {
        use DataType::*;
        match data_type {
            Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Date32 | Date64
            | Time32(_) | Time64(_) | Timestamp(_, _) | Duration(_) => Ok(KeyKind::Int),
            Float32 | Float64 => Ok(KeyKind::Float),
            Utf8 | LargeUtf8 => Ok(KeyKind::Str),
            other => Err(StoreError::IndexType(format!(
                "an index cannot have type {other} (integers, floats, strings, dates, times, timestamps and durations can)"
            ))),
        }
    }

    /// Checks that `key` is a label of this kind.
    pub fn admits(self, key: &Key) -> Result<()> {
        let ok = matches!(
            (self, key),
            (KeyKind::Int, Key::Int(_) | Key::UInt(_))
                | (KeyKind::Float, Key::Float(_))
                | (KeyKind::Str, Key::Str(_))
        );
        if ok {
            Ok(())
        } else {
            Err(StoreError::IndexType(format!(
                "label {key} does not match the index type ({self:?})"
            )))
        }
    }
}

/// Read access to an index column's labels without copying it.
pub trait Keys {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn key(&self, i: usize) -> Key;
    /// The order of label `i` relative to `key` (of this index's kind).
    fn cmp_at(&self, i: usize, key: &Key) -> Ordering;
    fn is_null(&self, i: usize) -> bool;
    /// The order of labels `i` and `j`.
    fn cmp_rows(&self, i: usize, j: usize) -> Ordering;
}

/// The first position whose label is not below `key` (the column is sorted).
pub fn lower_bound(keys: &dyn Keys, key: &Key) -> usize {
    partition_point(keys.len(), |i| keys.cmp_at(i, key) == Ordering::Less)
}

/// The first position whose label is above `key`.
pub fn upper_bound(keys: &dyn Keys, key: &Key) -> usize {
    partition_point(keys.len(), |i| keys.cmp_at(i, key) != Ordering::Greater)
}

/// The first `i` in `0..n` for which `pred` is false (pred is true then false).
pub(crate) fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

struct Ints<'a, T: ArrowPrimitiveType>(&'a PrimitiveArray<T>);

impl<T: ArrowPrimitiveType> Keys for Ints<'_, T>
where
    T::Native: Into<i128>,
{
    fn len(&self) -> usize {
        self.0.len()
    }
    fn key(&self, i: usize) -> Key {
        let v: i128 = self.0.value(i).into();
        match i64::try_from(v) {
            Ok(v) => Key::Int(v),
            Err(_) => Key::UInt(v as u64),
        }
    }
    fn cmp_at(&self, i: usize, key: &Key) -> Ordering {
        let v: i128 = self.0.value(i).into();
        match key.as_i128() {
            Some(k) => v.cmp(&k),
            None => Ordering::Less,
        }
    }
    fn is_null(&self, i: usize) -> bool {
        self.0.is_null(i)
    }
    fn cmp_rows(&self, i: usize, j: usize) -> Ordering {
        let (a, b): (i128, i128) = (self.0.value(i).into(), self.0.value(j).into());
        a.cmp(&b)
    }
}

struct Floats<'a, T: ArrowPrimitiveType>(&'a PrimitiveArray<T>);

impl<T: ArrowPrimitiveType> Keys for Floats<'_, T>
where
    T::Native: Into<f64>,
{
    fn len(&self) -> usize {
        self.0.len()
    }
    fn key(&self, i: usize) -> Key {
        Key::Float(self.0.value(i).into())
    }
    fn cmp_at(&self, i: usize, key: &Key) -> Ordering {
        let v: f64 = self.0.value(i).into();
        match key {
            Key::Float(k) => v.total_cmp(k),
            _ => Ordering::Less,
        }
    }
    fn is_null(&self, i: usize) -> bool {
        self.0.is_null(i) || Into::<f64>::into(self.0.value(i)).is_nan()
    }
    fn cmp_rows(&self, i: usize, j: usize) -> Ordering {
        let (a, b): (f64, f64) = (self.0.value(i).into(), self.0.value(j).into());
        a.total_cmp(&b)
    }
}

struct Strings<'a, O: OffsetSizeTrait>(&'a GenericStringArray<O>);

impl<O: OffsetSizeTrait> Keys for Strings<'_, O> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn key(&self, i: usize) -> Key {
        Key::Str(self.0.value(i).to_string())
    }
    fn cmp_at(&self, i: usize, key: &Key) -> Ordering {
        match key {
            Key::Str(k) => self.0.value(i).cmp(k.as_str()),
            _ => Ordering::Less,
        }
    }
    fn is_null(&self, i: usize) -> bool {
        self.0.is_null(i)
    }
    fn cmp_rows(&self, i: usize, j: usize) -> Ordering {
        self.0.value(i).cmp(self.0.value(j))
    }
}

/// The labels of an index column.
pub fn keys(array: &ArrayRef) -> Result<Box<dyn Keys + '_>> {
    use DataType::*;
    macro_rules! ints {
        ($t:ty) => {
            Box::new(Ints(array.as_primitive::<$t>()))
        };
    }
    Ok(match array.data_type() {
        Int8 => ints!(Int8Type),
        Int16 => ints!(Int16Type),
        Int32 => ints!(Int32Type),
        Int64 => ints!(Int64Type),
        UInt8 => ints!(UInt8Type),
        UInt16 => ints!(UInt16Type),
        UInt32 => ints!(UInt32Type),
        UInt64 => ints!(UInt64Type),
        Date32 => ints!(Date32Type),
        Date64 => ints!(Date64Type),
        Time32(TimeUnit::Second) => ints!(Time32SecondType),
        Time32(_) => ints!(Time32MillisecondType),
        Time64(TimeUnit::Microsecond) => ints!(Time64MicrosecondType),
        Time64(_) => ints!(Time64NanosecondType),
        Timestamp(TimeUnit::Second, _) => ints!(TimestampSecondType),
        Timestamp(TimeUnit::Millisecond, _) => ints!(TimestampMillisecondType),
        Timestamp(TimeUnit::Microsecond, _) => ints!(TimestampMicrosecondType),
        Timestamp(TimeUnit::Nanosecond, _) => ints!(TimestampNanosecondType),
        Duration(TimeUnit::Second) => ints!(DurationSecondType),
        Duration(TimeUnit::Millisecond) => ints!(DurationMillisecondType),
        Duration(TimeUnit::Microsecond) => ints!(DurationMicrosecondType),
        Duration(TimeUnit::Nanosecond) => ints!(DurationNanosecondType),
        Float32 => Box::new(Floats(array.as_primitive::<Float32Type>())),
        Float64 => Box::new(Floats(array.as_primitive::<Float64Type>())),
        Utf8 => Box::new(Strings(array.as_string::<i32>())),
        LargeUtf8 => Box::new(Strings(array.as_string::<i64>())),
        other => KeyKind::of(other).and_then(|_| {
            Err(StoreError::IndexType(format!(
                "an index cannot have type {other}"
            )))
        })?,
    })
}

/// Checks that the labels are non-null and strictly increasing (sorted and unique), and
/// strictly above `after` when given. Returns the first offending position's reason.
pub fn check_increasing(keys: &dyn Keys, after: Option<&Key>) -> Result<(), String> {
    for i in 0..keys.len() {
        if keys.is_null(i) {
            return Err(format!("the index holds a null (row {i})"));
        }
        let order = match (i, after) {
            (0, None) => continue,
            (0, Some(prev)) => keys.cmp_at(0, prev),
            _ => keys.cmp_rows(i, i - 1),
        };
        match order {
            Ordering::Greater => {}
            Ordering::Equal => return Err(format!("duplicate index value {}", keys.key(i))),
            Ordering::Less => return Err(format!("unsorted at index value {}", keys.key(i))),
        }
    }
    Ok(())
}
