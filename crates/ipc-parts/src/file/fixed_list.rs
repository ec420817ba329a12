//! A fixed-size list column of an uncompressed file read as what it already is: one values
//! buffer per block, rows × size items laid end to end. Read block by block into one array,
//! each block's values land straight in their place, so a 64 MB feature matrix is one read
//! of each block into a single buffer, as a `.npy` read is, instead of a buffer per block
//! and a concatenation after (which wrote every byte twice and touched twice the fresh memory).

use super::{pread_pieces, Body, IpcFile, Piece};
use crate::error::{at, Result};
use arrow::array::{make_array, ArrayData, FixedSizeListArray, RecordBatch};
use arrow::buffer::{Buffer, MutableBuffer};
use arrow::datatypes::{DataType, Schema};
use std::sync::Arc;

impl IpcFile {
    /// Column `column` of every block as one batch, when the file is read by plain reads, is
    /// uncompressed, and the column is a `FixedSizeList` of a fixed-width primitive with no
    /// nulls in any block (both validity buffers empty); `None` otherwise, for the caller's
    /// block-by-block decoding.
    pub fn read_fixed_list(&self, column: usize) -> Result<Option<RecordBatch>> {
        self.read_fixed_list_rows(column, None)
    }

    /// As [`Self::read_fixed_list`], for rows `rows` (positions in the file, in the order
    /// given, repeats allowed) or every row: each picked row's values read straight into its
    /// place, one positioned read per row, as a `.npy` read of rows is. `None` also when a
    /// row is past the end.
    pub fn read_fixed_list_rows(
        &self,
        column: usize,
        rows: Option<&[u64]>,
    ) -> Result<Option<RecordBatch>> {
        let Some(plan) = self.fixed_list_plan(column) else {
            return Ok(None);
        };
        let Body::Plain(file) = &self.body else {
            return Ok(None);
        };
        let field = self.schema.field(column).clone();
        let DataType::FixedSizeList(item, size) = field.data_type() else {
            return Ok(None);
        };
        let Some(width) = item.data_type().primitive_width() else {
            return Ok(None);
        };
        let Some(row_bytes) = usize::try_from(*size)
            .ok()
            .and_then(|n| n.checked_mul(width))
        else {
            return Ok(None);
        };
        let pieces = match rows {
            None => plan,
            Some(rows) => match self.rows_in_plan(&plan, rows, row_bytes) {
                Some(pieces) => pieces,
                None => return Ok(None),
            },
        };
        // A corrupt footer's lengths must not wrap the sum the buffer is sized by.
        let Some(total) = pieces
            .iter()
            .try_fold(0usize, |sum, p| sum.checked_add(p.len))
        else {
            return Ok(None);
        };
        let mut values = MutableBuffer::with_capacity(total);
        // SAFETY: the buffer holds `total` bytes of capacity, which nothing reads until the
        // reads are done; the pieces' lengths sum to it.
        unsafe { pread_pieces(file, &pieces, 1, values.as_mut_ptr(), total) }
            .map_err(at(&self.path))?;
        // SAFETY: every byte up to `total` was written by the reads above, and the items are
        // a fixed-width primitive, for which every bit pattern is a value.
        unsafe { values.set_len(total) };
        let items = total / width;
        let data = ArrayData::builder(item.data_type().clone())
            .len(items)
            .add_buffer(Buffer::from(values))
            .build()?;
        let list = FixedSizeListArray::try_new(item.clone(), *size, make_array(data), None)?;
        let schema = Arc::new(Schema::new(vec![field]));
        Ok(Some(RecordBatch::try_new(schema, vec![Arc::new(list)])?))
    }

    /// Where each of `rows` lies, `row_bytes` each, given each block's values (`plan`, one
    /// piece per block in order); `None` when a row is past the end.
    fn rows_in_plan(&self, plan: &[Piece], rows: &[u64], row_bytes: usize) -> Option<Vec<Piece>> {
        // The first row of each block, and the total after the last.
        let mut starts = Vec::with_capacity(self.rows.len() + 1);
        let mut start = 0u64;
        for &count in &self.rows {
            starts.push(start);
            start = start.checked_add(count)?;
        }
        rows.iter()
            .map(|&row| {
                let block = starts.partition_point(|&s| s <= row).checked_sub(1)?;
                let within = usize::try_from(row.checked_sub(starts[block])?).ok()?;
                let piece = plan.get(block)?;
                let from = within.checked_mul(row_bytes)?;
                (from + row_bytes <= piece.len).then(|| Piece {
                    offset: piece.offset + from as u64,
                    len: row_bytes,
                })
            })
            .collect()
    }

