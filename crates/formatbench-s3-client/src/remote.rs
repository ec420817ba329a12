//! A client for one endpoint and bucket with the runtime its requests run on: what a worker
//! keeps for its process, and what the runner builds for each of its own requests
//! ([`crate::store`]).

use formatbench_protocol::ObjectTarget;
use object_store::aws::AmazonS3;
use object_store::path::Path as ObjectPath;
use object_store::ObjectStoreExt;
use std::path::Path;
use std::sync::Arc;

/// A client for one endpoint and bucket, with the runtime its requests run on.
pub struct Remote {
    pub store: Arc<AmazonS3>,
    runtime: tokio::runtime::Runtime,
    target: ObjectTarget,
}

/// Files up to this size are one PUT; larger ones go up in parts.
const MULTIPART_ABOVE: usize = 8 << 20;

impl Remote {
    /// A client for `target`'s store on a runtime of its own (two I/O threads); the error is
    /// one line for the user.
    pub fn connect(target: &ObjectTarget) -> Result<Remote, String> {
        let store = crate::client(target)?;
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

    /// The target it was connected for (its endpoint and bucket are the client's).
    pub fn target(&self) -> &ObjectTarget {
        &self.target
    }

    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// The object path of the artifact's file `relative`.
    pub fn path(target: &ObjectTarget, relative: &str) -> ObjectPath {
        ObjectPath::from(target.key_of(relative))
    }

    /// Uploads every file under `dir` to `target`: a PUT each, multipart above 8 MiB
    /// (object_store's `WriteMultipart`, 5 MiB parts). The bytes uploaded, or why not.
    pub fn upload_dir(&self, dir: &Path, target: &ObjectTarget) -> Result<u64, String> {
        let mut total = 0;
        for file in formatbench_protocol::files_under(dir) {
            let relative = file
                .strip_prefix(dir)
                .map_err(|_| format!("{} is outside", file.display()))?
                .to_string_lossy()
                .replace('\\', "/");
            let bytes = std::fs::read(&file).map_err(|e| e.to_string())?;
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
            .map_err(|e| format!("object storage: {e}"))?;
        }
        Ok(total)
    }
}
