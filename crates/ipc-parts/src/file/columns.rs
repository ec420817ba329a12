//! Where each column's buffers lie in a record batch's body, so a projection read by plain reads
//! or by ranges (an object in a bucket) reads only its own columns' bytes instead of whole
//! blocks, as Arrow C++'s reader does with a column selection.

use super::{append_at, Body, IpcFile, ALIGNMENT};
use crate::error::{at as at_path, Result, StoreError};
use arrow::buffer::Buffer;
use arrow::datatypes::{DataType, Schema};
use std::ops::Range;

/// Fetched ranges closer than this are fetched as one: a request costs more than a few
/// kilobytes of extra bytes (Arrow C++'s default hole size for its range cache).
const COALESCE_GAP: u64 = 8 * 1024;

/// How many IPC buffers a field of this type and its children take in a body, in the order
/// the body lists them; `None` for layouts whose count varies by batch (views' variadic data
/// buffers) or that this map does not cover (unions, run-end encoding, null columns).
fn buffer_count(data_type: &DataType) -> Option<usize> {
    Some(match data_type {
        DataType::Boolean | DataType::FixedSizeBinary(_) | DataType::Dictionary(_, _) => 2,
        t if t.is_primitive() => 2,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => 3,
        DataType::List(child) | DataType::LargeList(child) | DataType::Map(child, _) => {
            2 + buffer_count(child.data_type())?
        }
        DataType::FixedSizeList(child, _) => 1 + buffer_count(child.data_type())?,
        DataType::Struct(children) => {
            let mut total = 1;
            for child in children {
                total += buffer_count(child.data_type())?;
            }
            total
        }
        _ => return None,
    })
}

/// The buffer indices of each top-level column, or `None` when some column's layout is not
/// mapped (such files are read by whole blocks).
pub(super) fn column_buffers(schema: &Schema) -> Option<Vec<Range<usize>>> {
    let mut start = 0;
    schema
        .fields()
        .iter()
        .map(|field| {
            let count = buffer_count(field.data_type())?;
            let span = start..start + count;
            start += count;
            Some(span)
        })
        .collect()
}

/// One block's body buffers as (offset in the body, length), from its message header.
pub(super) type BodyBuffers = Vec<(u64, u64)>;

/// The byte ranges of the body (offset, length) that `columns` need, sorted and merged where
/// they lie within `gap` bytes of each other (0: only touching ones). Errors when a buffer lies
/// past the body or the header lists fewer buffers than the schema needs.
pub(super) fn needed_ranges(
    spans: &[Range<usize>],
    buffers: &[(u64, u64)],
    columns: &[usize],
    body_len: u64,
    gap: u64,
) -> Result<Vec<(u64, u64)>> {
    let corrupt = |what: &str| StoreError::Corrupt(format!("a record batch's {what}"));
    let mut ranges = Vec::new();
    for &column in columns {
        let span = spans
            .get(column)
            .ok_or_else(|| corrupt("projection names a column past the schema"))?;
        let listed = buffers
            .get(span.clone())
            .ok_or_else(|| corrupt("header lists fewer buffers than its schema needs"))?;
        for &(offset, len) in listed {
            if offset.checked_add(len).is_none_or(|end| end > body_len) {
                return Err(corrupt("buffer lies past its body"));
            }
            if len > 0 {
                ranges.push((offset, len));
            }
        }
    }
    ranges.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (offset, len) in ranges {
        match merged.last_mut() {
            Some((start, merged_len)) if offset <= *start + *merged_len + gap => {
                *merged_len = (*merged_len).max(offset + len - *start);
            }
            _ => merged.push((offset, len)),
        }
    }
    Ok(merged)
}

/// What a file read by plain reads or by ranges keeps of each block to read only a
/// projection's buffers.
pub(super) struct RangedBlocks {
    /// Each top-level column's buffer indices (`None`: a layout not mapped; whole blocks).
    pub(super) column_buffers: Option<Vec<Range<usize>>>,
    /// Each block's message header, as fetched at open.
    pub(super) headers: Vec<Vec<u8>>,
    /// Each block's body buffers (offset, length).
    pub(super) buffers: Vec<BodyBuffers>,
    /// Where each block's header holds its list of buffers (`None`: it has none, or it could
    /// not be placed), so that a sparse projection can point the list at a compact body.
    pub(super) buffers_at: Vec<Option<usize>>,
}

/// Where the last of `columns`' buffers ends in the body, empty ones included: the decoder
/// slices each of them (and no other), so a body cut short there decodes them all.
fn extent(spans: &[Range<usize>], buffers: &[(u64, u64)], columns: &[usize]) -> u64 {
    columns
        .iter()
        .filter_map(|&c| buffers.get(spans.get(c)?.clone()))
        .flatten()
        .map(|&(offset, len)| offset.saturating_add(len))
        .max()
        .unwrap_or(0)
}

