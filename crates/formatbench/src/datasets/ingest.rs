//! User files (CSV, Parquet, Arrow IPC) become a canonical source the same way generated data
//! does: streamed batch by batch, fingerprinted.

use super::{Source, SourceWriter};
use crate::Error;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;
use formatbench_protocol::{batch_rows, CSV_VALUE_BYTES, DECODED_VALUE_BYTES};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;
use std::sync::Arc;

mod offsets;

#[derive(Debug, Clone, Copy, PartialEq)]
enum InputFormat {
    Csv,
    Parquet,
    IpcFile,
    IpcStream,
}

fn detect(path: &Path, file: &mut File) -> Result<InputFormat, Error> {
    let mut magic = [0u8; 8];
    let n = file.read(&mut magic).map_err(io_error(path))?;
    file.rewind().map_err(io_error(path))?;
    if n == 0 {
        return Err(Error::Input(format!("{} is empty", path.display())));
    }
    if magic.starts_with(b"PAR1") {
        return Ok(InputFormat::Parquet);
    }
    if magic.starts_with(b"ARROW1") {
        return Ok(InputFormat::IpcFile);
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "csv" | "txt" | "tsv" => Ok(InputFormat::Csv),
        "arrows" | "stream" => Ok(InputFormat::IpcStream),
        "parquet" | "pq" => Err(Error::Input(format!(
            "{} is not a Parquet file (no PAR1 magic)",
            path.display()
        ))),
        "arrow" | "feather" | "ipc" => Err(Error::Input(format!(
            "{} is not an Arrow IPC file (no ARROW1 magic)",
            path.display()
        ))),
        _ => Err(Error::Input(format!(
            "cannot tell the format of {}: use a .csv, .parquet or .arrow file",
            path.display()
        ))),
    }
}

impl InputFormat {
    /// The name results and the `as-given` competitors use for it.
    fn name(self) -> &'static str {
        match self {
            InputFormat::Csv => "csv",
            InputFormat::Parquet => "parquet",
            InputFormat::IpcFile => "arrow-ipc",
            InputFormat::IpcStream => "arrow-ipc-stream",
        }
    }
}

/// The format of a user's file (`csv`, `parquet`, `arrow-ipc`, `arrow-ipc-stream`), or `None`
/// when it cannot be told (ingesting it then says why).
pub fn input_format(path: &Path) -> Option<&'static str> {
    check_regular_file(path).ok()?;
    let mut file = File::open(path).ok()?;
    detect(path, &mut file).ok().map(InputFormat::name)
}

/// The line of a CSV's quote that is never closed, if there is one. A quoted field may span
/// lines and holds doubled quotes (`""`), so an even count of quotes after the opening one
/// closes it: a reader without this check takes the rest of the file as one field.
fn unterminated_quote(mut reader: impl std::io::BufRead) -> std::io::Result<Option<u64>> {
    let mut quoted_since = None;
    let mut line = 1u64;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(quoted_since);
        }
        for &byte in chunk {
            if byte == b'"' {
                quoted_since = match quoted_since {
                    Some(_) => None,
                    None => Some(line),
                };
            } else if byte == b'\n' {
                line += 1;
            }
        }
        let n = chunk.len();
        reader.consume(n);
    }
}

/// Rows of a CSV that type inference (and the offset check) reads.
const INFER_ROWS: usize = 10_000;

type Batches = Box<dyn Iterator<Item = Result<RecordBatch, ArrowError>>>;

/// An I/O error on the user's file, naming it.
fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::at("read", path)(e)
}

/// Refuses anything but a regular file before opening it: opening a FIFO waits for a writer
/// (no signal ends that wait), and no reader here can rewind one.
pub(crate) fn check_regular_file(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(path)
        .map_err(|e| Error::Input(format!("cannot open {}: {e}", path.display())))?
        .file_type();
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    Err(Error::Input(format!(
        "{} is {what}: --input takes one CSV, Parquet or Arrow IPC file",
        path.display()
    )))
}

