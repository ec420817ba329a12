//! formatbench's native backends on arrow-rs/parquet 60.
//!
//! Every backend writes the canonical source table to its format and reads it back with each
//! operation it supports natively; `execute` times only the operation and reports the result's
//! digest (and, when asked, the result itself as Arrow IPC for verification).

pub mod backends;
pub mod digest;
mod execute;
pub mod layout;
mod parallel;
pub mod rows;
pub mod source;
mod store_ops;

pub use backends::{find_backend, Backend, Loaded, Matrix, MatrixData, Request, BACKENDS};
pub use execute::execute;

impl From<formatbench_worker_kit::KitError> for WorkerError {
    fn from(e: formatbench_worker_kit::KitError) -> Self {
        use formatbench_worker_kit::KitError;
        match e {
            KitError::Arrow(e) => WorkerError::Arrow(e),
            KitError::Io(e) => WorkerError::Io(e),
            KitError::Unsupported(reason) => WorkerError::Unsupported(reason),
            KitError::Library(reason) | KitError::Invalid(reason) => WorkerError::Invalid(reason),
        }
    }
}

/// Errors of a native backend. Messages carry the library's reason, never a panic.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("{0}")]
    Arrow(#[from] arrow::error::ArrowError),
    #[error("{0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The backend cannot do this natively or cannot store this data.
    #[error("{0}")]
    Unsupported(String),
    /// The input or request is malformed.
    #[error("{0}")]
    Invalid(String),
}

/// The worker's self-description: its backends, profiles, operations and library versions.
pub fn describe() -> serde_json::Value {
    let backends: Vec<serde_json::Value> = BACKENDS
        .iter()
        .map(|b| {
            serde_json::json!({
                "name": b.name(),
                "profiles": b.profiles(),
                "ops": b.ops().iter().map(|op| op.name()).collect::<Vec<_>>(),
                "layouts": b.layouts().iter().map(|(name, ops)| {
                    (name.to_string(), serde_json::json!(ops.iter().map(|op| op.name()).collect::<Vec<_>>()))
                }).collect::<serde_json::Map<String, serde_json::Value>>(),
                "lossy": b.lossy(),
                "about": b.about(),
            })
        })
        .collect();
    serde_json::json!({
        "worker": "arrow",
        "versions": { "arrow": ARROW_VERSION, "parquet": ARROW_VERSION },
        "backends": backends,
    })
}

/// arrow and parquet are released together with one version number.
pub const ARROW_VERSION: &str = "60.1.0";

pub fn main_with_args(args: &[String]) -> i32 {
    formatbench_protocol::describe_or_run(args, describe, execute)
}
