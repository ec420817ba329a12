//! The one table of representation differences (docs/protocol.md, "Representation
//! differences"): the ways a result's column type may differ from the source's while holding
//! the same values, applied at every depth (inside lists, structs and dictionaries alike).
//! Each match arm of [`common_type`] is one row of that table. Both sides are then cast to the
//! common type with casts that cannot lose a value silently: a value that does not survive is a
//! mismatch, never a null and never a truncation.

use super::digest::canonical_zone;
use arrow::array::{Array, ArrayRef, AsArray};
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{DataType, Field, FieldRef, Fields, Float32Type, Float64Type, TimeUnit};
use std::sync::Arc;

/// What a backend's format allows beyond the table's value-preserving rows, as it declares.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Leeway {
    /// Relative float tolerance (text formats, and norms whose sums depend on their order).
    pub float_tolerance: Option<f64>,
    /// Integers, and float32, may come back at another width (R has only 32-bit integers and
    /// doubles, text formats have no widths); every value must still be equal. Without it a
    /// changed width is a wrong answer (a reader that widens an Int8 to an Int64 is wrong).
    pub other_widths: bool,
}

impl Leeway {
    /// Nothing beyond the table: exact values, the source's widths.
    pub const EXACT: Leeway = Leeway {
        float_tolerance: None,
        other_widths: false,
    };
}