fn open_batches(path: &Path) -> Result<(SchemaRef, Batches, &'static str), Error> {
    check_regular_file(path)?;
    let mut file = File::open(path)
        .map_err(|e| Error::Input(format!("cannot open {}: {e}", path.display())))?;
    let format = detect(path, &mut file)?;
    let malformed = |what: &str, e: &dyn std::fmt::Display| {
        Error::Input(format!("malformed {what} file {}: {e}", path.display()))
    };
    let io = io_error(path);
    Ok(match format {
        InputFormat::Csv => {
            if let Some(line) = unterminated_quote(BufReader::new(&mut file)).map_err(&io)? {
                return Err(Error::Input(format!(
                    "malformed CSV file {}: the quote opened on line {line} is never closed",
                    path.display()
                )));
            }
            file.rewind().map_err(&io)?;
            let (schema, _) = arrow::csv::reader::Format::default()
                .with_header(true)
                .infer_schema(BufReader::new(&mut file), Some(INFER_ROWS))
                .map_err(|e| malformed("CSV", &e))?;
            file.rewind().map_err(&io)?;
            let schema = offsets::keep_offsets(schema, BufReader::new(&mut file), INFER_ROWS)
                .map_err(|e| malformed("CSV", &e))?;
            file.rewind().map_err(&io)?;
            if schema.fields().is_empty() {
                return Err(Error::Input(format!("{} has no columns", path.display())));
            }
            let schema = Arc::new(schema);
            let rows = batch_rows(schema.fields().len(), CSV_VALUE_BYTES);
            let reader = arrow::csv::ReaderBuilder::new(schema.clone())
                .with_header(true)
                .with_batch_size(rows)
                .build(BufReader::with_capacity(1 << 20, file))
                .map_err(|e| malformed("CSV", &e))?;
            (schema, Box::new(reader), format.name())
        }
        InputFormat::Parquet => {
            let builder =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .map_err(|e| malformed("Parquet", &e))?;
            let schema = builder.schema().clone();
            // Leaves, not fields: a struct or list column reads one buffer per leaf.
            let leaves = builder.parquet_schema().num_columns();
            let reader = builder
                .with_batch_size(batch_rows(leaves, DECODED_VALUE_BYTES))
                .build()
                .map_err(|e| malformed("Parquet", &e))?;
            (schema, Box::new(reader), format.name())
        }
        InputFormat::IpcFile => {
            check_ipc_blocks(path)?;
            let reader = arrow::ipc::reader::FileReader::try_new_buffered(file, None)
                .map_err(|e| malformed("Arrow IPC", &e))?;
            (reader.schema(), Box::new(reader), format.name())
        }
        InputFormat::IpcStream => {
            let reader = arrow::ipc::reader::StreamReader::try_new_buffered(file, None)
                .map_err(|e| malformed("Arrow IPC stream", &e))?;
            (reader.schema(), Box::new(reader), format.name())
        }
    })
}

/// An Arrow IPC file opened, its length and its footer's bytes: the file ends with the footer,
/// its 4-byte length and the 6-byte magic, and only those are read.
pub(super) fn ipc_footer(path: &Path) -> Result<(File, u64, Vec<u8>), Error> {
    use std::io::SeekFrom;
    let io = |e: std::io::Error| Error::at("read", path)(e);
    let bad = |why: &str| {
        Error::Input(format!(
            "malformed Arrow IPC input {}: {why}",
            path.display()
        ))
    };
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len < 10 {
        return Err(bad("too short for an Arrow IPC file"));
    }
    let mut tail = [0u8; 10];
    file.seek(SeekFrom::End(-10)).map_err(io)?;
    file.read_exact(&mut tail).map_err(io)?;
    let footer_len = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let footer_len = u64::try_from(footer_len)
        .ok()
        .filter(|&n| n <= len - 10)
        .ok_or_else(|| bad("its footer length is past the file"))?;
    let mut footer = vec![0u8; footer_len as usize];
    file.seek(SeekFrom::Start(len - 10 - footer_len))
        .map_err(io)?;
    file.read_exact(&mut footer).map_err(io)?;
    Ok((file, len, footer))
}

