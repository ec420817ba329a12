//! Parquet through the parquet crate. Profiles: `default` (snappy; dictionary where the first
//! rows show it pays) and `compact`
//! (zstd level 3, dictionary off, byte-stream-split floats). Reads load the offset index so
//! row selections skip pages instead of decoding them. Writes encode column chunks in parallel.

use super::{column_indices, data_file, Backend, Context, Loaded, Request};
use crate::rows::index_mask;
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::compute::{concat_batches, take_record_batch};
use arrow::datatypes::Schema;
use formatbench_protocol::{Op, RangeSpec, ALL_OPS};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowFilter, RowSelection,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
use parquet::file::properties::WriterProperties;
use parquet::file::statistics::Statistics;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

mod fixed_list;
mod remote;
mod write;

pub struct Parquet;

/// Rows per batch for a file of `leaves` leaf columns: by bytes, at most 65,536, as the reader
/// reserves every leaf's values for a whole batch before decoding
/// (formatbench_protocol::batch_rows).
fn batch_rows_of(leaves: usize) -> usize {
    formatbench_protocol::batch_rows(leaves, formatbench_protocol::DECODED_VALUE_BYTES)
}

/// Leaf columns `schema` has in Parquet (a list or struct column has one per leaf).
fn parquet_leaves(schema: &Schema) -> usize {
    parquet::arrow::ArrowSchemaConverter::new()
        .convert(schema)
        .map_or(schema.fields().len(), |leaves| leaves.num_columns())
}
/// A fixed `created_by` keeps files byte-identical across builds of the same writer.
const CREATED_BY: &str = "formatbench (parquet 60.1.0)";

fn properties(
    profile: &str,
    schema: &Schema,
    batches: &[RecordBatch],
    threads: usize,
) -> Result<WriterProperties, WorkerError> {
    let builder = WriterProperties::builder().set_created_by(CREATED_BY.into());
    Ok(match profile {
        "compact" => {
            let level = ZstdLevel::try_new(COMPACT_ZSTD_LEVEL)?;
            let mut builder = builder
                .set_compression(Compression::ZSTD(level))
                .set_dictionary_enabled(false);
            // Every float leaf, nested ones included (the array layout's list items).
            let leaves = parquet::arrow::ArrowSchemaConverter::new().convert(schema)?;
            for column in leaves.columns() {
                if matches!(
                    column.physical_type(),
                    parquet::basic::Type::FLOAT | parquet::basic::Type::DOUBLE
                ) {
                    let path = column.path().clone();
                    builder = builder.set_column_encoding(path, Encoding::BYTE_STREAM_SPLIT);
                }
            }
            builder.build()
        }
        _ => {
            let mut builder = builder.set_compression(Compression::SNAPPY);
            let mostly_distinct = write::high_cardinality_columns(batches, threads)?;
            if !mostly_distinct.is_empty() {
                let leaves = parquet::arrow::ArrowSchemaConverter::new().convert(schema)?;
                for column in leaves.columns() {
                    let root = column.path().parts().first();
                    if mostly_distinct.iter().any(|name| Some(name) == root) {
                        builder =
                            builder.set_column_dictionary_enabled(column.path().clone(), false);
                    }
                }
            }
            builder.build()
        }
    })
}

fn open(dir: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>, WorkerError> {
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Optional);
    let file = File::open(data_file(dir, "parquet"))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)?;
    let rows = batch_rows_of(builder.parquet_schema().num_columns());
    Ok(builder.with_batch_size(rows))
}

fn collect(
    builder: ParquetRecordBatchReaderBuilder<File>,
) -> Result<Vec<RecordBatch>, WorkerError> {
    Ok(builder
        .build()?
        .inspect(|_| formatbench_protocol::phases::first_batch())
        .collect::<Result<Vec<_>, _>>()?)
}

type Builder = ParquetRecordBatchReaderBuilder<File>;