/// The type `actual` (at `path`) is compared with `expected` in, after a note in `notes` for
/// each representation difference it holds; `Err` says why it cannot stand for `expected`.
pub fn common_type(
    path: &str,
    expected: &DataType,
    actual: &DataType,
    leeway: &Leeway,
    notes: &mut Vec<String>,
) -> Result<DataType, String> {
    use DataType as T;
    if expected == actual {
        return Ok(expected.clone());
    }
    let note = |notes: &mut Vec<String>, rule: &str| {
        notes.push(format!("{path}: {actual} (source {expected}; {rule})"))
    };
    let refused = |why: &str| Err(format!("'{path}' is {actual}, expected {expected} ({why})"));
    match (expected, actual) {
        (T::Dictionary(ek, ev), T::Dictionary(ak, av)) => {
            if ek != ak {
                note(notes, "dictionary key width");
            }
            common_type(path, ev, av, leeway, notes)
        }
        (T::Dictionary(_, values), _) => {
            note(notes, "dictionary decoded");
            common_type(path, values, actual, leeway, notes)
        }
        (_, T::Dictionary(_, values)) => {
            note(notes, "dictionary-encoded");
            common_type(path, expected, values, leeway, notes)
        }
        (T::Utf8 | T::LargeUtf8 | T::Utf8View, T::Utf8 | T::LargeUtf8 | T::Utf8View) => {
            note(notes, "string offsets or view");
            Ok(T::Utf8)
        }
        (
            T::Binary | T::LargeBinary | T::BinaryView,
            T::Binary | T::LargeBinary | T::BinaryView,
        ) => {
            note(notes, "binary offsets or view");
            Ok(T::Binary)
        }
        // Spark has no unsigned integers: it reads a uint64 as decimal(20, 0).
        (e, T::Decimal128(precision, 0)) if e.is_integer() && *precision <= 38 => {
            if !leeway.other_widths {
                return refused("an integer as a decimal, which this backend does not declare");
            }
            note(notes, "integer as a decimal of scale 0");
            Ok(T::Decimal128(38, 0))
        }
        (e, a) if e.is_integer() && a.is_integer() => {
            if !leeway.other_widths {
                return refused("another integer type, which this backend does not declare");
            }
            note(notes, "integer width");
            Ok(common_integer(e, a))
        }
        (T::Float32, T::Float64) => {
            if !leeway.other_widths && leeway.float_tolerance.is_none() {
                return refused("float32 widened, which this backend does not declare");
            }
            note(notes, "float32 as the float64 that rounds to it");
            Ok(T::Float32)
        }
        (T::Timestamp(eu, ez), T::Timestamp(au, az)) => {
            match (ez, az) {
                (None, None) => {}
                (Some(e), Some(a)) if canonical_zone(e) == canonical_zone(a) => {
                    if e != a {
                        note(notes, "zone name");
                    }
                }
                (Some(_), None) => return refused("time zone dropped"),
                (None, Some(_)) => return refused("time zone added"),
                (Some(_), Some(_)) => return refused("another time zone"),
            }
            if eu != au {
                note(notes, "finer unit");
            }
            Ok(T::Timestamp(finer(eu, au), ez.clone()))
        }
        (T::Date32 | T::Date64, T::Date32 | T::Date64) => {
            note(notes, "date in milliseconds");
            Ok(T::Date64)
        }
        (T::Date32 | T::Date64, T::Timestamp(unit, None)) => {
            note(notes, "date as a midnight timestamp");
            Ok(T::Timestamp(*unit, None))
        }
        (T::Struct(e), T::Struct(a)) => {
            let names = |f: &Fields| f.iter().map(|f| f.name().clone()).collect::<Vec<_>>();
            if names(e) != names(a) {
                return Err(format!(
                    "'{path}' has fields {:?}, expected {:?}",
                    names(a),
                    names(e)
                ));
            }
            let mut fields = Vec::with_capacity(e.len());
            for (ef, af) in e.iter().zip(a.iter()) {
                let child = format!("{path}.{}", ef.name());
                let t = common_type(&child, ef.data_type(), af.data_type(), leeway, notes)?;
                fields.push(Field::new(ef.name(), t, true));
            }
            Ok(T::Struct(fields.into()))
        }
        (e, a) => match (list_of(e), list_of(a)) {
            (Some((ei, ek)), Some((ai, ak))) => {
                let fixed = match (ek, ak) {
                    (ListKind::Fixed(n), ListKind::Fixed(m)) if n != m => {
                        return refused("another list size")
                    }
                    (ListKind::Fixed(n), ListKind::Fixed(_)) => Some(n),
                    _ => None,
                };
                if ek != ak {
                    note(notes, "list offsets, view or size");
                }
                if ei.name() != ai.name() {
                    note(notes, "list item name");
                }
                let item = format!("{path}[]");
                let t = common_type(&item, ei.data_type(), ai.data_type(), leeway, notes)?;
                let field = Arc::new(Field::new(ei.name(), t, true));
                Ok(match fixed {
                    Some(n) => T::FixedSizeList(field, n),
                    None => T::List(field),
                })
            }
            _ => refused("not a representation of the same values"),
        },
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ListKind {
    Variable,
    Large,
    View,
    LargeView,
    Fixed(i32),
}

fn list_of(data_type: &DataType) -> Option<(&FieldRef, ListKind)> {
    use DataType as T;
    match data_type {
        T::List(item) => Some((item, ListKind::Variable)),
        T::LargeList(item) => Some((item, ListKind::Large)),
        T::ListView(item) => Some((item, ListKind::View)),
        T::LargeListView(item) => Some((item, ListKind::LargeView)),
        T::FixedSizeList(item, n) => Some((item, ListKind::Fixed(*n))),
        _ => None,
    }
}

/// A type that holds every value of both integer types.
fn common_integer(a: &DataType, b: &DataType) -> DataType {
    let signed = |t: &DataType| t.is_signed_integer();
    let wide_unsigned = |t: &DataType| matches!(t, DataType::UInt64);
    match (signed(a), signed(b)) {
        (true, true) => DataType::Int64,
        (false, false) => DataType::UInt64,
        _ if wide_unsigned(a) || wide_unsigned(b) => DataType::Decimal128(20, 0),
        _ => DataType::Int64,
    }
}

fn finer(a: &TimeUnit, b: &TimeUnit) -> TimeUnit {
    let rank = |u: &TimeUnit| match u {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 1,
        TimeUnit::Microsecond => 2,
        TimeUnit::Nanosecond => 3,
    };
    if rank(b) > rank(a) {
        *b
    } else {
        *a
    }
}

/// `array` in the common type. Every cast the table calls for is exact but one (a float64
/// rounded to the float32 it stands for); run unsafely, a value the cast cannot hold (a
/// timestamp past the finer unit's range) is an error here, named as a mismatch by the caller.
pub fn to_common(array: &ArrayRef, common: &DataType) -> Result<ArrayRef, String> {
    if array.data_type() == common {
        return Ok(Arc::clone(array));
    }
    let options = CastOptions {
        safe: false,
        ..Default::default()
    };
    let cast = cast_with_options(array, common, &options).map_err(|e| e.to_string())?;
    if let (DataType::Float64, DataType::Float32) = (array.data_type(), common) {
        // A finite double past float32's range rounds to infinity: another value.
        let wide = array.as_primitive::<Float64Type>();
        let narrow = cast.as_primitive::<Float32Type>();
        if let Some(row) = (0..wide.len()).find(|&i| {
            wide.is_valid(i) && wide.value(i).is_finite() && narrow.value(i).is_infinite()
        }) {
            return Err(format!(
                "row {row}: {} is past float32's range",
                wide.value(row)
            ));
        }
    }
    Ok(cast)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#[path = "representation/tests.rs"]
mod tests;
