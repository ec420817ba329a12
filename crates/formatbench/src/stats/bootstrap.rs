//! Paired ratios with percentile-bootstrap intervals. Every round of the balanced design holds
//! both competitors, so the ratio is estimated from per-round log differences, which cancels
//! whatever the machine did during that round.

use super::quantile;
use crate::rng::Rng;
use std::collections::BTreeMap;

/// Resamples per interval, and the fixed seed that makes reports reproducible.
pub const RESAMPLES: usize = 10_000;
pub const BOOTSTRAP_SEED: u64 = 0xB007_5EED;

/// A ratio A/B with its 95 % interval, from `rounds` paired rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioInterval {
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
    pub rounds: usize,
}

impl RatioInterval {
    /// True when the interval includes 1: the data cannot tell the two apart.
    pub fn contains_one(&self) -> bool {
        self.lo <= 1.0 && 1.0 <= self.hi
    }
}

fn median_of(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    quantile(values, 0.5).unwrap_or(f64::NAN)
}

/// The ratio of A's times over B's, paired by round: `exp(median(ln a_r − ln b_r))`, with a
/// percentile-bootstrap 95 % interval over rounds.
pub fn paired_ratio(
    a: &BTreeMap<u32, f64>,
    b: &BTreeMap<u32, f64>,
    resamples: usize,
    seed: u64,
) -> Option<RatioInterval> {
    let mut diffs: Vec<f64> = a
        .iter()
        .filter_map(|(round, &x)| {
            let y = *b.get(round)?;
            (x > 0.0 && y > 0.0).then(|| x.ln() - y.ln())
        })
        .collect();
    let n = diffs.len();
    if n == 0 {
        return None;
    }
    let estimate = median_of(&mut diffs.clone()).exp();
    let mut rng = Rng::new(seed, n as u64);
    let mut medians = Vec::with_capacity(resamples);
    let mut sample = vec![0.0; n];
    for _ in 0..resamples {
        for slot in sample.iter_mut() {
            *slot = diffs[rng.below(n as u64) as usize];
        }
        medians.push(median_of(&mut sample));
    }
    medians.sort_by(f64::total_cmp);
    diffs.sort_by(f64::total_cmp);
    Some(RatioInterval {
        estimate,
        lo: quantile(&medians, 0.025)?.exp(),
        hi: quantile(&medians, 0.975)?.exp(),
        rounds: n,
    })
}

/// The ratio of A's median over B's when the samples are not paired (different schedules, e.g.
/// cold against warm), with a percentile-bootstrap 95 % interval resampling each side.
pub fn unpaired_ratio(a: &[f64], b: &[f64], resamples: usize, seed: u64) -> Option<RatioInterval> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|x| *x <= 0.0) {
        return None;
    }
    let estimate = median_of(&mut a.to_vec()) / median_of(&mut b.to_vec());
    let mut rng = Rng::new(seed, (a.len() * 1_000 + b.len()) as u64);
    let mut resample = |values: &[f64], buf: &mut Vec<f64>| {
        buf.clear();
        buf.extend((0..values.len()).map(|_| values[rng.below(values.len() as u64) as usize]));
        median_of(buf)
    };
    let (mut buf_a, mut buf_b) = (Vec::with_capacity(a.len()), Vec::with_capacity(b.len()));
    let mut ratios: Vec<f64> = (0..resamples)
        .map(|_| resample(a, &mut buf_a) / resample(b, &mut buf_b))
        .collect();
    ratios.sort_by(f64::total_cmp);
    Some(RatioInterval {
        estimate,
        lo: quantile(&ratios, 0.025)?,
        hi: quantile(&ratios, 0.975)?,
        rounds: a.len().min(b.len()),
    })
}

