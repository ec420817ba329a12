//! What this process's S3 client sent and received, counted on the client side: the requests
//! by kind and the body bytes each way. A store of the user's own has no counters formatbench
//! can read, so a worker reports these for its samples there, marked as counted by the client.

use formatbench_protocol::ObjectTraffic;
use std::sync::atomic::{AtomicU64, Ordering};

static GET: AtomicU64 = AtomicU64::new(0);
static GET_RANGE: AtomicU64 = AtomicU64::new(0);
static HEAD: AtomicU64 = AtomicU64::new(0);
static LIST: AtomicU64 = AtomicU64::new(0);
static PUT: AtomicU64 = AtomicU64::new(0);
static PART: AtomicU64 = AtomicU64::new(0);
static MULTIPART: AtomicU64 = AtomicU64::new(0);
static DELETE: AtomicU64 = AtomicU64::new(0);
static OTHER: AtomicU64 = AtomicU64::new(0);
static ERRORS: AtomicU64 = AtomicU64::new(0);
static BYTES_IN: AtomicU64 = AtomicU64::new(0);
static BYTES_OUT: AtomicU64 = AtomicU64::new(0);

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

/// Counts one request by its method, query and headers, as the S3 server classifies them.
pub(crate) fn request(method: &http::Method, uri: &http::Uri, ranged: bool, body_bytes: u64) {
    let query = uri.query().unwrap_or("");
    let has = |key: &str| query.split('&').any(|p| p.split('=').next() == Some(key));
    let kind = match *method {
        http::Method::GET if has("list-type") || has("prefix") => &LIST,
        http::Method::GET if ranged => &GET_RANGE,
        http::Method::GET => &GET,
        http::Method::HEAD => &HEAD,
        http::Method::PUT if has("partNumber") => &PART,
        http::Method::PUT => &PUT,
        http::Method::POST if has("uploads") || has("uploadId") => &MULTIPART,
        http::Method::DELETE if has("uploadId") => &MULTIPART,
        http::Method::DELETE => &DELETE,
        _ => &OTHER,
    };
    add(kind, 1);
    add(&BYTES_OUT, body_bytes);
}

pub(crate) fn response(failed: bool) {
    add(&ERRORS, u64::from(failed));
}

pub(crate) fn body_bytes(n: u64) {
    add(&BYTES_IN, n);
}

/// Everything this process's client has sent and received so far, in the server's terms
/// (`bytes_sent` is what the store sent: the response bodies received here).
pub fn client_traffic() -> ObjectTraffic {
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    ObjectTraffic {
        get: get(&GET),
        get_range: get(&GET_RANGE),
        head: get(&HEAD),
        list: get(&LIST),
        put: get(&PUT),
        part: get(&PART),
        multipart: get(&MULTIPART),
        delete: get(&DELETE),
        other: get(&OTHER),
        errors: get(&ERRORS),
        bytes_sent: get(&BYTES_IN),
        bytes_received: get(&BYTES_OUT),
        first_byte_latency_s: None,
        busy_span_s: None,
    }
}
