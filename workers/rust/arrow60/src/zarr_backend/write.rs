//! Writing columns into Zarr arrays (fixed-width values, variable-length strings and bytes).

use super::store::*;
use super::types::*;
use arrow::array::{Array as _, ArrayRef, AsArray, RecordBatch};
use arrow::buffer::Buffer;
use arrow::datatypes::Date32Type;
use formatbench_worker_kit::{Context, KitError};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;
use zarrs::array::{Array, ArrayBuilder, ArrayBytes, ArrayBytesOffsets, CodecOptions, FillValue};
use zarrs::filesystem::FilesystemStore;

/// The values buffer of a fixed-width array, `first..first + count` elements of `size` bytes.
pub(super) fn values_buffer(
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
pub(super) fn joined(buffers: &[Buffer]) -> Cow<'_, [u8]> {
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
pub(super) fn append_var(
    column: &ArrayRef,
    kind: Kind,
    bytes: &mut Vec<u8>,
    offsets: &mut Vec<usize>,
) {
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

pub(super) fn store_all(
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
pub(super) fn write_column(
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
            store_all(
                &array,
                &subset,
                ArrayBytes::new_flen(joined(&buffers)),
                options,
            )
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
            store_all(
                &array,
                &subset,
                ArrayBytes::new_flen(joined(&buffers)),
                options,
            )
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
            store_all(
                &array,
                &subset,
                ArrayBytes::new_vlen(bytes, offsets).map_err(library)?,
                options,
            )
        }
    }
}