/// `exp(mean(ln r))` of positive ratios.
pub fn geometric_mean(ratios: &[f64]) -> Option<f64> {
    let logs: Vec<f64> = ratios
        .iter()
        .filter(|r| **r > 0.0)
        .map(|r| r.ln())
        .collect();
    (!logs.is_empty() && logs.len() == ratios.len())
        .then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds(values: &[f64]) -> BTreeMap<u32, f64> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u32 + 1, *v))
            .collect()
    }

    #[test]
    fn an_exact_factor_gives_a_point_interval() {
        let b = rounds(&[1.0, 1.2, 0.9, 1.1, 1.05, 0.95]);
        let a: BTreeMap<u32, f64> = b.iter().map(|(r, v)| (*r, v * 2.0)).collect();
        let ratio = paired_ratio(&a, &b, RESAMPLES, BOOTSTRAP_SEED).unwrap();
        assert!((ratio.estimate - 2.0).abs() < 1e-12);
        assert!((ratio.lo - 2.0).abs() < 1e-12 && (ratio.hi - 2.0).abs() < 1e-12);
        assert_eq!(ratio.rounds, 6);
        assert!(!ratio.contains_one());
    }

    #[test]
    fn pairing_cancels_round_effects() {
        // Round effects vary 3x, but A is always 1.5x B in its own round.
        let b = rounds(&[1.0, 3.0, 1.0, 3.0, 2.0, 2.0, 1.0, 3.0]);
        let a: BTreeMap<u32, f64> = b.iter().map(|(r, v)| (*r, v * 1.5)).collect();
        let ratio = paired_ratio(&a, &b, RESAMPLES, BOOTSTRAP_SEED).unwrap();
        assert!((ratio.estimate - 1.5).abs() < 1e-12);
    }

    #[test]
    fn fixed_inputs_give_fixed_intervals() {
        let a = rounds(&[1.10, 0.95, 1.30, 1.02, 0.90, 1.20, 1.05, 0.99]);
        let b = rounds(&[1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00]);
        let first = paired_ratio(&a, &b, RESAMPLES, BOOTSTRAP_SEED).unwrap();
        let again = paired_ratio(&a, &b, RESAMPLES, BOOTSTRAP_SEED).unwrap();
        assert_eq!(first, again, "reproducible");
        // Median of the 8 ratios is (1.02 + 1.05) / 2.
        assert!((first.estimate.ln() - (1.02f64.ln() + 1.05f64.ln()) / 2.0).abs() < 1e-12);
        assert!(first.lo < first.estimate && first.estimate < first.hi);
        assert!(first.lo >= 0.90 && first.hi <= 1.30);
        assert!(first.contains_one(), "{first:?}");
    }

    #[test]
    fn unpaired_rounds_are_ignored() {
        let a = rounds(&[2.0, 2.0]);
        let mut b = BTreeMap::new();
        b.insert(2, 1.0);
        b.insert(7, 5.0);
        let ratio = paired_ratio(&a, &b, 100, 1).unwrap();
        assert_eq!(ratio.rounds, 1);
        assert!((ratio.estimate - 2.0).abs() < 1e-12);
        assert!(paired_ratio(&a, &BTreeMap::new(), 100, 1).is_none());
    }

    #[test]
    fn unpaired_ratio_of_medians() {
        let cold = [4.0, 4.2, 3.8, 4.1, 3.9];
        let warm = [1.0, 1.05, 0.95, 1.0, 1.02];
        let r = unpaired_ratio(&cold, &warm, RESAMPLES, BOOTSTRAP_SEED).unwrap();
        assert!((r.estimate - 4.0).abs() < 1e-12);
        assert!(
            r.lo >= 3.8 / 1.05 && r.hi <= 4.2 / 0.95 && r.lo < 4.0 && 4.0 < r.hi,
            "{r:?}"
        );
        assert_eq!(
            r,
            unpaired_ratio(&cold, &warm, RESAMPLES, BOOTSTRAP_SEED).unwrap()
        );
        assert!(unpaired_ratio(&[], &warm, 10, 1).is_none());
    }

    #[test]
    fn geometric_mean_of_ratios() {
        assert!((geometric_mean(&[2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert!(geometric_mean(&[]).is_none());
        assert!(geometric_mean(&[1.0, 0.0]).is_none());
    }
}
