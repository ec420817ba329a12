//! Object storage: where a job's artifact lives when it is not a local path, and the traffic
//! the storage server counted for one sample. The runner, the S3 server and every worker share
//! these; credentials never travel in a job file (workers read the standard `AWS_*` variables).

use serde::{Deserialize, Serialize};

/// An artifact in an S3-compatible bucket. `key` is the object key of the job's `artifact`
/// (a file) or the key prefix under which its files lie (a directory), without a trailing `/`:
/// the artifact's file `artifact/a/b` is the object `key/a/b`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectTarget {
    /// `http://HOST:PORT` (or https) of the S3 API, path-style addressing.
    pub endpoint: String,
    pub bucket: String,
    pub key: String,
    pub region: String,
    /// Files of the artifact that are objects of their own elsewhere in the bucket (a user's
    /// file read in place, `--input s3://…`): relative path → object key. Absent for the
    /// artifacts formatbench uploads, whose files all lie under `key`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub objects: std::collections::BTreeMap<String, String>,
    /// The network between the worker and the store, when the runner knows it (its own server
    /// under a network profile): readers merge nearby ranges only where the gap costs less than
    /// a round trip on it. Absent for a user's bucket, where readers assume [`NetworkShape::ASSUMED`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkShape>,
}

/// A network's round-trip time and bandwidth (each way), in integers so targets stay `Eq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkShape {
    pub rtt_us: u64,
    pub bytes_per_s: u64,
}

impl NetworkShape {
    /// A VM and a bucket in one cloud region (5 ms, 1 Gbit/s): what a reader assumes of a
    /// store whose network nobody measured.
    pub const ASSUMED: NetworkShape = NetworkShape {
        rtt_us: 5_000,
        bytes_per_s: 125_000_000,
    };

    /// The bytes the network carries in one round trip: a gap shorter than this costs less to
    /// fetch than a request of its own.
    pub fn round_trip_bytes(&self) -> u64 {
        let bytes = u128::from(self.rtt_us) * u128::from(self.bytes_per_s) / 1_000_000;
        u64::try_from(bytes).unwrap_or(u64::MAX)
    }
}

impl ObjectTarget {
    /// The object key of the artifact's file at `relative` (`/`-separated).
    pub fn key_of(&self, relative: &str) -> String {
        if let Some(object) = self.objects.get(relative.trim_start_matches('/')) {
            return object.clone();
        }
        match relative.trim_start_matches('/') {
            "" => self.key.clone(),
            rest if self.key.is_empty() => rest.to_string(),
            rest => format!("{}/{rest}", self.key),
        }
    }

    /// `s3://bucket/key`, as Python and R libraries name objects.
    pub fn url(&self) -> String {
        format!("s3://{}/{}", self.bucket, self.key)
    }
}

/// What the S3 server saw in one window (one sample): requests by kind, body bytes each way,
/// and its own first-byte latency (request received → first body byte sent, as S3's
/// `FirstByteLatency` metric defines it). Network delay added by a profile is outside it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObjectTraffic {
    /// GET of a whole object.
    #[serde(default)]
    pub get: u64,
    /// GET with a `Range` header.
    #[serde(default)]
    pub get_range: u64,
    #[serde(default)]
    pub head: u64,
    #[serde(default)]
    pub list: u64,
    /// PUT of a whole object.
    #[serde(default)]
    pub put: u64,
    /// Multipart upload parts.
    #[serde(default)]
    pub part: u64,
    /// Multipart create, complete and abort.
    #[serde(default)]
    pub multipart: u64,
    #[serde(default)]
    pub delete: u64,
    #[serde(default)]
    pub other: u64,
    /// Responses with a 4xx or 5xx status.
    #[serde(default)]
    pub errors: u64,
    /// Response body bytes sent (what egress bills).
    #[serde(default)]
    pub bytes_sent: u64,
    /// Request body bytes received (uploads).
    #[serde(default)]
    pub bytes_received: u64,
    /// The mean first-byte latency of the window's requests that returned a body, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_latency_s: Option<f64>,
    /// Seconds from the window's first request arriving to its last response ending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_span_s: Option<f64>,
}

/// A sample's traffic split where its first call ended (`GET /__formatbench/traffic?split=S`):
/// the first call's, the later calls' together, and all of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SplitTraffic {
    pub first_call: ObjectTraffic,
    pub later_calls: ObjectTraffic,
    pub all: ObjectTraffic,
}

/// What kind of S3 request one is, as S3 bills it: the one classification formatbench's S3
/// server and its client both count by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
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

