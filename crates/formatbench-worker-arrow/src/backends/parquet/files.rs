//! A table cut into Parquet files (the sweep's `--parquet-files`): the native writer writes
//! `part-00000.parquet`, … of consecutive rows as the job's `FileSplit` cuts them, and reads
//! them back in name order, which is row order. Every other reader of the sweep's shared files
//! reads the same files.

use super::{Loaded, Request};
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use formatbench_protocol::rewrite::part_file;
use formatbench_protocol::{FileSplit, RangeSpec};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Writes `batches` as the files `split` cuts them into, each with `props`.
pub(super) fn write(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: WriterProperties,
    split: FileSplit,
    dir: &Path,
) -> Result<(), WorkerError> {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    for (index, (start, end)) in split.bounds(rows as u64).into_iter().enumerate() {
        let file = File::create(dir.join(part_file(index)))?;
        let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props.clone()))?;
        for batch in rows_between(batches, start as usize, end as usize) {
            writer.write(&batch)?;
        }
        writer.close()?;
    }
    Ok(())
}

/// The slices of `batches` that hold rows `start..end` of their concatenation.
fn rows_between(batches: &[RecordBatch], start: usize, end: usize) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    let mut offset = 0;
    for batch in batches {
        let (first, past) = (offset, offset + batch.num_rows());
        offset = past;
        let (from, to) = (start.max(first), end.min(past));
        if from < to {
            out.push(batch.slice(from - first, to - from));
        }
    }
    out
}

/// The files of a table cut into files, in name (row) order; `None` where the directory holds
/// the usual single `data.parquet` (or nothing yet).
pub(super) fn parts(dir: &Path) -> Option<Vec<PathBuf>> {
    if dir.join("data.parquet").exists() {
        return None;
    }
    let mut parts: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("part-") && n.ends_with(".parquet"))
        })
        .collect();
    parts.sort();
    (!parts.is_empty()).then_some(parts)
}

/// A file's object name below the artifact's key: its local copy's file name.
pub(super) fn object_name(path: &Path) -> Result<String, WorkerError> {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string)
        .ok_or_else(|| WorkerError::Invalid(format!("{} has no UTF-8 file name", path.display())))
}

/// `request` answered over every file, one after the other (each file's read uses the job's
/// threads), batches in file order. Reads by position are not asked of a table cut into files:
/// the runner refuses them (plan/sweep.rs).
pub(super) fn read(
    parts: &[PathBuf],
    request: Request,
    mut read_file: impl FnMut(&Path) -> Result<(Loaded, &'static str), WorkerError>,
) -> Result<(Loaded, &'static str), WorkerError> {
    if matches!(
        request,
        Request::Take(..) | Request::Range(RangeSpec::Position { .. })
    ) {
        return Err(WorkerError::Unsupported(
            "rows by position across a table cut into files".into(),
        ));
    }
    let mut batches = Vec::new();
    let mut how = "";
    for path in parts {
        match read_file(path)? {
            (Loaded::Table(found), first) => {
                batches.extend(found);
                how = first;
            }
            (Loaded::Matrix(_), _) => {
                return Err(WorkerError::Unsupported(
                    "a matrix read across a table cut into files".into(),
                ))
            }
        }
    }
    Ok((Loaded::Table(batches), how))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::{DataType, Field, Schema};
    use std::sync::Arc;

    #[test]
    fn slices_cover_each_row_once_across_batch_edges() {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let batch = |from: i64, to: i64| {
            let values = Int64Array::from((from..to).collect::<Vec<_>>());
            RecordBatch::try_new(schema.clone(), vec![Arc::new(values)]).unwrap()
        };
        let batches = [batch(0, 4), batch(4, 10)];
        let got: Vec<usize> = rows_between(&batches, 3, 7)
            .iter()
            .map(RecordBatch::num_rows)
            .collect();
        assert_eq!(got, [1, 3]);
        let dir = tempfile::tempdir().unwrap();
        let split = FileSplit {
            files: 3,
            deletions: false,
        };
        write(
            &schema,
            &batches,
            WriterProperties::default(),
            split,
            dir.path(),
        )
        .unwrap();
        let parts = parts(dir.path()).unwrap();
        let names: Vec<_> = parts.iter().map(|p| p.file_name().unwrap()).collect();
        assert_eq!(
            names,
            [
                "part-00000.parquet",
                "part-00001.parquet",
                "part-00002.parquet"
            ]
        );
        let read_back = |path: &Path| {
            let file = File::open(path)?;
            let reader =
                parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(file, 1024)?;
            let batches = reader.collect::<Result<Vec<_>, _>>()?;
            Ok((Loaded::Table(batches), "whole file"))
        };
        let (Loaded::Table(all), _) = read(&parts, Request::All, read_back).unwrap() else {
            panic!("a table")
        };
        let values: Vec<i64> = all
            .iter()
            .flat_map(|b| {
                let column = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                column.values().to_vec()
            })
            .collect();
        assert_eq!(
            values,
            (0..10).collect::<Vec<_>>(),
            "every row once, in order"
        );
        let by_position = RangeSpec::Position { start: 0, end: 2 };
        assert!(read(&parts, Request::Range(&by_position), read_back).is_err());
    }
}
