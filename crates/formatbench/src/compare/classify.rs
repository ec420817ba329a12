//! The rule that turns two runs' samples of one cell into a verdict. Runs are measured apart,
//! so nothing pairs their samples: the ratio is NEW's median over BASE's, and its interval
//! comes from resampling each run's samples on its own (95 % percentile bootstrap, fixed seed,
//! so the same runs always give the same verdicts) when both have [`BOOTSTRAP_MIN`] samples.
//! With fewer, a bootstrap of a median has a handful of distinct values and its interval is far
//! too narrow, so the interval is the span of every NEW ÷ BASE pair instead: `slower` then
//! means every NEW sample took more than (1 + t) times every BASE sample. Under no change, the
//! chance that 3 samples against 3 separate completely in one direction is 1 in 20 before any
//! threshold; the threshold's margin makes it smaller still.
//!
//! Let `t` be the threshold and `[lo, hi]` the interval of NEW ÷ BASE:
//! - slower: `lo > 1 + t`, the whole interval beyond the threshold;
//! - faster: `hi < 1 / (1 + t)`, the mirror image (a change of ×(1 + t) either way);
//! - no change: the interval contains 1, or lies within `[1 / (1 + t), 1 + t]`;
//! - uncertain: anything else (the interval excludes 1 but straddles a threshold).
//!
//! A side with fewer than [`MIN_SAMPLES`] samples is not classified (no change, saying why).

use super::model::{Verdict, BOOTSTRAP_MIN, MIN_SAMPLES};
use crate::stats::median;
use crate::stats::{unpaired_ratio, RatioInterval, BOOTSTRAP_SEED, RESAMPLES};

/// NEW ÷ BASE with its interval (see the module's rule); `None` without positive values.
pub fn interval(base: &[f64], new: &[f64]) -> Option<RatioInterval> {
    if base.len() >= BOOTSTRAP_MIN && new.len() >= BOOTSTRAP_MIN {
        return unpaired_ratio(new, base, RESAMPLES, BOOTSTRAP_SEED);
    }
    pair_span(new, base)
}

/// The ratio of medians a ÷ b, from the smallest to the largest ratio of any pair.
fn pair_span(a: &[f64], b: &[f64]) -> Option<RatioInterval> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|x| *x <= 0.0 || !x.is_finite()) {
        return None;
    }
    let smallest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let largest = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    Some(RatioInterval {
        estimate: median(a)? / median(b)?,
        lo: smallest(a) / largest(b),
        hi: largest(a) / smallest(b),
        rounds: a.len().min(b.len()),
    })
}

#[derive(Debug, Clone, PartialEq)]
pub struct Classified {
    pub verdict: Verdict,
    pub ratio: Option<RatioInterval>,
    /// Why the cell was not classified.
    pub note: Option<String>,
}

/// The verdict of an interval under threshold `t` (see the module's rule).
pub fn verdict_of(ratio: &RatioInterval, t: f64) -> Verdict {
    let (upper, lower) = (1.0 + t, 1.0 / (1.0 + t));
    if ratio.lo > upper {
        Verdict::Slower
    } else if ratio.hi < lower {
        Verdict::Faster
    } else if ratio.contains_one() || (ratio.lo >= lower && ratio.hi <= upper) {
        Verdict::NoChange
    } else {
        Verdict::Uncertain
    }
}

