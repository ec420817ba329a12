//! Reading Zarr arrays back into Arrow columns: whole arrays, or only the chunks that hold
//! requested rows.

use super::store::*;
use super::types::*;
use arrow::array::{
    make_array, ArrayData, ArrayRef, BooleanArray, Date32Array, FixedSizeListArray,
};
use arrow::buffer::Buffer;
use arrow::datatypes::{DataType, Field};
use formatbench_worker_kit::KitError;
use rayon::prelude::*;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use zarrs::array::{Array, ArrayBytes, CodecOptions};
use zarrs::group::Group;

/// Decoded values: fixed-width bytes, or bytes with element offsets.
pub(super) enum Decoded {
    Fixed(Vec<u8>),
    Var(Vec<u8>, Vec<usize>),
}

pub(super) fn decoded(bytes: ArrayBytes<'static>) -> Result<Decoded, KitError> {
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

pub(super) fn retrieve(
    array: &Array<Store>,
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
pub(super) fn retrieve_rows(
    array: &Array<Store>,
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
pub(super) fn to_arrow(
    field: &Field,
    kind: Kind,
    values: Decoded,
    rows: usize,
) -> Result<ArrayRef, KitError> {
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
            bytes
                .iter()
                .map(|b| Some(*b != 0))
                .collect::<BooleanArray>(),
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
pub(super) fn stored_columns(
    store: &Arc<Store>,
) -> Result<(HashMap<String, String>, u64), KitError> {
    let group = Group::open(store.clone(), "/").map_err(library)?;
    let described = group.attributes().get(ATTRIBUTE).ok_or_else(|| {
        KitError::Invalid(format!("the root group has no '{ATTRIBUTE}' attribute"))
    })?;
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
