//! The S3 client every Rust worker of formatbench uses for `--storage s3`: object_store's
//! `AmazonS3` for a job's [`ObjectTarget`], talking HTTP (HTTPS through rustls) through hyper
//! and signing with pure-Rust SHA-256/HMAC ([`http`]). Credentials are the standard `AWS_*`
//! variables, which the runner sets for its own server. Retries are kept short, so a server
//! that died fails the sample in seconds, not minutes. [`Remote`] is a client with the runtime
//! its requests run on; [`store`] is what the runner does with a store of the user's own.

mod counted;
pub mod http;
pub mod ranges;
mod remote;
pub mod store;
#[cfg(feature = "object-store-013")]
pub mod v013;

use formatbench_protocol::ObjectTarget;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::RetryConfig;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

pub use counted::client_traffic;
pub use object_store;
pub use remote::Remote;
/// A store of the user's own (`--storage s3://…`): checked before a run, emptied after it.
pub use store::{check_store, download_object, remove_prefix, upload_artifact};

/// Retries kept short, so a server that died fails the sample in seconds, not minutes.
const MAX_RETRIES: usize = 2;
const RETRY_TIMEOUT: Duration = Duration::from_secs(10);

fn retries() -> RetryConfig {
    RetryConfig {
        max_retries: MAX_RETRIES,
        retry_timeout: RETRY_TIMEOUT,
        ..RetryConfig::default()
    }
}

/// A client for the target's endpoint and bucket; the error is one line for the user.
pub fn client(target: &ObjectTarget) -> Result<AmazonS3, String> {
    let tls = target.endpoint.starts_with("https://");
    if tls && !cfg!(feature = "tls") {
        return Err(format!(
            "{}: this worker was built without TLS (formatbench-s3-client's feature `tls`); \
             use an http:// endpoint",
            target.endpoint
        ));
    }
    let credentials = Credentials::from_env()?;
    let mut builder = AmazonS3Builder::new()
        .with_endpoint(&target.endpoint)
        .with_bucket_name(&target.bucket)
        .with_region(&target.region)
        .with_allow_http(true)
        .with_virtual_hosted_style_request(false)
        .with_retry(retries())
        .with_http_connector(http::Http { tls })
        .with_crypto_provider(Arc::new(http::PureRustCrypto))
        .with_access_key_id(credentials.key)
        .with_secret_access_key(credentials.secret);
    if let Some(token) = credentials.token {
        builder = builder.with_token(token);
    }
    builder
        .build()
        .map_err(|e| format!("cannot reach {}: {e}", target.endpoint))
}

/// The target as object_store's configuration keys (`aws_endpoint`, ...), for libraries that
/// build their own object_store S3 client from options (delta-arrow-reader).
pub fn storage_options(target: &ObjectTarget) -> Result<BTreeMap<String, String>, String> {
    let credentials = Credentials::from_env()?;
    let mut options = BTreeMap::from([
        ("aws_endpoint".to_string(), target.endpoint.clone()),
        ("aws_region".to_string(), target.region.clone()),
        ("aws_allow_http".to_string(), "true".to_string()),
        (
            "aws_virtual_hosted_style_request".to_string(),
            "false".to_string(),
        ),
        ("aws_access_key_id".to_string(), credentials.key),
        ("aws_secret_access_key".to_string(), credentials.secret),
    ]);
    if let Some(token) = credentials.token {
        options.insert("aws_session_token".into(), token);
    }
    Ok(options)
}

/// The standard `AWS_*` credentials, which the runner sets for its own server.
struct Credentials {
    key: String,
    secret: String,
    token: Option<String>,
}

impl Credentials {
    fn from_env() -> Result<Self, String> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
            (Some(key), Some(secret)) => Ok(Self {
                key,
                secret,
                token: env("AWS_SESSION_TOKEN"),
            }),
            _ => Err("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set".into()),
        }
    }
}
