//! A Parquet page header read from its Thrift compact encoding: the few fields a plain read
//! of a fixed-size list needs (the parquet crate keeps its own header reader private). Every
//! other field, statistics included, is skipped by its wire type; anything malformed or cut
//! short is `None`, which sends the read back to the parquet crate's reader.

/// Page types and encodings by their numbers in parquet.thrift.
const DATA_PAGE: i32 = 0;
const DATA_PAGE_V2: i32 = 3;
pub(super) const PLAIN: i32 = 0;
const RLE: i32 = 3;

/// Thrift compact wire types.
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

/// Nesting deeper than this is no page header (statistics nest two levels at most).
const MAX_DEPTH: usize = 16;

/// What a data page's header says of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct PageHeader {
    /// Bytes of the header itself; the page's body follows it.
    pub header_len: usize,
    pub compressed_size: usize,
    pub uncompressed_size: usize,
    /// Levels in the page: one per value, null or not.
    pub num_values: usize,
    pub encoding: i32,
    /// Version 2 only: the levels' byte lengths (stored apart, without length prefixes), and
    /// whether the values are compressed.
    pub v2: Option<V2Levels>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct V2Levels {
    pub repetition_len: usize,
    pub definition_len: usize,
    pub num_nulls: usize,
    pub num_rows: usize,
    pub is_compressed: bool,
}

/// The header at the start of `bytes` when it is a data page's (version 1 or 2).
pub(super) fn read(bytes: &[u8]) -> Option<PageHeader> {
    let mut input = Compact { bytes, at: 0 };
    let (mut kind, mut header) = (None, PageHeader::default());
    // Required fields: an encoding that is absent is no encoding (0 would read as PLAIN).
    header.encoding = -1;
    let mut v1_seen = false;
    // Version 1 levels: both must be RLE (the length-prefixed hybrid), not the old BIT_PACKED.
    let mut v1_levels_rle = [false, false];
    input.fields(0, &mut |input, id, wire| {
        match (id, wire) {
            (1, I32) => kind = Some(input.i32()?),
            (2, I32) => header.uncompressed_size = usize::try_from(input.i32()?).ok()?,
            (3, I32) => header.compressed_size = usize::try_from(input.i32()?).ok()?,
            (5, STRUCT) => {
                v1_seen = true;
                input.fields(1, &mut |input, id, wire| {
                    match (id, wire) {
                        (1, I32) => header.num_values = usize::try_from(input.i32()?).ok()?,
                        (2, I32) => header.encoding = input.i32()?,
                        (3, I32) => v1_levels_rle[0] = input.i32()? == RLE,
                        (4, I32) => v1_levels_rle[1] = input.i32()? == RLE,
                        _ => input.skip(wire, 2)?,
                    }
                    Some(())
                })?
            }
            (8, STRUCT) => {
                let mut v2 = V2Levels {
                    is_compressed: true,
                    ..V2Levels::default()
                };
                input.fields(1, &mut |input, id, wire| {
                    let count = |input: &mut Compact| usize::try_from(input.i32()?).ok();
                    match (id, wire) {
                        (1, I32) => header.num_values = count(input)?,
                        (2, I32) => v2.num_nulls = count(input)?,
                        (3, I32) => v2.num_rows = count(input)?,
                        (4, I32) => header.encoding = input.i32()?,
                        (5, I32) => v2.definition_len = count(input)?,
                        (6, I32) => v2.repetition_len = count(input)?,
                        (7, TRUE) => v2.is_compressed = true,
                        (7, FALSE) => v2.is_compressed = false,
                        _ => input.skip(wire, 2)?,
                    }
                    Some(())
                })?;
                header.v2 = Some(v2);
            }
            _ => input.skip(wire, 1)?,
        }
        Some(())
    })?;
    header.header_len = input.at;
    let is_data = match kind? {
        DATA_PAGE => v1_seen && header.v2.is_none() && v1_levels_rle == [true, true],
        DATA_PAGE_V2 => !v1_seen && header.v2.is_some(),
        _ => false,
    };
    is_data.then_some(header)
}

/// A cursor over Thrift compact bytes.
struct Compact<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// Called with each field's id and wire type; reads or skips its value.
type OnField<'f> = dyn FnMut(&mut Compact, i16, u8) -> Option<()> + 'f;

impl Compact<'_> {
    fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn advance(&mut self, len: usize) -> Option<()> {
        let end = self.at.checked_add(len)?;
        (end <= self.bytes.len()).then(|| self.at = end)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7F) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn zigzag(&mut self) -> Option<i64> {
        let raw = self.varint()?;
        Some((raw >> 1) as i64 ^ -((raw & 1) as i64))
    }

    fn i32(&mut self) -> Option<i32> {
        i32::try_from(self.zigzag()?).ok()
    }

    /// A struct's fields, each handed to `on`, up to its stop byte.
    fn fields(&mut self, depth: usize, on: &mut OnField) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut id: i16 = 0;
        loop {
            let byte = self.byte()?;
            if byte == 0 {
                return Some(());
            }
            let (delta, wire) = (byte >> 4, byte & 0x0F);
            id = match delta {
                0 => i16::try_from(self.zigzag()?).ok()?,
                delta => id.checked_add(i16::from(delta))?,
            };
            on(self, id, wire)?;
        }
    }

    /// Skips a value of wire type `wire` (a field's booleans carry their value in the type).
    fn skip(&mut self, wire: u8, depth: usize) -> Option<()> {
        match wire {
            TRUE | FALSE => Some(()),
            BYTE => self.advance(1),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.advance(8),
            BINARY => {
                let len = usize::try_from(self.varint()?).ok()?;
                self.advance(len)
            }
            LIST | SET => {
                let head = self.byte()?;
                let count = match head >> 4 {
                    15 => usize::try_from(self.varint()?).ok()?,
                    small => usize::from(small),
                };
                self.skip_elements(head & 0x0F, count, depth)
            }
            MAP => {
                let count = usize::try_from(self.varint()?).ok()?;
                if count == 0 {
                    return Some(());
                }
                let types = self.byte()?;
                for _ in 0..count {
                    self.skip_elements(types >> 4, 1, depth)?;
                    self.skip_elements(types & 0x0F, 1, depth)?;
                }
                Some(())
            }
            STRUCT => self.fields(depth + 1, &mut |input, _, wire| input.skip(wire, depth + 1)),
            _ => None,
        }
    }

    /// Skips `count` elements of a list, set or map, where a boolean takes a byte.
    fn skip_elements(&mut self, wire: u8, count: usize, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        for _ in 0..count {
            match wire {
                TRUE | FALSE => self.advance(1)?,
                wire => self.skip(wire, depth + 1)?,
            }
        }
        Some(())
    }
}
