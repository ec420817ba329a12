//! The one ranking every view shows. A group's fastest is the competitor that no other beats by
//! the paired estimate (the geometric mean of per-round ratios), so the table's first row, its
//! `×best` column, the stopping rule, the frontier and the recommendation agree: no listed
//! competitor shows below 1.00× against the best. Over the same rounds the paired estimate is
//! transitive and the answer is the lowest geometric mean; where rounds are missing (a capped
//! or failed cell) the search below still ends on a competitor none of the others beats.

use super::interval::{geometric_mean, paired_estimate};
use std::collections::BTreeMap;

/// The index of the fastest of `candidates` (each its wall seconds by round); `None` when no
/// candidate has a positive time.
pub fn fastest(candidates: &[&BTreeMap<u32, f64>]) -> Option<usize> {
    let level = |rounds: &BTreeMap<u32, f64>| {
        let values: Vec<f64> = rounds.values().copied().collect();
        geometric_mean(&values)
    };
    let mut best = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((i, level(c)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?
        .0;
    // Each step moves to a competitor that beats the current one, so it cannot return to one
    // it left over the same rounds; the bound only guards against cycles among partial rounds.
    for _ in 0..candidates.len() {
        let challenger = candidates
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != best)
            .filter_map(|(i, c)| {
                let ratio = paired_estimate(c, candidates[best])
                    .or_else(|| Some(level(c)? / level(candidates[best])?))?;
                (ratio < 1.0).then_some((i, ratio))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match challenger {
            Some((i, _)) => best = i,
            None => break,
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::fixtures::rounds;

    #[test]
    fn the_best_is_never_beaten_by_the_paired_estimate() {
        // The rounds: A has the lower median (1.5 < 1.6) but B is faster in the paired
        // estimate (B/A = 0.95 by the median of per-round ratios, 0.99 by their geometric mean).
        let a = rounds(&[1.0, 1.5, 2.0]);
        let b = rounds(&[1.6, 1.4, 1.9]);
        let best = fastest(&[&a, &b]).unwrap();
        let (winner, other) = if best == 0 { (&a, &b) } else { (&b, &a) };
        assert!(paired_estimate(other, winner).unwrap() >= 1.0);
    }

    #[test]
    fn missing_rounds_still_end_on_an_unbeaten_competitor() {
        let a = rounds(&[1.0, 1.0, 1.0, 1.0]);
        let mut b = rounds(&[0.9, 0.9]);
        b.insert(9, 5.0); // a round A did not run
        let c = rounds(&[1.2, 1.2, 1.2, 1.2]);
        let all = [&a, &b, &c];
        let best = fastest(&all).unwrap();
        assert_eq!(best, 1, "B beats A in the rounds both ran");
        for (i, other) in all.iter().enumerate().filter(|(i, _)| *i != best) {
            assert!(paired_estimate(other, all[best]).unwrap() >= 1.0, "{i}");
        }
        assert!(fastest(&[]).is_none());
    }
}
