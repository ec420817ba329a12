//! NumPy .npy: one C-order 2-D float array, the speed-of-light floor for all-float tables. Column
//! names do not fit in the format, so they live in a `names.json` sidecar counted in the size.

use super::{data_file, Backend, Context, Loaded, Matrix, MatrixData, Request};
use crate::WorkerError;
use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::{DataType, Field, Float32Type, Float64Type, Schema};
use formatbench_protocol::{Op, RangeSpec, ALL_OPS};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

pub struct Npy;

const MAGIC: &[u8] = b"\x93NUMPY\x01\x00";
const HEADER_ALIGN: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Dtype {
    F32,
    F64,
}

impl Dtype {
    fn width(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F64 => 8,
        }
    }
}

#[derive(Debug)]
struct Header {
    dtype: Dtype,
    rows: usize,
    cols: usize,
    data_offset: usize,
}

fn dtype_of(schema: &Schema) -> Result<Dtype, String> {
    let mut dtype = None;
    for field in schema.fields() {
        let this = match field.data_type() {
            DataType::Float32 => Dtype::F32,
            DataType::Float64 => Dtype::F64,
            other => {
                return Err(format!(
                    ".npy holds one float array; column '{}' is {other}",
                    field.name()
                ))
            }
        };
        if dtype.is_some_and(|d| d != this) {
            return Err(".npy holds one dtype; the table mixes float32 and float64".into());
        }
        dtype = Some(this);
    }
    dtype.ok_or_else(|| "the table has no columns".into())
}

