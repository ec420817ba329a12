//! The rule that turns two runs' samples of one cell into a verdict, and the control of false
//! calls across a comparison's cells. Runs are measured apart, so nothing pairs their samples:
//! the ratio is NEW's geometric mean over BASE's, with the pooled t interval of the log times
//! (`stats::unpaired_ratio`, valid from 2 samples a side; its coverage is simulated in
//! tests/interval_coverage.rs). Each cell also gets the p-value of "its change is within the
//! threshold" (`LogDifference::p_beyond`), and the cells of one comparison are called changed
//! only as Benjamini–Hochberg discoveries at a false discovery rate of [`FALSE_DISCOVERY_RATE`]
//! ([`control_false_discoveries`]): 57 cells tested at 5 % each would call something changed in
//! most comparisons of identical runs.
//!
//! Let `t` be the threshold and `[lo, hi]` the 95 % interval of NEW ÷ BASE:
//! - slower: a discovery whose estimate is above 1 (alone, `lo > 1 + t`);
//! - faster: a discovery whose estimate is below 1 (alone, `hi < 1 / (1 + t)`);
//! - no change: not a discovery, and the interval lies within `[1 / (1 + t), 1 + t]`: any
//!   change is smaller than the threshold;
//! - inconclusive: not a discovery, and the interval reaches past the threshold: the samples
//!   cannot tell whether the cell changed by more than it (more samples can).
//!
//! A side with fewer than [`MIN_SAMPLES`] samples is not classified (no change, saying why).

use super::model::{Verdict, FALSE_DISCOVERY_RATE, MIN_SAMPLES};
use crate::stats::{benjamini_hochberg, unpaired_log_ratio, LogDifference, RatioInterval};

/// NEW ÷ BASE on the log scale; `None` without two positive values a side.
pub fn difference(base: &[f64], new: &[f64]) -> Option<LogDifference> {
    unpaired_log_ratio(new, base)
}

#[derive(Debug, Clone, PartialEq)]
pub struct Classified {
    pub verdict: Verdict,
    pub ratio: Option<RatioInterval>,
    /// The p-value of "changed by no more than the threshold"; `None` when not classified.
    pub p_value: Option<f64>,
    /// Why the cell was not classified.
    pub note: Option<String>,
}

/// The verdict of an interval under threshold `t`, given whether the cell is a discovery
/// (see the module's rule).
pub fn verdict_of(ratio: &RatioInterval, t: f64, discovery: bool) -> Verdict {
    let (upper, lower) = (1.0 + t, 1.0 / (1.0 + t));
    if discovery && ratio.estimate > 1.0 {
        Verdict::Slower
    } else if discovery && ratio.estimate < 1.0 {
        Verdict::Faster
    } else if ratio.lo >= lower && ratio.hi <= upper {
        Verdict::NoChange
    } else {
        Verdict::Inconclusive
    }
}

/// Classifies NEW's values against BASE's (seconds per call, or bytes of memory) as if it were
/// the comparison's only cell; [`control_false_discoveries`] then decides across cells.
pub fn classify(base: &[f64], new: &[f64], threshold: f64) -> Classified {
    let difference = difference(base, new);
    let ratio = difference.map(|d| d.interval());
    if base.len() < MIN_SAMPLES || new.len() < MIN_SAMPLES {
        return Classified {
            verdict: Verdict::NoChange,
            ratio,
            p_value: None,
            note: Some(format!(
                "too few samples to classify ({} in BASE, {} in NEW; {MIN_SAMPLES} needed)",
                base.len(),
                new.len()
            )),
        };
    }
    match difference {
        Some(d) => {
            let p = d.p_beyond(threshold);
            Classified {
                verdict: verdict_of(&d.interval(), threshold, p <= FALSE_DISCOVERY_RATE),
                ratio,
                p_value: Some(p),
                note: None,
            }
        }
        None => Classified {
            verdict: Verdict::NoChange,
            ratio: None,
            p_value: None,
            note: Some("no positive values to compare".into()),
        },
    }
}

