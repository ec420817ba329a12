//! An IPC file writer that hands the arrays' own buffers to the kernel: each record batch is
//! one gathered `writev` of its message header and its buffers, without first copying them
//! into a body buffer (arrow's writer does that copy, growing the buffer as it goes). Sliced
//! arrays are written as their slice: values are sliced in place; only what must change is
//! copied (offsets that do not start at zero, bitmaps that do not start on a byte).
//!
//! Compressed files take the same path: each batch's buffers are compressed on several
//! threads (`compress`), then written as above.
//!
//! Types it covers: primitives (integers, floats, temporals, decimals), booleans, strings and
//! binaries (also large), fixed-size binaries, fixed-size lists and structs of those, without
//! dictionaries. `covers` says whether a schema is one; the caller uses arrow's writer
//! otherwise.

use super::{compress, Compression};
use crate::error::{at, Result};
use arrow::array::{ArrayData, RecordBatch};
use arrow::buffer::Buffer;
use arrow::datatypes::{DataType, Schema};
use arrow::ipc::{self as fb, convert::schema_to_fb_offset, Block, MetadataVersion};
use flatbuffers::FlatBufferBuilder;
use std::fs::File;
use std::io::{IoSlice, Write};
use std::path::Path;

/// Buffers, message bodies and headers start on 64-byte boundaries of the file.
const ALIGNMENT: usize = 64;
const ZEROS: [u8; ALIGNMENT] = [0; ALIGNMENT];
const MAGIC: &[u8; 6] = b"ARROW1";
/// The stream format's end: the continuation marker and a zero length.
const END_OF_STREAM: [u8; 8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];
/// `writev` takes at most this many pieces at once (Linux's IOV_MAX).
const MAX_PIECES: usize = 1024;
/// Bytes handed to the kernel per `writev`. The kernel sizes page-cache folios by the length
/// of each write: a whole 23 MB batch in one call gets 2 MiB folios, calls of at most 512 KiB
/// get folios of at most 512 KiB. On virtual machines that hand free memory back to the host
/// (virtio-balloon free page reporting, in 2 MiB blocks), 2 MiB folios are exactly the
/// blocks the host has taken back, and filling them costs a host fault per page: copying a
/// 4 GB table with `dd` took 4.1–4.8 s in 2 MiB writes and 1.6–1.8 s in 512 KiB writes on the
/// 2-core VM this was measured on. Smaller calls cost a few microseconds each (8,000 for 4 GB).
const MAX_CALL_BYTES: usize = 512 * 1024;

fn padding(len: usize) -> usize {
    (ALIGNMENT - len % ALIGNMENT) % ALIGNMENT
}

/// Whether every column of `schema` is a type this writer covers.
pub fn covers(schema: &Schema) -> bool {
    schema.fields().iter().all(|f| covered(f.data_type()))
}

fn covered(data_type: &DataType) -> bool {
    use DataType::*;
    match data_type {
        Boolean | Utf8 | LargeUtf8 | Binary | LargeBinary | FixedSizeBinary(_) => true,
        FixedSizeList(field, _) => covered(field.data_type()),
        Struct(fields) => fields.iter().all(|f| covered(f.data_type())),
        other => other.is_primitive(),
    }
}

/// One record batch's body: its field nodes, buffer positions and the buffers themselves.
#[derive(Default)]
struct Body {
    nodes: Vec<fb::FieldNode>,
    positions: Vec<fb::Buffer>,
    buffers: Vec<Buffer>,
    len: usize,
    /// The codec of compressed buffers (none: as the arrays hold them).
    codec: Option<fb::CompressionType>,
}

impl Body {
    /// The same buffers, compressed with `codec`, in their place.
    fn replace_buffers(&mut self, packed: Vec<Buffer>, codec: fb::CompressionType) {
        self.positions.clear();
        self.buffers.clear();
        self.len = 0;
        for buffer in packed {
            self.push(buffer);
        }
        self.codec = Some(codec);
    }