    /// Where each block's values lie in the file, when the column qualifies.
    fn fixed_list_plan(&self, column: usize) -> Option<Vec<Piece>> {
        if self.codec != "none" || !matches!(self.body, Body::Plain(_)) {
            return None;
        }
        let DataType::FixedSizeList(item, size) = self.schema.fields().get(column)?.data_type()
        else {
            return None;
        };
        let width = item.data_type().primitive_width()?;
        let ranged = self.ranged.as_ref()?;
        let span = ranged.column_buffers.as_ref()?.get(column)?.clone();
        // The list's validity, the items' validity, the items' values.
        if span.len() != 3 {
            return None;
        }
        let mut plan = Vec::with_capacity(self.blocks.len());
        for ((block, buffers), rows) in self.blocks.iter().zip(&ranged.buffers).zip(&self.rows) {
            let listed = buffers.get(span.clone())?;
            if listed[0].1 != 0 || listed[1].1 != 0 {
                return None;
            }
            let (offset, len) = listed[2];
            let needed = usize::try_from(*rows)
                .ok()?
                .checked_mul(usize::try_from(*size).ok()?)?
                .checked_mul(width)?;
            if (len as usize) < needed || offset.checked_add(len)? > block.bodyLength() as u64 {
                return None;
            }
            let body_start = u64::try_from(block.offset())
                .ok()?
                .checked_add(u64::try_from(block.metaDataLength()).ok()?)?;
            plan.push(Piece {
                offset: body_start.checked_add(offset)?,
                len: needed,
            });
        }
        Some(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::Compression;
    use arrow::array::{Array, Float32Array};
    use arrow::datatypes::Field;

    fn matrix_batch(rows: usize, size: i32, first: f32) -> RecordBatch {
        let item = Arc::new(Field::new("item", DataType::Float32, false));
        let values: Float32Array = (0..rows * size as usize)
            .map(|i| first + i as f32)
            .collect();
        let list = FixedSizeListArray::try_new(item, size, Arc::new(values), None).unwrap();
        let schema = Schema::new(vec![Field::new(
            "features",
            list.data_type().clone(),
            false,
        )]);
        RecordBatch::try_new(Arc::new(schema), vec![Arc::new(list)]).unwrap()
    }

    #[test]
    fn a_fixed_list_column_reads_as_one_batch_equal_to_the_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.arrow");
        let batches = [matrix_batch(3, 4, 0.0), matrix_batch(5, 4, 100.0)];
        let schema = batches[0].schema();
        let expected = arrow::compute::concat_batches(&schema, &batches).unwrap();
        // Both writers: the gathered one and arrow's (which the `ipc` backend uses).
        crate::file::write_file(&path, &schema, &batches, Compression::None).unwrap();
        let arrow_path = dir.path().join("a.arrow");
        crate::file::write_with_arrow(&arrow_path, &schema, &batches, Compression::None).unwrap();
        for path in [&path, &arrow_path] {
            let file = IpcFile::open(path).unwrap();
            let one = file
                .read_fixed_list(0)
                .unwrap()
                .expect("the fast path applies");
            assert_eq!(one, expected);
            // A mapped file keeps its zero-copy decoding.
            assert!(IpcFile::map(path)
                .unwrap()
                .read_fixed_list(0)
                .unwrap()
                .is_none());
        }
        // Compressed blocks are decoded as before.
        let lz4 = dir.path().join("c.arrow");
        crate::file::write_file(&lz4, &schema, &batches, Compression::Lz4).unwrap();
        assert!(IpcFile::open(&lz4)
            .unwrap()
            .read_fixed_list(0)
            .unwrap()
            .is_none());
    }

    #[test]
    fn nulls_or_another_type_leave_it_to_the_decoder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.arrow");
        let item = Arc::new(Field::new("item", DataType::Float32, true));
        let values = Float32Array::from(vec![Some(1.0), None, Some(3.0), Some(4.0)]);
        let list = FixedSizeListArray::try_new(item, 2, Arc::new(values), None).unwrap();
        let schema = Arc::new(Schema::new(vec![
            Field::new("features", list.data_type().clone(), false),
            Field::new("x", DataType::Float32, false),
        ]));
        let x = Float32Array::from(vec![1.0, 2.0]);
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(list), Arc::new(x)]);
        crate::file::write_file(&path, &schema, &[batch.unwrap()], Compression::None).unwrap();
        let file = IpcFile::open(&path).unwrap();
        assert!(file.read_fixed_list(0).unwrap().is_none());
        assert!(file.read_fixed_list(1).unwrap().is_none());
        assert!(file.read_fixed_list(2).unwrap().is_none());
    }

    #[test]
    fn picked_rows_read_in_their_order_equal_a_take() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.arrow");
        let batches = [matrix_batch(3, 4, 0.0), matrix_batch(5, 4, 100.0)];
        let schema = batches[0].schema();
        let whole = arrow::compute::concat_batches(&schema, &batches).unwrap();
        crate::file::write_file(&path, &schema, &batches, Compression::None).unwrap();
        let file = IpcFile::open(&path).unwrap();
        // Both blocks, out of order, a block's first and last rows, a repeat.
        let rows = [7u64, 0, 3, 2, 5, 3];
        let picked = file.read_fixed_list_rows(0, Some(&rows)).unwrap().unwrap();
        let indices = arrow::array::UInt64Array::from(rows.to_vec());
        let expected = arrow::compute::take(whole.column(0), &indices, None).unwrap();
        assert_eq!(picked.column(0).as_ref(), expected.as_ref());
        assert!(
            file.read_fixed_list_rows(0, Some(&[8])).unwrap().is_none(),
            "past the end"
        );
        assert_eq!(
            file.read_fixed_list_rows(0, Some(&[]))
                .unwrap()
                .unwrap()
                .num_rows(),
            0
        );
    }
}
