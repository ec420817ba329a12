//! Arrow IPC files: what a reader must fetch, from the file's footer and block headers. The
//! trailer and footer; every record batch's header (the footer's blocks say where batches lie
//! but not which rows they hold, nor where a column's buffers are); in the blocks holding
//! selected rows, the projected columns' buffers, or the whole body where everything is read
//! or a layout's buffers are not mapped here; for a range by index value, every block's index
//! column too; the dictionary batches of the projected columns. The leading schema message is
//! not needed: the footer holds the schema.

use super::read::{Columns, Read, Rows};
use super::spans::{holds, index_rows, read_at, Needed, NeededError, Spans};
use arrow::datatypes::{DataType, Schema};
use arrow::ipc::{root_as_footer_with_opts, root_as_message_with_opts};
use std::collections::BTreeSet;
use std::fs::File;
use std::ops::Range;
use std::path::Path;

/// The file's last 10 bytes: the footer's 4-byte length and the magic `ARROW1`.
const TRAILER: u64 = 10;
const MAGIC: &[u8; 6] = b"ARROW1";

fn flatbuffer_options() -> flatbuffers::VerifierOptions {
    // A wide table (thousands of columns) exceeds the verifier's default table count.
    flatbuffers::VerifierOptions {
        max_tables: 100_000_000,
        max_depth: 128,
        ..Default::default()
    }
}

/// The needed bytes of `read` on the IPC file at `path`; `None` where the yardstick does not
/// say (a column the file lacks).
pub(super) fn needed(path: &Path, read: &Read) -> Result<Option<Needed>, NeededError> {
    let malformed = |what: &str| NeededError::malformed(path, what);
    let file = File::open(path).map_err(NeededError::io(path))?;
    let size = file.metadata().map_err(NeededError::io(path))?.len();
    if size < TRAILER + 8 {
        return Err(malformed("shorter than an Arrow IPC file"));
    }
    let trailer = read_at(&file, path, size - TRAILER, TRAILER)?;
    if trailer[4..] != *MAGIC {
        return Err(malformed("no Arrow IPC file magic at its end"));
    }
    let footer_len = u64::from(u32::from_le_bytes([
        trailer[0], trailer[1], trailer[2], trailer[3],
    ]));
    let footer_start = size
        .checked_sub(TRAILER + footer_len)
        .ok_or_else(|| malformed("its footer is longer than the file"))?;
    let footer_bytes = read_at(&file, path, footer_start, footer_len)?;
    let footer = root_as_footer_with_opts(&flatbuffer_options(), &footer_bytes)
        .map_err(|e| malformed(&format!("its footer does not parse: {e}")))?;
    let fb_schema = footer
        .schema()
        .ok_or_else(|| malformed("its footer has no schema"))?;
    let schema =
        arrow::ipc::convert::try_fb_to_schema(fb_schema).map_err(NeededError::arrow(path))?;
    let Some(projected) = projection(&schema, &read.columns) else {
        return Ok(None);
    };
    let everything = projected.len() == schema.fields().len();
    let (rows, index_column) = match &read.rows {
        Rows::All => (None, None),
        Rows::Positions(rows) => (Some(rows.clone()), None),
        Rows::Index { column, lo, hi } => {
            let Ok(root) = schema.index_of(column) else {
                return Ok(None);
            };
            (
                Some(index_positions(&file, path, root, *lo, *hi)?),
                Some(root),
            )
        }
    };
    let mut spans = Spans::default();
    spans.add(footer_start..size);

    // The dictionaries of the projected columns (every one when all columns are read).
    let mut wanted_ids = BTreeSet::new();
    if let Some(fields) = fb_schema.fields() {
        for (i, field) in fields.iter().enumerate() {
            if projected.contains(&i) || index_column == Some(i) {
                dictionary_ids(field, &mut wanted_ids);
            }
        }
    }
    for block in footer.dictionaries().iter().flatten() {
        let (start, header) = (block_start(block), block_header(path, block)?);
        let bytes = message_bytes(path, &file, start, header)?;
        let message = root_as_message_with_opts(&flatbuffer_options(), &bytes)
            .map_err(|e| malformed(&format!("a block header does not parse: {e}")))?;
        let id = message
            .header_as_dictionary_batch()
            .ok_or_else(|| malformed("a dictionary block holds no dictionary batch"))?
            .id();
        if everything || wanted_ids.contains(&id) {
            spans.add(start..start + header + block_body(path, block)?);
        }
    }

    let column_buffers = column_buffers(&schema);
    let mut first_row = 0u64;
    for block in footer.recordBatches().iter().flatten() {
        let (start, header) = (block_start(block), block_header(path, block)?);
        spans.add(start..start + header);
        let bytes = message_bytes(path, &file, start, header)?;
        let message = root_as_message_with_opts(&flatbuffer_options(), &bytes)
            .map_err(|e| malformed(&format!("a block header does not parse: {e}")))?;
        let batch = message
            .header_as_record_batch()
            .ok_or_else(|| malformed("a record batch block holds no record batch"))?;
        let block_rows = first_row..first_row + batch.length().max(0) as u64;
        first_row = block_rows.end;
        let held = rows.as_ref().is_none_or(|rows| holds(rows, block_rows));
        let mut columns: Vec<usize> = match held {
            true => projected.clone(),
            false => Vec::new(),
        };
        if let Some(index) = index_column {
            // Which rows a block holds is known only from its index column.
            columns.push(index);
        }
        if columns.is_empty() {
            continue;
        }
        let body_start = start + header;
        let body_len = block_body(path, block)?;
        let buffers: Vec<(u64, u64)> = batch
            .buffers()
            .iter()
            .flatten()
            .map(|b| (b.offset().max(0) as u64, b.length().max(0) as u64))
            .collect();
        let mapped = column_buffers
            .as_ref()
            .filter(|spans| spans.last().map_or(0, |s| s.end) == buffers.len());
        match mapped {
            Some(map) if !(held && everything) => {
                let listed = columns
                    .iter()
                    .filter_map(|&c| buffers.get(map.get(c)?.clone()))
                    .flatten();
                for &(offset, len) in listed {
                    if offset.checked_add(len).is_none_or(|end| end > body_len) {
                        return Err(malformed("a buffer lies past its record batch's body"));
                    }
                    spans.add(body_start + offset..body_start + offset + len);
                }
            }
            _ => spans.add(body_start..body_start + body_len),
        }
    }
    Ok(Some(spans.needed()))
}