    fn push(&mut self, buffer: Buffer) {
        self.positions
            .push(fb::Buffer::new(self.len as i64, buffer.len() as i64));
        self.len += buffer.len() + padding(buffer.len());
        self.buffers.push(buffer);
    }

    fn array(&mut self, data: &ArrayData) {
        let (offset, len) = (data.offset(), data.len());
        self.nodes
            .push(fb::FieldNode::new(len as i64, data.null_count() as i64));
        match data.nulls().filter(|n| n.null_count() > 0) {
            // Zero-copy when the slice starts on a byte of the bitmap.
            Some(nulls) => self.push(nulls.inner().sliced()),
            None => self.push(Buffer::from_vec(Vec::<u8>::new())),
        }
        let values = |i: usize| {
            data.buffers()
                .get(i)
                .cloned()
                .unwrap_or_else(|| Buffer::from_vec(Vec::<u8>::new()))
        };
        match data.data_type() {
            DataType::Boolean => self.push(values(0).bit_slice(offset, len)),
            DataType::Utf8 | DataType::Binary => {
                self.offsets::<i32>(&values(0), &values(1), offset, len)
            }
            DataType::LargeUtf8 | DataType::LargeBinary => {
                self.offsets::<i64>(&values(0), &values(1), offset, len)
            }
            DataType::FixedSizeBinary(width) => {
                let width = *width as usize;
                self.push(values(0).slice_with_length(offset * width, len * width));
            }
            DataType::FixedSizeList(_, size) => {
                let size = *size as usize;
                if let Some(child) = data.child_data().first() {
                    self.array(&child.slice(offset * size, len * size));
                }
            }
            DataType::Struct(_) => {
                for child in data.child_data() {
                    self.array(&child.slice(offset, len));
                }
            }
            other => {
                let width = other.primitive_width().unwrap_or(0);
                self.push(values(0).slice_with_length(offset * width, len * width));
            }
        }
    }

    /// Offsets from zero and the values they span: sliced in place when the slice's first
    /// offset is already zero, rebased into a copy of the offsets otherwise.
    fn offsets<O>(&mut self, offsets: &Buffer, values: &Buffer, offset: usize, len: usize)
    where
        O: arrow::datatypes::ArrowNativeType + std::ops::Sub<Output = O>,
    {
        let all: &[O] = offsets.typed_data();
        let mine = all.get(offset..offset + len + 1).unwrap_or_default();
        let (first, last) = match (mine.first(), mine.last()) {
            (Some(f), Some(l)) => (*f, *l),
            _ => {
                self.push(Buffer::from_vec(vec![O::usize_as(0)]));
                self.push(Buffer::from_vec(Vec::<u8>::new()));
                return;
            }
        };
        let width = std::mem::size_of::<O>();
        if first.as_usize() == 0 {
            self.push(offsets.slice_with_length(offset * width, (len + 1) * width));
        } else {
            let rebased: Vec<O> = mine.iter().map(|&o| o - first).collect();
            self.push(Buffer::from_vec(rebased));
        }
        let (start, end) = (first.as_usize(), last.as_usize());
        self.push(values.slice_with_length(start, end - start));
    }
}

/// A message's encapsulation: continuation marker, length, flatbuffer, then padding so that
/// whatever follows (its body, the next message) starts on a 64-byte boundary of the file.
pub(super) fn encapsulate(flatbuffer: &[u8], at: usize) -> Vec<u8> {
    let pad = padding(at + 8 + flatbuffer.len());
    let mut out = Vec::with_capacity(8 + flatbuffer.len() + pad);
    out.extend_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
    out.extend_from_slice(&((flatbuffer.len() + pad) as i32).to_le_bytes());
    out.extend_from_slice(flatbuffer);
    out.extend_from_slice(&ZEROS[..pad]);
    out
}

