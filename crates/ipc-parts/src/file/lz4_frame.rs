//! An LZ4 frame decoded block by block straight into its place. lz4_flex's frame decoder
//! allocates and zeroes a buffer of the frame's largest block size (up to 4 MiB) for every
//! frame and copies each block out of it; an IPC body holds one frame per buffer, so a
//! projection of a compressed file paid that for every column it read. Frames with a
//! checksum or a dictionary id, or followed by anything (or by a content size short of the
//! buffer: another frame may follow), are left to lz4_flex's decoder. The header checksum
//! byte is not checked: a corrupt frame fails in its blocks or its length.

const MAGIC: u32 = 0x184D_2204;
/// How far back a linked block's matches reach into the blocks before it.
const WINDOW: usize = 64 * 1024;

/// Frame descriptor flags (the FLG byte).
const VERSION_MASK: u8 = 0b1100_0000;
const VERSION_01: u8 = 0b0100_0000;
const INDEPENDENT_BLOCKS: u8 = 0b0010_0000;
const BLOCK_CHECKSUM: u8 = 0b0001_0000;
const CONTENT_SIZE: u8 = 0b0000_1000;
const CONTENT_CHECKSUM: u8 = 0b0000_0100;
const DICTIONARY_ID: u8 = 0b0000_0001;
/// A block size's high bit: the block is stored uncompressed.
const STORED: u32 = 0x8000_0000;

/// Why a frame cannot be what its buffer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bad {
    Short,
    Long,
    Corrupt,
}

/// Decodes `frame` into exactly `into`: `Ok(true)` when done, `Ok(false)` when the frame has
/// a part this decoder leaves to lz4_flex's (checksums, a dictionary id, another frame after
/// it), and an error when it is corrupt or decodes to another length.
pub(super) fn decode_into(frame: &[u8], into: &mut [u8]) -> Result<bool, Bad> {
    let Some(head) = frame.get(..6) else {
        return Err(Bad::Corrupt);
    };
    if u32::from_le_bytes([head[0], head[1], head[2], head[3]]) != MAGIC {
        return Ok(false);
    }
    let flags = head[4];
    if flags & VERSION_MASK != VERSION_01 {
        return Err(Bad::Corrupt);
    }
    if flags & (BLOCK_CHECKSUM | CONTENT_CHECKSUM | DICTIONARY_ID) != 0 {
        return Ok(false);
    }
    let mut at = 6;
    if flags & CONTENT_SIZE != 0 {
        let size = frame.get(at..at + 8).ok_or(Bad::Corrupt)?;
        let size = u64::from_le_bytes(size.try_into().map_err(|_| Bad::Corrupt)?);
        match size.cmp(&(into.len() as u64)) {
            // Another frame may follow with the rest: lz4_flex's decoder reads on.
            std::cmp::Ordering::Less => return Ok(false),
            std::cmp::Ordering::Greater => return Err(Bad::Long),
            std::cmp::Ordering::Equal => {}
        }
        at += 8;
    }
    // The header checksum byte.
    at += 1;
    let independent = flags & INDEPENDENT_BLOCKS != 0;
    let mut out = 0usize;
    loop {
        let size = frame.get(at..at + 4).ok_or(Bad::Corrupt)?;
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]);
        at += 4;
        if size == 0 {
            break;
        }
        let len = (size & !STORED) as usize;
        let block = frame.get(at..at + len).ok_or(Bad::Corrupt)?;
        at += len;
        let written = if size & STORED != 0 {
            let to = into.get_mut(out..out + len).ok_or(Bad::Long)?;
            to.copy_from_slice(block);
            len
        } else if independent || out == 0 {
            lz4_flex::block::decompress_into(block, &mut into[out..]).map_err(too_long)?
        } else {
            // A linked block may copy from the 64 KiB decoded before it.
            let (before, rest) = into.split_at_mut(out);
            let dictionary = &before[out.saturating_sub(WINDOW)..];
            lz4_flex::block::decompress_into_with_dict(block, rest, dictionary).map_err(too_long)?
        };
        out += written;
    }
    if at != frame.len() {
        return Ok(false);
    }
    if out != into.len() {
        return Err(Bad::Short);
    }
    Ok(true)
}

