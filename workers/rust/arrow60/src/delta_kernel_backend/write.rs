//! Writing a Delta table with delta_kernel: create it, add one Parquet file per run of rows of
//! the [`FileSplit`], then (for a deletion profile) delete one row of every file through
//! deletion vectors written by the kernel's `StreamingDeletionVectorWriter`.

use super::{engine, kernel_error, table_url, Engine, ENGINE_INFO};
use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::CastOptions;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use delta_kernel::actions::deletion_vector_writer::{
    KernelDeletionVector, StreamingDeletionVectorWriter,
};
use delta_kernel::committer::FileSystemCommitter;
use delta_kernel::engine::arrow_conversion::TryFromArrow;
use delta_kernel::engine::arrow_data::ArrowEngineData;
use delta_kernel::schema::StructType;
use delta_kernel::transaction::create_table::create_table;
use delta_kernel::transaction::{BoundWriteContext, Transaction, UpdateTableOperation};
use delta_kernel::Snapshot;
use formatbench_protocol::FileSplit;
use formatbench_worker_kit::{Context, KitError};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Delta has no unsigned integers and keeps timestamps in microseconds: the table's schema.
/// An unsigned column is stored in the signed type of its width, as delta_kernel's own Arrow
/// conversion and delta-rs map it (Spark too reads a Delta `long`); [`file_rows`] casts it
/// checked, so a value that does not fit fails the write instead of wrapping.
fn delta_schema(schema: &SchemaRef) -> SchemaRef {
    let fields = schema.fields().iter().map(|f| {
        let data_type = match f.data_type() {
            DataType::UInt8 => DataType::Int8,
            DataType::UInt16 => DataType::Int16,
            DataType::UInt32 => DataType::Int32,
            DataType::UInt64 => DataType::Int64,
            DataType::Timestamp(_, zone) => {
                DataType::Timestamp(TimeUnit::Microsecond, zone.clone())
            }
            other => other.clone(),
        };
        Field::new(f.name(), data_type, f.is_nullable())
    });
    Arc::new(Schema::new(fields.collect::<Vec<_>>()))
}

/// `column` in the table's type: unsigned values beyond the signed type refused, never wrapped
/// or turned into nulls (arrow's default cast makes an overflow null).
fn stored(column: &ArrayRef, field: &Field) -> Result<ArrayRef, KitError> {
    let checked = CastOptions {
        safe: false,
        ..Default::default()
    };
    arrow::compute::cast_with_options(column, field.data_type(), &checked).map_err(|e| {
        if column.data_type().is_unsigned_integer() {
            KitError::Unsupported(format!(
                "Delta has no unsigned integers, and column '{}' ({}) holds a value beyond its \
                 signed {} ({e})",
                field.name(),
                column.data_type(),
                field.data_type()
            ))
        } else {
            KitError::Arrow(e)
        }
    })
}

/// Rows `[start, end)` of the source in the table's schema: zero-copy slices where the rows lie
/// in one source batch (the usual case), one copy of just those rows where they span several.
fn file_rows(
    delta: &SchemaRef,
    batches: &[RecordBatch],
    start: u64,
    end: u64,
) -> Result<RecordBatch, KitError> {
    let mut parts = Vec::new();
    let mut offset = 0u64;
    for batch in batches {
        let (first, n) = (offset, batch.num_rows() as u64);
        offset += n;
        let (from, to) = (start.max(first), end.min(first + n));
        if from < to {
            parts.push(batch.slice((from - first) as usize, (to - from) as usize));
        }
    }
    let rows = match parts.as_slice() {
        [one] => one.clone(),
        _ => arrow::compute::concat_batches(&batches[0].schema(), &parts)?,
    };
    let columns = rows
        .columns()
        .iter()
        .zip(delta.fields())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                Ok(c.clone())
            } else {
                stored(c, f)
            }
        })
        .collect::<Result<Vec<_>, KitError>>()?;
    Ok(RecordBatch::try_new(delta.clone(), columns)?)
}

/// The path (relative to the table root) of the one file an add action describes.
fn added_path(add: &mut Box<dyn delta_kernel::EngineData>) -> Result<String, KitError> {
    let data = add
        .any_ref()
        .downcast_ref::<ArrowEngineData>()
        .ok_or_else(|| KitError::Library("the add action is not Arrow data".into()))?;
    let batch = data.record_batch();
    let path = batch
        .column_by_name("path")
        .and_then(|c| c.as_string_opt::<i32>())
        .filter(|p| p.len() == 1 && p.is_valid(0))
        .ok_or_else(|| KitError::Library("the add action has no path".into()))?;
    Ok(path.value(0).to_string())
}

