//! Checks of a page's repetition and definition levels, read from their RLE / bit-packed
//! hybrid encoding without decoding them into a buffer: a fixed-size list's page holds a new
//! row (repetition 0) every `width` values and a value at every level (every definition the
//! column's maximum).

/// Bits a level up to `max` takes.
pub(super) fn bit_width(max: i16) -> u32 {
    u16::BITS - (max.max(0) as u16).leading_zeros()
}

/// Whether `bytes` hold exactly `count` levels that start a new row every `width` levels
/// (0 at each row's start, 1 after it).
pub(super) fn rows_of_width(bytes: &[u8], count: usize, width: usize) -> bool {
    width > 0
        && hybrid_runs(bytes, 1, count, |at, level, len| match level {
            0 => width == 1 || (len == 1 && at % width == 0),
            1 => at % width != 0 && at % width + len <= width,
            _ => false,
        })
}

/// Whether `bytes` hold exactly `count` levels, all equal to `max` (`bit_width(max)` wide).
pub(super) fn all_at(bytes: &[u8], max: i16, count: usize) -> bool {
    let width = bit_width(max);
    let Ok(max) = u32::try_from(max) else {
        return false;
    };
    hybrid_runs(bytes, width, count, |_, level, _| level == max)
}

/// Walks the hybrid runs of `bytes` (`bit_width` bits per level), calling `check(first,
/// level, len)` for each stretch of equal levels it finds (a bit-packed group's levels one at
/// a time), up to `count` levels. True when every check holds and exactly `count` levels are
/// there (a bit-packed group's padding past them is ignored).
fn hybrid_runs(
    bytes: &[u8],
    bit_width: u32,
    count: usize,
    mut check: impl FnMut(usize, u32, usize) -> bool,
) -> bool {
    if !(1..=16).contains(&bit_width) {
        return false;
    }
    let value_bytes = bit_width.div_ceil(8) as usize;
    let (mut at, mut pos) = (0usize, 0usize);
    while at < count {
        let Some((header, used)) = varint(&bytes[pos..]) else {
            return false;
        };
        pos += used;
        if header & 1 == 0 {
            // A repeated run: one little-endian value, repeated `header >> 1` times.
            let Ok(len) = usize::try_from(header >> 1) else {
                return false;
            };
            let Some(raw) = bytes.get(pos..pos + value_bytes) else {
                return false;
            };
            pos += value_bytes;
            let level = raw
                .iter()
                .rev()
                .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
            let len = len.min(count - at);
            if len == 0 || !check(at, level, len) {
                return false;
            }
            at += len;
        } else {
            // Bit-packed: `header >> 1` groups of 8 levels, least significant bit first.
            let Some(levels) = usize::try_from(header >> 1)
                .ok()
                .and_then(|groups| groups.checked_mul(8))
            else {
                return false;
            };
            let Some(end) = levels
                .checked_mul(bit_width as usize)
                .map(|bits| pos + bits / 8)
                .filter(|&end| end <= bytes.len())
            else {
                return false;
            };
            let packed = &bytes[pos..end];
            for i in 0..levels.min(count - at) {
                let mut level = 0u32;
                for bit in 0..bit_width as usize {
                    let index = i * bit_width as usize + bit;
                    level |= u32::from((packed[index / 8] >> (index % 8)) & 1) << bit;
                }
                if !check(at, level, 1) {
                    return false;
                }
                at += 1;
            }
            pos = end;
        }
    }
    true
}

/// A ULEB128 value and the bytes it took.
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repeated run of `len` copies of `level` at one byte per value.
    fn repeated(len: u64, level: u8) -> Vec<u8> {
        let mut out = Vec::new();
        let mut header = len << 1;
        while header >= 0x80 {
            out.push((header as u8) | 0x80);
            header >>= 7;
        }
        out.push(header as u8);
        out.push(level);
        out
    }

    #[test]
    fn rows_are_a_zero_then_ones_in_any_mix_of_runs() {
        // Two rows of 4: bit-packed group [0,1,1,1,0,1,1,1] (1 bit each: 0b1110_1110).
        let packed = [0b11, 0b1110_1110];
        assert!(rows_of_width(&packed, 8, 4));
        assert!(!rows_of_width(&packed, 8, 3), "rows of 3");
        // The same rows as runs: 0, 1×3, 0, 1×3.
        let runs = [
            repeated(1, 0),
            repeated(3, 1),
            repeated(1, 0),
            repeated(3, 1),
        ]
        .concat();
        assert!(rows_of_width(&runs, 8, 4));
        assert!(!rows_of_width(&runs, 9, 4), "a level short");
        // A run of ones crossing a row's start.
        let crossing = [repeated(1, 0), repeated(7, 1)].concat();
        assert!(!rows_of_width(&crossing, 8, 4));
        // Width 1: every level starts a row.
        assert!(rows_of_width(&repeated(5, 0), 5, 1));
    }

    #[test]
    fn definitions_all_at_the_maximum() {
        assert!(all_at(&repeated(300, 2), 2, 300));
        assert!(!all_at(&repeated(300, 1), 2, 300), "a null");
        // Bit-packed at 2 bits: eight 2s are 0b10 each, two bytes 0xAA; a 1 among them fails.
        assert!(all_at(&[0b11, 0xAA, 0xAA], 2, 8));
        assert!(all_at(&[0b11, 0xAA, 0xAA], 2, 5), "padding past the count");
        assert!(!all_at(&[0b11, 0xA9, 0xAA], 2, 8));
        assert!(!all_at(&[0b11, 0xAA], 2, 8), "cut short");
        assert_eq!((bit_width(1), bit_width(2), bit_width(3)), (1, 2, 2));
    }
}
