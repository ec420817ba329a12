//! What a user's file is, as the `as-given` competitor reads it: its row groups, pages, page
//! index, codecs, encodings, statistics and declared sort order (Parquet); its record batches
//! and compression (Arrow IPC); its dialect (CSV). Read from the file's metadata only, never
//! through the backends that read it (which are what is measured).

use crate::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

type Settings = BTreeMap<String, String>;

/// The settings of a user's file of `format` (`parquet`, `arrow-ipc`, `csv`), under the keys
/// the writers' own artifacts use where one applies (`row_groups`, `codecs`, `encodings`,
/// `dictionary`), so that the report shows the file beside its re-encodings.
pub fn describe(path: &Path, format: &str) -> Result<Settings, Error> {
    let mut out = match format {
        "parquet" => parquet(path)?,
        "arrow-ipc" => ipc(path)?,
        "csv" => csv(path)?,
        other => {
            return Err(Error::Input(format!(
                "{} is {other}, which no backend reads as given",
                path.display()
            )))
        }
    };
    out.insert(
        "profile_settings".into(),
        format!(
            "the user's {format} file, read in place as given (never rewritten): {}",
            path.display()
        ),
    );
    Ok(out)
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::at("read", path)(e)
}

fn malformed(path: &Path, what: &str, e: impl std::fmt::Display) -> Error {
    Error::Input(format!("malformed {what} file {}: {e}", path.display()))
}

fn joined(set: BTreeSet<String>) -> String {
    set.into_iter().collect::<Vec<_>>().join(" ")
}

/// "50,000" when every part is the same size, else "min–max" (`what` when there are none).
fn spread(values: &[u64], what: &str) -> String {
    match (values.iter().min(), values.iter().max()) {
        (Some(min), Some(max)) if min == max => crate::units::count(*min),
        (Some(min), Some(max)) => format!(
            "{}–{}",
            crate::units::count(*min),
            crate::units::count(*max)
        ),
        _ => what.to_string(),
    }
}

fn parquet(path: &Path) -> Result<Settings, Error> {
    use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
    let file = File::open(path).map_err(io_error(path))?;
    let meta = ParquetMetaDataReader::new()
        .with_offset_index_policy(PageIndexPolicy::Optional)
        .parse_and_finish(&file)
        .map_err(|e| malformed(path, "Parquet", e))?;
    let groups = meta.row_groups();
    let rows: Vec<u64> = groups.iter().map(|g| g.num_rows().max(0) as u64).collect();
    let (mut codecs, mut encodings) = (BTreeSet::new(), BTreeSet::new());
    let (mut chunks, mut with_stats, mut offset_index, mut column_index) = (0, 0, 0, 0);
    for group in groups {
        for column in group.columns() {
            chunks += 1;
            codecs.insert(format!("{:?}", column.compression()));
            encodings.extend(column.encodings().map(|e| format!("{e:?}")));
            with_stats += usize::from(column.statistics().is_some());
            offset_index += usize::from(column.offset_index_offset().is_some());
            column_index += usize::from(column.column_index_offset().is_some());
        }
    }
    let of_chunks = |n: usize, what: &str| match n {
        0 => "none".to_string(),
        n if n == chunks => format!("{what} on every column chunk"),
        n => format!("{what} on {n} of {chunks} column chunks"),
    };
    let page_index = match (offset_index, column_index) {
        (0, 0) => "none".to_string(),
        _ => format!(
            "{}; {}",
            of_chunks(offset_index, "offset index"),
            of_chunks(column_index, "column index")
        ),
    };
    let mut out = Settings::from([
        ("row_groups".into(), groups.len().to_string()),
        ("row_group_rows".into(), spread(&rows, "none")),
        ("codecs".into(), joined(codecs)),
        ("page_index".into(), page_index),
        ("statistics".into(), of_chunks(with_stats, "min/max")),
        ("sorted_by".into(), sorted_by(&meta)),
    ]);
    let dictionary = encodings.iter().any(|e| e.contains("DICTIONARY"));
    out.insert(
        "dictionary".into(),
        if dictionary { "on" } else { "off" }.into(),
    );
    out.insert("encodings".into(), joined(encodings));
    if let Some(pages) = data_pages(&meta) {
        out.insert("data_pages".into(), pages);
    }
    if let Some(by) = meta.file_metadata().created_by() {
        out.insert(
            "created_by".into(),
            by.split_whitespace().collect::<Vec<_>>().join(" "),
        );
    }
    Ok(out)
}

