//! Parquet through the parquet crate. Profiles: `default` (snappy and a dictionary where the
//! first rows show each pays) and `compact`
//! (zstd level 3, dictionary off, byte-stream-split floats). Row selections load the page index
//! and read only the row groups and pages holding their rows (`select`); selective reads tell
//! the kernel not to read ahead. Writes encode column chunks in parallel.

use super::{column_indices, data_file, Backend, Context, Loaded, Request};
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::compute::{concat_batches, take_record_batch};
use arrow::datatypes::Schema;
use formatbench_protocol::{Op, RangeSpec, ALL_OPS};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader};
use parquet::file::properties::WriterProperties;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

mod fetch;
mod files;
mod fixed_list;
mod remote;
mod select;
mod write;

use select::{IndexFilter, RowPlan, Rows};

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
    ctx: &Context,
    schema: &Schema,
    batches: &[RecordBatch],
) -> Result<WriterProperties, WorkerError> {
    let (profile, threads) = (ctx.profile, ctx.threads);
    let builder = WriterProperties::builder().set_created_by(CREATED_BY.into());
    // A point of the row-group sweep sets its own size; every other write keeps the default.
    let builder = match ctx.row_group_rows {
        Some(rows) => builder.set_max_row_group_row_count(Some(rows)),
        None => builder,
    };
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
            let choices = write::judge_columns(batches, threads)?;
            if !choices.mostly_distinct.is_empty() {
                let leaves = parquet::arrow::ArrowSchemaConverter::new().convert(schema)?;
                for column in leaves.columns() {
                    let root = column.path().parts().first();
                    let of = |names: &[String]| names.iter().any(|name| Some(name) == root);
                    if of(&choices.mostly_distinct) {
                        builder =
                            builder.set_column_dictionary_enabled(column.path().clone(), false);
                    }
                    if of(&choices.incompressible) {
                        builder = builder.set_column_compression(
                            column.path().clone(),
                            Compression::UNCOMPRESSED,
                        );
                    }
                }
            }
            builder.build()
        }
    })
}

/// What a read loads of the page index, where the file has one: row selections by position
/// need the offset index (where each page lies and its first row), index ranges the column
/// index too (each page's minimum and maximum), full and projected reads neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PageIndex {
    None,
    Offsets,
    Full,
}

/// A file opened for one read: its metadata parsed once and shared by every decoding thread.
struct Opened<'a> {
    path: &'a Path,
    meta: ArrowReaderMetadata,
    /// The reads that follow fetch scattered parts of the file (row selections, projections).
    random: bool,
}

impl<'a> Opened<'a> {
    /// The footer, and the parts of the page index a read needs (`PageIndex`).
    fn new(path: &'a Path, page_index: PageIndex, random: bool) -> Result<Self, WorkerError> {
        let policy = |wanted: bool| match wanted {
            true => PageIndexPolicy::Optional,
            false => PageIndexPolicy::Skip,
        };
        let options = ArrowReaderOptions::new()
            .with_offset_index_policy(policy(page_index != PageIndex::None))
            .with_column_index_policy(policy(page_index == PageIndex::Full));
        let file = open_file(path, random)?;
        Ok(Opened {
            path,
            meta: ArrowReaderMetadata::load(&file, options)?,
            random,
        })
    }

    fn metadata(&self) -> &ParquetMetaData {
        self.meta.metadata()
    }

    fn rows(&self) -> usize {
        self.metadata().file_metadata().num_rows().max(0) as usize
    }

    /// Decodes the columns `indices` with up to `threads` readers, each reading the same
    /// `rows` (all when `None`) so their batches line up.
    fn read_columns(
        &self,
        threads: usize,
        indices: &[usize],
        rows: Option<Rows>,
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        crate::parallel::by_columns(threads, indices, |group| {
            let file = open_file(self.path, self.random)?;
            let builder =
                ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.meta.clone());
            let batch = batch_rows_of(builder.parquet_schema().num_columns());
            let builder = builder.with_batch_size(batch);
            let mask = ProjectionMask::roots(builder.parquet_schema(), group);
            let builder = builder.with_projection(mask);
            let builder = match &rows {
                Some(rows) => rows.apply(builder),
                None => builder,
            };
            Ok(builder
                .build()?
                .inspect(|_| formatbench_protocol::phases::first_batch())
                .collect::<Result<Vec<_>, _>>()?)
        })
    }
}

