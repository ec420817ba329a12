//! Zarr v3 through zarrs 0.23.14: a store directory `data.zarr` per artifact holding a root
//! group and one array per column, laid out as in the layout study (§3):
//!
//! - `wide`: one 1-D float32 array per feature under `features/<name>`, chunks of
//!   min(rows, 1024);
//! - `array`: one 2-D float32 array `features` of shape (rows, D), chunks
//!   (min(rows, 1024), min(D, 1024));
//! - both: every other column as a 1-D array under `columns/<name>` (numbers as themselves,
//!   utf8 as `string` with the `vlen-utf8` codec, binary as `bytes`, timestamps, dates and
//!   durations as `numpy.datetime64` / `numpy.timedelta64`, bool as `bool`).
//!
//! The root group's attributes list the columns (name, array path, Arrow type) in table order.
//! zarrs encodes and decodes chunks on rayon's global pool, built once with the job's thread cap;
//! columns are read and written in parallel on that same pool.
//!
//! zarrs 0.23.14's plain (non-`_opt`) sync calls use `CodecOptions::default()`, not the global
//! configuration, so this backend always passes the configured options explicitly: otherwise
//! chunks equal to the fill value would still be skipped.

use arrow::array::{
    make_array, Array as _, ArrayData, ArrayRef, AsArray, BooleanArray, Date32Array,
    FixedSizeListArray, RecordBatch, RecordBatchOptions,
};
use arrow::buffer::Buffer;
use arrow::datatypes::{DataType, Date32Type, Field, TimeUnit};
use formatbench_protocol::{Op, MATRIX_OPS};
use formatbench_worker_kit::layout::{feature_indices, ARRAY, FEATURES, WIDE};
use formatbench_worker_kit::{Backend, Context, KitError, Request};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::num::NonZeroU32;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};
use zarrs::array::codec::{BloscCodec, BloscCompressionLevel, BloscCompressor, BloscShuffleMode};
use zarrs::array::data_type::{self as zdt, NumpyTimeUnit};
use zarrs::array::{
    Array, ArrayBuilder, ArrayBytes, ArrayBytesOffsets, BytesToBytesCodecTraits, CodecOptions,
    DataType as ZarrType, FillValue,
};
use zarrs::filesystem::FilesystemStore;
use zarrs::group::{Group, GroupBuilder};

pub struct Zarr;

const LIBRARY: &str = "zarrs 0.23.14";
/// The store directory inside the artifact.
const ROOT: &str = "data.zarr";
/// The root group attribute holding the table's description.
const ATTRIBUTE: &str = "formatbench";
/// Rows (and features) per chunk, at most.
const CHUNK: u64 = 1024;
const BLOSC_LEVEL: u8 = 5;

fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("zarrs: {e}"))
}

/// Sizes rayon's global pool (zarrs' codec threads) before zarrs first touches it, and turns on
/// storing chunks equal to the fill value. A worker runs one job, so the first cap holds.
fn init(threads: usize) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // An error means the pool already exists; nothing else can be done about it then.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global();
        let mut config = zarrs::config::global_config_mut();
        config.set_store_empty_chunks(true);
        config.set_codec_concurrent_target(threads.max(1));
    });
}

/// The configured options, passed to every `_opt` call (see the module comment).
fn codec_options() -> CodecOptions {
    zarrs::config::global_config().codec_options()
}

/// How one Arrow column is held in Zarr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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

struct Mapping {
    zarr: ZarrType,
    kind: Kind,
    /// Bytes per element (the blosc shuffle's type size; 1 for variable-length data).
    size: usize,
}

fn time_unit(unit: &TimeUnit) -> NumpyTimeUnit {
    match unit {
        TimeUnit::Second => NumpyTimeUnit::Second,
        TimeUnit::Millisecond => NumpyTimeUnit::Millisecond,
        TimeUnit::Microsecond => NumpyTimeUnit::Microsecond,
        TimeUnit::Nanosecond => NumpyTimeUnit::Nanosecond,
    }
}

