//! What this process's S3 client sent and received, counted on the client side: the requests
//! by kind and the body bytes each way. A store of the user's own has no counters formatbench
//! can read, so a worker reports these for its samples there, marked as counted by the client.

use formatbench_protocol::{ObjectTraffic, RequestKind};
use std::sync::atomic::{AtomicU64, Ordering};

/// Requests by kind, in [`RequestKind::ALL`]'s order.
static REQUESTS: [AtomicU64; 9] = [const { AtomicU64::new(0) }; 9];
static ERRORS: AtomicU64 = AtomicU64::new(0);
static BYTES_IN: AtomicU64 = AtomicU64::new(0);
static BYTES_OUT: AtomicU64 = AtomicU64::new(0);

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

/// Counts one request by its method, query and `Range` header, as the S3 server classifies
/// them (a listing known by its query: the client does not tell its addressing style).
pub(crate) fn request(method: &http::Method, uri: &http::Uri, ranged: bool, body_bytes: u64) {
    let kind = RequestKind::of(method.as_str(), uri.query().unwrap_or(""), ranged, false);
    add(&REQUESTS[kind as usize], 1);
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
    let mut traffic = ObjectTraffic {
        errors: get(&ERRORS),
        bytes_sent: get(&BYTES_IN),
        bytes_received: get(&BYTES_OUT),
        ..ObjectTraffic::default()
    };
    for (kind, count) in RequestKind::ALL.iter().zip(&REQUESTS) {
        traffic.add(*kind, get(count));
    }
    traffic
}