/// Decodes the columns `indices` with up to `threads` readers, each configured alike (row
/// selection, filter) so their batches line up.
fn read_columns(
    dir: &Path,
    threads: usize,
    indices: &[usize],
    configure: impl Fn(Builder) -> Result<Builder, WorkerError> + Sync,
) -> Result<Vec<RecordBatch>, WorkerError> {
    crate::parallel::by_columns(threads, indices, |group| {
        let builder = open(dir)?;
        let mask = ProjectionMask::roots(builder.parquet_schema(), group);
        collect(configure(builder.with_projection(mask))?)
    })
}

/// Row groups whose statistics for `column` may hold values in `[lo, hi)`.
fn row_groups_overlapping(
    meta: &parquet::file::metadata::ParquetMetaData,
    column: usize,
    lo: i64,
    hi: i64,
) -> Vec<usize> {
    (0..meta.num_row_groups())
        .filter(|&rg| match meta.row_group(rg).column(column).statistics() {
            Some(Statistics::Int64(s)) => match (s.min_opt(), s.max_opt()) {
                (Some(&min), Some(&max)) => max >= lo && min < hi,
                _ => true,
            },
            Some(Statistics::Int32(s)) => match (s.min_opt(), s.max_opt()) {
                (Some(&min), Some(&max)) => i64::from(max) >= lo && i64::from(min) < hi,
                _ => true,
            },
            _ => true,
        })
        .collect()
}

