//! Object storage for the native backends: one S3 client per worker process
//! (formatbench-s3-client's [`Remote`]), the uploads a write makes, whole-object downloads, and
//! ranged reads for formats that fetch only what they need. Credentials are the standard `AWS_*`
//! variables; the runner sets them for its own server. What the runner does with a store
//! (checks, artifact uploads, clean-ups) is the S3 client's (`formatbench_s3_client::store`).

use crate::WorkerError;
use bytes::Bytes;
use formatbench_protocol::ObjectTarget;
pub use formatbench_s3_client::Remote;
use formatbench_worker_kit::KitError;
use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The process's client: built by the first call (inside its timer, as a program opening the
/// store pays for it once), reused by later calls of a repeated sample.
static REMOTE: OnceLock<Result<Remote, String>> = OnceLock::new();

/// The process's client for `target`'s store.
pub fn client(target: &ObjectTarget) -> Result<&'static Remote, WorkerError> {
    let remote = REMOTE
        .get_or_init(|| Remote::connect(target))
        .as_ref()
        .map_err(|e| WorkerError::Invalid(e.clone()))?;
    if remote.target().endpoint != target.endpoint || remote.target().bucket != target.bucket {
        return Err(WorkerError::Invalid(
            "one worker process serves one object store".into(),
        ));
    }
    Ok(remote)
}

/// The whole object (one GET).
fn fetch(remote: &Remote, path: &ObjectPath) -> Result<Bytes, WorkerError> {
    remote
        .block_on(async {
            let got = remote.store.get(path).await?;
            got.bytes().await
        })
        .map_err(storage_error)
}

/// The bytes `[offset, offset + len)` of an object (one ranged GET).
fn fetch_range(
    remote: &Remote,
    path: &ObjectPath,
    offset: u64,
    len: u64,
) -> Result<Bytes, WorkerError> {
    remote
        .block_on(remote.store.get_range(path, offset..offset + len))
        .map_err(storage_error)
}

/// The artifact's objects, downloaded whole (one LIST, one GET each) into `into`, keeping
/// their paths below the artifact's key.
fn download(remote: &Remote, target: &ObjectTarget, into: &Path) -> Result<u64, WorkerError> {
    if !target.objects.is_empty() {
        // A user's file read in place: its one object, wherever it lies, under its name.
        let mut total = 0;
        for (relative, key) in &target.objects {
            let bytes = fetch(remote, &ObjectPath::from(key.as_str()))?;
            total += bytes.len() as u64;
            std::fs::write(into.join(relative), &bytes)?;
        }
        return Ok(total);
    }
    let prefix = ObjectPath::from(target.key.as_str());
    let listed: Vec<_> = remote
        .block_on(remote.store.list(Some(&prefix)).try_collect::<Vec<_>>())
        .map_err(storage_error)?;
    let mut total = 0;
    for object in listed {
        let relative = object
            .location
            .prefix_match(&prefix)
            .map(|parts| parts.map(|p| p.as_ref().to_string()).collect::<Vec<_>>())
            .unwrap_or_default();
        let local: PathBuf = relative.iter().fold(into.to_path_buf(), |p, c| p.join(c));
        if let Some(parent) = local.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let bytes = fetch(remote, &object.location)?;
        total += bytes.len() as u64;
        std::fs::write(&local, &bytes)?;
    }
    Ok(total)
}

fn storage_error(e: object_store::Error) -> WorkerError {
    WorkerError::Invalid(format!("object storage: {e}"))
}

/// What writes use to upload (the kit times it inside a measured write).
pub struct NativeUploader;

impl formatbench_worker_kit::Uploader for NativeUploader {
    fn upload(&self, dir: &Path, target: &ObjectTarget) -> Result<u64, KitError> {
        client(target)
            .map_err(|e| KitError::Library(e.to_string()))
            .and_then(|remote| remote.upload_dir(dir, target).map_err(KitError::Library))
    }
}