/// The sort order the first row group declares (`sorting_columns`), or that none is declared.
fn sorted_by(meta: &parquet::file::metadata::ParquetMetaData) -> String {
    let schema = meta.file_metadata().schema_descr();
    let declared = meta
        .row_groups()
        .first()
        .and_then(|g| g.sorting_columns())
        .filter(|s| !s.is_empty());
    let Some(columns) = declared else {
        return "not declared".into();
    };
    columns
        .iter()
        .map(|c| {
            let name = usize::try_from(c.column_idx)
                .ok()
                .filter(|&i| i < schema.num_columns())
                .map_or_else(
                    || format!("column {}", c.column_idx),
                    |i| schema.column(i).path().string(),
                );
            if c.descending {
                format!("{name} descending")
            } else {
                name
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Data pages per column chunk and their mean stored size, from the offset index.
fn data_pages(meta: &parquet::file::metadata::ParquetMetaData) -> Option<String> {
    let (mut pages, mut bytes, mut chunks) = (0u64, 0u64, 0u64);
    for (g, group) in meta.row_groups().iter().enumerate() {
        let index = meta.page_index_for_row_group(g);
        for c in 0..group.num_columns() {
            let locations = index.page_locations(c)?;
            chunks += 1;
            pages += locations.len() as u64;
            bytes += locations
                .iter()
                .map(|p| p.compressed_page_size.max(0) as u64)
                .sum::<u64>();
        }
    }
    (pages > 0).then(|| {
        format!(
            "{:.1} per column chunk, {} each on average",
            pages as f64 / chunks.max(1) as f64,
            crate::units::bytes(bytes / pages)
        )
    })
}

/// The record batches of an IPC file (from each block's message header, not its body), their
/// rows and their compression.
fn ipc(path: &Path) -> Result<Settings, Error> {
    let io = io_error(path);
    let bad = |why: String| malformed(path, "Arrow IPC", why);
    let (mut file, _, footer) = super::ingest::ipc_footer(path)?;
    let footer =
        arrow::ipc::root_as_footer(&footer).map_err(|e| bad(format!("unreadable footer: {e}")))?;
    let mut rows = Vec::new();
    let mut codecs = BTreeSet::new();
    for block in footer.recordBatches().into_iter().flatten() {
        let (offset, length) = (block.offset(), block.metaDataLength());
        let length = usize::try_from(length)
            .ok()
            .filter(|&n| (8..=1 << 26).contains(&n) && offset >= 0)
            .ok_or_else(|| bad(format!("a block's metadata length {length} is not valid")))?;
        let mut header = vec![0u8; length];
        file.seek(SeekFrom::Start(offset as u64)).map_err(&io)?;
        file.read_exact(&mut header).map_err(&io)?;
        // A continuation marker (0xFFFFFFFF) and the length precede the message (legacy
        // files have only the length).
        let skip = if header[..4] == [0xff; 4] { 8 } else { 4 };
        let message = arrow::ipc::root_as_message(&header[skip..])
            .map_err(|e| bad(format!("unreadable block header: {e}")))?;
        let batch = message
            .header_as_record_batch()
            .ok_or_else(|| bad("a record batch block holds another message".into()))?;
        rows.push(batch.length().max(0) as u64);
        codecs.insert(match batch.compression() {
            Some(c) => format!("{:?}", c.codec()),
            None => "uncompressed".into(),
        });
    }
    let dictionaries = footer.dictionaries().map_or(0, |d| d.len());
    Ok(Settings::from([
        ("batches".into(), rows.len().to_string()),
        ("batch_rows".into(), spread(&rows, "none")),
        ("compression".into(), joined(codecs)),
        ("dictionary_batches".into(), dictionaries.to_string()),
    ]))
}

/// The dialect the ingest read the file with, and its line ends as found in the first line.
fn csv(path: &Path) -> Result<Settings, Error> {
    let file = File::open(path).map_err(io_error(path))?;
    let mut first = Vec::new();
    BufReader::new(file)
        .take(1 << 20)
        .read_until(b'\n', &mut first)
        .map_err(io_error(path))?;
    let line_ends = if first.ends_with(b"\r\n") {
        "CRLF"
    } else {
        "LF"
    };
    Ok(Settings::from([(
        "dialect".into(),
        format!("comma-separated, a header line, double quotes, {line_ends} line ends"),
    )]))
}