/// A block that does not fit what is left of the buffer makes the frame too long; any other
/// decoding error is corruption.
fn too_long(error: lz4_flex::block::DecompressError) -> Bad {
    match error {
        lz4_flex::block::DecompressError::OutputTooSmall { .. } => Bad::Long,
        _ => Bad::Corrupt,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::{Read, Write};

    /// A frame of `data` as lz4_flex writes it, with the given block mode and block size.
    fn frame(data: &[u8], info: lz4_flex::frame::FrameInfo) -> Vec<u8> {
        let mut encoder = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    fn data(len: usize) -> Vec<u8> {
        // Repeats with drift: matches near and far, some incompressible stretches.
        (0..len)
            .map(|i| ((i / 7) as u8).wrapping_mul(31) ^ ((i % 1000 == 0) as u8))
            .collect()
    }

    #[test]
    fn frames_decode_as_lz4_flex_decodes_them_in_every_block_mode() {
        use lz4_flex::frame::{BlockMode, BlockSize, FrameInfo};
        for (len, mode, content_size) in [
            (0, BlockMode::Independent, false),
            (1000, BlockMode::Independent, false),
            (300_000, BlockMode::Independent, true),
            (300_000, BlockMode::Linked, false),
            (1_000_000, BlockMode::Linked, true),
        ] {
            let source = data(len);
            let info = FrameInfo::new()
                .block_mode(mode)
                .block_size(BlockSize::Max64KB)
                .content_size(content_size.then_some(len as u64));
            let frame = frame(&source, info);
            let mut expected = Vec::new();
            lz4_flex::frame::FrameDecoder::new(&frame[..])
                .read_to_end(&mut expected)
                .unwrap();
            assert_eq!(expected, source);
            let mut into = vec![0u8; len];
            assert_eq!(decode_into(&frame, &mut into), Ok(true), "{len} {mode:?}");
            assert_eq!(into, source, "{len} {mode:?}");
            // One byte more or less than the frame holds.
            let mut long = vec![0u8; len + 1];
            // A stated content size short of the buffer may be followed by another frame.
            let expected = if content_size {
                Ok(false)
            } else {
                Err(Bad::Short)
            };
            assert_eq!(decode_into(&frame, &mut long), expected);
            if len > 0 {
                let mut short = vec![0u8; len - 1];
                assert!(matches!(
                    decode_into(&frame, &mut short),
                    Err(Bad::Long) | Err(Bad::Short)
                ));
            }
        }
    }

    #[test]
    fn checksums_or_trailing_bytes_go_to_the_frame_decoder() {
        use lz4_flex::frame::FrameInfo;
        let source = data(5000);
        let checked = frame(&source, FrameInfo::new().content_checksum(true));
        let mut into = vec![0u8; source.len()];
        assert_eq!(decode_into(&checked, &mut into), Ok(false));
        let mut two = frame(&source, FrameInfo::new());
        two.extend(frame(b"more", FrameInfo::new()));
        assert_eq!(decode_into(&two, &mut into), Ok(false));
        // The first of two frames states its size: the buffer is both.
        let sized = FrameInfo::new().content_size(Some(source.len() as u64));
        let mut two = frame(&source, sized);
        two.extend(frame(b"more", FrameInfo::new()));
        let mut both = vec![0u8; source.len() + 4];
        assert_eq!(decode_into(&two, &mut both), Ok(false));
        assert_eq!(decode_into(b"ARROW1", &mut into), Ok(false), "not a frame");
        assert_eq!(decode_into(b"xy", &mut into), Err(Bad::Corrupt));
    }
}