impl RequestKind {
    /// Every kind, in [`ObjectTraffic`]'s order.
    pub const ALL: [RequestKind; 9] = [
        RequestKind::Get,
        RequestKind::GetRange,
        RequestKind::Head,
        RequestKind::List,
        RequestKind::Put,
        RequestKind::Part,
        RequestKind::Multipart,
        RequestKind::Delete,
        RequestKind::Other,
    ];

    /// The kind of a request from its method, its query, whether it asks a byte range, and
    /// whether its path names only the bucket (path-style addressing: what the server sees; a
    /// client that cannot tell passes false, and a listing is known by its query then).
    pub fn of(method: &str, query: &str, ranged: bool, bucket_only: bool) -> RequestKind {
        let has = |key: &str| query.split('&').any(|p| p.split('=').next() == Some(key));
        match method {
            "GET" if bucket_only || has("list-type") || has("prefix") => RequestKind::List,
            "GET" if ranged => RequestKind::GetRange,
            "GET" => RequestKind::Get,
            "HEAD" => RequestKind::Head,
            "PUT" if has("partNumber") => RequestKind::Part,
            "PUT" => RequestKind::Put,
            "POST" if has("uploads") || has("uploadId") => RequestKind::Multipart,
            "DELETE" if has("uploadId") => RequestKind::Multipart,
            "DELETE" => RequestKind::Delete,
            _ => RequestKind::Other,
        }
    }
}

impl ObjectTraffic {
    /// Adds `n` requests of `kind`.
    pub fn add(&mut self, kind: RequestKind, n: u64) {
        let counter = match kind {
            RequestKind::Get => &mut self.get,
            RequestKind::GetRange => &mut self.get_range,
            RequestKind::Head => &mut self.head,
            RequestKind::List => &mut self.list,
            RequestKind::Put => &mut self.put,
            RequestKind::Part => &mut self.part,
            RequestKind::Multipart => &mut self.multipart,
            RequestKind::Delete => &mut self.delete,
            RequestKind::Other => &mut self.other,
        };
        *counter += n;
    }

    /// Every request, whatever its kind.
    pub fn requests(&self) -> u64 {
        self.get
            + self.get_range
            + self.head
            + self.list
            + self.put
            + self.part
            + self.multipart
            + self.delete
            + self.other
    }

    /// The counts divided by `calls` (a repeated sample's traffic per call), rounded up, so a
    /// request made once in a sample of several calls still shows.
    pub fn per_call(&self, calls: u64) -> ObjectTraffic {
        let calls = calls.max(1);
        let each = |n: u64| n.div_ceil(calls);
        ObjectTraffic {
            get: each(self.get),
            get_range: each(self.get_range),
            head: each(self.head),
            list: each(self.list),
            put: each(self.put),
            part: each(self.part),
            multipart: each(self.multipart),
            delete: each(self.delete),
            other: each(self.other),
            errors: each(self.errors),
            bytes_sent: each(self.bytes_sent),
            bytes_received: each(self.bytes_received),
            first_byte_latency_s: self.first_byte_latency_s,
            busy_span_s: self.busy_span_s.map(|s| s / calls as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn request_kinds_are_listed_in_their_own_order_and_counted_in_their_field() {
        for (i, kind) in super::RequestKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, i);
            let mut t = super::ObjectTraffic::default();
            t.add(*kind, 2);
            assert_eq!(t.requests(), 2, "{kind:?}");
        }
        let list = super::RequestKind::of("GET", "list-type=2&prefix=a", false, false);
        assert_eq!(list, super::RequestKind::List);
    }

    use super::*;

    #[test]
    fn keys_join_the_artifact_key_and_relative_paths() {
        let target = ObjectTarget {
            endpoint: "http://127.0.0.1:9".into(),
            bucket: "b".into(),
            key: "run/parquet".into(),
            region: "us-east-1".into(),
            objects: Default::default(),
            network: None,
        };
        assert_eq!(target.key_of("data.parquet"), "run/parquet/data.parquet");
        assert_eq!(target.key_of(""), "run/parquet");
        assert_eq!(target.url(), "s3://b/run/parquet");
    }

    #[test]
    fn per_call_traffic_rounds_up_so_a_single_request_shows() {
        let traffic = ObjectTraffic {
            get_range: 7,
            head: 1,
            bytes_sent: 1_000,
            ..Default::default()
        };
        let each = traffic.per_call(3);
        assert_eq!((each.get_range, each.head, each.bytes_sent), (3, 1, 334));
        assert_eq!(traffic.requests(), 8);
    }
}
