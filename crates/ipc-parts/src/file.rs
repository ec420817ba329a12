//! One Arrow IPC file (Feather v2): written with 64-byte aligned buffers, read either through a
//! memory map with zero-copy decoding or with plain reads into buffers of its own. Both decode
//! only the projected columns of only the blocks asked for.

use crate::error::{at, Result, StoreError};
use arrow::array::RecordBatch;
use arrow::buffer::Buffer;
use arrow::datatypes::SchemaRef;
use arrow::ipc::reader::FileDecoder;
use arrow::ipc::writer::{FileWriter, IpcWriteOptions};
use arrow::ipc::{Block, CompressionType, MetadataVersion};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Buffers are aligned to 64 bytes at write, so a mapped file decodes without a copy.
pub const ALIGNMENT: usize = 64;

/// The codec of the record-batch bodies; compressed bodies are decoded into new buffers, so
/// they give up zero-copy reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    #[default]
    None,
    Lz4,
    Zstd,
}

impl Compression {
    pub(crate) fn ipc(self) -> Option<CompressionType> {
        match self {
            Compression::None => None,
            Compression::Lz4 => Some(CompressionType::LZ4_FRAME),
            Compression::Zstd => Some(CompressionType::ZSTD),
        }
    }
}

mod columns;
mod compress;
mod decompress;
mod direct;
mod fixed_list;
mod lz4_frame;
mod open;
mod pieces;

pub use compress::ZSTD_LEVEL;
pub use open::FooterRead;
pub use pieces::{pread_pieces, Piece};

/// Writes `batches` as one IPC file at `path`; returns its size in bytes once it is closed.
/// The file is not synced: that is the commit's job. Files of the types the gathered writer
/// covers skip arrow's copy of every buffer into a message body.
pub fn write_file(
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    compression: Compression,
) -> Result<u64> {
    write_file_threaded(path, schema, batches, compression, 1)
}

/// `write_file`, compressing each batch's buffers on up to `threads` threads.
pub fn write_file_threaded(
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    compression: Compression,
    threads: usize,
) -> Result<u64> {
    let file = File::create(path).map_err(at(path))?;
    write_into(&file, path, schema, batches, compression, threads)
}

/// `write_file_threaded` into a file already created (and empty) at `path`.
pub fn write_into(
    file: &File,
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    compression: Compression,
    threads: usize,
) -> Result<u64> {
    if direct::covers(schema) {
        return direct::write(file, path, schema, batches, compression, threads);
    }
    arrow_into(file, path, schema, batches, compression)
}

/// Writes through arrow's `FileWriter` (compression, dictionaries, every type).
pub fn write_with_arrow(
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    compression: Compression,
) -> Result<u64> {
    let file = File::create(path).map_err(at(path))?;
    arrow_into(&file, path, schema, batches, compression)
}

fn arrow_into(
    file: &File,
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    compression: Compression,
) -> Result<u64> {
    let level = (compression == Compression::Zstd).then_some(ZSTD_LEVEL);
    let options = IpcWriteOptions::try_new(ALIGNMENT, false, MetadataVersion::V5)?
        .try_with_compression(compression.ipc())?
        .try_with_compression_level(level)?;
    let mut writer =
        FileWriter::try_new_with_options(BufWriter::with_capacity(1 << 20, file), schema, options)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.finish()?;
    writer.into_inner()?.flush().map_err(at(path))?;
    Ok(file.metadata().map_err(at(path))?.len())
}

fn flatbuffer_options() -> flatbuffers::VerifierOptions {
    // Wide tables (thousands of columns) exceed the verifier's default table count.
    flatbuffers::VerifierOptions {
        max_tables: 100_000_000,
        max_depth: 128,
        ..Default::default()
    }
}

enum Body {
    Mapped(Buffer),
    Plain(File),
    Ranged(Box<dyn RangeSource>),
}

