//! The array layout's `FixedSizeList<float32, D>` column read straight from its one leaf.
//!
//! Parquet has no fixed-size list: the column is stored as a list whose every row repeats D
//! values, with a repetition and a definition level per value. arrow-rs' generic list reader
//! turns those levels into offsets and a validity mask and then into the fixed-size list
//! again, which at 2,000 × 8,192 costs far more than the values themselves. When no list or
//! item is null and every row holds exactly D values, the list is nothing but the leaf's
//! values in order: this reads them with the column reader straight into the matrix buffer
//! (the first part's, which the other threads' parts are appended to), checking the levels in
//! small blocks as it goes, and returns `None` (the generic reader then runs) for any file
//! that is not of that shape. Each row group's rows are split among the
//! threads; a thread starts at its first row by skipping whole pages through the offset index.
//!
//! An uncompressed, plain-encoded list needs no column reader at all: [`plain`] reads its
//! values from the file straight into the matrix, as a `.npy` read does.

use crate::parallel::on_threads;
use crate::WorkerError;
use arrow::array::{ArrayRef, FixedSizeListArray, Float32Array, RecordBatch};
use arrow::buffer::ScalarBuffer;
use arrow::datatypes::{DataType, Field, FieldRef, Schema};
use parquet::basic::Type as PhysicalType;
use parquet::column::reader::get_typed_column_reader;
use parquet::data_type::FloatType;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;
use std::fs::File;
use std::sync::{Arc, Mutex};

mod levels;
mod page_header;
mod plain;

/// How the leaf's values were read, for the read's description.
pub(super) const PLAIN_PAGES: &str =
    "fixed-size float list: plain pages read straight into the matrix (header and levels checked)";
pub(super) const LEAF_VALUES: &str =
    "fixed-size float list read from its leaf values (levels checked)";

/// Values read per call (256 KiB of floats, with 512 KiB of levels): the levels are still in
/// cache when they are checked.
const BLOCK_VALUES: usize = 64 * 1024;

/// The width D when `field` is a `FixedSizeList<float32, D>` of non-null items.
pub(super) fn float_list_width(field: &Field) -> Option<usize> {
    match field.data_type() {
        DataType::FixedSizeList(item, size)
            if item.data_type() == &DataType::Float32 && !item.is_nullable() && *size > 0 =>
        {
            Some(*size as usize)
        }
        _ => None,
    }
}

/// Runs of rows of row group `group` (`(first, count)`, ascending, within the group) read
/// one after another, their values appended to `out`.
struct Part {
    group: usize,
    runs: Vec<(usize, usize)>,
    out: Vec<f32>,
}

