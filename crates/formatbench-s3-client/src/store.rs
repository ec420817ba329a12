//! A store of the user's own (`--storage s3://…`, `--input s3://…`) as the runner uses it,
//! outside any measurement: checked before a run, filled with prepared artifacts, read for a
//! user's input, emptied after. Each call connects a client of its own ([`Remote::connect`]).

use crate::Remote;
use formatbench_protocol::ObjectTarget;
use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
use std::path::Path;

/// A store of the user's own, checked before any work: the credentials are accepted and the
/// bucket exists (one LIST under `target.key`). The error is one line for the user.
pub fn check_store(target: &ObjectTarget) -> Result<(), String> {
    let remote = Remote::connect(target)?;
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
    let remote = Remote::connect(target)?;
    remote
        .upload_dir(dir, target)
        .map_err(|e| format!("cannot upload {} to {}: {e}", dir.display(), target.url()))
}

/// Streams the object `target.key` (a user's `--input s3://…`) into the local file `dest`,
/// in the chunks the client receives: the runner's untimed copy, from which the canonical
/// source is built. Its size.
pub fn download_object(target: &ObjectTarget, dest: &Path) -> Result<u64, String> {
    use std::io::Write;
    let remote = Remote::connect(target)?;
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
    let remote = Remote::connect(target)?;
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