fn header_bytes(dtype: Dtype, rows: usize, cols: usize) -> Vec<u8> {
    let descr = match dtype {
        Dtype::F32 => "<f4",
        Dtype::F64 => "<f8",
    };
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // Pad with spaces so the data starts aligned; the header ends with a newline.
    let unpadded = MAGIC.len() + 2 + dict.len() + 1;
    dict.push_str(&" ".repeat((HEADER_ALIGN - unpadded % HEADER_ALIGN) % HEADER_ALIGN));
    dict.push('\n');
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

fn read_header(file: &File) -> Result<Header, WorkerError> {
    let bad = |why: &str| WorkerError::Invalid(format!("not a 2-D float .npy file: {why}"));
    let mut prefix = [0u8; 10];
    file.read_exact_at(&mut prefix, 0)?;
    if &prefix[..8] != MAGIC {
        return Err(bad("bad magic or version"));
    }
    let len = u16::from_le_bytes([prefix[8], prefix[9]]) as usize;
    let mut dict = vec![0u8; len];
    file.read_exact_at(&mut dict, 10)?;
    let dict = String::from_utf8_lossy(&dict);
    let dtype = if dict.contains("'<f4'") {
        Dtype::F32
    } else if dict.contains("'<f8'") {
        Dtype::F64
    } else {
        return Err(bad("dtype is not <f4 or <f8"));
    };
    if dict.contains("'fortran_order': True") {
        return Err(bad("Fortran order"));
    }
    let shape = dict
        .split("'shape': (")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("no shape"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().map_err(|_| bad("shape")))
        .collect::<Result<_, _>>()?;
    let [rows, cols] = dims[..] else {
        return Err(bad("not 2-D"));
    };
    // Every later offset is a product of these: they must fit the file, or a corrupt shape
    // would size buffers and reads apart.
    let data_offset = 10 + len;
    let end = rows
        .checked_mul(cols)
        .and_then(|values| values.checked_mul(dtype.width()))
        .and_then(|bytes| bytes.checked_add(data_offset));
    match end {
        Some(end) if end as u64 <= file.metadata()?.len() => {}
        _ => return Err(bad("its shape holds more values than the file")),
    }
    Ok(Header {
        dtype,
        rows,
        cols,
        data_offset,
    })
}

fn names(dir: &Path) -> Result<Vec<String>, WorkerError> {
    let text = std::fs::read_to_string(dir.join("names.json"))?;
    serde_json::from_str(&text).map_err(|e| WorkerError::Invalid(format!("names.json: {e}")))
}

/// Reads `rows × cols` values at `offset` straight into a typed vector.
fn read_values(
    file: &File,
    header: &Header,
    offset: usize,
    count: usize,
) -> Result<MatrixData, WorkerError> {
    fn fill<T: Copy>(
        file: &File,
        offset: usize,
        count: usize,
        width: usize,
    ) -> std::io::Result<Vec<T>> {
        // Not zeroed first: zeroing a fresh 65 MB vector cost about as much as the read (the
        // floor must not pay for work a reader need not do; the IPC reader skips it too).
        let mut values: Vec<T> = Vec::with_capacity(count);
        let base = values.as_mut_ptr().cast::<u8>();
        // SAFETY: the vector's allocation holds `count` elements of `width` bytes.
        unsafe { ipc_parts::file::pread_exact(file, base, count * width, offset as u64)? };
        // SAFETY: pread filled all `count * width` bytes, and T is f32 or f64, for which every
        // bit pattern is a valid value.
        unsafe { values.set_len(count) };
        Ok(values)
    }
    Ok(match header.dtype {
        Dtype::F32 => MatrixData::F32(fill(file, offset, count, 4)?),
        Dtype::F64 => MatrixData::F64(fill(file, offset, count, 8)?),
    })
}

/// The rows at `offsets` (each `header.cols` values), in that order, read straight into one
/// typed vector by one positioned read each, on up to `threads` threads.
fn read_rows(
    file: &File,
    header: &Header,
    offsets: &[u64],
    threads: usize,
) -> Result<MatrixData, WorkerError> {
    fn fill<T: Copy>(
        file: &File,
        offsets: &[u64],
        cols: usize,
        threads: usize,
    ) -> Result<Vec<T>, WorkerError> {
        let too_big = || WorkerError::Invalid("a take larger than memory can address".into());
        let row_bytes = cols
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(too_big)?;
        let count = offsets.len().checked_mul(cols).ok_or_else(too_big)?;
        let bytes = count
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(too_big)?;
        let rows: Vec<ipc_parts::file::Piece> = offsets
            .iter()
            .map(|&offset| ipc_parts::file::Piece {
                offset,
                len: row_bytes,
            })
            .collect();
        let mut values: Vec<T> = Vec::with_capacity(count);
        // SAFETY: the vector holds `bytes` bytes of capacity, which nothing reads until the
        // reads are done; the rows' lengths sum to it.
        unsafe {
            ipc_parts::file::pread_pieces(
                file,
                &rows,
                threads,
                values.as_mut_ptr().cast::<u8>(),
                bytes,
            )?
        };
        // SAFETY: the reads returned without an error, so every row was read; T is f32 or
        // f64, for which every bit pattern is a value.
        unsafe { values.set_len(count) };
        Ok(values)
    }
    Ok(match header.dtype {
        Dtype::F32 => MatrixData::F32(fill(file, offsets, header.cols, threads)?),
        Dtype::F64 => MatrixData::F64(fill(file, offsets, header.cols, threads)?),
    })
}

fn gather(data: &MatrixData, cols: usize, keep: &[usize]) -> MatrixData {
    fn pick<T: Copy>(v: &[T], cols: usize, keep: &[usize]) -> Vec<T> {
        v.chunks_exact(cols)
            .flat_map(|row| keep.iter().map(move |&c| row[c]))
            .collect()
    }
    match data {
        MatrixData::F32(v) => MatrixData::F32(pick(v, cols, keep)),
        MatrixData::F64(v) => MatrixData::F64(pick(v, cols, keep)),
    }
}

fn concat_rows(parts: Vec<MatrixData>, dtype: Dtype) -> MatrixData {
    match dtype {
        Dtype::F32 => MatrixData::F32(
            parts
                .into_iter()
                .flat_map(|p| {
                    if let MatrixData::F32(v) = p {
                        v
                    } else {
                        Vec::new()
                    }
                })
                .collect(),
        ),
        Dtype::F64 => MatrixData::F64(
            parts
                .into_iter()
                .flat_map(|p| {
                    if let MatrixData::F64(v) = p {
                        v
                    } else {
                        Vec::new()
                    }
                })
                .collect(),
        ),
    }
}

impl Backend for Npy {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        "npy"
    }
    fn version(&self) -> String {
        // formatbench's own code.
        env!("CARGO_PKG_VERSION").into()
    }
    fn about(&self) -> &'static str {
        "NumPy .npy, one C-order float matrix: the floor for all-float tables"
    }
    fn array_form(&self) -> Option<crate::layout::ArrayForm> {
        Some(crate::layout::ArrayForm::Bare)
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default"]
    }
    fn ops(&self) -> &'static [Op] {
        &ALL_OPS
    }
    fn can_store(&self, schema: &Schema) -> Result<(), String> {
        dtype_of(schema).map(|_| ())
    }

    fn format(&self) -> Option<String> {
        Some("npy".into())
    }

    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        let dtype = dtype_of(ctx.schema).map_err(WorkerError::Unsupported)?;
        // A float array has no nulls: writing them as 0.0 would change the data unseen.
        for batch in batches {
            for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
                if column.null_count() > 0 {
                    return Err(WorkerError::Unsupported(format!(
                        ".npy holds no nulls; column '{}' has {}",
                        field.name(),
                        column.null_count()
                    )));
                }
            }
        }
        let cols = ctx.schema.fields().len();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        let mut out = BufWriter::with_capacity(1 << 20, File::create(data_file(dir, "npy"))?);
        out.write_all(&header_bytes(dtype, rows, cols))?;
        let mut row_bytes = Vec::with_capacity(cols * dtype.width());
        for batch in batches {
            for row in 0..batch.num_rows() {
                row_bytes.clear();
                for column in batch.columns() {
                    match dtype {
                        Dtype::F32 => row_bytes.extend_from_slice(
                            &column
                                .as_primitive::<Float32Type>()
                                .value(row)
                                .to_le_bytes(),
                        ),
                        Dtype::F64 => row_bytes.extend_from_slice(
                            &column
                                .as_primitive::<Float64Type>()
                                .value(row)
                                .to_le_bytes(),
                        ),
                    }
                }
                out.write_all(&row_bytes)?;
            }
        }
        out.into_inner().map_err(|e| e.into_error())?;
        let names: Vec<&String> = ctx.schema.fields().iter().map(|f| f.name()).collect();
        let json = serde_json::to_vec(&names).map_err(|e| WorkerError::Invalid(e.to_string()))?;
        std::fs::write(dir.join("names.json"), json)?;
        Ok(())
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
                "whole object downloaded (LIST, GET a file), then read",
            ));
        }
        let file = File::open(data_file(dir, "npy"))?;
        let header = read_header(&file)?;
        let all_names = names(dir)?;
        let row_bytes = header.cols * header.dtype.width();
        let row_offset = |row: usize| header.data_offset + row * row_bytes;
        let (rows, names, data, method) = match request {
            Request::All => {
                let data = read_values(
                    &file,
                    &header,
                    header.data_offset,
                    header.rows * header.cols,
                )?;
                (header.rows, all_names, data, "one read into the matrix")
            }
            Request::Columns(wanted) => {
                let keep = super::column_indices(
                    &Schema::new(
                        all_names
                            .iter()
                            .map(|n| Field::new(n, DataType::Float32, false))
                            .collect::<Vec<_>>(),
                    ),
                    wanted,
                )?;
                // Row-major storage: every row is read, the wanted columns gathered per chunk.
                let chunk_rows = (8 << 20) / row_bytes.max(1);
                let mut parts = Vec::new();
                let mut row = 0;
                while row < header.rows {
                    let n = chunk_rows.max(1).min(header.rows - row);
                    let chunk = read_values(&file, &header, row_offset(row), n * header.cols)?;
                    parts.push(gather(&chunk, header.cols, &keep));
                    row += n;
                }
                let names = keep.iter().map(|&c| all_names[c].clone()).collect();
                (
                    header.rows,
                    names,
                    concat_rows(parts, header.dtype),
                    "every row read, columns gathered",
                )
            }
            Request::Range(RangeSpec::Position { start, end }) => {
                let (start, end) = (*start as usize, (*end as usize).min(header.rows));
                let n = end.saturating_sub(start);
                let data = read_values(&file, &header, row_offset(start), n * header.cols)?;
                (n, all_names, data, "one read of the contiguous rows")
            }
            Request::Range(RangeSpec::Index { .. }) => {
                return Err(WorkerError::Unsupported(
                    ".npy stores no index column; ranges are by position".into(),
                ))
            }
            Request::Take(_, Some(_)) => {
                return Err(WorkerError::Unsupported(
                    ".npy takes whole rows; the matrix operations select columns after".into(),
                ))
            }
            Request::Take(wanted, None) => {
                let mut offsets = Vec::with_capacity(wanted.len());
                for &row in wanted {
                    if row as usize >= header.rows {
                        return Err(WorkerError::Invalid(format!(
                            "row {row} is past the end ({} rows)",
                            header.rows
                        )));
                    }
                    offsets.push(row_offset(row as usize) as u64);
                }
                (
                    wanted.len(),
                    all_names,
                    read_rows(&file, &header, &offsets, ctx.threads)?,
                    "one positioned read per row, straight into its place in the matrix (the run's threads)",
                )
            }
        };
        Ok((Loaded::Matrix(Matrix { rows, names, data }), method))
    }

    fn settings(&self, _ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::from([
            ("sidecar".into(), "names.json".into()),
            (
                "library".into(),
                "formatbench's own .npy writer and reader".into(),
            ),
        ]);
        let mut file = match File::open(data_file(dir, "npy")) {
            Ok(f) => f,
            Err(_) => return out,
        };
        let mut magic = [0u8; 6];
        if file.read_exact(&mut magic).is_ok() {
            if let Ok(header) = read_header(&file) {
                let dtype = if header.dtype == Dtype::F32 {
                    "<f4"
                } else {
                    "<f8"
                };
                out.insert("dtype".into(), dtype.into());
                out.insert("order".into(), "C".into());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A `.npy` file of `rows × cols` float32 zeros whose header claims `claimed_rows`.
    fn npy(dir: &tempfile::TempDir, rows: usize, cols: usize, claimed_rows: usize) -> File {
        let path = dir.path().join("data.npy");
        let mut bytes = header_bytes(Dtype::F32, claimed_rows, cols);
        bytes.extend(vec![0u8; rows * cols * 4]);
        std::fs::write(&path, bytes).unwrap();
        File::open(path).unwrap()
    }

    #[test]
    fn a_shape_the_file_cannot_hold_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let header = read_header(&npy(&dir, 3, 4, 3)).unwrap();
        assert_eq!((header.rows, header.cols), (3, 4));
        let error = read_header(&npy(&dir, 3, 4, 4)).unwrap_err().to_string();
        assert!(error.contains("more values than the file"), "{error}");
        // A shape whose byte count wraps around.
        let error = read_header(&npy(&dir, 3, 4, usize::MAX / 2))
            .unwrap_err()
            .to_string();
        assert!(error.contains("more values than the file"), "{error}");
    }
}
