//! The server's own account of its traffic: requests by kind, body bytes each way and first-byte
//! latency, counted in a window the runner resets before each sample and reads after it.

use formatbench_protocol::ObjectTraffic;
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

/// What kind of S3 request this is, from its method, query and headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Get,
    GetRange,
    Head,
    List,
    Put,
    Part,
    Multipart,
    Delete,
    Other,
}

pub fn classify<B>(request: &hyper::Request<B>) -> Kind {
    let query = request.uri().query().unwrap_or("");
    let has = |name: &str| {
        query
            .split('&')
            .any(|pair| pair.split('=').next() == Some(name))
    };
    // Path-style: `/bucket` or `/bucket/` names the bucket, anything longer an object.
    let on_bucket = request.uri().path().trim_matches('/').split('/').count() <= 1;
    match *request.method() {
        hyper::Method::GET if on_bucket => Kind::List,
        hyper::Method::GET if request.headers().contains_key(hyper::header::RANGE) => {
            Kind::GetRange
        }
        hyper::Method::GET => Kind::Get,
        hyper::Method::HEAD => Kind::Head,
        hyper::Method::PUT if has("partNumber") => Kind::Part,
        hyper::Method::PUT => Kind::Put,
        hyper::Method::POST if has("uploads") || has("uploadId") => Kind::Multipart,
        hyper::Method::DELETE if has("uploadId") => Kind::Multipart,
        hyper::Method::DELETE => Kind::Delete,
        _ => Kind::Other,
    }
}

#[derive(Default)]
struct Window {
    traffic: ObjectTraffic,
    first_byte_total_s: f64,
    first_byte_count: u64,
    first_request: Option<Instant>,
    last_end: Option<Instant>,
}

/// The counters, shared by every connection.
#[derive(Clone, Default)]
pub struct Stats(Arc<Mutex<Window>>);

impl Stats {
    fn with(&self, f: impl FnOnce(&mut Window)) {
        // A poisoned lock only means another connection's task panicked mid-count; the counts
        // are plain integers, still usable.
        let mut window = self.0.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut window);
    }

    pub fn request(&self, kind: Kind, at: Instant) {
        self.with(|w| {
            let t = &mut w.traffic;
            let counter = match kind {
                Kind::Get => &mut t.get,
                Kind::GetRange => &mut t.get_range,
                Kind::Head => &mut t.head,
                Kind::List => &mut t.list,
                Kind::Put => &mut t.put,
                Kind::Part => &mut t.part,
                Kind::Multipart => &mut t.multipart,
                Kind::Delete => &mut t.delete,
                Kind::Other => &mut t.other,
            };
            *counter += 1;
            w.first_request.get_or_insert(at);
        });
    }

    pub fn status(&self, status: hyper::StatusCode) {
        if status.is_client_error() || status.is_server_error() {
            self.with(|w| w.traffic.errors += 1);
        }
    }

    fn received(&self, bytes: u64) {
        self.with(|w| w.traffic.bytes_received += bytes);
    }

    fn sent(&self, bytes: u64, first_byte_after: Option<f64>) {
        self.with(|w| {
            w.traffic.bytes_sent += bytes;
            if let Some(seconds) = first_byte_after {
                w.first_byte_total_s += seconds;
                w.first_byte_count += 1;
            }
        });
    }

    fn ended(&self) {
        self.with(|w| w.last_end = Some(Instant::now()));
    }

    /// The window so far, as JSON; with `reset`, a new window starts.
    pub fn snapshot(&self, reset: bool) -> ObjectTraffic {
        let mut out = ObjectTraffic::default();
        self.with(|w| {
            out = w.traffic.clone();
            out.first_byte_latency_s =
                (w.first_byte_count > 0).then(|| w.first_byte_total_s / w.first_byte_count as f64);
            out.busy_span_s = match (w.first_request, w.last_end) {
                (Some(first), Some(last)) if last > first => Some((last - first).as_secs_f64()),
                _ => None,
            };
            if reset {
                *w = Window::default();
            }
        });
        out
    }
}

/// A body that counts its bytes: a response's (sent, with the time its first byte left) or a
/// request's (received; the wire length, so chunk signatures of aws-chunked uploads count).
pub struct Counted<B> {
    inner: B,
    stats: Stats,
    /// When the request arrived, for a response body; `None` for a request body.
    received: Option<Instant>,
    first_sent: bool,
}

impl<B> Counted<B> {
    pub fn response(inner: B, stats: Stats, received: Instant) -> Self {
        Counted {
            inner,
            stats,
            received: Some(received),
            first_sent: false,
        }
    }

    pub fn request(inner: B, stats: Stats) -> Self {
        Counted {
            inner,
            stats,
            received: None,
            first_sent: false,
        }
    }
}

impl<B> Drop for Counted<B> {
    fn drop(&mut self) {
        if self.received.is_some() {
            self.stats.ended();
        }
    }
}

impl<B: Body<Data = bytes::Bytes> + Unpin> Body for Counted<B> {
    type Data = bytes::Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            if let Some(data) = frame.data_ref() {
                match self.received {
                    Some(received) => {
                        let first = (!self.first_sent && !data.is_empty())
                            .then(|| received.elapsed().as_secs_f64());
                        self.first_sent |= first.is_some();
                        self.stats.sent(data.len() as u64, first);
                    }
                    None => self.stats.received(data.len() as u64),
                }
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, uri: &str, range: bool) -> hyper::Request<()> {
        let mut builder = hyper::Request::builder().method(method).uri(uri);
        if range {
            builder = builder.header("range", "bytes=0-9");
        }
        builder.body(()).unwrap_or_default()
    }

    #[test]
    fn requests_are_classified_as_s3_bills_them() {
        let cases = [
            ("GET", "/b/k", false, Kind::Get),
            ("GET", "/b/k", true, Kind::GetRange),
            ("GET", "/b?list-type=2&prefix=x", false, Kind::List),
            ("HEAD", "/b/k", false, Kind::Head),
            ("PUT", "/b/k", false, Kind::Put),
            ("PUT", "/b/k?partNumber=2&uploadId=u", false, Kind::Part),
            ("POST", "/b/k?uploads", false, Kind::Multipart),
            ("POST", "/b/k?uploadId=u", false, Kind::Multipart),
            ("DELETE", "/b/k", false, Kind::Delete),
        ];
        for (method, uri, range, kind) in cases {
            assert_eq!(
                classify(&request(method, uri, range)),
                kind,
                "{method} {uri}"
            );
        }
    }

    #[test]
    fn a_snapshot_with_reset_starts_a_new_window() {
        let stats = Stats::default();
        stats.request(Kind::GetRange, Instant::now());
        stats.request(Kind::Put, Instant::now());
        stats.received(100);
        stats.sent(40, Some(0.002));
        let first = stats.snapshot(true);
        assert_eq!(
            (first.get_range, first.put, first.bytes_received),
            (1, 1, 100)
        );
        assert_eq!(first.bytes_sent, 40);
        assert_eq!(first.first_byte_latency_s, Some(0.002));
        assert_eq!(stats.snapshot(false), ObjectTraffic::default());
    }
}
