//! Ratios of times with 95 % intervals whose coverage holds at every sample size they are
//! printed for. Times are modelled on the log scale, where noise is multiplicative and a ratio
//! is a difference, and the intervals are Student's t intervals there:
//!
//! - **paired** ([`paired_ratio`]): two competitors of one group, each round holding both. The
//!   estimate is the geometric mean of the per-round ratios, `exp(mean(ln a_r − ln b_r))`, and
//!   its interval the one-sample t interval of those log ratios (n − 1 degrees of freedom), which
//!   cancels whatever the machine did during a round. Exact for log-normal noise at every n ≥ 2.
//! - **unpaired** ([`unpaired_ratio`]): two sets of samples scheduled apart (two runs in
//!   `compare`, a cold read against a warm one). The estimate is the ratio of geometric means
//!   and its interval the two-sample pooled t interval of the log times (n_a + n_b − 2 degrees
//!   of freedom), which assumes both sides are equally noisy on the log scale.
//!
//! The percentile bootstrap these replace claimed 95 % but covered about 50 % at 2 rounds and
//! 75 % at 3. `stats/coverage.rs` simulates log-normal and heavy-tailed noise (one
//! round in ten with an outlier) at n = 2…20 and asserts coverage within [93 %, 97.5 %] at
//! every n; docs/results.md states the figures.

use super::student::{t_cdf, t_quantile};

use std::collections::BTreeMap;

/// The confidence every printed interval claims.
pub const CONFIDENCE: f64 = 0.95;

/// Samples (paired rounds, or samples a side) an interval needs: one pair has no spread.
pub const MIN_INTERVAL_SAMPLES: usize = 2;

/// A ratio A/B with its 95 % interval, from `rounds` paired rounds (unpaired: the smaller
/// side's samples).
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

/// A difference of mean log times with its standard error and degrees of freedom: what every
/// interval and test here is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogDifference {
    pub mean: f64,
    pub se: f64,
    pub df: f64,
    /// Paired rounds, or the smaller side's samples.
    pub n: usize,
}

impl LogDifference {
    /// Its t interval at [`CONFIDENCE`], as a ratio.
    pub fn interval(&self) -> RatioInterval {
        let half = if self.se > 0.0 {
            critical_value(self.df) * self.se
        } else {
            0.0
        };
        RatioInterval {
            estimate: self.mean.exp(),
            lo: (self.mean - half).exp(),
            hi: (self.mean + half).exp(),
            rounds: self.n,
        }
    }

    /// The p-value of "the ratio is within `[1 / (1 + margin), 1 + margin]`" against "it lies
    /// beyond, on the side the estimate is": twice the one-sided tail beyond the nearer bound,
    /// so that p ≤ 1 − [`CONFIDENCE`] exactly when the interval lies wholly beyond that bound.
    pub fn p_beyond(&self, margin: f64) -> f64 {
        let bound = (1.0 + margin).ln();
        let distance = self.mean.abs() - bound;
        if self.se <= 0.0 {
            return if distance > 0.0 { 0.0 } else { 1.0 };
        }
        (2.0 * (1.0 - t_cdf(distance / self.se, self.df))).min(1.0)
    }
}

/// The two-sided [`CONFIDENCE`] critical value of t with `df` degrees of freedom; the small
/// whole numbers every paired interval uses come from a table computed once (the stopping rule
/// asks after every round of every group).
fn critical_value(df: f64) -> f64 {
    const TABULATED: usize = 64;
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let p = 0.5 + CONFIDENCE / 2.0;
    if df.fract() == 0.0 && df >= 1.0 && df <= TABULATED as f64 {
        let table =
            TABLE.get_or_init(|| (1..=TABULATED).map(|k| t_quantile(p, k as f64)).collect());
        if let Some(value) = table.get(df as usize - 1) {
            return *value;
        }
    }
    t_quantile(p, df)
}

fn logs(values: impl Iterator<Item = f64>) -> Option<Vec<f64>> {
    values
        .map(|v| (v > 0.0 && v.is_finite()).then(|| v.ln()))
        .collect()
}