/// Bytes fetched by range from somewhere other than a local file (an object in a bucket):
/// the footer, each block's header and each decoded block is one `read_range`.
pub trait RangeSource: Send + Sync {
    fn size(&self) -> u64;
    fn read_range(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>>;
    /// Several ranges (offset, length), in order, as the source holds them (an object
    /// store's response bodies, not copied); a source that can fetch them concurrently should,
    /// and it decides which neighbouring ranges to fetch as one (callers pass them unmerged).
    fn read_ranges(&self, ranges: &[(u64, usize)]) -> std::io::Result<Vec<bytes::Bytes>> {
        ranges
            .iter()
            .map(|&(offset, len)| self.read_range(offset, len).map(bytes::Bytes::from))
            .collect()
    }
}

/// A decoder of some columns (all when `columns` is `None`), dictionaries loaded.
pub struct Decoder {
    inner: FileDecoder,
    columns: Option<Vec<usize>>,
}

/// An open IPC file: its schema and the position and row count of each record batch, read from
/// the footer and each block's message header (bodies stay unread until decoded).
pub struct IpcFile {
    path: PathBuf,
    body: Body,
    schema: SchemaRef,
    version: MetadataVersion,
    dictionaries: Vec<Block>,
    blocks: Vec<Block>,
    rows: Vec<u64>,
    codec: String,
    trusted: bool,
    ranged: Option<columns::RangedBlocks>,
    /// Threads a compressed block's buffers are decompressed on.
    threads: usize,
}

impl IpcFile {
    /// Maps the file; decoded arrays point into the mapping (uncompressed files).
    pub fn map(path: &Path) -> Result<Self> {
        Self::map_for(path, false)
    }

    /// Maps the file; with `random`, a page fault reads its own page and nothing around it
    /// (for reads that touch a few blocks or rows of a file not in the page cache).
    pub fn map_for(path: &Path, random: bool) -> Result<Self> {
        let file = File::open(path).map_err(at(path))?;
        // SAFETY: files are never modified after they are written (a change writes a new file
        // and renames metadata), so the mapping cannot change under the arrays that use it.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(at(path))?;
        if random {
            // Advice only: a kernel that ignores it reads around each fault as before.
            let _ = map.advise(memmap2::Advice::Random);
        }
        let buffer = Buffer::from(bytes::Bytes::from_owner(map));
        Self::parse(path, Body::Mapped(buffer))
    }

    /// Opens the file for plain reads: each decoded block is read into a buffer of its own.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_for(path, false)
    }

    /// Opens the file for plain reads; with `random`, without the kernel's readahead (see
    /// [`advise_random`]). A projection reads only its columns' buffers.
    pub fn open_for(path: &Path, random: bool) -> Result<Self> {
        let file = File::open(path).map_err(at(path))?;
        if random {
            advise_random(&file);
        }
        Self::parse(path, Body::Plain(file))
    }

    /// Opens a file read by ranges (`name` only names it in errors).
    pub fn open_ranged(name: &Path, source: Box<dyn RangeSource>) -> Result<Self> {
        Self::parse(name, Body::Ranged(source))
    }

    /// Skips arrow's per-array validation (UTF-8 and offsets) when decoding.
    ///
    /// # Safety
    /// The file must be a valid IPC file written by a correct writer (as this store's own
    /// files are); a corrupt one could then produce arrays that read out of bounds.
    pub unsafe fn trusted(mut self) -> Self {
        self.trusted = true;
        self
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
    /// The row count of each record batch, in file order.
    pub fn block_rows(&self) -> &[u64] {
        &self.rows
    }
    pub fn num_rows(&self) -> u64 {
        self.rows.iter().sum()
    }
    /// `none`, `lz4_frame` or `zstd`, as the first block's header says.
    pub fn codec(&self) -> &str {
        &self.codec
    }
    pub fn is_mapped(&self) -> bool {
        matches!(self.body, Body::Mapped(_))
    }

    fn block_bytes(&self, block: &Block) -> Result<Buffer> {
        let len = block.metaDataLength() as usize + block.bodyLength() as usize;
        let offset = block.offset() as usize;
        match &self.body {
            Body::Mapped(buffer) => {
                if offset + len > buffer.len() {
                    return Err(StoreError::Corrupt(format!(
                        "{}: a block runs past the end of the file",
                        self.path.display()
                    )));
                }
                Ok(buffer.slice_with_length(offset, len))
            }
            Body::Plain(file) => {
                let mut bytes = Vec::with_capacity(len);
                match append_at(file, &mut bytes, len, offset as u64) {
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                        Err(StoreError::Corrupt(format!(
                            "{}: a block runs past the end of the file",
                            self.path.display()
                        )))
                    }
                    other => other.map_err(at(&self.path)),
                }?;
                Ok(Buffer::from_vec(bytes))
            }
            Body::Ranged(source) => {
                let bytes = source
                    .read_range(offset as u64, len)
                    .map_err(at(&self.path))?;
                if bytes.len() != len {
                    return Err(StoreError::Corrupt(format!(
                        "{}: a block runs past the end of the object",
                        self.path.display()
                    )));
                }
                Ok(Buffer::from_vec(bytes))
            }
        }
    }