/// Refuses an Arrow IPC file whose footer names a block past the file's end: arrow's reader
/// allocates each block's stated length before reading it, so a corrupt length would ask for
/// terabytes (found by `fuzz/run`, target ingest_ipc).
fn check_ipc_blocks(path: &Path) -> Result<(), Error> {
    let (_, len, footer_bytes) = ipc_footer(path)?;
    let bad = |why: &str| {
        Error::Input(format!(
            "malformed Arrow IPC input {}: {why}",
            path.display()
        ))
    };
    let footer = arrow::ipc::root_as_footer(&footer_bytes)
        .map_err(|e| bad(&format!("unreadable footer: {e}")))?;
    let blocks = footer
        .recordBatches()
        .into_iter()
        .flatten()
        .chain(footer.dictionaries().into_iter().flatten());
    for block in blocks {
        let end = i128::from(block.offset())
            + i128::from(block.metaDataLength())
            + i128::from(block.bodyLength());
        if block.offset() < 0
            || block.metaDataLength() < 0
            || block.bodyLength() < 0
            || end > len as i128
        {
            return Err(bad(&format!(
                "a block ends at byte {end}, past the file's {len} bytes"
            )));
        }
    }
    Ok(())
}

/// Streams `input` into the canonical IPC file at `out`; `index` names the integer column that
/// `range` selects by (without it, ranges are by position).
pub fn ingest(input: &Path, index: Option<&str>, out: &Path) -> Result<Source, Error> {
    ingest_as(input, index, None, out)
}

/// [`ingest`], with the float64 columns cast to `feature_type` when given (`--feature-type`).
pub fn ingest_as(
    input: &Path,
    index: Option<&str>,
    feature_type: Option<super::FeatureType>,
    out: &Path,
) -> Result<Source, Error> {
    let what = format!("input {}", input.display());
    // Arrow's complaints about a user's file are about the input; its I/O errors are not.
    let ingested = || ingest_file(input, index, feature_type, out);
    crate::error::reading(&what, ingested).map_err(|e| match e {
        Error::Arrow(arrow::error::ArrowError::IoError(_, source)) => {
            Error::failed(format!("while ingesting {}", input.display()))(source)
        }
        Error::Arrow(e) => Error::Input(format!("malformed {what}: {e}")),
        other => other,
    })
}

fn ingest_file(
    input: &Path,
    index: Option<&str>,
    feature_type: Option<super::FeatureType>,
    out: &Path,
) -> Result<Source, Error> {
    let (schema, batches, format) = open_batches(input)?;
    let (schema, batches, cast) = match feature_type {
        Some(to) => super::feature_type::cast_features(schema, batches, to)?,
        None => (schema, batches, Vec::new()),
    };
    if let Some(index) = index {
        let field = schema.field_with_name(index).map_err(|_| {
            Error::Input(format!(
                "--index {index}: {} has no such column",
                input.display()
            ))
        })?;
        if !field.data_type().is_integer() {
            return Err(Error::Input(format!(
                "--index {index}: the column is {}, not an integer",
                field.data_type()
            )));
        }
    }
    let mut writer = SourceWriter::create(out, &schema)?;
    for batch in batches {
        // A large file takes a while: Ctrl-C or SIGTERM stops here as it stops a measurement.
        if crate::interrupt::interrupted() {
            return Err(Error::Interrupted);
        }
        let batch = batch.map_err(|e| {
            Error::Input(format!("malformed {format} input {}: {e}", input.display()))
        })?;
        writer.write(&batch)?;
    }
    let (fingerprint, rows, bytes) = writer.finish()?;
    if rows == 0 {
        return Err(Error::Input(format!("{} has no rows", input.display())));
    }
    let mut parameters = BTreeMap::from([
        ("input".into(), input.display().to_string()),
        ("format".into(), format.to_string()),
        ("index".into(), index.unwrap_or("(position)").to_string()),
    ]);
    if !cast.is_empty() {
        let described = super::feature_type::described(&cast);
        parameters.insert("feature_type".into(), described);
    }
    let name = super::spec::input_name(input);
    Ok(Source {
        name,
        path: out.to_path_buf(),
        fingerprint,
        rows,
        schema,
        index_column: index.map(str::to_string),
        parameters,
        bytes,
    })
}
