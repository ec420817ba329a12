//! Object storage (`--storage s3`): what each cell asked of the S3 server and what it cost,
//! from the server's own count — requests by kind, bytes each way, bytes fetched per byte
//! returned, and egress per use and per 1,000 uses at the run's price (seed 004's table).

use super::format;
use super::layouts::Table;
use crate::stats::{egress_cost, RunSummary, DEFAULT_EGRESS_PRICE_PER_GB};
use formatbench_protocol::ObjectTraffic;
use std::collections::BTreeMap;

const LEGEND: &str = "per use: one call of the operation, the call the run ranks (`--call`: warm = a call after the first in the same worker, first = a fresh worker's first), as the S3 server counted it, split where the worker said its first call ended (~ marks a cell whose worker did not say: the mean over its calls); requests by kind, response bytes sent (fetched; for project, range, take and the other selective operations, beside the same competitor's full read: X of Y) and request bytes received (uploaded); first byte = the server's own latency from a request to its first response byte (the network's delay is outside it); first batch = from the call's start to the first record batch the reader decoded, where it hands batches over one by one (parquet, ipc, delta-kernel, py-pyarrow-parquet, py-lance, py-vortex, py-deltalake; — where it returns a whole table); ×needed = bytes fetched ÷ bytes the file's own metadata says the operation needs (footer, index, selected pages or buffers; — where that is not known); ×result = bytes fetched ÷ Arrow bytes returned; egress = bytes fetched at the run's price per GB (2^30 bytes; `--egress-price`), per use and for 1,000 uses, beside the median time of one use and of 1,000. A network profile's round trip is a delay line's in the server (every byte held half of it each way from its arrival, to within a few µs), a new connection's first byte waits one more (TCP's handshake) and its bandwidth is the kernel's `tbf`; `formatbench calibrate --network` measures all three against the profile";

/// The price per GB the run was measured for.
pub(super) fn egress_price(summary: &RunSummary) -> f64 {
    summary
        .environment
        .as_ref()
        .and_then(|env| env.settings.egress_price_per_gb)
        .unwrap_or(DEFAULT_EGRESS_PRICE_PER_GB)
}

/// "4 ranged GET, 1 HEAD": the kinds a use made, most frequent first.
pub(super) fn requests_text(t: &ObjectTraffic) -> String {
    let mut kinds = [
        (t.get_range, "ranged GET"),
        (t.get, "GET"),
        (t.head, "HEAD"),
        (t.list, "LIST"),
        (t.put, "PUT"),
        (t.part, "part"),
        (t.multipart, "multipart"),
        (t.delete, "DELETE"),
        (t.other, "other"),
    ];
    kinds.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    let listed: Vec<String> = kinds
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, kind)| format!("{n} {kind}"))
        .collect();
    match listed.is_empty() {
        true => "none".into(),
        false => listed.join(", "),
    }
}

/// A time for 1,000 uses: minutes or hours once seconds stop reading well.
fn long_duration(seconds: f64) -> String {
    if seconds >= 7_200.0 {
        format!("{:.1} h", seconds / 3_600.0)
    } else if seconds >= 120.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format::duration(seconds)
    }
}

fn dollars(d: f64) -> String {
    if d == 0.0 {
        "$0".into()
    } else if d < 0.01 {
        format!("${d:.6}")
    } else {
        format!("${d:.3}")
    }
}

/// Bytes fetched ÷ bytes needed (`run::needed`), or — where the yardstick does not say.
pub(super) fn needed_ratio(fetched: u64, needed: Option<u64>) -> String {
    fetched_per_needed(fetched, needed).map_or_else(|| format::DASH.into(), format::two_decimals)
}

/// Bytes fetched ÷ bytes needed, where the yardstick says what is needed.
pub(super) fn fetched_per_needed(fetched: u64, needed: Option<u64>) -> Option<f64> {
    needed
        .filter(|n| *n > 0)
        .map(|needed| fetched as f64 / needed as f64)
}

