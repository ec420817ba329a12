//! Object storage for the native backends: one S3 client per worker process (object_store,
//! through formatbench-s3-client), the uploads a write makes, whole-object downloads, and ranged
//! reads for formats that fetch only what they need. Credentials are the standard `AWS_*`
//! variables; the runner sets them for its own server.

use crate::WorkerError;
use bytes::Bytes;
use formatbench_protocol::ObjectTarget;
use formatbench_worker_kit::KitError;
use futures::TryStreamExt;
use object_store::aws::AmazonS3;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// A client for one endpoint and bucket, with the runtime its requests run on.
pub struct Remote {
    pub store: Arc<AmazonS3>,
    runtime: tokio::runtime::Runtime,
    target: ObjectTarget,
}

/// The process's client: built by the first call (inside its timer, as a program opening the
/// store pays for it once), reused by later calls of a repeated sample.
static REMOTE: OnceLock<Result<Remote, String>> = OnceLock::new();

fn build(target: &ObjectTarget) -> Result<Remote, String> {
    let store = formatbench_s3_client::client(target)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the I/O runtime: {e}"))?;
    Ok(Remote {
        store: Arc::new(store),
        runtime,
        target: target.clone(),
    })
}

impl Remote {
    /// The process's client for `target`'s store.
    pub fn get(target: &ObjectTarget) -> Result<&'static Remote, WorkerError> {
        let remote = REMOTE
            .get_or_init(|| build(target))
            .as_ref()
            .map_err(|e| WorkerError::Invalid(e.clone()))?;
        if remote.target.endpoint != target.endpoint || remote.target.bucket != target.bucket {
            return Err(WorkerError::Invalid(
                "one worker process serves one object store".into(),
            ));
        }
        Ok(remote)
    }

    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// The object path of the artifact's file `relative`.
    pub fn path(target: &ObjectTarget, relative: &str) -> ObjectPath {
        ObjectPath::from(target.key_of(relative))
    }

    /// The whole object (one GET).
    pub fn fetch(&self, path: &ObjectPath) -> Result<Bytes, WorkerError> {
        self.block_on(async {
            let got = self.store.get(path).await?;
            got.bytes().await
        })
        .map_err(storage_error)
    }

    /// The bytes `[offset, offset + len)` of an object (one ranged GET).
    pub fn fetch_range(
        &self,
        path: &ObjectPath,
        offset: u64,
        len: u64,
    ) -> Result<Bytes, WorkerError> {
        self.block_on(self.store.get_range(path, offset..offset + len))
            .map_err(storage_error)
    }

    /// The artifact's objects, downloaded whole (one LIST, one GET each) into `into`, keeping
    /// their paths below the artifact's key.
    pub fn download(&self, target: &ObjectTarget, into: &Path) -> Result<u64, WorkerError> {
        if !target.objects.is_empty() {
            // A user's file read in place: its one object, wherever it lies, under its name.
            let mut total = 0;
            for (relative, key) in &target.objects {
                let bytes = self.fetch(&ObjectPath::from(key.as_str()))?;
                total += bytes.len() as u64;
                std::fs::write(into.join(relative), &bytes)?;
            }
            return Ok(total);
        }
        let prefix = ObjectPath::from(target.key.as_str());
        let listed: Vec<_> = self
            .block_on(self.store.list(Some(&prefix)).try_collect::<Vec<_>>())
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
            let bytes = self.fetch(&object.location)?;
            total += bytes.len() as u64;
            std::fs::write(&local, &bytes)?;
        }
        Ok(total)
    }

    /// Uploads every file under `dir` to `target`: a PUT each, multipart above 8 MiB
    /// (object_store's `WriteMultipart`, 5 MiB parts).
    pub fn upload_dir(&self, dir: &Path, target: &ObjectTarget) -> Result<u64, WorkerError> {
        let mut total = 0;
        for file in formatbench_protocol::files_under(dir) {
            let relative = file
                .strip_prefix(dir)
                .map_err(|_| WorkerError::Invalid(format!("{} is outside", file.display())))?
                .to_string_lossy()
                .replace('\\', "/");
            let bytes = Bytes::from(std::fs::read(&file)?);
            total += bytes.len() as u64;
            let path = Self::path(target, &relative);
            self.block_on(async {
                if bytes.len() <= MULTIPART_ABOVE {
                    self.store.put(&path, bytes.into()).await.map(|_| ())
                } else {
                    let upload = self.store.put_multipart(&path).await?;
                    let mut writer = object_store::WriteMultipart::new(upload);
                    writer.write(&bytes);
                    writer.finish().await.map(|_| ())
                }
            })
            .map_err(storage_error)?;
        }
        Ok(total)
    }
}

/// A store of the user's own, checked before any work: the credentials are accepted and the
/// bucket exists (one LIST under `target.key`). The error is one line for the user.
pub fn check_store(target: &ObjectTarget) -> Result<(), String> {
    let remote = build(target)?;
    let prefix = ObjectPath::from(target.key.as_str());
    remote
        .block_on(remote.store.list_with_delimiter(Some(&prefix)))
        .map(|_| ())
        .map_err(|e| format!("{} {}", target.endpoint, why_unlisted(&e, &target.bucket)))
}

