//! How the Lance reader sizes its scanner's batches, and how it puts the array layout's one
//! float list column back together: Lance decodes batches on its own threads, and a matrix
//! needs one contiguous array, so each batch's values are copied into place as the batch
//! arrives instead of concatenated after the last one.

use super::library;
use arrow::array::{Array, FixedSizeListArray, Float32Array, RecordBatch};
use arrow::datatypes::{DataType, FieldRef, Schema, SchemaRef};
use formatbench_worker_kit::KitError;
use futures::{Stream, TryStreamExt};
use std::sync::Arc;

/// Bytes of fixed-width data a scanner batch aims at. Lance's default of 8,192 rows makes one
/// 64 MiB batch of a 2,000-row table of 8,192 float32 features, decoded by one thread; batches
/// of a few MiB are decoded side by side (file format 2.0: 2.3–3.2× faster in pylance here).
const BATCH_BYTES: usize = 4 << 20;

/// Lance's own default batch, in rows: the most a batch holds.
const MOST_ROWS: usize = lance::dataset::scanner::BATCH_SIZE_FALLBACK;

/// Rows per batch for a scan of `columns` (all when `None`) of `schema`: about
/// [`BATCH_BYTES`], at most Lance's default. Variable-width values count 16 bytes.
pub fn batch_rows(schema: &Schema, columns: Option<&[String]>) -> usize {
    let row: usize = selected(schema, columns)
        .map(|f| value_bytes(f.data_type()))
        .sum();
    (BATCH_BYTES / row.max(1)).clamp(1, MOST_ROWS)
}

/// The fields of `schema` a scan of `columns` (all when `None`) returns.
fn selected<'a>(
    schema: &'a Schema,
    columns: Option<&'a [String]>,
) -> impl Iterator<Item = &'a FieldRef> {
    schema
        .fields()
        .iter()
        .filter(move |f| columns.is_none_or(|names| names.iter().any(|n| n == f.name())))
}

fn value_bytes(data_type: &DataType) -> usize {
    match data_type {
        DataType::FixedSizeList(item, size) => *size as usize * value_bytes(item.data_type()),
        other => other.primitive_width().unwrap_or(16),
    }
}

/// A stream of one `FixedSizeList<Float32>` column: the array layout's features.
pub struct FloatLists {
    schema: SchemaRef,
    item: FieldRef,
    size: i32,
}

impl FloatLists {
    pub fn of(schema: &SchemaRef) -> Option<FloatLists> {
        let [field] = schema.fields().as_ref() else {
            return None;
        };
        let (item, size) = float_list(field)?;
        Some(FloatLists {
            schema: schema.clone(),
            item,
            size,
        })
    }

    /// Whether `schema` has a `FixedSizeList<Float32>` column.
    pub fn held(schema: &Schema) -> bool {
        schema.fields().iter().any(|f| float_list(f).is_some())
    }

    /// Whether a scan of `columns` (all when `None`) of `schema` is such a stream.
    pub fn selected(schema: &Schema, columns: Option<&[String]>) -> bool {
        let mut fields = selected(schema, columns);
        matches!((fields.next(), fields.next()), (Some(field), None) if float_list(field).is_some())
    }

    /// The stream's batches as one batch. A lone batch goes on as Lance decoded it (a scan
    /// in one batch: no copy); from a second batch on, each batch's values are copied in as it
    /// arrives, while Lance decodes the next ones (`rows`, the dataset's count, sizes the array
    /// once). From a batch with nulls on, the batches stay as they came.
    pub async fn gather<S>(self, mut stream: S, rows: usize) -> Result<Vec<RecordBatch>, KitError>
    where
        S: Stream<Item = lance::Result<RecordBatch>> + Unpin,
    {
        let mut gathered = Gathered::Nothing;
        while let Some(batch) = stream.try_next().await.map_err(library)? {
            gathered = self.add(gathered, batch, rows)?;
        }
        Ok(match gathered {
            Gathered::Nothing => vec![self.batch(Vec::new())?],
            Gathered::One(batch) => vec![batch],
            Gathered::Copied(values) => vec![self.batch(values)?],
            Gathered::AsTheyCame(mut kept) => {
                kept.retain(|b| b.num_rows() > 0);
                kept
            }
        })
    }

    fn add(
        &self,
        gathered: Gathered,
        batch: RecordBatch,
        rows: usize,
    ) -> Result<Gathered, KitError> {
        let width = self.size as usize;
        let mut values = match gathered {
            Gathered::Nothing => return Ok(Gathered::One(batch)),
            Gathered::One(first) => match plain_values(&first, width) {
                Some(flat) => {
                    let mut values = Vec::with_capacity(rows * width);
                    values.extend_from_slice(flat);
                    values
                }
                None => return Ok(Gathered::AsTheyCame(vec![first, batch])),
            },
            Gathered::Copied(values) => values,
            Gathered::AsTheyCame(mut kept) => {
                kept.push(batch);
                return Ok(Gathered::AsTheyCame(kept));
            }
        };
        match plain_values(&batch, width) {
            Some(flat) => {
                values.extend_from_slice(flat);
                Ok(Gathered::Copied(values))
            }
            // The first batch that cannot be copied in: it and the rest stay as they came.
            None => Ok(Gathered::AsTheyCame(vec![self.batch(values)?, batch])),
        }
    }