/// The artifact's file. For a selective read the kernel is told its reads are random, so a
/// cold read fetches the pages asked for and nothing ahead of them (its readahead would fetch
/// up to the device's window past each one: 8 MiB on this project's test machine).
fn open_file(path: &Path, random: bool) -> Result<File, WorkerError> {
    let file = File::open(path)?;
    if random {
        ipc_parts::advise_random(&file);
    }
    Ok(file)
}

impl Backend for Parquet {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        "parquet"
    }
    fn version(&self) -> String {
        crate::ARROW_VERSION.into()
    }
    fn writes_on_huge_pages(&self) -> bool {
        // arrow-rs grows and shrinks each page's buffer by copying (`execute::write` in the
        // kit): on 4 KiB pages that doubles its page faults, each a TLB shootdown.
        true
    }
    fn about(&self) -> &'static str {
        "Apache Parquet via the parquet crate (default: snappy and dictionary where each pays; compact: zstd-3, no dictionary, BSS floats)"
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

    fn given_file(&self) -> Option<formatbench_protocol::GivenFile> {
        super::given_file("parquet", "parquet")
    }

    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        // Inside the timer, as any writer of such data to Parquet must do it.
        let (schema, converted) = write::with_parquet_units(ctx.schema, batches)?;
        let batches = converted.as_deref().unwrap_or(batches);
        let props = properties(ctx, &schema, batches)?;
        if let Some(split) = ctx.split.filter(|s| s.files > 1) {
            // The sweep's table cut into files (--parquet-files): one writer per file.
            return files::write(&schema, batches, props, split, dir);
        }
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
        // One file or a table cut into files; each file local, or in object storage as the
        // object named as its local copy is.
        let read_one = |path: &Path| match ctx.remote {
            Some(target) => remote::read(ctx, target, &files::object_name(path)?, request),
            None => read_file(ctx, path, request),
        };
        match files::parts(dir) {
            Some(parts) => files::read(&parts, request, read_one),
            None => read_one(&data_file(dir, "parquet")),
        }
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        settings(ctx, dir)
    }
}