fn mean_and_squares(values: &[f64]) -> (f64, f64) {
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let squares = values.iter().map(|v| (v - mean).powi(2)).sum();
    (mean, squares)
}

/// The per-round log ratios ln a_r − ln b_r over the rounds both hold (positive times only).
fn paired_logs(a: &BTreeMap<u32, f64>, b: &BTreeMap<u32, f64>) -> Vec<f64> {
    a.iter()
        .filter_map(|(round, &x)| {
            let y = *b.get(round)?;
            (x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite()).then(|| x.ln() - y.ln())
        })
        .collect()
}

/// A's times over B's, paired by round: the mean log ratio, its standard error and n − 1
/// degrees of freedom; `None` below [`MIN_INTERVAL_SAMPLES`] paired rounds.
pub fn paired_log_ratio(a: &BTreeMap<u32, f64>, b: &BTreeMap<u32, f64>) -> Option<LogDifference> {
    let diffs = paired_logs(a, b);
    let n = diffs.len();
    if n < MIN_INTERVAL_SAMPLES {
        return None;
    }
    let (mean, squares) = mean_and_squares(&diffs);
    let df = (n - 1) as f64;
    Some(LogDifference {
        mean,
        se: (squares / df / n as f64).sqrt(),
        df,
        n,
    })
}

/// The geometric mean of A's per-round ratios to B over the rounds both hold (one is
/// enough): the estimate every view ranks and prints. `None` when no round pairs up.
pub fn paired_estimate(a: &BTreeMap<u32, f64>, b: &BTreeMap<u32, f64>) -> Option<f64> {
    let diffs = paired_logs(a, b);
    (!diffs.is_empty()).then(|| (diffs.iter().sum::<f64>() / diffs.len() as f64).exp())
}

/// The ratio of A's times over B's, paired by round, with its 95 % t interval (see the
/// module); `None` below [`MIN_INTERVAL_SAMPLES`] paired rounds.
pub fn paired_ratio(a: &BTreeMap<u32, f64>, b: &BTreeMap<u32, f64>) -> Option<RatioInterval> {
    paired_log_ratio(a, b).map(|d| d.interval())
}

/// A's samples over B's when nothing pairs them: the difference of mean log times, its pooled
/// standard error and n_a + n_b − 2 degrees of freedom; `None` unless both sides have
/// [`MIN_INTERVAL_SAMPLES`] positive values.
pub fn unpaired_log_ratio(a: &[f64], b: &[f64]) -> Option<LogDifference> {
    let (la, lb) = (logs(a.iter().copied())?, logs(b.iter().copied())?);
    if la.len() < MIN_INTERVAL_SAMPLES || lb.len() < MIN_INTERVAL_SAMPLES {
        return None;
    }
    let ((ma, sa), (mb, sb)) = (mean_and_squares(&la), mean_and_squares(&lb));
    let (na, nb) = (la.len() as f64, lb.len() as f64);
    let df = na + nb - 2.0;
    let pooled = (sa + sb) / df;
    Some(LogDifference {
        mean: ma - mb,
        se: (pooled * (1.0 / na + 1.0 / nb)).sqrt(),
        df,
        n: la.len().min(lb.len()),
    })
}

