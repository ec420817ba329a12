//! The native backends: one file each, each implementing the kit's `Backend` with this
//! worker's error.

mod csv;
mod floor;
mod ipc;
mod ipc_parts;
mod npy;
mod parquet;

use crate::WorkerError;
use std::path::Path;

pub use formatbench_worker_kit::{
    column_indices, Backend, Change, Context, LabelRead, Loaded, Matrix, MatrixData, Request,
};

/// A backend of this worker: the kit's trait with this worker's error (it keeps Parquet's).
pub type NativeBackend = dyn Backend<Error = WorkerError>;

/// A staged commit of this worker's backends.
pub type Commit = formatbench_worker_kit::Commit<WorkerError>;

pub static BACKENDS: [&NativeBackend; 7] = [
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

pub fn find_backend(name: &str) -> Option<&'static NativeBackend> {
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

/// A single-file backend's declaration that it reads `format` files from any writer, from
/// where it keeps its own ([`data_file`]).
pub(crate) fn given_file(format: &str, extension: &str) -> Option<formatbench_protocol::GivenFile> {
    Some(formatbench_protocol::GivenFile::new(
        format,
        &format!("data.{extension}"),
    ))
}

/// The one file a single-file backend keeps in its artifact directory.
pub(crate) fn data_file(dir: &Path, extension: &str) -> std::path::PathBuf {
    dir.join(format!("data.{extension}"))
}
