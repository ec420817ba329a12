//! object_store's S3 client, given an HTTP client and a crypto provider of this worker's own:
//! hyper over plain HTTP (the loopback server and S3-compatible stores on `http://`) or, for an
//! `https://` endpoint, over rustls with ring (feature `tls`, on by default), and SigV4's
//! SHA-256 and HMAC from the pure-Rust sha2/hmac crates. object_store's own stack (reqwest,
//! rustls on aws-lc) would add a C build of minutes to the default build.

use async_trait::async_trait;
use http_body_util::BodyExt;
use hyper_util::client::legacy::connect::{Connect, HttpConnector as HyperConnector};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use object_store::client::{
    ClientOptions, CryptoProvider, DigestAlgorithm, DigestContext, HmacContext, HttpClient,
    HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpRequestBody, HttpResponse,
    HttpResponseBody, HttpService, Signer, SigningAlgorithm,
};
use sha2::Digest;

/// Connects object_store to hyper: plain HTTP, or TLS when the endpoint is `https://`.
#[derive(Debug, Default)]
pub struct Http {
    /// Set for an `https://` endpoint: the system's root certificates are loaded only then,
    /// so a plain-HTTP client (every loopback sample) pays nothing for them.
    pub tls: bool,
}

impl HttpConnector for Http {
    fn connect(&self, _options: &ClientOptions) -> object_store::Result<HttpClient> {
        let executor = TokioExecutor::new();
        #[cfg(feature = "tls")]
        if self.tls {
            let client = Client::builder(executor).build(tls::connector()?);
            return Ok(HttpClient::new(Hyper(client)));
        }
        let client = Client::builder(executor).build(HyperConnector::new());
        Ok(HttpClient::new(Hyper(client)))
    }
}

/// HTTPS through rustls on ring, trusting the system's root certificates (`SSL_CERT_FILE` and
/// `SSL_CERT_DIR` name others, as for OpenSSL).
#[cfg(feature = "tls")]
mod tls {
    use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
    use hyper_util::client::legacy::connect::HttpConnector;
    use std::sync::Arc;

    pub(super) fn connector() -> object_store::Result<HttpsConnector<HttpConnector>> {
        let mut roots = rustls::RootCertStore::empty();
        // Certificates that do not parse are skipped; with none at all, the handshake fails
        // with the server's certificate named as untrusted.
        roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| object_store::Error::Generic {
                store: "S3",
                source: Box::new(e),
            })?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(HttpsConnectorBuilder::new()
            .with_tls_config(config)
            .https_or_http()
            .enable_http1()
            .build())
    }
}

#[derive(Debug)]
struct Hyper<C>(Client<C, HttpRequestBody>);

#[async_trait]
impl<C> HttpService for Hyper<C>
where
    C: Connect + Clone + Send + Sync + std::fmt::Debug + 'static,
{
    async fn call(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        crate::counted::request(
            request.method(),
            request.uri(),
            request.headers().contains_key(::http::header::RANGE),
            request.body().content_length() as u64,
        );
        let response = self.0.request(request).await.map_err(|e| {
            let kind = if e.is_connect() {
                HttpErrorKind::Connect
            } else {
                HttpErrorKind::Request
            };
            // hyper's own message is "client error (Connect)"; the cause (a refused
            // certificate, a closed port) is in its sources.
            HttpError::new(kind, std::io::Error::other(with_causes(&e)))
        })?;
        let (parts, body) = response.into_parts();
        crate::counted::response(parts.status.as_u16() >= 400);
        let body = body
            .map_frame(|frame| {
                if let Some(data) = frame.data_ref() {
                    crate::counted::body_bytes(data.len() as u64);
                }
                frame
            })
            .map_err(|e| HttpError::new(HttpErrorKind::Interrupted, e));
        Ok(HttpResponse::from_parts(parts, HttpResponseBody::new(body)))
    }
}

/// An error's message followed by those of its sources.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// SHA-256 digests and HMACs for SigV4; no RSA (GCP's service accounts), which S3 never asks.
#[derive(Debug, Default)]
pub struct PureRustCrypto;

struct Sha256Digest {
    hasher: sha2::Sha256,
    out: Vec<u8>,
}

impl DigestContext for Sha256Digest {
    fn update(&mut self, data: &[u8]) {
        self.hasher.update(data);
    }
    fn finish(&mut self) -> object_store::Result<&[u8]> {
        self.out = self.hasher.finalize_reset().to_vec();
        Ok(&self.out)
    }
}

struct Sha256Hmac {
    mac: hmac::Hmac<sha2::Sha256>,
    out: Vec<u8>,
}

impl HmacContext for Sha256Hmac {
    fn update(&mut self, data: &[u8]) {
        hmac::Mac::update(&mut self.mac, data);
    }
    fn finish(&mut self) -> object_store::Result<&[u8]> {
        self.out = hmac::Mac::finalize(self.mac.clone()).into_bytes().to_vec();
        Ok(&self.out)
    }
}

fn not_supported(what: &str) -> object_store::Error {
    object_store::Error::NotSupported {
        source: what.to_string().into(),
    }
}

impl CryptoProvider for PureRustCrypto {
    fn digest(&self, algorithm: DigestAlgorithm) -> object_store::Result<Box<dyn DigestContext>> {
        match algorithm {
            DigestAlgorithm::Sha256 => Ok(Box::new(Sha256Digest {
                hasher: sha2::Sha256::new(),
                out: Vec::new(),
            })),
            _ => Err(not_supported("digests other than SHA-256")),
        }
    }

    fn hmac(
        &self,
        algorithm: DigestAlgorithm,
        secret: &[u8],
    ) -> object_store::Result<Box<dyn HmacContext>> {
        match algorithm {
            DigestAlgorithm::Sha256 => {
                let mac = <hmac::Hmac<sha2::Sha256> as hmac::KeyInit>::new_from_slice(secret)
                    .map_err(|_| not_supported("an HMAC key of this length"))?;
                Ok(Box::new(Sha256Hmac {
                    mac,
                    out: Vec::new(),
                }))
            }
            _ => Err(not_supported("HMACs other than SHA-256")),
        }
    }

    fn sign(
        &self,
        _algorithm: SigningAlgorithm,
        _pem: &[u8],
    ) -> object_store::Result<Box<dyn Signer>> {
        Err(not_supported("RSA signatures (S3 signs with HMAC only)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hmac_matches_rfc_4231_case_2() {
        let crypto = PureRustCrypto;
        let mut mac = crypto
            .hmac(DigestAlgorithm::Sha256, b"Jefe")
            .unwrap_or_else(|e| unreachable!("{e}"));
        mac.update(b"what do ya want for nothing?");
        let hex: String = mac
            .finish()
            .unwrap_or_default()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