/// Reads the column `field` (a fixed-size float list, [`float_list_width`]) of the Parquet
/// file at `path` as one batch on up to `threads` threads: every row, or the `rows` given
/// (ascending, distinct, in range) in that order, skipping the others a page at a time where
/// it can; `None` when the file holds a null or a row of another length, so the generic reader
/// must run. With the batch comes how it was read ([`PLAIN_PAGES`] or [`LEAF_VALUES`]).
pub(super) fn read(
    path: &std::path::Path,
    field: &FieldRef,
    rows: Option<&[usize]>,
    threads: usize,
) -> Result<Option<(RecordBatch, &'static str)>, WorkerError> {
    let Some(width) = float_list_width(field) else {
        return Ok(None);
    };
    let first = open(path)?;
    let meta = first.metadata();
    let descr = meta.file_metadata().schema_descr();
    let leaves: Vec<usize> = (0..descr.num_columns())
        .filter(|&i| descr.get_column_root(i).name() == field.name())
        .collect();
    let [leaf] = leaves[..] else {
        return Ok(None);
    };
    let column = descr.column(leaf);
    if column.physical_type() != PhysicalType::FLOAT || column.max_rep_level() != 1 {
        return Ok(None);
    }
    let threads = threads.max(1);
    let file = File::open(path)?;
    if rows.is_some() {
        ipc_parts::file::advise_random(&file);
    }
    if let Some(values) = plain::read(&file, meta, leaf, width, rows, threads)? {
        let count = values.len() / std::mem::size_of::<f32>();
        let batch = batch_of(field, width, ScalarBuffer::new(values, 0, count))?;
        return Ok(batch.map(|batch| (batch, PLAIN_PAGES)));
    }
    let total_rows = rows_of(meta.file_metadata().num_rows())?;
    let wanted = rows.map_or(total_rows, <[usize]>::len);
    let mut parts = Vec::new();
    let mut group_start = 0;
    for group in 0..meta.num_row_groups() {
        let group_rows = rows_of(meta.row_group(group).num_rows())?;
        let runs_of_group: Vec<Vec<(usize, usize)>> = match rows {
            // Every row: the group's rows split among the threads.
            None => ipc_parts::parallel::split(group_rows, threads)
                .into_iter()
                .map(|range| vec![(range.start, range.len())])
                .collect(),
            Some(rows) => {
                let start = rows.partition_point(|&r| r < group_start);
                let end = rows.partition_point(|&r| r < group_start + group_rows);
                let runs = consecutive_runs(&rows[start..end], group_start);
                if runs.is_empty() {
                    Vec::new()
                } else {
                    vec![runs]
                }
            }
        };
        for runs in runs_of_group {
            // The first part's buffer becomes the matrix: it has room for every value, so
            // the others append to it without a reallocation.
            let count: usize = runs.iter().map(|&(_, n)| n).sum();
            let room = if parts.is_empty() { wanted } else { count };
            let out = Vec::with_capacity(room * width);
            parts.push(Mutex::new(Some(Part { group, runs, out })));
        }
        group_start += group_rows;
    }
    let shares = ipc_parts::parallel::split(parts.len(), threads);
    let read_parts = on_threads(shares.len(), |t| {
        let reader = match t {
            0 => None,
            _ => Some(open(path)?),
        };
        let mut done = Vec::new();
        for slot in &parts[shares[t].clone()] {
            let part = slot.lock().ok().and_then(|mut p| p.take());
            let part = part.ok_or_else(|| {
                WorkerError::Invalid("a part of the fixed-size list was already read".into())
            })?;
            // A reader per thread: clones of one `File` share its offset, so threads sharing
            // one would race their seeks.
            match read_part(reader.as_ref().unwrap_or(&first), leaf, width, part)? {
                Some(values) => done.push(values),
                None => return Ok(None),
            }
        }
        Ok(Some(done))
    })?;
    let mut values: Vec<f32> = Vec::new();
    for part in read_parts.into_iter().flat_map(|p| p.unwrap_or_default()) {
        if values.is_empty() {
            values = part;
        } else {
            values.extend_from_slice(&part);
        }
    }
    if values.len() != wanted * width {
        return Ok(None);
    }
    let batch = batch_of(field, width, values.into())?;
    Ok(batch.map(|batch| (batch, LEAF_VALUES)))
}

/// `values` as the one column `field` (a list of `width` floats) of a batch.
fn batch_of(
    field: &FieldRef,
    width: usize,
    values: ScalarBuffer<f32>,
) -> Result<Option<RecordBatch>, WorkerError> {
    let DataType::FixedSizeList(item, _) = field.data_type() else {
        return Ok(None);
    };
    let list: ArrayRef = Arc::new(FixedSizeListArray::try_new(
        item.clone(),
        width as i32,
        Arc::new(Float32Array::new(values, None)),
        None,
    )?);
    let schema = Arc::new(Schema::new(vec![field.as_ref().clone()]));
    Ok(Some(RecordBatch::try_new(schema, vec![list])?))
}

/// A reader with the offset index, so a thread skips to its first row a page at a time.
fn open(path: &std::path::Path) -> Result<SerializedFileReader<File>, WorkerError> {
    let options = ReadOptionsBuilder::new().with_page_index().build();
    Ok(SerializedFileReader::new_with_options(
        File::open(path)?,
        options,
    )?)
}

fn rows_of(count: i64) -> Result<usize, WorkerError> {
    usize::try_from(count)
        .map_err(|_| WorkerError::Invalid(format!("the footer claims {count} rows")))
}