    /// A decoder of the given columns (all when `None`), dictionaries loaded.
    pub fn decoder(&self, projection: Option<Vec<usize>>) -> Result<Decoder> {
        // A mapping must be aligned (the writer aligns to 64 bytes) so nothing is copied
        // silently; a buffer read into memory of its own may be realigned by arrow, and so may
        // a compressed file's (a buffer stored as it is lies 8 bytes past its aligned start).
        let decoder = FileDecoder::new(self.schema.clone(), self.version)
            .with_require_alignment(self.is_mapped() && self.codec == "none");
        // SAFETY: validation is skipped only for files declared trusted (`IpcFile::trusted`).
        let mut decoder = unsafe { decoder.with_skip_validation(self.trusted) };
        if let Some(projection) = projection.clone() {
            decoder = decoder.with_projection(projection);
        }
        for block in &self.dictionaries {
            decoder.read_dictionary(block, &self.block_bytes(block)?)?;
        }
        Ok(Decoder {
            inner: decoder,
            columns: projection,
        })
    }

    /// Decodes record batch `index` with `decoder`. Read by plain reads or by ranges, a
    /// projection reads only its columns' buffers.
    pub fn decode(&self, decoder: &Decoder, index: usize) -> Result<RecordBatch> {
        self.decode_blocks(decoder, &[index])?.pop().ok_or_else(|| {
            StoreError::Corrupt(format!("{}: no block {index}", self.path.display()))
        })
    }

    /// Decodes record batches `indices` with `decoder`, in that order. Read by plain reads or
    /// by ranges, a projection reads only its columns' buffers; read by ranges, what all the
    /// blocks need is asked of the source at once (it fetches concurrently).
    pub fn decode_blocks(&self, decoder: &Decoder, indices: &[usize]) -> Result<Vec<RecordBatch>> {
        let bytes = match self.projected_blocks(indices, decoder.columns.as_deref())? {
            Some(bytes) => bytes,
            None => indices
                .iter()
                .map(|&i| self.block(i))
                .collect::<Result<_>>()?,
        };
        indices
            .iter()
            .zip(&bytes)
            .map(|(&i, bytes)| self.decode_block(decoder, i, bytes))
            .collect()
    }

    /// The bytes of record batch `index` (its header and body), read or fetched once for
    /// decoding it more than once (first a few columns, then all of them).
    pub fn block(&self, index: usize) -> Result<Buffer> {
        self.block_bytes(self.block_at(index)?)
    }

