//! Compressed record-batch bodies, written as the IPC format lists them (each buffer its own
//! frame behind its uncompressed length), with the buffers of a batch compressed on several
//! threads at once: Arrow C++ (pyarrow's Feather writer) does the same, and a codec runs at
//! a few hundred MB/s where the rest of a write runs at memory speed.

use super::Compression;
use crate::error::{Result, StoreError};
use crate::parallel::in_turn;
use arrow::buffer::Buffer;
use std::io::Write;

/// zstd's level: 1, Arrow C++'s default, so a `zstd` file here is what pyarrow writes.
pub const ZSTD_LEVEL: i32 = 1;
/// In place of the uncompressed length: the buffer follows as it is (it did not shrink).
pub(super) const STORED_AS_IS: i64 = -1;

/// Each buffer as the body holds it: empty stays empty; otherwise its uncompressed length
/// (little-endian i64) and its frame, or -1 and the bytes themselves where the frame is no
/// smaller. Threads take the next buffer as they finish one, so a few large buffers among
/// many small ones still spread over them.
pub(super) fn buffers(
    buffers: &[Buffer],
    compression: Compression,
    threads: usize,
) -> Result<Vec<Vec<u8>>> {
    // One zstd context per thread (making one per buffer costs more than a small buffer), and
    // one scratch buffer the codecs write into, so each buffer's bytes are allocated once at
    // their size instead of at the codec's bound (page faults on memory unused).
    in_turn(
        threads,
        buffers.len(),
        || (None, Vec::new()),
        |(zstd, scratch), i| one(buffers[i].as_slice(), compression, zstd, scratch),
    )
}

fn one(
    input: &[u8],
    compression: Compression,
    zstd: &mut Option<zstd::bulk::Compressor<'static>>,
    scratch: &mut Vec<u8>,
) -> Result<Vec<u8>> {
    let zstd_error = |e: std::io::Error| StoreError::Invalid(format!("zstd: {e}"));
    if input.is_empty() {
        return Ok(Vec::new());
    }
    scratch.clear();
    scratch.extend_from_slice(&(input.len() as i64).to_le_bytes());
    let out = scratch;
    match compression {
        Compression::None => return Err(StoreError::Invalid("no codec to compress with".into())),
        Compression::Lz4 => {
            // Independent blocks sized by the encoder from the one write (a 64-byte bitmap
            // gets no 4 MiB block buffer).
            let info = lz4_flex::frame::FrameInfo::new()
                .block_mode(lz4_flex::frame::BlockMode::Independent);
            let mut encoder = lz4_flex::frame::FrameEncoder::with_frame_info(info, &mut *out);
            encoder
                .write_all(input)
                .map_err(|e| StoreError::Invalid(format!("lz4: {e}")))?;
            encoder
                .finish()
                .map_err(|e| StoreError::Invalid(format!("lz4: {e}")))?;
        }
        Compression::Zstd => {
            let compressor = match zstd {
                Some(compressor) => compressor,
                None => zstd.insert(zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(zstd_error)?),
            };
            let bound = zstd::zstd_safe::compress_bound(input.len());
            let at = out.len();
            out.resize(at + bound, 0);
            let n = compressor
                .compress_to_buffer(input, &mut out[at..])
                .map_err(zstd_error)?;
            out.truncate(at + n);
        }
    }
    if out.len() > 8 + input.len() {
        let mut stored = Vec::with_capacity(8 + input.len());
        stored.extend_from_slice(&STORED_AS_IS.to_le_bytes());
        stored.extend_from_slice(input);
        return Ok(stored);
    }
    Ok(out.clone())
}