/// Decides the verdicts of cells classified together: each `(ratio, p-value)` is a discovery
/// when Benjamini–Hochberg at [`FALSE_DISCOVERY_RATE`] says so across all of them.
pub fn control_false_discoveries(tested: &[(RatioInterval, f64)], threshold: f64) -> Vec<Verdict> {
    let p_values: Vec<f64> = tested.iter().map(|(_, p)| *p).collect();
    benjamini_hochberg(&p_values, FALSE_DISCOVERY_RATE)
        .into_iter()
        .zip(tested)
        .map(|(discovery, (ratio, _))| verdict_of(ratio, threshold, discovery))
        .collect()
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
        let c = classify(&BASE[..1], &scaled(2.0), 0.05);
        assert_eq!(c.verdict, Verdict::NoChange);
        assert!(c.note.unwrap().starts_with("too few samples"));
        assert_eq!(classify(&[], &[], 0.05).verdict, Verdict::NoChange);
    }

    #[test]
    fn a_wide_interval_that_holds_1_is_inconclusive_not_no_change() {
        // Three noisy samples a side, NEW about 1.3× BASE: the interval holds 1 and reaches far
        // past 1.05, so the data cannot say there was no change.
        let c = classify(&[1.0, 1.4, 0.8], &[1.2, 1.9, 1.1], 0.05);
        let r = c.ratio.unwrap();
        assert!(r.contains_one() && r.hi > 1.05, "{r:?}");
        assert_eq!(c.verdict, Verdict::Inconclusive);
        assert!(!c.verdict.is_regression());
    }

    #[test]
    fn the_rule_at_its_edges() {
        let r = |lo: f64, hi: f64| RatioInterval {
            estimate: (lo * hi).sqrt(),
            lo,
            hi,
            rounds: 5,
        };
        assert_eq!(verdict_of(&r(1.06, 1.2), 0.05, true), Verdict::Slower);
        assert_eq!(
            verdict_of(&r(1.06, 1.2), 0.05, false),
            Verdict::Inconclusive
        );
        assert_eq!(
            verdict_of(&r(1.04, 1.2), 0.05, false),
            Verdict::Inconclusive
        );
        assert_eq!(
            verdict_of(&r(0.99, 1.2), 0.05, false),
            Verdict::Inconclusive
        );
        assert_eq!(verdict_of(&r(0.99, 1.04), 0.05, false), Verdict::NoChange);
        assert_eq!(verdict_of(&r(1.01, 1.04), 0.05, false), Verdict::NoChange);
        assert_eq!(verdict_of(&r(0.5, 0.95), 0.05, true), Verdict::Faster);
        assert_eq!(
            verdict_of(&r(0.5, 0.96), 0.05, false),
            Verdict::Inconclusive
        );
    }

    #[test]
    fn a_lone_borderline_cell_is_not_a_discovery_among_many() {
        // p = 0.03 passes alone; among 57 cells whose p-values are all 1, BH needs p ≤ 0.05/57.
        let borderline = (
            RatioInterval {
                estimate: 1.3,
                lo: 1.06,
                hi: 1.6,
                rounds: 8,
            },
            0.03,
        );
        let quiet = (
            RatioInterval {
                estimate: 1.0,
                lo: 0.98,
                hi: 1.02,
                rounds: 8,
            },
            1.0,
        );
        assert_eq!(
            control_false_discoveries(&[borderline], 0.05),
            vec![Verdict::Slower]
        );
        let mut many = vec![quiet; 56];
        many.insert(0, borderline);
        let verdicts = control_false_discoveries(&many, 0.05);
        assert_eq!(verdicts[0], Verdict::Inconclusive);
        assert!(verdicts[1..].iter().all(|v| *v == Verdict::NoChange));
    }
}
