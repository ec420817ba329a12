//! Opening an IPC file in two steps: the trailer and footer (the schema and where the blocks
//! lie), then every block's message header (each block's row count and, for plain and ranged
//! reads, where its buffers lie). A table learns its schema from the first step alone, and a
//! file read by ranges keeps what that step fetched for the second, so nothing is fetched
//! twice and a partition a read does not need costs no block headers.

use super::{columns, flatbuffer_options, Body, IpcFile, RangeSource};
use crate::error::{at, Result, StoreError};
use arrow::datatypes::SchemaRef;
use arrow::ipc::convert::try_fb_to_schema;
use arrow::ipc::reader::read_footer_length;
use arrow::ipc::{Block, MetadataVersion};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a file's footer says.
struct Footer {
    schema: SchemaRef,
    version: MetadataVersion,
    blocks: Vec<Block>,
    dictionaries: Vec<Block>,
}

/// A file whose trailer and footer are read (its schema known), its block headers not yet.
pub struct FooterRead {
    path: PathBuf,
    body: Body,
    footer: Footer,
}

impl FooterRead {
    /// The footer of the file read by ranges from `source` (`name` only names it in errors).
    pub fn ranged(name: &Path, source: Box<dyn RangeSource>) -> Result<FooterRead> {
        Self::of(name, Body::Ranged(source))
    }

    /// The footer of the local file at `path`, for plain reads.
    pub fn plain(path: &Path) -> Result<FooterRead> {
        Self::of(path, Body::Plain(File::open(path).map_err(at(path))?))
    }

    fn of(path: &Path, body: Body) -> Result<FooterRead> {
        let footer = read_footer(path, &body)?;
        Ok(FooterRead {
            path: path.to_path_buf(),
            body,
            footer,
        })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.footer.schema
    }

    /// The file, its block headers read.
    pub fn open(self) -> Result<IpcFile> {
        with_headers(&self.path, self.body, self.footer)
    }
}

impl IpcFile {
    pub(super) fn parse(path: &Path, body: Body) -> Result<Self> {
        let footer = read_footer(path, &body)?;
        with_headers(path, body, footer)
    }
}

fn invalid(path: &Path, what: String) -> StoreError {
    StoreError::Corrupt(format!(
        "{} is not an Arrow IPC file: {what}",
        path.display()
    ))
}

/// `n` bytes at `offset` of the file's body.
fn read_at(path: &Path, body: &Body, offset: u64, n: usize) -> Result<Vec<u8>> {
    match body {
        Body::Mapped(buffer) => buffer
            .as_slice()
            .get(offset as usize..offset as usize + n)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| invalid(path, "a block past the end".into())),
        Body::Plain(file) => {
            let mut out = vec![0; n];
            file.read_exact_at(&mut out, offset).map_err(at(path))?;
            Ok(out)
        }
        Body::Ranged(source) => source.read_range(offset, n).map_err(at(path)),
    }
}

fn read_footer(path: &Path, body: &Body) -> Result<Footer> {
    let invalid = |what: String| invalid(path, what);
    let len = match body {
        Body::Mapped(buffer) => buffer.len() as u64,
        Body::Plain(file) => file.metadata().map_err(at(path))?.len(),
        Body::Ranged(source) => source.size(),
    };
    if len < 10 {
        return Err(invalid("too short".into()));
    }
    let trailer: [u8; 10] = read_at(path, body, len - 10, 10)?
        .try_into()
        .map_err(|_| invalid("short trailer".into()))?;
    let footer_len = read_footer_length(trailer)? as u64;
    if footer_len + 10 > len {
        return Err(invalid("footer length past the start".into()));
    }
    let footer_bytes = read_at(path, body, len - 10 - footer_len, footer_len as usize)?;
    let footer = arrow::ipc::root_as_footer_with_opts(&flatbuffer_options(), &footer_bytes)
        .map_err(|e| invalid(e.to_string()))?;
    let schema = Arc::new(try_fb_to_schema(
        footer.schema().ok_or_else(|| invalid("no schema".into()))?,
    )?);
    Ok(Footer {
        schema,
        version: footer.version(),
        blocks: footer
            .recordBatches()
            .map(|b| b.iter().copied().collect())
            .unwrap_or_default(),
        dictionaries: footer
            .dictionaries()
            .map(|b| b.iter().copied().collect())
            .unwrap_or_default(),
    })
}