impl Backend for Parquet {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        "parquet"
    }
    fn version(&self) -> String {
        crate::ARROW_VERSION.into()
    }
    fn about(&self) -> &'static str {
        "Apache Parquet via the parquet crate (default: snappy, dictionary where it pays; compact: zstd-3, no dictionary, BSS floats)"
    }
    fn array_form(&self) -> Option<crate::layout::ArrayForm> {
        Some(crate::layout::ArrayForm::FixedList)
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default", "compact"]
    }
    fn ops(&self) -> &'static [Op] {
        &ALL_OPS
    }

    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        // Inside the timer, as any writer of such data to Parquet must do it.
        let (schema, converted) = write::with_parquet_units(ctx.schema, batches)?;
        let batches = converted.as_deref().unwrap_or(batches);
        let props = properties(ctx.profile, &schema, batches, ctx.threads)?;
        let file = File::create(data_file(dir, "parquet"))?;
        let flat = !schema.fields().iter().any(|f| f.data_type().is_nested());
        if ctx.threads > 1 && flat {
            return write::write_columns_in_parallel(file, &schema, batches, props, ctx.threads);
        }
        let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props))?;
        for batch in batches {
            writer.write(batch)?;
        }
        writer.close()?;
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        if let Some(target) = ctx.remote {
            return remote::read(ctx, target, request);
        }
        // Only row selections need the row count; full and projected reads skip that footer parse.
        let total = || -> Result<usize, WorkerError> {
            Ok(open(dir)?.metadata().file_metadata().num_rows() as usize)
        };
        let all: Vec<usize> = (0..ctx.schema.fields().len()).collect();
        Ok(match request {
            Request::All => (
                Loaded::Table(read_columns(dir, ctx.threads, &all, Ok)?),
                "full decode",
            ),
            Request::Columns(names) => {
                let indices = column_indices(ctx.schema, names)?;
                if let [only] = indices[..] {
                    let field = &ctx.schema.fields()[only];
                    let path = data_file(dir, "parquet");
                    if let Some(batch) = fixed_list::read(&path, field, None, ctx.threads)? {
                        return Ok((
                            Loaded::Table(vec![batch]),
                            "fixed-size float list read from its leaf values (levels checked)",
                        ));
                    }
                }
                (
                    Loaded::Table(read_columns(dir, ctx.threads, &indices, Ok)?),
                    "projected column chunks",
                )
            }
            Request::Range(RangeSpec::Position { start, end }) => {
                let total = total()?;
                let (start, end) = (*start as usize, (*end as usize).min(total));
                let batches = read_columns(dir, ctx.threads, &all, |builder| {
                    let ranges = std::iter::once(start..end);
                    Ok(builder
                        .with_row_selection(RowSelection::from_consecutive_ranges(ranges, total)))
                })?;
                (
                    Loaded::Table(batches),
                    "row selection (pages skipped by the offset index)",
                )
            }
            Request::Range(RangeSpec::Index { column, start, end }) => {
                let index = ctx.schema.index_of(column).map_err(|_| {
                    WorkerError::Invalid(format!("index column '{column}' is not in the table"))
                })?;
                let (lo, hi) = (*start, *end);
                let batches = read_columns(dir, ctx.threads, &all, |builder| {
                    let groups = row_groups_overlapping(builder.metadata(), index, lo, hi);
                    let mask = ProjectionMask::roots(builder.parquet_schema(), [index]);
                    let name = column.clone();
                    let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
                        index_mask(&batch, &name, lo, hi)
                    });
                    Ok(builder
                        .with_row_groups(groups)
                        .with_row_filter(RowFilter::new(vec![Box::new(predicate)])))
                })?;
                (
                    Loaded::Table(batches),
                    "row groups pruned by statistics + filter on the index column",
                )
            }
            Request::Take(rows, columns) => {
                let total = total()?;
                let (indices, schema) = taken_columns(ctx, columns)?;
                let sorted = sorted_rows(rows, total)?;
                // The array layout's one fixed-size list: its picked rows from the leaf.
                let fixed = match indices[..] {
                    [only] => fixed_list::read(
                        &data_file(dir, "parquet"),
                        &ctx.schema.fields()[only],
                        Some(&sorted),
                        ctx.threads,
                    )?,
                    _ => None,
                };
                let how = match fixed {
                    Some(_) => "fixed-size float list rows read from its leaf values (levels checked) + reorder",
                    None => "row selection of single rows + reorder",
                };
                let found = match fixed {
                    Some(batch) => batch,
                    None => {
                        let found =
                            read_columns(dir, ctx.threads, &indices, |builder| {
                                let ranges = sorted.iter().map(|&r| r..r + 1);
                                Ok(builder.with_row_selection(
                                    RowSelection::from_consecutive_ranges(ranges, total),
                                ))
                            })?;
                        concat_batches(&schema, &found)?
                    }
                };
                (
                    Loaded::Table(vec![in_request_order(&found, rows, &sorted)?]),
                    how,
                )
            }
        })
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        // Settings are what the file says; what it cannot say is marked as the writer's.
        let mut out = BTreeMap::from([
            (
                "batch_rows".into(),
                batch_rows_of(parquet_leaves(ctx.schema)).to_string(),
            ),
            ("decode_threads".into(), ctx.threads.to_string()),
            // Column chunks of flat schemas are encoded in parallel (parquet/write.rs).
            ("encode_threads".into(), ctx.threads.to_string()),
            ("page_index".into(), "optional (read when present)".into()),
            (
                "library".into(),
                format!("parquet {}", crate::ARROW_VERSION),
            ),
            // The writer's defaults, unchanged by either profile.
            ("data_page_size_limit".into(), "1 MiB".into()),
            ("max_row_group_rows".into(), "1,048,576".into()),
        ]);
        out.insert(
            "profile_settings".into(),
            match ctx.profile {
                "compact" => "zstd level 3, dictionary off, byte_stream_split floats",
                _ => "snappy, dictionary except for columns over 50 % distinct in the first 8,192 rows",
            }
            .into(),
        );
        let Ok(file) = File::open(data_file(dir, "parquet")) else {
            return out;
        };
        let Ok(meta) = ParquetMetaDataReader::new().parse_and_finish(&file) else {
            return out;
        };
        let mut codecs = BTreeSet::new();
        let mut encodings = BTreeSet::new();
        for rg in meta.row_groups() {
            for column in rg.columns() {
                codecs.insert(codec_text(column.compression(), ctx.profile));
                encodings.extend(column.encodings().map(|e| format!("{e:?}")));
            }
        }
        let join = |set: BTreeSet<String>| set.into_iter().collect::<Vec<_>>().join(" ");
        out.insert("row_groups".into(), meta.num_row_groups().to_string());
        out.insert("codecs".into(), join(codecs));
        let dictionary = encodings.iter().any(|e| e.contains("DICTIONARY"));
        out.insert(
            "dictionary".into(),
            if dictionary { "on" } else { "off" }.into(),
        );
        out.insert("encodings".into(), join(encodings));
        out.insert("column_encodings".into(), column_encodings(&meta));
        out
    }
}