/// The ratio of A's geometric mean over B's when the samples are not paired, with its 95 %
/// pooled t interval (see the module).
pub fn unpaired_ratio(a: &[f64], b: &[f64]) -> Option<RatioInterval> {
    unpaired_log_ratio(a, b).map(|d| d.interval())
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
    use crate::stats::fixtures::rounds;

    #[test]
    fn an_exact_factor_gives_a_point_interval() {
        let b = rounds(&[1.0, 1.2, 0.9, 1.1, 1.05, 0.95]);
        let a: BTreeMap<u32, f64> = b.iter().map(|(r, v)| (*r, v * 2.0)).collect();
        let ratio = paired_ratio(&a, &b).unwrap();
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
        let ratio = paired_ratio(&a, &b).unwrap();
        assert!((ratio.estimate - 1.5).abs() < 1e-12);
    }

    #[test]
    fn the_interval_is_the_t_interval_of_the_log_ratios() {
        // Log ratios ±0.1 around ln 1.2: mean ln 1.2, sd 0.1 · √(4/3), se sd / 2.
        let a = rounds(&[
            1.2 * 0.1f64.exp(),
            1.2 / 0.1f64.exp(),
            1.2 * 0.1f64.exp(),
            1.2 / 0.1f64.exp(),
        ]);
        let b = rounds(&[1.0; 4]);
        let r = paired_ratio(&a, &b).unwrap();
        let half = 3.182_446_305 * 0.1 * (4.0f64 / 3.0).sqrt() / 2.0;
        assert!((r.estimate - 1.2).abs() < 1e-12);
        assert!((r.lo - 1.2 * (-half).exp()).abs() < 1e-9, "{r:?}");
        assert!((r.hi - 1.2 * half.exp()).abs() < 1e-9, "{r:?}");
        assert_eq!(r, paired_ratio(&a, &b).unwrap(), "deterministic");
    }

    #[test]
    fn one_round_has_an_estimate_and_no_interval() {
        let a = rounds(&[2.0, 2.0]);
        let mut b = BTreeMap::new();
        b.insert(2, 1.0);
        b.insert(7, 5.0);
        assert!(
            paired_ratio(&a, &b).is_none(),
            "one paired round has no spread"
        );
        assert!((paired_estimate(&a, &b).unwrap() - 2.0).abs() < 1e-12);
        assert!(paired_estimate(&a, &BTreeMap::new()).is_none());
    }

    #[test]
    fn the_paired_estimate_is_transitive() {
        // The geometric mean of per-round ratios: A/C = A/B · B/C over the same rounds, so a
        // group ranked by it has one order (a median of per-round ratios has none).
        let a = rounds(&[1.0, 1.5, 2.0]);
        let b = rounds(&[1.6, 1.4, 1.9]);
        let c = rounds(&[1.1, 1.3, 1.2]);
        let ab = paired_estimate(&a, &b).unwrap();
        let bc = paired_estimate(&b, &c).unwrap();
        assert!((paired_estimate(&a, &c).unwrap() - ab * bc).abs() < 1e-12);
        assert!((paired_estimate(&b, &a).unwrap() * ab - 1.0).abs() < 1e-12);
    }

    #[test]
    fn unpaired_ratio_of_geometric_means() {
        let cold = [4.0, 4.2, 3.8, 4.1, 3.9];
        let warm = [1.0, 1.05, 0.95, 1.0, 1.02];
        let r = unpaired_ratio(&cold, &warm).unwrap();
        let gm = |v: &[f64]| geometric_mean(v).unwrap();
        assert!((r.estimate - gm(&cold) / gm(&warm)).abs() < 1e-12);
        assert!(
            r.lo < r.estimate && r.estimate < r.hi && r.lo > 3.5 && r.hi < 4.6,
            "{r:?}"
        );
        assert!(unpaired_ratio(&[], &warm).is_none());
        assert!(
            unpaired_ratio(&[4.0], &warm).is_none(),
            "one sample has no spread"
        );
    }

    #[test]
    fn p_beyond_agrees_with_the_interval() {
        // p ≤ 0.05 exactly when the interval clears the threshold on the estimate's side.
        for (a, t) in [
            (&[1.10, 1.12, 1.08, 1.11][..], 0.05),
            (&[1.04, 1.20, 0.98, 1.3][..], 0.05),
        ] {
            let d = unpaired_log_ratio(a, &[1.0, 1.01, 0.99, 1.0]).unwrap();
            let r = d.interval();
            assert_eq!(
                d.p_beyond(t) <= 0.05,
                r.lo > 1.0 + t,
                "{r:?} p {}",
                d.p_beyond(t)
            );
        }
    }

    #[test]
    fn geometric_mean_of_ratios() {
        assert!((geometric_mean(&[2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert!(geometric_mean(&[]).is_none());
        assert!(geometric_mean(&[1.0, 0.0]).is_none());
    }
}
