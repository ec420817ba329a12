//! A compressed record batch made plain before it is decoded, its buffers decompressed on
//! several threads at once into one body: arrow's decoder decompresses them one after another,
//! where Arrow C++ (pyarrow) spreads them over its threads. The header is written anew for the
//! plain body (the same nodes, the buffers where they now lie, no codec).

use super::compress::STORED_AS_IS;
use super::direct::{batch_header, BatchHeader};
use super::lz4_frame::{self, Bad};
use super::{Compression, ALIGNMENT};
use crate::error::{Result, StoreError};
use crate::parallel::in_turn;
use arrow::buffer::Buffer;
use arrow::ipc::{self as fb, Block};
use std::io::Read;
use std::sync::Mutex;

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("a compressed record batch's {what}"))
}

/// `bytes` (a block's header and body, as read) with its body decompressed, and the block that
/// now describes it; `None` when the block is not compressed. Only the buffers `wanted` marks
/// (all when `None`) are decompressed; the others become empty (a projection's read left them
/// out of the body, or zeroed).
pub(super) fn plain_block(
    bytes: &Buffer,
    meta_len: usize,
    wanted: Option<&[bool]>,
    threads: usize,
) -> Result<Option<(Buffer, Block)>> {
    let header = bytes.get(..meta_len).ok_or_else(|| corrupt("header"))?;
    let start = if header.starts_with(&[0xFF; 4]) { 8 } else { 4 };
    let message_fb = fb::root_as_message(header.get(start..).unwrap_or_default())
        .map_err(|e| corrupt(&e.to_string()))?;
    let batch = message_fb
        .header_as_record_batch()
        .ok_or_else(|| corrupt("header"))?;
    let Some(codec) = batch.compression() else {
        return Ok(None);
    };
    let compression = match codec.codec() {
        fb::CompressionType::LZ4_FRAME => Compression::Lz4,
        fb::CompressionType::ZSTD => Compression::Zstd,
        other => return Err(corrupt(&format!("codec {other:?}"))),
    };
    let body = &bytes[meta_len..];
    let listed: Vec<(usize, usize)> = batch
        .buffers()
        .map(|list| {
            list.iter()
                .map(|b| (b.offset().max(0) as usize, b.length().max(0) as usize))
                .collect()
        })
        .unwrap_or_default();
    // Each buffer's compressed bytes, its plain length, where it goes in the plain body, and
    // whether it is stored as it is.
    let mut pieces = Vec::with_capacity(listed.len());
    let mut at: usize = 0;
    for (i, &(offset, len)) in listed.iter().enumerate() {
        if wanted.is_some_and(|w| !w.get(i).copied().unwrap_or(false)) {
            pieces.push((&body[..0], 0, at, true));
            continue;
        }
        let packed = body
            .get(offset..offset.saturating_add(len))
            .ok_or_else(|| corrupt("buffer past its body"))?;
        let (plain, frame, stored) = match packed.split_first_chunk::<8>() {
            None if packed.is_empty() => (0, packed, true),
            None => return Err(corrupt("buffer prefix")),
            Some((prefix, rest)) => match i64::from_le_bytes(*prefix) {
                STORED_AS_IS => (rest.len(), rest, true),
                n if n >= 0 => (n as usize, rest, false),
                _ => return Err(corrupt("uncompressed length")),
            },
        };
        pieces.push((frame, plain, at, stored));
        // A stated length past what memory could hold is a corrupt file, not a panic.
        at = plain
            .checked_add((ALIGNMENT - plain % ALIGNMENT) % ALIGNMENT)
            .and_then(|padded| at.checked_add(padded))
            .filter(|&end| end <= isize::MAX as usize / 2)
            .ok_or_else(|| corrupt("uncompressed length"))?;
    }
    let body_len = at;
    // The new header first: it only needs where the buffers go.
    let nodes: Vec<fb::FieldNode> = batch
        .nodes()
        .map(|n| n.iter().copied().collect())
        .unwrap_or_default();
    let positions: Vec<fb::Buffer> = pieces
        .iter()
        .map(|&(_, plain, at, _)| fb::Buffer::new(at as i64, plain as i64))
        .collect();
    let variadic: Option<Vec<i64>> = batch.variadicBufferCounts().map(|c| c.iter().collect());
    let header = batch_header(
        &BatchHeader {
            rows: batch.length(),
            nodes: &nodes,
            positions: &positions,
            codec: None,
            variadic: variadic.as_deref(),
            body_len,
            version: message_fb.version(),
        },
        0,
    );
    let new_meta_len = header.len();
    // Allocated zeroed at its full size (fresh pages the threads fill), the header copied in,
    // so no thread zeroes the body before the others start.
    let total = new_meta_len
        .checked_add(body_len)
        .ok_or_else(|| corrupt("uncompressed length"))?;
    let mut out = Vec::new();
    out.try_reserve_exact(total)
        .map_err(|_| corrupt("uncompressed length, more than memory holds"))?;
    out.extend_from_slice(&header);
    out.resize(total, 0);
    // Disjoint slices of the plain body, one per buffer, taken by the threads in turn.
    let mut slots: Vec<Mutex<&mut [u8]>> = Vec::with_capacity(pieces.len());
    let mut rest: &mut [u8] = &mut out[new_meta_len..];
    let mut taken = 0;
    for &(_, plain, at, _) in &pieces {
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(at - taken);
        let (mine, tail) = tail.split_at_mut(plain);
        slots.push(Mutex::new(mine));
        rest = tail;
        taken = at + plain;
    }
    in_turn(
        threads,
        pieces.len(),
        || None,
        |zstd, i| {
            let (frame, plain, _, stored) = pieces[i];
            let mut into = slots[i].lock().map_err(|_| corrupt("slot"))?;
            match (plain, stored) {
                (0, _) => Ok(()),
                (_, true) => {
                    into.copy_from_slice(frame);
                    Ok(())
                }
                _ => one(frame, &mut into, compression, zstd),
            }
        },
    )?;
    drop(slots);
    let block = Block::new(0, new_meta_len as i32, body_len as i64);
    Ok(Some((Buffer::from_vec(out), block)))
}

fn one(
    frame: &[u8],
    into: &mut [u8],
    compression: Compression,
    zstd: &mut Option<zstd::bulk::Decompressor<'static>>,
) -> Result<()> {
    let short = || corrupt("buffer, shorter than its stated length");
    match compression {
        Compression::Lz4 => match lz4_frame::decode_into(frame, into) {
            Ok(true) => {}
            Ok(false) => {
                let mut decoder = lz4_flex::frame::FrameDecoder::new(frame);
                decoder.read_exact(into).map_err(|_| short())?;
                // A frame longer than its stated length is as corrupt as a shorter one.
                if decoder.read(&mut [0u8]).map_err(|_| short())? != 0 {
                    return Err(corrupt("buffer, longer than its stated length"));
                }
            }
            Err(Bad::Short) => return Err(short()),
            Err(Bad::Long) => return Err(corrupt("buffer, longer than its stated length")),
            Err(Bad::Corrupt) => return Err(corrupt("lz4 frame")),
        },
        Compression::Zstd => {
            let decompressor = match zstd {
                Some(d) => d,
                None => zstd
                    .insert(zstd::bulk::Decompressor::new().map_err(|e| corrupt(&e.to_string()))?),
            };
            let n = decompressor
                .decompress_to_buffer(frame, into)
                .map_err(|e| corrupt(&e.to_string()))?;
            if n != into.len() {
                return Err(short());
            }
        }
        Compression::None => return Err(corrupt("codec")),
    }
    Ok(())
}
