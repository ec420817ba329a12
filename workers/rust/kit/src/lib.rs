//! The parts every out-of-tree Rust worker shares: reading the canonical IPC source, the array
//! layout, the matrix operations, the digest and the job skeleton. It compiles against the
//! worker's own Arrow major, chosen by exactly one feature (`arrow-58`, `arrow-59`, `arrow-60`), because
//! record batches of different majors are different types: data crosses between workers only as
//! Arrow IPC files.

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

mod backend;
pub mod delta;
mod execute;
pub mod float_matrix;
pub mod layout;
pub mod matrix;
mod names;
#[cfg(feature = "tokio")]
pub mod runtime;
pub mod scan;
pub mod source;

pub use backend::{Backend, Context, Request};
pub use execute::{describe, execute};

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
