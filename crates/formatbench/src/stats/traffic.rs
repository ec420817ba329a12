//! Object-storage traffic of a cell: the median over its samples of each of the S3 server's
//! counts, and what egress at a list price costs.

use super::CallMode;
use crate::results::SampleRecord;
use formatbench_protocol::ObjectTraffic;

/// seed 004's list price of egress from a bucket, in dollars per GB (2^30 bytes, as S3 bills).
pub const DEFAULT_EGRESS_PRICE_PER_GB: f64 = 0.09;

/// Dollars to send `bytes` at `price_per_gb`.
pub fn egress_cost(bytes: u64, price_per_gb: f64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64 * price_per_gb
}

fn median(mut values: Vec<u64>) -> u64 {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

fn median_f64(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

/// Each count's median over the samples that have one, for the ranked `call`, and whether
/// every one was that call's own (not a mean over all a sample's calls); `None` when no sample
/// has a count.
pub fn median_traffic(samples: &[&SampleRecord], call: CallMode) -> Option<(ObjectTraffic, bool)> {
    let of_call: Vec<(&ObjectTraffic, bool)> =
        samples.iter().filter_map(|s| call.traffic_of(s)).collect();
    if of_call.is_empty() {
        return None;
    }
    let own = of_call.iter().all(|(_, own)| *own);
    let counted: Vec<&ObjectTraffic> = of_call.into_iter().map(|(t, _)| t).collect();
    let of = |f: fn(&ObjectTraffic) -> u64| median(counted.iter().map(|t| f(t)).collect());
    let median = ObjectTraffic {
        get: of(|t| t.get),
        get_range: of(|t| t.get_range),
        head: of(|t| t.head),
        list: of(|t| t.list),
        put: of(|t| t.put),
        part: of(|t| t.part),
        multipart: of(|t| t.multipart),
        delete: of(|t| t.delete),
        other: of(|t| t.other),
        errors: of(|t| t.errors),
        bytes_sent: of(|t| t.bytes_sent),
        bytes_received: of(|t| t.bytes_received),
        first_byte_latency_s: median_f64(
            counted
                .iter()
                .filter_map(|t| t.first_byte_latency_s)
                .collect(),
        ),
        busy_span_s: median_f64(counted.iter().filter_map(|t| t.busy_span_s).collect()),
    };
    Some((median, own))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gib_at_the_list_price_costs_nine_cents() {
        let cost = egress_cost(1 << 30, DEFAULT_EGRESS_PRICE_PER_GB);
        assert!((cost - 0.09).abs() < 1e-12);
    }
}
