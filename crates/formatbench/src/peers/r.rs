//! The R worker: its embedded program, the `Rscript` that runs it, and the backends it
//! describes. R peers exchange tables as CSV (see `exchange`), since R has no Arrow here.

use super::materialize;
use crate::catalog::{BackendInfo, WorkerKind};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The worker's files, relative to its directory.
pub const WORKER_FILES: &[(&str, &str)] = &[
    ("worker.R", include_str!("../../../../workers/r/worker.R")),
    (
        "formatbench/protocol.R",
        include_str!("../../../../workers/r/formatbench/protocol.R"),
    ),
    (
        "formatbench/measure.R",
        include_str!("../../../../workers/r/formatbench/measure.R"),
    ),
    (
        "formatbench/exchange.R",
        include_str!("../../../../workers/r/formatbench/exchange.R"),
    ),
    (
        "formatbench/backends.R",
        include_str!("../../../../workers/r/formatbench/backends.R"),
    ),
    (
        "formatbench/job.R",
        include_str!("../../../../workers/r/formatbench/job.R"),
    ),
];

/// The Debian packages the R peers use; `.ci/run` installs them.
pub const DEBIAN_PACKAGES: &str =
    "r-base-core r-cran-data.table r-cran-bit64 r-cran-vroom r-cran-jsonlite r-cran-yaml";

/// `$FORMATBENCH_RSCRIPT`, else `Rscript` from PATH.
fn rscript() -> PathBuf {
    std::env::var_os("FORMATBENCH_RSCRIPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("Rscript"))
}

/// The program and leading arguments that start the R worker.
pub fn r_command() -> Result<(PathBuf, Vec<String>), crate::Error> {
    let dir = materialize("r", WORKER_FILES)?;
    Ok((
        rscript(),
        vec![
            "--vanilla".into(),
            dir.join("worker.R").to_string_lossy().into_owned(),
        ],
    ))
}

/// The R backends, or why there are none (no R, no jsonlite). Asked once per process.
pub fn r_backends() -> &'static Result<Vec<BackendInfo>, String> {
    static DESCRIBED: OnceLock<Result<Vec<BackendInfo>, String>> = OnceLock::new();
    DESCRIBED.get_or_init(|| {
        let (program, args) = r_command().map_err(|e| e.to_string())?;
        let hint = format!("(apt-get install {DEBIAN_PACKAGES})");
        crate::catalog::describe_worker(&program, &args, WorkerKind::R, &hint)
    })
}
