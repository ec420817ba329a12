//! Arrow IPC files (Feather v2). `ipc` reads blocks into buffers of their own; `ipc-mmap` maps
//! the file and decodes zero-copy (buffers are 64-byte aligned at write, and alignment is required at read,
//! so nothing is copied silently). Profiles: uncompressed `default`, `lz4` and `zstd` frames.

use super::{column_indices, data_file, Backend, Context, Loaded, Request};
use crate::rows::{filter_index_range, position_range, take_positions};
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::buffer::Buffer;
use arrow::datatypes::SchemaRef;
use arrow::ipc::convert::try_fb_to_schema;
use arrow::ipc::reader::{read_footer_length, FileDecoder, FileReader, FileReaderBuilder};
use arrow::ipc::writer::{FileWriter, IpcWriteOptions};
use arrow::ipc::{Block, CompressionType, MetadataVersion};
use formatbench_protocol::{Op, RangeSpec, ALL_OPS};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

pub struct Ipc {
    pub mmap: bool,
}

const ALIGNMENT: usize = 64;

/// Reads skip arrow-rs's per-array validation (UTF-8 and offset checks over every string
/// byte), as pyarrow's IPC reader does. Safe because every artifact read here was written in
/// this run by this backend's writer from a validated source, and every cell's result is
/// still compared value by value with the source before its timings count.
const TRUSTED_ARTIFACTS: bool = true;

fn flatbuffer_options() -> flatbuffers::VerifierOptions {
    // Wide tables (thousands of columns) exceed the verifier's default table count.
    flatbuffers::VerifierOptions {
        max_tables: 100_000_000,
        max_depth: 128,
        ..Default::default()
    }
}

/// The footer's record-batch blocks and the row count of each (read from each block's message
/// header only, without decoding bodies), plus the schema.
struct Layout {
    schema: SchemaRef,
    version: arrow::ipc::MetadataVersion,
    dictionaries: Vec<Block>,
    blocks: Vec<Block>,
    rows: Vec<u64>,
    codec: String,
}

fn invalid(what: impl std::fmt::Display) -> WorkerError {
    WorkerError::Invalid(format!("not a valid Arrow IPC file: {what}"))
}

fn read_layout(
    len: u64,
    mut read_at: impl FnMut(u64, usize) -> std::io::Result<Vec<u8>>,
) -> Result<Layout, WorkerError> {
    if len < 10 {
        return Err(invalid("too short"));
    }
    let trailer: [u8; 10] = read_at(len - 10, 10)?
        .try_into()
        .map_err(|_| invalid("short trailer"))?;
    let footer_len = read_footer_length(trailer)? as u64;
    if footer_len + 10 > len {
        return Err(invalid("footer length past the start"));
    }
    let footer_bytes = read_at(len - 10 - footer_len, footer_len as usize)?;
    let footer = arrow::ipc::root_as_footer_with_opts(&flatbuffer_options(), &footer_bytes)
        .map_err(invalid)?;
    let schema = Arc::new(try_fb_to_schema(
        footer.schema().ok_or_else(|| invalid("no schema"))?,
    )?);
    let blocks: Vec<Block> = footer
        .recordBatches()
        .map(|b| b.iter().copied().collect())
        .unwrap_or_default();
    let dictionaries = footer
        .dictionaries()
        .map(|b| b.iter().copied().collect())
        .unwrap_or_default();
    let mut rows = Vec::with_capacity(blocks.len());
    let mut codec = String::from("none");
    for (i, block) in blocks.iter().enumerate() {
        let meta = read_at(block.offset() as u64, block.metaDataLength() as usize)?;
        // A message starts with the continuation marker and its length, or (legacy) the length.
        let start = if meta.starts_with(&[0xFF; 4]) { 8 } else { 4 };
        let message = arrow::ipc::root_as_message_with_opts(
            &flatbuffer_options(),
            meta.get(start..).unwrap_or_default(),
        )
        .map_err(invalid)?;
        let batch = message
            .header_as_record_batch()
            .ok_or_else(|| invalid("a block is not a record batch"))?;
        rows.push(batch.length().max(0) as u64);
        if i == 0 {
            if let Some(compression) = batch.compression() {
                codec = format!("{:?}", compression.codec()).to_lowercase();
            }
        }
    }
    Ok(Layout {
        schema,
        version: footer.version(),
        dictionaries,
        blocks,
        rows,
        codec,
    })
}

