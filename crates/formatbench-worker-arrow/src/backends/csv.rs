//! CSV through arrow-csv: header line, the source schema given to the reader (inference would read
//! the file twice and guess types), batches of at most 1,024 rows ([`BATCH_ROWS`]). Files
//! without quotes (all that the writer here makes from the built-in datasets) are parsed in
//! parallel chunks of lines, and takes and ranges parse only the lines they return.

use super::{column_indices, data_file, Backend, Context, Loaded, Request};
use crate::rows::{batch_rows, filter_index_range, take_positions};
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::csv::ReaderBuilder;
use formatbench_protocol::{Op, RangeSpec, ALL_OPS};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

mod decode;
mod lines;
mod parallel;
mod text;
mod types;

use lines::{runs, Lines};
use parallel::Unquoted;

pub struct Csv;

/// Rows per batch: arrow-csv's default of 1,024 (measured faster than 8 Ki or 64 Ki here, the
/// decoder's per-batch buffers stay in cache), fewer for wide tables: the decoder reserves
/// every field of a batch before it reads (formatbench_protocol::batch_rows).
const BATCH_ROWS: usize = 1_024;

fn batch_size(schema: &arrow::datatypes::Schema) -> usize {
    formatbench_protocol::batch_rows(schema.fields().len(), formatbench_protocol::CSV_VALUE_BYTES)
        .min(BATCH_ROWS)
}

impl Csv {
    /// One plain reader over the whole file: the path for files with quotes.
    fn reader(
        &self,
        ctx: &Context,
        dir: &Path,
        projection: Option<Vec<usize>>,
        bounds: Option<(usize, usize)>,
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        let gzipped = data_file(dir, parallel::GZIP_EXTENSION);
        let file: Box<dyn std::io::Read> = if gzipped.exists() {
            Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(
                File::open(gzipped)?,
            )))
        } else {
            Box::new(File::open(data_file(dir, "csv"))?)
        };
        let mut builder = ReaderBuilder::new(ctx.schema.clone())
            .with_header(true)
            .with_batch_size(batch_size(ctx.schema));
        if let Some(projection) = projection {
            builder = builder.with_projection(projection);
        }
        if let Some((start, end)) = bounds {
            builder = builder.with_bounds(start, end);
        }
        let reader = builder.build(BufReader::with_capacity(1 << 20, file))?;
        Ok(reader.collect::<Result<Vec<_>, _>>()?)
    }

    /// Reads a file without quotes: chunks of lines parsed in parallel, and rows located by
    /// line so that only the returned ones are parsed.
    fn read_lines(
        &self,
        ctx: &Context,
        file: &Unquoted,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        let body = file.body();
        // Batches no longer than the text: the decoder sizes its buffers by the batch length.
        let parse = |text: &[u8], projection: Option<&[usize]>, lines: Option<usize>| {
            let most = batch_size(ctx.schema);
            let batch_rows = lines.map_or(most, |n| n.clamp(1, most));
            parallel::parse(ctx, text, projection, batch_rows)
        };
        Ok(match request {
            Request::All => (Loaded::Table(parse(body, None, None)?), "full parse"),
            Request::Columns(names) => {
                let projection = column_indices(ctx.schema, names)?;
                (
                    Loaded::Table(parse(body, Some(&projection), None)?),
                    "every line tokenized, projected columns parsed",
                )
            }
            Request::Range(RangeSpec::Position { start, end }) => {
                let lines = Lines::new(body);
                let end = (*end as usize).min(lines.count());
                let start = (*start as usize).min(end);
                (
                    Loaded::Table(parse(lines.span(start, end), None, Some(end - start))?),
                    "lines located by a newline scan, only the range parsed",
                )
            }
            Request::Range(RangeSpec::Index { column, start, end }) => {
                let lines = Lines::new(body);
                let field = ctx.schema.index_of(column)?;
                let matched = ctx
                    .schema
                    .field(field)
                    .data_type()
                    .is_integer()
                    .then(|| lines.where_integer_in(field, *start, *end));
                match matched.flatten() {
                    Some(matched) => {
                        let text = lines.gather_spans(runs(&matched));
                        (
                            Loaded::Table(parse(&text, None, Some(matched.len()))?),
                            "index field read from every line, only matching lines parsed",
                        )
                    }
                    None => (
                        Loaded::Table(filter_batches(
                            parse(body, None, None)?,
                            column,
                            *start,
                            *end,
                        )?),
                        "full parse + filter on the index column",
                    ),
                }
            }
            Request::Take(rows, columns) => {
                let lines = Lines::new(body);
                if let Some(&row) = rows.iter().find(|&&r| r as usize >= lines.count()) {
                    return Err(WorkerError::Invalid(format!(
                        "row {row} is past the end ({} rows)",
                        lines.count()
                    )));
                }
                let text = lines.gather(rows.iter().map(|&r| r as usize));
                let projection = columns
                    .map(|names| column_indices(ctx.schema, names))
                    .transpose()?;
                (
                    Loaded::Table(parse(&text, projection.as_deref(), Some(rows.len()))?),
                    "lines located by a newline scan, only the requested lines parsed",
                )
            }
        })
    }
}