/// Why a store's LIST failed, in words for the user: a missing bucket, refused credentials,
/// or the client's own error (a refused certificate, a connection that failed).
fn why_unlisted(e: &object_store::Error, bucket: &str) -> String {
    let text = e.to_string();
    if text.contains("NoSuchBucket") || matches!(e, object_store::Error::NotFound { .. }) {
        format!("has no bucket '{}'", bucket)
    } else if matches!(
            e,
            object_store::Error::PermissionDenied { .. }
                | object_store::Error::Unauthenticated { .. }
        ) || text.contains("InvalidAccessKeyId")
            || text.contains("SignatureDoesNotMatch")
            || text.contains("AccessDenied")
            // The status as the client words it; a bare "403" also matches an endpoint's
            // port (127.0.0.1:40321), which made a refused certificate read as refused
            // credentials.
            || text.contains("403 Forbidden")
            || text.contains("401 Unauthorized")
    {
        "rejected the credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)".to_string()
    } else {
        format!("cannot be listed: {}", one_line(&text))
    }
}

/// Uploads a prepared artifact (every file under `dir`) to `target`, untimed: the runner does
/// this once per artifact, whatever wrote it, so readers whose writer has no upload route of
/// its own (a Delta table written by delta-kernel) read it from the bucket too. Returns the
/// bytes uploaded.
pub fn upload_artifact(dir: &Path, target: &ObjectTarget) -> Result<u64, String> {
    let remote = build(target)?;
    remote
        .upload_dir(dir, target)
        .map_err(|e| format!("cannot upload {} to {}: {e}", dir.display(), target.url()))
}

/// Streams the object `target.key` (a user's `--input s3://…`) into the local file `dest`,
/// in the chunks the client receives: the runner's untimed copy, from which the canonical
/// source is built. Its size.
pub fn download_object(target: &ObjectTarget, dest: &Path) -> Result<u64, String> {
    use std::io::Write;
    let remote = build(target)?;
    let path = ObjectPath::from(target.key.as_str());
    let failed = |e: &dyn std::fmt::Display| format!("cannot read {}: {e}", target.url());
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(dest)
            .map_err(|e| format!("cannot create {}: {e}", dest.display()))?,
    );
    remote.block_on(async {
        let mut stream = remote
            .store
            .get(&path)
            .await
            .map_err(|e| failed(&e))?
            .into_stream();
        let mut total = 0u64;
        while let Some(chunk) = stream.try_next().await.map_err(|e| failed(&e))? {
            file.write_all(&chunk)
                .map_err(|e| format!("cannot write {}: {e}", dest.display()))?;
            total += chunk.len() as u64;
        }
        file.flush()
            .map_err(|e| format!("cannot write {}: {e}", dest.display()))?;
        Ok(total)
    })
}

/// Removes every object under `target.key` (a write sample's output, or a whole run's);
/// returns how many went.
pub fn remove_prefix(target: &ObjectTarget) -> Result<u64, String> {
    let remote = build(target)?;
    let prefix = ObjectPath::from(target.key.as_str());
    remote
        .block_on(async {
            let listed: Vec<_> = remote
                .store
                .list(Some(&prefix))
                .try_collect::<Vec<_>>()
                .await?;
            for object in &listed {
                remote.store.delete(&object.location).await?;
            }
            Ok::<_, object_store::Error>(listed.len() as u64)
        })
        .map_err(|e| {
            format!(
                "cannot remove {}: {}",
                target.url(),
                one_line(&e.to_string())
            )
        })
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Files up to this size are one PUT; larger ones go up in parts.
const MULTIPART_ABOVE: usize = 8 << 20;

fn storage_error(e: object_store::Error) -> WorkerError {
    WorkerError::Invalid(format!("object storage: {e}"))
}

/// What writes use to upload (the kit times it inside a measured write).
pub struct NativeUploader;

impl formatbench_worker_kit::Uploader for NativeUploader {
    fn upload(&self, dir: &Path, target: &ObjectTarget) -> Result<u64, KitError> {
        Remote::get(target)
            .and_then(|remote| remote.upload_dir(dir, target))
            .map_err(|e| KitError::Library(e.to_string()))
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
        Remote::get(target)?.download(target, &downloaded.dir)?;
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
        let remote = Remote::get(target)?;
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
        self.remote
            .fetch_range(&self.path, offset, len as u64)
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
        let remote = Remote::get(&self.target).map_err(|e| std::io::Error::other(e.to_string()))?;
        remote
            .fetch(&Remote::path(&self.target, name))
            .map(|b| b.to_vec())
            .map_err(|e| std::io::Error::other(e.to_string()))
    }

    fn open(&self, name: &str) -> std::io::Result<Box<dyn ipc_parts::file::RangeSource>> {
        ObjectRanges::open(&self.target, name)
            .map(|r| Box::new(r) as Box<dyn ipc_parts::file::RangeSource>)
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::why_unlisted;

    fn generic(text: &str) -> object_store::Error {
        object_store::Error::Generic {
            store: "S3",
            source: text.to_string().into(),
        }
    }

    #[test]
    fn a_refused_certificate_at_a_port_holding_403_is_not_refused_credentials() {
        let tls = generic(
            "Error performing list request: error sending request for url \
             (https://127.0.0.1:40321/data?list-type=2): invalid peer certificate: UnknownIssuer",
        );
        let why = why_unlisted(&tls, "data");
        assert!(why.starts_with("cannot be listed:"), "{why}");
        assert!(why.contains("certificate"), "{why}");
    }

    #[test]
    fn a_forbidden_list_is_refused_credentials_and_a_missing_bucket_is_named() {
        let forbidden = generic(
            "Error performing list request: Server returned non-2xx status code: \
             403 Forbidden: <Error><Code>SignatureDoesNotMatch</Code></Error>",
        );
        assert!(why_unlisted(&forbidden, "data").starts_with("rejected the credentials"));
        let missing = generic("Server returned non-2xx status code: 404 Not Found: NoSuchBucket");
        assert_eq!(why_unlisted(&missing, "data"), "has no bucket 'data'");
    }
}