/// Zero-copy decoding of a memory-mapped file.
struct Mapped {
    buffer: Buffer,
    layout: Layout,
}

impl Mapped {
    fn open(path: &Path) -> Result<Self, WorkerError> {
        let file = File::open(path)?;
        // SAFETY: the artifact is private to this run and not modified while mapped.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        let buffer = Buffer::from(bytes::Bytes::from_owner(map));
        let layout = read_layout(buffer.len() as u64, |offset, len| {
            let (start, end) = (offset as usize, offset as usize + len);
            buffer
                .as_slice()
                .get(start..end)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| std::io::Error::other("block past the end of the file"))
        })?;
        Ok(Mapped { buffer, layout })
    }

    fn block_buffer(&self, block: &Block) -> Buffer {
        let len = block.metaDataLength() as usize + block.bodyLength() as usize;
        self.buffer.slice_with_length(block.offset() as usize, len)
    }

    fn decoder(&self, projection: Option<Vec<usize>>) -> Result<FileDecoder, WorkerError> {
        // Alignment is required: the writer aligns to 64 bytes, and a misaligned buffer would
        // otherwise be copied silently.
        block_decoder(&self.layout, projection, true, |b| Ok(self.block_buffer(b)))
    }

    fn decode(&self, decoder: &FileDecoder, index: usize) -> Result<RecordBatch, WorkerError> {
        let block = &self.layout.blocks[index];
        decode_block(decoder, block, &self.block_buffer(block))
    }
}

/// A decoder for the file's record batches, with its dictionaries read through `buffer_of`.
fn block_decoder(
    layout: &Layout,
    projection: Option<Vec<usize>>,
    require_alignment: bool,
    buffer_of: impl Fn(&Block) -> Result<Buffer, WorkerError>,
) -> Result<FileDecoder, WorkerError> {
    let decoder = FileDecoder::new(layout.schema.clone(), layout.version)
        .with_require_alignment(require_alignment);
    // SAFETY: see `TRUSTED_ARTIFACTS`; the file is this worker's own output.
    let mut decoder = unsafe { decoder.with_skip_validation(TRUSTED_ARTIFACTS) };
    if let Some(projection) = projection {
        decoder = decoder.with_projection(projection);
    }
    for block in &layout.dictionaries {
        decoder.read_dictionary(block, &buffer_of(block)?)?;
    }
    Ok(decoder)
}

fn decode_block(
    decoder: &FileDecoder,
    block: &Block,
    buffer: &Buffer,
) -> Result<RecordBatch, WorkerError> {
    decoder
        .read_record_batch(block, buffer)?
        .ok_or_else(|| invalid("an empty block"))
}

/// Reads one block into a buffer of its own. `read_to_end` fills the vector's spare capacity
/// without zeroing it first; arrow's `FileReader` zeroes every block buffer before reading
/// into it, which cost as much as the read itself.
fn read_block(file: &File, block: &Block) -> Result<Buffer, WorkerError> {
    let len = block.metaDataLength() as u64 + block.bodyLength() as u64;
    let mut reader = file;
    reader.seek(SeekFrom::Start(block.offset() as u64))?;
    let mut bytes = Vec::with_capacity(len as usize);
    reader.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(invalid("a block runs past the end of the file"));
    }
    Ok(Buffer::from_vec(bytes))
}

/// Plain buffered reads through `FileReader`, jumping to the blocks a request needs.
struct Plain {
    path: std::path::PathBuf,
    layout: Layout,
}

