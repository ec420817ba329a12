//! Where a plan's artifacts live: local files, or formatbench's own S3 server behind a
//! network profile (`--storage s3 --network …`). The `storage` and `network` keys of every
//! cell come from here.

use serde::{Deserialize, Serialize};

/// The storage every cell of a run reads from and writes to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Storage {
    #[default]
    Local,
    /// formatbench's S3 server (`formatbench-s3`), reached through `network`.
    S3 { network: Network },
}

impl Storage {
    /// The `storage` key of a cell.
    pub fn key(&self) -> &'static str {
        match self {
            Storage::Local => "local",
            Storage::S3 { .. } => "s3",
        }
    }

    /// The `network` key of a cell: `n/a` for local files.
    pub fn network_key(&self) -> &'static str {
        match self {
            Storage::Local => "n/a",
            Storage::S3 { network } => network.name(),
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
}