fn filter_batches(
    batches: Vec<RecordBatch>,
    column: &str,
    start: i64,
    end: i64,
) -> Result<Vec<RecordBatch>, WorkerError> {
    Ok(batches
        .iter()
        .map(|b| filter_index_range(b, column, start, end))
        .collect::<Result<Vec<_>, _>>()?)
}

impl Backend for Csv {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        "csv"
    }
    fn version(&self) -> String {
        crate::ARROW_VERSION.into()
    }
    fn about(&self) -> &'static str {
        "CSV text via arrow-csv (header, schema given, 1 Ki-row batches; compact: gzip)"
    }
    fn array_form(&self) -> Option<crate::layout::ArrayForm> {
        Some(crate::layout::ArrayForm::PackedText)
    }
    fn profiles(&self) -> &'static [&'static str] {
        // `compact` is the layout study's: the same text, gzip-compressed.
        &["default", "compact"]
    }
    fn ops(&self) -> &'static [Op] {
        &ALL_OPS
    }
    fn lossy(&self) -> bool {
        true
    }
    fn can_store(&self, schema: &arrow::datatypes::Schema) -> Result<(), String> {
        match types::unsupported(schema) {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    fn given_file(&self) -> Option<formatbench_protocol::GivenFile> {
        super::given_file("csv", "csv")
    }

    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        let gzip = ctx.profile == "compact";
        if ctx.threads > 1 {
            let path = data_file(
                dir,
                if gzip {
                    parallel::GZIP_EXTENSION
                } else {
                    "csv"
                },
            );
            return parallel::write(ctx.threads, batches, &path, gzip);
        }
        if gzip {
            let file = File::create(data_file(dir, parallel::GZIP_EXTENSION))?;
            let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            text::write(batches, ctx.schema, &mut encoder)?;
            encoder.finish()?;
            return Ok(());
        }
        text::write(batches, ctx.schema, File::create(data_file(dir, "csv"))?)
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        if let Some(target) = ctx.remote {
            // The whole object, as such files are read from a bucket.
            let (loaded, _) = crate::remote::read_downloaded(ctx, target, |local, dir| {
                self.read(local, dir, request)
            })?;
            return Ok((
                loaded,
                "whole object downloaded (LIST, GET a file), then parsed",
            ));
        }
        // Large and view strings are parsed as strings (`types`).
        let schema = types::readable(ctx.schema);
        let ctx = &Context {
            schema: &schema,
            ..*ctx
        };
        if let Some(file) = Unquoted::open(dir)? {
            return self.read_lines(ctx, &file, request);
        }
        Ok(match request {
            Request::All => (
                Loaded::Table(self.reader(ctx, dir, None, None)?),
                "full parse, one thread (quoted fields)",
            ),
            Request::Columns(names) => {
                let projection = column_indices(ctx.schema, names)?;
                (
                    Loaded::Table(self.reader(ctx, dir, Some(projection), None)?),
                    "every line tokenized, projected columns parsed, one thread (quoted fields)",
                )
            }
            Request::Range(RangeSpec::Position { start, end }) => {
                // Bounds count data lines; the header line is skipped before them.
                let batches =
                    self.reader(ctx, dir, None, Some((*start as usize, *end as usize)))?;
                (
                    Loaded::Table(batches),
                    "records before the range tokenized, not parsed (quoted fields)",
                )
            }
            Request::Range(RangeSpec::Index { column, start, end }) => (
                Loaded::Table(filter_batches(
                    self.reader(ctx, dir, None, None)?,
                    column,
                    *start,
                    *end,
                )?),
                "full parse + filter on the index column (quoted fields)",
            ),
            Request::Take(rows, columns) => {
                let projection = columns
                    .map(|names| column_indices(ctx.schema, names))
                    .transpose()?;
                let batches = self.reader(ctx, dir, projection, None)?;
                let taken =
                    take_positions(&batch_rows(&batches), rows, |i| Ok(batches[i].clone()))?;
                (
                    Loaded::Table(taken.into_iter().collect()),
                    "full parse + take (quoted fields)",
                )
            }
        })
    }

    fn settings(&self, ctx: &Context, _dir: &Path) -> BTreeMap<String, String> {
        let compression = if ctx.profile == "compact" {
            "gzip level 6 (flate2; one member per writing thread)"
        } else {
            "none"
        };
        BTreeMap::from([
            ("compression".into(), compression.into()),
            ("header".into(), "true".into()),
            (
                "library".into(),
                format!("arrow-csv {}", crate::ARROW_VERSION),
            ),
            (
                "schema".into(),
                "given (not inferred); LargeUtf8 and Utf8View columns parsed as Utf8".into(),
            ),
            ("batch_rows".into(), batch_size(ctx.schema).to_string()),
            (
                "parallelism".into(),
                "row chunks parsed and formatted on every thread (one thread when quotes occur)"
                    .into(),
            ),
            (
                "row_access".into(),
                "takes and ranges locate lines by newline and parse only those returned (files without quotes)"
                    .into(),
            ),
        ])
    }
}
