//! Every backend formatbench knows, which worker runs it, and whether it can run here.

use formatbench_protocol::Op;
use std::path::PathBuf;

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
        }
    }

    /// Workers outside this binary (Python, R), named with a prefix.
    pub fn is_peer(self) -> bool {
        matches!(self, WorkerKind::Python | WorkerKind::R)
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

    /// The program and leading arguments that start this worker.
    pub fn command(self) -> Result<(PathBuf, Vec<String>), crate::Error> {
        match self {
            WorkerKind::Python => return crate::peers::python_command(),
            WorkerKind::R => return crate::peers::r_command(),
            WorkerKind::Arrow58 | WorkerKind::Arrow59 | WorkerKind::Arrow60 => {
                return super::heavy::program(self)
                    .map(|program| (program, Vec::new()))
                    .ok_or_else(|| {
                        crate::Error::Input(format!(
                            "the {} worker is not built (workers/rust/build)",
                            self.name()
                        ))
                    })
            }
            WorkerKind::Arrow | WorkerKind::Selftest => {}
        }
        let exe = std::env::current_exe()
            .map_err(|e| crate::Error::Io(format!("cannot locate the formatbench binary: {e}")))?;
        Ok((exe, vec![super::WORKER_ARG.into(), self.name().into()]))
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
    pub about: String,
    /// The library's version, for peers.
    pub version: Option<String>,
    /// Not part of "all" (self-test backends).
    pub hidden: bool,
    /// `Err(reason)` when it cannot run on this machine.
    pub available: Result<(), String>,
    /// Tables of files: how it is read and by whom it is written.
    pub table: TableTraits,
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

/// Every backend, the peers included (describing them starts Python and R once).
pub fn catalog() -> Vec<BackendInfo> {
    catalog_with(true)
}

/// Whether a backend name belongs to a peer (Python or R worker).
pub fn is_peer_name(name: &str) -> bool {
    name.starts_with("py-") || name.starts_with("r-")
}

/// The backends, with the peers only when `peers`: a plan of native backends never starts an
/// interpreter or writes the peers' worker files.
pub fn catalog_with(peers: bool) -> Vec<BackendInfo> {
    let native = formatbench_worker_arrow::BACKENDS
        .iter()
        .map(|b| BackendInfo {
            name: b.name().into(),
            worker: WorkerKind::Arrow,
            profiles: b.profiles().iter().map(|p| p.to_string()).collect(),
            ops: b.ops().to_vec(),
            layouts: b
                .layouts()
                .into_iter()
                .map(|(name, ops)| (name.to_string(), ops))
                .collect(),
            lossy: b.lossy(),
            about: b.about().into(),
            targets: vec!["arrow".into()],
            version: None,
            hidden: false,
            available: Ok(()),
            table: TableTraits::default(),
        });
    let selftest = formatbench_worker_selftest::BACKENDS
        .iter()
        .map(|name| BackendInfo {
            name: name.to_string(),
            worker: WorkerKind::Selftest,
            profiles: formatbench_worker_selftest::profiles(name)
                .iter()
                .map(|p| p.to_string())
                .collect(),
            ops: formatbench_protocol::ALL_OPS.to_vec(),
            layouts: vec![("wide".into(), formatbench_protocol::ALL_OPS.to_vec())],
            lossy: false,
            about: "self-test worker with known behaviour".into(),
            targets: vec!["arrow".into()],
            version: None,
            hidden: true,
            available: Ok(()),
            table: TableTraits::default(),
        });
    let peers = peers
        .then(|| [crate::peers::python_backends(), crate::peers::r_backends()])
        .into_iter()
        .flatten()
        .filter_map(|described| described.as_ref().ok())
        .flat_map(|backends| backends.iter().cloned());
    let heavy = super::heavy::heavy_backends().iter().cloned();
    native.chain(heavy).chain(selftest).chain(peers).collect()
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

pub fn find(name: &str) -> Option<BackendInfo> {
    catalog_with(is_peer_name(name))
        .into_iter()
        .find(|b| b.name == name)
}