impl Plain {
    fn open(path: &Path) -> Result<Self, WorkerError> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let layout = read_layout(len, |offset, n| {
            let mut buf = vec![0; n];
            file.read_exact_at(&mut buf, offset)?;
            Ok(buf)
        })?;
        Ok(Plain {
            path: path.to_path_buf(),
            layout,
        })
    }

    fn reader(
        &self,
        projection: Option<Vec<usize>>,
    ) -> Result<FileReader<BufReader<File>>, WorkerError> {
        let mut builder = FileReaderBuilder::new().with_max_footer_fb_tables(100_000_000);
        if let Some(projection) = projection {
            builder = builder.with_projection(projection);
        }
        let reader = builder.build(BufReader::with_capacity(1 << 20, File::open(&self.path)?))?;
        // SAFETY: see `TRUSTED_ARTIFACTS`; the file is this worker's own output.
        Ok(unsafe { reader.with_skip_validation(TRUSTED_ARTIFACTS) })
    }

    fn decode(
        reader: &mut FileReader<BufReader<File>>,
        index: usize,
    ) -> Result<RecordBatch, WorkerError> {
        reader.set_index(index)?;
        reader
            .next()
            .ok_or_else(|| invalid("missing block"))?
            .map_err(Into::into)
    }
}

impl Ipc {
    fn read_mapped(
        &self,
        ctx: &Context,
        path: &Path,
        request: Request,
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        let mapped = Mapped::open(path)?;
        let all = 0..mapped.layout.blocks.len();
        match request {
            Request::All => {
                let decoder = mapped.decoder(None)?;
                all.map(|i| mapped.decode(&decoder, i)).collect()
            }
            Request::Columns(names) => {
                let decoder = mapped.decoder(Some(column_indices(ctx.schema, names)?))?;
                all.map(|i| mapped.decode(&decoder, i)).collect()
            }
            Request::Range(RangeSpec::Position { start, end }) => {
                let decoder = mapped.decoder(None)?;
                position_range(&mapped.layout.rows, *start, *end, |i| {
                    mapped.decode(&decoder, i)
                })
            }
            Request::Range(RangeSpec::Index { column, start, end }) => {
                let index = column_indices(ctx.schema, std::slice::from_ref(column))?;
                let index_decoder = mapped.decoder(Some(index))?;
                let decoder = mapped.decoder(None)?;
                let mut out = Vec::new();
                for i in all {
                    let keys = filter_index_range(
                        &mapped.decode(&index_decoder, i)?,
                        column,
                        *start,
                        *end,
                    )?;
                    if keys.num_rows() > 0 {
                        out.push(filter_index_range(
                            &mapped.decode(&decoder, i)?,
                            column,
                            *start,
                            *end,
                        )?);
                    }
                }
                Ok(out)
            }
            Request::Take(rows, columns) => {
                let projection = columns
                    .map(|names| column_indices(ctx.schema, names))
                    .transpose()?;
                let decoder = mapped.decoder(projection)?;
                Ok(
                    take_positions(&mapped.layout.rows, rows, |i| mapped.decode(&decoder, i))?
                        .into_iter()
                        .collect(),
                )
            }
        }
    }

    fn read_plain(
        &self,
        ctx: &Context,
        path: &Path,
        request: Request,
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        let plain = Plain::open(path)?;
        match request {
            Request::All | Request::Columns(_) => {
                let indices = match request {
                    Request::Columns(names) => column_indices(ctx.schema, names)?,
                    _ => (0..ctx.schema.fields().len()).collect(),
                };
                // Each thread reads, decompresses and decodes its own run of blocks, so every
                // byte of the file is read once.
                let blocks: Vec<usize> = (0..plain.layout.blocks.len()).collect();
                crate::parallel::by_groups(ctx.threads, &blocks, |group| {
                    let file = File::open(&plain.path)?;
                    let read = |b: &Block| read_block(&file, b);
                    // Blocks are read into buffers of their own, which need not be aligned
                    // as a mapping is: arrow copies any buffer that is not.
                    let decoder = block_decoder(&plain.layout, Some(indices.clone()), false, read)?;
                    group
                        .into_iter()
                        .map(|i| {
                            let block = &plain.layout.blocks[i];
                            decode_block(&decoder, block, &read_block(&file, block)?)
                        })
                        .collect()
                })
            }
            Request::Range(RangeSpec::Position { start, end }) => {
                let mut reader = plain.reader(None)?;
                position_range(&plain.layout.rows, *start, *end, |i| {
                    Plain::decode(&mut reader, i)
                })
            }
            Request::Range(RangeSpec::Index { column, start, end }) => {
                let index = column_indices(ctx.schema, std::slice::from_ref(column))?;
                let mut keys_reader = plain.reader(Some(index))?;
                let mut reader = plain.reader(None)?;
                let mut out = Vec::new();
                for i in 0..plain.layout.blocks.len() {
                    let keys = filter_index_range(
                        &Plain::decode(&mut keys_reader, i)?,
                        column,
                        *start,
                        *end,
                    )?;
                    if keys.num_rows() > 0 {
                        out.push(filter_index_range(
                            &Plain::decode(&mut reader, i)?,
                            column,
                            *start,
                            *end,
                        )?);
                    }
                }
                Ok(out)
            }
            Request::Take(rows, columns) => {
                let projection = columns
                    .map(|names| column_indices(ctx.schema, names))
                    .transpose()?;
                let mut reader = plain.reader(projection)?;
                Ok(
                    take_positions(&plain.layout.rows, rows, |i| Plain::decode(&mut reader, i))?
                        .into_iter()
                        .collect(),
                )
            }
        }
    }
}