/// A scratch directory in memory (tmpfs where there is one) for formats read from a whole
/// download, removed when dropped.
pub struct Downloaded {
    pub dir: PathBuf,
}

impl Downloaded {
    /// The artifact of `target`, downloaded whole.
    pub fn artifact(target: &ObjectTarget) -> Result<Downloaded, WorkerError> {
        let base = ["/dev/shm", "/tmp"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_dir())
            .unwrap_or_else(std::env::temp_dir);
        let dir = base.join(format!(
            "formatbench-download-{}-{}",
            std::process::id(),
            DOWNLOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)?;
        let downloaded = Downloaded { dir };
        download(client(target)?, target, &downloaded.dir)?;
        Ok(downloaded)
    }
}

/// A read of the artifact downloaded whole (one LIST, a GET a file), by the backend's own
/// local `read` on the downloaded copy.
pub fn read_downloaded<T>(
    ctx: &formatbench_worker_kit::Context,
    target: &ObjectTarget,
    read: impl FnOnce(&formatbench_worker_kit::Context, &Path) -> Result<T, WorkerError>,
) -> Result<T, WorkerError> {
    let downloaded = Downloaded::artifact(target)?;
    let local = formatbench_worker_kit::Context {
        remote: None,
        ..*ctx
    };
    read(&local, &downloaded.dir)
}

static DOWNLOADS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Drop for Downloaded {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Ranged reads of one object, for the IPC reader (`ipc_parts::file::RangeSource`).
pub struct ObjectRanges {
    remote: &'static Remote,
    path: ObjectPath,
    len: u64,
}

impl ObjectRanges {
    /// One HEAD for the length.
    pub fn open(target: &ObjectTarget, relative: &str) -> Result<ObjectRanges, WorkerError> {
        let remote = client(target)?;
        let path = Remote::path(target, relative);
        let meta = remote
            .block_on(remote.store.head(&path))
            .map_err(storage_error)?;
        Ok(ObjectRanges {
            remote,
            path,
            len: meta.size,
        })
    }
}

impl ipc_parts::file::RangeSource for ObjectRanges {
    fn size(&self) -> u64 {
        self.len
    }
    fn read_range(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        fetch_range(self.remote, &self.path, offset, len as u64)
            .map(|b| b.to_vec())
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
    /// The ranges of a projection, fetched [`CONCURRENT_RANGES`] at a time.
    fn read_ranges(&self, ranges: &[(u64, usize)]) -> std::io::Result<Vec<Bytes>> {
        use futures::StreamExt;
        let (store, path) = (&self.remote.store, &self.path);
        let requests = ranges
            .iter()
            .map(|&(offset, len)| store.get_range(path, offset..offset + len as u64));
        self.remote
            .block_on(
                futures::stream::iter(requests)
                    .buffered(CONCURRENT_RANGES)
                    .try_collect(),
            )
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
}

/// Ranged GETs one projected read keeps in flight (object_store's own `get_ranges` runs 10).
const CONCURRENT_RANGES: usize = 8;

/// A table store's files as objects under a target's key (an ipc-parts table): the metadata
/// fetched whole, each partition read by ranges.
pub struct ObjectFiles {
    target: ObjectTarget,
}

impl ObjectFiles {
    pub fn new(target: &ObjectTarget) -> ObjectFiles {
        ObjectFiles {
            target: target.clone(),
        }
    }
}

impl ipc_parts::RemoteFiles for ObjectFiles {
    fn fetch(&self, name: &str) -> std::io::Result<Vec<u8>> {
        let remote = client(&self.target).map_err(|e| std::io::Error::other(e.to_string()))?;
        fetch(remote, &Remote::path(&self.target, name))
            .map(|b| b.to_vec())
            .map_err(|e| std::io::Error::other(e.to_string()))
    }

    fn open(&self, name: &str) -> std::io::Result<Box<dyn ipc_parts::file::RangeSource>> {
        ObjectRanges::open(&self.target, name)
            .map(|r| Box::new(r) as Box<dyn ipc_parts::file::RangeSource>)
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
}
