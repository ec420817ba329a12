//! The whole catalog, the peers' backends added to the native ones, and the program that
//! starts each worker: the runner's view of `crate::catalog`.

use crate::catalog::{is_peer_name, native_backends, BackendInfo, WorkerKind};
use crate::Error;
use std::path::PathBuf;

/// Every backend, the peers included (describing them starts Python and R once).
pub fn catalog() -> Vec<BackendInfo> {
    catalog_with(true)
}

/// The backends, with the peers only when `peers`: a plan of native backends never starts an
/// interpreter or writes the peers' worker files.
pub fn catalog_with(peers: bool) -> Vec<BackendInfo> {
    let peers = peers
        .then(|| [crate::peers::python_backends(), crate::peers::r_backends()])
        .into_iter()
        .flatten()
        .filter_map(|described| described.as_ref().ok())
        .flat_map(|backends| backends.iter().cloned());
    let mut backends: Vec<BackendInfo> = native_backends()
        .into_iter()
        .chain(peers)
        .chain(crate::catalog::external::external_backends())
        .collect();
    inherit_writers_widths(&mut backends);
    backends
}

/// A reader of another backend's artifacts reads what that format stored: where the writer
/// keeps integers at other widths (Delta's signed `long` for a uint64), so do its readers.
fn inherit_writers_widths(backends: &mut [BackendInfo]) {
    let widening: Vec<String> = backends
        .iter()
        .filter(|b| b.other_widths)
        .map(|b| b.name.clone())
        .collect();
    for reader in backends.iter_mut() {
        if reader
            .table
            .artifact_from
            .as_ref()
            .is_some_and(|writer| widening.contains(writer))
        {
            reader.other_widths = true;
        }
    }
}

/// The backend named `name`, asking the peers only for a peer's name.
pub fn find(name: &str) -> Option<BackendInfo> {
    catalog_with(is_peer_name(name))
        .into_iter()
        .find(|b| b.name == name)
}

/// The program and leading arguments that start `worker`.
pub fn worker_command(worker: WorkerKind) -> Result<(PathBuf, Vec<String>), Error> {
    match worker {
        WorkerKind::Python => return crate::peers::python_command(),
        WorkerKind::R => return crate::peers::r_command(),
        WorkerKind::Arrow58 | WorkerKind::Arrow59 | WorkerKind::Arrow60 => {
            return crate::catalog::heavy_program(worker)
                .map(|program| (program, Vec::new()))
                .ok_or_else(|| {
                    Error::Input(format!(
                        "the {} worker is not built (workers/rust/build)",
                        worker.name()
                    ))
                })
        }
        WorkerKind::External(index) => {
            return crate::catalog::external::command(index)
                .ok_or_else(|| Error::Input(format!("no worker manifest {index} is registered")))
        }
        WorkerKind::Arrow | WorkerKind::Selftest => {}
    }
    let exe =
        std::env::current_exe().map_err(Error::failed("cannot locate the formatbench binary"))?;
    Ok((exe, vec![super::WORKER_ARG.into(), worker.name().into()]))
}
