//! The native backends: one file each, behind one small trait.

mod csv;
mod floor;
mod ipc;
mod ipc_parts;
mod npy;
mod parquet;

pub use npy::matrix_to_batch;

use crate::layout::{self, ArrayForm};
use crate::WorkerError;
use arrow::array::{Int64Array, RecordBatch};
use arrow::datatypes::{Schema, SchemaRef};
use formatbench_protocol::{Op, RangeSpec, MATRIX_OPS};
use std::collections::BTreeMap;
use std::path::Path;

/// What a read-type operation asks of the backend.
#[derive(Debug, Clone, Copy)]
pub enum Request<'a> {
    All,
    Columns(&'a [String]),
    Range(&'a RangeSpec),
    /// Rows at positions, in request order; only the named columns (in stored order) if given.
    Take(&'a [u64], Option<&'a [String]>),
}

/// A row-major matrix: the in-memory object of array formats such as .npy.
#[derive(Debug, Clone)]
pub struct Matrix {
    pub rows: usize,
    pub names: Vec<String>,
    pub data: MatrixData,
}

#[derive(Debug, Clone)]
pub enum MatrixData {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// What a read returns: Arrow batches, or a matrix for array formats.
#[derive(Debug, Clone)]
pub enum Loaded {
    Table(Vec<RecordBatch>),
    Matrix(Matrix),
}

/// The settings a backend runs under for one job.
pub struct Context<'a> {
    pub profile: &'a str,
    /// The source schema: what the data is, for formats that do not store it (CSV, .npy).
    pub schema: &'a SchemaRef,
    pub threads: usize,
    /// The dataset's index column, for stores that address rows by label.
    pub index: Option<&'a str>,
}

/// The table-store reads (FeatherStore's forms), by integer index label; bounds inclusive.
#[derive(Debug, Clone, Copy)]
pub enum LabelRead<'a> {
    Before(i64),
    After(i64),
    Between(i64, i64),
    /// These labels, returned in this order (an Arrow array, so a store can take it as is).
    Labels(&'a Int64Array),
}

/// A change to a stored table, with the rows it brings.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    Append(&'a [RecordBatch]),
    Insert(&'a [RecordBatch]),
    /// Rows with the index and the columns to set.
    Update(&'a RecordBatch),
}

/// The durable half of a write or change that stages its files first (a store's syncs and
/// metadata rename): run after the operation's timer, and timed as the `commit` phase.
pub type Commit = Box<dyn FnOnce(bool) -> Result<(), WorkerError>>;

pub trait Backend: Sync {
    fn name(&self) -> &'static str;
    /// One line for `formatbench backends`.
    fn about(&self) -> &'static str;
    fn profiles(&self) -> &'static [&'static str];
    /// The operations this backend does natively; the runner marks the rest `unsupported`.
    fn ops(&self) -> &'static [Op];
    /// How the format holds the array layout's field; `None` when it has only the wide layout.
    fn array_form(&self) -> Option<ArrayForm> {
        None
    }
    /// The layouts it stores, and the operations it does natively on each.
    fn layouts(&self) -> Vec<(&'static str, Vec<Op>)> {
        let mut wide = self.ops().to_vec();
        if wide.contains(&Op::Project) && wide.contains(&Op::Take) {
            wide.extend(MATRIX_OPS);
        }
        let mut out = vec![(layout::WIDE, wide)];
        match self.array_form() {
            Some(ArrayForm::Bare) => out.push((
                layout::ARRAY,
                vec![
                    Op::Write,
                    Op::Matrix,
                    Op::RandomRows,
                    Op::FeatureProject,
                    Op::VectorNorm,
                ],
            )),
            Some(_) => {
                let mut ops = vec![Op::Write, Op::Read, Op::Scan];
                ops.extend(MATRIX_OPS);
                out.push((layout::ARRAY, ops));
            }
            None => {}
        }
        // A reader of another backend's files (ipc-mmap) writes only to prepare them.
        if !self.ops().contains(&Op::Write) {
            for (_, ops) in &mut out {
                ops.retain(|op| *op != Op::Write);
            }
        }
        out
    }
    /// True when a round trip may change float values (text formats); verification then allows a
    /// relative tolerance.
    fn lossy(&self) -> bool {
        false
    }
    /// `Err(reason)` when the format cannot store a column of this schema.
    fn can_store(&self, _schema: &Schema) -> Result<(), String> {
        Ok(())
    }
    /// Writes the batches into `dir` (created by the caller); returns when every file is closed.
    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError>;
    /// Writes like `write`, leaving the commit (called with `true` to sync) for after the timer.
    fn write_staged(
        &self,
        ctx: &Context,
        batches: &[RecordBatch],
        dir: &Path,
    ) -> Result<Option<Commit>, WorkerError> {
        self.write(ctx, batches, dir).map(|()| None)
    }
    /// Reads rows by index label (`range_before`, `range_after`, `range_between`, `labels`).
    fn read_labels(
        &self,
        _ctx: &Context,
        _dir: &Path,
        _read: LabelRead,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        Err(WorkerError::Unsupported(format!(
            "{} does not address rows by label",
            self.name()
        )))
    }
    /// Changes the table in `dir` (`append`, `insert`, `update`), leaving the commit for after
    /// the timer.
    fn change(
        &self,
        _ctx: &Context,
        _dir: &Path,
        _change: Change,
    ) -> Result<Option<Commit>, WorkerError> {
        Err(WorkerError::Unsupported(format!(
            "{} does not change stored tables",
            self.name()
        )))
    }
    /// Performs a read-type operation on what `write` left in `dir`. Returns the in-memory result
    /// and a short description of how it was done (e.g. "full parse + take").
    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError>;
    /// Effective settings read back from the written files (untimed), for the fairness manifest.
    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String>;
}

pub static BACKENDS: [&dyn Backend; 7] = [
    &csv::Csv,
    &parquet::Parquet,
    &ipc::Ipc { mmap: false },
    &ipc::Ipc { mmap: true },
    &npy::Npy,
    &ipc_parts::IpcParts,
    &floor::Floor,
];

/// The memory-copy floor's name: a reference every report shows, never a recommendation.
pub const FLOOR: &str = "floor-memcpy";

pub fn find_backend(name: &str) -> Option<&'static dyn Backend> {
    BACKENDS.iter().copied().find(|b| b.name() == name)
}

