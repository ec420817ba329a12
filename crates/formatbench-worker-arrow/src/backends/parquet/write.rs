//! Parquet writes with the thread cap: the column chunks of each row group are encoded on
//! separate threads (each thread takes the next unencoded column, so a slow string column does
//! not hold up a fixed share of the others), then appended to the file in schema order. Same
//! pages, statistics and metadata as a plain `ArrowWriter`, which it starts from.

use crate::parallel::on_threads;
use crate::rows::{batch_rows, position_range};
use crate::WorkerError;
use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::DataType;
use arrow::datatypes::SchemaRef;
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowColumnWriter};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use std::fs::File;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The parquet crate's default row group length, used when the properties set none.
const DEFAULT_ROW_GROUP_ROWS: usize = 1024 * 1024;

/// The schema and batches with every second-resolution timestamp and time of day in
/// milliseconds (`None` for the batches when nothing changes): Parquet has no seconds unit, so
/// arrow-rs would store them as bare INT64 that only another arrow-rs reads back as times
/// (pyarrow reads integers). Milliseconds hold every second exactly.
pub fn with_parquet_units(
    schema: &SchemaRef,
    batches: &[RecordBatch],
) -> Result<(SchemaRef, Option<Vec<RecordBatch>>), WorkerError> {
    use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
    let millis = |t: &DataType| match t {
        DataType::Timestamp(TimeUnit::Second, zone) => {
            Some(DataType::Timestamp(TimeUnit::Millisecond, zone.clone()))
        }
        DataType::Time32(TimeUnit::Second) => Some(DataType::Time32(TimeUnit::Millisecond)),
        _ => None,
    };
    if !schema
        .fields()
        .iter()
        .any(|f| millis(f.data_type()).is_some())
    {
        return Ok((schema.clone(), None));
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match millis(f.data_type()) {
            Some(t) => f.as_ref().clone().with_data_type(t),
            None => f.as_ref().clone(),
        })
        .collect();
    let converted: SchemaRef =
        std::sync::Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let batches = batches
        .iter()
        .map(|batch| {
            let columns = batch
                .columns()
                .iter()
                .zip(converted.fields())
                .map(|(column, field)| arrow::compute::cast(column, field.data_type()))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(RecordBatch::try_new(converted.clone(), columns)?)
        })
        .collect::<Result<Vec<_>, WorkerError>>()?;
    Ok((converted, Some(batches)))
}

/// Writes `batches` with column chunks encoded on up to `threads` threads. Only flat schemas take
/// this path (one column writer per field); the caller writes nested ones with one `ArrowWriter`.
pub fn write_columns_in_parallel(
    file: File,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: WriterProperties,
    threads: usize,
) -> Result<(), WorkerError> {
    let group_rows = props
        .max_row_group_row_count()
        .unwrap_or(DEFAULT_ROW_GROUP_ROWS)
        .max(1);
    let (mut file_writer, factory) =
        ArrowWriter::try_new(file, schema.clone(), Some(props))?.into_serialized_writer()?;
    let total: usize = batches.iter().map(|b| b.num_rows()).sum();
    let blocks = batch_rows(batches);
    let mut start = 0;
    let mut group = 0;
    while start < total {
        let end = (start + group_rows).min(total);
        let slices = position_range(
            &blocks,
            start as u64,
            end as u64,
            |i| Ok(batches[i].clone()),
        )?;
        let writers = factory.create_column_writers(group)?;
        let chunks = encode(schema, &slices, writers, threads)?;
        let mut row_group = file_writer.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        start = end;
        group += 1;
    }
    file_writer.close()?;
    Ok(())
}

/// Encodes column `i` of every slice with `writers[i]`, columns shared out dynamically.
fn encode(
    schema: &SchemaRef,
    slices: &[RecordBatch],
    writers: Vec<ArrowColumnWriter>,
    threads: usize,
) -> Result<Vec<ArrowColumnChunk>, WorkerError> {
    let columns = writers.len();
    let writers: Vec<Mutex<Option<ArrowColumnWriter>>> =
        writers.into_iter().map(|w| Mutex::new(Some(w))).collect();
    let next = AtomicUsize::new(0);
    let per_thread = on_threads(threads.clamp(1, columns.max(1)), |_| {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= columns {
                return Ok(done);
            }
            let taken = writers[i].lock().ok().and_then(|mut w| w.take());
            let mut writer = taken.ok_or_else(|| {
                WorkerError::Invalid(format!("parquet column writer {i} was already taken"))
            })?;
            let field = schema.field(i);
            for slice in slices {
                for leaf in compute_leaves(field, slice.column(i))? {
                    writer.write(&leaf)?;
                }
            }
            done.push((i, writer.close()?));
        }
    })?;
    let mut chunks: Vec<(usize, ArrowColumnChunk)> = per_thread.into_iter().flatten().collect();
    chunks.sort_by_key(|(i, _)| *i);
    Ok(chunks.into_iter().map(|(_, chunk)| chunk).collect())
}

