//! An N × D row-major float32 matrix: what matrix operations compute on and return, read
//! from an array column or gathered from the wide layout's columns.

use crate::names::{FEATURES, PACKED_SEPARATOR};
use crate::KitError;
use arrow::array::{Array, ArrayRef, AsArray, Float32Array, RecordBatch, RecordBatchOptions};
use arrow::buffer::ScalarBuffer;
use arrow::datatypes::{DataType, Field, Float32Type, Schema};
use std::sync::Arc;

/// An N × D row-major float32 matrix; shares the reader's buffer where it already is one.
#[derive(Debug, Clone)]
pub struct FloatMatrix {
    pub rows: usize,
    pub cols: usize,
    pub values: ScalarBuffer<f32>,
}

impl FloatMatrix {
    /// The values of a `FixedSizeList<float32, width>` column (its child buffer, shared).
    pub fn from_list(column: &ArrayRef, width: usize) -> Result<Self, KitError> {
        Self::from_array_column(column, width)
    }

    /// The values of an array-layout column: a fixed-size list (its child buffer, shared) or
    /// packed text (parsed).
    pub fn from_array_column(column: &ArrayRef, width: usize) -> Result<Self, KitError> {
        match column.data_type() {
            DataType::Utf8 => Self::from_packed_text(column.as_string::<i32>(), width),
            DataType::FixedSizeList(_, size) if *size as usize == width => {
                let list = column.as_fixed_size_list();
                let child = list
                    .values()
                    .as_primitive_opt::<Float32Type>()
                    .ok_or_else(|| KitError::Invalid("the list items are not float32".into()))?;
                let rows = list.len();
                Ok(FloatMatrix {
                    rows,
                    cols: width,
                    values: child.values().slice(list.offset() * width, rows * width),
                })
            }
            other => Err(KitError::Invalid(format!(
                "the '{FEATURES}' column is {other}, not a list of {width} float32"
            ))),
        }
    }

    fn from_packed_text(cells: &arrow::array::StringArray, width: usize) -> Result<Self, KitError> {
        let rows = cells.len();
        let mut values = Vec::with_capacity(rows * width);
        for cell in cells.iter() {
            let before = values.len();
            for text in cell.unwrap_or_default().split(PACKED_SEPARATOR) {
                let value = text.parse::<f32>().map_err(|_| {
                    KitError::Invalid(format!("'{text}' in a packed cell is no float"))
                })?;
                values.push(value);
            }
            if values.len() - before != width {
                return Err(KitError::Invalid(format!(
                    "a packed cell holds {} values, not {width}",
                    values.len() - before
                )));
            }
        }
        Ok(FloatMatrix {
            rows,
            cols: width,
            values: values.into(),
        })
    }

    /// Every row of `parts` (each `cols` wide), one after another; no copy for a single part.
    pub fn concat(mut parts: Vec<FloatMatrix>, cols: usize) -> FloatMatrix {
        if parts.len() == 1 {
            if let Some(only) = parts.pop() {
                return only;
            }
        }
        let rows = parts.iter().map(|p| p.rows).sum();
        let mut values = Vec::with_capacity(rows * cols);
        for part in &parts {
            values.extend_from_slice(&part.values);
        }
        FloatMatrix {
            rows,
            cols,
            values: values.into(),
        }
    }

    /// The named float32 columns of a wide table, interleaved into rows.
    pub fn from_wide(batches: &[RecordBatch], names: &[String]) -> Result<Self, KitError> {
        let cols = names.len();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        let mut values = vec![0f32; rows * cols];
        let mut first_row = 0;
        for batch in batches {
            let schema = batch.schema();
            let positions = crate::names::positions_by_name(&schema);
            let columns = names
                .iter()
                .map(|name| {
                    positions
                        .get(name.as_str())
                        .and_then(|&i| batch.column(i).as_primitive_opt::<Float32Type>())
                        .map(|c| c.values().as_ref())
                        .ok_or_else(|| KitError::Invalid(format!("no float32 column '{name}'")))
                })
                .collect::<Result<Vec<&[f32]>, _>>()?;
            let end = (first_row + batch.num_rows()) * cols;
            interleave(&columns, &mut values[first_row * cols..end]);
            first_row += batch.num_rows();
        }
        Ok(FloatMatrix {
            rows,
            cols,
            values: values.into(),
        })
    }

