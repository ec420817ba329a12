//! The Python worker: its embedded program, the interpreter that runs it, and the backends it
//! describes.

use super::{materialize, peers_dir};
use crate::catalog::{BackendInfo, WorkerKind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The worker's files, relative to its directory.
pub const WORKER_FILES: &[(&str, &str)] = &[
    (
        "worker.py",
        include_str!("../../../../workers/python/worker.py"),
    ),
    (
        "formatbench_worker/__init__.py",
        include_str!("../../../../workers/python/formatbench_worker/__init__.py"),
    ),
    (
        "formatbench_worker/__main__.py",
        include_str!("../../../../workers/python/formatbench_worker/__main__.py"),
    ),
    (
        "formatbench_worker/job.py",
        include_str!("../../../../workers/python/formatbench_worker/job.py"),
    ),
    (
        "formatbench_worker/storage.py",
        include_str!("../../../../workers/python/formatbench_worker/storage.py"),
    ),
    (
        "formatbench_worker/measure.py",
        include_str!("../../../../workers/python/formatbench_worker/measure.py"),
    ),
    (
        "formatbench_worker/cluster.py",
        include_str!("../../../../workers/python/formatbench_worker/cluster.py"),
    ),
    (
        "formatbench_worker/partition_digest.py",
        include_str!("../../../../workers/python/formatbench_worker/partition_digest.py"),
    ),
    (
        "formatbench_worker/backends/clusters.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/clusters.py"),
    ),
    (
        "formatbench_worker/backends/dask_cluster.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/dask_cluster.py"),
    ),
    (
        "formatbench_worker/backends/spark.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/spark.py"),
    ),
    (
        "formatbench_worker/layouts.py",
        include_str!("../../../../workers/python/formatbench_worker/layouts.py"),
    ),
    (
        "formatbench_worker/tables.py",
        include_str!("../../../../workers/python/formatbench_worker/tables.py"),
    ),
    (
        "formatbench_worker/threads.py",
        include_str!("../../../../workers/python/formatbench_worker/threads.py"),
    ),
    (
        "formatbench_worker/backends/__init__.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/__init__.py"),
    ),
    (
        "formatbench_worker/backends/base.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/base.py"),
    ),
    (
        "formatbench_worker/backends/pyarrow_formats.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/pyarrow_formats.py"),
    ),
    (
        "formatbench_worker/backends/frames.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/frames.py"),
    ),
    (
        "formatbench_worker/backends/engines.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/engines.py"),
    ),
    (
        "formatbench_worker/backends/arrays.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/arrays.py"),
    ),
    (
        "formatbench_worker/backends/stores.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/stores.py"),
    ),
    (
        "formatbench_worker/backends/selftest.py",
        include_str!("../../../../workers/python/formatbench_worker/backends/selftest.py"),
    ),
];

/// The worker's files as an installable package, the SDK of outside workers (`formatbench
/// workers sdk DIR` writes it beside the package's files).
pub const SDK_PYPROJECT: &str = include_str!("../../../../workers/python/pyproject.toml");

/// The Python package an outside worker imports.
const SDK_PACKAGE: &str = "formatbench_worker/";

/// Writes the Python SDK into `dir` (new or empty): the worker package's files as this binary
/// embeds them, and its pyproject.toml; nothing else of the peers' program comes along.
pub fn write_python_sdk(dir: &Path) -> Result<(), crate::Error> {
    let bad = |e: std::io::Error| crate::Error::Input(format!("{}: {e}", dir.display()));
    if let Ok(mut entries) = std::fs::read_dir(dir) {
        if entries.next().is_some() {
            return Err(crate::Error::Input(format!(
                "{} is not empty: the SDK is written into a new or empty directory",
                dir.display()
            )));
        }
    }
    let package = WORKER_FILES
        .iter()
        .filter(|(path, _)| path.starts_with(SDK_PACKAGE));
    for (path, text) in package.chain([&("pyproject.toml", SDK_PYPROJECT)]) {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(bad)?;
        }
        std::fs::write(&target, text).map_err(bad)?;
    }
    Ok(())
}

/// The pinned requirements, installed by `formatbench peers install`.
pub const REQUIREMENTS: &str = include_str!("../../../../workers/python/requirements.txt");

/// The virtual environment `peers install` makes.
pub fn venv_dir() -> PathBuf {
    peers_dir().join("python")
}

/// The interpreter: `$FORMATBENCH_PYTHON`, else the peers environment's, else `python3` from
/// PATH (which can describe the backends and say they are not installed).
fn interpreter() -> PathBuf {
    if let Some(python) = std::env::var_os("FORMATBENCH_PYTHON") {
        return PathBuf::from(python);
    }
    let venv = venv_dir().join("bin").join("python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// The program and leading arguments that start the Python worker.
pub fn python_command() -> Result<(PathBuf, Vec<String>), crate::Error> {
    let dir = materialize("python", WORKER_FILES)?;
    Ok((
        interpreter(),
        vec![dir.join("worker.py").to_string_lossy().into_owned()],
    ))
}

/// The Python backends, or why there are none (no interpreter, a broken worker). Asked once per
/// process: describing costs an interpreter start.
pub fn python_backends() -> &'static Result<Vec<BackendInfo>, String> {
    static DESCRIBED: OnceLock<Result<Vec<BackendInfo>, String>> = OnceLock::new();
    DESCRIBED.get_or_init(|| {
        let (program, args) = python_command().map_err(|e| e.to_string())?;
        crate::catalog::describe_worker(
            &program,
            &args,
            WorkerKind::Python,
            "(run `formatbench peers install`)",
        )
    })
}
