//! Where a plan's artifacts live: local files, or formatbench's own S3 server behind a
//! network profile (`--storage s3 --network …`). The `storage` and `network` keys of every
//! cell come from here.

use serde::{Deserialize, Serialize};

/// The storage every cell of a run reads from and writes to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Storage {
    #[default]
    Local,
    /// formatbench's S3 server (`formatbench-s3`), reached through `network`.
    S3 { network: Network },
    /// A store of the user's own (`--storage s3://BUCKET/PREFIX --endpoint URL`).
    Endpoint(UserStore),
}

/// A bucket and prefix on an S3-compatible endpoint the user names; the run writes only under
/// `PREFIX/RUN_ID/`, and removes that when it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserStore {
    pub endpoint: String,
    pub bucket: String,
    pub prefix: String,
    pub region: String,
}

impl UserStore {
    /// From `s3://BUCKET/PREFIX` and the endpoint's URL.
    pub fn parse(url: &str, endpoint: &str, region: &str) -> Result<UserStore, String> {
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| format!("'{url}' is not an s3://BUCKET/PREFIX address"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(format!("'{url}' names no bucket"));
        }
        if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            return Err(format!("--endpoint {endpoint}: give an http:// URL"));
        }
        Ok(UserStore {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            bucket: bucket.to_string(),
            prefix: prefix.trim_matches('/').to_string(),
            region: region.to_string(),
        })
    }

    pub fn url(&self) -> String {
        format!("s3://{}/{}", self.bucket, self.prefix)
    }

    /// The key prefix a run writes under.
    pub fn key(&self, run_id: &str) -> String {
        match self.prefix.as_str() {
            "" => run_id.to_string(),
            prefix => format!("{prefix}/{run_id}"),
        }
    }
}

impl Storage {
    /// The `storage` key of a cell.
    pub fn key(&self) -> &'static str {
        match self {
            Storage::Local => "local",
            Storage::S3 { .. } | Storage::Endpoint(_) => "s3",
        }
    }

    /// The `network` key of a cell: `n/a` for local files.
    pub fn network_key(&self) -> &'static str {
        match self {
            Storage::Local => "n/a",
            Storage::S3 { network } => network.name(),
            // Whatever lies between this machine and the user's store.
            Storage::Endpoint(_) => "endpoint",
        }
    }
}

/// A network between the workers and the S3 server. `local` is loopback as it is; the others
/// put the server in a network namespace joined by a veth pair whose bandwidth the kernel
/// shapes (`tbf`) and whose round-trip time a delay line adds (formatbench-s3 `--rtt-ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Network {
    Local,
    Lan,
    Region,
    Internet,
}

pub const NETWORKS: [Network; 4] = [
    Network::Local,
    Network::Lan,
    Network::Region,
    Network::Internet,
];

impl Network {
    pub fn name(self) -> &'static str {
        match self {
            Network::Local => "local",
            Network::Lan => "lan",
            Network::Region => "region",
            Network::Internet => "internet",
        }
    }

    /// Round-trip time (ms) and bandwidth (Mbit/s, each direction) of the profile; `None`
    /// for loopback as it is.
    pub fn shape(self) -> Option<(f64, u64)> {
        match self {
            Network::Local => None,
            // A rack or a LAN: 0.2 ms, 10 Gbit/s.
            Network::Lan => Some((0.2, 10_000)),
            // A VM and a bucket in one cloud region: 5 ms, 1 Gbit/s.
            Network::Region => Some((5.0, 1_000)),
            // A laptop and a bucket across the internet: 40 ms, 200 Mbit/s.
            Network::Internet => Some((40.0, 200)),
        }
    }

    /// The shape readers plan their requests for: the profile's, and for loopback as it is a
    /// fixed figure (50 µs, 20 Gbit/s), so a local run's requests do not depend on the machine.
    pub fn coalescing_shape(self) -> formatbench_protocol::NetworkShape {
        let (rtt_ms, mbit) = self.shape().unwrap_or((0.05, 20_000));
        formatbench_protocol::NetworkShape {
            rtt_us: (rtt_ms * 1000.0).round() as u64,
            bytes_per_s: mbit * 1_000_000 / 8,
        }
    }

    /// One line for help and reports.
    pub fn describe(self) -> String {
        match self.shape() {
            None => "loopback, nothing added".into(),
            Some((rtt, mbit)) => format!("{rtt} ms round trip, {} each way", bandwidth(mbit)),
        }
    }
}

fn bandwidth(mbit: u64) -> String {
    if mbit >= 1_000 && mbit.is_multiple_of(1_000) {
        format!("{} Gbit/s", mbit / 1_000)
    } else {
        format!("{mbit} Mbit/s")
    }
}

impl std::str::FromStr for Network {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NETWORKS
            .iter()
            .copied()
            .find(|n| n.name() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = NETWORKS.iter().map(|n| n.name()).collect();
                format!("unknown network '{s}' (known: {})", known.join(", "))
            })
    }
}

/// `--storage` as given: local files, an S3 server formatbench starts (`s3`), or a store of
/// the user's own (`s3://BUCKET/PREFIX`, reached at `--endpoint`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageChoice {
    Local,
    Served,
    Own(String),
}

impl std::str::FromStr for StorageChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "local" => Ok(StorageChoice::Local),
            "s3" => Ok(StorageChoice::Served),
            url if url.starts_with("s3://") => Ok(StorageChoice::Own(url.to_string())),
            _ => Err("give local, s3 or s3://BUCKET/PREFIX".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_parse_by_name_and_describe_their_shape() {
        for network in NETWORKS {
            assert_eq!(network.name().parse::<Network>(), Ok(network));
        }
        assert_eq!(
            Network::Region.describe(),
            "5 ms round trip, 1 Gbit/s each way"
        );
        assert!("wan".parse::<Network>().is_err());
        let s3 = Storage::S3 {
            network: Network::Internet,
        };
        assert_eq!((s3.key(), s3.network_key()), ("s3", "internet"));
        assert_eq!(Storage::Local.network_key(), "n/a");
    }

    #[test]
    fn a_store_of_ones_own_is_a_bucket_and_prefix_on_an_endpoint() {
        let store = UserStore::parse("s3://data/bench/", "http://10.0.0.5:9000/", "eu-west-1");
        let store = store.unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(
            (store.bucket.as_str(), store.prefix.as_str()),
            ("data", "bench")
        );
        assert_eq!(store.endpoint, "http://10.0.0.5:9000");
        assert_eq!(store.key("run1"), "bench/run1");
        assert!(UserStore::parse("s3:///x", "http://h", "r").is_err());
        assert!(UserStore::parse("gs://b/x", "http://h", "r").is_err());
        assert!(UserStore::parse("s3://b", "h:9000", "r").is_err());
    }
}
