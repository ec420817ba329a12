//! An IPC file writer that hands the arrays' own buffers to the kernel: each record batch is
//! one gathered `writev` of its message header and its buffers, without first copying them
//! into a body buffer (arrow's writer does that copy, growing the buffer as it goes). Sliced
//! arrays are written as their slice: values are sliced in place; only what must change is
//! copied (offsets that do not start at zero, bitmaps that do not start on a byte).
//!
//! Types it covers: primitives (integers, floats, temporals, decimals), booleans, strings and
//! binaries (also large), fixed-size binaries, fixed-size lists and structs of those, without
//! dictionaries. `covers` says whether a schema is one; the caller uses arrow's writer
//! otherwise.

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
/// `writev` takes at most this many pieces at once (Linux's IOV_MAX).
const MAX_PIECES: usize = 1024;

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
}

impl Body {
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
fn encapsulate(flatbuffer: &[u8], at: usize) -> Vec<u8> {
    let pad = padding(at + 8 + flatbuffer.len());
    let mut out = Vec::with_capacity(8 + flatbuffer.len() + pad);
    out.extend_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
    out.extend_from_slice(&((flatbuffer.len() + pad) as i32).to_le_bytes());
    out.extend_from_slice(flatbuffer);
    out.extend_from_slice(&ZEROS[..pad]);
    out
}

fn message(
    fbb: &mut FlatBufferBuilder,
    kind: fb::MessageHeader,
    header: flatbuffers::WIPOffset<flatbuffers::UnionWIPOffset>,
    body_len: usize,
) -> Vec<u8> {
    let mut m = fb::MessageBuilder::new(fbb);
    m.add_version(MetadataVersion::V5);
    m.add_header_type(kind);
    m.add_header(header);
    m.add_bodyLength(body_len as i64);
    let m = m.finish();
    fbb.finish(m, None);
    fbb.finished_data().to_vec()
}

struct Out<'a> {
    file: File,
    path: &'a Path,
    at: usize,
}

impl Out<'_> {
    /// Writes the pieces with as few `writev` calls as the kernel allows.
    fn write(&mut self, pieces: &[&[u8]]) -> Result<()> {
        for group in pieces.chunks(MAX_PIECES) {
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

/// Writes `batches` (of a schema `covers` accepts) as an uncompressed IPC file at `path`.
pub fn write(path: &Path, schema: &Schema, batches: &[RecordBatch]) -> Result<u64> {
    let mut out = Out {
        file: File::create(path).map_err(at(path))?,
        path,
        at: 0,
    };
    let mut fbb = FlatBufferBuilder::new();
    let fb_schema = schema_to_fb_offset(&mut fbb, schema);
    let schema_message = encapsulate(
        &message(
            &mut fbb,
            fb::MessageHeader::Schema,
            fb_schema.as_union_value(),
            0,
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
        let mut fbb = FlatBufferBuilder::new();
        let nodes = fbb.create_vector(&body.nodes);
        let positions = fbb.create_vector(&body.positions);
        let mut rb = fb::RecordBatchBuilder::new(&mut fbb);
        rb.add_length(batch.num_rows() as i64);
        rb.add_nodes(nodes);
        rb.add_buffers(positions);
        let rb = rb.finish();
        let header = encapsulate(
            &message(
                &mut fbb,
                fb::MessageHeader::RecordBatch,
                rb.as_union_value(),
                body.len,
            ),
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
    out.write(&[footer, &(footer.len() as i32).to_le_bytes(), MAGIC])?;
    Ok(out.at as u64)
}
