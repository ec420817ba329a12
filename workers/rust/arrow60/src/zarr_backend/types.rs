//! How each Arrow column maps to a Zarr array: data type, node name, variable-length kinds.

use arrow::datatypes::{DataType, Field, TimeUnit};
use formatbench_worker_kit::layout::{feature_indices, ARRAY, FEATURES, WIDE};
use formatbench_worker_kit::{Context, KitError};
use std::collections::HashSet;
use std::num::NonZeroU32;
use zarrs::array::data_type::{self as zdt, NumpyTimeUnit};
use zarrs::array::DataType as ZarrType;

/// How one Arrow column is held in Zarr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Fixed-width values stored byte for byte as Arrow holds them.
    Fixed,
    /// Date32 days, widened to `numpy.datetime64[D]` (8 bytes).
    Date32,
    /// One byte per value.
    Bool,
    /// Variable length: utf8 (`string`) or binary (`bytes`); `large` for 64-bit Arrow offsets.
    Var { utf8: bool, large: bool },
    /// A fixed-size list of fixed-width numbers: a 2-D array (rows, width).
    Matrix { width: usize },
}

pub(super) struct Mapping {
    pub(super) zarr: ZarrType,
    pub(super) kind: Kind,
    /// Bytes per element (the blosc shuffle's type size; 1 for variable-length data).
    pub(super) size: usize,
}

pub(super) fn time_unit(unit: &TimeUnit) -> NumpyTimeUnit {
    match unit {
        TimeUnit::Second => NumpyTimeUnit::Second,
        TimeUnit::Millisecond => NumpyTimeUnit::Millisecond,
        TimeUnit::Microsecond => NumpyTimeUnit::Microsecond,
        TimeUnit::Nanosecond => NumpyTimeUnit::Nanosecond,
    }
}

pub(super) const MAPPED: &str =
    "integers, floats, bool, utf8, binary, timestamps, dates, durations and \
                      fixed-size lists of numbers";

/// The Zarr data type of an Arrow field, or why there is none.
pub(super) fn mapping(field: &Field) -> Result<Mapping, KitError> {
    let fixed = |zarr: ZarrType, size: usize| {
        Ok(Mapping {
            zarr,
            kind: Kind::Fixed,
            size,
        })
    };
    let var = |zarr: ZarrType, utf8: bool, large: bool| {
        Ok(Mapping {
            zarr,
            kind: Kind::Var { utf8, large },
            size: 1,
        })
    };
    let one = NonZeroU32::MIN;
    match field.data_type() {
        DataType::Int8 => fixed(zdt::int8(), 1),
        DataType::Int16 => fixed(zdt::int16(), 2),
        DataType::Int32 => fixed(zdt::int32(), 4),
        DataType::Int64 => fixed(zdt::int64(), 8),
        DataType::UInt8 => fixed(zdt::uint8(), 1),
        DataType::UInt16 => fixed(zdt::uint16(), 2),
        DataType::UInt32 => fixed(zdt::uint32(), 4),
        DataType::UInt64 => fixed(zdt::uint64(), 8),
        DataType::Float16 => fixed(zdt::float16(), 2),
        DataType::Float32 => fixed(zdt::float32(), 4),
        DataType::Float64 => fixed(zdt::float64(), 8),
        DataType::Timestamp(unit, _) => fixed(zdt::numpy_datetime64(time_unit(unit), one), 8),
        DataType::Date64 => fixed(zdt::numpy_datetime64(NumpyTimeUnit::Millisecond, one), 8),
        DataType::Duration(unit) => fixed(zdt::numpy_timedelta64(time_unit(unit), one), 8),
        DataType::Date32 => Ok(Mapping {
            zarr: zdt::numpy_datetime64(NumpyTimeUnit::Day, one),
            kind: Kind::Date32,
            size: 8,
        }),
        DataType::Boolean => Ok(Mapping {
            zarr: zdt::bool(),
            kind: Kind::Bool,
            size: 1,
        }),
        DataType::Utf8 => var(zdt::string(), true, false),
        DataType::LargeUtf8 => var(zdt::string(), true, true),
        DataType::Binary => var(zdt::bytes(), false, false),
        DataType::LargeBinary => var(zdt::bytes(), false, true),
        DataType::FixedSizeList(item, width) => match mapping(item) {
            Ok(inner) if inner.kind == Kind::Fixed && *width > 0 => Ok(Mapping {
                zarr: inner.zarr,
                kind: Kind::Matrix {
                    width: *width as usize,
                },
                size: inner.size,
            }),
            _ => Err(KitError::Unsupported(format!(
                "zarr: column '{}' is {}, whose items are not fixed-width numbers, so it has no \
                 2-D Zarr array (this backend stores {MAPPED})",
                field.name(),
                field.data_type()
            ))),
        },
        other => Err(KitError::Unsupported(format!(
            "zarr: column '{}' is {other}, which has no Zarr data type in this backend (it stores \
             {MAPPED})",
            field.name()
        ))),
    }
}

/// One column of the stored table.
pub(super) struct Column {
    /// Its position in the table.
    pub(super) index: usize,
    pub(super) name: String,
    /// The array's node path, e.g. `/features/f0`.
    pub(super) path: String,
    pub(super) map: Mapping,
}

/// A node name for a column: the column name where it is a plain, unreserved one.
pub(super) fn node_name(name: &str, index: usize, used: &mut HashSet<String>) -> String {
    let plain = !name.is_empty()
        && !name.starts_with("__")
        && !name.starts_with('.')
        && name != "zarr.json"
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let mut candidate = if plain {
        name.to_string()
    } else {
        format!("column_{index}")
    };
    while used.contains(&candidate.to_ascii_lowercase()) {
        candidate.push('_');
    }
    used.insert(candidate.to_ascii_lowercase());
    candidate
}

/// Where each column of the table goes, or the first that cannot be stored.
pub(super) fn plan(ctx: &Context) -> Result<Vec<Column>, KitError> {
    let features = if ctx.layout == WIDE {
        feature_indices(ctx.schema)
    } else {
        Vec::new()
    };
    let mut used_features = HashSet::new();
    let mut used_columns = HashSet::new();
    ctx.schema
        .fields()
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let map = mapping(field)?;
            let name = field.name().clone();
            let path = if ctx.layout == ARRAY && name == FEATURES {
                format!("/{FEATURES}")
            } else if features.contains(&index) {
                format!("/features/{}", node_name(&name, index, &mut used_features))
            } else {
                format!("/columns/{}", node_name(&name, index, &mut used_columns))
            };
            Ok(Column {
                index,
                name,
                path,
                map,
            })
        })
        .collect()
}