pub(super) fn message(
    fbb: &mut FlatBufferBuilder,
    kind: fb::MessageHeader,
    header: flatbuffers::WIPOffset<flatbuffers::UnionWIPOffset>,
    body_len: usize,
    version: MetadataVersion,
) -> Vec<u8> {
    let mut m = fb::MessageBuilder::new(fbb);
    m.add_version(version);
    m.add_header_type(kind);
    m.add_header(header);
    m.add_bodyLength(body_len as i64);
    let m = m.finish();
    fbb.finish(m, None);
    fbb.finished_data().to_vec()
}

/// What a record batch's message header says: its rows, field nodes, buffer positions, codec
/// (none: plain buffers), variadic buffer counts (views), body length and metadata version.
pub(super) struct BatchHeader<'a> {
    pub rows: i64,
    pub nodes: &'a [fb::FieldNode],
    pub positions: &'a [fb::Buffer],
    pub codec: Option<fb::CompressionType>,
    pub variadic: Option<&'a [i64]>,
    pub body_len: usize,
    pub version: MetadataVersion,
}

/// A record batch's message header, encapsulated to start its body 64-aligned from `at`.
pub(super) fn batch_header(header: &BatchHeader, at: usize) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let nodes = fbb.create_vector(header.nodes);
    let positions = fbb.create_vector(header.positions);
    let variadic = header.variadic.map(|counts| fbb.create_vector(counts));
    let codec = header.codec.map(|codec| {
        let mut c = fb::BodyCompressionBuilder::new(&mut fbb);
        c.add_codec(codec);
        c.add_method(fb::BodyCompressionMethod::BUFFER);
        c.finish()
    });
    let mut rb = fb::RecordBatchBuilder::new(&mut fbb);
    rb.add_length(header.rows);
    rb.add_nodes(nodes);
    rb.add_buffers(positions);
    if let Some(codec) = codec {
        rb.add_compression(codec);
    }
    if let Some(variadic) = variadic {
        rb.add_variadicBufferCounts(variadic);
    }
    let rb = rb.finish();
    encapsulate(
        &message(
            &mut fbb,
            fb::MessageHeader::RecordBatch,
            rb.as_union_value(),
            header.body_len,
            header.version,
        ),
        at,
    )
}

struct Out<'a> {
    file: &'a File,
    path: &'a Path,
    at: usize,
}

impl Out<'_> {
    /// Writes the pieces in `writev` calls of at most `MAX_PIECES` pieces and `MAX_CALL_BYTES`.
    fn write(&mut self, pieces: &[&[u8]]) -> Result<()> {
        for group in calls(pieces, MAX_PIECES, MAX_CALL_BYTES) {
            let mut slices: Vec<IoSlice> = group.iter().map(|p| IoSlice::new(p)).collect();
            let mut rest: &mut [IoSlice] = &mut slices;
            while !rest.is_empty() {
                let n = self.file.write_vectored(rest).map_err(at(self.path))?;
                if n == 0 {
                    return Err(at(self.path)(std::io::ErrorKind::WriteZero.into()));
                }
                self.at += n;
                IoSlice::advance_slices(&mut rest, n);
            }
        }
        Ok(())
    }
}

/// The pieces cut into calls of at most `max_pieces` pieces and `max_bytes` bytes, in order;
/// a piece longer than `max_bytes` is cut across calls. Empty pieces are left out.
fn calls<'a>(pieces: &[&'a [u8]], max_pieces: usize, max_bytes: usize) -> Vec<Vec<&'a [u8]>> {
    let mut out: Vec<Vec<&[u8]>> = Vec::new();
    let mut call: Vec<&[u8]> = Vec::new();
    let mut bytes = 0;
    for &piece in pieces {
        let mut rest = piece;
        while !rest.is_empty() {
            if call.len() == max_pieces || bytes == max_bytes {
                out.push(std::mem::take(&mut call));
                bytes = 0;
            }
            let (now, later) = rest.split_at(rest.len().min(max_bytes - bytes));
            call.push(now);
            bytes += now.len();
            rest = later;
        }
    }
    if !call.is_empty() {
        out.push(call);
    }
    out
}