fn with_headers(path: &Path, body: Body, footer: Footer) -> Result<IpcFile> {
    let invalid = |what: String| invalid(path, what);
    let Footer {
        schema,
        version,
        blocks,
        dictionaries,
    } = footer;
    let mut rows = Vec::with_capacity(blocks.len());
    let mut codec = String::from("none");
    // Plain and ranged reads keep each block's buffer layout, so a projection reads only
    // its columns' buffers; a mapping touches only those anyway.
    let mut ranged = (!matches!(body, Body::Mapped(_))).then(|| columns::RangedBlocks {
        column_buffers: columns::column_buffers(&schema),
        headers: Vec::with_capacity(blocks.len()),
        buffers: Vec::with_capacity(blocks.len()),
        buffers_at: Vec::with_capacity(blocks.len()),
    });
    // Ranged: every header in one call, so a source fetches them concurrently (and merges
    // the headers of small blocks); the others read each where the loop needs it.
    let mut prefetched = match &body {
        Body::Ranged(source) => {
            let wanted: Vec<(u64, usize)> = blocks
                .iter()
                .map(|b| (b.offset().max(0) as u64, b.metaDataLength().max(0) as usize))
                .collect();
            let headers = source.read_ranges(&wanted).map_err(at(path))?;
            if headers.len() != blocks.len() {
                return Err(invalid("fewer block headers than blocks".into()));
            }
            Some(headers.into_iter())
        }
        _ => None,
    };
    for (i, block) in blocks.iter().enumerate() {
        let meta = match prefetched.as_mut().and_then(Iterator::next) {
            Some(header) => header.to_vec(),
            None => read_at(
                path,
                &body,
                block.offset() as u64,
                block.metaDataLength() as usize,
            )?,
        };
        // A message starts with the continuation marker and its length, or (legacy) the length.
        let start = if meta.starts_with(&[0xFF; 4]) { 8 } else { 4 };
        let message = arrow::ipc::root_as_message_with_opts(
            &flatbuffer_options(),
            meta.get(start..).unwrap_or_default(),
        )
        .map_err(|e| invalid(e.to_string()))?;
        let batch = message
            .header_as_record_batch()
            .ok_or_else(|| invalid("a block is not a record batch".into()))?;
        rows.push(batch.length().max(0) as u64);
        if let Some(ranged) = ranged.as_mut() {
            let buffers: columns::BodyBuffers = batch
                .buffers()
                .map(|b| {
                    b.iter()
                        .map(|b| (b.offset().max(0) as u64, b.length().max(0) as u64))
                        .collect()
                })
                .unwrap_or_default();
            // A header listing other buffers than the schema maps is read whole.
            let mapped = ranged
                .column_buffers
                .as_ref()
                .and_then(|spans| spans.last());
            if mapped.is_some_and(|last| last.end != buffers.len()) {
                ranged.column_buffers = None;
            }
            ranged.buffers.push(buffers);
            // Where the header's buffer list lies in it, so a projection can rewrite it.
            let at = batch.buffers().and_then(|list| {
                (list.bytes().as_ptr() as usize).checked_sub(meta.as_ptr() as usize)
            });
            ranged.buffers_at.push(at);
        }
        if i == 0 {
            if let Some(compression) = batch.compression() {
                codec = format!("{:?}", compression.codec()).to_lowercase();
            }
        }
        // The header is kept as fetched (moved, not copied) once nothing reads it here.
        if let Some(ranged) = ranged.as_mut() {
            ranged.headers.push(meta);
        }
    }
    Ok(IpcFile {
        path: path.to_path_buf(),
        body,
        schema,
        version,
        dictionaries,
        blocks,
        rows,
        codec,
        trusted: false,
        ranged,
        threads: 1,
    })
}