/// One table per dataset and network, of every cell with the server's count.
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let price = egress_price(summary);
    let mut tables: BTreeMap<(String, String), Table> = BTreeMap::new();
    for group in &summary.groups {
        for cell in &group.cells {
            let Some(traffic) = &cell.object_traffic else {
                continue;
            };
            let key = (cell.cell.dataset.clone(), cell.cell.network.clone());
            // "lan (0.2 ms round trip, 10 Gbit/s each way)": what the profile stands for.
            let network = match key.1.parse::<crate::plan::Network>() {
                Ok(network) => format!("{} ({})", key.1, network.describe()),
                // A store of the user's counts nothing for formatbench.
                Err(_) if key.1 == "endpoint" => {
                    "endpoint (a store of your own: requests and bytes counted by the worker's \
                     own S3 client)"
                        .to_string()
                }
                Err(_) => key.1.clone(),
            };
            let table = tables.entry(key.clone()).or_insert_with(|| Table {
                title: format!(
                    "{} · {} over network {network} · threads {}",
                    key.0, cell.cell.storage, group.threads
                ),
                legend: LEGEND,
                headers: [
                    "Backend",
                    "Profile",
                    "Layout",
                    "Op",
                    "Requests",
                    "Time",
                    "First byte",
                    "First batch",
                    "Fetched",
                    "×needed",
                    "Uploaded",
                    "×result",
                    "Egress",
                    "Time ×1,000",
                    "Egress ×1,000",
                ]
                .map(String::from)
                .to_vec(),
                text_columns: 5,
                rows: Vec::new(),
            });
            let time = cell.wall.as_ref().map(|w| w.median);
            // Uploads cost no egress; a write's responses are a few hundred bytes of XML.
            let cost = (cell.cell.op != "write").then(|| egress_cost(traffic.bytes_sent, price));
            let money =
                |scale: f64| cost.map_or_else(|| format::DASH.into(), |c| dollars(c * scale));
            table.rows.push(vec![
                cell.cell.backend.clone(),
                // A sweep point's files and a cluster's executors beside the profile.
                cell.cell.shown_profile(),
                cell.cell.layout.clone(),
                cell.cell.op.clone(),
                match cell.object_traffic_is_mean {
                    true => format!("~ {}", requests_text(traffic)),
                    false => requests_text(traffic),
                },
                time.map_or_else(|| format::DASH.into(), format::duration),
                traffic
                    .first_byte_latency_s
                    .map_or_else(|| format::DASH.into(), format::duration),
                cell.phases
                    .get(formatbench_protocol::phases::FIRST_BATCH)
                    .map_or_else(|| format::DASH.into(), |s| format::duration(*s)),
                match cell.full_read.and_then(|f| f.object_bytes) {
                    // A selective operation's bytes beside its full read's.
                    Some(full) => format!(
                        "{} of {}",
                        format::bytes(traffic.bytes_sent),
                        format::bytes(full)
                    ),
                    None => format::bytes(traffic.bytes_sent),
                },
                needed_ratio(traffic.bytes_sent, cell.needed_bytes),
                format::bytes(traffic.bytes_received),
                cell.read_amplification
                    .map_or_else(|| format::DASH.into(), format::two_decimals),
                money(1.0),
                time.map_or_else(|| format::DASH.into(), |t| long_duration(t * 1_000.0)),
                money(1_000.0),
            ]);
        }
    }
    tables.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_read_most_frequent_first() {
        let traffic = ObjectTraffic {
            get_range: 4,
            head: 1,
            ..Default::default()
        };
        assert_eq!(requests_text(&traffic), "4 ranged GET, 1 HEAD");
        assert_eq!(requests_text(&ObjectTraffic::default()), "none");
        assert_eq!(dollars(0.05), "$0.050");
        assert_eq!(long_duration(265.0), "4.4 min");
        assert_eq!(long_duration(9_000.0), "2.5 h");
        assert_eq!(needed_ratio(1_100, Some(1_000)), "1.10");
        assert_eq!(needed_ratio(1_100, None), format::DASH);
        assert_eq!(needed_ratio(1_100, Some(0)), format::DASH);
    }
}
