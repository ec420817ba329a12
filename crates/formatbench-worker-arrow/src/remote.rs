//! Object storage for the native backends: one S3 client per worker process
//! (formatbench-s3-client's [`Remote`]), the uploads a write makes, whole-object downloads, and
//! ranged reads for formats that fetch only what they need. Credentials are the standard `AWS_*`
//! variables; the runner sets them for its own server. What the runner does with a store
//! (checks, artifact uploads, clean-ups) is the S3 client's (`formatbench_s3_client::store`).

use crate::WorkerError;
use bytes::Bytes;
use formatbench_protocol::ObjectTarget;
use formatbench_s3_client::ranges::{get_ranges, Coalesce};
pub use formatbench_s3_client::Remote;
use formatbench_worker_kit::KitError;
use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};
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

/// Ranged reads of one object, for the IPC reader (`ipc_parts::file::RangeSource`), planned by
/// the target's network ([`Coalesce`]).
pub struct ObjectRanges {
    remote: &'static Remote,
    path: ObjectPath,
    len: u64,
    rule: Coalesce,
    /// The object's last bytes, fetched at open: the trailer an IPC reader reads first.
    tail: Bytes,
}

/// The IPC trailer: the footer's length and the magic.
const TAIL_BYTES: u64 = 10;

impl ObjectRanges {
    /// One suffix GET: the trailer, and with it the object's length (no HEAD).
    pub fn open(target: &ObjectTarget, relative: &str) -> Result<ObjectRanges, WorkerError> {
        let remote = client(target)?;
        let path = Remote::path(target, relative);
        let options = GetOptions {
            range: Some(GetRange::Suffix(TAIL_BYTES)),
            ..Default::default()
        };
        let (len, tail) = remote
            .block_on(async {
                let got = remote.store.get_opts(&path, options).await?;
                let len = got.meta.size;
                Ok::<_, object_store::Error>((len, got.bytes().await?))
            })
            .map_err(storage_error)?;
        Ok(ObjectRanges {
            remote,
            path,
            len,
            rule: Coalesce::for_target(target),
            tail,
        })
    }

    /// The bytes `[offset, offset + len)` when they lie in the tail fetched at open.
    fn cached_tail(&self, offset: u64, len: usize) -> Option<Bytes> {
        let tail_start = self.len.checked_sub(self.tail.len() as u64)?;
        let start = usize::try_from(offset.checked_sub(tail_start)?).ok()?;
        (start + len <= self.tail.len()).then(|| self.tail.slice(start..start + len))
    }
}

impl ipc_parts::file::RangeSource for ObjectRanges {
    fn size(&self) -> u64 {
        self.len
    }
    fn read_range(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        if let Some(cached) = self.cached_tail(offset, len) {
            return Ok(cached.to_vec());
        }
        fetch_range(self.remote, &self.path, offset, len as u64)
            .map(|b| b.to_vec())
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
    /// The ranges, merged where the gap costs less than a round trip, fetched
    /// [`formatbench_s3_client::ranges::CONCURRENT_RANGES`] at a time.
    fn read_ranges(&self, ranges: &[(u64, usize)]) -> std::io::Result<Vec<Bytes>> {
        let wanted: Vec<std::ops::Range<u64>> = ranges
            .iter()
            .map(|&(offset, len)| offset..offset + len as u64)
            .collect();
        self.remote
            .block_on(get_ranges(
                self.remote.store.as_ref(),
                &self.path,
                &wanted,
                self.rule,
            ))
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
}

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