impl Backend for Ipc {
    fn name(&self) -> &'static str {
        if self.mmap {
            "ipc-mmap"
        } else {
            "ipc"
        }
    }
    fn about(&self) -> &'static str {
        if self.mmap {
            "Arrow IPC file (Feather v2), memory-mapped and decoded zero-copy (uncompressed files)"
        } else {
            "Arrow IPC file (Feather v2) via arrow-ipc with buffered reads (uncompressed, lz4, zstd)"
        }
    }
    fn array_form(&self) -> Option<crate::layout::ArrayForm> {
        Some(crate::layout::ArrayForm::FixedList)
    }
    fn profiles(&self) -> &'static [&'static str] {
        if self.mmap {
            &["default"]
        } else {
            &["default", "lz4", "zstd"]
        }
    }
    fn ops(&self) -> &'static [Op] {
        if self.mmap {
            // Writing is the `ipc` backend's; this one differs only in how it reads.
            &[Op::Read, Op::Scan, Op::Project, Op::Range, Op::Take]
        } else {
            &ALL_OPS
        }
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        let compression = match ctx.profile {
            "lz4" => Some(CompressionType::LZ4_FRAME),
            "zstd" => Some(CompressionType::ZSTD),
            _ => None,
        };
        let options = IpcWriteOptions::try_new(ALIGNMENT, false, MetadataVersion::V5)?
            .try_with_compression(compression)?;
        let file = BufWriter::with_capacity(1 << 20, File::create(data_file(dir, "arrow"))?);
        let mut writer = FileWriter::try_new_with_options(file, ctx.schema, options)?;
        for batch in batches {
            writer.write(batch)?;
        }
        writer.finish()?;
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        let path = data_file(dir, "arrow");
        let method = match (self.mmap, request) {
            (true, Request::All | Request::Columns(_)) => "mmap, zero-copy decode",
            (true, _) => "mmap, zero-copy decode of the needed blocks",
            (false, Request::All | Request::Columns(_)) => "buffered reads, decode",
            (false, _) => "buffered reads of the needed blocks",
        };
        let batches = if self.mmap {
            self.read_mapped(ctx, &path, request)?
        } else {
            self.read_plain(ctx, &path, request)?
        };
        Ok((Loaded::Table(batches), method))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::from([
            ("alignment".into(), ALIGNMENT.to_string()),
            (
                "validation".into(),
                if TRUSTED_ARTIFACTS {
                    "skipped (own artifacts; results are verified against the source)"
                } else {
                    "full"
                }
                .into(),
            ),
            (
                "library".into(),
                format!("arrow-ipc {}", crate::ARROW_VERSION),
            ),
            ("metadata_version".into(), "V5".into()),
            (
                "profile_settings".into(),
                match ctx.profile {
                    "lz4" => "lz4 frame",
                    "zstd" => "zstd (library default level)",
                    _ => "uncompressed",
                }
                .into(),
            ),
        ]);
        if let Ok(plain) = Plain::open(&data_file(dir, "arrow")) {
            out.insert("codec".into(), plain.layout.codec);
            out.insert("blocks".into(), plain.layout.blocks.len().to_string());
        }
        out
    }
}