/// Rows sampled from the start of the table to judge a column's cardinality.
const CARDINALITY_SAMPLE_ROWS: usize = 8_192;
/// Above this share of distinct values in the sample, a dictionary costs more than it saves:
/// every value is hashed into a dictionary that ends as large as the data.
const DICTIONARY_MAX_DISTINCT_SHARE: f64 = 0.5;

/// Below this share saved by snappy on a sample of a column's raw values, the column is
/// stored uncompressed: a codec that saves nothing still costs every reader a copy of every
/// page (random float features save 0.01 %; a sequential index saves half).
const COMPRESSION_MIN_SAVING: f64 = 0.02;

/// How the default profile writes each column, judged on a sample of the first batch.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ColumnChoices {
    /// Columns whose sampled values (a fixed-size list's: its items) are mostly distinct:
    /// written (every leaf under them) without a dictionary, as Polars and DuckDB decide per
    /// column (arrow-rs would dictionary-encode every column, and a profile showed a third of
    /// the write in its interner).
    pub mostly_distinct: Vec<String>,
    /// Of those, the fixed-width ones whose plain values snappy cannot shrink by
    /// [`COMPRESSION_MIN_SAVING`]: written uncompressed. Their plain pages are their values,
    /// so the sample's raw bytes stand for the pages.
    pub incompressible: Vec<String>,
}

/// Judges every column of `batches` for the default profile ([`ColumnChoices`]), every
/// `threads`-th column on each thread.
pub fn judge_columns(
    batches: &[RecordBatch],
    threads: usize,
) -> Result<ColumnChoices, WorkerError> {
    use arrow::row::{RowConverter, SortField};
    let Some(first) = batches.first() else {
        return Ok(ColumnChoices::default());
    };
    let rows = first.num_rows().min(CARDINALITY_SAMPLE_ROWS);
    let columns = first.num_columns();
    if rows == 0 || columns == 0 {
        return Ok(ColumnChoices::default());
    }
    let schema = first.schema();
    // Columns are judged on separate threads: the sample is part of the timed write.
    let threads = threads.clamp(1, columns);
    let judged = on_threads(threads, |t| {
        let mut found = Vec::new();
        for i in (t..columns).step_by(threads) {
            // A fixed-size list of numbers (the array layout's features) is judged by its
            // items: they are the one leaf the dictionary would hold.
            let sample = match schema.field(i).data_type() {
                DataType::FixedSizeList(item, _) if item.data_type().is_primitive() => {
                    let items = first.column(i).as_fixed_size_list().values().clone();
                    items.slice(0, items.len().min(CARDINALITY_SAMPLE_ROWS))
                }
                nested if nested.is_nested() => continue,
                _ => first.column(i).slice(0, rows),
            };
            if sample.is_empty() {
                continue;
            }
            let converter = RowConverter::new(vec![SortField::new(sample.data_type().clone())])?;
            let encoded = converter.convert_columns(std::slice::from_ref(&sample))?;
            // Distinct values counted by their rows' 64-bit hashes: SipHash in a hash set
            // cost an eighth of a write's CPU time at 100k × 61, sorting xxh3 hashes most of a
            // tenth.
            let distinct = count_distinct(
                (0..encoded.num_rows()).map(|r| xxhash_rust::xxh3::xxh3_64(encoded.row(r).data())),
            );
            if distinct as f64 > DICTIONARY_MAX_DISTINCT_SHARE * sample.len() as f64 {
                found.push((i, incompressible(sample.as_ref())?));
            }
        }
        Ok(found)
    })?;
    let mut judged: Vec<(usize, bool)> = judged.into_iter().flatten().collect();
    judged.sort_unstable();
    let name = |i: usize| schema.field(i).name().clone();
    Ok(ColumnChoices {
        mostly_distinct: judged.iter().map(|&(i, _)| name(i)).collect(),
        incompressible: judged
            .iter()
            .filter(|&&(_, incompressible)| incompressible)
            .map(|&(i, _)| name(i))
            .collect(),
    })
}

/// The number of distinct values among the 64-bit hashes, in an open-addressing table (linear
/// probing) of at least twice as many slots as there are hashes: it never fills, and a probe
/// ends after about two slots.
/// Zero marks an empty slot: a hash of zero is counted as one, a collision as likely as any
/// other of 64-bit hashes.
fn count_distinct(hashes: impl ExactSizeIterator<Item = u64>) -> usize {
    let slots = (hashes.len().max(1) * 2).next_power_of_two();
    let mask = slots - 1;
    let mut table = vec![0u64; slots];
    let mut distinct = 0;
    for hash in hashes {
        let hash = hash.max(1);
        let mut at = (hash as usize) & mask;
        loop {
            match table[at] {
                0 => {
                    table[at] = hash;
                    distinct += 1;
                    break;
                }
                seen if seen == hash => break,
                _ => at = (at + 1) & mask,
            }
        }
    }
    distinct
}