    fn batch(&self, values: Vec<f32>) -> Result<RecordBatch, KitError> {
        let values = Arc::new(Float32Array::from(values));
        let list = FixedSizeListArray::try_new(self.item.clone(), self.size, values, None)?;
        Ok(RecordBatch::try_new(
            self.schema.clone(),
            vec![Arc::new(list)],
        )?)
    }
}

/// The item field and size of a `FixedSizeList<Float32>` field.
fn float_list(field: &FieldRef) -> Option<(FieldRef, i32)> {
    match field.data_type() {
        DataType::FixedSizeList(item, size) if item.data_type() == &DataType::Float32 => {
            Some((item.clone(), *size))
        }
        _ => None,
    }
}

/// What a scan's batches have come to so far.
enum Gathered {
    Nothing,
    /// The first batch, as Lance decoded it.
    One(RecordBatch),
    /// Every batch's values, copied into one array.
    Copied(Vec<f32>),
    /// Every batch as it came, from the first that could not be copied in.
    AsTheyCame(Vec<RecordBatch>),
}

/// The batch's list values as one slice, where neither the lists nor their items hold nulls.
fn plain_values(batch: &RecordBatch, width: usize) -> Option<&[f32]> {
    let list = batch
        .column(0)
        .as_any()
        .downcast_ref::<FixedSizeListArray>()?;
    if list.null_count() > 0 {
        return None;
    }
    let items = list.values().as_any().downcast_ref::<Float32Array>()?;
    if items.null_count() > 0 {
        return None;
    }
    let start = list.offset() * width;
    items.values().get(start..start + list.len() * width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::Field;

    fn features(width: i32) -> Field {
        let item = Arc::new(Field::new("item", DataType::Float32, true));
        Field::new("features", DataType::FixedSizeList(item, width), false)
    }

    #[test]
    fn batches_hold_a_few_mib_and_at_most_lances_default() {
        let wide = Schema::new(vec![
            features(8192),
            Field::new("id", DataType::Int64, false),
        ]);
        // 32 KiB of features a row: 128 rows make 4 MiB; the id alone is a narrow row.
        assert_eq!(batch_rows(&wide, Some(&["features".into()])), 128);
        assert_eq!(batch_rows(&wide, Some(&["id".into()])), MOST_ROWS);
        assert_eq!(batch_rows(&wide, None), (4 << 20) / (32768 + 8));
    }

    #[test]
    fn batches_come_together_in_order_a_lone_one_uncopied_and_nulls_keep_them_apart() {
        let schema = Arc::new(Schema::new(vec![features(2)]));
        let lists = || FloatLists::of(&schema).unwrap();
        let batch = |values: Vec<Option<f32>>| {
            let item = Arc::new(Field::new("item", DataType::Float32, true));
            let items = Arc::new(Float32Array::from(values));
            let list = FixedSizeListArray::try_new(item, 2, items, None).unwrap();
            RecordBatch::try_new(schema.clone(), vec![Arc::new(list)]).unwrap()
        };
        let run = |batches: Vec<RecordBatch>| {
            let stream = futures::stream::iter(batches.into_iter().map(Ok));
            futures::executor::block_on(lists().gather(stream, 3)).unwrap()
        };
        let one = run(vec![
            batch(vec![Some(1.0), Some(2.0)]),
            batch(vec![Some(3.0), Some(4.0), Some(5.0), Some(6.0)]),
        ]);
        assert_eq!(one.len(), 1);
        let list = one[0]
            .column(0)
            .as_any()
            .downcast_ref::<FixedSizeListArray>();
        let items = list
            .unwrap()
            .values()
            .as_any()
            .downcast_ref::<Float32Array>();
        assert_eq!(
            items.unwrap().values().as_ref(),
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        );
        // A lone batch goes on as it came: the same buffer, no copy.
        let lone = batch(vec![Some(1.0), Some(2.0), Some(3.0), Some(4.0)]);
        let buffer = |b: &RecordBatch| {
            let list = b.column(0).as_any().downcast_ref::<FixedSizeListArray>();
            list.unwrap().values().to_data().buffers()[0].as_ptr()
        };
        let passed = run(vec![lone.clone()]);
        assert_eq!(passed.len(), 1);
        assert_eq!(buffer(&passed[0]), buffer(&lone));
        let apart = run(vec![
            batch(vec![Some(1.0), Some(2.0)]),
            batch(vec![None, Some(4.0)]),
        ]);
        let rows: Vec<usize> = apart.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(rows, [1, 1], "the batches as they came, values intact");
    }
}