/// The values of `part`'s rows of leaf `leaf`, appended to its buffer; `None` when a level
/// shows a null or a row that is not `width` long.
fn read_part(
    reader: &SerializedFileReader<File>,
    leaf: usize,
    width: usize,
    part: Part,
) -> Result<Option<Vec<f32>>, WorkerError> {
    let row_group = reader.get_row_group(part.group)?;
    let mut column = get_typed_column_reader::<FloatType>(row_group.get_column_reader(leaf)?);
    let block_rows = (BLOCK_VALUES / width).max(1);
    let mut out = part.out;
    let (mut definitions, mut repetitions) = (Vec::new(), Vec::new());
    // A row's repetition levels after its first: compared as one slice (a memcmp).
    let continuing = vec![1i16; width - 1];
    // `position`: the group's next row under the reader; `done`: rows read into `out`.
    let (mut position, mut done) = (0, 0);
    for &(first, count) in &part.runs {
        let skip = first - position;
        if skip > 0 && column.skip_records(skip)? != skip {
            return Ok(None);
        }
        let end = done + count;
        while done < end {
            definitions.clear();
            repetitions.clear();
            let wanted = block_rows.min(end - done);
            let before = out.len();
            let (records, read, levels) = column.read_records(
                wanted,
                Some(&mut definitions),
                Some(&mut repetitions),
                &mut out,
            )?;
            // Every level holds a value (no null list or item), and each whole record read is
            // exactly `width` values: a 0 (a new row) then `width - 1` ones.
            let fits = records > 0
                && read == levels
                && levels == records * width
                && out.len() - before == levels
                && repetitions
                    .chunks_exact(width)
                    .all(|row| row[0] == 0 && row[1..] == continuing[..]);
            if !fits {
                return Ok(None);
            }
            done += records;
        }
        position = first + count;
    }
    Ok(Some(out))
}

