//! The store read back from object storage: zarrs_object_store's async store over
//! formatbench's S3 client (object_store 0.14), under the artifact's `data.zarr` prefix, made
//! synchronous for the backend's rayon reads by blocking on the worker's tokio runtime.

use super::store::{Store, ROOT};
use formatbench_protocol::ObjectTarget;
use formatbench_s3_client::object_store::prefix::PrefixStore;
use formatbench_worker_kit::runtime::runtime;
use formatbench_worker_kit::KitError;
use std::future::Future;
use std::sync::Arc;
use zarrs::storage::storage_adapter::async_to_sync::{
    AsyncToSyncBlockOn, AsyncToSyncStorageAdapter,
};
use zarrs_object_store::AsyncObjectStore;

/// Blocks a rayon thread (never a runtime thread) on the runtime's handle.
struct TokioBlockOn(tokio::runtime::Handle);

impl AsyncToSyncBlockOn for TokioBlockOn {
    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

pub(super) fn open_remote(target: &ObjectTarget, threads: usize) -> Result<Arc<Store>, KitError> {
    let client = formatbench_s3_client::client(target).map_err(KitError::Invalid)?;
    let objects = PrefixStore::new(client, target.key_of(ROOT));
    let handle = runtime(threads)?.handle().clone();
    Ok(Arc::new(AsyncToSyncStorageAdapter::new(
        Arc::new(AsyncObjectStore::new(objects)),
        TokioBlockOn(handle),
    )))
}
