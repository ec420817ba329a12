//! What a backend is: the one trait every backend implements (the built-in ones and every heavy
//! worker's), the settings it runs under, what a read asks of it and what it returns. The job
//! runner (`execute`) and the matrix plan are written against these.

use crate::layout::{ArrayForm, ARRAY, WIDE};
use crate::KitError;
use arrow::array::{Int64Array, RecordBatch};
use arrow::datatypes::{Schema, SchemaRef};
use formatbench_protocol::{FileSplit, ObjectTarget, Op, RangeSpec, MATRIX_OPS};
use std::collections::BTreeMap;
use std::path::Path;

/// The error a backend returns: the kit's own, or a worker's when its libraries have typed
/// errors (the built-in worker keeps Parquet's). The runner needs to build one from its own
/// errors and to tell "cannot do this" from "failed".
pub trait BackendError:
    From<KitError> + From<arrow::error::ArrowError> + From<std::io::Error> + std::fmt::Display
{
    /// The reason, when the error says the backend cannot do this (an `unsupported` cell)
    /// rather than that it failed.
    fn unsupported(&self) -> Option<&str>;
}

impl BackendError for KitError {
    fn unsupported(&self) -> Option<&str> {
        match self {
            KitError::Unsupported(reason) => Some(reason),
            _ => None,
        }
    }
}

/// What a read-type operation asks of the backend.
#[derive(Debug, Clone, Copy)]
pub enum Request<'a> {
    All,
    /// These columns, in stored order.
    Columns(&'a [String]),
    /// Rows in a range of positions or index values.
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

impl From<Vec<RecordBatch>> for Loaded {
    fn from(batches: Vec<RecordBatch>) -> Self {
        Loaded::Table(batches)
    }
}

/// No profile settings: a built-in backend's, or a context made outside a job.
pub static NO_PROFILE_SETTINGS: BTreeMap<String, String> = BTreeMap::new();

/// The settings a backend runs under for one job.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    pub profile: &'a str,
    /// The settings an outside worker's manifest gives `profile` (docs/protocol.md §9); empty
    /// for every built-in backend.
    pub profile_settings: &'a BTreeMap<String, String>,
    pub layout: &'a str,
    /// The stored table's schema (the array layout's when that is the layout): what the data
    /// is, for formats that do not store it (CSV, .npy).
    pub schema: &'a SchemaRef,
    pub threads: usize,
    /// The dataset's index column, for stores that address rows by label.
    pub index: Option<&'a str>,
    /// Tables of files: how a write splits the table, and whether it then deletes rows.
    pub split: Option<FileSplit>,
    /// Where the artifact lives when it is in object storage: a backend whose
    /// [`Backend::object_storage`] route exists reads it from there, never from `dir`.
    pub remote: Option<&'a ObjectTarget>,
    /// A write of the row-group sweep: at most this many rows per row group, for formats that
    /// have them (Parquet); `None` keeps the writer's own.
    pub row_group_rows: Option<usize>,
}

impl<'a> Context<'a> {
    /// A local artifact's settings with nothing else set (no outside profile settings, index,
    /// split, remote target or row-group size): what a backend's own tests and a worker's
    /// calls of its own backend start from.
    pub fn local(
        profile: &'a str,
        layout: &'a str,
        schema: &'a SchemaRef,
        threads: usize,
    ) -> Context<'a> {
        Context {
            profile,
            profile_settings: &NO_PROFILE_SETTINGS,
            layout,
            schema,
            threads,
            index: None,
            split: None,
            remote: None,
            row_group_rows: None,
        }
    }
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

/// How a worker puts a written directory into object storage: the kit uploads what a measured
/// write wrote, inside the timer, through the worker's own client (a prepared artifact is
/// uploaded by the runner, untimed).
pub trait Uploader: Sync {
    /// Uploads every file under `dir` to `target` (file `dir/a` → object `target.key/a`);
    /// returns the bytes uploaded.
    fn upload(&self, dir: &Path, target: &ObjectTarget) -> Result<u64, KitError>;
}

