//! The worker kit: what every Rust worker is made of, the built-in one (formatbench-worker-arrow)
//! and each heavy one. A worker is its backends (each implements [`Backend`]) and a `main` that
//! calls [`worker_main`]; the kit reads the canonical IPC source, puts it in the job's layout,
//! runs the untimed preparation, the timed operation (reads, label reads, changes, matrix
//! operations) and the untimed result output the runner checks. It compiles against the
//! worker's own Arrow major, chosen by exactly one feature (`arrow-58`, `arrow-59`, `arrow-60`),
//! because record batches of different majors are different types: data crosses between
//! workers only as Arrow IPC files. docs/adding-a-backend.md shows a backend written on it.

#[cfg(feature = "arrow-58")]
pub extern crate arrow58 as arrow;
#[cfg(all(feature = "arrow-59", not(feature = "arrow-58")))]
pub extern crate arrow59 as arrow;
#[cfg(all(
    feature = "arrow-60",
    not(any(feature = "arrow-58", feature = "arrow-59"))
))]
pub extern crate arrow60 as arrow;
#[cfg(not(any(feature = "arrow-58", feature = "arrow-59", feature = "arrow-60")))]
compile_error!("choose the worker's Arrow major: feature arrow-58, arrow-59 or arrow-60");

pub mod allocator;
mod backend;
pub mod delta;
pub mod digest;
mod execute;
pub mod float_matrix;
pub mod layout;
pub mod matrix;
mod names;
#[cfg(feature = "tokio")]
pub mod runtime;
pub mod scan;
pub mod source;
mod worker;

pub use backend::{
    column_indices, ranges_unsupported, unsupported, Backend, BackendError, Change, Commit,
    Context, LabelRead, Loaded, Matrix, MatrixData, Request, Uploader, NO_PROFILE_SETTINGS,
    TABLE_FORMAT_OPS,
};
pub use execute::{dir_size, execute, execute_with, matrix_to_batch, Backends};
/// The operations, as a backend declares them: a worker outside formatbench's repository needs
/// no dependency of its own on the protocol crate.
pub use formatbench_protocol::Op;
pub use worker::{describe, worker_main};

/// Errors of a backend; messages carry the library's reason, never a panic.
#[derive(Debug, thiserror::Error)]
pub enum KitError {
    #[error("{0}")]
    Arrow(#[from] arrow::error::ArrowError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The backend's library failed.
    #[error("{0}")]
    Library(String),
    /// The backend cannot do this natively, or cannot store this data.
    #[error("{0}")]
    Unsupported(String),
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
}