/// The encodings each column was written with (over every row group), columns with the same
/// set named together: "PLAIN RLE: index, num_1, num_2, num_3, … (5 columns); PLAIN
/// RLE_DICTIONARY: cat_A, cat_B (2 columns)".
fn column_encodings(meta: &parquet::file::metadata::ParquetMetaData) -> String {
    let mut by_column: Vec<(String, BTreeSet<String>)> = Vec::new();
    for rg in meta.row_groups() {
        for (i, column) in rg.columns().iter().enumerate() {
            if by_column.len() <= i {
                by_column.push((column.column_path().string(), BTreeSet::new()));
            }
            by_column[i]
                .1
                .extend(column.encodings().map(|e| format!("{e:?}")));
        }
    }
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (name, set) in by_column {
        let key = set.into_iter().collect::<Vec<_>>().join(" ");
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, names)) => names.push(name),
            None => groups.push((key, vec![name])),
        }
    }
    groups
        .iter()
        .map(|(key, names)| {
            let shown: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
            let more = if names.len() > 4 { ", …" } else { "" };
            let count = match names.len() {
                1 => "1 column".to_string(),
                n => format!("{n} columns"),
            };
            format!("{key}: {}{more} ({count})", shown.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The rows of `found` (the distinct `sorted` positions, in order) in the order `rows` asks.
fn in_request_order(
    found: &RecordBatch,
    rows: &[u64],
    sorted: &[usize],
) -> Result<RecordBatch, WorkerError> {
    let order: Vec<u32> = rows
        .iter()
        .map(|r| sorted.partition_point(|&s| s < *r as usize) as u32)
        .collect();
    Ok(take_record_batch(
        found,
        &arrow::array::UInt32Array::from(order),
    )?)
}

/// The columns a take returns (all when `None`), as indices and the schema they make: the
/// stored one (seconds were written as milliseconds).
fn taken_columns(
    ctx: &Context,
    columns: Option<&[String]>,
) -> Result<(Vec<usize>, arrow::datatypes::SchemaRef), WorkerError> {
    let (stored, _) = write::with_parquet_units(ctx.schema, &[])?;
    Ok(match columns {
        Some(names) => {
            let indices = column_indices(ctx.schema, names)?;
            (indices.clone(), Arc::new(stored.project(&indices)?))
        }
        None => ((0..stored.fields().len()).collect(), stored),
    })
}

/// The distinct positions of `rows`, ascending; an error names one past `total`.
fn sorted_rows(rows: &[u64], total: usize) -> Result<Vec<usize>, WorkerError> {
    let sorted: Vec<usize> = rows
        .iter()
        .map(|&r| r as usize)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if let Some(&past) = sorted.iter().find(|&&r| r >= total) {
        return Err(WorkerError::Invalid(format!(
            "row {past} is past the end ({total} rows)"
        )));
    }
    Ok(sorted)
}

/// The zstd level of the `compact` profile.
const COMPACT_ZSTD_LEVEL: i32 = 3;

/// A column chunk's codec as its file states it. Parquet stores the codec, not its level: the
/// metadata reader fills in a default level, so a level is never echoed from the file; it is
/// named as what this writer used (`profile`).
fn codec_text(codec: Compression, profile: &str) -> String {
    let written = match profile {
        "compact" => format!("written with {COMPACT_ZSTD_LEVEL}"),
        _ => "written with the library's default".to_string(),
    };
    let name = match codec {
        Compression::ZSTD(_) => "ZSTD",
        Compression::GZIP(_) => "GZIP",
        Compression::BROTLI(_) => "BROTLI",
        other => return format!("{other:?}"),
    };
    format!("{name} (level not stored; {written})")
}