/// The IPC codec of a profile of the IPC backends (`default` is uncompressed).
pub(crate) fn ipc_compression(profile: &str) -> ::ipc_parts::Compression {
    match profile {
        "lz4" => ::ipc_parts::Compression::Lz4,
        "zstd" => ::ipc_parts::Compression::Zstd,
        _ => ::ipc_parts::Compression::None,
    }
}

/// The one file a single-file backend keeps in its artifact directory.
pub(crate) fn data_file(dir: &Path, extension: &str) -> std::path::PathBuf {
    dir.join(format!("data.{extension}"))
}

/// Column positions of `names` in `schema`, in stored order; an unknown name is an error.
pub fn column_indices(schema: &Schema, names: &[String]) -> Result<Vec<usize>, WorkerError> {
    let mut indices = names
        .iter()
        .map(|n| {
            schema
                .index_of(n)
                .map_err(|_| WorkerError::Invalid(format!("no column named '{n}'")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    indices.sort_unstable();
    Ok(indices)
}

/// Runs staged commits (synced), timing them together: the `commit` phase, or `None` when
/// the backend stages none.
pub(crate) fn run_commits(commits: Vec<Commit>) -> Result<Option<f64>, WorkerError> {
    if commits.is_empty() {
        return Ok(None);
    }
    let start = std::time::Instant::now();
    for commit in commits {
        commit(true)?;
    }
    Ok(Some(start.elapsed().as_secs_f64()))
}
