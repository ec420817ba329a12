//! `floor-memcpy`: the memory-copy floor every report shows beside the formats. Its write
//! copies the table's Arrow buffers into the page cache as they are (one `write` per buffer,
//! no encoding), its read copies the file back into one aligned buffer and points the arrays
//! into it (no decoding), and its scan folds that. A format's write or read can approach these
//! figures, not beat them (a memory map can skip the read's copy). With a thread cap of N the
//! batches are cut into N files written and read concurrently, so the floor has the same
//! threads as the formats it bounds.
//!
//! File: the buffers, each padded to 64 bytes, then a JSON footer giving each batch's arrays
//! (length, offset, null buffer, buffers, children), then the footer's length (8 bytes, LE).

use super::{column_indices, Backend, Context, Loaded, Request};
use crate::WorkerError;
use arrow::array::{make_array, ArrayData, RecordBatch};
use arrow::buffer::{Buffer, MutableBuffer, NullBuffer};
use arrow::datatypes::DataType;
use formatbench_protocol::Op;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub struct Floor;

const ALIGNMENT: usize = 64;
const ZEROS: [u8; ALIGNMENT] = [0; ALIGNMENT];

fn invalid(what: impl std::fmt::Display) -> WorkerError {
    WorkerError::Invalid(format!("not a floor-memcpy file: {what}"))
}

fn file_of(dir: &Path, part: usize) -> PathBuf {
    dir.join(format!("floor-{part:03}.bin"))
}

/// The files of an artifact, in order.
fn files(dir: &Path) -> Result<Vec<PathBuf>, WorkerError> {
    let mut out = Vec::new();
    while file_of(dir, out.len()).exists() {
        out.push(file_of(dir, out.len()));
    }
    if out.is_empty() {
        return Err(invalid(format!("no floor-000.bin in {}", dir.display())));
    }
    Ok(out)
}

struct Writer<W: Write> {
    out: W,
    at: u64,
}

impl<W: Write> Writer<W> {
    fn buffer(&mut self, bytes: &[u8]) -> Result<Value, WorkerError> {
        let start = self.at;
        self.out.write_all(bytes)?;
        let pad = (ALIGNMENT - bytes.len() % ALIGNMENT) % ALIGNMENT;
        self.out.write_all(&ZEROS[..pad])?;
        self.at += (bytes.len() + pad) as u64;
        Ok(json!([start, bytes.len()]))
    }

    fn node(&mut self, data: &ArrayData) -> Result<Value, WorkerError> {
        let nulls = match data.nulls() {
            Some(n) => json!({"at": self.buffer(n.buffer().as_slice())?, "offset": n.offset()}),
            None => Value::Null,
        };
        let buffers = data
            .buffers()
            .iter()
            .map(|b| self.buffer(b.as_slice()))
            .collect::<Result<Vec<_>, _>>()?;
        let children = data
            .child_data()
            .iter()
            .map(|c| self.node(c))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(
            json!({"len": data.len(), "offset": data.offset(), "nulls": nulls,
                  "buffers": buffers, "children": children}),
        )
    }
}

fn write_file(path: &Path, batches: &[RecordBatch]) -> Result<(), WorkerError> {
    // Buffers above the capacity go to `write` directly; the buffer only gathers padding.
    let mut w = Writer {
        out: BufWriter::with_capacity(64 << 10, File::create(path)?),
        at: 0,
    };
    let mut footer = Vec::with_capacity(batches.len());
    for batch in batches {
        let columns = batch
            .columns()
            .iter()
            .map(|c| w.node(&c.to_data()))
            .collect::<Result<Vec<_>, _>>()?;
        footer.push(json!({"rows": batch.num_rows(), "columns": columns}));
    }
    let footer = serde_json::to_vec(&footer).map_err(invalid)?;
    w.out.write_all(&footer)?;
    w.out.write_all(&(footer.len() as u64).to_le_bytes())?;
    w.out.into_inner().map_err(|e| e.into_error())?;
    Ok(())
}

/// The whole file, copied once into a 64-byte aligned buffer (uninitialised until read).
fn read_file(path: &Path) -> Result<Buffer, WorkerError> {
    let file = File::open(path)?;
    let len = file.metadata()?.len() as usize;
    let mut buffer = MutableBuffer::with_capacity(len);
    // SAFETY: the capacity is `len`; every byte up to `len` is written by `read_exact_at`
    // before the buffer is read, and `u8` has no invalid values.
    unsafe { buffer.set_len(len) };
    file.read_exact_at(buffer.as_slice_mut(), 0)?;
    Ok(buffer.into())
}

fn number(v: &Value, key: &str) -> Result<usize, WorkerError> {
    v.get(key)
        .and_then(Value::as_u64)
        .map(|n| n as usize)
        .ok_or_else(|| invalid(format!("no '{key}'")))
}

fn slice(file: &Buffer, at: &Value) -> Result<Buffer, WorkerError> {
    let (start, len) = match at.as_array().map(Vec::as_slice) {
        Some([s, l]) => (s.as_u64(), l.as_u64()),
        _ => (None, None),
    };
    let (Some(start), Some(len)) = (start, len) else {
        return Err(invalid("a buffer without position"));
    };
    let (start, len) = (start as usize, len as usize);
    if start + len > file.len() {
        return Err(invalid("a buffer past the end"));
    }
    Ok(file.slice_with_length(start, len))
}