/// One block as a projected read fills it.
struct Planned<'a> {
    header: &'a [u8],
    /// The header's buffers (offset in the body, length), and where it lists them.
    buffers: &'a [(u64, u64)],
    buffers_at: Option<usize>,
    /// Where the body starts in the file.
    body_start: u64,
    /// (offset in the body, length), sorted, disjoint.
    needed: Vec<(u64, u64)>,
    /// The body's bytes the decoder may look at (the needed ranges lie within).
    extent: u64,
}

/// An IPC `Buffer` struct in a header's list: offset and length, little-endian i64s.
const BUFFER_ENTRY: usize = 16;

impl Planned<'_> {
    /// The header and the bytes of the body the decoder looks at, each needed range appended
    /// by `read` (given its offset in the body and length). A block mostly needed is read in
    /// place, the gaps zeroed as they come. One mostly not needed (a few columns of many) is read into a
    /// compact body holding only the needed ranges, one after another, and its header is
    /// rewritten to point there: zeroing the whole extent for a few columns cost more than
    /// reading them (2.7× pyarrow's projection, which reads the same way).
    fn fill(&self, mut read: impl FnMut(u64, u64, &mut Vec<u8>) -> Result<()>) -> Result<Buffer> {
        let meta_len = self.header.len();
        let needed: u64 = self.needed.iter().map(|r| r.1).sum();
        let sparse = needed * 2 < self.extent;
        if let (true, Some(at)) = (sparse, self.buffers_at) {
            return self.fill_compact(at, read);
        }
        let len = meta_len + self.extent as usize;
        let mut bytes = Vec::with_capacity(len);
        bytes.extend_from_slice(self.header);
        for &(offset, n) in &self.needed {
            bytes.resize(meta_len + offset as usize, 0);
            read(offset, n, &mut bytes)?;
        }
        bytes.resize(len, 0);
        Ok(Buffer::from_vec(bytes))
    }

    /// The needed ranges back to back (each keeping its offset's alignment to 64 bytes), and a
    /// header whose buffers point into them; buffers outside them (columns not read) become
    /// empty, so a decoder that looked at one would find nothing rather than other bytes.
    fn fill_compact(
        &self,
        buffers_at: usize,
        mut read: impl FnMut(u64, u64, &mut Vec<u8>) -> Result<()>,
    ) -> Result<Buffer> {
        let corrupt = || StoreError::Corrupt("a record batch's buffer list".into());
        let meta_len = self.header.len();
        let needed: u64 = self.needed.iter().map(|r| r.1).sum();
        let mut bytes =
            Vec::with_capacity(meta_len + needed as usize + self.needed.len() * ALIGNMENT);
        bytes.extend_from_slice(self.header);
        // (offset in the body as stored, length, offset in the compact body)
        let mut placed = Vec::with_capacity(self.needed.len());
        for &(offset, n) in &self.needed {
            let at = (bytes.len() - meta_len) as u64;
            let pad = (offset % ALIGNMENT as u64 + ALIGNMENT as u64 - at % ALIGNMENT as u64)
                % ALIGNMENT as u64;
            bytes.resize(bytes.len() + pad as usize, 0);
            placed.push((offset, n, at + pad));
            read(offset, n, &mut bytes)?;
        }
        for (i, &(offset, len)) in self.buffers.iter().enumerate() {
            let holder = placed
                .partition_point(|&(start, _, _)| start <= offset)
                .checked_sub(1)
                .map(|p| placed[p])
                .filter(|&(start, n, _)| len > 0 && offset + len <= start + n);
            let moved = match holder {
                Some((start, _, to)) => (to + offset - start, len),
                None => (0, 0),
            };
            let at = buffers_at + i * BUFFER_ENTRY;
            if at + BUFFER_ENTRY > meta_len {
                return Err(corrupt());
            }
            let entry = &mut bytes[at..at + BUFFER_ENTRY];
            entry[..8].copy_from_slice(&(moved.0 as i64).to_le_bytes());
            entry[8..].copy_from_slice(&(moved.1 as i64).to_le_bytes());
        }
        Ok(Buffer::from_vec(bytes))
    }
}