const MAPPED: &str = "integers, floats, bool, utf8, binary, timestamps, dates, durations and \
                      fixed-size lists of numbers";

/// The Zarr data type of an Arrow field, or why there is none.
fn mapping(field: &Field) -> Result<Mapping, KitError> {
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
        DataType::Date64 => fixed(
            zdt::numpy_datetime64(NumpyTimeUnit::Millisecond, one),
            8,
        ),
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
struct Column {
    /// Its position in the table.
    index: usize,
    name: String,
    /// The array's node path, e.g. `/features/f0`.
    path: String,
    map: Mapping,
}

/// A node name for a column: the column name where it is a plain, unreserved one.
fn node_name(name: &str, index: usize, used: &mut HashSet<String>) -> String {
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
fn plan(ctx: &Context) -> Result<Vec<Column>, KitError> {
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

fn root(dir: &Path) -> PathBuf {
    dir.join(ROOT)
}

fn open_store(dir: &Path) -> Result<Arc<FilesystemStore>, KitError> {
    let root = root(dir);
    if !root.is_dir() {
        return Err(KitError::Invalid(format!(
            "no Zarr store at {}",
            root.display()
        )));
    }
    Ok(Arc::new(FilesystemStore::new(&root).map_err(library)?))
}

/// Rows per chunk along a dimension of `n`.
fn chunk(n: u64) -> u64 {
    n.clamp(1, CHUNK)
}

fn compressor(profile: &str, size: usize) -> Result<Arc<dyn BytesToBytesCodecTraits>, KitError> {
    let cname = match profile {
        "compact" => BloscCompressor::Zstd,
        _ => BloscCompressor::LZ4,
    };
    let level = BloscCompressionLevel::try_from(BLOSC_LEVEL)
        .map_err(|l| KitError::Invalid(format!("blosc has no level {l}")))?;
    let codec = BloscCodec::new(
        cname,
        level,
        None,
        BloscShuffleMode::Shuffle,
        Some(size.max(1)),
    )
    .map_err(library)?;
    Ok(Arc::new(codec))
}

/// The values buffer of a fixed-width array, `first..first + count` elements of `size` bytes.
fn values_buffer(
    array: &dyn arrow::array::Array,
    size: usize,
    first: usize,
    count: usize,
) -> Result<Buffer, KitError> {
    let data = array.to_data();
    let buffer = data
        .buffers()
        .first()
        .ok_or_else(|| KitError::Invalid(format!("a {} array without values", data.data_type())))?;
    let start = (data.offset() + first) * size;
    let len = count * size;
    if start + len > buffer.len() {
        return Err(KitError::Invalid(format!(
            "a {} array shorter than its length",
            data.data_type()
        )));
    }
    Ok(buffer.slice_with_length(start, len))
}

/// One buffer borrowed as is, several concatenated.
fn joined(buffers: &[Buffer]) -> Cow<'_, [u8]> {
    match buffers {
        [one] => Cow::Borrowed(one.as_slice()),
        many => {
            let mut out = Vec::with_capacity(many.iter().map(Buffer::len).sum());
            for buffer in many {
                out.extend_from_slice(buffer.as_slice());
            }
            Cow::Owned(out)
        }
    }
}

/// Appends the values of a variable-length column (any offset width) to `bytes`/`offsets`.
fn append_var(column: &ArrayRef, kind: Kind, bytes: &mut Vec<u8>, offsets: &mut Vec<usize>) {
    fn append<O: Copy + TryInto<usize>>(
        value_offsets: &[O],
        values: &[u8],
        bytes: &mut Vec<u8>,
        offsets: &mut Vec<usize>,
    ) {
        let at = |o: O| o.try_into().unwrap_or(0);
        let first = value_offsets.first().copied().map_or(0, at);
        let last = value_offsets.last().copied().map_or(0, at);
        let base = bytes.len();
        bytes.extend_from_slice(&values[first..last]);
        offsets.extend(
            value_offsets
                .iter()
                .skip(1)
                .map(|o| base + (at(*o) - first)),
        );
    }
    match kind {
        Kind::Var {
            utf8: true,
            large: false,
        } => {
            let a = column.as_string::<i32>();
            append(a.value_offsets(), a.values().as_slice(), bytes, offsets);
        }
        Kind::Var {
            utf8: true,
            large: true,
        } => {
            let a = column.as_string::<i64>();
            append(a.value_offsets(), a.values().as_slice(), bytes, offsets);
        }
        Kind::Var {
            utf8: false,
            large: false,
        } => {
            let a = column.as_binary::<i32>();
            append(a.value_offsets(), a.values().as_slice(), bytes, offsets);
        }
        Kind::Var {
            utf8: false,
            large: true,
        } => {
            let a = column.as_binary::<i64>();
            append(a.value_offsets(), a.values().as_slice(), bytes, offsets);
        }
        _ => {}
    }
}

fn store_all(
    array: &Array<FilesystemStore>,
    subset: &Vec<Range<u64>>,
    bytes: ArrayBytes<'_>,
    options: &CodecOptions,
) -> Result<(), KitError> {
    array
        .store_array_subset_opt(subset, bytes, options)
        .map_err(library)
}

/// Writes one column: its array's metadata, then every chunk in one call.
fn write_column(
    ctx: &Context,
    store: &Arc<FilesystemStore>,
    column: &Column,
    batches: &[RecordBatch],
    rows: u64,
    options: &CodecOptions,
) -> Result<(), KitError> {
    let arrays: Vec<&ArrayRef> = batches.iter().map(|b| b.column(column.index)).collect();
    let kind = column.map.kind;
    let (shape, chunks, dimensions) = match kind {
        Kind::Matrix { width } => {
            let width = width as u64;
            (
                vec![rows, width],
                vec![chunk(rows), chunk(width)],
                vec!["row", "feature"],
            )
        }
        _ => (vec![rows], vec![chunk(rows)], vec!["row"]),
    };
    let fill = match kind {
        Kind::Var { .. } => FillValue::new(Vec::new()),
        _ => FillValue::new(vec![0u8; column.map.size]),
    };
    let array = ArrayBuilder::new(shape.clone(), chunks, column.map.zarr.clone(), fill)
        .bytes_to_bytes_codecs(vec![compressor(ctx.profile, column.map.size)?])
        .dimension_names(Some(dimensions))
        .build(store.clone(), &column.path)
        .map_err(library)?;
    array.store_metadata().map_err(library)?;
    if rows == 0 {
        return Ok(());
    }
    let subset: Vec<Range<u64>> = shape.iter().map(|&n| 0..n).collect();
    match kind {
        Kind::Fixed => {
            let buffers = arrays
                .iter()
                .map(|a| values_buffer(a.as_ref(), column.map.size, 0, a.len()))
                .collect::<Result<Vec<_>, _>>()?;
            store_all(&array, &subset, ArrayBytes::new_flen(joined(&buffers)), options)
        }
        Kind::Matrix { width } => {
            let buffers = arrays
                .iter()
                .map(|a| {
                    let list = a.as_fixed_size_list();
                    values_buffer(
                        list.values().as_ref(),
                        column.map.size,
                        list.offset() * width,
                        list.len() * width,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            store_all(&array, &subset, ArrayBytes::new_flen(joined(&buffers)), options)
        }
        Kind::Date32 => {
            let mut bytes = Vec::with_capacity(rows as usize * 8);
            for a in &arrays {
                for day in a.as_primitive::<Date32Type>().values() {
                    bytes.extend_from_slice(&i64::from(*day).to_ne_bytes());
                }
            }
            store_all(&array, &subset, ArrayBytes::new_flen(bytes), options)
        }
        Kind::Bool => {
            let mut bytes = Vec::with_capacity(rows as usize);
            for a in &arrays {
                bytes.extend(a.as_boolean().values().iter().map(u8::from));
            }
            store_all(&array, &subset, ArrayBytes::new_flen(bytes), options)
        }
        Kind::Var { .. } => {
            let mut bytes = Vec::new();
            let mut offsets = Vec::with_capacity(rows as usize + 1);
            offsets.push(0);
            for a in &arrays {
                append_var(a, kind, &mut bytes, &mut offsets);
            }
            let offsets = ArrayBytesOffsets::new(offsets).map_err(library)?;
            store_all(&array, &subset, ArrayBytes::new_vlen(bytes, offsets).map_err(library)?, options)
        }
    }
}

/// Decoded values: fixed-width bytes, or bytes with element offsets.
enum Decoded {
    Fixed(Vec<u8>),
    Var(Vec<u8>, Vec<usize>),
}

fn decoded(bytes: ArrayBytes<'static>) -> Result<Decoded, KitError> {
    match bytes {
        ArrayBytes::Fixed(bytes) => Ok(Decoded::Fixed(bytes.into_owned())),
        ArrayBytes::Variable(var) => {
            let (bytes, offsets) = var.into_parts();
            Ok(Decoded::Var(bytes.into_owned(), offsets.to_vec()))
        }
        ArrayBytes::Optional(_) => Err(KitError::Invalid(
            "an optional (nullable) Zarr array; this backend writes none".into(),
        )),
    }
}

fn retrieve(
    array: &Array<FilesystemStore>,
    rows: Range<u64>,
    options: &CodecOptions,
) -> Result<Decoded, KitError> {
    let mut subset = vec![rows];
    subset.extend(array.shape().iter().skip(1).map(|&n| 0..n));
    let bytes: ArrayBytes<'static> = array
        .retrieve_array_subset_opt(&subset, options)
        .map_err(library)?;
    decoded(bytes)
}

/// The rows at `rows` (request order, repeats allowed): for each chunk holding any of them, one
/// subset spanning the requested rows in that chunk, decoded once, then gathered.
fn retrieve_rows(
    array: &Array<FilesystemStore>,
    rows: &[u64],
    options: &CodecOptions,
) -> Result<Decoded, KitError> {
    let n = array.shape().first().copied().unwrap_or(0);
    if let Some(bad) = rows.iter().find(|&&r| r >= n) {
        return Err(KitError::Invalid(format!(
            "row {bad} is out of range ({n} rows)"
        )));
    }
    if rows.is_empty() {
        return retrieve(array, 0..0, options);
    }
    let zeros = vec![0u64; array.shape().len()];
    let per_chunk = array
        .chunk_shape(&zeros)
        .map_err(library)?
        .first()
        .map_or(1, |c| c.get());
    let mut sorted = rows.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut spans: Vec<Range<u64>> = Vec::new();
    for r in sorted {
        match spans.last_mut() {
            Some(span) if span.start / per_chunk == r / per_chunk => span.end = r + 1,
            _ => spans.push(r..r + 1),
        }
    }
    let parts = spans
        .par_iter()
        .map(|span| retrieve(array, span.clone(), options))
        .collect::<Result<Vec<_>, _>>()?;
    let locate = |r: u64| -> (usize, usize) {
        let at = spans.partition_point(|s| s.start <= r).saturating_sub(1);
        let start = spans.get(at).map_or(0, |s| s.start);
        (at, (r - start) as usize)
    };
    if parts.iter().all(|p| matches!(p, Decoded::Fixed(_))) {
        let mut out = Vec::new();
        for &r in rows {
            let (at, k) = locate(r);
            if let (Some(Decoded::Fixed(bytes)), Some(span)) = (parts.get(at), spans.get(at)) {
                let width = bytes.len() / (span.end - span.start) as usize;
                out.extend_from_slice(&bytes[k * width..(k + 1) * width]);
            }
        }
        return Ok(Decoded::Fixed(out));
    }
    let mut bytes = Vec::new();
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0);
    for &r in rows {
        let (at, k) = locate(r);
        if let Some(Decoded::Var(values, value_offsets)) = parts.get(at) {
            bytes.extend_from_slice(&values[value_offsets[k]..value_offsets[k + 1]]);
        }
        offsets.push(bytes.len());
    }
    Ok(Decoded::Var(bytes, offsets))
}

/// A decoded column back in its Arrow type.
fn to_arrow(field: &Field, kind: Kind, values: Decoded, rows: usize) -> Result<ArrayRef, KitError> {
    let mismatch = || {
        KitError::Invalid(format!(
            "the Zarr array of column '{}' does not decode to {}",
            field.name(),
            field.data_type()
        ))
    };
    let fixed = |data_type: &DataType, len: usize, bytes: Vec<u8>| -> Result<ArrayRef, KitError> {
        let data = ArrayData::builder(data_type.clone())
            .len(len)
            .add_buffer(Buffer::from_vec(bytes))
            .align_buffers(true)
            .build()?;
        Ok(make_array(data))
    };
    match (kind, values) {
        (Kind::Fixed, Decoded::Fixed(bytes)) => fixed(field.data_type(), rows, bytes),
        (Kind::Matrix { width }, Decoded::Fixed(bytes)) => {
            let DataType::FixedSizeList(item, size) = field.data_type() else {
                return Err(mismatch());
            };
            let child = fixed(item.data_type(), rows * width, bytes)?;
            Ok(Arc::new(FixedSizeListArray::try_new(
                item.clone(),
                *size,
                child,
                None,
            )?))
        }
        (Kind::Date32, Decoded::Fixed(bytes)) => {
            let days = bytes.chunks_exact(8).map(|c| {
                let mut raw = [0u8; 8];
                raw.copy_from_slice(c);
                i64::from_ne_bytes(raw) as i32
            });
            Ok(Arc::new(Date32Array::from_iter_values(days)))
        }
        (Kind::Bool, Decoded::Fixed(bytes)) => Ok(Arc::new(
            bytes.iter().map(|b| Some(*b != 0)).collect::<BooleanArray>(),
        )),
        (Kind::Var { large, .. }, Decoded::Var(bytes, offsets)) => {
            let overflow = || {
                KitError::Invalid(format!(
                    "column '{}' holds more bytes than 32-bit offsets address",
                    field.name()
                ))
            };
            let offsets = if large {
                let o = offsets
                    .iter()
                    .map(|&o| i64::try_from(o).map_err(|_| overflow()))
                    .collect::<Result<Vec<_>, _>>()?;
                Buffer::from_vec(o)
            } else {
                let o = offsets
                    .iter()
                    .map(|&o| i32::try_from(o).map_err(|_| overflow()))
                    .collect::<Result<Vec<_>, _>>()?;
                Buffer::from_vec(o)
            };
            let data = ArrayData::builder(field.data_type().clone())
                .len(rows)
                .add_buffer(offsets)
                .add_buffer(Buffer::from_vec(bytes))
                .build()?;
            Ok(make_array(data))
        }
        _ => Err(mismatch()),
    }
}

/// The stored columns: name → array path, from the root group's attributes.
fn stored_columns(store: &Arc<FilesystemStore>) -> Result<(HashMap<String, String>, u64), KitError> {
    let group = Group::open(store.clone(), "/").map_err(library)?;
    let described = group
        .attributes()
        .get(ATTRIBUTE)
        .ok_or_else(|| KitError::Invalid(format!("the root group has no '{ATTRIBUTE}' attribute")))?;
    let rows = described
        .get("rows")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    let columns = described
        .get("columns")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| KitError::Invalid("the stored column list is missing".into()))?
        .iter()
        .filter_map(|c| {
            Some((
                c.get("name")?.as_str()?.to_string(),
                c.get("path")?.as_str()?.to_string(),
            ))
        })
        .collect();
    Ok((columns, rows))
}

fn read_json(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// `name(key=value, ...)` for each codec of an array's metadata, joined by ` > `.
fn describe_codecs(metadata: &serde_json::Value) -> String {
    let Some(codecs) = metadata.get("codecs").and_then(|c| c.as_array()) else {
        return "unknown".into();
    };
    codecs
        .iter()
        .map(|codec| {
            let name = codec.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            let config = codec
                .get("configuration")
                .and_then(|c| c.as_object())
                .map(|c| {
                    c.iter()
                        .map(|(k, v)| match v {
                            serde_json::Value::String(s) => format!("{k}={s}"),
                            other => format!("{k}={other}"),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            if config.is_empty() {
                name.to_string()
            } else {
                format!("{name}({config})")
            }
        })
        .collect::<Vec<_>>()
        .join(" > ")
}

fn chunk_shape(metadata: &serde_json::Value) -> String {
    metadata
        .pointer("/chunk_grid/configuration/chunk_shape")
        .map_or_else(|| "unknown".into(), |s| s.to_string())
}

impl Backend for Zarr {
    fn name(&self) -> &'static str {
        "zarr"
    }
    fn about(&self) -> &'static str {
        "Zarr v3 store via zarrs 0.23.14: wide = one 1-D float32 array per feature, array = one 2-D \
         float32 array (chunks of min(rows,1024) rows x min(D,1024) features), other columns as \
         1-D arrays (utf8 as vlen-utf8 strings). Profiles: default = Blosc lz4 level 5 + byte \
         shuffle (zarr-python 2's default, as in the layout study; zarrs itself writes \
         uncompressed), compact = Blosc zstd level 5 + byte shuffle. Empty chunks are stored."
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default", "compact"]
    }
    fn layouts(&self) -> Vec<(&'static str, Vec<Op>)> {
        let mut wide = vec![Op::Write, Op::Read, Op::Scan, Op::Project, Op::Take];
        wide.extend(MATRIX_OPS);
        let mut array = vec![Op::Write, Op::Read, Op::Scan];
        array.extend(MATRIX_OPS);
        vec![(WIDE, wide), (ARRAY, array)]
    }
    fn version(&self) -> String {
        "0.23.14".into()
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError> {
        init(ctx.threads);
        let columns = plan(ctx)?;
        for column in &columns {
            for batch in batches {
                let array = batch.column(column.index);
                let nulls = match column.map.kind {
                    Kind::Matrix { .. } => {
                        array.null_count() + array.as_fixed_size_list().values().null_count()
                    }
                    _ => array.null_count(),
                };
                if nulls > 0 {
                    return Err(KitError::Unsupported(format!(
                        "zarr: column '{}' has null values; Zarr arrays have no validity mask \
                         (only a fill value), so nulls would not read back",
                        column.name
                    )));
                }
            }
        }
        let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
        let root = root(dir);
        std::fs::create_dir_all(&root)?;
        let store = Arc::new(FilesystemStore::new(&root).map_err(library)?);

        let listed: Vec<serde_json::Value> = columns
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "path": c.path,
                    "arrow_type": ctx.schema.field(c.index).data_type().to_string(),
                })
            })
            .collect();
        let mut attributes = serde_json::Map::new();
        attributes.insert(
            ATTRIBUTE.into(),
            serde_json::json!({
                "layout": ctx.layout,
                "profile": ctx.profile,
                "rows": rows,
                "columns": listed,
            }),
        );
        GroupBuilder::new()
            .attributes(attributes)
            .build(store.clone(), "/")
            .map_err(library)?
            .store_metadata()
            .map_err(library)?;
        for group in ["/features", "/columns"] {
            let prefix = format!("{group}/");
            if columns.iter().any(|c| c.path.starts_with(&prefix)) {
                GroupBuilder::new()
                    .build(store.clone(), group)
                    .map_err(library)?
                    .store_metadata()
                    .map_err(library)?;
            }
        }
        let options = codec_options();
        columns
            .par_iter()
            .try_for_each(|c| write_column(ctx, &store, c, batches, rows, &options))
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        init(ctx.threads);
        let store = open_store(dir)?;
        let (stored, stored_rows) = stored_columns(&store)?;
        let all: Vec<String> = ctx
            .schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let (names, rows, method): (&[String], Option<&[u64]>, &'static str) = match request {
            Request::All => (
                &all,
                None,
                "every array read whole, arrays in parallel on the rayon pool",
            ),
            Request::Columns(names) => (
                names,
                None,
                "only the named arrays read, each whole, in parallel on the rayon pool",
            ),
            Request::Take(rows, columns) => (
                columns.unwrap_or(&all),
                Some(rows),
                "per array, one subset per chunk holding requested rows (their span), decoded \
                 once, then gathered in request order",
            ),
        };
        let indices = names
            .iter()
            .map(|n| {
                ctx.schema
                    .index_of(n)
                    .map_err(|_| KitError::Invalid(format!("no column named '{n}'")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let options = codec_options();
        let columns = indices
            .par_iter()
            .map(|&i| {
                let field = ctx.schema.field(i);
                let map = mapping(field)?;
                let path = stored.get(field.name()).ok_or_else(|| {
                    KitError::Invalid(format!("the store has no array for '{}'", field.name()))
                })?;
                let array = Array::open(store.clone(), path).map_err(library)?;
                let n = array.shape().first().copied().unwrap_or(0);
                let (values, len) = match rows {
                    None => (retrieve(&array, 0..n, &options)?, n as usize),
                    Some(rows) => (retrieve_rows(&array, rows, &options)?, rows.len()),
                };
                to_arrow(field, map.kind, values, len)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let schema = Arc::new(ctx.schema.project(&indices)?);
        let len = match (rows, columns.first()) {
            (Some(rows), _) => rows.len(),
            (None, Some(first)) => first.len(),
            (None, None) => stored_rows as usize,
        };
        let options = RecordBatchOptions::new().with_row_count(Some(len));
        let batch = RecordBatch::try_new_with_options(schema, columns, &options)?;
        Ok((vec![batch], method))
    }

    fn settings(&self, _ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::from([
            ("library".to_string(), LIBRARY.to_string()),
            ("zarr_format".to_string(), "3".to_string()),
        ]);
        let root = root(dir);
        let Some(group) = read_json(&root.join("zarr.json")) else {
            return out;
        };
        let paths: Vec<String> = group
            .pointer(&format!("/attributes/{ATTRIBUTE}/columns"))
            .and_then(|c| c.as_array())
            .map(|columns| {
                columns
                    .iter()
                    .filter_map(|c| c.get("path")?.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        out.insert("arrays".into(), paths.len().to_string());
        let metadata = |path: &str| read_json(&root.join(path.trim_start_matches('/')).join("zarr.json"));
        let feature = paths.iter().find(|p| p.starts_with("/features"));
        if let Some(meta) = feature.and_then(|p| metadata(p)) {
            out.insert("codecs".into(), describe_codecs(&meta));
            out.insert("chunk_shape".into(), chunk_shape(&meta));
        }
        // The first column of each other array-to-bytes codec (e.g. vlen-utf8 for strings).
        let mut seen = HashSet::new();
        for path in paths.iter().filter(|p| !p.starts_with("/features")) {
            let Some(meta) = metadata(path) else { continue };
            let codecs = describe_codecs(&meta);
            let first = codecs.split(['(', ' ']).next().unwrap_or_default().to_string();
            if seen.insert(first.clone()) {
                let name = path.rsplit('/').next().unwrap_or(path);
                out.insert(format!("codecs[{name}]"), codecs);
                if feature.is_none() && !out.contains_key("chunk_shape") {
                    out.insert("chunk_shape".into(), chunk_shape(&meta));
                }
            }
        }
        out
    }
}
