//! The S3 client every Rust worker of formatbench uses for `--storage s3`: object_store's
//! `AmazonS3` for a job's [`ObjectTarget`], talking plain HTTP through hyper and signing with
//! pure-Rust SHA-256/HMAC ([`http`]). Credentials are the standard `AWS_*` variables, which the
//! runner sets for its own server. Retries are kept short, so a server that died fails the
//! sample in seconds, not minutes.

pub mod http;

use formatbench_protocol::ObjectTarget;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::RetryConfig;
use std::sync::Arc;
use std::time::Duration;

pub use object_store;

fn retries() -> RetryConfig {
    RetryConfig {
        max_retries: 2,
        retry_timeout: Duration::from_secs(10),
        ..RetryConfig::default()
    }
}

/// A client for the target's endpoint and bucket; the error is one line for the user.
pub fn client(target: &ObjectTarget) -> Result<AmazonS3, String> {
    if target.endpoint.starts_with("https://") {
        return Err(format!(
            "{}: formatbench's Rust workers speak plain HTTP to object stores (no TLS stack); \
             use an http:// endpoint",
            target.endpoint
        ));
    }
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let mut builder = AmazonS3Builder::new()
        .with_endpoint(&target.endpoint)
        .with_bucket_name(&target.bucket)
        .with_region(&target.region)
        .with_allow_http(true)
        .with_virtual_hosted_style_request(false)
        .with_retry(retries())
        .with_http_connector(http::PlainHttp)
        .with_crypto_provider(Arc::new(http::PureRustCrypto));
    match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        (Some(key), Some(secret)) => {
            builder = builder
                .with_access_key_id(key)
                .with_secret_access_key(secret);
        }
        _ => return Err("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set".into()),
    }
    if let Some(token) = env("AWS_SESSION_TOKEN") {
        builder = builder.with_token(token);
    }
    builder
        .build()
        .map_err(|e| format!("cannot reach {}: {e}", target.endpoint))
}