impl IpcFile {
    /// Blocks `indices` with only `columns`' buffers read (the rest of each body zeros, never
    /// decoded, and the body cut after the last of them), or with their whole body when
    /// `columns` is `None` (a file read by ranges then fetches only the body: the header came
    /// with the file). Read by ranges, every block's ranges go to the source in one call, so
    /// it fetches them concurrently. `None` where the file is mapped, the layout is not
    /// mapped out, or a plain read of whole blocks reads each block at once anyway.
    pub(super) fn projected_blocks(
        &self,
        indices: &[usize],
        columns: Option<&[usize]>,
    ) -> Result<Option<Vec<Buffer>>> {
        let Some(ranged) = &self.ranged else {
            return Ok(None);
        };
        let spans = match (&ranged.column_buffers, columns, &self.body) {
            (_, _, Body::Mapped(_)) | (_, None, Body::Plain(_)) | (None, Some(_), _) => {
                return Ok(None)
            }
            (spans, _, _) => spans.as_deref(),
        };
        // A ranged source merges by its own network's rule; plain reads merge a few kilobytes.
        let gap = match &self.body {
            Body::Ranged(_) => 0,
            _ => COALESCE_GAP,
        };
        let short = || {
            StoreError::Corrupt(format!(
                "{}: a read range is shorter than asked",
                self.path.display()
            ))
        };
        let mut planned = Vec::with_capacity(indices.len());
        for &index in indices {
            let block = self.block_at(index)?;
            let (header, buffers) = match (ranged.headers.get(index), ranged.buffers.get(index)) {
                (Some(header), Some(buffers)) => (header, buffers),
                _ => return Ok(None),
            };
            let meta_len = block.metaDataLength().max(0) as usize;
            if header.len() != meta_len {
                return Err(short());
            }
            let body_len = block.bodyLength().max(0) as u64;
            let (needed, extent) = match (spans, columns) {
                (Some(spans), Some(columns)) => (
                    needed_ranges(spans, buffers, columns, body_len, gap).map_err(|e| {
                        StoreError::Corrupt(format!("{}: {e}", self.path.display()))
                    })?,
                    extent(spans, buffers, columns),
                ),
                _ => (
                    Some((0, body_len))
                        .filter(|_| body_len > 0)
                        .into_iter()
                        .collect(),
                    body_len,
                ),
            };
            planned.push(Planned {
                header,
                buffers,
                buffers_at: ranged.buffers_at.get(index).copied().flatten(),
                body_start: block.offset().max(0) as u64 + meta_len as u64,
                needed,
                extent,
            });
        }
        let bytes = match &self.body {
            Body::Mapped(_) => return Ok(None),
            Body::Plain(file) => planned
                .iter()
                .map(|block| {
                    block.fill(|offset, len, bytes| {
                        let at = block.body_start + offset;
                        append_at(file, bytes, len as usize, at).map_err(at_path(&self.path))
                    })
                })
                .collect::<Result<Vec<_>>>()?,
            Body::Ranged(source) => {
                let requests: Vec<(u64, usize)> = planned
                    .iter()
                    .flat_map(|block| {
                        block
                            .needed
                            .iter()
                            .map(|&(offset, len)| (block.body_start + offset, len as usize))
                    })
                    .collect();
                let fetched = source.read_ranges(&requests).map_err(at_path(&self.path))?;
                if fetched.len() != requests.len() {
                    return Err(short());
                }
                let mut fetched = fetched.into_iter();
                planned
                    .iter()
                    .map(|block| {
                        block.fill(|_, len, bytes| {
                            let data = fetched.next().ok_or_else(short)?;
                            if data.len() as u64 != len {
                                return Err(short());
                            }
                            bytes.extend_from_slice(&data);
                            Ok(())
                        })
                    })
                    .collect::<Result<Vec<_>>>()?
            }
        };
        Ok(Some(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{Field, Fields};
    use std::sync::Arc;

    #[test]
    fn each_type_takes_the_buffers_the_ipc_format_lists() {
        let schema = Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new(
                "l",
                DataType::List(Arc::new(Field::new("x", DataType::Float32, true))),
                true,
            ),
            Field::new(
                "st",
                DataType::Struct(Fields::from(vec![
                    Field::new("a", DataType::Boolean, true),
                    Field::new("b", DataType::LargeBinary, true),
                ])),
                true,
            ),
        ]);
        assert_eq!(column_buffers(&schema), Some(vec![0..2, 2..5, 5..9, 9..15]));
        let views = Schema::new(vec![Field::new("v", DataType::Utf8View, true)]);
        assert_eq!(column_buffers(&views), None);
    }

    #[test]
    fn nearby_ranges_merge_and_distant_ones_stay_apart() {
        let spans = [0..2, 2..4, 4..6];
        let far = 1 << 20;
        let buffers: BodyBuffers =
            vec![(0, 0), (0, 100), (100, 0), (200, 100), (far, 0), (far, 50)];
        assert_eq!(
            needed_ranges(&spans, &buffers, &[0, 1], far + 50, COALESCE_GAP).unwrap(),
            vec![(0, 300)]
        );
        assert_eq!(
            needed_ranges(&spans, &buffers, &[2, 0], far + 50, COALESCE_GAP).unwrap(),
            vec![(0, 100), (far, 50)]
        );
        // A ranged source merges by its own rule: only touching ranges join here.
        assert_eq!(
            needed_ranges(&spans, &buffers, &[0, 1], far + 50, 0).unwrap(),
            vec![(0, 100), (200, 100)]
        );
        assert!(needed_ranges(&spans, &buffers, &[2], far, COALESCE_GAP).is_err());
        assert!(needed_ranges(&spans, &buffers[..4], &[2], far + 50, 0).is_err());
    }
}
