//! Which byte ranges a selective read asks the store for: the ranges it needs, merged only
//! where the gap between two costs less than a round trip (gap ÷ bandwidth < RTT) and the
//! merged gaps stay within a tenth of the bytes needed. object_store's own `get_ranges`
//! merges every gap under 1 MiB, which on a wide table fetched ten times the bytes a
//! projection needs; this rule adapts to the network and bounds the waste.

use bytes::Bytes;
use formatbench_protocol::{NetworkShape, ObjectTarget};
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
use std::ops::Range;

/// Ranged GETs a read keeps in flight (object_store's own `get_ranges` runs 10).
pub const CONCURRENT_RANGES: usize = 8;

/// The most a read fetches beyond what it needs, as a share of what it needs.
pub const MAX_WASTE: f64 = 0.10;

/// The rule for one store's network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coalesce {
    /// A gap at least this long is a request of its own.
    pub round_trip_bytes: u64,
}

impl Coalesce {
    /// The rule for the target's network, or for a same-region bucket when the target does
    /// not say ([`NetworkShape::ASSUMED`]).
    pub fn for_target(target: &ObjectTarget) -> Coalesce {
        Coalesce::for_network(target.network.unwrap_or(NetworkShape::ASSUMED))
    }

    pub fn for_network(network: NetworkShape) -> Coalesce {
        Coalesce {
            round_trip_bytes: network.round_trip_bytes(),
        }
    }

    /// The ranges to request for `wanted` (any order, overlaps allowed): their union, sorted,
    /// with the cheapest gaps closed first while the closed gaps stay within
    /// [`MAX_WASTE`] of the union's length. Smallest first saves the most requests for the
    /// waste allowed, and leaves the result independent of timing.
    pub fn plan(&self, wanted: &[Range<u64>]) -> Vec<Range<u64>> {
        let spans = union(wanted);
        let need: u64 = spans.iter().map(|r| r.end - r.start).sum();
        let budget = (need as f64 * MAX_WASTE) as u64;
        let mut gaps: Vec<(u64, usize)> = spans
            .windows(2)
            .enumerate()
            .map(|(i, pair)| (pair[1].start - pair[0].end, i))
            .filter(|&(gap, _)| gap < self.round_trip_bytes)
            .collect();
        gaps.sort_unstable();
        let mut closed = vec![false; spans.len().saturating_sub(1)];
        let mut spent = 0u64;
        for (gap, i) in gaps {
            if spent + gap > budget {
                break;
            }
            spent += gap;
            closed[i] = true;
        }
        let mut planned: Vec<Range<u64>> = Vec::with_capacity(spans.len());
        for (i, span) in spans.into_iter().enumerate() {
            match planned.last_mut() {
                Some(last) if i > 0 && closed[i - 1] => last.end = span.end,
                _ => planned.push(span),
            }
        }
        planned
    }
}

/// The disjoint union of `ranges`, sorted; touching ranges are one.
fn union(ranges: &[Range<u64>]) -> Vec<Range<u64>> {
    let mut sorted: Vec<Range<u64>> = ranges.iter().filter(|r| r.end > r.start).cloned().collect();
    sorted.sort_unstable_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<u64>> = Vec::with_capacity(sorted.len());
    for r in sorted {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// The bytes of each range in `wanted`, in the order asked, fetched as `rule` plans them,
/// [`CONCURRENT_RANGES`] requests at a time.
pub async fn get_ranges<S: ObjectStore + ?Sized>(
    store: &S,
    path: &ObjectPath,
    wanted: &[Range<u64>],
    rule: Coalesce,
) -> object_store::Result<Vec<Bytes>> {
    let planned = rule.plan(wanted);
    let fetched: Vec<Bytes> = futures::stream::iter(planned.iter().cloned())
        .map(|range| store.get_range(path, range))
        .buffered(CONCURRENT_RANGES)
        .try_collect()
        .await?;
    Ok(slices(&planned, &fetched, wanted))
}

/// Each wanted range cut from the planned range that holds it (every wanted range lies in
/// exactly one: the plan is a cover of their union).
fn slices(planned: &[Range<u64>], fetched: &[Bytes], wanted: &[Range<u64>]) -> Vec<Bytes> {
    wanted
        .iter()
        .map(|range| {
            if range.end <= range.start {
                return Bytes::new();
            }
            let at = planned
                .partition_point(|p| p.start <= range.start)
                .saturating_sub(1);
            let start = (range.start - planned[at].start) as usize;
            let end = (range.end - planned[at].start) as usize;
            fetched[at].slice(start..end)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(round_trip_bytes: u64) -> Coalesce {
        Coalesce { round_trip_bytes }
    }

    #[test]
    fn the_profiles_round_trips_are_their_bandwidth_times_their_delay() {
        let shape = |rtt_us, mbit: u64| NetworkShape {
            rtt_us,
            bytes_per_s: mbit * 1_000_000 / 8,
        };
        assert_eq!(shape(200, 10_000).round_trip_bytes(), 250_000);
        assert_eq!(shape(5_000, 1_000).round_trip_bytes(), 625_000);
        assert_eq!(shape(40_000, 200).round_trip_bytes(), 1_000_000);
        assert_eq!(NetworkShape::ASSUMED.round_trip_bytes(), 625_000);
    }

    #[test]
    fn a_gap_of_a_round_trip_or_more_is_never_merged() {
        // Huge needs, so the waste cap never binds: only the round trip decides.
        let wanted = [0..1_000_000, 1_000_100..2_000_000, 2_000_200..3_000_000];
        assert_eq!(rule(100).plan(&wanted), wanted.to_vec());
        assert_eq!(
            rule(101).plan(&wanted),
            vec![0..2_000_000, 2_000_200..3_000_000]
        );
        assert_eq!(rule(201).plan(&wanted), vec![0..3_000_000]);
    }

    #[test]
    fn merged_gaps_stay_within_a_tenth_of_the_need_smallest_first() {
        // Need 4 × 100 = 400 bytes; budget 40. Gaps 30, 10, 20: the 10 and the 20 close
        // (30 in all), the 30 would bring it to 60.
        let wanted = [0..100, 130..230, 240..340, 360..460];
        let planned = rule(1_000).plan(&wanted);
        assert_eq!(planned, vec![0..100, 130..460]);
        let fetched: u64 = planned.iter().map(|r| r.end - r.start).sum();
        assert!(fetched as f64 <= 400.0 * (1.0 + MAX_WASTE));
    }

    #[test]
    fn overlapping_and_unsorted_ranges_are_fetched_once_and_sliced_in_asked_order() {
        let wanted = [50..60, 0..20, 10..30, 55..58, 5..5];
        let planned = rule(1).plan(&wanted);
        assert_eq!(planned, vec![0..30, 50..60]);
        let object: Vec<u8> = (0..100u8).collect();
        let fetched: Vec<Bytes> = planned
            .iter()
            .map(|r| Bytes::copy_from_slice(&object[r.start as usize..r.end as usize]))
            .collect();
        let got = slices(&planned, &fetched, &wanted);
        for (range, bytes) in wanted.iter().zip(&got) {
            let expected = &object[range.start as usize..range.end.max(range.start) as usize];
            assert_eq!(bytes.as_ref(), expected, "{range:?}");
        }
    }
}
