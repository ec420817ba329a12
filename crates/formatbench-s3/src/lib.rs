//! formatbench's S3 server: a real S3 API (s3s-fs, objects as files under `--root`) on one address,
//! with the counters formatbench reads per sample. The runner starts and stops it (docs/
//! protocol.md §7a) as `formatbench __s3-server …`, or as this crate's own `formatbench-s3`.
//!
//! ```text
//! formatbench __s3-server --root DIR --listen HOST:PORT --ready FILE [--rtt-ms MS]
//!                         [--tls-cert PEM --tls-key PEM]
//! ```
//! With a certificate and key it serves HTTPS (rustls on ring), as a bucket of one's own behind
//! TLS would.
//! Credentials come from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`. Once it listens, it
//! writes its address to `--ready`. `GET /__formatbench/traffic` returns the current window's
//! [`formatbench_protocol::ObjectTraffic`] as JSON; `POST` returns it and starts a new window;
//! `GET …?split=SECONDS` (Unix time) returns a [`formatbench_protocol::SplitTraffic`]: the
//! counts up to then (a worker's first call), after it, and all.

mod arrival;
mod body;
mod delay;
mod keys;
mod listing;
mod pool;
mod served;
mod stats;
mod tls;

use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnBuilder;
use s3s::auth::SimpleAuth;
use s3s::service::{S3Service, S3ServiceBuilder};
use stats::{classify, Counted, Stats};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// Removes a prefix's objects on the server's disk (`keys::remove_under`).
pub use keys::remove_under;

const TRAFFIC_PATH: &str = "/__formatbench/traffic";

struct Options {
    root: PathBuf,
    listen: String,
    ready: PathBuf,
    rtt_ms: f64,
    access_key: String,
    secret_key: String,
    /// Fault injection for the runner's tests: exit (status 3) on the request after this many,
    /// once per `--root` (a restarted server serves on).
    exit_after: Option<u64>,
    /// `--tls-cert` and `--tls-key`: serve HTTPS with this certificate chain and key.
    tls: Option<(PathBuf, PathBuf)>,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut args = args.iter().cloned();
    let (mut root, mut listen, mut ready, mut rtt_ms) = (None, None, None, 0.0);
    let (mut tls_cert, mut tls_key) = (None, None);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--root" => root = Some(PathBuf::from(value()?)),
            "--listen" => listen = Some(value()?),
            "--ready" => ready = Some(PathBuf::from(value()?)),
            "--rtt-ms" => {
                let text = value()?;
                rtt_ms = text
                    .parse()
                    .map_err(|_| format!("--rtt-ms: '{text}' is not a number"))?;
            }
            "--tls-cert" => tls_cert = Some(PathBuf::from(value()?)),
            "--tls-key" => tls_key = Some(PathBuf::from(value()?)),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    let tls = match (tls_cert, tls_key) {
        (Some(cert), Some(key)) => Some((cert, key)),
        (None, None) => None,
        _ => return Err("--tls-cert and --tls-key go together".into()),
    };
    let env = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
    Ok(Options {
        root: root.ok_or("--root is required")?,
        listen: listen.ok_or("--listen is required")?,
        ready: ready.ok_or("--ready is required")?,
        rtt_ms,
        access_key: env("AWS_ACCESS_KEY_ID")?,
        secret_key: env("AWS_SECRET_ACCESS_KEY")?,
        exit_after: std::env::var("FORMATBENCH_S3_EXIT_AFTER")
            .ok()
            .and_then(|v| v.parse().ok()),
        tls,
    })
}

/// Runs the server until it is killed; returns the exit status when it cannot start (after
/// one line on stderr).
pub fn main_with_args(args: &[String]) -> i32 {
    let outcome = options(args).and_then(|options| {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the runtime: {e}"))?
            .block_on(serve(options))
    });
    match outcome {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("formatbench-s3: {message}");
            2
        }
    }
}

