//! The same client for libraries still on object_store 0.13 (vortex 0.90, deltalake 1.1,
//! delta-arrow-reader 0.9): 0.13 has no pluggable crypto, so requests go through its own
//! reqwest/rustls stack, which those libraries build already. With TLS at hand, `https://`
//! endpoints work here too.

use crate::{Credentials, MAX_RETRIES, RETRY_TIMEOUT};
use formatbench_protocol::ObjectTarget;
use object_store_013::aws::{AmazonS3, AmazonS3Builder};
use object_store_013::client::SpawnedReqwestConnector;
use object_store_013::RetryConfig;
use tokio::runtime::Handle;

pub use object_store_013 as object_store;

/// A client for the target's endpoint and bucket; the error is one line for the user.
pub fn client(target: &ObjectTarget) -> Result<AmazonS3, String> {
    build(target, None)
}

/// The same, its requests run on `io`: for libraries whose own executor is not tokio (vortex),
/// as reqwest needs tokio's reactor.
pub fn client_spawned(target: &ObjectTarget, io: Handle) -> Result<AmazonS3, String> {
    build(target, Some(io))
}

fn build(target: &ObjectTarget, io: Option<Handle>) -> Result<AmazonS3, String> {
    let credentials = Credentials::from_env()?;
    let mut builder = AmazonS3Builder::new()
        .with_endpoint(&target.endpoint)
        .with_bucket_name(&target.bucket)
        .with_region(&target.region)
        .with_allow_http(true)
        .with_virtual_hosted_style_request(false)
        .with_retry(RetryConfig {
            max_retries: MAX_RETRIES,
            retry_timeout: RETRY_TIMEOUT,
            ..RetryConfig::default()
        })
        .with_access_key_id(credentials.key)
        .with_secret_access_key(credentials.secret);
    if let Some(io) = io {
        builder = builder.with_http_connector(SpawnedReqwestConnector::new(io));
    }
    if let Some(token) = credentials.token {
        builder = builder.with_token(token);
    }
    builder
        .build()
        .map_err(|e| format!("cannot reach {}: {e}", target.endpoint))
}
