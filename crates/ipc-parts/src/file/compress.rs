//! Compressed record-batch bodies, written as the IPC format lists them (each buffer its own
//! frame behind its uncompressed length), with the buffers of a batch compressed on several
//! threads at once: Arrow C++ (pyarrow's Feather writer) does the same, and a codec runs at
//! a few hundred MB/s where the rest of a write runs at memory speed.

use super::Compression;
use crate::error::{Result, StoreError};
use arrow::buffer::Buffer;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

/// zstd's level: 1, Arrow C++'s default, so a `zstd` file here is what pyarrow writes.
pub const ZSTD_LEVEL: i32 = 1;
/// In place of the uncompressed length: the buffer follows as it is (it did not shrink).
const STORED_AS_IS: i64 = -1;

/// Each buffer as the body holds it: empty stays empty; otherwise its uncompressed length
/// (little-endian i64) and its frame, or -1 and the bytes themselves where the frame is no
/// smaller. Threads take the next buffer as they finish one, so a few large buffers among
/// many small ones still spread over them.
pub(super) fn buffers(
    buffers: &[Buffer],
    compression: Compression,
    threads: usize,
) -> Result<Vec<Vec<u8>>> {
    let next = AtomicUsize::new(0);
    let work = || -> Result<Vec<(usize, Vec<u8>)>> {
        let mut done = Vec::new();
        // One zstd context per thread: making one per buffer costs more than a small buffer.
        // And one scratch buffer the codecs write into, so each buffer's bytes are allocated
        // once at their size instead of at the codec's bound (page faults on memory unused).
        let mut zstd = None;
        let mut scratch = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(buffer) = buffers.get(i) else {
                return Ok(done);
            };
            let packed = one(buffer.as_slice(), compression, &mut zstd, &mut scratch)?;
            done.push((i, packed));
        }
    };
    let threads = threads.clamp(1, buffers.len().max(1));
    let mut packed: Vec<(usize, Vec<u8>)> = if threads == 1 {
        work()?
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
            // Every thread joined before an error returns: the scope would panic on a thread
            // that panicked and was left unjoined.
            let parts: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
            let mut all = Vec::with_capacity(buffers.len());
            for part in parts {
                all.extend(
                    part.map_err(|_| StoreError::Invalid("a compressing thread panicked".into()))??,
                );
            }
            Ok::<_, StoreError>(all)
        })?
    };
    packed.sort_unstable_by_key(|(i, _)| *i);
    Ok(packed.into_iter().map(|(_, bytes)| bytes).collect())
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
