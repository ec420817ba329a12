//! formatbench's native backends on arrow-rs/parquet 60: csv, parquet, ipc, ipc-mmap, npy,
//! ipc-parts and the memory-copy floor.
//!
//! Each backend is one file implementing the worker kit's `Backend` (formatbench-worker-kit,
//! the same trait every heavy worker's backends implement); the kit runs the job: it times
//! only the operation and reports the result's digest (and, when asked, the result itself as
//! Arrow IPC for verification).

pub mod backends;
mod parallel;
mod remote;
pub mod rows;

pub use backends::{find_backend, Backend, Loaded, Matrix, MatrixData, Request, BACKENDS};
/// The source, the digest and the layouts are the kit's: the runner uses them too.
pub use formatbench_worker_kit::{digest, layout, source, KitError};

impl From<KitError> for WorkerError {
    fn from(e: KitError) -> Self {
        match e {
            KitError::Arrow(e) => WorkerError::Arrow(e),
            KitError::Io(e) => WorkerError::Io(e),
            KitError::Unsupported(reason) => WorkerError::Unsupported(reason),
            KitError::Library(reason) | KitError::Invalid(reason) => WorkerError::Invalid(reason),
        }
    }
}

impl formatbench_worker_kit::BackendError for WorkerError {
    fn unsupported(&self) -> Option<&str> {
        match self {
            WorkerError::Unsupported(reason) => Some(reason),
            _ => None,
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

impl WorkerError {
    /// The answer a job that failed this way gives: unsupported is its own status, anything
    /// else a failure with its message.
    pub fn into_answer(self) -> formatbench_protocol::Answer {
        match self {
            WorkerError::Unsupported(reason) => formatbench_protocol::Answer::unsupported(reason),
            e => formatbench_protocol::Answer::failed(e.to_string()),
        }
    }
}

/// arrow and parquet are released together with one version number.
pub const ARROW_VERSION: &str = "60.1.0";

/// Runs one job on the native backends.
pub fn execute(job: &formatbench_protocol::Job) -> formatbench_protocol::Answer {
    let mut answer =
        formatbench_worker_kit::execute_with(job, &BACKENDS, Some(&remote::NativeUploader));
    if job.storage.is_some() {
        // This process's S3 client did all of the sample's requests: what a store of the
        // user's own, which counts nothing for formatbench, is reported with.
        answer.client_traffic = Some(formatbench_s3_client::client_traffic());
    }
    answer
}

/// The worker's self-description: its backends, profiles, operations and library versions.
pub fn describe() -> serde_json::Value {
    let mut described = formatbench_worker_kit::describe("arrow", &BACKENDS);
    described["versions"] = serde_json::json!({ "arrow": ARROW_VERSION, "parquet": ARROW_VERSION });
    described
}

pub fn main_with_args(args: &[String]) -> i32 {
    formatbench_protocol::describe_or_run(args, describe, execute)
}
