//! Every backend formatbench knows, which worker runs it, and whether it can run here: the
//! built-in and self-test backends, the heavy workers (described by their programs) and the
//! types the peers describe theirs in. Below the runner, the plan and the peers, which all
//! name backends; `run::catalog` adds the peers' backends to these. `builtin` is the one module
//! that links the workers built into this binary.

pub mod builtin;
mod describe;
pub mod external;
mod heavy;

pub use builtin::{ARROW_VERSION, FLOOR};
pub use describe::{describe_worker, parse_described};
pub use heavy::{heavy_backends, program as heavy_program, HEAVY_BACKENDS};

use formatbench_protocol::Op;

/// Which worker program runs a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerKind {
    /// The native arrow-rs/parquet 60 worker, built into this binary.
    Arrow,
    /// Known-behaviour workers for tests and calibration, built into this binary.
    Selftest,
    /// The Python peers (workers/python), run by the peers environment's interpreter.
    Python,
    /// The R peers (workers/r), run by `Rscript`; they exchange tables as CSV.
    R,
    /// The native Arrow 58 worker (DuckDB, Lance), a program of its own (workers/rust/arrow58).
    Arrow58,
    /// The native Arrow 59 worker (Vortex), a program of its own (workers/rust/arrow59).
    Arrow59,
    /// The native Arrow 60 worker with heavy libraries (Zarr), a program of its own
    /// (workers/rust/arrow60).
    Arrow60,
    /// A worker outside this repository, registered by the manifest of this index
    /// (`--worker`, `catalog::external`).
    External(u16),
}

impl WorkerKind {
    pub fn name(self) -> &'static str {
        match self {
            WorkerKind::Arrow => "arrow",
            WorkerKind::Selftest => "selftest",
            WorkerKind::Python => "python",
            WorkerKind::R => "r",
            WorkerKind::Arrow58 => "arrow58",
            WorkerKind::Arrow59 => "arrow59",
            WorkerKind::Arrow60 => "arrow60",
            WorkerKind::External(_) => "external",
        }
    }

    /// Workers outside this binary (Python, R, a manifest's), named with a prefix.
    pub fn is_peer(self) -> bool {
        matches!(
            self,
            WorkerKind::Python | WorkerKind::R | WorkerKind::External(_)
        )
    }

    /// The native workers on other Arrow majors (separate programs).
    pub fn is_heavy(self) -> bool {
        matches!(
            self,
            WorkerKind::Arrow58 | WorkerKind::Arrow59 | WorkerKind::Arrow60
        )
    }

    /// Workers without Arrow: they get the source as CSV and return their results as CSV.
    pub fn exchanges_text(self) -> bool {
        self == WorkerKind::R
    }
}

#[derive(Debug, Clone)]
pub struct BackendInfo {
    pub name: String,
    pub worker: WorkerKind,
    pub profiles: Vec<String>,
    /// Operations the backend does natively on the wide layout.
    pub ops: Vec<Op>,
    /// Every layout it stores (`wide` first), with the operations it does natively on each.
    pub layouts: Vec<(String, Vec<Op>)>,
    /// The in-memory objects it reads into and writes from (arrow, pandas, polars); the first
    /// is its own and the default.
    pub targets: Vec<String>,
    /// Round trips may change floats (text formats): verification allows a tolerance.
    pub lossy: bool,
    /// Its format or reader keeps integers, or float32, at other widths than the source's (R
    /// has only 32-bit integers and doubles; text formats have no widths): verification
    /// accepts another width where every value is equal, and records it.
    pub other_widths: bool,
    pub about: String,
    /// The library's version, for peers.
    pub version: Option<String>,
    /// Not part of "all" (self-test backends).
    pub hidden: bool,
    /// `Err(reason)` when it cannot run on this machine.
    pub available: Result<(), String>,
    /// `Err(reason)` when it has no route to artifacts in object storage: its cells there are
    /// unsupported, and no artifact is written for them.
    pub object_storage: Result<(), String>,
    /// Tables of files: how it is read and by whom it is written.
    pub table: TableTraits,
    /// The format whose files from any writer it reads as they are (an `as-given` competitor
    /// for a user's file of that format), and where in its artifact directory.
    pub given: Option<formatbench_protocol::GivenFile>,
    /// The format of the files it writes and reads (`parquet`, `csv`, `delta`, …;
    /// docs/protocol.md lists the names), recorded in each run's environment: the Scale-out
    /// tables compare each cluster with the fastest single process of its format. `None` for
    /// one that declares none (the memory floor, the self-tests, a manifest without it).
    pub format: Option<String>,
    /// It reads the sweep's shared Parquet files (every `*.parquet` in its artifact directory,
    /// in name order, from the native writer), beside the native `parquet` backend.
    pub file_sets: bool,
    /// A cluster peer: it runs on a cluster of `executors` processes it starts for each sample,
    /// one competitor per executor count (`run --executors`).
    pub executors: bool,
}

/// What a backend of tables of files (Delta) declares; all empty for the others.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
pub struct TableTraits {
    /// The backend whose artifact it reads, when it writes none of its own.
    #[serde(default)]
    pub artifact_from: Option<String>,
    /// Its reads keep no row order: results are compared as sets of rows.
    #[serde(default)]
    pub unordered: bool,
    /// Profiles whose tables have rows deleted after writing (a [`FileSplit`] with deletions).
    ///
    /// [`FileSplit`]: formatbench_protocol::FileSplit
    #[serde(default)]
    pub deletion_profiles: Vec<String>,
}

impl TableTraits {
    /// Whether its artifact is a table of files the job's `FileSplit` lays out.
    pub fn is_table_of_files(&self) -> bool {
        self.artifact_from.is_some() || !self.deletion_profiles.is_empty()
    }
}

/// The backend whose writer writes the row-group sweep's files (plan/sweep.rs), which every
/// backend with `file_sets` reads too: the native Parquet writer.
pub const SWEEP_WRITER: &str = "parquet";

/// A backend's format: the one it names, else that of the files it reads as given.
fn declared_format(
    format: Option<String>,
    given: Option<&formatbench_protocol::GivenFile>,
) -> Option<String> {
    format.or_else(|| given.map(|g| g.format.clone()))
}

/// Whether a backend name belongs to a peer (Python or R worker).
pub fn is_peer_name(name: &str) -> bool {
    name.starts_with("py-") || name.starts_with("r-")
}

/// The native backends: built in, heavy (each heavy worker asked once per process) and the
/// hidden self-test ones. None of them starts an interpreter.
pub fn native_backends() -> Vec<BackendInfo> {
    let mut native = builtin::arrow_backends();
    native.extend(heavy::heavy_backends().iter().cloned());
    native.extend(builtin::selftest_backends());
    native
}

impl BackendInfo {
    /// The operations it does natively on `layout`; none for a layout it does not store.
    pub fn ops_on(&self, layout: &str) -> &[Op] {
        self.layouts
            .iter()
            .find(|(name, _)| name == layout)
            .map_or(&[], |(_, ops)| ops.as_slice())
    }
}
