//! The garbage-under-nulls variant: every array rebuilt so that what lies under its null slots
//! is non-zero junk, as readers that never clear the memory under a null return it. Arrow
//! leaves those bytes undefined, so a verifier (or digest) that reads them is wrong; this
//! variant makes sure nothing does. Each array is rebuilt with `ArrayData::builder` and
//! validated in full; the junk itself is valid where Arrow validates even under nulls (string
//! offsets stay in bounds, the junk bytes are UTF-8).

use arrow::array::{make_array, Array, ArrayData, ArrayRef, BooleanArray, UInt64Array};
use arrow::buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer};
use arrow::compute::take;
use arrow::datatypes::{ArrowNativeType, DataType};
use arrow::error::ArrowError;

/// The junk byte: 0x5A5A… in every integer, `Z` in every string.
const JUNK: u8 = 0x5A;

/// The bytes a null string or binary slot covers.
const JUNK_BYTES: &[u8] = b"ZZZZ";

/// `data` with junk under every null, at every depth.
pub fn garbage(data: &ArrayData) -> Result<ArrayData, ArrowError> {
    use DataType as T;
    if data.null_count() == 0 && data.child_data().is_empty() {
        return Ok(data.clone());
    }
    match data.data_type() {
        T::Boolean => booleans(data),
        T::Utf8 | T::Binary => bytes::<i32>(data),
        T::LargeUtf8 | T::LargeBinary => bytes::<i64>(data),
        T::Utf8View | T::BinaryView => views(data),
        T::List(_) => list::<i32>(data),
        T::LargeList(_) => list::<i64>(data),
        T::ListView(_) => list_view::<i32>(data),
        T::LargeListView(_) => list_view::<i64>(data),
        T::FixedSizeList(_, size) => {
            // The items of this array's rows alone, so that item j is in row j / size.
            let size = usize::try_from(*size).unwrap_or(0);
            let items = data.child_data()[0].slice(data.offset() * size, data.len() * size);
            let child = under_parent(&items, data.nulls(), size)?;
            rebuilt(data, vec![], vec![child])
        }
        T::Struct(_) => {
            let children = data
                .child_data()
                .iter()
                .map(|c| under_parent(c, data.nulls(), 1))
                .collect::<Result<Vec<_>, _>>()?;
            rebuilt(data, vec![], children)
        }
        T::Dictionary(key, _) => {
            // The junk key is the last entry's: in bounds, since a dictionary under a null
            // struct row keeps its own validity and its junk is then read as a key.
            let last = data.child_data()[0].len().saturating_sub(1) as u64;
            let width = key.primitive_width().unwrap_or(0);
            let keys = fixed_width(data, width, &last.to_le_bytes()[..width.min(8)])?;
            let values = garbage(&data.child_data()[0])?;
            rebuilt(data, vec![keys], vec![values])
        }
        T::FixedSizeBinary(width) => {
            let width = usize::try_from(*width).unwrap_or(0);
            let values = fixed_width(data, width, &vec![JUNK; width])?;
            rebuilt(data, vec![values], vec![])
        }
        other => match other.primitive_width() {
            Some(width) => {
                let values = fixed_width(data, width, &[JUNK; 32][..width.min(32)])?;
                rebuilt(data, vec![values], vec![])
            }
            // Maps, unions, run-end encoded and null arrays are left as they are.
            None => Ok(data.clone()),
        },
    }
}

/// `data`'s type, length and nulls with new buffers and children, validated in full.
fn rebuilt(
    data: &ArrayData,
    buffers: Vec<Buffer>,
    children: Vec<ArrayData>,
) -> Result<ArrayData, ArrowError> {
    // Every buffer and child is built from the array's offset on (a struct's children are
    // sliced with it already).
    let built = ArrayData::builder(data.data_type().clone())
        .len(data.len())
        .nulls(data.nulls().cloned())
        .buffers(buffers)
        .child_data(children)
        .build()?;
    built.validate_full()?;
    Ok(built)
}

/// Whether slot `i` is null.
fn is_null(nulls: Option<&NullBuffer>, i: usize) -> bool {
    nulls.is_some_and(|n| n.is_null(i))
}

/// The values buffer of a fixed-width array (`width` bytes a slot) from its offset on, with
/// every null slot's bytes set to `junk` (`width` bytes).
fn fixed_width(data: &ArrayData, width: usize, junk: &[u8]) -> Result<Buffer, ArrowError> {
    if junk.len() != width {
        return Err(ArrowError::InvalidArgumentError(format!(
            "no junk of {width} bytes"
        )));
    }
    let start = data.offset() * width;
    let end = start + data.len() * width;
    let source = data
        .buffers()
        .first()
        .and_then(|b| b.as_slice().get(start..end))
        .ok_or_else(|| ArrowError::InvalidArgumentError("a values buffer too short".into()))?;
    let mut values = source.to_vec();
    for i in (0..data.len()).filter(|&i| is_null(data.nulls(), i)) {
        values[i * width..(i + 1) * width].copy_from_slice(junk);
    }
    Ok(Buffer::from_vec(values))
}

/// Booleans with `true` under every null.
fn booleans(data: &ArrayData) -> Result<ArrayData, ArrowError> {
    let array = BooleanArray::from(data.clone());
    let junk: BooleanBuffer = (0..array.len())
        .map(|i| array.is_null(i) || array.value(i))
        .collect();
    rebuilt(data, vec![junk.into_inner()], vec![])
}