/// Writes `batches` (of a schema `covers` accepts) as an IPC file into `file`, created empty at
/// `path`, its bodies compressed with `compression` on up to `threads` threads.
pub fn write(
    file: &File,
    path: &Path,
    schema: &Schema,
    batches: &[RecordBatch],
    compression: Compression,
    threads: usize,
) -> Result<u64> {
    let mut out = Out { file, path, at: 0 };
    let mut fbb = FlatBufferBuilder::new();
    let fb_schema = schema_to_fb_offset(&mut fbb, schema);
    let schema_message = encapsulate(
        &message(
            &mut fbb,
            fb::MessageHeader::Schema,
            fb_schema.as_union_value(),
            0,
            MetadataVersion::V5,
        ),
        8,
    );
    out.write(&[MAGIC, &[0, 0], &schema_message])?;
    let mut blocks = Vec::with_capacity(batches.len());
    for batch in batches {
        let mut body = Body::default();
        for column in batch.columns() {
            body.array(&column.to_data());
        }
        if let Some(codec) = compression.ipc() {
            let packed = compress::buffers(&body.buffers, compression, threads)?;
            body.replace_buffers(packed.into_iter().map(Buffer::from_vec).collect(), codec);
        }
        let header = batch_header(
            &BatchHeader {
                rows: batch.num_rows() as i64,
                nodes: &body.nodes,
                positions: &body.positions,
                codec: body.codec,
                variadic: None,
                body_len: body.len,
                version: MetadataVersion::V5,
            },
            out.at,
        );
        blocks.push(Block::new(
            out.at as i64,
            header.len() as i32,
            body.len as i64,
        ));
        let mut pieces: Vec<&[u8]> = Vec::with_capacity(1 + 2 * body.buffers.len());
        pieces.push(&header);
        for buffer in &body.buffers {
            pieces.push(buffer.as_slice());
            pieces.push(&ZEROS[..padding(buffer.len())]);
        }
        out.write(&pieces)?;
    }
    let mut fbb = FlatBufferBuilder::new();
    let fb_schema = schema_to_fb_offset(&mut fbb, schema);
    let dictionaries = fbb.create_vector::<Block>(&[]);
    let record_batches = fbb.create_vector(&blocks);
    let mut footer = fb::FooterBuilder::new(&mut fbb);
    footer.add_version(MetadataVersion::V5);
    footer.add_schema(fb_schema);
    footer.add_dictionaries(dictionaries);
    footer.add_recordBatches(record_batches);
    let footer = footer.finish();
    fbb.finish(footer, None);
    let footer = fbb.finished_data();
    // The stream ends with its end-of-stream marker, as the file format lists it.
    out.write(&[
        &END_OF_STREAM,
        footer,
        &(footer.len() as i32).to_le_bytes(),
        MAGIC,
    ])?;
    Ok(out.at as u64)
}

#[cfg(test)]
mod tests {
    use super::calls;

    fn lengths(groups: &[Vec<&[u8]>]) -> Vec<Vec<usize>> {
        groups
            .iter()
            .map(|g| g.iter().map(|p| p.len()).collect())
            .collect()
    }

    #[test]
    fn calls_keep_the_bytes_in_order_within_both_limits() {
        let data: Vec<u8> = (0..=255).cycle().take(2_000).collect();
        let pieces: Vec<&[u8]> = vec![&data[..10], &[], &data[10..1_500], &data[1_500..]];
        let groups = calls(&pieces, 3, 512);
        assert_eq!(
            lengths(&groups),
            vec![vec![10, 502], vec![512], vec![476, 36], vec![464]]
        );
        let joined: Vec<u8> = groups.concat().concat();
        assert_eq!(joined, data);
    }

    #[test]
    fn calls_respect_the_piece_limit() {
        let small = [1u8; 4];
        let pieces: Vec<&[u8]> = vec![&small; 5];
        assert_eq!(
            lengths(&calls(&pieces, 2, 1 << 20)),
            vec![vec![4, 4], vec![4, 4], vec![4]]
        );
        assert!(calls(&[], 2, 8).is_empty());
    }
}