pub fn write_table(
    ctx: &Context,
    batches: &[RecordBatch],
    dir: &Path,
    deletions: bool,
) -> Result<(), KitError> {
    let split = ctx.split.unwrap_or(FileSplit {
        files: 1,
        deletions: false,
    });
    let delta = delta_schema(ctx.schema);
    let kernel_schema = Arc::new(
        StructType::try_from_arrow(delta.as_ref())
            .map_err(|e| KitError::Unsupported(format!("Delta cannot store this schema: {e}")))?,
    );
    // A write writes local files (the kit sees to their upload).
    let engine = engine(ctx.threads, None)?;
    let url = table_url(dir, None)?;
    let properties: Vec<(&str, &str)> = if deletions {
        vec![("delta.enableDeletionVectors", "true")]
    } else {
        Vec::new()
    };
    committed(
        create_table(url.as_str(), kernel_schema, ENGINE_INFO, true)
            .with_table_properties(properties)
            .build(engine.as_ref(), Box::new(FileSystemCommitter::new()))
            .map_err(kernel_error)?
            .commit(engine.as_ref())
            .map_err(kernel_error)?
            .is_committed(),
        "creating the table",
    )?;

    let (_, mut txn, context) = transaction(&engine, &url, UpdateTableOperation::Write)?;
    let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
    // One runtime for every file's async write, built before the first.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let bounds = split.bounds(rows);
    let mut paths = Vec::with_capacity(bounds.len());
    for (start, end) in &bounds {
        let part = ArrowEngineData::new(file_rows(&delta, batches, *start, *end)?);
        let mut add = runtime
            .block_on(engine.write_parquet(&part, &context))
            .map_err(kernel_error)?;
        paths.push(added_path(&mut add)?);
        txn.add_files(add);
    }
    committed(
        txn.commit(engine.as_ref())
            .map_err(kernel_error)?
            .is_committed(),
        "adding the files",
    )?;
    if deletions {
        let split = FileSplit {
            deletions: true,
            ..split
        };
        delete_rows(&engine, &url, &bounds, &paths, &split.deleted_rows(rows))?;
    }
    Ok(())
}

/// A transaction on the table's latest snapshot, with the context its files are written in.
fn transaction(
    engine: &Arc<Engine>,
    url: &url::Url,
    operation: UpdateTableOperation,
) -> Result<(Arc<Snapshot>, Transaction, BoundWriteContext), KitError> {
    let snapshot = Snapshot::builder_for(url.clone())
        .build(engine.as_ref())
        .map_err(kernel_error)?;
    let txn = snapshot
        .clone()
        .update_table(operation, ENGINE_INFO, true)
        .build(engine.as_ref(), Box::new(FileSystemCommitter::new()))
        .map_err(kernel_error)?;
    let context = txn
        .write_state()
        .map_err(kernel_error)?
        .write_context_builder()
        .build()
        .map_err(kernel_error)?;
    Ok((snapshot, txn, context))
}

/// One deletion vector per file, all in one DV file, committed together.
fn delete_rows(
    engine: &Arc<Engine>,
    url: &url::Url,
    bounds: &[(u64, u64)],
    paths: &[String],
    deleted: &[u64],
) -> Result<(), KitError> {
    let (snapshot, mut txn, context) = transaction(engine, url, UpdateTableOperation::Delete)?;
    let dv_path = context.new_deletion_vector_path(String::new());
    let file = dv_path
        .absolute_path()
        .map_err(kernel_error)?
        .to_file_path()
        .map_err(|()| KitError::Library("the deletion vector path is not a local file".into()))?;
    let mut buffer = Vec::new();
    let mut descriptors = HashMap::new();
    {
        let mut writer = StreamingDeletionVectorWriter::new(&mut buffer);
        for (((start, _), path), row) in bounds.iter().zip(paths).zip(deleted) {
            let mut dv = KernelDeletionVector::new();
            dv.add_deleted_row_indexes([row - start]);
            let written = writer.write_deletion_vector(dv).map_err(kernel_error)?;
            descriptors.insert(path.clone(), written.to_descriptor(&dv_path));
        }
        writer.finalize().map_err(kernel_error)?;
    }
    std::fs::write(&file, buffer)?;
    let scan = snapshot.scan_builder().build().map_err(kernel_error)?;
    let files = scan
        .scan_metadata(engine.as_ref())
        .map_err(kernel_error)?
        .map(|m| m.map(|m| m.scan_files));
    txn.update_deletion_vectors(descriptors, files)
        .map_err(kernel_error)?;
    committed(
        txn.commit(engine.as_ref())
            .map_err(kernel_error)?
            .is_committed(),
        "committing the deletion vectors",
    )
}

/// A commit that did not land (a conflict, or an I/O error worth a retry) fails the write: the
/// table is written by one process, so neither is expected.
fn committed(is_committed: bool, what: &str) -> Result<(), KitError> {
    if is_committed {
        Ok(())
    } else {
        Err(KitError::Library(format!(
            "delta_kernel: {what} did not commit"
        )))
    }
}

/// What the log says the table holds: files, deletion vectors, deleted rows, protocol.
pub fn table_settings(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut protocol = String::new();
    let Ok(entries) = std::fs::read_dir(dir.join("_delta_log")) else {
        return BTreeMap::new();
    };
    let mut logs: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    logs.sort();
    for log in logs {
        let Ok(text) = std::fs::read_to_string(&log) else {
            continue;
        };
        for action in text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        {
            if let Some(add) = action.get("add") {
                let path = add["path"].as_str().unwrap_or_default().to_string();
                let deleted = add["deletionVector"]["cardinality"].as_u64().unwrap_or(0);
                files.insert(path, deleted);
            }
            if let Some(remove) = action.get("remove") {
                files.remove(remove["path"].as_str().unwrap_or_default());
            }
            if let Some(p) = action.get("protocol") {
                protocol = format!(
                    "reader {} writer {} features {}",
                    p["minReaderVersion"], p["minWriterVersion"], p["readerFeatures"]
                );
            }
        }
    }
    let with_dv = files.values().filter(|d| **d > 0).count();
    BTreeMap::from([
        ("data_files".into(), files.len().to_string()),
        ("files_with_deletion_vectors".into(), with_dv.to_string()),
        (
            "deleted_rows".into(),
            files.values().sum::<u64>().to_string(),
        ),
        ("protocol".into(), protocol),
    ])
}