/// One Parquet file's answer to `request`.
fn read_file(
    ctx: &Context,
    path: &Path,
    request: Request,
) -> Result<(Loaded, &'static str), WorkerError> {
    let all: Vec<usize> = (0..ctx.schema.fields().len()).collect();
    let selective = !matches!(request, Request::All);
    Ok(match request {
        Request::All => (
            Loaded::Table(Opened::new(path, PageIndex::None, false)?.read_columns(
                ctx.threads,
                &all,
                None,
            )?),
            "full decode",
        ),
        Request::Columns(names) => {
            let indices = column_indices(ctx.schema, names)?;
            if let [only] = indices[..] {
                let field = &ctx.schema.fields()[only];
                if let Some((batch, how)) = fixed_list::read(path, field, None, ctx.threads)? {
                    return Ok((Loaded::Table(vec![batch]), how));
                }
            }
            let file = Opened::new(path, PageIndex::None, selective)?;
            (
                Loaded::Table(file.read_columns(ctx.threads, &indices, None)?),
                "projected column chunks only",
            )
        }
        Request::Range(RangeSpec::Position { start, end }) => {
            let file = Opened::new(path, PageIndex::Offsets, selective)?;
            let total = file.rows();
            let (start, end) = ((*start as usize).min(total), (*end as usize).min(total));
            let plan = RowPlan::span(start..end);
            let batches = file.read_columns(ctx.threads, &all, Some(Rows::Plan(&plan)))?;
            let how = match (
                plan.prunes(file.metadata()),
                select::has_offset_index(file.metadata()),
            ) {
                (true, true) => "row groups and pages outside the range pruned (offset index)",
                (true, false) => {
                    "row groups outside the range pruned (no page index: whole column chunks)"
                }
                (false, _) => "row selection (the range touches every page)",
            };
            (Loaded::Table(batches), how)
        }
        Request::Range(RangeSpec::Index { column, start, end }) => {
            let (filter, kind) = IndexFilter::of(ctx.schema, column, *start, *end)?;
            let file = Opened::new(path, PageIndex::Full, selective)?;
            let (batches, pruned) = select::index_range(
                file.metadata(),
                &filter,
                kind,
                ctx.threads,
                &all,
                |threads, columns, rows| file.read_columns(threads, columns, Some(rows)),
            )?;
            let how = match (pruned, select::has_offset_index(file.metadata())) {
                (true, true) => "row groups pruned by statistics and pages by the page index, then a filter on the index column",
                (true, false) => "row groups pruned by statistics (no page index), then a filter on the index column",
                (false, _) => "every row group and page read (statistics rule none out), then a filter on the index column",
            };
            (Loaded::Table(batches), how)
        }
        Request::Take(rows, columns) => {
            let (indices, schema) = taken_columns(ctx, columns)?;
            let file = Opened::new(path, PageIndex::Offsets, selective)?;
            let sorted = sorted_rows(rows, file.rows())?;
            // The array layout's one fixed-size list: its picked rows from the leaf.
            if let [only] = indices[..] {
                let field = &ctx.schema.fields()[only];
                if let Some((found, how)) =
                    fixed_list::read(path, field, Some(&sorted), ctx.threads)?
                {
                    let how = match how {
                        fixed_list::PLAIN_PAGES => {
                            "the rows' values read from plain pages straight into the matrix (header and levels checked) + reorder"
                        }
                        _ => "the rows from the column reader on the leaf values (levels checked) + reorder",
                    };
                    return Ok((
                        Loaded::Table(vec![in_request_order(&found, rows, &sorted)?]),
                        how,
                    ));
                }
            }
            let plan = RowPlan::new(sorted.iter().map(|&r| r..r + 1));
            // The list beside other columns (`mixed`: metadata and the matrix): the list
            // from its leaf as above, the others by the row plan.
            if let Some((batch, how)) =
                take_with_list(ctx, path, &file, &indices, &schema, &sorted, &plan)?
            {
                return Ok((
                    Loaded::Table(vec![in_request_order(&batch, rows, &sorted)?]),
                    how,
                ));
            }
            let found = file.read_columns(ctx.threads, &indices, Some(Rows::Plan(&plan)))?;
            let found = concat_batches(&schema, &found)?;
            let how = if select::has_offset_index(file.metadata()) {
                "only the row groups and pages holding the rows (offset index) + reorder"
            } else {
                "only the row groups holding the rows (no page index: whole column chunks) + reorder"
            };
            (
                Loaded::Table(vec![in_request_order(&found, rows, &sorted)?]),
                how,
            )
        }
    })
}