/// Strings or binaries whose null slots each cover `JUNK_BYTES`.
fn bytes<O: ArrowNativeType + TryFrom<usize>>(data: &ArrayData) -> Result<ArrayData, ArrowError> {
    let offsets = data.buffer::<O>(0);
    let values = data.buffers()[1].as_slice();
    let mut new_offsets = MutableBuffer::new((data.len() + 1) * size_of::<O>());
    let mut new_values = Vec::with_capacity(values.len());
    let offset = |n: usize| {
        O::try_from(n).map_err(|_| ArrowError::InvalidArgumentError("offsets overflow".into()))
    };
    new_offsets.push(offset(0)?);
    for i in 0..data.len() {
        if is_null(data.nulls(), i) {
            new_values.extend_from_slice(JUNK_BYTES);
        } else {
            new_values.extend_from_slice(&values[offsets[i].as_usize()..offsets[i + 1].as_usize()]);
        }
        new_offsets.push(offset(new_values.len())?);
    }
    rebuilt(
        data,
        vec![new_offsets.into(), Buffer::from_vec(new_values)],
        vec![],
    )
}

/// String or binary views whose null slots each hold an inline view of `JUNK_BYTES`.
fn views(data: &ArrayData) -> Result<ArrayData, ArrowError> {
    let mut inline = [0u8; 16];
    inline[..4].copy_from_slice(&(JUNK_BYTES.len() as u32).to_le_bytes());
    inline[4..4 + JUNK_BYTES.len()].copy_from_slice(JUNK_BYTES);
    let junk = u128::from_le_bytes(inline);
    let views: Vec<u128> = data
        .buffer::<u128>(0)
        .iter()
        .take(data.len())
        .enumerate()
        .map(|(i, &v)| if is_null(data.nulls(), i) { junk } else { v })
        .collect();
    let mut buffers = vec![Buffer::from_vec(views)];
    buffers.extend(data.buffers()[1..].iter().cloned());
    rebuilt(data, buffers, vec![])
}

/// Lists whose null slots each cover one junk item (a copy of the first item), the items then
/// given junk under their own nulls.
fn list<O: ArrowNativeType + TryFrom<usize>>(data: &ArrayData) -> Result<ArrayData, ArrowError> {
    let offsets = data.buffer::<O>(0);
    let child = &data.child_data()[0];
    let junk_item = (!child.is_empty()).then_some(0u64);
    let mut taken: Vec<u64> = Vec::with_capacity(child.len());
    let mut new_offsets = MutableBuffer::new((data.len() + 1) * size_of::<O>());
    let offset = |n: usize| {
        O::try_from(n).map_err(|_| ArrowError::InvalidArgumentError("offsets overflow".into()))
    };
    new_offsets.push(offset(0)?);
    for i in 0..data.len() {
        match (is_null(data.nulls(), i), junk_item) {
            (true, Some(item)) => taken.push(item),
            (true, None) => {}
            (false, _) => {
                taken.extend(offsets[i].as_usize() as u64..offsets[i + 1].as_usize() as u64)
            }
        }
        new_offsets.push(offset(taken.len())?);
    }
    let items = take(&make_array(child.clone()), &UInt64Array::from(taken), None)?;
    let items = garbage(&items.to_data())?;
    rebuilt(data, vec![new_offsets.into()], vec![items])
}

/// List views whose null slots each view the first item (offset 0, size 1).
fn list_view<O: ArrowNativeType>(data: &ArrayData) -> Result<ArrayData, ArrowError> {
    let child = garbage(&data.child_data()[0])?;
    let size = O::usize_as(usize::from(!child.is_empty()));
    let (mut offsets, mut sizes) = (Vec::new(), Vec::new());
    for (i, (&o, &s)) in data
        .buffer::<O>(0)
        .iter()
        .zip(data.buffer::<O>(1))
        .enumerate()
        .take(data.len())
    {
        let null = is_null(data.nulls(), i);
        offsets.push(if null { O::usize_as(0) } else { o });
        sizes.push(if null { size } else { s });
    }
    rebuilt(
        data,
        vec![Buffer::from_vec(offsets), Buffer::from_vec(sizes)],
        vec![child],
    )
}

/// A struct's field, or a fixed-size list's items (`per_row` of them a row), with junk under
/// every slot whose parent row is null as well as under its own nulls; its own nulls are kept,
/// so the junk under a null parent reads as values, which no reader may look at.
fn under_parent(
    child: &ArrayData,
    parent: Option<&NullBuffer>,
    per_row: usize,
) -> Result<ArrayData, ArrowError> {
    let Some(parent) = parent.filter(|p| p.null_count() > 0) else {
        return garbage(child);
    };
    let valid: BooleanBuffer = (0..child.len())
        .map(|j| {
            let row = j.checked_div(per_row).unwrap_or(0);
            parent.is_valid(row) && !is_null(child.nulls(), j)
        })
        .collect();
    let masked = child
        .clone()
        .into_builder()
        .nulls(Some(NullBuffer::new(valid)))
        .build()?;
    let junked = garbage(&masked)?;
    let restored = junked
        .into_builder()
        .nulls(child.nulls().cloned())
        .build()?;
    restored.validate_full()?;
    Ok(restored)
}

/// `array` with junk under its nulls at every depth.
pub fn column(array: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    Ok(make_array(garbage(&array.to_data())?))
}