/// Whether `sample`, a fixed-width array without nulls, saves under
/// [`COMPRESSION_MIN_SAVING`] of its raw values under snappy; `false` for any other array.
fn incompressible(sample: &dyn arrow::array::Array) -> Result<bool, WorkerError> {
    let Some(width) = sample.data_type().primitive_width() else {
        return Ok(false);
    };
    let data = sample.to_data();
    let (Some(values), 0) = (data.buffers().first(), data.null_count()) else {
        return Ok(false);
    };
    let start = data.offset() * width;
    let Some(raw) = values.as_slice().get(start..start + data.len() * width) else {
        return Ok(false);
    };
    let compressed = snap::raw::Encoder::new()
        .compress_vec(raw)
        .map_err(|e| WorkerError::Invalid(format!("snappy on a column sample: {e}")))?;
    Ok((compressed.len() as f64) > (1.0 - COMPRESSION_MIN_SAVING) * raw.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, Int64Array, StringArray};
    use std::sync::Arc;

    #[test]
    fn distinct_hashes_are_counted_once_each() {
        assert_eq!(count_distinct(std::iter::empty()), 0);
        // Repeats, a zero hash (counted as the value 1 is), and hashes that share low bits so
        // they probe past each other.
        let hashes = [7u64, 7, 0, 1, 1 << 40, 1 << 41, 7, 1 << 40, u64::MAX];
        assert_eq!(count_distinct(hashes.into_iter()), 5);
        // A full sample of distinct values: the table never fills.
        let n = CARDINALITY_SAMPLE_ROWS;
        let all = (0..n).map(|v| xxhash_rust::xxh3::xxh3_64(&(v as u64).to_le_bytes()));
        assert_eq!(count_distinct(all), n);
    }

    #[test]
    fn only_mostly_distinct_columns_lose_their_dictionary() {
        let n = 10_000;
        let batch = RecordBatch::try_from_iter([
            (
                "distinct",
                Arc::new(Int64Array::from_iter_values(0..n)) as ArrayRef,
            ),
            (
                "three",
                Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % 3))),
            ),
            (
                "letters",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| ["a", "b"][i as usize % 2]),
                )),
            ),
        ])
        .unwrap();
        assert_eq!(
            judge_columns(std::slice::from_ref(&batch), 1)
                .unwrap()
                .mostly_distinct,
            vec!["distinct".to_string()]
        );
        assert_eq!(
            judge_columns(&[batch], 2).unwrap().mostly_distinct,
            vec!["distinct".to_string()]
        );
        assert_eq!(judge_columns(&[], 2).unwrap(), ColumnChoices::default());
    }

    #[test]
    fn a_fixed_size_list_is_judged_by_its_items() {
        use arrow::array::{FixedSizeListArray, Float32Array};
        use arrow::datatypes::Field;
        let list = |values: Vec<f32>| -> ArrayRef {
            let item = Arc::new(Field::new("item", DataType::Float32, false));
            Arc::new(
                FixedSizeListArray::try_new(item, 4, Arc::new(Float32Array::from(values)), None)
                    .unwrap(),
            )
        };
        let batch = RecordBatch::try_from_iter([
            ("distinct", list((0..4_000).map(|v| v as f32).collect())),
            ("few", list((0..4_000).map(|v| (v % 5) as f32).collect())),
        ])
        .unwrap();
        assert_eq!(
            judge_columns(&[batch], 2).unwrap().mostly_distinct,
            vec!["distinct".to_string()]
        );
    }

    #[test]
    fn only_distinct_fixed_width_values_snappy_cannot_shrink_go_uncompressed() {
        use arrow::array::{FixedSizeListArray, Float32Array};
        use arrow::datatypes::Field;
        // Random float bits (a 64-bit LCG's high bits): no codec shrinks them.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut random = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            f32::from_bits((state >> 32) as u32 & 0x3FFF_FFFF)
        };
        let n = 10_000;
        let noise: Vec<f32> = (0..n * 4).map(|_| random()).collect();
        let item = Arc::new(Field::new("item", DataType::Float32, false));
        let features =
            FixedSizeListArray::try_new(item, 4, Arc::new(Float32Array::from(noise.clone())), None)
                .unwrap();
        let batch = RecordBatch::try_from_iter([
            (
                "index",
                Arc::new(Int64Array::from_iter_values(0..n as i64)) as ArrayRef,
            ),
            ("noise", Arc::new(Float32Array::from(noise[..n].to_vec()))),
            ("features", Arc::new(features)),
            (
                "names",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("{i:x}")),
                )),
            ),
        ])
        .unwrap();
        let choices = judge_columns(&[batch], 2).unwrap();
        assert_eq!(
            choices.mostly_distinct,
            ["index", "noise", "features", "names"].map(String::from)
        );
        assert_eq!(
            choices.incompressible,
            ["noise", "features"].map(String::from)
        );
    }
}