    /// Decompresses each compressed block's buffers on up to `threads` threads before it is
    /// decoded, as Arrow C++ does, instead of one after another in arrow's decoder.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Decodes record batch `index` from its bytes ([`IpcFile::block`]) with `decoder`.
    pub fn decode_block(
        &self,
        decoder: &Decoder,
        index: usize,
        bytes: &Buffer,
    ) -> Result<RecordBatch> {
        let block = self.block_at(index)?;
        // Even on one thread: an LZ4 buffer decodes here straight into its place, where
        // arrow's decoder gives every buffer a frame decoder with a zeroed block buffer.
        let plain = match self.codec.as_str() {
            "none" => None,
            _ => {
                let wanted = self.wanted_buffers(decoder);
                let meta_len = block.metaDataLength().max(0) as usize;
                decompress::plain_block(bytes, meta_len, wanted.as_deref(), self.threads)?
            }
        };
        let decoded = match &plain {
            Some((bytes, block)) => decoder.inner.read_record_batch(block, bytes)?,
            None => decoder.inner.read_record_batch(block, bytes)?,
        };
        decoded
            .ok_or_else(|| StoreError::Corrupt(format!("{}: an empty block", self.path.display())))
    }

    /// Which of a block's buffers the decoder's columns take (`None`: every one).
    fn wanted_buffers(&self, decoder: &Decoder) -> Option<Vec<bool>> {
        let columns = decoder.columns.as_ref()?;
        let spans = columns::column_buffers(&self.schema)?;
        let mut wanted = vec![false; spans.last().map_or(0, |s| s.end)];
        for span in columns.iter().filter_map(|&c| spans.get(c)) {
            wanted[span.clone()].fill(true);
        }
        Some(wanted)
    }

    fn block_at(&self, index: usize) -> Result<&Block> {
        self.blocks.get(index).ok_or_else(|| {
            StoreError::Corrupt(format!("{}: no block {index}", self.path.display()))
        })
    }

    /// Every record batch, with the given columns.
    pub fn read_all(&self, projection: Option<Vec<usize>>) -> Result<Vec<RecordBatch>> {
        let decoder = self.decoder(projection)?;
        let all: Vec<usize> = (0..self.blocks.len()).collect();
        self.decode_blocks(&decoder, &all)
    }
}

/// Tells the kernel that reads of `file` (through any descriptor of this open file) are
/// random: a read not in the page cache then fetches the pages it asks for and none ahead of
/// them. Selective reads want this: the kernel's readahead after each read is up to the
/// device's window (`read_ahead_kb`; 8 MiB on some virtual disks), so a read of a few pages
/// spread over a file would otherwise fetch most of it. Advice only: where it is ignored
/// (tmpfs), reads are as before.
pub fn advise_random(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: posix_fadvise only advises the kernel about a descriptor this process holds.
    let _ = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
}

/// Reads exactly `len` bytes at `offset` of `file` into `into`.
///
/// # Safety
/// `into` must be valid for writes of `len` bytes.
pub unsafe fn pread_exact(
    file: &std::fs::File,
    into: *mut u8,
    len: usize,
    offset: u64,
) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let mut done = 0usize;
    while done < len {
        // SAFETY: the caller guarantees `into` holds `len` bytes; pread writes at most
        // `len - done` bytes at `into + done`.
        let n = unsafe {
            libc::pread(
                file.as_raw_fd(),
                into.add(done).cast::<libc::c_void>(),
                len - done,
                (offset + done as u64) as libc::off_t,
            )
        };
        match n {
            n if n > 0 => done += n as usize,
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    Ok(())
}

/// Appends exactly `len` bytes at `offset` of `file` to `bytes`, read straight into its spare
/// capacity. Nothing is zeroed first: std's `read_to_end` zeroes spare capacity before
/// reading into it with a reader that has no `read_buf` of its own (a positioned reader has
/// none), which cost as much as the read itself.
fn append_at(file: &File, bytes: &mut Vec<u8>, len: usize, offset: u64) -> std::io::Result<()> {
    bytes.reserve(len);
    let end = bytes.len() + len;
    // SAFETY: `reserve` left room for `len` bytes past the length; `pread_exact` writes
    // exactly those or fails, and the length covers them only once they are written.
    unsafe {
        pread_exact(file, bytes.as_mut_ptr().add(bytes.len()), len, offset)?;
        bytes.set_len(end);
    }
    Ok(())
}

/// How a read opens each partition file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Access {
    /// Map each partition and decode zero-copy (uncompressed tables).
    #[default]
    Mmap,
    /// Read each partition's blocks into memory of their own.
    Plain,
}