/// The top-level columns `columns` names, as positions in `schema`; `None` when it names one
/// the file lacks.
fn projection(schema: &Schema, columns: &Columns) -> Option<Vec<usize>> {
    match columns.named() {
        None => Some((0..schema.fields().len()).collect()),
        Some(names) => {
            let mut out: Vec<usize> = names
                .iter()
                .map(|n| schema.index_of(n).ok())
                .collect::<Option<_>>()?;
            out.sort_unstable();
            out.dedup();
            Some(out)
        }
    }
}

fn block_start(block: &arrow::ipc::Block) -> u64 {
    block.offset().max(0) as u64
}

fn block_header(path: &Path, block: &arrow::ipc::Block) -> Result<u64, NeededError> {
    u64::try_from(block.metaDataLength())
        .map_err(|_| NeededError::malformed(path, "a block with a negative header length"))
}

fn block_body(path: &Path, block: &arrow::ipc::Block) -> Result<u64, NeededError> {
    u64::try_from(block.bodyLength())
        .map_err(|_| NeededError::malformed(path, "a block with a negative body length"))
}

/// The message flatbuffer of the block at `start` whose header is `len` bytes: after a
/// continuation marker and a length (an older file has the length alone).
fn message_bytes(path: &Path, file: &File, start: u64, len: u64) -> Result<Vec<u8>, NeededError> {
    let mut bytes = read_at(file, path, start, len)?;
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    let short = || NeededError::malformed(path, "a block header is cut short");
    let (at, fb_len) = match word(0).ok_or_else(short)? {
        0xFFFF_FFFF => (8, word(4).ok_or_else(short)?),
        fb_len => (4, fb_len),
    };
    let end = at + fb_len as usize;
    if end > bytes.len() {
        return Err(short());
    }
    bytes.truncate(end);
    bytes.drain(..at);
    Ok(bytes)
}

/// The dictionary ids a field and its children use.
fn dictionary_ids(field: arrow::ipc::Field, out: &mut BTreeSet<i64>) {
    if let Some(encoding) = field.dictionary() {
        out.insert(encoding.id());
    }
    for child in field.children().iter().flatten() {
        dictionary_ids(child, out);
    }
}

/// How many buffers a field of this type and its children take in a record batch's body, in
/// the order the body lists them; `None` where the count varies by batch (views' variadic
/// buffers) or writers differ (null arrays), and for unions and run-end encoding.
fn buffer_count(data_type: &DataType) -> Option<usize> {
    Some(match data_type {
        DataType::Null => return None,
        DataType::Boolean | DataType::FixedSizeBinary(_) | DataType::Dictionary(..) => 2,
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

/// The buffer indices of each top-level column; `None` when some column's are not mapped.
fn column_buffers(schema: &Schema) -> Option<Vec<Range<usize>>> {
    let mut next = 0;
    schema
        .fields()
        .iter()
        .map(|field| {
            let span = next..next + buffer_count(field.data_type())?;
            next = span.end;
            Some(span)
        })
        .collect()
}

/// The positions of the rows whose value of the top-level column `root` lies in `[lo, hi)`,
/// read from the local file (the yardstick's own reading, not the measured reader's).
fn index_positions(
    file: &File,
    path: &Path,
    root: usize,
    lo: i64,
    hi: i64,
) -> Result<Vec<Range<u64>>, NeededError> {
    let file = file.try_clone().map_err(NeededError::io(path))?;
    let reader = arrow::ipc::reader::FileReaderBuilder::new()
        .with_projection(vec![root])
        .with_max_footer_fb_tables(100_000_000)
        .with_max_footer_fb_depth(128)
        .build(std::io::BufReader::new(file))
        .map_err(NeededError::arrow(path))?;
    index_rows(reader, path, lo, hi)
}