    /// The columns at `picks`, in that order.
    pub fn select(&self, picks: &[usize]) -> FloatMatrix {
        let mut values = Vec::with_capacity(self.rows * picks.len());
        for row in self.values.chunks(self.cols.max(1)) {
            values.extend(picks.iter().map(|&c| row[c]));
        }
        FloatMatrix {
            rows: self.rows,
            cols: picks.len(),
            values: values.into(),
        }
    }

    /// Each row's L2 norm (summed in f64, as the verifier does, so only rounding differs).
    pub fn norms(&self) -> Float32Array {
        self.values
            .chunks(self.cols.max(1))
            .take(self.rows)
            .map(|row| {
                let sum: f64 = row.iter().map(|v| f64::from(*v) * f64::from(*v)).sum();
                sum.sqrt() as f32
            })
            .collect()
    }

    /// The matrix as a wide table of float32 columns named `names`.
    pub fn to_batch(&self, names: &[String]) -> Result<RecordBatch, KitError> {
        let cols = self.cols.max(1);
        let arrays: Vec<ArrayRef> = (0..self.cols)
            .map(|c| {
                Arc::new(Float32Array::from_iter_values(
                    self.values.iter().skip(c).step_by(cols).copied(),
                )) as ArrayRef
            })
            .collect();
        let fields: Vec<Field> = names
            .iter()
            .map(|n| Field::new(n, DataType::Float32, false))
            .collect();
        let options = RecordBatchOptions::new().with_row_count(Some(self.rows));
        Ok(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &options,
        )?)
    }
}

/// The transpose goes in tiles of this many rows × [`INTERLEAVE_COLUMNS`] columns: each row of
/// a tile is one 64-byte line of the destination, and a tile's sources (16 runs of 64 floats)
/// stay in cache while it is written, where a column at a time would touch a new page per row.
const INTERLEAVE_ROWS: usize = 64;
const INTERLEAVE_COLUMNS: usize = 16;

/// Writes `columns` (each `out.len() / columns.len()` long) into `out` row by row: the
/// column-to-row transpose a wide layout pays for a row-major matrix, done in cache-sized tiles.
pub fn interleave(columns: &[&[f32]], out: &mut [f32]) {
    let cols = columns.len();
    if cols == 0 {
        return;
    }
    let rows = out.len() / cols;
    for start in (0..rows).step_by(INTERLEAVE_ROWS) {
        let end = (start + INTERLEAVE_ROWS).min(rows);
        let block = &mut out[start * cols..end * cols];
        for (t, tile) in columns.chunks(INTERLEAVE_COLUMNS).enumerate() {
            let first = t * INTERLEAVE_COLUMNS;
            for (r, row) in block.chunks_exact_mut(cols).enumerate() {
                let line = &mut row[first..first + tile.len()];
                for (cell, column) in line.iter_mut().zip(tile) {
                    *cell = column[start + r];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::interleave;

    #[test]
    fn interleave_puts_every_value_at_its_row_and_column_for_any_tile_remainder() {
        for (rows, cols) in [(0, 3), (1, 1), (65, 17), (130, 33), (7, 40)] {
            let columns: Vec<Vec<f32>> = (0..cols)
                .map(|j| (0..rows).map(|r| (r * 1000 + j) as f32).collect())
                .collect();
            let refs: Vec<&[f32]> = columns.iter().map(Vec::as_slice).collect();
            let mut out = vec![f32::NAN; rows * cols];
            interleave(&refs, &mut out);
            for r in 0..rows {
                for j in 0..cols {
                    assert_eq!(
                        out[r * cols + j],
                        (r * 1000 + j) as f32,
                        "{rows}×{cols} at {r},{j}"
                    );
                }
            }
        }
    }
}