/// `rows` (ascending, distinct, of one row group starting at row `group_start`) as runs of
/// consecutive rows, `(first, count)` within the group.
fn consecutive_runs(rows: &[usize], group_start: usize) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &row in rows {
        let local = row - group_start;
        match runs.last_mut() {
            Some((first, count)) if *first + *count == local => *count += 1,
            _ => runs.push((local, 1)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use arrow::array::{Array, ListArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    fn item() -> FieldRef {
        Arc::new(Field::new("item", DataType::Float32, false))
    }

    /// How a test file is written: each way takes another path through the reader.
    #[derive(Debug, Clone, Copy)]
    enum Written {
        /// Uncompressed version 1 pages: the plain path.
        Plain,
        /// Uncompressed version 2 pages: the plain path.
        PlainV2,
        /// Snappy: the column reader.
        Snappy,
    }

    /// Writes `column` as the one column `features` in row groups of `group_rows` and pages of
    /// at most 7 rows, so reads cross pages and threads start mid-group.
    fn write(
        dir: &tempfile::TempDir,
        column: ArrayRef,
        group_rows: usize,
        written: Written,
    ) -> std::path::PathBuf {
        use parquet::basic::Compression;
        use parquet::file::properties::WriterVersion;
        let field = Field::new("features", column.data_type().clone(), true);
        let batch = RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![column]).unwrap();
        let path = dir.path().join("data.parquet");
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(group_rows))
            .set_data_page_row_count_limit(7)
            .set_write_batch_size(7)
            .set_dictionary_enabled(false);
        let props = match written {
            Written::Plain => props.set_compression(Compression::UNCOMPRESSED),
            Written::PlainV2 => props
                .set_compression(Compression::UNCOMPRESSED)
                .set_writer_version(WriterVersion::PARQUET_2_0),
            Written::Snappy => props.set_compression(Compression::SNAPPY),
        };
        let mut writer = ArrowWriter::try_new(
            File::create(&path).unwrap(),
            batch.schema(),
            Some(props.build()),
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        path
    }

    fn generic(path: &std::path::Path) -> Vec<RecordBatch> {
        ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
            .unwrap()
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn fixed(rows: usize, width: usize) -> FixedSizeListArray {
        let values: Vec<f32> = (0..rows * width).map(|v| v as f32 * 0.5 - 3.0).collect();
        FixedSizeListArray::try_new(
            item(),
            width as i32,
            Arc::new(Float32Array::from(values)),
            None,
        )
        .unwrap()
    }

    #[test]
    fn the_leaf_read_equals_the_generic_reader_on_any_split_of_rows_and_pages() {
        let dir = tempfile::tempdir().unwrap();
        for (written, how) in [
            (Written::Plain, PLAIN_PAGES),
            (Written::PlainV2, PLAIN_PAGES),
            (Written::Snappy, LEAF_VALUES),
        ] {
            for (rows, width, group_rows, threads) in [
                (100, 3, 1024, 1),
                (100, 3, 1024, 2),
                (257, 5, 40, 3),
                (9, 1, 4, 4),
            ] {
                let list = fixed(rows, width);
                let path = write(&dir, Arc::new(list.clone()), group_rows, written);
                let field: FieldRef =
                    Arc::new(Field::new("features", list.data_type().clone(), true));
                let expected = generic(&path);
                let expected =
                    arrow::compute::concat_batches(&expected[0].schema(), &expected).unwrap();
                let case = format!("{written:?} {rows}×{width} in groups of {group_rows}");
                let (batch, read_by) = read(&path, &field, None, threads).unwrap().unwrap();
                assert_eq!(read_by, how, "{case}");
                assert_eq!(batch.num_rows(), rows);
                assert_eq!(
                    batch.column(0).as_ref(),
                    expected.column(0).as_ref(),
                    "{case}"
                );
                // Picked rows: single rows, a run across pages and groups, the last row.
                let picked: Vec<usize> = [0, 2, 3, 4, 5, 6, 7, 8, rows / 2, rows - 1]
                    .into_iter()
                    .filter(|&r| r < rows)
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect();
                let (batch, read_by) = read(&path, &field, Some(&picked), threads)
                    .unwrap()
                    .unwrap();
                assert_eq!(read_by, how, "{case}");
                let indices =
                    arrow::array::UInt32Array::from_iter_values(picked.iter().map(|&r| r as u32));
                let expected = arrow::compute::take(expected.column(0), &indices, None).unwrap();
                assert_eq!(batch.column(0).as_ref(), expected.as_ref(), "{case} picked");
            }
        }
    }

    #[test]
    fn a_null_row_or_a_row_of_another_length_leaves_it_to_the_generic_reader() {
        let dir = tempfile::tempdir().unwrap();
        let list = fixed(30, 4);
        let with_null = FixedSizeListArray::try_new(
            item(),
            4,
            list.values().clone(),
            Some((0..30).map(|r| r != 17).collect()),
        )
        .unwrap();
        let fixed_type = list.data_type().clone();
        let field: FieldRef = Arc::new(Field::new("features", fixed_type, true));
        // A plain list whose row 11 holds 3 values (and, `balanced`, row 12 five, so its page
        // holds as many values as four-wide rows would), read as if it were fixed at 4.
        let ragged = |balanced: bool| -> ArrayRef {
            let mut offsets = vec![0i32];
            for r in 0..30 {
                let len = match r {
                    11 => 3,
                    12 if balanced => 5,
                    _ => 4,
                };
                offsets.push(offsets[r] + len);
            }
            let total = *offsets.last().unwrap() as usize;
            Arc::new(
                ListArray::try_new(
                    item(),
                    arrow::buffer::OffsetBuffer::new(offsets.into()),
                    Arc::new(Float32Array::from(vec![1.0; total])),
                    None,
                )
                .unwrap(),
            )
        };
        for written in [Written::Plain, Written::PlainV2, Written::Snappy] {
            for (column, case) in [
                (Arc::new(with_null.clone()) as ArrayRef, "a null row"),
                (ragged(false), "a short row"),
                (ragged(true), "a short row and a long one in one page"),
            ] {
                let path = write(&dir, column, 1024, written);
                assert!(
                    read(&path, &field, None, 2).unwrap().is_none(),
                    "{written:?}: {case}"
                );
                assert!(
                    read(&path, &field, Some(&[11, 12, 17]), 1)
                        .unwrap()
                        .is_none(),
                    "{written:?}: {case}, picked"
                );
            }
            // Not a fixed-size float list at all.
            let path = write(&dir, ragged(false), 1024, written);
            let plain: FieldRef = Arc::new(Field::new("features", DataType::Float32, true));
            assert!(read(&path, &plain, None, 1).unwrap().is_none());
        }
    }
}