async fn serve(options: Options) -> Result<(), String> {
    let fs = s3s_fs::FileSystem::new(&options.root)
        .map_err(|e| format!("cannot serve {}: {e:?}", options.root.display()))?;
    let mut builder = S3ServiceBuilder::new(served::Served::new(fs, options.root.clone()));
    builder.set_auth(SimpleAuth::from_single(
        options.access_key.clone(),
        options.secret_key.clone(),
    ));
    let s3 = builder.build();
    let acceptor = match &options.tls {
        Some((cert, key)) => Some(tls::acceptor(cert, key)?),
        None => None,
    };
    let public = TcpListener::bind(&options.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let address = public
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    // With a round-trip time, the API listens on loopback behind the delay line.
    let api = if options.rtt_ms > 0.0 {
        let inner = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("cannot listen on loopback: {e}"))?;
        let inner_address = inner
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        let rtt = Duration::from_secs_f64(options.rtt_ms / 1_000.0);
        public
            .into_std()
            .and_then(|public| delay::start(public, inner_address, rtt))
            .map_err(|e| format!("cannot start the delay line: {e}"))?;
        inner
    } else {
        public
    };
    std::fs::write(&options.ready, address.to_string())
        .map_err(|e| format!("cannot write {}: {e}", options.ready.display()))?;
    let stats = Stats::default();
    let served = Arc::new(AtomicU64::new(0));
    let fault_fired = options.root.with_extension("fault-fired");
    let exit_after = options.exit_after.filter(|_| !fault_fired.exists());
    let http = ConnBuilder::new(TokioExecutor::new());
    loop {
        let Ok((socket, _)) = api.accept().await else {
            continue;
        };
        let _ = socket.set_nodelay(true);
        let (s3, stats, served) = (s3.clone(), stats.clone(), served.clone());
        let fault_fired = fault_fired.clone();
        let service = service_fn(move |request: hyper::Request<Incoming>| {
            let (s3, stats) = (s3.clone(), stats.clone());
            if exit_after.is_some_and(|n| served.fetch_add(1, Ordering::SeqCst) >= n) {
                let _ = std::fs::write(&fault_fired, "");
                eprintln!("formatbench-s3: exiting as FORMATBENCH_S3_EXIT_AFTER asks");
                std::process::exit(3);
            }
            handle(request, s3, stats)
        });
        let http = http.clone();
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            // A handshake that fails (a client that does not trust the certificate) ends
            // that connection only.
            let _ = match acceptor {
                Some(acceptor) => match acceptor.accept(socket).await {
                    Ok(stream) => http.serve_connection(TokioIo::new(stream), service).await,
                    Err(_) => return,
                },
                None => http.serve_connection(TokioIo::new(socket), service).await,
            };
        });
    }
}

type Reply = hyper::Response<Counted<s3s::Body>>;

async fn handle(
    request: hyper::Request<Incoming>,
    s3: S3Service,
    stats: Stats,
) -> Result<Reply, s3s::HttpError> {
    let received = Instant::now();
    if request.uri().path() == TRAFFIC_PATH {
        let reset = request.method() == hyper::Method::POST;
        let split = request
            .uri()
            .query()
            .and_then(|q| q.split('&').find_map(|pair| pair.strip_prefix("split=")))
            .and_then(|at| at.parse::<f64>().ok());
        let body = match split {
            Some(at) => serde_json::to_vec(&stats.split(at)),
            None => serde_json::to_vec(&stats.snapshot(reset)),
        }
        .unwrap_or_default();
        let reply = hyper::Response::new(Counted::response(
            s3s::Body::from(body),
            Stats::default(),
            received,
        ));
        return Ok(reply);
    }
    let kind = classify(&request);
    stats.request(kind);
    let (parts, body) = request.into_parts();
    let body = s3s::Body::http_body(Counted::request(body, stats.clone()));
    let response = s3.call(hyper::Request::from_parts(parts, body)).await?;
    stats.status(response.status());
    let (parts, body) = response.into_parts();
    Ok(hyper::Response::from_parts(
        parts,
        Counted::response(body, stats, received),
    ))
}