/// Settings are what the file says (every file's, for a table cut into files); what it cannot
/// say is marked as the writer's.
fn settings(ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::from([
        (
            "batch_rows".into(),
            batch_rows_of(parquet_leaves(ctx.schema)).to_string(),
        ),
        ("decode_threads".into(), ctx.threads.to_string()),
        // Column chunks of flat schemas are encoded in parallel (parquet/write.rs).
        ("encode_threads".into(), ctx.threads.to_string()),
        (
            "page_index".into(),
            "offset index for range and take, column index too for index ranges (when the file has them)".into(),
        ),
        (
            "selective_reads".into(),
            "range, take, project: no readahead (posix_fadvise RANDOM)".into(),
        ),
        (
            "library".into(),
            format!("parquet {}", crate::ARROW_VERSION),
        ),
        // The writer's defaults, unchanged by either profile.
        ("data_page_size_limit".into(), "1 MiB".into()),
        (
            "max_row_group_rows".into(),
            match ctx.row_group_rows {
                Some(rows) => format!("{rows} (the row-group sweep's)"),
                None => "1,048,576".into(),
            },
        ),
    ]);
    out.insert(
        "profile_settings".into(),
        match ctx.profile {
            "compact" => "zstd level 3, dictionary off, byte_stream_split floats",
            _ => "snappy, dictionary except for columns over 50 % distinct in the first 8,192 rows; of those, fixed-width columns that snappy shrinks by under 2 % on that sample are stored uncompressed",
        }
        .into(),
    );
    let paths = files::parts(dir).unwrap_or_else(|| vec![data_file(dir, "parquet")]);
    let footers: Option<Vec<ParquetMetaData>> = paths
        .iter()
        .map(|path| {
            let file = File::open(path).ok()?;
            ParquetMetaDataReader::new().parse_and_finish(&file).ok()
        })
        .collect();
    let Some(footers) = footers else {
        return out;
    };
    let Some(meta) = footers.first() else {
        return out;
    };
    if footers.len() > 1 {
        out.insert("files".into(), footers.len().to_string());
    }
    let mut codecs = BTreeSet::new();
    let mut encodings = BTreeSet::new();
    for rg in meta.row_groups() {
        for column in rg.columns() {
            codecs.insert(codec_text(column.compression(), ctx.profile));
            encodings.extend(column.encodings().map(|e| format!("{e:?}")));
        }
    }
    let join = |set: BTreeSet<String>| set.into_iter().collect::<Vec<_>>().join(" ");
    let row_groups: usize = footers.iter().map(|m| m.num_row_groups()).sum();
    out.insert("row_groups".into(), row_groups.to_string());
    out.insert("codecs".into(), join(codecs));
    let dictionary = encodings.iter().any(|e| e.contains("DICTIONARY"));
    out.insert(
        "dictionary".into(),
        if dictionary { "on" } else { "off" }.into(),
    );
    out.insert("encodings".into(), join(encodings));
    out.insert("column_encodings".into(), column_encodings(meta));
    out
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
/// The picked rows of `indices` when exactly one of them is a fixed-size float list and there
/// are others: the list read from its leaf ([`fixed_list::read`]), the others by `plan`, put
/// together in `indices`' order; `None` when that does not apply (the caller reads them all
/// through the generic reader, whose list decoding costs far more than the values).
fn take_with_list(
    ctx: &Context,
    path: &Path,
    file: &Opened,
    indices: &[usize],
    schema: &arrow::datatypes::SchemaRef,
    sorted: &[usize],
    plan: &RowPlan,
) -> Result<Option<(RecordBatch, &'static str)>, WorkerError> {
    let fields = ctx.schema.fields();
    let lists: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|&i| fixed_list::float_list_width(&fields[i]).is_some())
        .collect();
    let (&[list], true) = (&lists[..], indices.len() > 1) else {
        return Ok(None);
    };
    let Some((values, _)) = fixed_list::read(path, &fields[list], Some(sorted), ctx.threads)?
    else {
        return Ok(None);
    };
    // The generic reader returns columns in file order.
    let others: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|&i| i != list)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let others_schema = Arc::new(ctx.schema.project(&others)?);
    let found = file.read_columns(ctx.threads, &others, Some(Rows::Plan(plan)))?;
    let found = concat_batches(&others_schema, &found)?;
    let columns = indices
        .iter()
        .map(|i| match others.iter().position(|o| o == i) {
            Some(at) => found.column(at).clone(),
            None => values.column(0).clone(),
        })
        .collect();
    Ok(Some((
        RecordBatch::try_new(schema.clone(), columns)?,
        "fixed-size float list rows read from its leaf values (levels checked), the other columns' pages holding the rows (offset index) + reorder",
    )))
}

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