fn node(file: &Buffer, v: &Value, data_type: &DataType) -> Result<ArrayData, WorkerError> {
    let len = number(v, "len")?;
    let nulls = match v.get("nulls") {
        Some(Value::Null) | None => None,
        Some(n) => {
            let buffer = slice(file, n.get("at").unwrap_or(&Value::Null))?;
            let offset = number(n, "offset")?;
            if buffer.len() * 8 < offset + len {
                return Err(invalid("a null buffer too short"));
            }
            Some(NullBuffer::new(arrow::buffer::BooleanBuffer::new(
                buffer, offset, len,
            )))
        }
    };
    let empty = Vec::new();
    let buffers = v
        .get("buffers")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .map(|b| slice(file, b))
        .collect::<Result<Vec<_>, _>>()?;
    let child_types: Vec<DataType> = match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => {
            vec![f.data_type().clone()]
        }
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type().clone()).collect(),
        DataType::Dictionary(_, values) => vec![values.as_ref().clone()],
        _ => Vec::new(),
    };
    let children = v
        .get("children")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .zip(&child_types)
        .map(|(c, t)| node(file, c, t))
        .collect::<Result<Vec<_>, _>>()?;
    let builder = ArrayData::builder(data_type.clone())
        .len(len)
        .offset(number(v, "offset")?)
        .nulls(nulls)
        .buffers(buffers)
        .child_data(children);
    // SAFETY: the file is this run's own artifact, written above from valid arrays, and every
    // read's result is compared value by value with the source before its timings count.
    Ok(unsafe { builder.build_unchecked() })
}

fn decode(
    file: &Buffer,
    ctx: &Context,
    columns: &[usize],
) -> Result<Vec<RecordBatch>, WorkerError> {
    let tail = file
        .len()
        .checked_sub(8)
        .ok_or_else(|| invalid("too short"))?;
    let footer_len = u64::from_le_bytes(
        file.as_slice()[tail..]
            .try_into()
            .map_err(|_| invalid("no footer length"))?,
    ) as usize;
    let start = tail
        .checked_sub(footer_len)
        .ok_or_else(|| invalid("footer too long"))?;
    let footer: Vec<Value> =
        serde_json::from_slice(&file.as_slice()[start..tail]).map_err(invalid)?;
    let schema = std::sync::Arc::new(ctx.schema.project(columns)?);
    footer
        .iter()
        .map(|batch| {
            let nodes = batch
                .get("columns")
                .and_then(Value::as_array)
                .ok_or_else(|| invalid("a batch without columns"))?;
            let arrays = columns
                .iter()
                .map(|&c| {
                    let v = nodes.get(c).ok_or_else(|| invalid("a missing column"))?;
                    Ok(make_array(node(file, v, ctx.schema.field(c).data_type())?))
                })
                .collect::<Result<Vec<_>, WorkerError>>()?;
            let options = arrow::array::RecordBatchOptions::new()
                .with_row_count(Some(number(batch, "rows")?));
            Ok(RecordBatch::try_new_with_options(
                schema.clone(),
                arrays,
                &options,
            )?)
        })
        .collect()
}

impl Backend for Floor {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        super::FLOOR
    }
    fn version(&self) -> String {
        // formatbench's own code.
        env!("CARGO_PKG_VERSION").into()
    }
    fn about(&self) -> &'static str {
        "the memory-copy floor (a reference, not a format): Arrow buffers written to the page cache as they are, read back with one copy, no encoding or decoding"
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default"]
    }
    fn ops(&self) -> &'static [Op] {
        &[Op::Write, Op::Read, Op::Scan, Op::Project]
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        let parts = ctx.threads.clamp(1, batches.len().max(1));
        let groups: Vec<usize> = (0..batches.len()).collect();
        let groups = crate::parallel::split(&groups, parts);
        crate::parallel::on_threads(groups.len().max(1), |i| {
            let mine: Vec<RecordBatch> = groups
                .get(i)
                .map(|g| g.iter().map(|&b| batches[b].clone()).collect())
                .unwrap_or_default();
            write_file(&file_of(dir, i), &mine)
        })?;
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        let columns = match request {
            Request::All => (0..ctx.schema.fields().len()).collect(),
            Request::Columns(names) => column_indices(ctx.schema, names)?,
            _ => {
                return Err(WorkerError::Unsupported(
                    "the floor reads whole files only".into(),
                ))
            }
        };
        let paths = files(dir)?;
        let parts = crate::parallel::on_threads(paths.len(), |i| {
            decode(&read_file(&paths[i])?, ctx, &columns)
        })?;
        Ok((
            Loaded::Table(parts.into_iter().flatten().collect()),
            "the files copied into memory once, arrays pointed into them",
        ))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::from([
            (
                "files".into(),
                files(dir).map_or(0, |f| f.len()).to_string(),
            ),
            ("threads".into(), ctx.threads.to_string()),
            ("alignment".into(), ALIGNMENT.to_string()),
        ])
    }
}
