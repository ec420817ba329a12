//! One tokio runtime per worker process, sized by the job's thread cap (a worker runs one job).

use crate::KitError;
use std::sync::OnceLock;

/// The process's multi-threaded runtime with `threads` workers (the first call sizes it). The
/// blocking pool keeps tokio's default size: those threads wait on I/O, and libraries that
/// block inside blocking tasks (delta-rs reading deletion vectors) deadlock when it is capped.
pub fn runtime(threads: usize) -> Result<&'static tokio::runtime::Runtime, KitError> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(threads.max(1))
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| KitError::Library(format!("cannot start a tokio runtime: {e}")))
}
