//! The server's own account of its traffic: requests by kind, body bytes each way and first-byte
//! latency, counted in a window the runner resets before each sample and reads after it.

use formatbench_protocol::{ObjectTraffic, SplitTraffic};
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

/// What kind of S3 request this is: the protocol's one classification.
pub use formatbench_protocol::RequestKind as Kind;

/// A request's kind, from its method, query, `Range` header and path (path-style: `/bucket` or
/// `/bucket/` names the bucket, anything longer an object).
pub fn classify<B>(request: &hyper::Request<B>) -> Kind {
    let on_bucket = request.uri().path().trim_matches('/').split('/').count() <= 1;
    Kind::of(
        request.method().as_str(),
        request.uri().query().unwrap_or(""),
        request.headers().contains_key(hyper::header::RANGE),
        on_bucket,
    )
}

/// One thing the server counted, stamped with the wall clock (the worker's clock too, on the
/// same machine), so a window can be split where a worker's first call ended.
#[derive(Clone, Copy)]
enum Event {
    Request(Kind),
    Error,
    Received(u64),
    /// Response bytes, with the seconds from the request's arrival to its first byte when these
    /// are its first.
    Sent(u64, Option<f64>),
    Ended,
}

#[derive(Default)]
struct Window {
    events: Vec<(f64, Event)>,
}

/// Seconds since the Unix epoch, as workers report when their first call ended.
fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Window {
    /// The counts of the events after `since` and up to `until` (Unix seconds; open ends
    /// when `None`).
    fn count(&self, since: Option<f64>, until: Option<f64>) -> ObjectTraffic {
        let mut t = ObjectTraffic::default();
        let (mut first_byte_total_s, mut first_byte_count) = (0.0, 0u64);
        let (mut first_request, mut last_end) = (None, None);
        let within = self.events.iter().filter(|(at, _)| {
            since.is_none_or(|since| *at > since) && until.is_none_or(|until| *at <= until)
        });
        for &(at, event) in within {
            match event {
                Event::Request(kind) => {
                    t.add(kind, 1);
                    first_request.get_or_insert(at);
                }
                Event::Error => t.errors += 1,
                Event::Received(bytes) => t.bytes_received += bytes,
                Event::Sent(bytes, first_byte) => {
                    t.bytes_sent += bytes;
                    if let Some(seconds) = first_byte {
                        first_byte_total_s += seconds;
                        first_byte_count += 1;
                    }
                }
                Event::Ended => last_end = Some(at),
            }
        }
        t.first_byte_latency_s =
            (first_byte_count > 0).then(|| first_byte_total_s / first_byte_count as f64);
        t.busy_span_s = match (first_request, last_end) {
            (Some(first), Some(last)) if last > first => Some(last - first),
            _ => None,
        };
        t
    }
}

/// The counters, shared by every connection.
#[derive(Clone, Default)]
pub struct Stats(Arc<Mutex<Window>>);

impl Stats {
    fn add(&self, event: Event) {
        // A poisoned lock only means another connection's task panicked mid-count; the events
        // are plain values, still usable. Stamped under the lock, so the log stays in order.
        let mut window = self.0.lock().unwrap_or_else(|e| e.into_inner());
        window.events.push((unix_now(), event));
    }

    pub fn request(&self, kind: Kind) {
        self.add(Event::Request(kind));
    }

    pub fn status(&self, status: hyper::StatusCode) {
        if status.is_client_error() || status.is_server_error() {
            self.add(Event::Error);
        }
    }

    fn received(&self, bytes: u64) {
        self.add(Event::Received(bytes));
    }

    fn sent(&self, bytes: u64, first_byte_after: Option<f64>) {
        self.add(Event::Sent(bytes, first_byte_after));
    }

    fn ended(&self) {
        self.add(Event::Ended);
    }

    /// The window's counts; with `reset`, a new window starts.
    pub fn snapshot(&self, reset: bool) -> ObjectTraffic {
        let mut window = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let out = window.count(None, None);
        if reset {
            *window = Window::default();
        }
        out
    }

    /// The window's counts split at `at` (Unix seconds): up to it (a worker's first call),
    /// after it (the later calls), and all.
    pub fn split(&self, at: f64) -> SplitTraffic {
        let window = self.0.lock().unwrap_or_else(|e| e.into_inner());
        SplitTraffic {
            first_call: window.count(None, Some(at)),
            later_calls: window.count(Some(at), None),
            all: window.count(None, None),
        }
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
        stats.request(Kind::GetRange);
        stats.request(Kind::Put);
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

    #[test]
    fn a_window_splits_where_a_first_call_ended() {
        let stats = Stats::default();
        stats.request(Kind::GetRange);
        stats.sent(100, Some(0.001));
        stats.ended();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let split = unix_now();
        std::thread::sleep(std::time::Duration::from_millis(2));
        stats.request(Kind::GetRange);
        stats.request(Kind::Head);
        stats.sent(50, Some(0.003));
        let SplitTraffic {
            first_call,
            later_calls,
            all,
        } = stats.split(split);
        let counts = |t: &ObjectTraffic| (t.get_range, t.head, t.bytes_sent);
        assert_eq!(counts(&first_call), (1, 0, 100));
        assert_eq!(first_call.first_byte_latency_s, Some(0.001));
        assert_eq!(counts(&later_calls), (1, 1, 50));
        assert_eq!(later_calls.first_byte_latency_s, Some(0.003));
        assert_eq!(counts(&all), (2, 1, 150));
        assert_eq!(all.first_byte_latency_s, Some(0.002));
    }
}