/// The durable half of a write or change that stages its files first (a store's syncs and
/// metadata rename): run after the operation's timer, and timed as the `commit` phase.
pub type Commit<E> = Box<dyn FnOnce(bool) -> Result<(), E>>;

/// The operations of the array layout for a backend whose array form is a table field.
fn array_ops() -> Vec<Op> {
    let mut ops = vec![Op::Write, Op::Read, Op::Scan];
    ops.extend(MATRIX_OPS);
    ops
}

pub trait Backend: Sync {
    type Error: BackendError;

    fn name(&self) -> &'static str;
    /// One line for `formatbench backends`.
    fn about(&self) -> &'static str;
    fn profiles(&self) -> &'static [&'static str];
    /// The library's version, for the results' environment.
    fn version(&self) -> String;
    /// The operations this backend does natively on the wide layout; the runner marks the
    /// rest `unsupported`.
    fn ops(&self) -> &'static [Op];
    /// How the format holds the array layout's field; `None` when it has only the wide layout.
    fn array_form(&self) -> Option<ArrayForm> {
        None
    }
    /// The layouts it stores, and the operations it does natively on each (`wide` first): a
    /// backend that projects and takes does the matrix operations on the wide layout through
    /// them, and every array form does them on the array layout.
    fn layouts(&self) -> Vec<(&'static str, Vec<Op>)> {
        let mut wide = self.ops().to_vec();
        if wide.contains(&Op::Project) && wide.contains(&Op::Take) {
            wide.extend(MATRIX_OPS);
        }
        let mut out = vec![(WIDE, wide)];
        match self.array_form() {
            Some(ArrayForm::Bare) => out.push((
                ARRAY,
                vec![
                    Op::Write,
                    Op::Matrix,
                    Op::RandomRows,
                    Op::FeatureProject,
                    Op::VectorNorm,
                ],
            )),
            Some(_) => out.push((ARRAY, array_ops())),
            None => {}
        }
        // A reader of another backend's files (ipc-mmap, the Delta readers) writes only to
        // prepare them.
        if !self.ops().contains(&Op::Write) {
            for (_, ops) in &mut out {
                ops.retain(|op| *op != Op::Write);
            }
        }
        out
    }
    /// `Ok` when its reads take [`Context::remote`] (an S3 route); `Err(reason)` otherwise, and
    /// its cells on object storage are `unsupported` with that reason.
    fn object_storage(&self) -> Result<(), String> {
        Err(format!(
            "{} has no object-storage route in formatbench yet",
            self.name()
        ))
    }
    /// The format whose files from any writer its reads take as they are, and the file name
    /// in the artifact directory it reads them from; `None` when it reads only what its own
    /// writer wrote. A backend that declares one gets an `as-given` competitor for a user's
    /// file of that format.
    fn given_file(&self) -> Option<formatbench_protocol::GivenFile> {
        None
    }
    /// The format of the files it writes and reads (`parquet`, `delta`, `lance`, …;
    /// docs/protocol.md lists the names), recorded for every run: a report compares a cluster
    /// with the fastest single process of the same format. By default the format of
    /// [`Backend::given_file`]; `None` for a backend that stores no format (the memory floor).
    fn format(&self) -> Option<String> {
        self.given_file().map(|given| given.format)
    }
    /// `Err(reason)` when it cannot run here (e.g. a library missing at run time).
    fn available(&self) -> Result<(), String> {
        Ok(())
    }
    /// True when a round trip may change float values (text formats); verification then allows a
    /// relative tolerance.
    fn lossy(&self) -> bool {
        false
    }
    /// True when its format keeps integers at another width or sign than the source's (Delta
    /// has no unsigned integers): verification then accepts another integer type where every
    /// value is equal, and records it, for it and for every reader of its artifacts.
    fn other_widths(&self) -> bool {
        false
    }
    /// `Err(reason)` when the format cannot store a column of this schema.
    fn can_store(&self, _schema: &Schema) -> Result<(), String> {
        Ok(())
    }
    /// Whether its reads keep no row order: results are then sorted by the job's `order_by`
    /// column after the timer, before the result is written for the runner.
    fn unordered(&self) -> bool {
        false
    }
    /// The backend whose artifact it reads, when it writes none of its own (a Delta reader
    /// reads the tables delta-kernel writes).
    fn artifact_from(&self) -> Option<&'static str> {
        None
    }
    /// Whether its writes keep transparent huge pages, which the kit otherwise turns off for
    /// writes (`execute::write` says why): for a writer whose buffers grow and shrink by copying,
    /// where 4 KiB pages cost more than huge ones. Its results say so (`transparent_huge_pages`).
    fn writes_on_huge_pages(&self) -> bool {
        false
    }
    /// The profiles whose tables have rows deleted after writing ([`FileSplit`]).
    fn deletion_profiles(&self) -> &'static [&'static str] {
        &[]
    }
    /// Writes the batches into `dir` (created by the caller); returns when every file is closed.
    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), Self::Error>;
    /// Writes like `write`, leaving the commit (called with `true` to sync) for after the timer.
    fn write_staged(
        &self,
        ctx: &Context,
        batches: &[RecordBatch],
        dir: &Path,
    ) -> Result<Option<Commit<Self::Error>>, Self::Error> {
        self.write(ctx, batches, dir).map(|()| None)
    }
    /// Performs a read-type request on what `write` left in `dir`. Returns the in-memory result
    /// and a short description of how it was done (e.g. "full parse + take").
    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), Self::Error>;
    /// `first_row`: the first row the reader yields that is not deleted, and how.
    fn first_row(
        &self,
        _ctx: &Context,
        _dir: &Path,
    ) -> Result<(Loaded, &'static str), Self::Error> {
        Err(unsupported(format!(
            "{} has no first-row read",
            self.name()
        )))
    }
    /// `session`: opens the table once, then runs the projection `queries` times, each
    /// planned and executed, timing the parts as the phases `init`, `plan` and `execute`
    /// (`formatbench_protocol::phases`); returns the last query's result, and how.
    fn session(
        &self,
        _ctx: &Context,
        _dir: &Path,
        _columns: &[String],
        _queries: u64,
    ) -> Result<(Loaded, &'static str), Self::Error> {
        Err(unsupported(format!("{} has no session", self.name())))
    }
    /// Reads rows by index label (`range_before`, `range_after`, `range_between`, `labels`).
    fn read_labels(
        &self,
        _ctx: &Context,
        _dir: &Path,
        _read: LabelRead,
    ) -> Result<(Loaded, &'static str), Self::Error> {
        Err(unsupported(format!(
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
    ) -> Result<Option<Commit<Self::Error>>, Self::Error> {
        Err(unsupported(format!(
            "{} does not change stored tables",
            self.name()
        )))
    }
    /// Effective settings read back from the written files (untimed), for the fairness manifest.
    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String>;
}

/// The wide-layout operations of a table format that writes, reads, scans, projects and takes
/// rows (the matrix operations follow from them, see [`Backend::layouts`]).
pub const TABLE_FORMAT_OPS: [Op; 5] = [Op::Write, Op::Read, Op::Scan, Op::Project, Op::Take];

/// The error of a backend asked for a range it has no way to read.
pub fn ranges_unsupported(backend: &str) -> KitError {
    KitError::Unsupported(format!("{backend} reads no row ranges natively"))
}

/// An `unsupported` error in a backend's own error type.
pub fn unsupported<E: From<KitError>>(reason: String) -> E {
    E::from(KitError::Unsupported(reason))
}

/// Column positions of `names` in `schema`, in stored order; an unknown name is an error.
pub fn column_indices(schema: &Schema, names: &[String]) -> Result<Vec<usize>, KitError> {
    let positions = crate::names::positions_by_name(schema);
    let mut indices = names
        .iter()
        .map(|n| {
            positions
                .get(n.as_str())
                .copied()
                .ok_or_else(|| KitError::Invalid(format!("no column named '{n}'")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    indices.sort_unstable();
    Ok(indices)
}