/// Classifies NEW's values against BASE's (seconds per call, or bytes of memory).
pub fn classify(base: &[f64], new: &[f64], threshold: f64) -> Classified {
    let ratio = interval(base, new);
    if base.len() < MIN_SAMPLES || new.len() < MIN_SAMPLES {
        return Classified {
            verdict: Verdict::NoChange,
            ratio,
            note: Some(format!(
                "too few samples to classify ({} in BASE, {} in NEW; {MIN_SAMPLES} needed)",
                base.len(),
                new.len()
            )),
        };
    }
    match ratio {
        Some(r) => Classified {
            verdict: verdict_of(&r, threshold),
            ratio,
            note: None,
        },
        None => Classified {
            verdict: Verdict::NoChange,
            ratio: None,
            note: Some("no positive values to compare".into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: [f64; 8] = [1.00, 1.03, 0.98, 1.05, 0.97, 1.01, 1.02, 0.99];

    fn scaled(f: f64) -> Vec<f64> {
        BASE.iter().map(|x| x * f).collect()
    }

    #[test]
    fn identical_samples_are_no_change() {
        let c = classify(&BASE, &BASE, 0.05);
        assert_eq!(c.verdict, Verdict::NoChange);
        assert!(c.note.is_none());
        let r = c.ratio.unwrap();
        assert!(
            (r.estimate - 1.0).abs() < 1e-12 && r.contains_one(),
            "{r:?}"
        );
    }

    #[test]
    fn twice_the_time_is_slower_and_half_is_faster() {
        let slower = classify(&BASE, &scaled(2.0), 0.05);
        assert_eq!(slower.verdict, Verdict::Slower);
        assert!((slower.ratio.unwrap().estimate - 2.0).abs() < 1e-12);
        assert!(slower.verdict.is_regression());
        let faster = classify(&BASE, &scaled(0.5), 0.05);
        assert_eq!(faster.verdict, Verdict::Faster);
        assert!(!faster.verdict.is_regression());
    }

    #[test]
    fn a_change_within_the_threshold_is_no_change() {
        // 2 % slower, every sample: the interval excludes 1 but stays inside ±5 %.
        let c = classify(&BASE, &scaled(1.02), 0.05);
        assert_eq!(c.verdict, Verdict::NoChange, "{:?}", c.ratio);
        // The threshold moves the line: 20 % slower is a change at ±5 %, not at ±50 %.
        assert_eq!(classify(&BASE, &scaled(1.2), 0.05).verdict, Verdict::Slower);
        assert_eq!(
            classify(&BASE, &scaled(1.2), 0.5).verdict,
            Verdict::NoChange
        );
    }

    #[test]
    fn too_few_samples_are_not_classified() {
        let c = classify(&BASE[..2], &scaled(2.0), 0.05);
        assert_eq!(c.verdict, Verdict::NoChange);
        assert!(c.note.unwrap().starts_with("too few samples"));
        assert!(c.ratio.is_some(), "the estimate is still shown");
        assert_eq!(classify(&[], &[], 0.05).verdict, Verdict::NoChange);
    }

    #[test]
    fn a_few_samples_are_judged_by_the_span_of_their_pairs() {
        let base = [1.00, 1.04, 0.97];
        // Every NEW sample above every BASE sample by more than 5 %: slower.
        let slower = classify(&base, &[1.2, 1.25, 1.3], 0.05);
        assert_eq!(slower.verdict, Verdict::Slower, "{:?}", slower.ratio);
        let r = slower.ratio.unwrap();
        assert!((r.lo - 1.2 / 1.04).abs() < 1e-12 && (r.hi - 1.3 / 0.97).abs() < 1e-12);
        // Overlapping samples, though NEW's median is higher: no change.
        let overlap = classify(&base, &[1.03, 1.08, 0.99], 0.05);
        assert_eq!(overlap.verdict, Verdict::NoChange, "{:?}", overlap.ratio);
        // Separated, but by less than the threshold everywhere: not slower.
        let close = classify(&base, &[1.05, 1.06, 1.07], 0.05);
        assert_ne!(close.verdict, Verdict::Slower, "{:?}", close.ratio);
    }

    #[test]
    fn the_rule_at_its_edges() {
        let r = |lo, hi| RatioInterval {
            estimate: (lo + hi) / 2.0,
            lo,
            hi,
            rounds: 5,
        };
        assert_eq!(verdict_of(&r(1.06, 1.2), 0.05), Verdict::Slower);
        assert_eq!(verdict_of(&r(1.04, 1.2), 0.05), Verdict::Uncertain);
        assert_eq!(verdict_of(&r(0.99, 1.2), 0.05), Verdict::NoChange);
        assert_eq!(verdict_of(&r(1.01, 1.04), 0.05), Verdict::NoChange);
        assert_eq!(verdict_of(&r(0.5, 0.95), 0.05), Verdict::Faster);
        assert_eq!(verdict_of(&r(0.5, 0.96), 0.05), Verdict::Uncertain);
    }
}
