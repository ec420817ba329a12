//! CSV with the thread cap: the body is cut into chunks of whole lines that are parsed on
//! separate threads; writes format row ranges on separate threads and write them in order.
//! Line-based access needs a file without quotes; otherwise the caller uses one plain reader.

use crate::backends::{data_file, Context};
use crate::parallel::on_threads;
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::csv::ReaderBuilder;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

/// Offsets that cut `body` into at most `parts` chunks of whole lines.
fn line_cuts(body: &[u8], parts: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    for p in 1..parts {
        let last = cuts.last().copied().unwrap_or(0);
        let from = (body.len() * p / parts).max(last);
        let cut = memchr::memchr(b'\n', &body[from..]).map_or(body.len(), |i| from + i + 1);
        if cut > last && cut < body.len() {
            cuts.push(cut);
        }
    }
    cuts.push(body.len());
    cuts
}

/// A CSV artifact mapped into memory, when it holds no quote: a quoted field may contain a
/// newline, and line-based access (chunks, skipping) could then start inside a record.
pub struct Unquoted {
    map: Text,
    body_start: usize,
}

/// The file's text: mapped, or decompressed into memory (gzip).
enum Text {
    Mapped(memmap2::Mmap),
    Inflated(Vec<u8>),
}

impl std::ops::Deref for Text {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Text::Mapped(map) => map,
            Text::Inflated(bytes) => bytes,
        }
    }
}

impl Unquoted {
    pub fn open(dir: &Path) -> Result<Option<Unquoted>, WorkerError> {
        let gzipped = data_file(dir, GZIP_EXTENSION);
        let map = if gzipped.exists() {
            let mut bytes = Vec::new();
            flate2::read::MultiGzDecoder::new(std::io::BufReader::new(File::open(gzipped)?))
                .read_to_end(&mut bytes)?;
            Text::Inflated(bytes)
        } else {
            let file = File::open(data_file(dir, "csv"))?;
            // SAFETY: the artifact is private to this run and not modified while mapped.
            // Populated: one fault-in pass by the kernel instead of a fault per page.
            Text::Mapped(unsafe { memmap2::MmapOptions::new().populate().map(&file)? })
        };
        if memchr::memchr(b'"', &map).is_some() {
            return Ok(None);
        }
        let Some(header_end) = memchr::memchr(b'\n', &map) else {
            return Ok(None);
        };
        Ok(Some(Unquoted {
            map,
            body_start: header_end + 1,
        }))
    }

    /// The data lines, after the header.
    pub fn body(&self) -> &[u8] {
        &self.map[self.body_start..]
    }
}

/// Parses header-less CSV text on `ctx.threads` threads, each taking a chunk of whole lines.
pub fn parse(
    ctx: &Context,
    body: &[u8],
    projection: Option<&[usize]>,
    batch_rows: usize,
) -> Result<Vec<RecordBatch>, WorkerError> {
    let cuts = line_cuts(body, ctx.threads);
    let parts = on_threads(cuts.len() - 1, |i| {
        let chunk = &body[cuts[i]..cuts[i + 1]];
        if let Some(batches) = super::decode::decode(ctx.schema, chunk, projection, batch_rows) {
            return Ok(batches);
        }
        let mut builder = ReaderBuilder::new(ctx.schema.clone())
            .with_header(false)
            .with_batch_size(batch_rows);
        if let Some(projection) = projection {
            builder = builder.with_projection(projection.to_vec());
        }
        Ok(builder.build(chunk)?.collect::<Result<Vec<_>, _>>()?)
    })?;
    Ok(parts.into_iter().flatten().collect())
}

/// Formats `threads` row ranges in parallel, then writes them in order.
/// The gzip-compressed file's extension (profile `compact`).
pub const GZIP_EXTENSION: &str = "csv.gz";

/// Writes the text on `threads` threads; with `gzip`, each thread compresses its part into a
/// gzip member of its own (a multi-member file, which every gzip reader reads as one stream).
pub fn write(
    threads: usize,
    batches: &[RecordBatch],
    path: &Path,
    gzip: bool,
) -> Result<(), WorkerError> {
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let parts = threads.clamp(1, rows.max(1));
    let texts = on_threads(parts, |p| {
        let text =
            super::text::rows_text(batches, rows * p / parts, rows * (p + 1) / parts, p == 0)?;
        if !gzip {
            return Ok(text);
        }
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(&text)?;
        Ok(encoder.finish()?)
    })?;
    let mut file = File::create(path)?;
    for text in texts {
        file.write_all(&text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_fall_after_newlines() {
        let body = b"a,1\nbb,2\nccc,3\nd,4\n";
        let cuts = line_cuts(body, 3);
        assert_eq!(cuts.first(), Some(&0));
        assert_eq!(cuts.last(), Some(&body.len()));
        for &c in &cuts[1..cuts.len() - 1] {
            assert_eq!(body[c - 1], b'\n');
        }
        assert_eq!(line_cuts(b"x,1\n", 4), vec![0, 4]);
    }
}
